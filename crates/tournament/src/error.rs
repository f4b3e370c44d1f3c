//! The typed errors of the core: each has a stable snake_case code and a
//! message. An error never changes the tournament.

use crate::settings::PlayerId;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("bad settings: {0}")]
    BadSettings(String),
    #[error("{0} is entered twice")]
    DuplicatePlayer(PlayerId),
    #[error("{0} is not in this tournament")]
    UnknownPlayer(PlayerId),
    #[error("{0} has already left this tournament")]
    AlreadyRemoved(PlayerId),
    #[error("too few players or teams to play a round")]
    TooFew,
    #[error("a late entry is taken only before round two")]
    LateEntryClosed,
    #[error("a late entry in a team format is a team of two players")]
    LateEntryNeedsTeam,
    #[error("the tournament is over")]
    Finished,
    #[error("round {round} has {expected} tables, and {given} results were given")]
    ResultCount { round: u32, expected: usize, given: usize },
    #[error("table {table}: {reason}")]
    BadResult { table: usize, reason: String },
}

impl TournamentError {
    /// The stable code a client or a stored report keys on.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadSettings(_) => "bad_settings",
            Self::DuplicatePlayer(_) => "duplicate_player",
            Self::UnknownPlayer(_) => "unknown_player",
            Self::AlreadyRemoved(_) => "already_removed",
            Self::TooFew => "too_few",
            Self::LateEntryClosed => "late_entry_closed",
            Self::LateEntryNeedsTeam => "late_entry_needs_team",
            Self::Finished => "finished",
            Self::ResultCount { .. } => "result_count",
            Self::BadResult { .. } => "bad_result",
        }
    }
}
