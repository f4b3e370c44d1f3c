-- Tournaments (Swiss, knockout, progressive). The server's director owns
-- each one and writes its whole state, registrations, pairings and results,
-- as one JSON document: a tournament is small (hundreds of players), read
-- whole and changed a round at a time. The columns beside it are what the
-- lists filter and sort on; `version` grows with every save, so a journal
-- replayed after a crash never puts an older state over a newer one.

CREATE TABLE tournaments (
    id          TEXT PRIMARY KEY,
    -- registering, running, finished or cancelled
    status      TEXT NOT NULL,
    starts_at   BIGINT NOT NULL,
    -- Shown in the public list (false: by invite).
    listed      BOOLEAN NOT NULL,
    version     BIGINT NOT NULL,
    doc         JSONB NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);
