-- What moderators do to players, and what they need to know to do it.
-- Every change here is logged in moderation_log by the same transaction.
--
-- A ban or mute row is live while `until` is in the future (NULL: for
-- good); lifting one deletes it, the log keeps that it was.
CREATE TABLE account_bans (
    player_id TEXT PRIMARY KEY,
    until     BIGINT,
    at        BIGINT NOT NULL,
    reason    TEXT NOT NULL DEFAULT ''
);

-- An address is kept only as a keyed hash (HMAC-SHA256 under
-- moderation_keys' key) of its key: an IPv4 address, or an IPv6 /64.
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

-- Shown at each hello until the player acknowledges it.
CREATE TABLE warnings (
    id        BIGSERIAL PRIMARY KEY,
    player_id TEXT NOT NULL,
    at        BIGINT NOT NULL,
    message   TEXT NOT NULL,
    -- 'warning', or 'rename': a moderator took the player's name away, and
    -- the player may pick a new one.
    kind      TEXT NOT NULL DEFAULT 'warning',
    seen_at   BIGINT
);
CREATE INDEX warnings_player ON warnings (player_id, id);

-- Names a moderator took away: the old name's key stays reserved (no one
-- may take it, or one that looks the same), and it is a name they used.
CREATE TABLE renames (
    id           BIGSERIAL PRIMARY KEY,
    player_id    TEXT NOT NULL,
    old_name     TEXT NOT NULL,
    old_name_key TEXT NOT NULL,
    new_name     TEXT NOT NULL,
    at           BIGINT NOT NULL
);
CREATE INDEX renames_player ON renames (player_id, id);

-- The addresses (keyed hashes, as above) each player said hello or logged
-- in from: which accounts share one.
CREATE TABLE address_sightings (
    address_hash TEXT NOT NULL,
    player_id    TEXT NOT NULL,
    first_seen   BIGINT NOT NULL,
    last_seen    BIGINT NOT NULL,
    PRIMARY KEY (address_hash, player_id)
);
CREATE INDEX address_sightings_player ON address_sightings (player_id);

-- The server's keys, made once at first start and shared by every node
-- through the database: `address` keys the address hashes.
CREATE TABLE moderation_keys (
    name TEXT PRIMARY KEY,
    key  TEXT NOT NULL
);
