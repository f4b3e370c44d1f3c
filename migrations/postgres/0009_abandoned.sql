-- Nothing lost silently (issue #28). A closed table keeps why it closed
-- ('everyone_left': nobody stayed past the idle time; 'lost': the server
-- could not restore it after a restart), so a link to it can say what
-- happened. A match that can no longer finish (its table closed before the
-- game ended) is marked abandoned, with when and why (its table's reason);
-- until then an unfinished match reads "in progress".

ALTER TABLE game_tables ADD COLUMN closed_reason TEXT;
ALTER TABLE matches ADD COLUMN abandoned_at BIGINT;
ALTER TABLE matches ADD COLUMN abandoned_reason TEXT;
