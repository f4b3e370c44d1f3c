-- The same change as migrations/postgres/0019_guest_blocks.sql, which says why.

CREATE TABLE guest_blocks (
    player_id TEXT NOT NULL,
    other     TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (player_id, other)
);
-- Who blocked a player: a block holds both ways.
CREATE INDEX guest_blocks_other ON guest_blocks (other);
