//! The rows the shared statements read, as sqlx decodes them: a match and
//! its seats, hands and actions, a live table, a player's statistics, an
//! account and a session, ratings. Each says which statement it is a row of.
//! The connection ([`crate::conn`]) names them all in one bound; the code
//! that reads them turns them into the crate's records.

use euchre_engine::{Deal, GameResult, GameStart, HandOutcome, Rules, Seal};
use sqlx::types::Json;

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct MatchRow {
    pub id: String,
    pub table_id: String,
    pub number: i64,
    pub rules: Json<Rules>,
    /// A match stored before migration 0007: its 64-bit seed.
    pub seed: i64,
    /// The 32-byte seed as hex (NULL for a match stored before 0007).
    pub seed_hex: Option<String>,
    pub start: Json<GameStart>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub rubber: Option<Json<Vec<GameResult>>>,
    pub abandoned_at: Option<i64>,
    pub abandoned_reason: Option<String>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct SeatRow {
    pub seat: i64,
    pub player_id: Option<String>,
    pub bot: Option<String>,
    pub name: String,
    pub side: i64,
    /// The side's score.
    pub score: i64,
    /// Whether the side won; NULL until the match ends with a winner.
    pub won: Option<bool>,
    /// The bot that finished for a player who left, and from which hand.
    pub stand_in: Option<String>,
    pub stand_in_from_hand: Option<i64>,
}

/// A row of `sql::LIST_MATCHES`: a match and one of its seats (none if the
/// match has no seats stored).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PageRow {
    #[sqlx(flatten)]
    pub game: MatchRow,
    pub seat: Option<i64>,
    pub player_id: Option<String>,
    pub bot: Option<String>,
    pub name: Option<String>,
    pub side: Option<i64>,
    pub score: Option<i64>,
    pub won: Option<bool>,
    pub stand_in: Option<String>,
    pub stand_in_from_hand: Option<i64>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct HandRow {
    pub number: i64,
    pub deal: Json<Deal>,
    pub outcome: Option<Json<HandOutcome>>,
    pub seal: Option<Json<Seal>>,
    /// The hand's actions, as [`crate::plays`] writes them.
    pub plays: String,
    pub last_seq: i64,
}

/// A row of `actions`, where actions were stored before migration 0013.
/// The action is read as text, so that one that does not decode is left
/// where it is rather than failing the move of every other.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ActionRow {
    pub match_id: String,
    pub hand: i64,
    pub idx: i64,
    pub seat: i64,
    pub action: String,
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
    /// The latest match, while it is in progress.
    pub live_match: Option<String>,
    /// The latest match, in progress or over.
    pub last_match: Option<String>,
}

/// A row of `sql::TABLE_BY_ID`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TableRecordRow {
    pub id: String,
    pub host_id: String,
    pub host_name: Option<String>,
    pub settings: Json<serde_json::Value>,
    pub created_at: i64,
    pub closed_at: Option<i64>,
    pub closed_reason: Option<String>,
}

/// A row of `sql::LAST_MATCH_OF_TABLE`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct LastMatchRow {
    pub id: String,
    pub number: i64,
    pub ended_at: Option<i64>,
    pub abandoned_at: Option<i64>,
    pub abandoned_reason: Option<String>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct StatsSeatRow {
    pub match_id: String,
    pub seat: i64,
    pub player_id: Option<String>,
    pub side: i64,
    pub score: i64,
    pub won: Option<bool>,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct StatsHandRow {
    pub match_id: String,
    pub outcome: Json<HandOutcome>,
}

/// A row of `accounts::ACCOUNT_BY_NAME` or `accounts::ACCOUNT_BY_PLAYER`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AccountRow {
    pub id: String,
    pub name: String,
    pub password_hash: String,
}

/// A row of `accounts::ACCOUNT_KEYS`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AccountKeyRow {
    pub player_id: String,
    pub name: String,
    pub name_key: String,
}

/// A row of `accounts::SESSION_BY_TOKEN_HASH`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct SessionRow {
    pub id: String,
    pub name: String,
    pub expires_at: i64,
    pub revoked_at: Option<i64>,
}

/// A row of `ratings::LEADERBOARD`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct BoardRow {
    pub id: String,
    pub name: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: i64,
}

/// A row of `ratings::RATINGS_OF`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct FormRow {
    pub form: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: i64,
}

/// A row of `analyses::RECENT_ACCURACY`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AccuracyRow {
    pub form: String,
    pub matches: i64,
    pub decisions: i64,
    pub within_tolerance: i64,
    pub points_lost: f64,
}

/// A row of `ratings::HISTORY_OF`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PointRow {
    pub form: String,
    pub match_id: String,
    pub rating_before: Option<f64>,
    pub rating: f64,
    pub at: i64,
}

/// A row of `ratings::RATING_OF`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct RatingRow {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// A row of `ratings::HISTORY_OF_MATCH`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct HistoryRow {
    pub player_id: String,
    pub rating_before: Option<f64>,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// A row of `moderation::ROLE_OF`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct RoleRow {
    pub role: String,
}

/// A row of `moderation::LOG_PAGE`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ModerationRow {
    pub id: i64,
    pub at: i64,
    pub actor: String,
    pub actor_name: Option<String>,
    pub action: String,
    pub target: Option<String>,
    pub target_name: Option<String>,
    pub reason: String,
}

/// A row of `social::MUTES` or `social::BLOCKS`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ListedRow {
    pub id: String,
    pub name: Option<String>,
    pub at: i64,
}

/// A row of `social::OPEN_REPORTS`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ReportRow {
    pub id: i64,
    pub at: i64,
    pub reporter: String,
    pub reporter_name: Option<String>,
    pub reported: String,
    pub reported_name: Option<String>,
    pub reason: String,
    pub details: String,
    pub table_id: Option<String>,
    pub match_id: Option<String>,
    pub chat: Json<Vec<crate::social::ChatLine>>,
}
