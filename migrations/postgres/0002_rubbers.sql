-- Rubbers (sheet 003): a match may be a rubber of up to three games. When it
-- is, its games' results (winner, scores, rubber points) once it has ended;
-- NULL for a single game.
ALTER TABLE matches ADD COLUMN rubber JSONB;
