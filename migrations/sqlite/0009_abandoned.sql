-- The same change as migrations/postgres/0009_abandoned.sql, which says why.

ALTER TABLE game_tables ADD COLUMN closed_reason TEXT;
ALTER TABLE matches ADD COLUMN abandoned_at BIGINT;
ALTER TABLE matches ADD COLUMN abandoned_reason TEXT;
