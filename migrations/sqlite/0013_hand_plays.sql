-- A hand's actions in one column of its row (issue #30): four ASCII
-- characters an action, as crates/store/src/plays.rs writes them, in
-- order. A batch's actions of one hand go in with one statement instead
-- of a row each, and a match reads back with its hands.
--
-- `last_seq` is the largest table event seq among the hand's actions (0
-- with none): a table resumed after a restart numbers its events on from
-- the match's largest.
--
-- Actions stored before this migration stay in `actions` until the store
-- starts: it moves them into their hands' `plays` (in Rust, with the same
-- encoding) before anything else reads or writes, and nothing writes to
-- `actions` any more.
ALTER TABLE hands ADD COLUMN plays TEXT NOT NULL DEFAULT '';
ALTER TABLE hands ADD COLUMN last_seq BIGINT NOT NULL DEFAULT 0;
