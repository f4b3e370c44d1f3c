//! The HTTP API's answers (docs/openapi.json), declared once for the
//! server that writes them and the clients that read them: a match as
//! listed and in full ([`matches`](mod@matches)), a match's analysis by the
//! solver ([`analysis`]), players' profiles and the leaderboard
//! ([`players`]), puzzles ([`puzzles`]), a table open or closed ([`tables`]), tournaments
//! ([`tournaments`]), the moderation log
//! ([`moderation`]), the error answers
//! ([`error`]), and `/readyz`'s [`Readiness`].
//!
//! Their OpenAPI schemas (utoipa's `ToSchema`) are behind the `openapi`
//! feature, which the server turns on; a client reading them does not need
//! utoipa.
//!
//! Some fields the server fills from the engine's fixed names (an action's
//! name, a close reason) are `Cow<'static, str>`: borrowed when the server
//! writes them, so a whole match is written without a string allocated per
//! action, and owned when a client reads them.

pub mod analysis;
pub mod error;
pub mod matches;
pub mod moderation;
pub mod players;
pub mod puzzles;
pub mod tables;
pub mod tournaments;

use serde::{Deserialize, Serialize};

pub use analysis::{
    AnalysisQueued, Decision, GameAnalysis, HandAnalysis, Known, KnownOption, Mark, PlayerSummary,
    Shown, ShownOption,
};
pub use error::{ErrorBody, FindingBody};
pub use matches::{
    AbandonedView, ActionView, HandView, MatchList, MatchSummaryView, MatchView, PlayView,
    RubberGameView, SeatView, StandInView, TrickView,
};
pub use moderation::{
    ActionDone, ActionRequest, AddressBanRequest, AddressSeen, BanView, CloseReport, FormerName,
    LogEntryView, LogPlayer, ModerationLog, OpenReports, PlayerDossierView, ReportChatLine,
    ReportView,
};
pub use players::{
    AccountPlayer, FormAccuracyView, FormRatingView, Leaderboard, Place, PlayerView,
    RatingPointView,
};
pub use puzzles::{
    PlayerPuzzles, PuzzleAnswer, PuzzleAttemptView, PuzzleRatingChange, PuzzleRatingView,
    PuzzleVerdict, PuzzleView,
};
pub use tables::{TableMatchView, TableState, TableView};
pub use tournaments::{
    EntryView, LateEntries, NewTournament, RoundSeatView, RoundTableView, RoundView, TeamDraw,
    TournamentCreated, TournamentFormat, TournamentList, TournamentSummaryView, TournamentView,
};

/// `GET /readyz`: whether the server is ready (200) or not (503), with the
/// database's state and the writes the journal holds that it does not yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Readiness {
    pub ready: bool,
    /// `up` or `down`.
    pub database: String,
    /// Writes journaled but not yet in the database.
    pub backlog: u64,
}
