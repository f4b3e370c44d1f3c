-- Accounts their players deleted. The row stays, with no password hash,
-- for the cooling-off the operator sets (`accounts.deleted_name_hold_days`),
-- so that nobody takes the name at once; housekeeping then deletes it and
-- the name is free. Sessions, roles, ratings and accuracy rows go at the
-- deletion; the player's seats in stored matches read "deleted player".
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;
