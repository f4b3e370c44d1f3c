-- The same change as migrations/postgres/0020_tournaments.sql, which says why.

CREATE TABLE tournaments (
    id          TEXT PRIMARY KEY,
    status      TEXT NOT NULL,
    starts_at   BIGINT NOT NULL,
    listed      BOOLEAN NOT NULL,
    version     BIGINT NOT NULL,
    doc         TEXT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);
