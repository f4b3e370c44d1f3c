-- A guest's blocks, stored as an account's are: a block must hold when the
-- two players are on different nodes of a cluster (the node a player asks to
-- sit on reads every block on them from here), and for as long as the guest
-- does (a guest's token outlives a restart; its blocks used to live only in
-- its node's memory).
--
-- No foreign key to players: a new guest's row reaches the database through
-- the journal, possibly after its first block. Housekeeping deletes a purged
-- guest's rows with it.
CREATE TABLE guest_blocks (
    player_id TEXT NOT NULL,
    other     TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (player_id, other)
);
-- Who blocked a player: a block holds both ways.
CREATE INDEX guest_blocks_other ON guest_blocks (other);
