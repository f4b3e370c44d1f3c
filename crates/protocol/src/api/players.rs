//! Players as the API shows them: a profile (`GET /api/players/{id}`) and
//! the leaderboard of a game form (`GET /api/leaderboard`).

use serde::{Deserialize, Serialize};

/// A player's profile: the record over finished matches, and the ratings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerView {
    pub id: String,
    pub name: String,
    /// Finished matches played, and won by the player's side.
    pub played: u32,
    pub won: u32,
    /// Final points of the player's side, over those matches.
    pub points_for: u32,
    /// Final points of every other side, summed: in the three-handed games
    /// both opponents' points count.
    pub points_against: u32,
    /// Hands where the player's side euchred the makers (in the two- and
    /// three-handed games, each defender's).
    pub euchres_made: u32,
    /// Hands where the player's side made trump and was euchred.
    pub euchres_suffered: u32,
    /// Lone hands the player made, and those that took all five tricks.
    pub loners_tried: u32,
    pub loners_won: u32,
    /// `won / played`, 0 before any finished match.
    pub win_rate: f64,
    /// Hands where the player made trump, and those their side then made.
    pub hands_called: u32,
    pub hands_made: u32,
    /// Finished matches' time, start to end, summed, in ms.
    pub time_played_ms: i64,
    /// The player's rating in each game form they were rated in.
    pub ratings: Vec<FormRatingView>,
    /// The latest rated games (up to 200), oldest first: the rating chart.
    pub rating_history: Vec<RatingPointView>,
    /// The solver's verdict on the player's latest analysed matches (up to
    /// 20 per form), by form in name order; empty until one is analysed. A
    /// match is analysed on the first request for its analysis.
    pub accuracy: Vec<FormAccuracyView>,
}

/// A player's recent analysed matches in one form, averaged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FormAccuracyView {
    /// As in `ratings`.
    pub form: String,
    /// Analysed matches averaged, and their decisions (bids, discards,
    /// cards) valued with what the player knew.
    pub matches: u32,
    pub decisions: u32,
    /// The share of those decisions within a quarter of a point of the
    /// best option in expectation, from 0 to 1.
    pub accuracy: f64,
    /// Expected points given up against the best options, per match.
    pub points_lost: f64,
}

/// A rating in one game form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FormRatingView {
    /// `partnership`, `cutthroat`, `three_handed`, `two_handed` or `two_handed_plain`.
    pub form: String,
    /// Glicko-2: the rating and its deviation (how sure it is), rounded.
    pub rating: i32,
    pub deviation: i32,
    /// Rated games played in the form.
    pub games: u32,
}

/// The rating after one rated match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingPointView {
    pub form: String,
    pub match_id: String,
    /// The rating after the match, rounded, and what the match changed it
    /// by (from 1500 for a first rated game).
    pub rating: i32,
    pub change: i32,
    /// When it was rated, ms since the Unix epoch.
    pub at: i64,
}

/// A page of the leaderboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Leaderboard {
    pub form: String,
    pub places: Vec<Place>,
    /// Pass as `offset` for the next page; `null` on the last page.
    pub next_offset: Option<u32>,
}

/// One place on the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Place {
    /// 1 for the best.
    pub rank: u32,
    pub player: AccountPlayer,
    /// Glicko-2, rounded: the rating and its deviation.
    pub rating: i32,
    pub deviation: i32,
    /// Rated games played in the form.
    pub games: u32,
}

/// The player an account belongs to: its id is the one it had as a guest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountPlayer {
    pub id: String,
    pub name: String,
}
