//! A player's profile: the record over finished matches, the ratings, and
//! the analysis's recent figures.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use euchre_protocol::api::{FormAccuracyView, FormRatingView, PlayerView, RatingPointView};
use euchre_store::{FormAccuracy, FormRating, PlayerStats, RatingPoint};

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use crate::state::AppState;

/// The rated games a profile shows at most.
const HISTORY_LIMIT: u32 = 200;
/// The analysed matches per form whose figures a profile averages: recent
/// enough to show how someone plays now.
const RECENT_ANALYSED: u32 = 20;

/// A player's recent analysed matches in one form, averaged.
fn accuracy_view(figures: &FormAccuracy) -> FormAccuracyView {
    FormAccuracyView {
        form: figures.form.clone(),
        matches: figures.matches,
        decisions: figures.decisions,
        accuracy: figures.accuracy,
        points_lost: figures.points_lost,
    }
}

/// A rating in one game form, rounded.
fn rating_view(rating: &FormRating) -> FormRatingView {
    FormRatingView {
        form: rating.form.clone(),
        rating: rating.rating.rating.round() as i32,
        deviation: rating.rating.deviation.round() as i32,
        games: rating.games,
    }
}

/// The rating after one rated match, and what the match changed it by.
fn rating_point_view(point: &RatingPoint) -> RatingPointView {
    RatingPointView {
        form: point.form.clone(),
        match_id: point.match_id.clone(),
        rating: point.rating.round() as i32,
        change: (point.rating - point.before.unwrap_or(1500.0)).round() as i32,
        at: point.at,
    }
}

/// A player's profile; `None` when the player is unknown.
fn player_view(
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
        ratings: ratings.iter().map(rating_view).collect(),
        rating_history: history.iter().map(rating_point_view).collect(),
        accuracy: accuracy.iter().map(accuracy_view).collect(),
    })
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
    player_view(stats, &ratings, &history, &accuracy).map(Json).ok_or_else(not_found)
}
