//! The moderation routes under `/api/admin`: each one checks the role of
//! the account behind the bearer token, read from the database at every
//! request (a role granted or taken away holds at once, on every node).

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use euchre_protocol::api::{LogEntryView, LogPlayer, ModerationLog};
use euchre_store::{LogEntry, Role};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::{ApiError, ErrorBody};
use super::sessions::bearer;
use crate::state::AppState;

/// Lines of the log a page holds at most, and by default.
const PAGE_LIMIT: u32 = 100;
const PAGE_DEFAULT: u32 = 50;

/// The player behind `headers`' bearer token, if their account has `role`
/// or a higher one; otherwise a `401` (no valid token) or a `403`
/// `forbidden` that says nothing of who holds which role.
pub(super) async fn require(
    state: &AppState,
    headers: &HeaderMap,
    role: Role,
) -> Result<String, ApiError> {
    let token = bearer(headers)?;
    let player = state.accounts.account(token).await.map_err(|error| match error {
        crate::accounts::AccountError::NotAnAccount => forbidden(),
        other => other.into(),
    })?;
    let held = state.store.role_of(&player.id).await.map_err(|e| unavailable(e, "a role"))?;
    match held {
        Some(held) if held >= role => Ok(player.id),
        _ => Err(forbidden()),
    }
}

/// The store did not answer while reading `what`: logged, and a `503`.
fn unavailable(error: euchre_store::StoreError, what: &str) -> ApiError {
    tracing::error!(%error, "moderation: {what} could not be read");
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "try again shortly")
}

fn forbidden() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "forbidden",
        "this needs a role your account does not have",
    )
}

/// `GET /api/admin/log`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct LogParams {
    /// Lines before this one (the previous page's `next_before`).
    before: Option<i64>,
    /// Lines in the page: 1 to 100 (default 50).
    limit: Option<u32>,
}

fn log_player(id: String, name: Option<String>) -> LogPlayer {
    LogPlayer { id, name }
}

fn entry_view(entry: LogEntry) -> LogEntryView {
    LogEntryView {
        id: entry.id,
        at: entry.at,
        actor: log_player(entry.actor, entry.actor_name),
        action: entry.action,
        target: entry.target.map(|target| log_player(target, entry.target_name)),
        reason: entry.reason,
    }
}

#[utoipa::path(
    get,
    path = "/api/admin/log",
    tag = "moderation",
    summary = "The moderation log",
    description = "Every role granted or taken away and every moderator action, newest first: \
        who, what, to whom, when and why. Lines are only ever added. For admins only.",
    params(LogParams),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the log", body = ModerationLog),
        (status = 400, description = "`bad_query`: `limit` not 1 to 100, or a parameter \
            that is not a number", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`forbidden`: the account is not an admin's (or the \
            token is a guest's)", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn moderation_log(
    State(state): State<AppState>,
    headers: HeaderMap,
    params: Result<Query<LogParams>, QueryRejection>,
) -> Result<Json<ModerationLog>, ApiError> {
    require(&state, &headers, Role::Admin).await?;
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let limit = params.limit.unwrap_or(PAGE_DEFAULT);
    if !(1..=PAGE_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request("bad_query", "limit: 1 to 100"));
    }
    let entries = state
        .store
        .moderation_log(params.before, limit)
        .await
        .map_err(|e| unavailable(e, "the log"))?;
    let next_before =
        (entries.len() == limit as usize).then(|| entries.last().map(|e| e.id)).flatten();
    Ok(Json(ModerationLog { entries: entries.into_iter().map(entry_view).collect(), next_before }))
}
