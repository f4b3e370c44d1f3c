-- The same change as migrations/postgres/0015_social.sql, which says why.

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
CREATE INDEX player_blocks_other ON player_blocks (other);

CREATE TABLE reports (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at        BIGINT NOT NULL,
    reporter  TEXT NOT NULL,
    reported  TEXT NOT NULL,
    reason    TEXT NOT NULL CHECK (reason IN ('abusive_chat', 'cheating_or_collusion',
                  'throwing_games', 'offensive_name', 'other')),
    details   TEXT NOT NULL DEFAULT '',
    table_id  TEXT,
    match_id  TEXT,
    context   TEXT NOT NULL,
    chat      TEXT NOT NULL,
    closed_at BIGINT,
    closed_by TEXT,
    note      TEXT
);
CREATE UNIQUE INDEX reports_once ON reports (reporter, reported, context);
CREATE INDEX reports_by_reporter ON reports (reporter, at);
CREATE INDEX reports_open ON reports (id) WHERE closed_at IS NULL;
