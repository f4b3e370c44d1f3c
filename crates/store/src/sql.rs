//! What the two backends share: the SQL text, and how the rows it reads
//! ([`crate::rows`]) become records, summaries and statistics.
//!
//! PostgreSQL and sqlx's SQLite driver both take `$n` placeholders, `ON
//! CONFLICT` and `LIMIT $n`, so one statement serves both wherever the
//! dialects agree. They part only where a batch is written in bulk (arrays
//! and `UNNEST` in PostgreSQL, a JSON array and `json_each` in SQLite): see
//! each backend. Every integer column is 64-bit on both sides, so every row
//! reads as `i64` and is narrowed here, where a value out of range is
//! reported as [`StoreError::Corrupt`] rather than trusted.

use std::collections::HashMap;

use euchre_engine::{
    Game, GameRecord, HandOutcome, HandRecord, MAX_TEAMS, PerTeam, Rules, Seat, Seed, Team,
};

use crate::plays;
use crate::rows::{
    HandRow, LastMatchRow, MatchRow, PageRow, SeatRow, StatsHandRow, StatsSeatRow, TableRecordRow,
    TableRow,
};
use crate::{
    Abandonment, CloseReason, Cursor, MatchOutcome, MatchPage, MatchQuery, MatchSeat, MatchSummary,
    PlayerRow, PlayerStats, StandIn, StoreError, TableRecord,
};

// --- Writes. Each is idempotent: applying it again leaves the same state. ---

/// A guest's name may change; the id and token hash never do. An account
/// holder's name is the one it claimed: a guest's write the journal brings
/// after the claim leaves it be.
pub(crate) const UPSERT_PLAYER: &str = "\
    INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (id) DO UPDATE SET name = excluded.name \
    WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.player_id = excluded.id)";

pub(crate) const INSERT_TABLE: &str = "\
    INSERT INTO game_tables (id, host_id, settings, invite, created_at) \
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING";

pub(crate) const UPDATE_TABLE_SEATS: &str = "UPDATE game_tables SET seats = $2 WHERE id = $1";

/// The first close wins, so a repeated close keeps the time the table closed.
pub(crate) const CLOSE_TABLE: &str =
    "UPDATE game_tables SET closed_at = COALESCE(closed_at, $2) WHERE id = $1";

/// Why a table closed: the first reason given stays.
pub(crate) const CLOSE_REASON: &str =
    "UPDATE game_tables SET closed_reason = COALESCE(closed_reason, $2) WHERE id = $1";

/// Marks a match abandoned, unless it ended or was marked before.
pub(crate) const ABANDON_MATCH: &str = "\
    UPDATE matches SET abandoned_at = $2, abandoned_reason = $3 \
    WHERE id = $1 AND ended_at IS NULL AND abandoned_at IS NULL";

/// Every unfinished match of a closed table, abandoned when and because
/// the table closed (`everyone_left` when no reason was kept). Returns a
/// row per match marked.
pub(crate) const ABANDON_ORPHANED_MATCHES: &str = "\
    UPDATE matches SET \
        abandoned_at = (SELECT t.closed_at FROM game_tables t WHERE t.id = matches.table_id), \
        abandoned_reason = (SELECT COALESCE(t.closed_reason, 'everyone_left') FROM game_tables t \
            WHERE t.id = matches.table_id) \
    WHERE ended_at IS NULL AND abandoned_at IS NULL AND EXISTS ( \
        SELECT 1 FROM game_tables t WHERE t.id = matches.table_id AND t.closed_at IS NOT NULL) \
    RETURNING started_at";

/// The seed goes in `seed_hex`; `seed` (the 64-bit seeds of the matches
/// stored before migration 0007) holds 0.
pub(crate) const INSERT_MATCH: &str = "\
    INSERT INTO matches (id, table_id, number, rules, seed, seed_hex, start, started_at) \
    VALUES ($1, $2, $3, $4, 0, $5, $6, $7) ON CONFLICT (id) DO NOTHING";

pub(crate) const END_MATCH: &str = "UPDATE matches SET ended_at = $2, rubber = $3 WHERE id = $1";

