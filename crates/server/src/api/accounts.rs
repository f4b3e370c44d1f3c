//! Accounts: a guest claims its name, an account changes its password, a
//! player whose name a moderator took away picks another.

use axum::Extension;
use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use euchre_store::MatchQuery;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use euchre_protocol::api::AccountPlayer;
use euchre_store::NewLogEntry;

use super::error::{ApiError, ErrorBody};
use super::query::{decode_cursor, encode_cursor};
use super::sessions::{Credentials, SessionView, bearer, body};
use crate::accounts::AccountError;
use crate::client_address::ClientAddress;
use crate::clock::now_ms;
use crate::revocation::Revocation;
use crate::state::AppState;
use crate::text::{name_key, parse_name};

/// The password now and the one to have instead.
#[derive(Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    pub current_password: String,
    /// 8 to 128 characters.
    pub new_password: String,
}

// By hand, so no password reaches a log.
impl std::fmt::Debug for PasswordChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordChange").finish_non_exhaustive()
    }
}

#[utoipa::path(
    post,
    path = "/api/accounts",
    tag = "accounts",
    summary = "Claim a name",
    description = "The guest whose token is the bearer token becomes an account with this name \
        (which becomes its display name) and password, keeping its player id, its matches and \
        its record. Names are unique without regard to case. The answer starts a session; \
        from then on the guest's token is retired and only sessions let the player in, on \
        the WebSocket (`hello` with the session's token) as over HTTP.",
    request_body = Credentials,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Claimed; a session started", body = SessionView),
        (status = 400, description = "`bad_name`, `weak_password` or `bad_body`", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 409, description = "`name_taken`, or `already_claimed` (log in instead)", body = ErrorBody),
        (status = 429, description = "Too many failed attempts from this address \
            (`rate_limited`): a claim costs a hash, so one refused counts as a wrong password",
            body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "Every password-hashing thread is busy (`busy`): try again \
            shortly", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    )
)]
pub(super) async fn claim(
    State(state): State<AppState>,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    headers: HeaderMap,
    credentials: Result<Json<Credentials>, JsonRejection>,
) -> Result<(StatusCode, Json<SessionView>), ApiError> {
    let token = bearer(&headers)?;
    let Credentials { name, password } = body(credentials)?;
    let started = state.accounts.claim(peer, token, &name, &password).await?;
    Ok((StatusCode::CREATED, Json(started.into())))
}

#[utoipa::path(
    put,
    path = "/api/accounts/password",
    tag = "accounts",
    summary = "Change the password",
    description = "For the account logged in with the bearer token, given its current password. \
        Every session of the account ends (other devices must log in again; their WebSocket \
        connections, and this device's, are closed with 4003) and a new one starts for this \
        device. A wrong current password counts against the address as a \
        wrong log-in does.",
    request_body = PasswordChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Changed; every other session ended", body = SessionView),
        (status = 400, description = "`weak_password` (either password not 8 to 128 \
            characters: refused without a hash) or `bad_body`", body = ErrorBody),
        (status = 401, description = "`bad_credentials` (the current password is wrong), \
            `no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "A guest has no password (`not_an_account`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords from this address \
            (`rate_limited`)", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "Every password-hashing thread is busy (`busy`): try again \
            shortly", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    )
)]
pub(super) async fn change_password(
    State(state): State<AppState>,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    headers: HeaderMap,
    change: Result<Json<PasswordChange>, JsonRejection>,
) -> Result<Json<SessionView>, ApiError> {
    let token = bearer(&headers)?;
    let change = body(change)?;
    let accounts = &state.accounts;
    let started = accounts
        .change_password(peer, token, &change.current_password, &change.new_password)
        .await?;
    Ok(Json(started.into()))
}

/// The password that confirms an account's deletion.
#[derive(Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Deletion {
    pub password: String,
}

// By hand, so no password reaches a log.
impl std::fmt::Debug for Deletion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deletion").finish_non_exhaustive()
    }
}

