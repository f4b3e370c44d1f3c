//! Durable storage for the Euchre server.
//!
//! Two layers, each with one job:
//!
//! - the [`journal`]: a local append-only file. A table's action is
//!   acknowledged once its record is in the journal and synced, so an
//!   acknowledged action survives a crash even while the database is away;
//! - the [`Store`]: match history in PostgreSQL or SQLite, fed from the
//!   journal in batches by the [`writer`], retried until the database takes
//!   them. Every write is idempotent, so a batch may safely be applied twice.
//!
//! One [`SqlStore`] serves both databases, each a [`Backend`];
//! [`connect`] picks the backend from the URL scheme (`postgres://…` or
//! `sqlite://…`).

use std::fmt;

use async_trait::async_trait;
use euchre_engine::{
    Action, Deal, GameRecord, GameResult, GameStart, HandOutcome, Rules, Seal, Seed,
};
use serde::{Deserialize, Serialize};

mod accounts;
pub use accounts::DELETED_PLAYER;
mod analyses;
mod backend;
mod conn;
pub mod durable;
pub mod journal;
pub mod live;
pub mod moderation;
mod plays;
pub mod postgres;
mod purge;
pub mod puzzles;
mod ratings;
mod read;
mod rows;
pub mod sanctions;
pub mod social;
mod sql;
pub mod sqlite;
pub mod tournaments;
mod write;
pub mod writer;

pub use backend::{Backend, SqlStore};
pub use moderation::{LogEntry, NewLogEntry, Role};
pub use puzzles::{
    NewPuzzle, PuzzleAttempt, PuzzleRateFn, PuzzleRated, PuzzleRating, StoredPuzzle,
};
pub use sanctions::{Dossier, LiveSanctions, Sanction, Warning};
pub use social::{
    ChatLine, Listed, NewReport, Relation, Report, ReportLimits, ReportOutcome, SocialLists,
};
pub use tournaments::StoredTournament;

/// Milliseconds since the Unix epoch: every timestamp in storage.
pub type Millis = i64;

/// One thing to store. The journal holds these, and the store applies them,
/// in order, each idempotently.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "write", rename_all = "snake_case")]
pub enum Write {
    /// A guest identity; only a hash of its token is kept.
    Player {
        id: String,
        name: String,
        token_hash: String,
        at: Millis,
    },
    /// A table opened. `settings` is the protocol's table settings as JSON.
    TableOpened {
        id: String,
        host_id: String,
        settings: serde_json::Value,
        invite: Option<String>,
        at: Millis,
    },
    /// Who sits where at a table now (JSON, one entry per seat).
    TableSeats {
        id: String,
        seats: serde_json::Value,
    },
    TableClosed {
        id: String,
        at: Millis,
    },
    /// Why a table is closing, journaled just before its `TableClosed`,
    /// and the match it leaves unfinished, which can no longer finish: it
    /// is marked abandoned, with the same time and reason.
    TableAbandoned {
        id: String,
        reason: CloseReason,
        /// The match in progress when it closed, if one was.
        unfinished: Option<String>,
        at: Millis,
    },
    /// A game began at a table.
    MatchStarted {
        id: String,
        table_id: String,
        /// The game's number at its table: 1, 2, … with rematches.
        number: u32,
        rules: Rules,
        /// (A number in journal records from before seeds had 32 bytes.)
        seed: Seed,
        start: GameStart,
        seats: Vec<MatchSeat>,
        at: Millis,
    },
    HandDealt {
        match_id: String,
        number: u32,
        deal: Deal,
        /// The commitment sent before the first bid and its salt (secret
        /// until the hand ends); `None` in journal records from before deals
        /// were sealed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<Seal>,
    },
    /// One action of a hand. `seq` is the table's event seq after it.
    Action {
        match_id: String,
        hand: u32,
        index: u32,
        seat: u8,
        action: Action,
        seq: u64,
        at: Millis,
    },
    HandEnded {
        match_id: String,
        number: u32,
        outcome: HandOutcome,
        at: Millis,
    },
    MatchEnded {
        match_id: String,
        /// The (last) game's final scores, one per side in team order
        /// (`PerTeam::as_slice`): two partnerships, or one per player in the
        /// two- and three-handed games. (Journal records from before every
        /// form was stored hold two, which read the same.)
        scores: Vec<u16>,
        /// The winning side (`Team`); `None` for a match abandoned unwon.
        winner: Option<u8>,
        at: Millis,
        /// A rubber's games; empty for a single game.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        games: Vec<GameResult>,
    },
    /// The player in `seat` forfeited the rated match in progress (left it,
    /// or stayed away past the grace). Kept so that a restart, which
    /// replays the match, does not forget it; the first time stays.
    Forfeited {
        match_id: String,
        seat: u8,
        at: Millis,
    },
    /// The player in `seat` left the match in progress and `bot` took the
    /// seat from hand `from_hand` on; the first stand-in stays.
    StandIn {
        match_id: String,
        seat: u8,
        bot: String,
        from_hand: u32,
    },
    /// The rules of a match in play changed: a tournament's round clock
    /// made the hand in play its last (`game_hands`). The match's record
    /// replays with these.
    MatchRules {
        match_id: String,
        rules: Rules,
    },
    /// A tournament's whole state, as its director saves it after each
    /// change (kept unless a later version is stored).
    Tournament {
        tournament: StoredTournament,
        at: Millis,
    },
}

