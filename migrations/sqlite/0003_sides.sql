-- The same change as migrations/postgres/0003_sides.sql, which says why.
--
-- Every game form (issue #13): two partnerships, or one side per player in
-- the two- and three-handed games. Each seat row holds the side it scores
-- for (`Rules::team_of(seat)`), that side's score (current as hands end)
-- and whether it won (NULL until the match ends with a winner), in place of
-- the match's `score0`, `score1` and `winner`. Every match stored so far is
-- four-handed: its seats take team seat % 2's score and result.
--
-- SQLite cannot drop a column's default, so `side` keeps its 0; every insert
-- names the side.
ALTER TABLE match_seats ADD COLUMN side BIGINT NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN score BIGINT NOT NULL DEFAULT 0;
ALTER TABLE match_seats ADD COLUMN won BOOLEAN;

UPDATE match_seats SET
    side = seat % 2,
    score = (SELECT CASE match_seats.seat % 2 WHEN 0 THEN m.score0 ELSE m.score1 END
        FROM matches m WHERE m.id = match_seats.match_id),
    won = (SELECT CASE WHEN m.winner IS NULL THEN NULL ELSE m.winner = match_seats.seat % 2 END
        FROM matches m WHERE m.id = match_seats.match_id);

ALTER TABLE matches DROP COLUMN score0;
ALTER TABLE matches DROP COLUMN score1;
ALTER TABLE matches DROP COLUMN winner;
