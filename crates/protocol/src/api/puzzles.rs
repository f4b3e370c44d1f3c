//! Puzzles from real hands (`/api/puzzles`): a puzzle as a solver is
//! shown it (the question only: the seat's own view and its options), the
//! verdict on an answer with the solution, and an account's puzzle record.

use euchre_engine::{Action, GameView, Seat};
use serde::{Deserialize, Serialize};

/// A puzzle as a solver sees it before answering: nothing the seat could
/// not see, and neither the answers nor the themes (which could give
/// them away).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleView {
    pub id: i64,
    /// `bid` (a bid or a pass), `discard` or `card`.
    pub kind: String,
    /// The seat to act.
    #[cfg_attr(feature = "openapi", schema(value_type = u8))]
    pub seat: Seat,
    /// The seat's own view at the decision, as the table sent it: its hand,
    /// the up-card or trump, the bids, the tricks so far, the score.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub view: GameView,
    /// Every option, in the engine's order; the answer is one of them.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub options: Vec<Action>,
    /// The puzzle's own rating (Glicko-2), rounded, and its rated answers.
    pub rating: i32,
    pub plays: u32,
}

/// `POST /api/puzzles/{id}/answer`: the option chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleAnswer {
    /// One of the puzzle's `options`, as it lists them.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub action: Action,
}

/// The verdict on an answer, and the solution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleVerdict {
    /// The answer was one of the best.
    pub correct: bool,
    /// The best answers, equally good.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub answers: Vec<Action>,
    /// The solver's reasons, in words: tricks with every card shown,
    /// expected points over the seat's worlds, the line and how it ends.
    pub why: String,
    /// What the position is about (`ordering_up`, `going_alone`,
    /// `dealers_discard`, `leading_trump`, `ruffing`, `counting_trump`,
    /// `saving_the_loner`).
    pub themes: Vec<String>,
    /// "See it played": the rest of the hand from the best answer and from
    /// the one given, every card shown (`euchre-puzzles`' `Line`: the
    /// first action, the trump made, each card played, the outcome).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub best_line: serde_json::Value,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub answer_line: serde_json::Value,
    /// Each option's values: tricks with every card shown (cards only) and
    /// expected points over the seat's worlds.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub values: serde_json::Value,
    /// The match, hand and action it comes from.
    pub match_id: String,
    pub hand: u32,
    pub action: u32,
    /// The account's rating change: only for an account's first answer to
    /// the puzzle (a guest's answers, and answers again, are not rated).
    pub rating: Option<PuzzleRatingChange>,
    /// The puzzle's rating after the answer, rounded.
    pub puzzle_rating: i32,
}

/// What a rated answer did to an account's puzzle rating.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleRatingChange {
    /// Rounded, before and after.
    pub before: i32,
    pub after: i32,
    pub deviation: i32,
    /// Right answers in a row, now, and the longest run.
    pub streak: u32,
    pub best_streak: u32,
}

/// An account's puzzle rating, streak and latest answers
/// (`GET /api/players/{id}/puzzles`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerPuzzles {
    /// `None` until the account answers a puzzle.
    pub rating: Option<PuzzleRatingView>,
    /// The latest rated answers (up to 100), newest first.
    pub history: Vec<PuzzleAttemptView>,
}

/// An account's puzzle rating (Glicko-2), rounded, and its record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleRatingView {
    pub rating: i32,
    pub deviation: i32,
    pub streak: u32,
    pub best_streak: u32,
    /// Puzzles answered, and answered right.
    pub attempts: u32,
    pub solved: u32,
}

/// One rated answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PuzzleAttemptView {
    pub puzzle_id: i64,
    pub correct: bool,
    pub at: i64,
}