/// Why a table closed, and so why its unfinished match was abandoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// Nobody was connected to it for the idle time (everyone left).
    EveryoneLeft,
    /// The server could not restore it after a restart.
    Lost,
}

impl CloseReason {
    /// The reason as stored and sent: `everyone_left` or `lost`.
    pub fn as_str(self) -> &'static str {
        match self {
            CloseReason::EveryoneLeft => "everyone_left",
            CloseReason::Lost => "lost",
        }
    }

    /// A stored reason; `None` for one this code does not know.
    pub fn parse(stored: &str) -> Option<CloseReason> {
        [CloseReason::EveryoneLeft, CloseReason::Lost]
            .into_iter()
            .find(|reason| reason.as_str() == stored)
    }
}

/// A match that can no longer finish: when it was marked so, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Abandonment {
    pub at: Millis,
    pub reason: CloseReason,
}

/// A table as the store remembers it, open or closed, for a link to it.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRecord {
    pub id: String,
    pub host: TableHost,
    pub private: bool,
    pub created_at: Millis,
    /// `None` while the table is open.
    pub closed_at: Option<Millis>,
    /// Why it closed; `None` while open, or for a table closed before
    /// reasons were kept (migration 0009).
    pub closed_reason: Option<CloseReason>,
    /// Its latest match, if one started.
    pub last_match: Option<MatchOutcome>,
}

/// How a table's latest match stands: over, abandoned, or neither (in
/// progress).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchOutcome {
    pub id: String,
    pub number: u32,
    pub ended_at: Option<Millis>,
    pub abandoned: Option<Abandonment>,
}

/// Who sat in a seat for a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchSeat {
    pub seat: u8,
    /// `None` for a bot.
    pub player_id: Option<String>,
    /// The bot's kind, for a bot.
    pub bot: Option<String>,
    pub name: String,
    /// The bot that finished the match for a player who left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<StandIn>,
}

/// A bot that played a seat to the end of its match, its player gone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandIn {
    /// The bot's kind.
    pub bot: String,
    /// The hand (from 0) in which it took the seat.
    pub from_hand: u32,
}

/// A stored player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRow {
    pub id: String,
    pub name: String,
}

/// The host id stored for a table that quick play formed: no player's.
/// Player ids are UUIDs, so it can never be one.
pub const QUICK_PLAY_HOST: &str = "quick-play";

