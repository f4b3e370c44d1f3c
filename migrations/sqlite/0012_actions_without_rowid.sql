-- Actions kept in their primary key's order, with no rowid (issue #30).
--
-- A rowid table with a TEXT primary key is two B-trees: the rows by rowid
-- and the key's index pointing at them, so each action stored was two
-- B-tree inserts. WITHOUT ROWID keeps the rows in the key's B-tree itself:
-- one insert an action, and a match's actions read in key order as
-- before. An action's row is small (a few dozen bytes), which is what
-- WITHOUT ROWID is for. Nothing references actions and no index is on it.

CREATE TABLE actions_by_key (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    hand          BIGINT NOT NULL,
    idx           BIGINT NOT NULL,
    seat          BIGINT NOT NULL,
    action        TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    at            BIGINT NOT NULL,
    PRIMARY KEY (match_id, hand, idx)
) WITHOUT ROWID;

INSERT INTO actions_by_key (match_id, hand, idx, seat, action, seq, at)
    SELECT match_id, hand, idx, seat, action, seq, at FROM actions;

DROP TABLE actions;

ALTER TABLE actions_by_key RENAME TO actions;
