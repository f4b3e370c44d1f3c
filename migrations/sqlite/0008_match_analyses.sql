-- The same change as migrations/postgres/0007_match_analyses.sql, which says why.

CREATE TABLE match_analyses (
    match_id   TEXT PRIMARY KEY REFERENCES matches (id),
    analysis   TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
