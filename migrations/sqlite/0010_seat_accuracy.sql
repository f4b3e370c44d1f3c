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

INSERT INTO seat_accuracy
    (match_id, seat, player_id, form, decisions, within_tolerance, points_lost, ended_at)
SELECT a.match_id, s.seat, s.player_id,
    CASE COALESCE(json_extract(m.rules, '$.players'), 4)
        WHEN 4 THEN 'partnership'
        WHEN 3 THEN CASE WHEN COALESCE(json_extract(m.rules, '$.dummy'), 0)
            THEN 'three_handed' ELSE 'cutthroat' END
        ELSE CASE WHEN COALESCE(json_extract(m.rules, '$.dummy'), 0)
            THEN 'two_handed' ELSE 'two_handed_plain' END
    END,
    json_extract(p.value, '$.decisions'), json_extract(p.value, '$.within_tolerance'),
    json_extract(p.value, '$.points_lost'), COALESCE(m.ended_at, a.created_at)
FROM match_analyses a
JOIN matches m ON m.id = a.match_id
JOIN json_each(a.analysis, '$.players') AS p
JOIN match_seats s ON s.match_id = a.match_id AND s.seat = json_extract(p.value, '$.seat')
WHERE s.player_id IS NOT NULL;
