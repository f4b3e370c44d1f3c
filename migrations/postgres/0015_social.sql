-- What players do about one another: mutes, blocks and reports.
--
-- A mute or a block belongs to an account (a guest's last its session, in
-- the server's memory) and goes with it. The player muted or blocked may be
-- a guest, so `other` names any player and has no foreign key: a purged
-- guest's rows only stop mattering.
CREATE TABLE player_mutes (
    player_id TEXT NOT NULL REFERENCES accounts (player_id) ON DELETE CASCADE,
    other     TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (player_id, other)
);

CREATE TABLE player_blocks (
    player_id TEXT NOT NULL REFERENCES accounts (player_id) ON DELETE CASCADE,
    other     TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (player_id, other)
);
-- Who blocked a player: a block holds both ways.
CREATE INDEX player_blocks_other ON player_blocks (other);

-- A report by any player (a guest too) about another. `context` is what a
-- report is deduplicated by with its two players: the match's id, else the
-- table's, else '' (a report from a profile). `chat` is the reported
-- player's lines at the table, as the server held them (JSON).
CREATE TABLE reports (
    id        BIGSERIAL PRIMARY KEY,
    at        BIGINT NOT NULL,
    reporter  TEXT NOT NULL,
    reported  TEXT NOT NULL,
    reason    TEXT NOT NULL CHECK (reason IN ('abusive_chat', 'cheating_or_collusion',
                  'throwing_games', 'offensive_name', 'other')),
    details   TEXT NOT NULL DEFAULT '',
    table_id  TEXT,
    match_id  TEXT,
    context   TEXT NOT NULL,
    chat      JSONB NOT NULL,
    closed_at BIGINT,
    closed_by TEXT,
    note      TEXT
);
CREATE UNIQUE INDEX reports_once ON reports (reporter, reported, context);
CREATE INDEX reports_by_reporter ON reports (reporter, at);
CREATE INDEX reports_open ON reports (id) WHERE closed_at IS NULL;