/// Who hosts a table, as restoring it needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableHost {
    /// Quick play formed it: nobody hosts it (stored as [`QUICK_PLAY_HOST`]).
    QuickPlay,
    /// A player, and their name: `None` when no player of that id is
    /// stored (a player deleted since), which does not keep the table from
    /// being restored.
    Player { id: String, name: Option<String> },
}

impl TableHost {
    /// The host a stored host id names, with the name the store found for it.
    pub fn stored(id: String, name: Option<String>) -> TableHost {
        if id == QUICK_PLAY_HOST { TableHost::QuickPlay } else { TableHost::Player { id, name } }
    }

    /// The host id as stored.
    pub fn id(&self) -> &str {
        match self {
            TableHost::QuickPlay => QUICK_PLAY_HOST,
            TableHost::Player { id, .. } => id,
        }
    }
}

/// A table that was open when the server stopped, with its game in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveTable {
    pub id: String,
    pub host: TableHost,
    pub settings: serde_json::Value,
    pub invite: Option<String>,
    pub seats: serde_json::Value,
    /// Its latest game, if any: in progress, or over (the table waits for
    /// a rematch).
    pub game: Option<LiveMatch>,
}

/// A table the store holds as open but cannot give back, found at
/// start-up: the server closes it (abandoning its game) and restores the
/// rest, rather than refuse to start.
#[derive(Clone, Debug, PartialEq)]
pub struct UnreadableTable {
    pub id: String,
    /// Its game in progress, if the store could tell which.
    pub unfinished: Option<String>,
    /// What is wrong with it.
    pub error: String,
}

/// A table's latest game: enough to replay it to where it stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveMatch {
    pub id: String,
    pub number: u32,
    pub record: GameRecord,
    /// The table's event seq after the last stored action.
    pub last_seq: u64,
    /// Who sat where when it started (whether it is rated depends on it).
    pub seats: Vec<MatchSeat>,
    /// The seats whose player forfeited it, in order.
    pub forfeits: Vec<u8>,
}

/// A match as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    pub id: String,
    pub table_id: String,
    pub number: u32,
    pub rules: Rules,
    pub seats: Vec<MatchSeat>,
    pub started_at: Millis,
    pub ended_at: Option<Millis>,
    /// One per side, in team order: the four-handed game's two partnerships
    /// (seats 0 and 2, seats 1 and 3), otherwise one per player (index = seat).
    pub scores: Vec<u16>,
    /// The winning side, when the match has been won.
    pub winner: Option<u8>,
    /// The seats of the winning side, in order (both partners, or the one
    /// player); empty until the match is won.
    pub winners: Vec<u8>,
    /// A rubber's games, once it has ended; empty for a single game. (While
    /// a rubber is in progress `scores` count its points across games.)
    pub games: Vec<GameResult>,
    /// Set when the match can no longer finish (its table closed first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned: Option<Abandonment>,
}

/// A match in full: its summary and its record, every hand and action.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchDetail {
    pub summary: MatchSummary,
    pub record: GameRecord,
}

/// Filters for listing matches, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchQuery {
    /// Only matches this player sat in.
    pub player: Option<String>,
    /// Only matches started at or after / before this time.
    pub since: Option<Millis>,
    pub until: Option<Millis>,
    /// With `player`: only matches that player's side won (true) or lost
    /// (false); unfinished and abandoned matches are neither.
    pub won: Option<bool>,
    /// Only finished matches.
    pub finished: bool,
    /// Continue after this match (keyset pagination).
    pub after: Option<Cursor>,
    pub limit: u32,
    /// Leave out the matches in play at private tables (those with an
    /// invite: a pool's too), as the public API does.
    pub hide_private_in_play: bool,
}

/// Where a page of matches ended: the last match's start time and id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub started_at: Millis,
    pub id: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchPage {
    pub matches: Vec<MatchSummary>,
    /// Pass as `after` for the next page; `None` on the last page.
    pub next: Option<Cursor>,
}

