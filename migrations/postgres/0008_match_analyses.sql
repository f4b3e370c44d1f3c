-- The solver's analysis of a finished match (issue #29, crates/analysis):
-- computed once, on the first request for it, and kept as the JSON the
-- analysis wrote (text: it is served whole, never queried inside), so a
-- second read is a lookup. One row per match; the first one saved stays.

CREATE TABLE match_analyses (
    match_id   TEXT COLLATE "C" PRIMARY KEY REFERENCES matches (id),
    analysis   TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
