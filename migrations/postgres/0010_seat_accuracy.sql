-- Each player's figures from a match's analysis (issue #29, item 3): the
-- profile's recent accuracy and points lost by form, read without opening
-- every stored analysis's JSON. Written with the analysis, in the same
-- transaction, one row per seat a player sat in (no row for a bot or an
-- imported name). `ended_at` is the match's end: "recent" is by when it
-- was played, not by when someone first asked for its analysis.
-- Analyses stored before this migration have no rows here (an analysis
-- is kept, never computed again), so those matches are left out of the
-- averages.

CREATE TABLE seat_accuracy (
    match_id         TEXT COLLATE "C" NOT NULL REFERENCES match_analyses (match_id),
    seat             BIGINT NOT NULL,
    player_id        TEXT NOT NULL,
    form             TEXT NOT NULL,
    -- Decisions valued with what the player knew, and those within tolerance.
    decisions        BIGINT NOT NULL,
    within_tolerance BIGINT NOT NULL,
    -- Expected points given up against the best, summed over the match.
    points_lost      DOUBLE PRECISION NOT NULL,
    ended_at         BIGINT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX seat_accuracy_player ON seat_accuracy (player_id, form, ended_at);
