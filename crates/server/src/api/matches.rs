//! Matches as listed and as stored: the list, one match, its engine record.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use euchre_protocol::api::{MatchList, MatchView};
use euchre_store::MatchDetail;

use super::error::{ApiError, ErrorBody};
use super::json::JsonBody;
use super::query::{ListParams, encode_cursor, valid_id};
use super::replay::{CorruptRecord, cards_public, match_view};
use super::sessions::viewer;
use super::views::summary_view;
use crate::state::AppState;

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
) -> Result<JsonBody, ApiError> {
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let query = params.to_query()?;
    let page = state.store.list_matches(&query).await.map_err(ApiError::store)?;
    JsonBody::of(&MatchList {
        matches: page.matches.iter().map(summary_view).collect(),
        next_cursor: page.next.as_ref().map(encode_cursor),
    })
}

/// The stored match `id`, or 404: also while it is played at a private
/// table (a pool's too), which the list leaves out until it ends.
pub(super) async fn load(state: &AppState, id: &str) -> Result<MatchDetail, ApiError> {
    load_for(state, id, None).await
}

/// [`load`], as `viewer` (a player id) may see it: a player seated in a
/// match at a private table sees it while it is played, as anyone sees a
/// public one.
pub(super) async fn load_for(
    state: &AppState,
    id: &str,
    viewer: Option<&str>,
) -> Result<MatchDetail, ApiError> {
    if !valid_id(id) {
        return Err(ApiError::match_not_found(id));
    }
    let detail = state
        .store
        .get_match(id)
        .await
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::match_not_found(id))?;
    let summary = &detail.summary;
    if summary.ended_at.is_none() && summary.abandoned.is_none() {
        let table = state.store.table_record(&summary.table_id).await.map_err(ApiError::store)?;
        let private = match table {
            Some(table) => table.private,
            // Open, its opening not yet written from the journal.
            None => state.registry.summary(&summary.table_id).is_some_and(|open| open.private),
        };
        let seated = |viewer: &str| {
            summary.seats.iter().any(|seat| seat.player_id.as_deref() == Some(viewer))
        };
        if private && !viewer.is_some_and(seated) {
            return Err(ApiError::match_not_found(id));
        }
    }
    Ok(detail)
}

#[utoipa::path(
    get,
    path = "/api/matches/{id}",
    tag = "matches",
    summary = "One match, every hand",
    description = "While the match is in progress only public information is shown: up-cards, \
        bids, plays, trick winners and scores; `hands`, `kitty` and the discard's `card` are \
        left out (`cards_revealed` is false). Once it is over, everything. A match in progress \
        at a private table (a pool's too) is shown only to its players: with the bearer token \
        (a guest's or a session's) of a player seated in it; to anyone else it is 404.",
    params(("id" = String, Path, description = "The match id")),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The match", body = MatchView),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_match(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<JsonBody, ApiError> {
    let viewer = viewer(&state, &headers).await;
    let detail = load_for(&state, &id, viewer.as_deref()).await?;
    replayed_off_workers(detail, match_view).await
}

/// `replay(detail)` on the blocking pool, and its JSON written there too: a
/// record of many hands takes a while to replay and to write, and on the
/// async workers it would hold up the tables and connections sharing them,
/// at every `GET` of it.
async fn replayed_off_workers<F>(detail: MatchDetail, replay: F) -> Result<JsonBody, ApiError>
where
    F: FnOnce(&MatchDetail) -> Result<MatchView, CorruptRecord> + Send + 'static,
{
    tokio::task::spawn_blocking(move || JsonBody::of(&replay(&detail).map_err(ApiError::corrupt)?))
        .await
        .map_err(|error| ApiError::corrupt(format!("the replay stopped: {error}")))?
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
) -> Result<JsonBody, ApiError> {
    let detail = load(&state, &id).await?;
    if !cards_public(&detail) {
        return Err(ApiError::in_progress(&id));
    }
    JsonBody::of(&detail.record)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;
    use crate::api::testing::{detail, game_in_progress};

    /// The replay runs while the runtime's one thread is free: once under
    /// way it waits for that thread to answer, which it could not if the
    /// replay held it (the test would then fail at the timeout, not hang).
    #[tokio::test(flavor = "current_thread")]
    async fn a_match_is_replayed_off_the_async_workers() {
        let in_progress = detail(&game_in_progress(), false);
        let (started, replay_started) = tokio::sync::oneshot::channel::<()>();
        let (answer, answered) = mpsc::channel::<()>();
        let replay = move |detail: &MatchDetail| {
            let _ = started.send(());
            answered.recv_timeout(Duration::from_secs(30)).expect("the runtime's thread was free");
            match_view(detail)
        };
        let view = tokio::spawn(replayed_off_workers(in_progress.clone(), replay));
        replay_started.await.expect("the replay started");
        answer.send(()).expect("the replay listens");
        let view = view.await.expect("no panic").expect("replays");
        let expected = match_view(&in_progress).expect("replays");
        let view: serde_json::Value = serde_json::from_slice(view.bytes()).expect("JSON");
        assert_eq!(Some(view), serde_json::to_value(expected).ok());
    }
}
