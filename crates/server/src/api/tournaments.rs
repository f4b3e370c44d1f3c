//! Tournaments (`/api/tournaments`): the list, one tournament with its
//! rounds and standings, and what players do before the start: an account
//! creates one; a player registers and withdraws. Reads come from the
//! store, where the director saves every change; the changes go to the
//! director ([`crate::tournaments`]).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use euchre_protocol::api::{
    LateEntries, NewTournament, TournamentCreated, TournamentList, TournamentView,
};

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use super::sessions::{bearer, body};
use euchre_store::{NewLogEntry, Role, Sanction};

use crate::state::AppState;
use crate::tournaments::{Organise, Refused, TournamentDoc, summary_view, tournament_view};

/// Tournaments a list shows at most.
const LISTED: u32 = 100;

fn refused(refused: Refused) -> ApiError {
    let status = match refused.code.as_str() {
        "bad_tournament" => StatusCode::BAD_REQUEST,
        "unavailable" => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::CONFLICT,
    };
    ApiError::new(status, &refused.code, refused.message)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no tournament {id}"))
}

fn readable(stored: &euchre_store::StoredTournament) -> Result<TournamentDoc, ApiError> {
    TournamentDoc::from_stored(stored).map_err(ApiError::corrupt)
}

#[utoipa::path(
    get,
    path = "/api/tournaments",
    tag = "tournaments",
    summary = "The listed tournaments",
    description = "Those registering, running and over, latest start first (at most 100). \
        A tournament by invite is not listed: its link (`/api/tournaments/{id}`) shows it.",
    responses((status = 200, description = "The tournaments", body = TournamentList))
)]
pub(super) async fn list_tournaments(
    State(state): State<AppState>,
) -> Result<Json<TournamentList>, ApiError> {
    let stored = state.store.listed_tournaments(LISTED).await.map_err(ApiError::store)?;
    let mut tournaments = Vec::with_capacity(stored.len());
    for row in &stored {
        // One that does not read is left out of the list, not the list out.
        if let Ok(doc) = TournamentDoc::from_stored(row) {
            tournaments.push(summary_view(&doc));
        }
    }
    Ok(Json(TournamentList { tournaments }))
}

#[utoipa::path(
    get,
    path = "/api/tournaments/{id}",
    tag = "tournaments",
    summary = "One tournament",
    description = "Its settings, its entries, every round (the tables and who sat where, each \
        table's games once over, the byes and those resting) and the standings \
        (docs/tournaments.md describes them for each format). A round's pairing follows from the \
        tournament's seed and the results before it: `euchre-tools tournament-verify` checks it.",
    params(("id" = String, Path, description = "The tournament id")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 404, description = "No such tournament (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TournamentView>, ApiError> {
    if !valid_id(&id) {
        return Err(not_found(&id));
    }
    // The director's, for one not over (the store follows the journal a
    // moment later); else the store's.
    let doc = match state.tournaments.current(&id).await {
        Some(doc) => doc,
        None => {
            let stored = state.store.tournament(&id).await.map_err(ApiError::store)?;
            readable(&stored.ok_or_else(|| not_found(&id))?)?
        }
    };
    // Replaying a record of many rounds is work: off the async workers.
    let view = tokio::task::spawn_blocking(move || tournament_view(&doc));
    Ok(Json(view.await.map_err(|error| ApiError::corrupt(error.to_string()))?))
}

#[utoipa::path(
    post,
    path = "/api/tournaments",
    tag = "tournaments",
    summary = "Create a tournament",
    description = "For an account (not a guest): a Swiss, knockout or progressive tournament of \
        a four-handed partnership preset, starting `starts_in_seconds` from now. Players register \
        until then; at the start the server pairs the first round, makes its tables and seats \
        everyone (a bot plays for a player not connected then, for that round). One account \
        organises at most 5 tournaments not over.",
    request_body = NewTournament,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = TournamentCreated),
        (status = 400, description = "`bad_tournament` (the message says what), or `bad_body`", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "`not_an_account`: guests do not organise", body = ErrorBody),
        (status = 409, description = "`too_many_tournaments`", body = ErrorBody),
        (status = 503, description = "`unavailable`: not saved, or (in a cluster) this node \
            owns no shard yet", body = ErrorBody),
    )
)]
pub(super) async fn create_tournament(
    State(state): State<AppState>,
    headers: HeaderMap,
    spec: Result<Json<NewTournament>, JsonRejection>,
) -> Result<(StatusCode, Json<TournamentCreated>), ApiError> {
    let organiser = state.accounts.account(bearer(&headers)?).await?;
    let spec = body(spec)?;
    let id = state.tournaments.create(organiser, spec).await.map_err(refused)?;
    Ok((StatusCode::CREATED, Json(TournamentCreated { id })))
}

