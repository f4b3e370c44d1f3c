//! Moderators' actions under `/api/admin`: warn, mute chat, ban an account
//! or an address, lift them, rename. Each is stored with its line in the
//! moderation log in one transaction, then applied on every node: a ban
//! as a revocation (the player's connections close, `4004`), the rest as a
//! sanctions change (`crate::sanctions`).
//!
//! Nobody acts on a player whose role is as high as their own: a moderator
//! on no moderator or admin, an admin on no admin (the operator's command
//! line can). An address is banned for a week at most, and never the
//! address the moderator is using.

use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use euchre_protocol::api::{ActionDone, ActionRequest, AddressBanRequest};
use euchre_store::{Millis, NewLogEntry, PlayerRow, Role, Sanction};
use serde::de::DeserializeOwned;

use super::admin::{Staff, require, unavailable};
use super::error::{ApiError, ErrorBody};
use super::sessions::body;
use crate::client_address::ClientAddress;
use crate::clock::now_ms;
use crate::revocation::Revocation;
use crate::sanctions::{Change, MAX_ADDRESS_MINUTES, MAX_MINUTES, lasting};
use crate::state::AppState;
use crate::text::name_key;

/// A reason's length at most, in characters.
const REASON_CHARS: usize = 500;

/// The player a moderation path names: by account name (as log-ins compare
/// names), else by id.
pub(super) async fn find_player(
    state: &AppState,
    who: &str,
) -> Result<(PlayerRow, bool), ApiError> {
    let store = &state.store;
    if let Some(account) =
        store.account_by_name(&name_key(who)).await.map_err(|e| unavailable(e, "an account"))?
    {
        return Ok((account.player, true));
    }
    let not_found =
        || ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no player {who:?}"));
    if !super::query::valid_id(who) {
        return Err(not_found());
    }
    let stats = store.player_stats(who).await.map_err(|e| unavailable(e, "a player"))?;
    let player = stats.player.ok_or_else(not_found)?;
    let account =
        store.account_by_player(&player.id).await.map_err(|e| unavailable(e, "an account"))?;
    Ok((player, account.is_some()))
}

/// The player `who` names, if `staff` may act on them.
async fn target(state: &AppState, staff: &Staff, who: &str) -> Result<PlayerRow, ApiError> {
    let (player, _) = find_player(state, who).await?;
    let role = state.store.role_of(&player.id).await.map_err(|e| unavailable(e, "a role"))?;
    if role.is_some_and(|role| role >= staff.role) {
        let message = "a moderator acts on no moderator or admin, an admin on no admin";
        return Err(ApiError::new(StatusCode::FORBIDDEN, "protected", message));
    }
    Ok(player)
}

fn reason(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    if text.chars().count() > REASON_CHARS {
        return Err(ApiError::bad_request("bad_reason", "a reason is 500 characters at most"));
    }
    Ok(text.to_owned())
}

/// `minutes` from now, if 1 to `max`.
fn until(minutes: u32, max: u32) -> Result<Millis, ApiError> {
    if !(1..=max).contains(&minutes) {
        return Err(ApiError::bad_request("bad_duration", format!("minutes: 1 to {max}")));
    }
    Ok(now_ms() + i64::from(minutes) * 60_000)
}

fn entry(staff: &Staff, action: &str, target: Option<&str>, reason: String) -> NewLogEntry {
    NewLogEntry {
        at: now_ms(),
        actor: staff.id.clone(),
        action: action.to_owned(),
        target: target.map(str::to_owned),
        reason,
    }
}

async fn store(state: &AppState, sanction: &Sanction, entry: &NewLogEntry) -> Result<(), ApiError> {
    state.store.sanction(sanction, entry).await.map_err(|e| unavailable(e, "an action"))
}

fn done(action: &str) -> ActionDone {
    ActionDone { action: action.to_owned(), ..ActionDone::default() }
}

/// A moderator's action as every route begins it, in this order: the
/// role (`401`, `403 forbidden`), the body (`400 bad_body`), the player the
/// path names if any (`404 not_found`, `403 protected`), the reason
/// (`400 bad_reason`).
pub(super) struct Acting<R> {
    staff: Staff,
    request: R,
    reason: String,
}

