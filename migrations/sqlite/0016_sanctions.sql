-- The same change as migrations/postgres/0016_sanctions.sql, which says why.

CREATE TABLE account_bans (
    player_id TEXT PRIMARY KEY,
    until     BIGINT,
    at        BIGINT NOT NULL,
    reason    TEXT NOT NULL DEFAULT ''
);

CREATE TABLE address_bans (
    address_hash TEXT PRIMARY KEY,
    until        BIGINT NOT NULL,
    at           BIGINT NOT NULL,
    reason       TEXT NOT NULL DEFAULT ''
);

CREATE TABLE chat_mutes (
    player_id TEXT PRIMARY KEY,
    until     BIGINT NOT NULL,
    at        BIGINT NOT NULL
);

CREATE TABLE warnings (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id TEXT NOT NULL,
    at        BIGINT NOT NULL,
    message   TEXT NOT NULL,
    kind      TEXT NOT NULL DEFAULT 'warning',
    seen_at   BIGINT
);
CREATE INDEX warnings_player ON warnings (player_id, id);

CREATE TABLE renames (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id    TEXT NOT NULL,
    old_name     TEXT NOT NULL,
    old_name_key TEXT NOT NULL,
    new_name     TEXT NOT NULL,
    at           BIGINT NOT NULL
);
CREATE INDEX renames_player ON renames (player_id, id);

CREATE TABLE address_sightings (
    address_hash TEXT NOT NULL,
    player_id    TEXT NOT NULL,
    first_seen   BIGINT NOT NULL,
    last_seen    BIGINT NOT NULL,
    PRIMARY KEY (address_hash, player_id)
);
CREATE INDEX address_sightings_player ON address_sightings (player_id);

CREATE TABLE moderation_keys (
    name TEXT PRIMARY KEY,
    key  TEXT NOT NULL
);
