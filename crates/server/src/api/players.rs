//! A player's profile: the record over finished matches, the ratings, and
//! the analysis's recent figures.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use euchre_store::{FormAccuracy, FormRating, PlayerStats, RatingPoint};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use crate::state::AppState;

/// The rated games a profile shows at most.
const HISTORY_LIMIT: u32 = 200;
/// The analysed matches per form whose figures a profile averages: recent
/// enough to show how someone plays now.
const RECENT_ANALYSED: u32 = 20;

/// A player's profile: the record over finished matches, and the ratings.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
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
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
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

impl From<&FormAccuracy> for FormAccuracyView {
    fn from(figures: &FormAccuracy) -> FormAccuracyView {
        FormAccuracyView {
            form: figures.form.clone(),
            matches: figures.matches,
            decisions: figures.decisions,
            accuracy: figures.accuracy,
            points_lost: figures.points_lost,
        }
    }
}

/// A rating in one game form.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct FormRatingView {
    /// `partnership`, `cutthroat`, `three_handed`, `two_handed` or `two_handed_plain`.
    pub form: String,
    /// Glicko-2: the rating and its deviation (how sure it is), rounded.
    pub rating: i32,
    pub deviation: i32,
    /// Rated games played in the form.
    pub games: u32,
}

impl From<&FormRating> for FormRatingView {
    fn from(rating: &FormRating) -> FormRatingView {
        FormRatingView {
            form: rating.form.clone(),
            rating: rating.rating.rating.round() as i32,
            deviation: rating.rating.deviation.round() as i32,
            games: rating.games,
        }
    }
}

/// The rating after one rated match.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
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

impl From<&RatingPoint> for RatingPointView {
    fn from(point: &RatingPoint) -> RatingPointView {
        RatingPointView {
            form: point.form.clone(),
            match_id: point.match_id.clone(),
            rating: point.rating.round() as i32,
            change: (point.rating - point.before.unwrap_or(1500.0)).round() as i32,
            at: point.at,
        }
    }
}

impl PlayerView {
    /// `None` when the player is unknown.
    fn new(
        stats: PlayerStats,
        ratings: &[FormRating],
        history: &[RatingPoint],
        accuracy: &[FormAccuracy],
    ) -> Option<PlayerView> {
        let player = stats.player?;
        Some(PlayerView {
            id: player.id,
            name: player.name,
            played: stats.played,
            won: stats.won,
            points_for: stats.points_for,
            points_against: stats.points_against,
            euchres_made: stats.euchres_made,
            euchres_suffered: stats.euchres_suffered,
            loners_tried: stats.loners_tried,
            loners_won: stats.loners_won,
            win_rate: if stats.played == 0 {
                0.0
            } else {
                f64::from(stats.won) / f64::from(stats.played)
            },
            hands_called: stats.hands_called,
            hands_made: stats.hands_made,
            time_played_ms: stats.time_played_ms,
            ratings: ratings.iter().map(FormRatingView::from).collect(),
            rating_history: history.iter().map(RatingPointView::from).collect(),
            accuracy: accuracy.iter().map(FormAccuracyView::from).collect(),
        })
    }
}

#[utoipa::path(
    get,
    path = "/api/players/{id}",
    tag = "players",
    summary = "A player's profile",
    description = "The record over finished matches only (names in imported matches are not \
        players), and the player's ratings: one per game form, and the latest rated games for a \
        chart; and the solver's verdict on their latest analysed matches by form: accuracy (the \
        share of decisions within tolerance) and points lost per match.",
    params(("id" = String, Path, description = "The player id")),
    responses(
        (status = 200, description = "The player's profile", body = PlayerView),
        (status = 404, description = "No such player (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_player(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PlayerView>, ApiError> {
    let not_found =
        || ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no player {id:?}"));
    if !valid_id(&id) {
        return Err(not_found());
    }
    let store = &state.store;
    let stats = store.player_stats(&id).await.map_err(ApiError::store)?;
    let ratings = store.player_ratings(&id).await.map_err(ApiError::store)?;
    let history = store.rating_history(&id, HISTORY_LIMIT).await.map_err(ApiError::store)?;
    let accuracy = store.recent_accuracy(&id, RECENT_ANALYSED).await.map_err(ApiError::store)?;
    PlayerView::new(stats, &ratings, &history, &accuracy).map(Json).ok_or_else(not_found)
}
