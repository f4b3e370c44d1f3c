-- The same change as migrations/postgres/0018_stand_ins.sql, which says why.

ALTER TABLE match_seats ADD COLUMN stand_in TEXT;
ALTER TABLE match_seats ADD COLUMN stand_in_from_hand BIGINT;
