//! Accounts: a guest claims its name, an account changes its password.

use axum::Extension;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::sessions::{Credentials, SessionView, bearer, body};
use crate::client_address::ClientAddress;
use crate::state::AppState;

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
