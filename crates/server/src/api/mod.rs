//! The HTTP API under `/api`, one module per resource:
//! [`matches`](mod@matches) (the list, one match, its engine record),
//! [`replay`] (a match replayed hand by hand) with [`views`] (a stored
//! match as listed), [`export`] (EGN files),
//! [`import`] (EGN imports), [`tables`] (a table, open or closed), [`tournaments`],
//! [`players`] (profiles), [`puzzles`], [`leaderboard`], [`accounts`] (claiming a name,
//! changing the password), [`sessions`] (logging in and out), [`admin`]
//! (moderation's reads, for those with a role) and [`sanctions`] (its
//! actions); with
//! [`query`] for the list's filters and cursors, [`error`] for the
//! answers that go wrong, and [`limits`] for requests per address and
//! imports per account.
//!
//! The answers' types are the protocol's ([`euchre_protocol::api`]), with
//! their OpenAPI schemas (its `openapi` feature), so the clients read the
//! very declarations the server writes.
//!
//! Handlers are thin: each parses its input with a plain function here
//! ([`ListParams::to_query`], [`parse_import`]), asks the [`Store`] (typed
//! queries only, never SQL text), and converts the answer with another
//! ([`match_view`], [`import_writes`]). Errors are JSON `{code, message}`.
//!
//! Secrecy: a match in progress shows only what a spectator at the table
//! saw — up-cards, bids, plays, trick winners, scores. The deals (every hand
//! and the kitty) and the dealer's discard appear once the match is over,
//! and the engine record and the EGN of a match only then.
//!
//! The OpenAPI document comes from the same declarations that route the
//! requests ([`utoipa_axum`]), so the two cannot drift; it is served at
//! `/api/openapi.json` and checked in as `docs/openapi.json`.
//!
//! [`Store`]: euchre_store::Store
//! [`ListParams::to_query`]: query::ListParams::to_query

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::routing::get;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub mod accounts;
pub mod admin;
pub mod analysis;
pub mod error;
pub mod export;
pub mod import;
pub mod json;
pub mod leaderboard;
pub mod limits;
pub mod matches;
pub mod players;
pub mod puzzles;
pub mod query;
pub mod replay;
pub mod sanctions;
pub mod sessions;
pub mod tables;
pub mod tournaments;
pub mod views;

pub use error::{ApiError, ErrorBody, FindingBody};
pub use import::{IMPORT_LIMIT, IMPORT_TABLE, import_writes, parse_import};
pub use query::{decode_cursor, encode_cursor};
pub use replay::match_view;

/// The document's header; the paths and schemas come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Euchre server: match history and accounts",
        description = "Finished and running matches, their records and EGN, EGN imports, \
            players' records, and accounts: a guest claims its name with a password and logs in \
            with it anywhere. Requests for a player carry its guest or session token as \
            `Authorization: Bearer …`. Errors are JSON `{code, message}`; an EGN import refused by the \
            engine adds `location`, and `findings`: every finding in the file. Times are \
            milliseconds since the Unix epoch. Seats are numbered clockwise from 0: 0 to 3, or \
            to 2 or 1 in the three- and two-handed games. Scores come one per side: in the \
            four-handed game two partnerships (side 0 is seats 0 and 2, side 1 seats 1 and 3), \
            otherwise one per player (side i is seat i).",
        version = "1"
    ),
    tags(
        (name = "matches", description = "Match history"),
        (name = "players", description = "Players' profiles and the leaderboard"),
        (name = "accounts", description = "Claimed names, passwords and log-in sessions"),
        (name = "puzzles", description = "Puzzles from real hands: the next one, the day's one, \
            answers judged and rated, and each account's puzzle rating"),
        (name = "tournaments", description = "Swiss, knockout and progressive tournaments: \
            creating one, registering, the rounds and the standings"),
        (name = "moderation", description = "For moderators and admins: players' reports and \
            views, warnings, chat mutes, bans of accounts and addresses, renames, and the \
            moderation log")
    ),
    modifiers(&BearerToken)
)]
struct ApiDoc;

/// The `bearer` security scheme the account routes name: a guest's token or
/// a session's, as `hello` takes them.
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some("A guest's token (from `welcome`) or a session's (from a log-in)"))
            .build();
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// The API's routes together with their OpenAPI description.
fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(matches::list_matches))
        .routes(routes!(matches::get_match))
        .routes(routes!(matches::get_record))
        .routes(routes!(tables::get_table))
        .routes(routes!(analysis::get_analysis))
        .routes(routes!(export::get_egn))
        .routes(routes!(import::import_match))
        .routes(routes!(players::get_player))
        .routes(routes!(leaderboard::leaderboard))
        .routes(routes!(accounts::claim))
        .routes(routes!(accounts::change_password))
        .routes(routes!(accounts::delete_account))
        .routes(routes!(accounts::my_games))
        .routes(routes!(accounts::pick_name))
        .routes(routes!(sessions::log_in))
        .routes(routes!(sessions::log_out, sessions::current))
        .routes(routes!(admin::moderation_log))
        .routes(routes!(admin::open_reports))
        .routes(routes!(admin::close_report))
        .routes(routes!(admin::player_view))
        .routes(routes!(sanctions::warn))
        .routes(routes!(sanctions::mute))
        .routes(routes!(sanctions::unmute))
        .routes(routes!(sanctions::ban))
        .routes(routes!(sanctions::unban))
        .routes(routes!(sanctions::rename))
        .routes(routes!(sanctions::ban_address))
        .routes(routes!(sanctions::lift_address_ban))
        .routes(routes!(tournaments::list_tournaments, tournaments::create_tournament))
        .routes(routes!(tournaments::get_tournament))
        .routes(routes!(tournaments::register))
        .routes(routes!(tournaments::withdraw))
        .routes(routes!(tournaments::start_now))
        .routes(routes!(tournaments::pause))
        .routes(routes!(tournaments::resume))
        .routes(routes!(tournaments::cancel))
        .routes(routes!(tournaments::remove_player))
        .routes(routes!(tournaments::add_late))
        .routes(routes!(puzzles::next_puzzle))
        .routes(routes!(puzzles::daily_puzzle))
        .routes(routes!(puzzles::get_puzzle))
        .routes(routes!(puzzles::answer_puzzle))
        .routes(routes!(puzzles::player_puzzles))
}

/// The OpenAPI document of the routes [`routes()`] serves.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The history routes and `/api/openapi.json`, for the app's router, each
/// request counted against its address's rate (`limits::limit_requests`).
pub fn routes(state: AppState) -> Router<AppState> {
    let (router, document) = api().split_for_parts();
    // Rendered once, as the document never changes while the server runs.
    // It is plain data generated at compile time, so it always serializes.
    let document = Bytes::from(document.to_pretty_json().expect("the OpenAPI document serializes"));
    router
        .route(
            "/api/openapi.json",
            get(move || async move { ([(header::CONTENT_TYPE, "application/json")], document) }),
        )
        // Only the import has a body; this caps it before it is buffered.
        .layer(DefaultBodyLimit::max(IMPORT_LIMIT))
        .route_layer(axum::middleware::from_fn_with_state(state, limits::limit_requests))
}

#[cfg(test)]
mod testing;