/// A player's record over finished matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerStats {
    pub player: Option<PlayerRow>,
    pub played: u32,
    pub won: u32,
    /// The player's side's final scores, summed over those matches.
    pub points_for: u32,
    /// Every other side's final scores, summed: with three sides, both
    /// opponents' points count against the player.
    pub points_against: u32,
    /// Hands where the player's side euchred the makers (in the two- and
    /// three-handed games, every defender's side of a euchre).
    pub euchres_made: u32,
    /// Hands where the player's side made trump and was euchred.
    pub euchres_suffered: u32,
    pub loners_tried: u32,
    /// Lone hands the player made and took all five tricks.
    pub loners_won: u32,
    /// Hands where the player made trump, and those their side then made
    /// (three tricks or more).
    pub hands_called: u32,
    pub hands_made: u32,
    /// The finished matches' time, start to end, summed.
    pub time_played_ms: i64,
}

/// A guest claiming its name: the account to create and its first session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountClaim {
    /// The guest's id and the name it claims (its display name from now on).
    pub player: PlayerRow,
    /// The guest's token hash: the player's row is written with it if the
    /// journal has not brought it to the database yet.
    pub guest_token_hash: String,
    /// The name as compared (the server's `text::name_key`).
    pub name_key: String,
    /// argon2id, a PHC string.
    pub password_hash: String,
    pub session: NewSession,
}

/// What became of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimOutcome {
    Claimed,
    /// Another account has this name (as compared: the same `name_key`).
    NameTaken,
    /// This player has an account already.
    AlreadyClaimed,
}

/// An account, for checking a password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub player: PlayerRow,
    pub password_hash: String,
}

/// An account's player, its name, and the key the account is found by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountKey {
    pub player_id: String,
    pub name: String,
    pub name_key: String,
}

/// A session to store: only its token's hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSession {
    pub token_hash: String,
    pub player_id: String,
    pub created_at: Millis,
    pub expires_at: Millis,
}

/// A stored session, whatever its state: the caller compares the times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub player: PlayerRow,
    pub expires_at: Millis,
    pub revoked_at: Option<Millis>,
}

/// What a purge ([`Store::purge`]) deleted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Purged {
    /// Sessions that had ended (revoked or expired).
    pub sessions: u64,
    /// The ids of the guests deleted.
    pub guests: Vec<String>,
}

/// A Glicko-2 rating: the rating, its deviation and volatility.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// A finished match to rate: its players (one each, in seat order) and
/// the game form their ratings are for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatedMatch {
    pub match_id: String,
    pub form: String,
    pub players: Vec<String>,
    pub at: Millis,
}

/// One player's rating change from a match.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    pub player_id: String,
    /// `None` for the player's first rated game in the form.
    pub before: Option<f64>,
    pub after: Glicko,
}

/// What an account has behind it, for the minimum before rated play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccountStanding {
    /// When the name was claimed.
    pub created_at: Millis,
    /// Finished matches the player sat in (with bots and casual ones too).
    pub games_finished: u32,
}

/// A place on the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardEntry {
    pub player: PlayerRow,
    pub rating: Glicko,
    /// Rated games played in the form.
    pub games: u32,
}

/// A player's rating in one form.
#[derive(Clone, Debug, PartialEq)]
pub struct FormRating {
    pub form: String,
    pub rating: Glicko,
    pub games: u32,
}

/// A player's rating after one rated match.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    pub form: String,
    pub match_id: String,
    /// `None` for the first rated game in the form.
    pub before: Option<f64>,
    pub rating: f64,
    pub at: Millis,
}

/// A match's analysis as it is saved: the JSON served, and the figures of
/// each seat that the profiles average.
#[derive(Clone, Copy, Debug)]
pub struct SavedAnalysis<'a> {
    pub match_id: &'a str,
    /// `euchre-analysis`'s `GameAnalysis`, as JSON.
    pub analysis: &'a str,
    /// The match's game form (`Rules::form`'s name), the profile's key.
    pub form: &'a str,
    /// Every seat's figures; kept only for the seats a player sat in.
    pub seats: &'a [SeatAccuracy],
    pub at: Millis,
}