/// An action on the player the path names, begun as [`Acting`] says.
pub(super) struct OnPlayer {
    acting: Acting<ActionRequest>,
    player: PlayerRow,
}

/// A request body with a moderator's reason in it.
trait Reasoned: DeserializeOwned {
    fn reason(&self) -> &str;
}

impl Reasoned for ActionRequest {
    fn reason(&self) -> &str {
        &self.reason
    }
}

impl Reasoned for AddressBanRequest {
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// The staff member behind the request and its body, reason not yet
/// checked; `who` (the path's player) is checked between the two.
async fn begin<R: Reasoned>(
    request: Request,
    state: &AppState,
) -> Result<(Staff, R, Option<PlayerRow>), ApiError> {
    let (mut parts, payload) = request.into_parts();
    let staff = require(state, &parts.headers, Role::Moderator).await?;
    let who = match Path::<String>::from_request_parts(&mut parts, state).await {
        Ok(Path(who)) => Some(who),
        Err(_) => None,
    };
    let read = Json::<R>::from_request(Request::from_parts(parts, payload), state).await;
    let body = body(read)?;
    let player = match who {
        Some(who) => Some(target(state, &staff, &who).await?),
        None => None,
    };
    Ok((staff, body, player))
}

impl<R: Reasoned + Send> FromRequest<AppState> for Acting<R> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let (staff, request, _) = begin::<R>(request, state).await?;
        let reason = reason(request.reason())?;
        Ok(Acting { staff, request, reason })
    }
}

impl FromRequest<AppState> for OnPlayer {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let (staff, request, player) = begin::<ActionRequest>(request, state).await?;
        let player = player.ok_or_else(|| ApiError::bad_request("bad_path", "no player named"))?;
        let reason = reason(&request.reason)?;
        Ok(OnPlayer { acting: Acting { staff, request, reason }, player })
    }
}

impl OnPlayer {
    fn id(&self) -> String {
        self.player.id.clone()
    }

    /// Stores `sanction` with its line in the log (`action`, `logged` as
    /// its reason), in one transaction.
    async fn record(
        &self,
        state: &AppState,
        sanction: &Sanction,
        action: &str,
        logged: String,
    ) -> Result<(), ApiError> {
        let entry = entry(&self.acting.staff, action, Some(&self.player.id), logged);
        store(state, sanction, &entry).await
    }
}

/// The answers a moderator's action on a player shares, beside its own
/// `200` and `400`.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)] // Describes the answers to the document; never built.
enum PlayerActionRefusals {
    #[response(status = 401, description = "`no_token`, `bad_token` or `session_expired`")]
    Unauthorized(ErrorBody),
    #[response(
        status = 403,
        description = "`forbidden`: not a moderator's or admin's account; `protected`: the \
            player's role is as high as yours"
    )]
    Forbidden(ErrorBody),
    #[response(status = 404, description = "`not_found`: no such player")]
    NotFound(ErrorBody),
    #[response(status = 503, description = "`unavailable`: the database did not answer")]
    Unavailable(ErrorBody),
}