/// The final scores ($2, $3, $4: sides 0, 1, 2; a side the write has no
/// score for keeps its running one) and the winning side ($5; NULL for a
/// match abandoned unwon, which leaves every seat's `won` NULL).
pub(crate) const END_MATCH_SEATS: &str = "\
    UPDATE match_seats SET \
        score = COALESCE(CASE side WHEN 0 THEN $2 WHEN 1 THEN $3 WHEN 2 THEN $4 END, score), \
        won = CASE WHEN $5 IS NULL THEN NULL ELSE side = $5 END \
    WHERE match_id = $1";

/// A seat's forfeit of its match: the first one's time stays.
pub(crate) const FORFEIT_SEAT: &str = "\
    UPDATE match_seats SET forfeited_at = COALESCE(forfeited_at, $3) \
    WHERE match_id = $1 AND seat = $2";

pub(crate) const MATCH_RULES: &str = "UPDATE matches SET rules = $2 WHERE id = $1";

pub(crate) const STAND_IN: &str = "\
    UPDATE match_seats SET stand_in = COALESCE(stand_in, $3), \
        stand_in_from_hand = COALESCE(stand_in_from_hand, $4) \
    WHERE match_id = $1 AND seat = $2";

// --- Reads. ---

/// A guest's token lets it in until it claims an account; then only its
/// sessions do.
pub(crate) const PLAYER_BY_TOKEN_HASH: &str = "\
    SELECT p.id, p.name FROM players p WHERE p.token_hash = $1 \
    AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.player_id = p.id)";

pub(crate) const PLAYER_BY_ID: &str = "SELECT id, name FROM players WHERE id = $1";

pub(crate) const MATCH_BY_ID: &str = "\
    SELECT id, table_id, number, rules, seed, seed_hex, start, started_at, ended_at, rubber, \
        abandoned_at, abandoned_reason \
    FROM matches WHERE id = $1";

/// A table, open or closed, with its host's name.
pub(crate) const TABLE_BY_ID: &str = "\
    SELECT t.id, t.host_id, p.name AS host_name, t.settings, t.created_at, t.closed_at, \
        t.closed_reason \
    FROM game_tables t LEFT JOIN players p ON p.id = t.host_id WHERE t.id = $1";

/// A table's latest match, as it stands.
pub(crate) const LAST_MATCH_OF_TABLE: &str = "\
    SELECT id, number, ended_at, abandoned_at, abandoned_reason FROM matches \
    WHERE table_id = $1 ORDER BY number DESC, started_at DESC, id DESC LIMIT 1";

pub(crate) const SEATS_OF_MATCH: &str = "\
    SELECT seat, player_id, bot, name, side, score, won, stand_in, stand_in_from_hand \
    FROM match_seats WHERE match_id = $1 \
    ORDER BY seat";

pub(crate) const FORFEITS_OF_MATCH: &str = "\
    SELECT seat FROM match_seats WHERE match_id = $1 AND forfeited_at IS NOT NULL ORDER BY seat";

pub(crate) const HANDS_OF_MATCH: &str = "\
    SELECT number, deal, outcome, seal, plays, last_seq FROM hands WHERE match_id = $1 \
    ORDER BY number";

/// Open tables, oldest first, with their host's name, the id of their
/// latest match, and that id again while that match is in progress. The id
/// and the live match come first: a row whose JSON does not decode still
/// tells them.
pub(crate) const LIVE_TABLES: &str = "\
    SELECT t.id, CASE WHEN m.ended_at IS NULL THEN m.id END AS live_match, \
        m.id AS last_match, t.host_id, p.name AS host_name, t.settings, t.invite, t.seats \
    FROM game_tables t LEFT JOIN players p ON p.id = t.host_id \
    LEFT JOIN matches m ON m.id = (SELECT l.id FROM matches l WHERE l.table_id = t.id \
        ORDER BY l.number DESC, l.started_at DESC, l.id DESC LIMIT 1) \
    WHERE t.closed_at IS NULL \
    ORDER BY t.created_at, t.id";

