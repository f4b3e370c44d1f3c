//! A player's record.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use euchre_store::PlayerStats;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use crate::state::AppState;

/// A player's record over finished matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
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
}

impl PlayerView {
    /// `None` when the player is unknown.
    fn new(stats: PlayerStats) -> Option<PlayerView> {
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
        })
    }
}

#[utoipa::path(
    get,
    path = "/api/players/{id}",
    tag = "players",
    summary = "A player's record",
    description = "Over finished matches only. Names in imported matches are not players.",
    params(("id" = String, Path, description = "The player id")),
    responses(
        (status = 200, description = "The player's record", body = PlayerView),
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
    let stats = state.store.player_stats(&id).await.map_err(ApiError::store)?;
    PlayerView::new(stats).map(Json).ok_or_else(not_found)
}
