//! What the two backends share: the SQL text, the rows as read, and how rows
//! become records, summaries and statistics.
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
    Action, Deal, Game, GameRecord, GameResult, GameStart, HandOutcome, HandRecord, PerTeam, Rules,
    Seat, SeatAction, Team,
};
use sqlx::types::Json;

use crate::{
    Cursor, MatchPage, MatchQuery, MatchSeat, MatchSummary, PlayerRow, PlayerStats, StoreError,
};

// --- Writes. Each is idempotent: applying it again leaves the same state. ---

/// A player's name may change; the id and token hash never do.
pub(crate) const UPSERT_PLAYER: &str = "\
    INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (id) DO UPDATE SET name = excluded.name";

pub(crate) const INSERT_TABLE: &str = "\
    INSERT INTO game_tables (id, host_id, settings, invite, created_at) \
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING";

pub(crate) const UPDATE_TABLE_SEATS: &str = "UPDATE game_tables SET seats = $2 WHERE id = $1";

/// The first close wins, so a repeated close keeps the time the table closed.
pub(crate) const CLOSE_TABLE: &str =
    "UPDATE game_tables SET closed_at = COALESCE(closed_at, $2) WHERE id = $1";

pub(crate) const INSERT_MATCH: &str = "\
    INSERT INTO matches (id, table_id, number, rules, seed, start, started_at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING";

pub(crate) const INSERT_SEAT: &str = "\
    INSERT INTO match_seats (match_id, seat, player_id, bot, name) VALUES ($1, $2, $3, $4, $5) \
    ON CONFLICT (match_id, seat) DO NOTHING";

pub(crate) const INSERT_HAND: &str = "\
    INSERT INTO hands (match_id, number, dealer, deal) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (match_id, number) DO NOTHING";

/// Sets the outcome of a hand still in progress. Callers add the hand's
/// points to the match only when this touched a row, so a repeated
/// `HandEnded` never counts twice.
pub(crate) const END_HAND: &str = "\
    UPDATE hands SET outcome = $3, ended_at = $4 \
    WHERE match_id = $1 AND number = $2 AND outcome IS NULL";

/// Keeps a match's running score current, for listings of matches in progress.
pub(crate) const ADD_HAND_POINTS: &str =
    "UPDATE matches SET score0 = score0 + $2, score1 = score1 + $3 WHERE id = $1";

pub(crate) const END_MATCH: &str = "\
    UPDATE matches SET score0 = $2, score1 = $3, winner = $4, ended_at = $5, rubber = $6 \
    WHERE id = $1";

// --- Reads. ---

pub(crate) const PLAYER_BY_TOKEN_HASH: &str = "SELECT id, name FROM players WHERE token_hash = $1";

pub(crate) const PLAYER_BY_ID: &str = "SELECT id, name FROM players WHERE id = $1";

pub(crate) const MATCH_BY_ID: &str = "\
    SELECT id, table_id, number, rules, seed, start, started_at, ended_at, score0, score1, winner, \
        rubber \
    FROM matches WHERE id = $1";

pub(crate) const SEATS_OF_MATCH: &str =
    "SELECT seat, player_id, bot, name FROM match_seats WHERE match_id = $1 ORDER BY seat";

pub(crate) const HANDS_OF_MATCH: &str =
    "SELECT number, deal, outcome FROM hands WHERE match_id = $1 ORDER BY number";

pub(crate) const ACTIONS_OF_MATCH: &str = "\
    SELECT hand, idx, seat, action, seq FROM actions WHERE match_id = $1 ORDER BY hand, idx";

/// Open tables, oldest first, with their host's name and the id of their
/// latest match when that match is still in progress.
pub(crate) const LIVE_TABLES: &str = "\
    SELECT t.id, t.host_id, p.name AS host_name, t.settings, t.invite, t.seats, \
        (SELECT CASE WHEN m.ended_at IS NULL THEN m.id END FROM matches m \
            WHERE m.table_id = t.id \
            ORDER BY m.number DESC, m.started_at DESC, m.id DESC LIMIT 1) AS live_match \
    FROM game_tables t LEFT JOIN players p ON p.id = t.host_id \
    WHERE t.closed_at IS NULL \
    ORDER BY t.created_at, t.id";

/// One page of matches, newest first, each joined to its seats (one row per
/// seat). The optional filters are bound as NULL when unused, so the text is
/// static: $1 player, $2 won, $3 since, $4 until, $5 finished only, $6/$7 the
/// cursor, $8 how many matches (not rows) to fetch.
pub(crate) const LIST_MATCHES: &str = "\
    WITH page AS ( \
        SELECT m.id, m.table_id, m.number, m.rules, m.seed, m.start, m.started_at, m.ended_at, \
            m.score0, m.score1, m.winner, m.rubber \
        FROM matches m \
        WHERE ($1 IS NULL OR EXISTS ( \
                SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.player_id = $1 \
                AND ($2 IS NULL \
                    OR ($2 AND m.winner = s.seat % 2) \
                    OR (NOT $2 AND m.winner <> s.seat % 2)))) \
            AND ($3 IS NULL OR m.started_at >= $3) \
            AND ($4 IS NULL OR m.started_at < $4) \
            AND (NOT $5 OR m.ended_at IS NOT NULL) \
            AND ($6 IS NULL OR m.started_at < $6 OR (m.started_at = $6 AND m.id < $7)) \
        ORDER BY m.started_at DESC, m.id DESC \
        LIMIT $8) \
    SELECT page.id, page.table_id, page.number, page.rules, page.seed, page.start, \
        page.started_at, page.ended_at, page.score0, page.score1, page.winner, page.rubber, \
        s.seat, s.player_id, s.bot, s.name \
    FROM page LEFT JOIN match_seats s ON s.match_id = page.id \
    ORDER BY page.started_at DESC, page.id DESC, s.seat";

