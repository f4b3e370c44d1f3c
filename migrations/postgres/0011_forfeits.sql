-- Forfeits survive a restart (issue #28). A rated player who leaves the
-- game, or stays away past the reconnect grace, forfeits it; the table
-- used to keep that only in memory, so a crash or restart mid-game forgot
-- it and the leaver escaped the loss. The seat's row keeps when its player
-- forfeited (NULL: did not), and a table restored after a restart reads it
-- back with its game.

ALTER TABLE match_seats ADD COLUMN forfeited_at BIGINT;