/// One seat's figures from a match's analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatAccuracy {
    pub seat: u8,
    /// Decisions valued with what the player knew, and those within tolerance.
    pub decisions: u32,
    pub within_tolerance: u32,
    /// Expected points given up against the best, over the match.
    pub points_lost: f64,
}

/// A player's recent analysed matches in one form, averaged.
#[derive(Clone, Debug, PartialEq)]
pub struct FormAccuracy {
    pub form: String,
    /// Analysed matches averaged (the latest, up to the limit asked for).
    pub matches: u32,
    /// Their decisions, all together.
    pub decisions: u32,
    /// The share of those decisions within tolerance.
    pub accuracy: f64,
    /// Expected points given up against the best, per match.
    pub points_lost: f64,
}

/// The rating maths, given to [`Store::rate_match`]: from each player's
/// rating (`None`: not rated yet in the form), in order, their new ones.
pub type RateFn<'a> = &'a (dyn Fn(&[Option<Glicko>]) -> Vec<Glicko> + Send + Sync);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is not valid: {0}")]
    Corrupt(String),
    #[error("unsupported database URL {0:?}: use postgres://… or sqlite://…")]
    UnsupportedUrl(String),
}

impl StoreError {
    /// Whether the database's schema is one this version cannot use: it
    /// was migrated by a newer version, a migration it applied has changed
    /// since, or one was left half done. Waiting will not mend it.
    pub fn is_unusable_schema(&self) -> bool {
        use sqlx::migrate::MigrateError;
        matches!(
            self,
            StoreError::Migrate(
                MigrateError::VersionMissing(_)
                    | MigrateError::VersionMismatch(_)
                    | MigrateError::Dirty(_)
            )
        )
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> StoreError {
        StoreError::Corrupt(error.to_string())
    }
}

/// Match history and live tables, in one database.
#[async_trait]
pub trait Store: Send + Sync + fmt::Debug {
    /// Applies the schema's migrations.
    async fn migrate(&self) -> Result<(), StoreError>;
    /// Whether the database answers.
    async fn ping(&self) -> Result<(), StoreError>;
    /// Applies writes in one transaction. Applying the same writes again changes nothing.
    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError>;
    /// The guest holding this token; `None` once the guest has claimed an
    /// account (from then on only its sessions let it in).
    async fn player_by_token_hash(&self, token_hash: &str)
    -> Result<Option<PlayerRow>, StoreError>;
    /// Tables not closed, with their games in progress, oldest first: each
    /// one whole, or what keeps it from being read. The error is for a
    /// store that cannot be read at all.
    async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError>;
    async fn list_matches(&self, query: &MatchQuery) -> Result<MatchPage, StoreError>;
    async fn get_match(&self, id: &str) -> Result<Option<MatchDetail>, StoreError>;
    /// A table, open or closed, with its latest match.
    async fn table_record(&self, id: &str) -> Result<Option<TableRecord>, StoreError>;
    /// Marks abandoned every unfinished match whose table is closed, with
    /// the table's close time and reason (`everyone_left` when none is
    /// kept): those left "in progress" by a crash between the two writes,
    /// or closed before abandonment was recorded. Returns how many.
    async fn abandon_orphaned_matches(&self) -> Result<u64, StoreError>;
    async fn player_stats(&self, player_id: &str) -> Result<PlayerStats, StoreError>;

    // Accounts and sessions: written at once rather than through the
    // journal, as the caller needs the answer (is the name free?).

