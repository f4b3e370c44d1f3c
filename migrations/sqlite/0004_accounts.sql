-- The same change as migrations/postgres/0004_accounts.sql, which says why.

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