/// The player's seat in each finished match they played.
pub(crate) const STATS_MATCHES: &str = "\
    SELECT m.id, s.seat, m.score0, m.score1, m.winner \
    FROM match_seats s JOIN matches m ON m.id = s.match_id \
    WHERE s.player_id = $1 AND m.ended_at IS NOT NULL \
    ORDER BY m.id, s.seat";

/// Every ended hand of the finished matches the player played.
pub(crate) const STATS_HANDS: &str = "\
    SELECT h.match_id, h.outcome FROM hands h \
    WHERE h.outcome IS NOT NULL AND h.match_id IN ( \
        SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id \
        WHERE s.player_id = $1 AND m.ended_at IS NOT NULL)";

// --- Rows as read. ---

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct MatchRow {
    pub id: String,
    pub table_id: String,
    pub number: i64,
    pub rules: Json<Rules>,
    pub seed: i64,
    pub start: Json<GameStart>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub score0: i64,
    pub score1: i64,
    pub winner: Option<i64>,
    pub rubber: Option<Json<Vec<GameResult>>>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct SeatRow {
    pub seat: i64,
    pub player_id: Option<String>,
    pub bot: Option<String>,
    pub name: String,
}

/// A row of [`LIST_MATCHES`]: a match and one of its seats (none if the
/// match has no seats stored).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PageRow {
    #[sqlx(flatten)]
    pub game: MatchRow,
    pub seat: Option<i64>,
    pub player_id: Option<String>,
    pub bot: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct HandRow {
    pub number: i64,
    pub deal: Json<Deal>,
    pub outcome: Option<Json<HandOutcome>>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ActionRow {
    pub hand: i64,
    pub idx: i64,
    pub seat: i64,
    pub action: Json<Action>,
    pub seq: i64,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TableRow {
    pub id: String,
    pub host_id: String,
    pub host_name: Option<String>,
    pub settings: Json<serde_json::Value>,
    pub invite: Option<String>,
    pub seats: Json<serde_json::Value>,
    pub live_match: Option<String>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct StatsMatchRow {
    pub id: String,
    pub seat: i64,
    pub score0: i64,
    pub score1: i64,
    pub winner: Option<i64>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct StatsHandRow {
    pub match_id: String,
    pub outcome: Json<HandOutcome>,
}

// --- Conversions. ---

/// A failure to read: a column that does not decode means the stored data is
/// not what this code wrote, which is corruption, not a database outage.
pub(crate) fn read_error(error: sqlx::Error) -> StoreError {
    match error {
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) => {
            StoreError::Corrupt(error.to_string())
        }
        other => StoreError::Database(other),
    }
}

fn narrow<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

/// Unsigned engine values (the seed, event seqs) are kept bit for bit in a
/// signed 64-bit column: `as` is the intended, lossless reinterpretation.
pub(crate) fn to_db_u64(value: u64) -> i64 {
    value as i64
}

pub(crate) fn from_db_u64(value: i64) -> u64 {
    value as u64
}

pub(crate) fn player_row((id, name): (String, String)) -> PlayerRow {
    PlayerRow { id, name }
}

pub(crate) fn match_seat(row: SeatRow) -> Result<MatchSeat, StoreError> {
    Ok(MatchSeat {
        seat: narrow(row.seat, "seat")?,
        player_id: row.player_id,
        bot: row.bot,
        name: row.name,
    })
}

pub(crate) fn match_summary(
    row: &MatchRow,
    seats: Vec<MatchSeat>,
) -> Result<MatchSummary, StoreError> {
    Ok(MatchSummary {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        number: narrow(row.number, "match number")?,
        rules: row.rules.0,
        seats,
        started_at: row.started_at,
        ended_at: row.ended_at,
        scores: [narrow(row.score0, "score")?, narrow(row.score1, "score")?],
        winner: row.winner.map(|team| narrow(team, "winner")).transpose()?,
        games: row.rubber.as_ref().map(|games| games.0.clone()).unwrap_or_default(),
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
    actions: Vec<ActionRow>,
) -> Result<(GameRecord, u64), StoreError> {
    let mut record = GameRecord {
        rules: row.rules.0,
        seed: from_db_u64(row.seed),
        start: row.start.0.clone(),
        hands: Vec::with_capacity(hands.len()),
        scores: PerTeam::new(row.rules.0.teams()),
        winner: None,
        games: row.rubber.as_ref().map(|games| games.0.clone()).unwrap_or_default(),
    };
    for (expected, hand) in hands.into_iter().enumerate() {
        if hand.number != expected as i64 {
            return Err(StoreError::Corrupt(format!(
                "match {}: hand {} is stored where hand {expected} belongs",
                row.id, hand.number
            )));
        }
        record.hands.push(HandRecord {
            deal: hand.deal.0,
            actions: Vec::new(),
            outcome: hand.outcome.map(|outcome| outcome.0),
        });
    }
    let mut last_seq = 0;
    for action in actions {
        let hand = usize::try_from(action.hand)
            .ok()
            .and_then(|hand| record.hands.get_mut(hand))
            .ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "match {}: an action of hand {}, which is not stored",
                    row.id, action.hand
                ))
            })?;
        if action.idx != hand.actions.len() as i64 {
            return Err(StoreError::Corrupt(format!(
                "match {}, hand {}: action {} is stored where action {} belongs",
                row.id,
                action.hand,
                action.idx,
                hand.actions.len()
            )));
        }
        hand.actions
            .push(SeatAction { seat: Seat(narrow(action.seat, "seat")?), action: action.action.0 });
        last_seq = last_seq.max(from_db_u64(action.seq));
    }
    let game = Game::replay(&record).map_err(|error| {
        StoreError::Corrupt(format!("match {} does not replay: {error}", row.id))
    })?;
    for (stored, replayed) in record.hands.iter_mut().zip(&game.record().hands) {
        stored.outcome = replayed.outcome;
    }
    record.scores = game.scores();
    record.winner = game.winner();
    Ok((record, last_seq))
}

/// Groups the rows of [`LIST_MATCHES`] (fetched with `limit + 1` matches)
/// into a page of at most `limit` matches.
pub(crate) fn match_page(rows: Vec<PageRow>, limit: usize) -> Result<MatchPage, StoreError> {
    let mut matches: Vec<MatchSummary> = Vec::new();
    for row in rows {
        if matches.last().is_none_or(|last| last.id != row.game.id) {
            matches.push(match_summary(&row.game, Vec::new())?);
        }
        if let (Some(seat), Some(name), Some(summary)) = (row.seat, row.name, matches.last_mut()) {
            summary.seats.push(match_seat(SeatRow {
                seat,
                player_id: row.player_id,
                bot: row.bot,
                name,
            })?);
        }
    }
    let next = if matches.len() > limit {
        matches.truncate(limit);
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

/// A player's record, from their seat in each finished match and the ended
/// hands of those matches.
pub(crate) fn player_stats(
    player: Option<PlayerRow>,
    matches: Vec<StatsMatchRow>,
    hands: Vec<StatsHandRow>,
) -> Result<PlayerStats, StoreError> {
    let mut stats = PlayerStats { player, ..PlayerStats::default() };
    // The player's seat in each match. Rows come ordered by seat, so should a
    // player ever sit twice in one match, the lower seat speaks for them.
    let mut seats: HashMap<String, Seat> = HashMap::new();
    for row in matches {
        if seats.contains_key(&row.id) {
            continue;
        }
        let seat = Seat(narrow(row.seat, "seat")?);
        let team = partnership_team(seat);
        let scores: [u32; 2] = [narrow(row.score0, "score")?, narrow(row.score1, "score")?];
        stats.played += 1;
        if row.winner == Some(i64::from(team.0)) {
            stats.won += 1;
        }
        stats.points_for += scores[team.index()];
        stats.points_against += scores[1 - team.index()];
        seats.insert(row.id, seat);
    }
    for row in hands {
        let (Some(seat), HandOutcome::Played(played)) = (seats.get(&row.match_id), row.outcome.0)
        else {
            continue;
        };
        let ours: Team = partnership_team(*seat);
        let makers = played.makers;
        if played.euchred() {
            if makers == ours {
                stats.euchres_suffered += 1;
            } else {
                stats.euchres_made += 1;
            }
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

/// The store keeps partnership games (two teams, `score0` and `score1`):
/// tables offer no others yet (see `TableSettings::resolve_rules`).
fn partnership_team(seat: Seat) -> Team {
    Team(seat.0 & 1)
}

/// A hand's points as the two partnerships' columns (none when thrown in).
pub(crate) fn partnership_points(outcome: &HandOutcome) -> [u8; 2] {
    outcome.points().map_or([0, 0], |points| points.pair())
}

pub(crate) fn live_table(
    row: TableRow,
    game: Option<crate::LiveMatch>,
) -> Result<crate::LiveTable, StoreError> {
    let name = row.host_name.ok_or_else(|| {
        StoreError::Corrupt(format!("table {}: its host {} is not stored", row.id, row.host_id))
    })?;
    Ok(crate::LiveTable {
        id: row.id,
        host: PlayerRow { id: row.host_id, name },
        settings: row.settings.0,
        invite: row.invite,
        seats: row.seats.0,
        game,
    })
}