/// One page of matches, newest first, each joined to its seats (one row per
/// seat, with its side's score and result). The optional filters are bound as NULL when unused, so the text is
/// static: $1 player, $2 won, $3 since, $4 until, $5 finished only, $6/$7 the
/// cursor, $8 how many matches (not rows) to fetch.
/// A page of matches, newest first; with $9, without the matches in play at
/// private tables (those with an invite: a pool's too).
pub(crate) const LIST_MATCHES: &str = "\
    WITH page AS ( \
        SELECT m.id, m.table_id, m.number, m.rules, m.seed, m.seed_hex, m.start, m.started_at, \
            m.ended_at, m.rubber, m.abandoned_at, m.abandoned_reason \
        FROM matches m \
        WHERE ($1 IS NULL OR EXISTS ( \
                SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.player_id = $1 \
                AND ($2 IS NULL OR s.won = $2))) \
            AND ($3 IS NULL OR m.started_at >= $3) \
            AND ($4 IS NULL OR m.started_at < $4) \
            AND (NOT $5 OR m.ended_at IS NOT NULL) \
            AND ($6 IS NULL OR m.started_at < $6 OR (m.started_at = $6 AND m.id < $7)) \
            AND (NOT $9 OR m.ended_at IS NOT NULL OR m.abandoned_at IS NOT NULL OR NOT EXISTS ( \
                SELECT 1 FROM game_tables t WHERE t.id = m.table_id AND t.invite IS NOT NULL)) \
        ORDER BY m.started_at DESC, m.id DESC \
        LIMIT $8) \
    SELECT page.id, page.table_id, page.number, page.rules, page.seed, page.seed_hex, \
        page.start, page.started_at, page.ended_at, page.rubber, page.abandoned_at, \
        page.abandoned_reason, \
        s.seat, s.player_id, s.bot, s.name, s.side, s.score, s.won, s.stand_in, \
        s.stand_in_from_hand \
    FROM page LEFT JOIN match_seats s ON s.match_id = page.id \
    ORDER BY page.started_at DESC, page.id DESC, s.seat";

/// Every seat of each finished match the player played: theirs, and the
/// others' for the other sides' scores.
pub(crate) const STATS_SEATS: &str = "\
    SELECT s.match_id, s.seat, s.player_id, s.side, s.score, s.won FROM match_seats s \
    WHERE s.match_id IN ( \
        SELECT p.match_id FROM match_seats p JOIN matches m ON m.id = p.match_id \
        WHERE p.player_id = $1 AND m.ended_at IS NOT NULL) \
    ORDER BY s.match_id, s.seat";

/// Every ended hand of the finished matches the player played.
pub(crate) const STATS_HANDS: &str = "\
    SELECT h.match_id, h.outcome FROM hands h \
    WHERE h.outcome IS NOT NULL AND h.match_id IN ( \
        SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id \
        WHERE s.player_id = $1 AND m.ended_at IS NOT NULL)";

/// The time of the finished matches the player played, summed.
pub(crate) const TIME_PLAYED: &str = "\
    SELECT CAST(COALESCE(SUM(m.ended_at - m.started_at), 0) AS BIGINT) AS played \
    FROM matches m WHERE m.ended_at IS NOT NULL AND m.id IN ( \
        SELECT s.match_id FROM match_seats s WHERE s.player_id = $1)";

// --- Conversions. ---

fn narrow<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

/// Unsigned engine values (event seqs, older seeds) are kept bit for bit in a
/// signed 64-bit column: `as` is the intended, lossless reinterpretation.
pub(crate) fn to_db_u64(value: u64) -> i64 {
    value as i64
}

pub(crate) fn from_db_u64(value: i64) -> u64 {
    value as u64
}

/// A match's seed: its 32 bytes, or for a match stored before migration
/// 0007 its 64-bit seed, which the engine expands to the same deals.
fn match_seed(row: &MatchRow) -> Result<Seed, StoreError> {
    match &row.seed_hex {
        Some(hex) => {
            hex.parse().map_err(|error| StoreError::Corrupt(format!("match {}: {error}", row.id)))
        }
        None => Ok(Seed::from(from_db_u64(row.seed))),
    }
}

pub(crate) fn player_row((id, name): (String, String)) -> PlayerRow {
    PlayerRow { id, name }
}

