-- The same change as migrations/postgres/0005_ratings.sql, which says why.

CREATE TABLE ratings (
    player_id     TEXT NOT NULL,
    form          TEXT NOT NULL,
    rating        REAL NOT NULL,
    deviation     REAL NOT NULL,
    volatility    REAL NOT NULL,
    games         BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (player_id, form)
);
CREATE INDEX ratings_board ON ratings (form, rating DESC, player_id);

CREATE TABLE rating_history (
    player_id     TEXT NOT NULL,
    match_id      TEXT NOT NULL,
    form          TEXT NOT NULL,
    -- NULL for the player's first rated game in the form.
    rating_before REAL,
    rating        REAL NOT NULL,
    deviation     REAL NOT NULL,
    volatility    REAL NOT NULL,
    at            BIGINT NOT NULL,
    PRIMARY KEY (player_id, match_id)
);
CREATE INDEX rating_history_match ON rating_history (match_id);
CREATE INDEX rating_history_player ON rating_history (player_id, form, at);
