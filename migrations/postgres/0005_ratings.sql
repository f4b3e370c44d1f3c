-- Ratings (issue #19): Glicko-2, one rating per player and game form
-- (`partnership`, `cutthroat`, `three_handed`, `two_handed`,
-- `two_handed_plain`), from finished rated games between humans only.
-- Nothing existing changes: every player starts unrated.
--
-- No foreign keys to `players` or `matches`: ratings are written at once
-- when a game ends, while the journal may still be bringing those rows.
CREATE TABLE ratings (
    player_id     TEXT NOT NULL,
    form          TEXT NOT NULL,
    rating        DOUBLE PRECISION NOT NULL,
    deviation     DOUBLE PRECISION NOT NULL,
    volatility    DOUBLE PRECISION NOT NULL,
    games         BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (player_id, form)
);
CREATE INDEX ratings_board ON ratings (form, rating DESC, player_id);

-- Every rated game's change, per player: the profile's chart, and what
-- makes rating a match twice change nothing.
CREATE TABLE rating_history (
    player_id     TEXT NOT NULL,
    match_id      TEXT NOT NULL,
    form          TEXT NOT NULL,
    -- NULL for the player's first rated game in the form.
    rating_before DOUBLE PRECISION,
    rating        DOUBLE PRECISION NOT NULL,
    deviation     DOUBLE PRECISION NOT NULL,
    volatility    DOUBLE PRECISION NOT NULL,
    at            BIGINT NOT NULL,
    PRIMARY KEY (player_id, match_id)
);
CREATE INDEX rating_history_match ON rating_history (match_id);
CREATE INDEX rating_history_player ON rating_history (player_id, form, at);
