-- Accounts (issue #19): a guest claims its name with a password and keeps
-- its player id, so its history follows it to any device it logs in from.
-- Nothing existing changes: every player stays a guest until it claims.
--
-- `name_key` is the name as compared, in lower case (Rust's Unicode
-- `to_lowercase`, the same on both backends), and unique: "Ann" and "ANN"
-- are one name. The display name stays in `players.name`.
-- `password_hash` is argon2id in the PHC string format (algorithm,
-- parameters, salt and hash together); the password itself is never stored.
CREATE TABLE accounts (
    player_id     TEXT PRIMARY KEY REFERENCES players (id),
    name_key      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

-- Log-in sessions: revocable bearer tokens with an expiry. As for guests'
-- tokens, only the SHA-256 of each token is kept.
CREATE TABLE sessions (
    token_hash    TEXT PRIMARY KEY,
    player_id     TEXT NOT NULL REFERENCES accounts (player_id),
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    -- Set on log-out, and for every session when the password changes.
    revoked_at    BIGINT
);
CREATE INDEX sessions_player ON sessions (player_id);