/// A match's seats, each with its side's score and result, and what they
/// say of the match: the scores one per side and the winners. Each seat's
/// side must be the one the rules give it, and every side must have a seat
/// holding one score: the seats are written with their match, in one write.
#[derive(Default)]
struct Seating {
    seats: Vec<MatchSeat>,
    scores: Vec<u16>,
    winner: Option<u8>,
    winners: Vec<u8>,
}

fn seating(id: &str, rules: &Rules, rows: Vec<SeatRow>) -> Result<Seating, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(format!("match {id}: {what}"));
    let mut scores: Vec<Option<u16>> = vec![None; usize::from(rules.teams())];
    let mut seating = Seating { seats: Vec::with_capacity(rows.len()), ..Seating::default() };
    for row in rows {
        let seat: u8 = narrow(row.seat, "seat")?;
        let side: u8 = narrow(row.side, "side")?;
        let score: u16 = narrow(row.score, "score")?;
        if seat >= rules.players || rules.team_of(Seat(seat)) != Team(side) {
            return Err(corrupt(format!("seat {seat} is stored as scoring for side {side}")));
        }
        match scores.get_mut(usize::from(side)) {
            Some(Some(stored)) if *stored != score => {
                return Err(corrupt(format!("side {side} holds both {stored} and {score}")));
            }
            Some(slot) => *slot = Some(score),
            None => return Err(corrupt(format!("seat {seat} scores for side {side}"))),
        }
        if row.won == Some(true) {
            seating.winner = Some(side);
            seating.winners.push(seat);
        }
        let stand_in = match (row.stand_in, row.stand_in_from_hand) {
            (Some(bot), Some(from)) => Some(StandIn { bot, from_hand: narrow(from, "hand")? }),
            _ => None,
        };
        seating.seats.push(MatchSeat {
            seat,
            player_id: row.player_id,
            bot: row.bot,
            name: row.name,
            stand_in,
        });
    }
    seating.scores = scores
        .into_iter()
        .enumerate()
        .map(|(side, score)| score.ok_or_else(|| corrupt(format!("no seat of side {side}"))))
        .collect::<Result<_, _>>()?;
    Ok(seating)
}

fn close_reason(what: &str, stored: &str) -> Result<CloseReason, StoreError> {
    CloseReason::parse(stored)
        .ok_or_else(|| StoreError::Corrupt(format!("{what}: unknown reason {stored:?}")))
}

/// A match's abandonment from its two columns, set together or not at all.
fn abandonment(
    id: &str,
    at: Option<i64>,
    reason: Option<&str>,
) -> Result<Option<Abandonment>, StoreError> {
    match (at, reason) {
        (None, None) => Ok(None),
        (Some(at), Some(reason)) => {
            Ok(Some(Abandonment { at, reason: close_reason(&format!("match {id}"), reason)? }))
        }
        _ => Err(StoreError::Corrupt(format!("match {id}: half an abandonment"))),
    }
}

/// A table as [`TABLE_BY_ID`] and [`LAST_MATCH_OF_TABLE`] read it.
pub(crate) fn table_record(
    row: TableRecordRow,
    last: Option<LastMatchRow>,
) -> Result<TableRecord, StoreError> {
    let what = format!("table {}", row.id);
    let last_match = last
        .map(|last| {
            Ok::<_, StoreError>(MatchOutcome {
                number: narrow(last.number, "match number")?,
                ended_at: last.ended_at,
                abandoned: abandonment(
                    &last.id,
                    last.abandoned_at,
                    last.abandoned_reason.as_deref(),
                )?,
                id: last.id,
            })
        })
        .transpose()?;
    Ok(TableRecord {
        private: row.settings.0.get("private").and_then(serde_json::Value::as_bool) == Some(true),
        host: crate::TableHost::stored(row.host_id, row.host_name),
        created_at: row.created_at,
        closed_at: row.closed_at,
        closed_reason: row.closed_reason.map(|r| close_reason(&what, &r)).transpose()?,
        last_match,
        id: row.id,
    })
}

