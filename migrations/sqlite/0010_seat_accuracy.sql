-- The same change as migrations/postgres/0010_seat_accuracy.sql, which says why.

CREATE TABLE seat_accuracy (
    match_id         TEXT NOT NULL REFERENCES match_analyses (match_id),
    seat             BIGINT NOT NULL,
    player_id        TEXT NOT NULL,
    form             TEXT NOT NULL,
    decisions        BIGINT NOT NULL,
    within_tolerance BIGINT NOT NULL,
    points_lost      DOUBLE PRECISION NOT NULL,
    ended_at         BIGINT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX seat_accuracy_player ON seat_accuracy (player_id, form, ended_at);
