-- A player who leaves a casual game in progress hands their seat to a bot,
-- which plays it to the end: the match is finished, not abandoned, and its
-- seat should say so. The seat's row keeps the player (their history and
-- their side's result) and names the bot that finished for them and the
-- hand (from 0) in which it took over (NULL: nobody left that seat).

ALTER TABLE match_seats ADD COLUMN stand_in TEXT;
ALTER TABLE match_seats ADD COLUMN stand_in_from_hand BIGINT;