pub(crate) fn match_summary(
    row: &MatchRow,
    seats: Vec<SeatRow>,
) -> Result<MatchSummary, StoreError> {
    let Seating { seats, scores, winner, winners } = seating(&row.id, &row.rules.0, seats)?;
    Ok(MatchSummary {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        number: narrow(row.number, "match number")?,
        rules: row.rules.0,
        seats,
        started_at: row.started_at,
        ended_at: row.ended_at,
        scores,
        winner,
        winners,
        games: row.rubber.as_ref().map(|games| games.0.clone()).unwrap_or_default(),
        abandoned: abandonment(&row.id, row.abandoned_at, row.abandoned_reason.as_deref())?,
    })
}

/// Rebuilds a match's record from its rows and replays it through the
/// engine, which checks every action and every stored outcome. The scores,
/// the winner, and the outcome of a hand whose end is not stored yet (its
/// last action and its `HandEnded` may sit in different batches) come from
/// the replay, so the record is always consistent with itself. Returns the
/// record and the largest event seq among its actions (0 without actions).
pub(crate) fn match_record(
    row: &MatchRow,
    hands: Vec<HandRow>,
) -> Result<(GameRecord, u64), StoreError> {
    let mut record = GameRecord {
        rules: row.rules.0,
        seed: match_seed(row)?,
        start: row.start.0.clone(),
        hands: Vec::with_capacity(hands.len()),
        scores: PerTeam::new(row.rules.0.teams()),
        winner: None,
        games: row.rubber.as_ref().map(|games| games.0.clone()).unwrap_or_default(),
    };
    let mut last_seq = 0;
    for (expected, hand) in hands.into_iter().enumerate() {
        if hand.number != expected as i64 {
            return Err(StoreError::Corrupt(format!(
                "match {}: hand {} is stored where hand {expected} belongs",
                row.id, hand.number
            )));
        }
        let actions = plays::decode(&hand.plays).map_err(|error| {
            StoreError::Corrupt(format!("match {}, hand {}: {error}", row.id, hand.number))
        })?;
        record.hands.push(HandRecord {
            deal: hand.deal.0,
            actions,
            outcome: hand.outcome.map(|outcome| outcome.0),
            seal: hand.seal.map(|seal| seal.0),
        });
        last_seq = last_seq.max(from_db_u64(hand.last_seq));
    }
    settle(&mut record, &row.id)?;
    Ok((record, last_seq))
}

/// A table's latest match as restoring the table takes it: in progress, or
/// won (the table awaits a rematch). One ended unwon (by a version that
/// ended abandoned matches so) leaves the table without a game.
pub(crate) fn latest_game(latest: crate::LiveMatch, ended: bool) -> Option<crate::LiveMatch> {
    (!ended || latest.record.winner.is_some()).then_some(latest)
}

/// Replays a rebuilt record through the engine, which checks every action
/// and every stored outcome, and takes the scores, the winner, a rubber's
/// games and any hand outcome not stored yet from the replay, so the record
/// agrees with itself.
pub(crate) fn settle(record: &mut GameRecord, match_id: &str) -> Result<(), StoreError> {
    let game = Game::replay(record).map_err(|error| {
        StoreError::Corrupt(format!("match {match_id} does not replay: {error}"))
    })?;
    for (stored, replayed) in record.hands.iter_mut().zip(&game.record().hands) {
        stored.outcome = replayed.outcome;
    }
    record.scores = game.scores();
    record.winner = game.winner();
    record.games = game.games().to_vec();
    Ok(())
}

/// Groups the rows of [`LIST_MATCHES`] (fetched with `limit + 1` matches)
/// into a page of at most `limit` matches.
pub(crate) fn match_page(rows: Vec<PageRow>, limit: usize) -> Result<MatchPage, StoreError> {
    let mut grouped: Vec<(MatchRow, Vec<SeatRow>)> = Vec::new();
    for row in rows {
        if grouped.last().is_none_or(|(last, _)| last.id != row.game.id) {
            grouped.push((row.game, Vec::new()));
        }
        let seat = (row.seat, row.name, row.side, row.score);
        if let ((Some(seat), Some(name), Some(side), Some(score)), Some((_, seats))) =
            (seat, grouped.last_mut())
        {
            let (player_id, bot, won) = (row.player_id, row.bot, row.won);
            let (stand_in, stand_in_from_hand) = (row.stand_in, row.stand_in_from_hand);
            let row = SeatRow {
                seat,
                player_id,
                bot,
                name,
                side,
                score,
                won,
                stand_in,
                stand_in_from_hand,
            };
            seats.push(row);
        }
    }
    let more = grouped.len() > limit;
    grouped.truncate(limit);
    let matches = grouped
        .into_iter()
        .map(|(game, seats)| match_summary(&game, seats))
        .collect::<Result<Vec<_>, _>>()?;
    let next = if more {
        matches.last().map(|last| Cursor { started_at: last.started_at, id: last.id.clone() })
    } else {
        None
    };
    Ok(MatchPage { matches, next })
}

