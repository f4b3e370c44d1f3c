-- Each player's figures from a match's analysis (issue #29, item 3): the
-- profile's recent accuracy and points lost by form, read without opening
-- every stored analysis's JSON. Written with the analysis, in the same
-- transaction, one row per seat a player sat in (no row for a bot or an
-- imported name). `ended_at` is the match's end: "recent" is by when it
-- was played, not by when someone first asked for its analysis.
-- The analyses stored before this migration get their rows from their
-- JSON (`players`, one entry per seat), the form from the match's rules
-- as `Rules::form` names it (players 4: partnership; 3: three_handed with
-- a dummy, else cutthroat; 2: two_handed with a dummy, else
-- two_handed_plain; rules stored before the small forms are four-handed).

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

INSERT INTO seat_accuracy
    (match_id, seat, player_id, form, decisions, within_tolerance, points_lost, ended_at)
SELECT a.match_id, s.seat, s.player_id,
    CASE COALESCE((m.rules ->> 'players')::BIGINT, 4)
        WHEN 4 THEN 'partnership'
        WHEN 3 THEN CASE WHEN COALESCE((m.rules ->> 'dummy')::BOOLEAN, FALSE)
            THEN 'three_handed' ELSE 'cutthroat' END
        ELSE CASE WHEN COALESCE((m.rules ->> 'dummy')::BOOLEAN, FALSE)
            THEN 'two_handed' ELSE 'two_handed_plain' END
    END,
    (p ->> 'decisions')::BIGINT, (p ->> 'within_tolerance')::BIGINT,
    (p ->> 'points_lost')::DOUBLE PRECISION, COALESCE(m.ended_at, a.created_at)
FROM match_analyses a
JOIN matches m ON m.id = a.match_id
CROSS JOIN LATERAL jsonb_array_elements(a.analysis::JSONB -> 'players') AS p
JOIN match_seats s ON s.match_id = a.match_id AND s.seat = (p ->> 'seat')::BIGINT
WHERE s.player_id IS NOT NULL;