#[utoipa::path(
    delete,
    path = "/api/accounts/me",
    tag = "accounts",
    summary = "Delete my account",
    description = "Deletes the account logged in with the bearer token, given its password: a \
        stolen session alone cannot. At once, on every node: every session of the account ends \
        and its WebSocket connections close with 4003; its ratings, accuracy figures and roles \
        go; its seats in stored matches, and its profile, read \"deleted player\" (the matches \
        stay for the other players). The name stays taken for the operator's cooling-off \
        (`accounts.deleted_name_hold_days`, 30 days unless set), then is free. Download the \
        games first (`GET /api/accounts/me/games`): afterwards nobody can. A wrong password \
        counts against the address as a wrong log-in does.",
    request_body = Deletion,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "`weak_password` (not 8 to 128 characters: refused \
            without a hash) or `bad_body`", body = ErrorBody),
        (status = 401, description = "`bad_credentials` (the password is wrong), `no_token`, \
            `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "A guest has no account (`not_an_account`)", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords from this address \
            (`rate_limited`)", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "Every password-hashing thread is busy (`busy`): try again \
            shortly", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    )
)]
pub(super) async fn delete_account(
    State(state): State<AppState>,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    headers: HeaderMap,
    deletion: Result<Json<Deletion>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let token = bearer(&headers)?;
    let Deletion { password } = body(deletion)?;
    state.accounts.delete(peer, token, &password).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Where a bundle of my games continues.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BundleParams {
    /// `next_cursor` of the previous bundle.
    pub cursor: Option<String>,
}

/// Matches in one bundle at most: each is read whole from the database.
const BUNDLE_MATCHES: u32 = 50;

/// Every finished match a player sat in, as EGN documents, a bundle at a time.
#[derive(Debug, Serialize, ToSchema)]
pub struct GamesBundle {
    /// Always `Euchre Game Notation bundle`.
    #[serde(rename = "fileType")]
    pub file_type: String,
    pub player_id: String,
    /// One EGN document (as `GET /api/matches/{id}/egn` gives) per match,
    /// the newest first.
    #[schema(value_type = Vec<Object>)]
    pub games: Vec<serde_json::Value>,
    /// The matches EGN cannot express (`egn_inexpressible`): their replays
    /// stay at `GET /api/matches/{id}`.
    pub skipped: Vec<SkippedMatch>,
    /// Pass as `cursor` for the next bundle; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A match left out of a bundle, and why.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkippedMatch {
    pub match_id: String,
    pub code: String,
    pub message: String,
}

#[utoipa::path(
    get,
    path = "/api/accounts/me/games",
    tag = "accounts",
    summary = "Take my games",
    description = "Every finished match the bearer token's player (an account or a guest) sat \
        in, as EGN documents in one JSON bundle, the newest first, 50 matches a bundle: follow \
        `next_cursor` for the rest. A match EGN cannot express is listed under `skipped`.",
    params(BundleParams),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A bundle of EGN documents", body = GamesBundle),
        (status = 400, description = "`bad_cursor` or `bad_query`", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 503, description = "The database is unreachable (`unavailable`)", body = ErrorBody),
    )
)]
pub(super) async fn my_games(
    State(state): State<AppState>,
    headers: HeaderMap,
    params: Result<Query<BundleParams>, QueryRejection>,
) -> Result<Json<GamesBundle>, ApiError> {
    let token = bearer(&headers)?;
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let after = match params.cursor.as_deref() {
        None => None,
        Some(text) => Some(decode_cursor(text).ok_or_else(|| {
            ApiError::bad_request("bad_cursor", "cursor is not a next_cursor this API gave")
        })?),
    };
    let player = state.accounts.player(token).await?;
    let query = MatchQuery {
        player: Some(player.id.clone()),
        finished: true,
        after,
        limit: BUNDLE_MATCHES,
        ..MatchQuery::default()
    };
    let page = state.store.list_matches(&query).await.map_err(ApiError::store)?;
    let mut bundle = GamesBundle {
        file_type: "Euchre Game Notation bundle".to_owned(),
        player_id: player.id,
        games: Vec::with_capacity(page.matches.len()),
        skipped: Vec::new(),
        next_cursor: page.next.as_ref().map(encode_cursor),
    };
    for summary in &page.matches {
        let detail = state.store.get_match(&summary.id).await.map_err(ApiError::store)?;
        let Some(detail) = detail else { continue };
        let written = super::export::egn_file(&detail)
            .and_then(|(_, text)| serde_json::from_str(&text).map_err(ApiError::corrupt));
        match written {
            Ok(game) => bundle.games.push(game),
            Err(error) if error.status == StatusCode::UNPROCESSABLE_ENTITY => {
                bundle.skipped.push(SkippedMatch {
                    match_id: summary.id.clone(),
                    code: error.body.code.clone(),
                    message: error.body.message.clone(),
                });
            }
            Err(error) => return Err(error),
        }
    }
    Ok(Json(bundle))
}

/// The name a player picks after a moderator took theirs away.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewName {
    /// 1 to 32 characters once normalised, as any name.
    pub name: String,
}

#[utoipa::path(
    put,
    path = "/api/accounts/name",
    tag = "accounts",
    summary = "Pick a new name",
    description = "For a player (a guest or an account) whose name a moderator took away, \
        while they still bear the name the moderator gave: the new name is theirs at once (an \
        account logs in with it from then on), and logged. Anyone else is refused `no_rename`.",
    request_body = NewName,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Renamed", body = AccountPlayer),
        (status = 400, description = "`bad_name`, `blocked_words` (a word of the server's list) \
            or `bad_body`", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`banned`", body = ErrorBody),
        (status = 409, description = "`name_taken` (an account's, or one taken away), or \
            `no_rename`: no moderator took this player's name", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn pick_name(
    State(state): State<AppState>,
    headers: HeaderMap,
    new: Result<Json<NewName>, JsonRejection>,
) -> Result<Json<AccountPlayer>, ApiError> {
    let player = state.accounts.player(bearer(&headers)?).await?;
    let NewName { name } = body(new)?;
    let name = parse_name(&name).map_err(|_| AccountError::BadName)?;
    if state.players.blocked_words(&name) {
        let message = "that name holds a word this server does not allow";
        return Err(ApiError::bad_request("blocked_words", message));
    }
    let key = name_key(&name);
    if state.players.is_claimed(&key) {
        return Err(AccountError::NameTaken.into());
    }
    let entry = NewLogEntry {
        at: now_ms(),
        actor: player.id.clone(),
        action: "pick_name".to_owned(),
        target: Some(player.id.clone()),
        reason: format!("now {name:?}"),
    };
    let picked = state.store.pick_name(&player.id, &name, &key, &entry).await.map_err(|error| {
        tracing::error!(%error, "a new name could not be kept");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "try again shortly")
    })?;
    if !picked {
        let message = "only a player whose name a moderator took away picks a new one here";
        return Err(ApiError::new(StatusCode::CONFLICT, "no_rename", message));
    }
    // Read again with the new name on every node, which no one else may take.
    state.players.revoke(Revocation::Claimed { player_id: player.id.clone(), name_key: key });
    Ok(Json(AccountPlayer { id: player.id, name }))
}