/// The answers a moderator's action on an address shares, beside its own
/// `200` and `400`.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)] // Describes the answers to the document; never built.
enum AddressActionRefusals {
    #[response(status = 401, description = "`no_token`, `bad_token` or `session_expired`")]
    Unauthorized(ErrorBody),
    #[response(status = 403, description = "`forbidden`: not a moderator's or admin's account")]
    Forbidden(ErrorBody),
    #[response(status = 503, description = "`unavailable`: the database did not answer")]
    Unavailable(ErrorBody),
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/warn",
    tag = "moderation",
    summary = "Warn a player",
    description = "The reason is the warning's text: the player is shown it (a `warning` message) after their \
        next hello, and at each hello until they acknowledge it.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters) or an empty warning", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn warn(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let message = on.acting.reason.clone();
    if message.is_empty() {
        return Err(ApiError::bad_request("bad_reason", "a warning needs its text"));
    }
    let sanction = Sanction::Warn { player_id: on.id(), message: message.clone() };
    on.record(&state, &sanction, "warn", message).await?;
    state.players.sanctions().publish(Change::Warned { player_id: on.id() });
    Ok(Json(done("warn")))
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/mute",
    tag = "moderation",
    summary = "Mute a player's chat",
    description = "For `minutes`: every chat line of theirs is refused `chat_muted`, with the mute's end, on \
        every node at once.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters) or `bad_duration` (minutes missing or not 1 to 525,600)", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn mute(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let ends = until(on.acting.request.minutes.unwrap_or(0), MAX_MINUTES)?;
    let sanction = Sanction::MuteChat { player_id: on.id(), until: ends };
    on.record(&state, &sanction, "mute", lasting(Some(ends), &on.acting.reason)).await?;
    state.players.sanctions().publish(Change::Mute { player_id: on.id(), until: ends });
    Ok(Json(ActionDone { until: Some(ends), ..done("mute") }))
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/unmute",
    tag = "moderation",
    summary = "Lift a chat mute",
    description = "The player may chat again at once, on every node.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters)", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn unmute(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let sanction = Sanction::LiftMute { player_id: on.id() };
    on.record(&state, &sanction, "unmute", on.acting.reason.clone()).await?;
    state.players.sanctions().publish(Change::Unmute { player_id: on.id() });
    Ok(Json(done("unmute")))
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/ban",
    tag = "moderation",
    summary = "Ban a player",
    description = "For `minutes`, or for good without them. Within a second, on every node: the player's \
        connections close with code 4004 and a reason that says until when, they leave their tables \
        (a bot plays on; a rated game in progress is forfeited) and their quick-play request ends; \
        until then their hello, log-in and every request with their token are refused `banned`.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters) or `bad_duration` (minutes not 1 to 525,600)", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn ban(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let ends = on.acting.request.minutes.map(|minutes| until(minutes, MAX_MINUTES)).transpose()?;
    let sanction = Sanction::BanAccount { player_id: on.id(), until: ends };
    on.record(&state, &sanction, "ban", lasting(ends, &on.acting.reason)).await?;
    state.players.revoke(Revocation::Banned { player_id: on.id(), until: ends });
    Ok(Json(ActionDone { until: ends, ..done("ban") }))
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/unban",
    tag = "moderation",
    summary = "Lift a player's ban",
    description = "The player may log in and say hello again at once, on every node.",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters)", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn unban(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let sanction = Sanction::LiftAccountBan { player_id: on.id() };
    on.record(&state, &sanction, "unban", on.acting.reason.clone()).await?;
    state.players.sanctions().publish(Change::AccountUnban { player_id: on.id() });
    Ok(Json(done("unban")))
}

#[utoipa::path(
    post,
    path = "/api/admin/players/{who}/rename",
    tag = "moderation",
    summary = "Take a player's name away",
    description = "The player is renamed `Player-` and six random characters at once (an account logs in with \
        that name from then on), the old name (and any that looks the same) stays reserved: nobody \
        may take it. The player is told at their next hello, as a warning that names the new name \
        (`rename`: true), and may pick another once (`PUT /api/accounts/name`).",
    params(("who" = String, Path, description = "The player: an account's name, or a player id")),
    request_body = ActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters)", body = ErrorBody),
        PlayerActionRefusals,
    )
)]
pub(super) async fn rename(
    State(state): State<AppState>,
    on: OnPlayer,
) -> Result<Json<ActionDone>, ApiError> {
    let player = &on.player;
    let new_name = format!("Player-{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
    let (old_name_key, new_name_key) = (name_key(&player.name), name_key(&new_name));
    let notice = format!(
        "A moderator took the name {:?} away: you are {new_name} now, and an account logs in \
         with that name.",
        player.name
    );
    let sanction = Sanction::Rename {
        player_id: player.id.clone(),
        old_name: player.name.clone(),
        old_name_key: old_name_key.clone(),
        new_name: new_name.clone(),
        new_name_key: new_name_key.clone(),
        notice,
    };
    let logged = format!("was {:?}: {}", player.name, on.acting.reason);
    on.record(&state, &sanction, "rename", logged).await?;
    // The player's tokens are read again (with the new name), on every
    // node, and both names are nobody else's.
    for name_key in [old_name_key, new_name_key] {
        state.players.revoke(Revocation::Claimed { player_id: on.id(), name_key });
    }
    state.players.sanctions().publish(Change::Warned { player_id: on.id() });
    Ok(Json(ActionDone { name: Some(new_name), ..done("rename") }))
}

#[utoipa::path(
    post,
    path = "/api/admin/address-bans",
    tag = "moderation",
    summary = "Ban an address",
    description = "An IPv4 address, or an IPv6 /64, given as an address or as the keyed hash a player's view \
        shows, for `minutes` (a week at most): within a second every node refuses it at the door, \
        HTTP and WebSocket, `403 address_banned` with the ban's end, and closes the WebSockets \
        open from it (code 4004, with the end). Not your own address. Only the hash is stored.",
    request_body = AddressBanRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters), `bad_duration` (minutes missing or not 1 to 10,080), `bad_address` (neither or \
            both given, or not an address), `own_address`", body = ErrorBody),
        AddressActionRefusals,
    )
)]
pub(super) async fn ban_address(
    State(state): State<AppState>,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    acting: Acting<AddressBanRequest>,
) -> Result<Json<ActionDone>, ApiError> {
    let hash = address_hash(&state, &acting.request)?;
    if state.players.sanctions().address_hash(peer).as_deref() == Some(hash.as_str()) {
        let message = "that is the address you are using: you would lock yourself out";
        return Err(ApiError::bad_request("own_address", message));
    }
    let ends = until(acting.request.minutes.unwrap_or(0), MAX_ADDRESS_MINUTES)?;
    let sanction = Sanction::BanAddress { address_hash: hash.clone(), until: ends };
    let logged = format!("{hash} {}", lasting(Some(ends), &acting.reason));
    store(&state, &sanction, &entry(&acting.staff, "ban_address", None, logged)).await?;
    let change = Change::AddressBan { address_hash: hash.clone(), until: ends };
    state.players.sanctions().publish(change);
    Ok(Json(ActionDone { until: Some(ends), address_hash: Some(hash), ..done("ban_address") }))
}

