//! Matches as listed and as stored: the list, one match, its engine record.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use euchre_engine::{GameRecord, Rules};
use euchre_store::{MatchDetail, MatchSeat, MatchSummary};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::import::IMPORT_TABLE;
use super::query::{ListParams, encode_cursor, valid_id};
use super::replay::{MatchView, is_over, match_view};
use crate::state::AppState;

/// One page of matches, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchList {
    pub matches: Vec<MatchSummaryView>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A match as listed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchSummaryView {
    pub id: String,
    /// The table it was played at; `"import"` for an imported EGN record.
    pub table_id: String,
    /// The game's number at its table: 1, 2, … with rematches.
    pub number: u32,
    /// Imported from EGN rather than played here.
    pub imported: bool,
    /// The engine's rule options (`Rules`, every field named).
    #[schema(value_type = Object)]
    pub rules: Rules,
    pub seats: Vec<SeatView>,
    /// When it started and ended, in ms since the Unix epoch (an import:
    /// when it was imported).
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub finished: bool,
    /// Points so far (final once finished), one per side: four-handed,
    /// `[seats 0 and 2, seats 1 and 3]`; otherwise one per player, the
    /// index being the seat.
    pub scores: Vec<u16>,
    /// The winning side, an index into `scores` (of the rubber, when the
    /// match is one); `null` until the match is won.
    pub winner: Option<u8>,
    /// The seats that won: both partners, or the one player; empty until
    /// the match is won.
    pub winners: Vec<u8>,
    /// A rubber's games once it has ended (sheet 003); empty for a single
    /// game. While a rubber is in progress `scores` count across its games.
    pub rubber: Vec<RubberGameView>,
}

/// One game of a rubber.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RubberGameView {
    /// The side that won that game.
    pub winner: u8,
    /// Each side's points in that game, as `scores` in the summary.
    pub scores: Vec<u16>,
    /// 3 if the losers scored 0, 2 for 1 or 2, 1 for 3 or more.
    pub rubber_points: u8,
}

/// Who sat in a seat.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatView {
    pub seat: u8,
    /// The registered player, or `null` for a bot or an imported name.
    pub player_id: Option<String>,
    /// The bot's kind (`random`, `basic`), for a bot.
    pub bot: Option<String>,
    pub name: String,
}

impl From<&MatchSeat> for SeatView {
    fn from(seat: &MatchSeat) -> SeatView {
        SeatView {
            seat: seat.seat,
            player_id: seat.player_id.clone(),
            bot: seat.bot.clone(),
            name: seat.name.clone(),
        }
    }
}

impl From<&MatchSummary> for MatchSummaryView {
    fn from(summary: &MatchSummary) -> MatchSummaryView {
        MatchSummaryView {
            id: summary.id.clone(),
            table_id: summary.table_id.clone(),
            number: summary.number,
            imported: summary.table_id == IMPORT_TABLE,
            rules: summary.rules,
            seats: summary.seats.iter().map(SeatView::from).collect(),
            started_at: summary.started_at,
            ended_at: summary.ended_at,
            finished: summary.ended_at.is_some(),
            scores: summary.scores.clone(),
            winner: summary.winner,
            winners: summary.winners.clone(),
            rubber: summary
                .games
                .iter()
                .map(|game| RubberGameView {
                    winner: game.winner.0,
                    scores: game.scores.as_slice().to_vec(),
                    rubber_points: game.rubber_points,
                })
                .collect(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/matches",
    tag = "matches",
    summary = "List matches, newest first",
    description = "Keyset pagination: follow `next_cursor` until it is `null`. A match started \
        between two pages is not seen by a walk already under way, and none is seen twice.",
    params(ListParams),
    responses(
        (status = 200, description = "A page of matches", body = MatchList),
        (status = 400, description = "A bad parameter: `bad_limit`, `bad_cursor`, `bad_result`, \
            `result_needs_player`, `bad_time`, `bad_finished`, `bad_player` or `bad_query`",
            body = ErrorBody),
    )
)]
pub(super) async fn list_matches(
    State(state): State<AppState>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<MatchList>, ApiError> {
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let query = params.to_query()?;
    let page = state.store.list_matches(&query).await.map_err(ApiError::store)?;
    Ok(Json(MatchList {
        matches: page.matches.iter().map(MatchSummaryView::from).collect(),
        next_cursor: page.next.as_ref().map(encode_cursor),
    }))
}

/// The stored match `id`, or 404.
pub(super) async fn load(state: &AppState, id: &str) -> Result<MatchDetail, ApiError> {
    if !valid_id(id) {
        return Err(ApiError::match_not_found(id));
    }
    state
        .store
        .get_match(id)
        .await
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::match_not_found(id))
}

#[utoipa::path(
    get,
    path = "/api/matches/{id}",
    tag = "matches",
    summary = "One match, every hand",
    description = "While the match is in progress only public information is shown: up-cards, \
        bids, plays, trick winners and scores; `hands`, `kitty` and the discard's `card` are \
        left out (`cards_revealed` is false). Once it is over, everything.",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The match", body = MatchView),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_match(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<MatchView>, ApiError> {
    let detail = load(&state, &id).await?;
    match_view(&detail).map(Json).map_err(ApiError::corrupt)
}

#[utoipa::path(
    get,
    path = "/api/matches/{id}/record",
    tag = "matches",
    summary = "A finished match as the engine's record",
    description = "The engine's `GameRecord` (rules, seed, start, every deal and action, scores, \
        winner): `Game::replay` and `euchre-verify` replay and check it.",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The engine's GameRecord", body = serde_json::Value),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
        (status = 409, description = "The match is in progress (`match_in_progress`)", body = ErrorBody),
    )
)]
pub(super) async fn get_record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameRecord>, ApiError> {
    let detail = load(&state, &id).await?;
    if !is_over(&detail) {
        return Err(ApiError::in_progress(&id));
    }
    Ok(Json(detail.record))
}
