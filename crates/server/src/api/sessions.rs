//! Log-in sessions: logging in with a name and password, logging out, and
//! the bearer token the other account requests carry.

use axum::Extension;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderMap, StatusCode, header};
use euchre_protocol::api::AccountPlayer;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use crate::accounts::{AccountError, Started};
use crate::client_address::ClientAddress;
use crate::state::AppState;

/// A name and password, to claim the name or to log in with it.
#[derive(Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 1 to 32 characters once normalised (NFKC); compared without regard
    /// to case or lookalike letters (see docs/protocol.md, "Names and chat").
    pub name: String,
    /// 8 to 128 characters.
    pub password: String,
}

// By hand, so the password never reaches a log.
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A session just started.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionView {
    pub player: AccountPlayer,
    /// The session's bearer token: send it as `Authorization: Bearer …` and
    /// as the `token` of the WebSocket's `hello`. Shown only here, once.
    pub token: String,
    /// When the session ends, in ms since the Unix epoch.
    pub expires_at: i64,
}

impl From<Started> for SessionView {
    fn from(started: Started) -> SessionView {
        SessionView {
            player: AccountPlayer { id: started.player.id, name: started.player.name },
            token: started.token,
            expires_at: started.expires_at,
        }
    }
}

/// `GET /api/sessions/current`: the session's account, and its role.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionAccount {
    pub player: AccountPlayer,
    /// `moderator` or `admin`; absent for an account without a role.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// The token of `Authorization: Bearer <token>`.
pub(super) fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|token| !token.is_empty())
        .ok_or_else(|| AccountError::NoToken.into())
}

/// The player whose token (a guest's or a session's) is the bearer token,
/// if any and valid: for what a player may see that others may not. A
/// missing or bad token is no error: the request is answered as anyone's.
pub(super) async fn viewer(state: &AppState, headers: &HeaderMap) -> Option<String> {
    let token = bearer(headers).ok()?;
    state.accounts.player(token).await.ok().map(|player| player.id)
}

/// A JSON body, or a `400 bad_body` answer saying what is wrong with it.
pub(super) fn body<T>(body: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    body.map(|Json(body)| body).map_err(|rejection| {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_body", rejection.body_text())
    })
}

#[utoipa::path(
    post,
    path = "/api/sessions",
    tag = "accounts",
    summary = "Log in",
    description = "Starts a session for the account with this name (compared without regard \
        to case) and password, on any device: the player keeps its id, so its history and \
        rating follow it. Only wrong passwords count, each against the address that gave it \
        (an IPv6 address by its /64): after 5 for one name (by default) that address waits 1 s \
        before its next try at it, then 2 s, 4 s and so on after each further wrong one, and \
        one address may get 60 wrong an hour across all names; meanwhile the answer is 429 \
        with `Retry-After`. A right password from an address that has not failed is never \
        refused for others' failures. A name or password of the wrong length is refused at \
        once, without a hash.",
    request_body = Credentials,
    responses(
        (status = 201, description = "Logged in", body = SessionView),
        (status = 400, description = "`bad_name` (not 1 to 32 characters), `weak_password` (not \
            8 to 128 characters) or `bad_body`", body = ErrorBody),
        (status = 401, description = "No account with that name and password (`bad_credentials`)", body = ErrorBody),
        (status = 403, description = "`banned`: a moderator banned the account; the message \
            says until when", body = ErrorBody),
        (status = 429, description = "Too many wrong passwords from this address (`rate_limited`)", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "Every password-hashing thread is busy (`busy`): try again \
            shortly", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    )
)]
pub(super) async fn log_in(
    State(state): State<AppState>,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    credentials: Result<Json<Credentials>, JsonRejection>,
) -> Result<(StatusCode, Json<SessionView>), ApiError> {
    let Credentials { name, password } = body(credentials)?;
    let started = state.accounts.log_in(peer, &name, &password).await?;
    state.players.seen_from(&started.player.id, peer);
    Ok((StatusCode::CREATED, Json(started.into())))
}

#[utoipa::path(
    delete,
    path = "/api/sessions/current",
    tag = "accounts",
    summary = "Log out",
    description = "Ends the session whose token is the bearer token: neither the HTTP API nor \
        the WebSocket's `hello` accepts it again, on any node, and the WebSocket connections \
        that said hello with it are closed with 4003. Logging out twice is no error.",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Logged out"),
        (status = 401, description = "No bearer token (`no_token`)", body = ErrorBody),
    )
)]
pub(super) async fn log_out(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    state.accounts.log_out(bearer(&headers)?).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    path = "/api/sessions/current",
    tag = "accounts",
    summary = "Your session's account",
    description = "The account the bearer token's session is for, and its role if it holds \
        one (`moderator` or `admin`): a client shows its moderation page only to them. Only \
        the account's own token says its role; nothing shows it to other players.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The session's account", body = SessionAccount),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`not_an_account` (a guest's token) or `banned`", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database did not answer", body = ErrorBody),
    )
)]
pub(super) async fn current(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<SessionAccount>, ApiError> {
    let player = state.accounts.account(bearer(&headers)?).await?;
    let role = state.store.role_of(&player.id).await.map_err(|error| {
        tracing::error!(%error, "a role could not be read");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "try again shortly")
    })?;
    Ok(Json(SessionAccount {
        player: AccountPlayer { id: player.id, name: player.name },
        role: role.map(|role| role.as_str().to_owned()),
    }))
}