    /// Creates the account and its first session, renaming the player.
    async fn claim_account(&self, claim: &AccountClaim) -> Result<ClaimOutcome, StoreError>;
    /// The account whose key is `name_key`.
    async fn account_by_name(&self, name_key: &str) -> Result<Option<Account>, StoreError>;
    async fn account_by_player(&self, player_id: &str) -> Result<Option<Account>, StoreError>;
    /// Every account's name and key, the oldest account first: guests may
    /// not take these names.
    async fn account_keys(&self) -> Result<Vec<AccountKey>, StoreError>;
    /// Gives each account (by `player_id`) its `name_key`, all in one
    /// transaction: keys may pass from one account to another. Names stay.
    async fn set_account_keys(&self, keys: &[AccountKey]) -> Result<(), StoreError>;
    async fn create_session(&self, session: &NewSession) -> Result<(), StoreError>;
    async fn session_by_token_hash(&self, token_hash: &str) -> Result<Option<Session>, StoreError>;
    /// Revokes one session (log-out); revoking it again keeps the first time.
    async fn revoke_session(&self, token_hash: &str, at: Millis) -> Result<(), StoreError>;
    /// Revokes the player's live sessions but the newest `keep`, at `now`,
    /// returning the token hashes revoked.
    async fn revoke_sessions_beyond(
        &self,
        player_id: &str,
        keep: u32,
        now: Millis,
    ) -> Result<Vec<String>, StoreError>;
    /// Housekeeping: deletes the sessions that have ended (revoked, or
    /// expired by `now`) and the guests created before `guests_before` that
    /// claimed no name, sat in no match and have no place at an open table,
    /// but those in `keep` (connected now). Those guests' tokens are unknown
    /// from then on.
    async fn purge(
        &self,
        now: Millis,
        guests_before: Millis,
        keep: &std::collections::HashSet<String>,
    ) -> Result<Purged, StoreError>;
    /// Rates a finished match: reads its players' ratings in its form, has
    /// `rate` work out the new ones and stores them with each player's
    /// history row, in one transaction. A match rated before is not rated
    /// again: its stored changes come back.
    async fn rate_match(
        &self,
        rated: &RatedMatch,
        rate: RateFn<'_>,
    ) -> Result<Vec<RatingChange>, StoreError>;
    /// The account of `player_id` and what it has played (not counting
    /// match `except_match`, the one being rated); `None` for a guest.
    async fn account_standing(
        &self,
        player_id: &str,
        except_match: &str,
    ) -> Result<Option<AccountStanding>, StoreError>;
    /// How many matches rated `player` and `other` both since `since`.
    async fn rated_together(
        &self,
        player: &str,
        other: &str,
        since: Millis,
    ) -> Result<u32, StoreError>;
    /// Accounts' ratings in `form`, best first, from place `offset` on.
    async fn leaderboard(
        &self,
        form: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<BoardEntry>, StoreError>;
    /// A player's rating in each form they were rated in.
    async fn player_ratings(&self, player_id: &str) -> Result<Vec<FormRating>, StoreError>;
    /// A player's latest `limit` rated matches, oldest first.
    async fn rating_history(
        &self,
        player_id: &str,
        limit: u32,
    ) -> Result<Vec<RatingPoint>, StoreError>;
    /// Sets a new password hash, revokes every session of the player and
    /// adds `session`, all at once.
    async fn change_password(
        &self,
        password_hash: &str,
        session: &NewSession,
    ) -> Result<(), StoreError>;
    /// Deletes `player_id`'s account at `at`, all at once: its sessions,
    /// roles, ratings and accuracy rows go; its seats in stored matches and
    /// its player row read [`DELETED_PLAYER`]; its name stays taken until
    /// [`Store::release_held_names`]. False if it had no account (or it was
    /// deleted already).
    async fn delete_account(&self, player_id: &str, at: Millis) -> Result<bool, StoreError>;
    /// The names of deleted accounts not yet released: no guest or claim
    /// may take them.
    async fn held_names(&self) -> Result<Vec<String>, StoreError>;
    /// Frees the names of the accounts deleted before `before`: their keys.
    async fn release_held_names(&self, before: Millis) -> Result<Vec<String>, StoreError>;

    /// A finished match's analysis, as JSON (`euchre-analysis`'s
    /// `GameAnalysis`), once one is saved.
    async fn match_analysis(&self, match_id: &str) -> Result<Option<String>, StoreError>;
    /// Keeps a match's analysis and its players' figures, at once; saving
    /// one again keeps the first.
    async fn save_match_analysis(&self, saved: &SavedAnalysis<'_>) -> Result<(), StoreError>;
    /// A player's latest `matches` analysed matches in each form they have
    /// some in, averaged; forms in name order.
    async fn recent_accuracy(
        &self,
        player_id: &str,
        matches: u32,
    ) -> Result<Vec<FormAccuracy>, StoreError>;
    /// The role of `player_id`'s account, if it has one.
    async fn role_of(&self, player_id: &str) -> Result<Option<Role>, StoreError>;
    /// Gives `player_id` `role` (`None`: takes its role away) and logs
    /// `entry`, in one transaction.
    async fn set_role(
        &self,
        player_id: &str,
        role: Option<Role>,
        entry: &NewLogEntry,
    ) -> Result<(), StoreError>;
    /// The moderation log, newest first: `limit` lines before line `before`.
    async fn moderation_log(
        &self,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<LogEntry>, StoreError>;

    // What players do about one another: written at once, before the
    // player is answered, so that nothing acknowledged is lost to a crash.

    /// An account's mutes and blocks, newest first.
    async fn social_lists(&self, player_id: &str) -> Result<SocialLists, StoreError>;
    /// Puts `other` on `player_id`'s list of `relation` (at `on`), or takes
    /// them off it (`None`); either again changes nothing. `player_id`
    /// must hold an account.
    async fn set_relation(
        &self,
        player_id: &str,
        relation: Relation,
        other: &str,
        on: Option<Millis>,
    ) -> Result<(), StoreError>;
    /// Puts `other` on the guest `player_id`'s blocks (at `on`), or takes
    /// them off (`None`); either again changes nothing. A guest's row need
    /// not be in the database yet (the journal may still hold it).
    async fn set_guest_block(
        &self,
        player_id: &str,
        other: &str,
        on: Option<Millis>,
    ) -> Result<(), StoreError>;
    /// The players the guest `player_id` blocked, by id.
    async fn guest_blocks(&self, player_id: &str) -> Result<Vec<String>, StoreError>;
    /// Every player a stored block (an account's or a guest's) stands
    /// between `player_id` and, whoever made it.
    async fn blocked_either_way(&self, player_id: &str) -> Result<Vec<String>, StoreError>;
    /// Files a report within its reporter's `limits`, once per reporter,
    /// reported player and match (or table, or none).
    async fn file_report(
        &self,
        report: &NewReport,
        limits: ReportLimits,
    ) -> Result<ReportOutcome, StoreError>;
    /// Open reports, oldest first.
    async fn open_reports(&self, limit: u32) -> Result<Vec<Report>, StoreError>;
    /// Closes open report `id` with `entry.reason` as its note and logs
    /// `entry` against the reported player, at once; false if no open
    /// report has that id.
    async fn close_report(&self, id: i64, entry: &NewLogEntry) -> Result<bool, StoreError>;
    /// Applies a moderator's `sanction` and logs `entry`, in one transaction.
    async fn sanction(&self, sanction: &Sanction, entry: &NewLogEntry) -> Result<(), StoreError>;
    /// The bans and mutes in force at `now`, and the names taken away.
    async fn live_sanctions(&self, now: Millis) -> Result<LiveSanctions, StoreError>;
    /// The player's warnings not yet acknowledged, oldest first.
    async fn warnings(&self, player_id: &str) -> Result<Vec<Warning>, StoreError>;
    /// The tournaments registering or running, soonest start first.
    async fn unfinished_tournaments(&self) -> Result<Vec<StoredTournament>, StoreError>;
    async fn tournament(&self, id: &str) -> Result<Option<StoredTournament>, StoreError>;
    /// The listed tournaments, latest start first.
    async fn listed_tournaments(&self, limit: u32) -> Result<Vec<StoredTournament>, StoreError>;

    // Puzzles drawn from analysed matches, and accounts' answers to them.

    /// Keeps the puzzles not stored before (one per match, hand and
    /// action), dated `at`; how many were new.
    async fn save_puzzles(&self, puzzles: &[NewPuzzle], at: Millis) -> Result<u32, StoreError>;
    async fn puzzle(&self, id: i64) -> Result<Option<StoredPuzzle>, StoreError>;
    /// The puzzle rated nearest `near` that `player` (an account; `None`
    /// for anyone) has not answered, people's puzzles first among those
    /// within 200 points.
    async fn next_puzzle(
        &self,
        player: Option<&str>,
        near: f64,
    ) -> Result<Option<StoredPuzzle>, StoreError>;
    /// A puzzle at random: the first stored at or after the id `fraction`
    /// (0 to 1) of the way from the lowest id to the highest; two reads by
    /// the primary key, whatever the count (ids skipped by the sequence make
    /// the puzzle after a gap a little likelier).
    async fn random_puzzle(&self, fraction: f64) -> Result<Option<StoredPuzzle>, StoreError>;
    /// How many puzzles were stored before `before`.
    async fn puzzles_before(&self, before: Millis) -> Result<u64, StoreError>;
    /// The `nth` (from 0, by id) of the puzzles stored before `before`.
    async fn nth_puzzle_before(
        &self,
        before: Millis,
        nth: u64,
    ) -> Result<Option<StoredPuzzle>, StoreError>;
    /// Keeps an account's answer and, if it is its first to that puzzle,
    /// rates the account (from `start` if it has no puzzle rating) and the
    /// puzzle with `rate`, all at once; `None` if it had answered before.
    async fn answer_puzzle(
        &self,
        attempt: &PuzzleAttempt,
        start: Glicko,
        rate: PuzzleRateFn<'_>,
    ) -> Result<Option<PuzzleRated>, StoreError>;
    /// An account's puzzle rating, once it has answered one.
    async fn puzzle_rating(&self, player_id: &str) -> Result<Option<PuzzleRating>, StoreError>;
    /// An account's latest answers, newest first.
    async fn puzzle_attempts(
        &self,
        player_id: &str,
        limit: u32,
    ) -> Result<Vec<PuzzleAttempt>, StoreError>;
    /// The player saw warning `id` (another's: nothing changes).
    async fn acknowledge_warning(
        &self,
        player_id: &str,
        id: i64,
        at: Millis,
    ) -> Result<(), StoreError>;
    /// The player was seen from the address whose keyed hash is `address_hash`.
    async fn record_sighting(
        &self,
        player_id: &str,
        address_hash: &str,
        at: Millis,
    ) -> Result<(), StoreError>;
    /// What moderators see of a player beside their matches.
    async fn dossier(&self, player_id: &str, now: Millis) -> Result<Dossier, StoreError>;
    /// The player whose name a moderator took away picks `name` (whose key
    /// is `name_key`), logged as `entry`, in one transaction; false,
    /// changing nothing, unless they still bear the name the moderator gave.
    async fn pick_name(
        &self,
        player_id: &str,
        name: &str,
        name_key: &str,
        entry: &NewLogEntry,
    ) -> Result<bool, StoreError>;
    /// The server's key named `name`, made of `fresh` if there is none yet.
    async fn moderation_key(&self, name: &str, fresh: &str) -> Result<String, StoreError>;
}

/// Opens the store a URL names, creating a SQLite file (and its folder) if needed.
pub async fn connect(url: &str) -> Result<Box<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Box::new(postgres::PgStore::connect(url).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Box::new(sqlite::SqliteStore::connect(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    }
}
