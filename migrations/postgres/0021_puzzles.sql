-- Puzzles drawn from analysed matches (`euchre-puzzles`), and how accounts
-- fare on them. A puzzle is stored whole as the crate's JSON (question,
-- answers, solution); the columns beside it are what the server picks and
-- rates on. Like lichess, puzzles are rated too (Glicko-2): a puzzle that
-- beats its solvers rises, so "near the solver's rating" means something.

CREATE TABLE puzzles (
    id          BIGSERIAL PRIMARY KEY,
    -- Where it was found: one puzzle per decision of a match.
    match_id    TEXT NOT NULL,
    hand        BIGINT NOT NULL,
    action      BIGINT NOT NULL,
    -- bid, discard or card
    kind        TEXT NOT NULL,
    -- The crate's theme names, space-separated.
    themes      TEXT NOT NULL,
    -- A person made the decision (served before bots' puzzles).
    by_human    BOOLEAN NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    -- Rated attempts so far.
    plays       BIGINT NOT NULL,
    puzzle      JSONB NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (match_id, hand, action)
);
CREATE INDEX puzzles_by_rating ON puzzles (rating);
CREATE INDEX puzzles_by_creation ON puzzles (created_at, id);

-- Each account's first answer to a puzzle: the one that is rated. Guests'
-- answers are judged, not kept.
CREATE TABLE puzzle_attempts (
    player_id   TEXT NOT NULL,
    puzzle_id   BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    correct     BOOLEAN NOT NULL,
    at          BIGINT NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_by_time ON puzzle_attempts (player_id, at);

-- An account's puzzle rating (Glicko-2) and its run of right answers.
CREATE TABLE puzzle_ratings (
    player_id   TEXT PRIMARY KEY,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    -- Right answers in a row, now, and the longest run.
    streak      BIGINT NOT NULL,
    best_streak BIGINT NOT NULL,
    attempts    BIGINT NOT NULL,
    solved      BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