#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/entries",
    tag = "tournaments",
    summary = "Register",
    description = "Registers the bearer's player (a guest or an account) until the start, with \
        their rating in the four-handed game (1500 unrated). Registering twice is no error.",
    params(("id" = String, Path, description = "The tournament id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Registered"),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 409, description = "`not_registering` (no such tournament taking entries) or \
            `tournament_full`", body = ErrorBody),
        (status = 503, description = "`unavailable`", body = ErrorBody),
    )
)]
pub(super) async fn register(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let player = state.accounts.player(bearer(&headers)?).await?;
    let rating = four_handed_rating(&state, &player.id).await;
    state.tournaments.register(&id, player, rating).await.map_err(refused)?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    delete,
    path = "/api/tournaments/{id}/entries/me",
    tag = "tournaments",
    summary = "Withdraw",
    description = "Withdraws the bearer's player until the start. Withdrawing when not \
        registered is no error.",
    params(("id" = String, Path, description = "The tournament id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 409, description = "`not_registering`: started, or no such tournament", body = ErrorBody),
        (status = 503, description = "`unavailable`", body = ErrorBody),
    )
)]
pub(super) async fn withdraw(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let player = state.accounts.player(bearer(&headers)?).await?;
    state.tournaments.withdraw(&id, &player.id).await.map_err(refused)?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/start",
    tag = "tournaments",
    summary = "Start now",
    description = "For its organiser: starts the tournament now, with those registered, rather \
        than at its time. Too few players (four, or two teams) cancel it, with the reason.",
    params(("id" = String, Path, description = "The tournament id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Started: round one is being seated"),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 409, description = "`not_organiser`, `not_registering` (started already, or \
            no such tournament) or `not_started` (cancelled: the message says why)", body = ErrorBody),
        (status = 503, description = "`unavailable`", body = ErrorBody),
    )
)]
pub(super) async fn start_now(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let player = state.accounts.player(bearer(&headers)?).await?;
    state.tournaments.start_now(&id, &player.id).await.map_err(refused)?;
    Ok(StatusCode::NO_CONTENT)
}

/// A route for one of the organiser's acts: the same handler each time,
/// with its own path and words in the OpenAPI document.
macro_rules! organiser_route {
    ($name:ident, $method:ident, $path:literal, $summary:literal, $description:literal, $act:expr) => {
        #[utoipa::path(
            $method,
            path = $path,
            tag = "tournaments",
            summary = $summary,
            description = $description,
            params(("id" = String, Path, description = "The tournament id")),
            security(("bearer" = [])),
            responses(
                (status = 204, description = "Done"),
                (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
                (status = 409, description = "`not_organiser`, or `not_running` (no such \
                    tournament, or it is over)", body = ErrorBody),
                (status = 503, description = "`unavailable`", body = ErrorBody),
            )
        )]
        pub(super) async fn $name(
            State(state): State<AppState>,
            Path(id): Path<String>,
            headers: HeaderMap,
        ) -> Result<StatusCode, ApiError> {
            act_on(&state, &id, &headers, $act).await
        }
    };
}

organiser_route!(
    pause,
    post,
    "/api/tournaments/{id}/pause",
    "Pause",
    "For its organiser: no next round is seated until resumed; the round in play is played to \
        its end and recorded.",
    Organise::Pause
);

organiser_route!(
    resume,
    post,
    "/api/tournaments/{id}/resume",
    "Resume",
    "For its organiser: the next round is seated again (at once if the round in play is over).",
    Organise::Resume
);

organiser_route!(
    cancel,
    post,
    "/api/tournaments/{id}/cancel",
    "Cancel",
    "For its organiser, or a moderator or admin (written to the moderation log when the \
        tournament is not theirs): the tournament is over, `cancelled`; no more rounds are \
        paired, and the tables in play finish as games.",
    Organise::Cancel
);

