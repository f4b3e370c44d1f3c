-- The same change as migrations/postgres/0021_puzzles.sql, which says why.

CREATE TABLE puzzles (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id    TEXT NOT NULL,
    hand        BIGINT NOT NULL,
    action      BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    themes      TEXT NOT NULL,
    by_human    BOOLEAN NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    plays       BIGINT NOT NULL,
    puzzle      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (match_id, hand, action)
);
CREATE INDEX puzzles_by_rating ON puzzles (rating);
CREATE INDEX puzzles_by_creation ON puzzles (created_at, id);

CREATE TABLE puzzle_attempts (
    player_id   TEXT NOT NULL,
    puzzle_id   BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    correct     BOOLEAN NOT NULL,
    at          BIGINT NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_by_time ON puzzle_attempts (player_id, at);

CREATE TABLE puzzle_ratings (
    player_id   TEXT PRIMARY KEY,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    streak      BIGINT NOT NULL,
    best_streak BIGINT NOT NULL,
    attempts    BIGINT NOT NULL,
    solved      BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
