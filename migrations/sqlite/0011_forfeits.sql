-- The same change as migrations/postgres/0011_forfeits.sql, which says why.

ALTER TABLE match_seats ADD COLUMN forfeited_at BIGINT;
