-- Players, tables, matches, hands and actions: everything needed to list a
-- player's matches and to replay and re-verify any hand with the engine.
-- Timestamps are milliseconds since the Unix epoch; JSON columns hold the
-- engine's serde types. Every integer is BIGINT so both backends read and
-- write the same 64-bit values (unsigned engine values such as the seed are
-- stored bit for bit). Match ids sort with the "C" collation, byte by byte,
-- as SQLite and Rust sort them, so pagination orders the same everywhere.

CREATE TABLE players (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    -- SHA-256 of the bearer token, hex: the token itself is never stored.
    token_hash    TEXT NOT NULL UNIQUE,
    created_at    BIGINT NOT NULL
);

CREATE TABLE game_tables (
    id            TEXT PRIMARY KEY,
    host_id       TEXT NOT NULL,
    settings      JSONB NOT NULL,
    invite        TEXT,
    seats         JSONB NOT NULL DEFAULT '[]',
    created_at    BIGINT NOT NULL,
    closed_at     BIGINT
);
CREATE INDEX game_tables_open ON game_tables (created_at, id) WHERE closed_at IS NULL;

CREATE TABLE matches (
    id            TEXT COLLATE "C" PRIMARY KEY,
    table_id      TEXT NOT NULL,
    number        BIGINT NOT NULL,
    rules         JSONB NOT NULL,
    seed          BIGINT NOT NULL,
    start         JSONB NOT NULL,
    started_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    -- Kept current as hands end, final once the match ends.
    score0        BIGINT NOT NULL DEFAULT 0,
    score1        BIGINT NOT NULL DEFAULT 0,
    -- The winning team (0: seats 0 and 2, 1: seats 1 and 3).
    winner        BIGINT
);
CREATE INDEX matches_newest ON matches (started_at DESC, id DESC);
CREATE INDEX matches_table ON matches (table_id, number);

CREATE TABLE match_seats (
    match_id      TEXT COLLATE "C" NOT NULL REFERENCES matches (id),
    seat          BIGINT NOT NULL,
    -- NULL for a bot.
    player_id     TEXT,
    bot           TEXT,
    name          TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_player ON match_seats (player_id, match_id);

CREATE TABLE hands (
    match_id      TEXT COLLATE "C" NOT NULL REFERENCES matches (id),
    -- Counting from 0, as the engine does.
    number        BIGINT NOT NULL,
    dealer        BIGINT NOT NULL,
    deal          JSONB NOT NULL,
    -- NULL while the hand is in progress.
    outcome       JSONB,
    ended_at      BIGINT,
    PRIMARY KEY (match_id, number)
);

CREATE TABLE actions (
    match_id      TEXT COLLATE "C" NOT NULL REFERENCES matches (id),
    hand          BIGINT NOT NULL,
    idx           BIGINT NOT NULL,
    seat          BIGINT NOT NULL,
    action        JSONB NOT NULL,
    seq           BIGINT NOT NULL,
    at            BIGINT NOT NULL,
    PRIMARY KEY (match_id, hand, idx)
);
