-- Provably fair deals (issue #18): each hand's commitment, sent to every
-- seat before the first bid, and the salt that opens it, as JSON
-- `{"commitment": hex, "salt": hex}` (the engine's `Seal`). NULL for the
-- hands stored before deals were sealed, which stay as they are: their
-- check reads "unsealed". See docs/security.md.
ALTER TABLE hands ADD COLUMN seal TEXT;
