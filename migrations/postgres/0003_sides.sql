-- Every game form (issue #13): two partnerships, or one side per player in
-- the two- and three-handed games, so a match has two or three scores.
--
-- Each seat row now holds the side it scores for, that side's score and
-- whether it won, in place of the match's `score0`, `score1` and `winner`.
-- Why the seat rather than a list on the match or a table of sides: "did
-- this player win" (the `won` filter) and "what did this player's side
-- score" (player records) are then one row away, in SQL both backends
-- share, whatever the form; a JSON list would need each dialect's JSON
-- functions to add a hand's points or to find a seat among the winners.
-- The price is that partners hold the same score twice, both rows always
-- set by the same statement.
--
-- `side`: the engine's `Rules::team_of(seat)` (seat % 2 with partners,
-- the seat itself without). `score`: kept current as hands end, final once
-- the match ends. `won`: NULL until the match ends with a winner (so also
-- for a match abandoned without one), then whether this seat's side won.
--
-- Every match stored so far is four-handed: its seats take team seat % 2's
-- score and result.
ALTER TABLE match_seats ADD COLUMN side BIGINT NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN score BIGINT NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN won BOOLEAN;

UPDATE match_seats SET
    side = seat % 2,
    score = (SELECT CASE match_seats.seat % 2 WHEN 0 THEN m.score0 ELSE m.score1 END
        FROM matches m WHERE m.id = match_seats.match_id),
    won = (SELECT CASE WHEN m.winner IS NULL THEN NULL ELSE m.winner = match_seats.seat % 2 END
        FROM matches m WHERE m.id = match_seats.match_id);

-- The default only served the rows above: every insert names the side.
ALTER TABLE match_seats ALTER COLUMN side DROP DEFAULT;

-- One place for a score: the seats.
ALTER TABLE matches DROP COLUMN score0;
ALTER TABLE matches DROP COLUMN score1;
ALTER TABLE matches DROP COLUMN winner;