#[utoipa::path(
    post,
    path = "/api/admin/address-bans/lift",
    tag = "moderation",
    summary = "Lift an address's ban",
    description = "Every node lets the address in again at once.",
    request_body = AddressBanRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Done, and logged", body = ActionDone),
        (status = 400, description = "`bad_body`, `bad_reason` (over 500 characters) or `bad_address` (neither or both given, or not an address)", body = ErrorBody),
        AddressActionRefusals,
    )
)]
pub(super) async fn lift_address_ban(
    State(state): State<AppState>,
    acting: Acting<AddressBanRequest>,
) -> Result<Json<ActionDone>, ApiError> {
    let hash = address_hash(&state, &acting.request)?;
    let sanction = Sanction::LiftAddressBan { address_hash: hash.clone() };
    let logged = format!("{hash}: {}", acting.reason);
    store(&state, &sanction, &entry(&acting.staff, "unban_address", None, logged)).await?;
    state.players.sanctions().publish(Change::AddressUnban { address_hash: hash.clone() });
    Ok(Json(ActionDone { address_hash: Some(hash), ..done("unban_address") }))
}

/// The keyed hash a request names: given, or of the address given.
fn address_hash(state: &AppState, request: &AddressBanRequest) -> Result<String, ApiError> {
    let bad = |message: &str| ApiError::bad_request("bad_address", message.to_owned());
    match (&request.address_hash, &request.address) {
        (Some(hash), None) => {
            let hex = hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit());
            if hex { Ok(hash.to_ascii_lowercase()) } else { Err(bad("not an address's hash")) }
        }
        (None, Some(address)) => {
            let address = crate::sanctions::parse_address(address)
                .ok_or_else(|| bad("an IPv4 address, or an IPv6 address or /64"))?;
            state.players.sanctions().address_hash(address).ok_or_else(|| bad("no key yet"))
        }
        _ => Err(bad("give address_hash or address, one of them")),
    }
}
