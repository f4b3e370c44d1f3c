//! A finished match's analysis by the solver: stored once
//! computed, queued on the first request, never shown for a match in
//! progress (it names every card).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use euchre_protocol::api::{AnalysisQueued, GameAnalysis};

use super::error::{ApiError, ErrorBody};
use super::matches::load;
use super::query::valid_id;
use super::replay::cards_public;
use crate::analysis_queue::Lookup;
use crate::state::AppState;

#[utoipa::path(
    get,
    path = "/api/matches/{id}/analysis",
    tag = "matches",
    summary = "A finished match analysed by the solver",
    description = "Every choice of every finished hand, valued two ways: each card played with \
        every card shown (each legal card solved double-dummy: the tricks and points of the \
        player's side, the loss against the best, `best` or `mistake`), and every decision \
        (bids, loners, discards, the card passed, each card) with what the player knew (each \
        option's expected points over worlds dealt from the player's view; marks `best`, \
        `good`, `inaccuracy` from a quarter of a point lost, `mistake` from a half, \
        `blunder` from one); then each seat's accuracy (the share of decisions within a \
        quarter of a point of the best) and points lost. Computed on the first request, \
        which is answered 202 with `Retry-After` until it is stored; then 200, or 422 if \
        the match cannot be analysed.",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The analysis", body = GameAnalysis),
        (status = 202, description = "Queued: ask again after `Retry-After` seconds",
            body = AnalysisQueued),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
        (status = 409, description = "The match is in progress (`match_in_progress`); an \
            abandoned one is analysed, its finished hands",
            body = ErrorBody),
        (status = 422, description = "The analysis failed (`not_analysable`): the message \
            says why, and every later request gets the same answer", body = ErrorBody),
        (status = 503, description = "Too many analyses queued (`analysis_busy`), with \
            `Retry-After`", body = ErrorBody),
    )
)]
pub(super) async fn get_analysis(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    // Stored means finished: the second read is one lookup.
    if valid_id(&id)
        && let Some(analysis) = state.analyses.stored(&id).await.map_err(ApiError::store)?
    {
        return Ok(json_text(analysis));
    }
    let detail = load(&state, &id).await?;
    // An abandoned match can never go on: its finished hands are analysed
    // (the one cut short is left out, as the analysis leaves out any hand
    // in progress).
    if !cards_public(&detail) {
        return Err(ApiError::in_progress(&id));
    }
    let retry_after = state.settings.analysis.retry_after_seconds;
    match state.analyses.lookup(&id, detail.record).await.map_err(ApiError::store)? {
        Lookup::Ready(analysis) => Ok(json_text(analysis)),
        Lookup::Queued => {
            let body = Json(AnalysisQueued { status: "queued".into(), retry_after });
            let mut response = (StatusCode::ACCEPTED, body).into_response();
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            Ok(response)
        }
        Lookup::Busy => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "analysis_busy",
            "too many matches are being analysed; ask again later",
        )
        .retry_after(std::time::Duration::from_secs(u64::from(retry_after)))),
        Lookup::Failed(reason) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "not_analysable",
            format!("match {id} cannot be analysed: {reason}"),
        )),
    }
}

/// JSON already written, as the answer's body.
fn json_text(json: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}