#[utoipa::path(
    delete,
    path = "/api/tournaments/{id}/entries/{player}",
    tag = "tournaments",
    summary = "Remove a player",
    description = "For its organiser, or a moderator or admin (written to the moderation log \
        when the tournament is not theirs): before the start, the player's entry goes; after it, the \
        player is out from the next round paired on (their results stand; in a Swiss or \
        knockout their team withdraws). A player withdrawing after the start is the same.",
    params(
        ("id" = String, Path, description = "The tournament id"),
        ("player" = String, Path, description = "The player's id"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 409, description = "`not_organiser`, `not_entered`, or `not_running` (no \
            such tournament, or it is over)", body = ErrorBody),
        (status = 503, description = "`unavailable`", body = ErrorBody),
    )
)]
pub(super) async fn remove_player(
    State(state): State<AppState>,
    Path((id, player_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    act_on(&state, &id, &headers, Organise::Remove { player_id }).await
}

/// An organiser's act; or a moderator's or admin's, who may cancel any
/// tournament and remove any player ([`Organise::moderated`]), each such
/// act on a tournament not theirs written to the moderation log.
async fn act_on(
    state: &AppState,
    id: &str,
    headers: &HeaderMap,
    act: Organise,
) -> Result<StatusCode, ApiError> {
    let player = state.accounts.player(bearer(headers)?).await?;
    let staff = act.moderated() && {
        let role = state.store.role_of(&player.id).await.map_err(ApiError::store)?;
        role.is_some_and(|role| role >= Role::Moderator)
    };
    if !staff {
        state.tournaments.organise(id, &player.id, act).await.map_err(refused)?;
        return Ok(StatusCode::NO_CONTENT);
    }
    let doc = state.tournaments.current(id).await.ok_or_else(|| refused(Refused::not_running()))?;
    let logged = (doc.organiser.id != player.id).then(|| {
        let (action, target) = match &act {
            Organise::Remove { player_id } => ("remove_from_tournament", player_id.clone()),
            _ => ("cancel_tournament", doc.organiser.id.clone()),
        };
        NewLogEntry {
            at: crate::clock::now_ms(),
            actor: player.id.clone(),
            action: action.to_owned(),
            target: Some(target),
            reason: format!("tournament \"{}\" ({id})", doc.spec.name),
        }
    });
    state.tournaments.moderate(id, &player.id, act).await.map_err(refused)?;
    if let Some(entry) = logged
        && let Err(error) = state.store.sanction(&Sanction::DoneElsewhere, &entry).await
    {
        // Done and saved by the director: a 503 would say otherwise.
        tracing::error!(%error, tournament = %id, action = %entry.action, "a moderator's act on a tournament was not logged");
    }
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/late",
    tag = "tournaments",
    summary = "Add late players",
    description = "For its organiser: adds players by id with their four-handed rating. Before \
        the start they are entries like any; after it, until round two is seated, late entries \
        who play from round two on no points: one or more in a progressive night, a team of two \
        in a Swiss, none in a knockout (its bracket is drawn at the start).",
    params(("id" = String, Path, description = "The tournament id")),
    request_body = LateEntries,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Added"),
        (status = 400, description = "`bad_body`", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 404, description = "`unknown_player`", body = ErrorBody),
        (status = 409, description = "`not_organiser`, `not_running`, `tournament_full` or \
            `late_entry_refused` (round two seated, a knockout, not a team of two, a player \
            entered already: the message says which)", body = ErrorBody),
        (status = 503, description = "`unavailable`", body = ErrorBody),
    )
)]
pub(super) async fn add_late(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    late: Result<Json<LateEntries>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let organiser = state.accounts.player(bearer(&headers)?).await?;
    let late = body(late)?;
    // Who asks is checked before whom they name (the director checks again).
    let doc = match state.tournaments.current(&id).await {
        None => return Err(refused(Refused::not_running())),
        Some(doc) if doc.organiser.id != organiser.id => {
            return Err(refused(Refused::not_organiser()));
        }
        Some(doc) => doc,
    };
    let mut players = Vec::with_capacity(late.players.len());
    for player_id in late.players.iter().take(MAX_LATE) {
        // One entered already is named as entered (the director refuses it).
        if let Some(entry) = doc.entry(player_id) {
            players.push((entry.player.clone(), entry.rating));
            continue;
        }
        let unknown = || {
            ApiError::new(StatusCode::NOT_FOUND, "unknown_player", format!("no player {player_id}"))
        };
        let stats = state.store.player_stats(player_id).await.map_err(ApiError::store)?;
        let row = stats.player.ok_or_else(unknown)?;
        let player = euchre_protocol::PlayerInfo { id: row.id, name: row.name };
        players.push((player.clone(), four_handed_rating(&state, &player.id).await));
    }
    let act = Organise::AddLate { players };
    state.tournaments.organise(&id, &organiser.id, act).await.map_err(refused)?;
    Ok(StatusCode::NO_CONTENT)
}

/// Late players added in one request at most.
const MAX_LATE: usize = 16;

/// A player's rating in the four-handed game, 1500 unrated: what they enter with.
async fn four_handed_rating(state: &AppState, player_id: &str) -> f64 {
    let ratings = state.store.player_ratings(player_id).await.unwrap_or_default();
    let form = euchre_engine::Preset::Standard.rules().form().name();
    ratings.iter().find(|r| r.form == form).map_or(1500.0, |r| r.rating.rating)
}