/// The page size asked for, within 1..=100.
pub(crate) fn page_limit(query: &MatchQuery) -> usize {
    query.limit.clamp(1, 100) as usize
}

/// A player's record, from every seat of each finished match they played
/// (rows of [`STATS_SEATS`], by match and seat) and the ended hands of those
/// matches.
pub(crate) fn player_stats(
    player_id: &str,
    player: Option<PlayerRow>,
    seats: Vec<StatsSeatRow>,
    hands: Vec<StatsHandRow>,
) -> Result<PlayerStats, StoreError> {
    let mut stats = PlayerStats { player, ..PlayerStats::default() };
    // The player's seat and side in each match. Should a player ever sit
    // twice in one match, the lower seat speaks for them.
    let mut theirs: HashMap<String, (Seat, Team)> = HashMap::new();
    for rows in seats.chunk_by(|a, b| a.match_id == b.match_id) {
        let Some(mine) = rows.iter().find(|row| row.player_id.as_deref() == Some(player_id)) else {
            continue;
        };
        let side = Team(narrow(mine.side, "side")?);
        // One score per side: partners hold the same one.
        let mut scores: HashMap<i64, u32> = HashMap::new();
        for row in rows {
            scores.insert(row.side, narrow(row.score, "score")?);
        }
        stats.played += 1;
        stats.won += u32::from(mine.won == Some(true));
        for (row_side, score) in scores {
            if row_side == i64::from(side.0) {
                stats.points_for += score;
            } else {
                stats.points_against += score;
            }
        }
        theirs.insert(mine.match_id.clone(), (Seat(narrow(mine.seat, "seat")?), side));
    }
    for row in hands {
        let (Some((seat, ours)), HandOutcome::Played(played)) =
            (theirs.get(&row.match_id), row.outcome.0)
        else {
            continue;
        };
        if played.euchred() {
            if played.makers == *ours {
                stats.euchres_suffered += 1;
            } else {
                stats.euchres_made += 1;
            }
        }
        if played.maker == *seat {
            stats.hands_called += 1;
            stats.hands_made += u32::from(!played.euchred());
        }
        if played.alone && played.maker == *seat {
            stats.loners_tried += 1;
            if played.march() {
                stats.loners_won += 1;
            }
        }
    }
    Ok(stats)
}

/// A hand's points for each of the three sides a game can have, as
/// the backends add them to a match's seats by side: 0 for a side the game does not have, and
/// for every side when the hand was thrown in.
pub(crate) fn hand_points(outcome: &HandOutcome) -> [i64; MAX_TEAMS] {
    let points = outcome.points();
    let points = points.as_ref().map_or(&[][..], |points| points.as_slice());
    std::array::from_fn(|side| points.get(side).map_or(0, |point| i64::from(*point)))
}

/// A match's final scores for each of the three sides a game can have, as
/// [`END_MATCH_SEATS`] binds them: `None` for a side it has no score for.
pub(crate) fn final_scores(scores: &[u16]) -> [Option<i64>; MAX_TEAMS] {
    std::array::from_fn(|side| scores.get(side).map(|score| i64::from(*score)))
}

pub(crate) fn live_table(row: TableRow, game: Option<crate::LiveMatch>) -> crate::LiveTable {
    crate::LiveTable {
        id: row.id,
        host: crate::TableHost::stored(row.host_id, row.host_name),
        settings: row.settings.0,
        invite: row.invite,
        seats: row.seats.0,
        game,
    }
}
