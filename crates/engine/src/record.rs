//! The engine's own record of a game: enough to replay and verify every hand.

use serde::{Deserialize, Serialize};

use crate::action::{Action, HandOutcome, PerTeam, Seat, Team};
use crate::deal::Deal;
use crate::fairness::Seal;
use crate::game::{GameResult, GameStart};
use crate::rules::Rules;
use crate::seed::Seed;

/// One action and who took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatAction {
    pub seat: Seat,
    #[serde(flatten)]
    pub action: Action,
}

/// A hand as dealt and played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    pub deal: Deal,
    pub actions: Vec<SeatAction>,
    /// `None` while the hand is in progress.
    pub outcome: Option<HandOutcome>,
    /// The commitment sent before the first bid and the salt that opens it
    /// (see [`crate::fairness`]); `None` for a hand dealt without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<Seal>,
}

/// A game, complete or in progress: rules, seed, the start, every deal and
/// every action. The deals are stored, not re-derived from the seed, so a
/// record replays identically forever.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub rules: Rules,
    /// The 32 bytes the game's generator started from (an older record's
    /// 64-bit number reads as its expansion: [`Seed`]).
    pub seed: Seed,
    pub start: GameStart,
    pub hands: Vec<HandRecord>,
    /// The current (or last) game's scores.
    pub scores: PerTeam<u16>,
    /// Who won the match: the game's winner, or the rubber's.
    pub winner: Option<Team>,
    /// Playing rubbers: each finished game of the rubber.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<GameResult>,
}
