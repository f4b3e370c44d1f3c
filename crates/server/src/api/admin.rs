//! The moderation routes under `/api/admin` that read: the log (admins
//! only), the reports (and closing them) and a player's view; the actions
//! are in `sanctions`. Each route checks the role of the account behind
//! the bearer token, read from the database at every request (a role
//! granted or taken away holds at once, on every node).

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use euchre_protocol::api::{
    AddressSeen, BanView, CloseReport, FormerName, LogEntryView, LogPlayer, ModerationLog,
    OpenReports, PlayerDossierView, ReportChatLine, ReportView,
};
use euchre_store::{LogEntry, MatchQuery, NewLogEntry, Report, Role};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::{ApiError, ErrorBody};
use super::sessions::{bearer, body};
use super::views::summary_view;
use crate::clock::now_ms;
use crate::state::AppState;

/// Lines of the log a page holds at most, and by default.
const PAGE_LIMIT: u32 = 100;
const PAGE_DEFAULT: u32 = 50;

/// A moderator or admin making a request.
pub(super) struct Staff {
    pub id: String,
    pub role: Role,
}

/// The player behind `headers`' bearer token, if their account has `role`
/// or a higher one; otherwise a `401` (no valid token) or a `403`
/// `forbidden` that says nothing of who holds which role.
pub(super) async fn require(
    state: &AppState,
    headers: &HeaderMap,
    role: Role,
) -> Result<Staff, ApiError> {
    let token = bearer(headers)?;
    let player = state.accounts.account(token).await.map_err(|error| match error {
        crate::accounts::AccountError::NotAnAccount => forbidden(),
        other => other.into(),
    })?;
    let held = state.store.role_of(&player.id).await.map_err(|e| unavailable(e, "a role"))?;
    match held {
        Some(held) if held >= role => Ok(Staff { id: player.id, role: held }),
        _ => Err(forbidden()),
    }
}

/// The store did not answer while reading `what`: logged, and a `503`.
pub(super) fn unavailable(error: euchre_store::StoreError, what: &str) -> ApiError {
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

/// Open reports one answer holds at most: the oldest first.
const REPORTS_LIMIT: u32 = 100;
/// Characters a closing note may hold.
const NOTE_MAX: usize = 500;

fn report_view(report: Report) -> ReportView {
    ReportView {
        id: report.id,
        at: report.at,
        reporter: log_player(report.reporter, report.reporter_name),
        reported: log_player(report.reported, report.reported_name),
        reason: report.reason,
        details: report.details,
        table: report.table_id,
        match_id: report.match_id,
        chat: (report.chat.into_iter())
            .map(|line| ReportChatLine { at: line.at, text: line.text })
            .collect(),
    }
}

#[utoipa::path(
    get,
    path = "/api/admin/reports",
    tag = "moderation",
    summary = "The open reports",
    description = "The oldest 100 reports not closed yet, with their evidence as the server \
        attached it: the match (its replay and analysis are under `/api/matches/{id}`) and \
        the reported player's chat lines at the table. For moderators and admins.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The open reports, oldest first", body = OpenReports),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`forbidden`: the account is not a moderator's (or the \
            token is a guest's)", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn open_reports(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<OpenReports>, ApiError> {
    require(&state, &headers, Role::Moderator).await?;
    let reports =
        state.store.open_reports(REPORTS_LIMIT).await.map_err(|e| unavailable(e, "reports"))?;
    Ok(Json(OpenReports { reports: reports.into_iter().map(report_view).collect() }))
}

#[utoipa::path(
    post,
    path = "/api/admin/reports/{id}/close",
    tag = "moderation",
    summary = "Close a report",
    description = "Closes an open report with a note saying what was done, and logs it \
        (`close_report`, against the reported player) in the moderation log. For moderators \
        and admins.",
    params(("id" = i64, Path, description = "The report's id")),
    request_body = CloseReport,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Closed, and logged"),
        (status = 400, description = "`bad_body`: no note, or one over 500 characters", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`forbidden`: the account is not a moderator's (or the \
            token is a guest's)", body = ErrorBody),
        (status = 404, description = "`no_such_report`: no open report has that id", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn close_report(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
    close: Result<Json<CloseReport>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let moderator = require(&state, &headers, Role::Moderator).await?;
    let no_such =
        || ApiError::new(StatusCode::NOT_FOUND, "no_such_report", "no open report has that id");
    let id: i64 = id.ok().and_then(|Path(id)| id.parse().ok()).ok_or_else(no_such)?;
    let CloseReport { note } = body(close)?;
    let note = note.trim();
    if note.is_empty() || note.chars().count() > NOTE_MAX {
        return Err(ApiError::bad_request("bad_body", "note: 1 to 500 characters"));
    }
    let entry = NewLogEntry {
        at: crate::clock::now_ms(),
        actor: moderator.id,
        action: "close_report".to_owned(),
        target: None,
        reason: note.to_owned(),
    };
    let closed =
        state.store.close_report(id, &entry).await.map_err(|e| unavailable(e, "a report"))?;
    if closed { Ok(StatusCode::NO_CONTENT) } else { Err(no_such()) }
}

/// Matches a player's view lists.
const RECENT_MATCHES: u32 = 20;

#[utoipa::path(
    get,
    path = "/api/admin/players/{who}",
    tag = "moderation",
    summary = "A player, as moderators see them",
    description = "The player's names taken away, the ban and mute in force, their latest \
        matches, the moderation log's lines about them, and the addresses their account said \
        hello or logged in from: each as a keyed hash (never the address), with how many other \
        players were seen from it.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The player's view", body = PlayerDossierView),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`forbidden`: not a moderator's or admin's account", body = ErrorBody),
        (status = 404, description = "`not_found`: no such player", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn player_view(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(who): Path<String>,
) -> Result<Json<PlayerDossierView>, ApiError> {
    require(&state, &headers, Role::Moderator).await?;
    let (player, account) = super::sanctions::find_player(&state, &who).await?;
    let store = &state.store;
    let dossier =
        store.dossier(&player.id, now_ms()).await.map_err(|e| unavailable(e, "a player"))?;
    let role = store.role_of(&player.id).await.map_err(|e| unavailable(e, "a role"))?;
    let query = MatchQuery {
        player: Some(player.id.clone()),
        limit: RECENT_MATCHES,
        ..MatchQuery::default()
    };
    let matches = store.list_matches(&query).await.map_err(|e| unavailable(e, "matches"))?;
    Ok(Json(PlayerDossierView {
        id: player.id,
        name: player.name,
        account,
        role: role.map(|role| role.as_str().to_owned()),
        former_names: dossier
            .former_names
            .into_iter()
            .map(|(name, until)| FormerName { name, until })
            .collect(),
        banned: dossier.banned_until.map(|until| BanView { until }),
        muted_until: dossier.muted_until,
        recent_matches: matches.matches.iter().map(summary_view).collect(),
        actions: dossier.actions.into_iter().map(entry_view).collect(),
        addresses: dossier
            .addresses
            .into_iter()
            .map(|(address_hash, other_players)| AddressSeen { address_hash, other_players })
            .collect(),
    }))
}
