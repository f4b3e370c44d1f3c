//! Match history over HTTP: lists of matches, one match in full, its engine
//! record and its EGN, EGN imports, and a player's record.
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

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use euchre_engine::egn::{self, Location};
use euchre_engine::{
    Action, Card, CardSet, Commitment, DealCheck, Event, GameRecord, GameStart, Hand, HandOutcome,
    HandRecord, Rules, Salt, Suit, fairness,
};
use euchre_store::{
    Cursor, MatchDetail, MatchQuery, MatchSeat, MatchSummary, Millis, PlayerStats, StoreError,
    Write,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;
use crate::table::now_ms;

/// The largest EGN file `POST /api/matches/import` takes. Real records are
/// 2 to 25 KiB; a game to 255 points would still fit.
pub const IMPORT_LIMIT: usize = 1024 * 1024;

/// The `table_id` of an imported match: it was played at no table here.
pub const IMPORT_TABLE: &str = "import";

/// Matches per page unless `limit` says otherwise, and the most it may say.
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 100;

/// The document's header; the paths and schemas come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Euchre server: match history",
        description = "Finished and running matches, their records and EGN, EGN imports, and \
            players' records. Errors are JSON `{code, message}`; an EGN import refused by the \
            engine adds `location`, and `findings`: every finding in the file. Times are \
            milliseconds since the Unix epoch. Seats are numbered clockwise from 0: 0 to 3, or \
            to 2 or 1 in the three- and two-handed games. Scores come one per side: in the \
            four-handed game two partnerships (side 0 is seats 0 and 2, side 1 seats 1 and 3), \
            otherwise one per player (side i is seat i).",
        version = "1"
    ),
    tags(
        (name = "matches", description = "Match history"),
        (name = "players", description = "Players' records")
    )
)]
struct ApiDoc;

/// The API's routes together with their OpenAPI description.
fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(list_matches))
        .routes(routes!(get_match))
        .routes(routes!(get_record))
        .routes(routes!(get_egn))
        .routes(routes!(import_match))
        .routes(routes!(get_player))
}

/// The OpenAPI document of the routes [`routes()`] serves.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The history routes and `/api/openapi.json`, for the app's router.
pub fn routes() -> Router<AppState> {
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
}

// ---- Errors ----------------------------------------------------------------------

/// An error answer: the status and a JSON body.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
}

/// Every error's body.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A stable snake_case code: `bad_limit`, `not_found`, `must_follow_suit`, …
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
    /// For a refused EGN import: where in the file, as the engine names it
    /// (`deal` is an index into `deals`; `step` is `header`, `setup`, `call`
    /// with `index`, `discard`, `card` with `trick` and `card`, or `end`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub location: Option<Location>,
    /// For an EGN import the engine refused: every finding in the file, in
    /// its order (the first is also `code`, `message` and `location`). The
    /// engine reads the whole file, as a referee would, so one answer names
    /// every renege, damaged deal, wrong dealer and so on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<FindingBody>>,
}

/// One finding in a refused EGN import.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct FindingBody {
    /// `must_follow_suit`, `inconsistent_record`, `incomplete_deal`,
    /// `dealer_out_of_turn`, `repeated_deal`, `played_after_game_over`,
    /// `final_score_differs`, or another of the engine's codes.
    pub code: String,
    /// What is wrong, for people: a renege names the card and the holding
    /// that proves it.
    pub message: String,
    /// Where in the file, as `ErrorBody.location`.
    #[schema(value_type = Option<Object>)]
    pub location: Option<Location>,
}

impl From<&egn::Finding> for FindingBody {
    fn from(finding: &egn::Finding) -> FindingBody {
        FindingBody {
            code: finding.code().to_owned(),
            message: finding.to_string(),
            location: finding.location(),
        }
    }
}

impl ApiError {
    fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        let body = ErrorBody {
            code: code.to_owned(),
            message: message.into(),
            location: None,
            findings: None,
        };
        ApiError { status, body }
    }

    /// An EGN import refused for its findings: the first in the usual
    /// fields, all of them in `findings`.
    fn findings(findings: &[egn::Finding]) -> ApiError {
        let findings: Vec<FindingBody> = findings.iter().map(FindingBody::from).collect();
        let first = findings.first().cloned().unwrap_or_else(|| FindingBody {
            code: "invalid_egn".to_owned(),
            message: "the record was refused".to_owned(),
            location: None,
        });
        let mut error = ApiError::bad_request(&first.code, first.message).at(first.location);
        error.body.findings = Some(findings);
        error
    }

    fn bad_request(code: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn at(mut self, location: Option<Location>) -> ApiError {
        self.body.location = location;
        self
    }

    fn match_not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no match {id:?}"))
    }

    fn in_progress(id: &str) -> ApiError {
        let message = format!("match {id:?} is in progress: its record is public once it ends");
        ApiError::new(StatusCode::CONFLICT, "match_in_progress", message)
    }

    /// The store failed: the details go to the log, not to the client.
    fn store(error: StoreError) -> ApiError {
        tracing::error!(%error, "match history: the store failed");
        match error {
            StoreError::Database(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the database is not answering; try again shortly",
            ),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_error",
                "the stored history could not be read",
            ),
        }
    }

    /// A stored record the engine does not accept: corruption, not the client's fault.
    fn corrupt(what: String) -> ApiError {
        tracing::error!(problem = %what, "match history: a stored match does not replay");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "corrupt_record",
            "the stored match could not be replayed",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

// ---- Listing ---------------------------------------------------------------------

/// `won` or `lost`, from the `player`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchResult {
    Won,
    Lost,
}

/// The filters of `GET /api/matches`. Every value arrives as text and is
/// checked by [`ListParams::to_query`], so each mistake gets its own code.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Only matches this player (a player id) sat in.
    pub player: Option<String>,
    /// Only matches started at or after this time (ms since the Unix epoch).
    #[param(value_type = Option<i64>)]
    pub since: Option<String>,
    /// Only matches started before this time (ms since the Unix epoch).
    #[param(value_type = Option<i64>)]
    pub until: Option<String>,
    /// Only matches the `player`'s side won, or lost (needs `player`; a
    /// match in progress or abandoned is neither).
    #[param(value_type = Option<MatchResult>, inline)]
    pub result: Option<String>,
    /// `true`: only finished matches; `false` or absent: all.
    #[param(value_type = Option<bool>)]
    pub finished: Option<String>,
    /// Matches per page, 1 to 100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page. Opaque: pass it back as given.
    pub cursor: Option<String>,
}

impl ListParams {
    /// The store's query, or the first thing wrong with the parameters.
    pub fn to_query(&self) -> Result<MatchQuery, ApiError> {
        let time = |name: &str, value: &Option<String>| {
            value
                .as_deref()
                .map(|text| {
                    text.parse::<Millis>().map_err(|_| {
                        ApiError::bad_request(
                            "bad_time",
                            format!(
                                "{name} must be milliseconds since the Unix epoch, not {text:?}"
                            ),
                        )
                    })
                })
                .transpose()
        };
        let since = time("since", &self.since)?;
        let until = time("until", &self.until)?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            let message = format!("since ({since}) is after until ({until})");
            return Err(ApiError::bad_request("bad_time", message));
        }
        let player = match self.player.as_deref() {
            Some("") => return Err(ApiError::bad_request("bad_player", "player is empty")),
            other => other.map(str::to_owned),
        };
        let won = match self.result.as_deref() {
            None => None,
            Some("won") => Some(true),
            Some("lost") => Some(false),
            Some(other) => {
                let message = format!("result must be won or lost, not {other:?}");
                return Err(ApiError::bad_request("bad_result", message));
            }
        };
        if won.is_some() && player.is_none() {
            let message = "result needs player: won or lost from whose side?";
            return Err(ApiError::bad_request("result_needs_player", message));
        }
        let finished = match self.finished.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                let message = format!("finished must be true or false, not {other:?}");
                return Err(ApiError::bad_request("bad_finished", message));
            }
        };
        let limit = match self.limit.as_deref() {
            None => DEFAULT_LIMIT,
            Some(text) => text
                .parse::<u32>()
                .ok()
                .filter(|limit| (1..=MAX_LIMIT).contains(limit))
                .ok_or_else(|| {
                    let message = format!("limit must be 1 to {MAX_LIMIT}, not {text:?}");
                    ApiError::bad_request("bad_limit", message)
                })?,
        };
        let after = match self.cursor.as_deref() {
            None => None,
            Some(text) => Some(decode_cursor(text).ok_or_else(|| {
                let message = "cursor is not one this server gave: pass next_cursor back as given";
                ApiError::bad_request("bad_cursor", message)
            })?),
        };
        Ok(MatchQuery { player, since, until, won, finished, after, limit })
    }
}

/// A cursor as clients see it: `{started_at}.{id}`. Clients are told it is
/// opaque, so its form may change; it is checked on the way back in.
pub fn encode_cursor(cursor: &Cursor) -> String {
    format!("{}.{}", cursor.started_at, cursor.id)
}

/// The cursor `text` encodes, if it is well formed.
pub fn decode_cursor(text: &str) -> Option<Cursor> {
    let (started_at, id) = text.split_once('.')?;
    // Digits only: `parse` alone would also take a leading `+`.
    if started_at.is_empty() || !started_at.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let started_at = started_at.parse().ok()?;
    valid_id(id).then(|| Cursor { started_at, id: id.to_owned() })
}

/// Match ids are UUIDs; anything that could not be one is refused early.
fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// One page of matches, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchList {
    pub matches: Vec<MatchSummaryView>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A match as listed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchSummaryView {
    pub id: String,
    /// The table it was played at; `"import"` for an imported EGN record.
    pub table_id: String,
    /// The game's number at its table: 1, 2, … with rematches.
    pub number: u32,
    /// Imported from EGN rather than played here.
    pub imported: bool,
    /// The engine's rule options (`Rules`, every field named).
    #[schema(value_type = Object)]
    pub rules: Rules,
    pub seats: Vec<SeatView>,
    /// When it started and ended, in ms since the Unix epoch (an import:
    /// when it was imported).
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub finished: bool,
    /// Points so far (final once finished), one per side: four-handed,
    /// `[seats 0 and 2, seats 1 and 3]`; otherwise one per player, the
    /// index being the seat.
    pub scores: Vec<u16>,
    /// The winning side, an index into `scores` (of the rubber, when the
    /// match is one); `null` until the match is won.
    pub winner: Option<u8>,
    /// The seats that won: both partners, or the one player; empty until
    /// the match is won.
    pub winners: Vec<u8>,
    /// A rubber's games once it has ended (sheet 003); empty for a single
    /// game. While a rubber is in progress `scores` count across its games.
    pub rubber: Vec<RubberGameView>,
}

/// One game of a rubber.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RubberGameView {
    /// The side that won that game.
    pub winner: u8,
    /// Each side's points in that game, as `scores` in the summary.
    pub scores: Vec<u16>,
    /// 3 if the losers scored 0, 2 for 1 or 2, 1 for 3 or more.
    pub rubber_points: u8,
}

/// Who sat in a seat.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatView {
    pub seat: u8,
    /// The registered player, or `null` for a bot or an imported name.
    pub player_id: Option<String>,
    /// The bot's kind (`random`, `basic`), for a bot.
    pub bot: Option<String>,
    pub name: String,
}

impl From<&MatchSeat> for SeatView {
    fn from(seat: &MatchSeat) -> SeatView {
        SeatView {
            seat: seat.seat,
            player_id: seat.player_id.clone(),
            bot: seat.bot.clone(),
            name: seat.name.clone(),
        }
    }
}

impl From<&MatchSummary> for MatchSummaryView {
    fn from(summary: &MatchSummary) -> MatchSummaryView {
        MatchSummaryView {
            id: summary.id.clone(),
            table_id: summary.table_id.clone(),
            number: summary.number,
            imported: summary.table_id == IMPORT_TABLE,
            rules: summary.rules,
            seats: summary.seats.iter().map(SeatView::from).collect(),
            started_at: summary.started_at,
            ended_at: summary.ended_at,
            finished: summary.ended_at.is_some(),
            scores: summary.scores.clone(),
            winner: summary.winner,
            winners: summary.winners.clone(),
            rubber: summary
                .games
                .iter()
                .map(|game| RubberGameView {
                    winner: game.winner.0,
                    scores: game.scores.as_slice().to_vec(),
                    rubber_points: game.rubber_points,
                })
                .collect(),
        }
    }
}

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
async fn list_matches(
    State(state): State<AppState>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<MatchList>, ApiError> {
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let query = params.to_query()?;
    let page = state.store.list_matches(&query).await.map_err(ApiError::store)?;
    Ok(Json(MatchList {
        matches: page.matches.iter().map(MatchSummaryView::from).collect(),
        next_cursor: page.next.as_ref().map(encode_cursor),
    }))
}

// ---- One match ----------------------------------------------------------------------

/// A match in full: every hand, with the hidden cards once it is over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchView {
    #[serde(flatten)]
    pub summary: MatchSummaryView,
    /// Whether the deals and discards are shown: only once the match is over.
    pub cards_revealed: bool,
    /// Who dealt first.
    pub first_dealer: u8,
    pub hands: Vec<HandView>,
}

/// One hand: the public record always, the cards dealt once the match is over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct HandView {
    /// Counting from 0.
    pub number: u32,
    pub dealer: u8,
    #[schema(value_type = String, example = "Jh")]
    pub up_card: Card,
    /// Each seat's five cards as dealt, one hand per seat (four, three or
    /// two); `null` while the match is in progress.
    #[schema(value_type = Option<Vec<Vec<String>>>)]
    pub hands: Option<Vec<CardSet>>,
    /// The three-card dummy of the two- and three-handed games that have
    /// one, as dealt; `null` while the match is in progress, and in the
    /// games without a dummy.
    #[schema(value_type = Option<Vec<String>>)]
    pub dummy: Option<CardSet>,
    /// The face-down rest of the kitty; `null` while the match is in progress.
    #[schema(value_type = Option<Vec<String>>)]
    pub kitty: Option<CardSet>,
    /// Every action in order: bids, the discard, plays, claims, concessions.
    pub actions: Vec<ActionView>,
    /// The tricks as played; the last may be incomplete.
    pub tricks: Vec<TrickView>,
    /// How the hand ended (the engine's `HandOutcome`); `null` while it is played.
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<HandOutcome>,
    /// The match score after this hand, one per side as in the summary
    /// (in a rubber, the score of the game this hand belongs to).
    pub scores: Vec<u16>,
    /// The SHA-256 commitment to this deal that every seat was sent before
    /// the first bid (docs/security.md); `null` for a hand dealt before
    /// deals were sealed.
    #[schema(value_type = Option<String>, example = "3104dd3e8e0bbc6fb46da716e3ecec60b800a5ec67a7c6680d6b7c8e0db845ca")]
    pub commitment: Option<Commitment>,
    /// The salt that opens the commitment; `null` while the match is in
    /// progress. SHA-256 of `euchre-deal-v1:` + the deck (`hands` in seat
    /// order, `dummy`, `up_card`, `kitty`, each card as listed here, joined
    /// by commas) + `:` + `salt` is `commitment`.
    #[schema(value_type = Option<String>)]
    pub salt: Option<Salt>,
    /// The server's check of the above: `verified`, `mismatch` (the stored
    /// hand is not the one committed to), or `unsealed` (no commitment was
    /// made); `null` while the match is in progress.
    #[schema(value_type = Option<String>, example = "verified")]
    pub deal_check: Option<DealCheck>,
}

/// One action, as the engine names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ActionView {
    pub seat: u8,
    /// The engine's name for it: `pass`, `order_up`, `call`, `discard`,
    /// `play`, `claim`, `concede`, … (`Action::name`).
    pub action: String,
    /// For `order_up` and `call`: the maker goes alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone: Option<bool>,
    /// For `call`, and for `name_suit` (the suit a turned-up joker stands
    /// for): the suit named.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "hearts")]
    pub suit: Option<Suit>,
    /// For `play`; for `discard` and `pass_card` once the match is over
    /// (until then they are face down).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "9s")]
    pub card: Option<Card>,
}

impl ActionView {
    fn new(seat: u8, action: Action, revealed: bool) -> ActionView {
        let mut view = ActionView {
            seat,
            action: action.name().to_owned(),
            alone: None,
            suit: None,
            card: None,
        };
        match action {
            Action::OrderUp { alone } => view.alone = Some(alone),
            Action::Call { suit, alone } => (view.suit, view.alone) = (Some(suit), Some(alone)),
            Action::NameSuit { suit } => view.suit = Some(suit),
            Action::Play { card } => view.card = Some(card),
            Action::Discard { card } | Action::PassCard { card } if revealed => {
                view.card = Some(card)
            }
            // Any other card an action carries stays hidden: secrecy by default.
            _ => {}
        }
        view
    }
}

/// A trick: the cards in playing order (the first is the lead) and who won it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TrickView {
    pub plays: Vec<PlayView>,
    /// The seat that took it; `null` while it is being played.
    pub winner: Option<u8>,
}

/// One card played, and by whom.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayView {
    pub seat: u8,
    #[schema(value_type = String, example = "Jh")]
    pub card: Card,
}

/// Whether a match is over, so its hidden cards may be shown. The replayed
/// winner counts too: the last action and `MatchEnded` may be stored a
/// moment apart, and a won game hides nothing.
fn is_over(detail: &MatchDetail) -> bool {
    detail.summary.ended_at.is_some() || detail.record.winner.is_some()
}

/// The match as anyone may see it: everything once it is over, and until
/// then what a spectator at the table saw.
pub fn match_view(detail: &MatchDetail) -> Result<MatchView, String> {
    let revealed = is_over(detail);
    let record = &detail.record;
    let mut scores = vec![0u16; usize::from(record.rules.teams())];
    // A rubber's games, in order: when the running score reaches a game's
    // final score (it only grows within a game), the next game starts at 0.
    let mut games = record.games.iter().map(|game| game.scores.as_slice());
    let mut game_end = games.next();
    let mut hands = Vec::with_capacity(record.hands.len());
    for (number, hand) in record.hands.iter().enumerate() {
        hands.push(hand_view(&record.rules, number as u32, hand, revealed, &mut scores)?);
        if game_end == Some(&scores[..]) && number + 1 < record.hands.len() {
            scores.fill(0);
            game_end = games.next();
        }
    }
    Ok(MatchView {
        summary: MatchSummaryView::from(&detail.summary),
        cards_revealed: revealed,
        first_dealer: record.start.dealer.0,
        hands,
    })
}

/// One hand, replayed through the engine for its tricks; adds its points to `scores`.
fn hand_view(
    rules: &Rules,
    number: u32,
    hand: &HandRecord,
    revealed: bool,
    scores: &mut [u16],
) -> Result<HandView, String> {
    let deal = &hand.deal;
    let mut replay = Hand::new(*rules, *deal);
    let mut tricks: Vec<TrickView> = Vec::new();
    let mut plays = Vec::new();
    let mut events = Vec::new();
    for (index, step) in hand.actions.iter().enumerate() {
        events.clear();
        replay
            .apply_with(step.seat, step.action, &mut events)
            .map_err(|error| format!("hand {number}, action {index}: {error}"))?;
        for event in &events {
            match *event {
                Event::CardPlayed { seat, card } => plays.push(PlayView { seat: seat.0, card }),
                Event::TrickWon { seat, .. } => {
                    let plays = std::mem::take(&mut plays);
                    tricks.push(TrickView { plays, winner: Some(seat.0) });
                }
                _ => {}
            }
        }
    }
    if !plays.is_empty() {
        tricks.push(TrickView { plays, winner: None });
    }
    if let Some(outcome) = hand.outcome {
        for (score, points) in scores.iter_mut().zip(outcome.points().iter().flatten()) {
            *score = score.saturating_add(u16::from(*points));
        }
    }
    let actions = hand
        .actions
        .iter()
        .map(|step| ActionView::new(step.seat.0, step.action, revealed))
        .collect();
    Ok(HandView {
        number,
        dealer: deal.dealer.0,
        up_card: deal.up_card,
        hands: revealed
            .then(|| deal.hands.iter().take(usize::from(rules.players)).copied().collect()),
        dummy: (revealed && rules.dummy).then_some(deal.dummy),
        kitty: revealed.then_some(deal.kitty),
        actions,
        tricks,
        outcome: hand.outcome,
        scores: scores.to_vec(),
        commitment: hand.seal.map(|seal| seal.commitment),
        salt: hand.seal.filter(|_| revealed).map(|seal| seal.salt),
        deal_check: revealed.then(|| fairness::check(deal, hand.seal.as_ref())),
    })
}

/// The stored match `id`, or 404.
async fn load(state: &AppState, id: &str) -> Result<MatchDetail, ApiError> {
    if !valid_id(id) {
        return Err(ApiError::match_not_found(id));
    }
    state
        .store
        .get_match(id)
        .await
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::match_not_found(id))
}

#[utoipa::path(
    get,
    path = "/api/matches/{id}",
    tag = "matches",
    summary = "One match, every hand",
    description = "While the match is in progress only public information is shown: up-cards, \
        bids, plays, trick winners and scores; `hands`, `kitty` and the discard's `card` are \
        left out (`cards_revealed` is false). Once it is over, everything.",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The match", body = MatchView),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
    )
)]
async fn get_match(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<MatchView>, ApiError> {
    let detail = load(&state, &id).await?;
    match_view(&detail).map(Json).map_err(ApiError::corrupt)
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
async fn get_record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameRecord>, ApiError> {
    let detail = load(&state, &id).await?;
    if !is_over(&detail) {
        return Err(ApiError::in_progress(&id));
    }
    Ok(Json(detail.record))
}

#[utoipa::path(
    get,
    path = "/api/matches/{id}/egn",
    tag = "matches",
    summary = "A finished match as an EGN file",
    description = "Euchre Game Notation, as an attachment. EGN has no notation for claims \
        and concessions, so the rest of such a hand is written out as legal plays that give the \
        same tricks (the deal's `playAnnotations` say so). EGN cannot express a concession of \
        tricks no play could give away, farmer's hands, or scoring other than 1, 2 and 2 for a \
        made hand, a march and a euchre: such a match is refused with 422 \
        (`egn_inexpressible`).",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The EGN file", body = serde_json::Value,
            headers(("Content-Disposition" = String, description = "attachment; filename=…"))),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
        (status = 409, description = "The match is in progress (`match_in_progress`)", body = ErrorBody),
        (status = 422, description = "EGN cannot express this match (`egn_inexpressible`)", body = ErrorBody),
    )
)]
async fn get_egn(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (file, text) = egn_file(&load(&state, &id).await?)?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{file}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// A finished match as an EGN file: its name and its text.
fn egn_file(detail: &MatchDetail) -> Result<(String, String), ApiError> {
    let id = &detail.summary.id;
    if !is_over(detail) {
        return Err(ApiError::in_progress(id));
    }
    let names = names_in_joining_order(&detail.record.start, &detail.summary.seats)
        .map_err(ApiError::corrupt)?;
    let text = egn::write(&detail.record, &names).map_err(|error| match error {
        // A claim or concession that does not replay: the stored record is at fault.
        egn::WriteError::PlayOut { .. } => ApiError::corrupt(error.to_string()),
        error => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "egn_inexpressible", error.to_string())
        }
    })?;
    // The id is a stored one, but a header is no place to trust that.
    let safe: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    Ok((format!("match-{safe}.egn"), text))
}

/// The players' names in joining order, as `egn::write` wants them: the
/// record's seating puts player `seating[seat]` in `seat`.
fn names_in_joining_order(start: &GameStart, seats: &[MatchSeat]) -> Result<Vec<String>, String> {
    let mut names = vec![String::new(); start.seating.len()];
    for seat in seats {
        let player = start.seating.get(usize::from(seat.seat)).copied();
        let slot = player.and_then(|player| names.get_mut(usize::from(player)));
        *slot.ok_or_else(|| format!("seat {} is not in the seating", seat.seat))? =
            seat.name.clone();
    }
    Ok(names)
}

// ---- Import ----------------------------------------------------------------------

/// An imported match's id.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Imported {
    pub id: String,
}

/// Reads, verifies and converts an EGN file into an engine record, with the
/// players' names by seat. Refused: a file that is not EGN; a record with
/// findings (every step the engine rejects, every contradiction, a wrong
/// dealer, a repeated deal, deals after the game was won, a `finalScore` the
/// deals do not add up to: all of them, in `findings`); a game that starts
/// mid-way (the engine's record has no place for a starting score); and a
/// game nobody has won yet (only finished matches are imported).
pub fn parse_import(text: &str) -> Result<(GameRecord, Vec<String>), ApiError> {
    let refused = |code: &str, message: String, at| ApiError::bad_request(code, message).at(at);
    let game = egn::read(text).map_err(|e| refused(e.code(), e.to_string(), e.location()))?;
    let checked = egn::check(&game);
    if !checked.findings.is_empty() {
        return Err(ApiError::findings(&checked.findings));
    }
    let (record, _) =
        egn::to_record(&game).map_err(|e| refused(e.code(), e.to_string(), e.location()))?;
    if record.winner.is_none() {
        let message = format!(
            "the game stops at {:?}, before a side reaches {}: only finished games are imported",
            record.scores, record.rules.points_to_win
        );
        return Err(refused("unfinished_game", message, None));
    }
    Ok((record, game.players))
}

/// The writes that store `record` as the finished match `id`, as a table
/// would have written them. The seats hold the file's names, not registered
/// players or bots (`player_id` and `bot` are `None`); there is no table
/// event seq, so every action's `seq` is 0; all times are `at`.
pub fn import_writes(id: &str, record: &GameRecord, names: &[String], at: Millis) -> Vec<Write> {
    let seats = names
        .iter()
        .enumerate()
        .map(|(seat, name)| MatchSeat {
            seat: seat as u8,
            player_id: None,
            bot: None,
            name: name.clone(),
        })
        .collect();
    let mut writes = vec![Write::MatchStarted {
        id: id.to_owned(),
        table_id: IMPORT_TABLE.to_owned(),
        number: 1,
        rules: record.rules,
        seed: record.seed,
        start: record.start.clone(),
        seats,
        at,
    }];
    for (number, hand) in record.hands.iter().enumerate() {
        let number = number as u32;
        let (match_id, deal, seal) = (id.to_owned(), hand.deal, hand.seal);
        writes.push(Write::HandDealt { match_id, number, deal, seal });
        for (index, step) in hand.actions.iter().enumerate() {
            writes.push(Write::Action {
                match_id: id.to_owned(),
                hand: number,
                index: index as u32,
                seat: step.seat.0,
                action: step.action,
                seq: 0,
                at,
            });
        }
        if let Some(outcome) = hand.outcome {
            writes.push(Write::HandEnded { match_id: id.to_owned(), number, outcome, at });
        }
    }
    writes.push(Write::MatchEnded {
        match_id: id.to_owned(),
        scores: record.scores.as_slice().to_vec(),
        winner: record.winner.map(|team| team.0),
        at,
        games: record.games.clone(),
    });
    writes
}

#[utoipa::path(
    post,
    path = "/api/matches/import",
    tag = "matches",
    summary = "Import a finished game from EGN",
    description = "The body is an EGN file (at most 1 MiB). The engine replays every deal and \
        reads the whole file, as a referee would: a record with findings (reneges, with the \
        holding that proves them; deals that cannot be replayed; an incomplete deal; a wrong \
        dealer; a repeated deal; deals after the game was won) is refused with every finding in \
        `findings`, each with its code, message and `location`, the first also as the answer's \
        `code`, `message` and `location`. Refused too: \
        games that start mid-way (`starts_mid_game`: the engine's record always starts at 0 to \
        0), unfinished games (`unfinished_game`) and a `finalScore` the deals do not add up to \
        (`final_score_differs`). Seats take the file's player names, as guests (no player id). \
        Where the file gives no hands, the stored deal is the engine's reconstruction. The match \
        is durable when this answers and appears in the list a moment later.",
    request_body(content = serde_json::Value, description = "An EGN file", content_type = "application/json"),
    responses(
        (status = 201, description = "Imported", body = Imported,
            headers(("Location" = String, description = "/api/matches/{id}"))),
        (status = 400, description = "Not EGN, not legal, or not importable; `location` says where, `findings` lists every finding", body = ErrorBody),
        (status = 413, description = "Larger than 1 MiB (`too_large`)", body = ErrorBody),
        (status = 503, description = "The journal did not take it (`unavailable`)", body = ErrorBody),
    )
)]
async fn import_match(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body.map_err(|rejection| {
        let status = rejection.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_body" };
        ApiError::new(status, code, rejection.body_text())
    })?;
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::bad_request("not_utf8", "an EGN file is UTF-8 JSON"))?;
    let (record, names) = parse_import(text)?;
    let id = uuid::Uuid::now_v7().to_string();
    let writes = import_writes(&id, &record, &names, now_ms());
    state.recorder.record_and_wait(writes).await.map_err(|error| {
        tracing::error!(%error, "an import could not be journaled");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the import could not be stored",
        )
    })?;
    let location = HeaderValue::from_str(&format!("/api/matches/{id}"))
        .unwrap_or(HeaderValue::from_static("/api/matches"));
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(Imported { id })).into_response())
}

// ---- Players ---------------------------------------------------------------------

/// A player's record over finished matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct PlayerView {
    pub id: String,
    pub name: String,
    /// Finished matches played, and won by the player's side.
    pub played: u32,
    pub won: u32,
    /// Final points of the player's side, over those matches.
    pub points_for: u32,
    /// Final points of every other side, summed: in the three-handed games
    /// both opponents' points count.
    pub points_against: u32,
    /// Hands where the player's side euchred the makers (in the two- and
    /// three-handed games, each defender's).
    pub euchres_made: u32,
    /// Hands where the player's side made trump and was euchred.
    pub euchres_suffered: u32,
    /// Lone hands the player made, and those that took all five tricks.
    pub loners_tried: u32,
    pub loners_won: u32,
}

impl PlayerView {
    /// `None` when the player is unknown.
    fn new(stats: PlayerStats) -> Option<PlayerView> {
        let player = stats.player?;
        Some(PlayerView {
            id: player.id,
            name: player.name,
            played: stats.played,
            won: stats.won,
            points_for: stats.points_for,
            points_against: stats.points_against,
            euchres_made: stats.euchres_made,
            euchres_suffered: stats.euchres_suffered,
            loners_tried: stats.loners_tried,
            loners_won: stats.loners_won,
        })
    }
}

#[utoipa::path(
    get,
    path = "/api/players/{id}",
    tag = "players",
    summary = "A player's record",
    description = "Over finished matches only. Names in imported matches are not players.",
    params(("id" = String, Path, description = "The player id")),
    responses(
        (status = 200, description = "The player's record", body = PlayerView),
        (status = 404, description = "No such player (`not_found`)", body = ErrorBody),
    )
)]
async fn get_player(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PlayerView>, ApiError> {
    let not_found =
        || ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no player {id:?}"));
    if !valid_id(&id) {
        return Err(not_found());
    }
    let stats = state.store.player_stats(&id).await.map_err(ApiError::store)?;
    PlayerView::new(stats).map(Json).ok_or_else(not_found)
}

#[cfg(test)]
mod tests {
    use euchre_engine::{Game, Seat};

    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a shared fixture")
    }

    fn params(pairs: &[(&str, &str)]) -> ListParams {
        let query: String =
            pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        from_query(&query)
    }

    /// The parameters as the handler's `Query` extractor reads them.
    fn from_query(query: &str) -> ListParams {
        let uri: axum::http::Uri = format!("/api/matches?{query}").parse().expect("a uri");
        Query::<ListParams>::try_from_uri(&uri).expect("known parameters").0
    }

    fn code(result: Result<MatchQuery, ApiError>) -> String {
        result.expect_err("refused").body.code
    }

    #[test]
    fn list_parameters_become_a_typed_query() {
        let query = params(&[
            ("player", "p1"),
            ("since", "10"),
            ("until", "20"),
            ("result", "lost"),
            ("finished", "true"),
            ("limit", "5"),
            ("cursor", "15.0190-ab"),
        ])
        .to_query()
        .expect("valid");
        let after = Some(Cursor { started_at: 15, id: "0190-ab".into() });
        let expected = MatchQuery {
            player: Some("p1".into()),
            since: Some(10),
            until: Some(20),
            won: Some(false),
            finished: true,
            after,
            limit: 5,
        };
        assert_eq!(query, expected);
        let defaults = ListParams::default().to_query().expect("valid");
        assert_eq!((defaults.limit, defaults.finished, defaults.won), (DEFAULT_LIMIT, false, None));
    }

    #[test]
    fn the_suit_named_for_a_turned_up_joker_is_shown() {
        let named = ActionView::new(3, Action::NameSuit { suit: Suit::Hearts }, false);
        assert_eq!(
            (named.action.as_str(), named.suit, named.card),
            ("name_suit", Some(Suit::Hearts), None)
        );
    }

    #[test]
    fn each_bad_parameter_has_its_code() {
        for (pairs, expected) in [
            (&[("limit", "0")][..], "bad_limit"),
            (&[("limit", "101")], "bad_limit"),
            (&[("limit", "ten")], "bad_limit"),
            (&[("result", "draw"), ("player", "p")], "bad_result"),
            (&[("result", "won")], "result_needs_player"),
            (&[("finished", "yes")], "bad_finished"),
            (&[("since", "yesterday")], "bad_time"),
            (&[("since", "20"), ("until", "10")], "bad_time"),
            (&[("player", "")], "bad_player"),
            (&[("cursor", "nonsense")], "bad_cursor"),
        ] {
            assert_eq!(code(params(pairs).to_query()), expected, "{pairs:?}");
        }
        let uri: axum::http::Uri = "/api/matches?palyer=x".parse().expect("a uri");
        assert!(Query::<ListParams>::try_from_uri(&uri).is_err(), "a misspelt filter is refused");
    }

    #[test]
    fn cursors_round_trip_and_forgeries_are_refused() {
        let cursor = Cursor { started_at: 1_700_000_000_000, id: "0190b7c2-7c1e-7e36".into() };
        assert_eq!(decode_cursor(&encode_cursor(&cursor)), Some(cursor));
        for bad in ["", ".", "12.", ".abc", "+12.abc", "-1.abc", "12.a b", "12.a.b", "x.abc"] {
            assert_eq!(decode_cursor(bad), None, "{bad:?}");
        }
        let long = format!("1.{}", "a".repeat(65));
        assert_eq!(decode_cursor(&long), None);
    }

    /// A game of the default rules after a few actions: seat left of the
    /// dealer orders up, the dealer discards, and the first trick is under way.
    fn game_in_progress() -> Game {
        let mut game = Game::new(Rules::default(), 11).expect("default rules");
        for _ in 0..4 {
            let seat = game.turn().expect("in progress");
            let legal = game.legal_actions(seat);
            let action = legal
                .iter()
                .find(|a| matches!(a, Action::OrderUp { alone: false }))
                .or_else(|| legal.iter().find(|a| !matches!(a, Action::Concede | Action::Claim)))
                .expect("an action");
            game.apply(seat, *action).expect("legal");
        }
        game
    }

    fn detail(game: &Game, ended: bool) -> MatchDetail {
        let record = game.record().clone();
        let seats = (0..4)
            .map(|seat| MatchSeat { seat, player_id: None, bot: None, name: format!("P{seat}") })
            .collect();
        let summary = MatchSummary {
            id: "m".into(),
            table_id: "t".into(),
            number: 1,
            rules: record.rules,
            seats,
            started_at: 1,
            ended_at: ended.then_some(2),
            scores: record.scores.as_slice().to_vec(),
            winner: record.winner.map(|team| team.0),
            winners: record
                .winner
                .map(|team| (0..4).filter(|seat| seat % 2 == team.0).collect())
                .unwrap_or_default(),
            games: record.games.clone(),
        };
        MatchDetail { summary, record }
    }

    /// Every card code in a JSON value.
    fn cards_in(value: &serde_json::Value) -> CardSet {
        match value {
            serde_json::Value::String(text) => {
                text.parse::<Card>().map(CardSet::single).unwrap_or_default()
            }
            serde_json::Value::Array(items) => {
                items.iter().fold(CardSet::EMPTY, |set, item| set.union(cards_in(item)))
            }
            serde_json::Value::Object(map) => {
                map.values().fold(CardSet::EMPTY, |set, item| set.union(cards_in(item)))
            }
            _ => CardSet::EMPTY,
        }
    }

    #[test]
    fn a_match_in_progress_shows_only_public_cards() {
        let game = game_in_progress();
        let record = game.record();
        let discarded = record.hands[0].actions.iter().any(|a| a.action.name() == "discard");
        assert!(discarded, "the scenario has a discard");
        let view = match_view(&detail(&game, false)).expect("replays");
        assert!(!view.cards_revealed);
        let hand = &view.hands[0];
        assert_eq!((&hand.hands, hand.dummy, hand.kitty), (&None, None, None));
        let discard = hand.actions.iter().find(|a| a.action == "discard").expect("a discard");
        assert_eq!(discard.card, None);
        // What anybody at the table saw: the up-card and the cards played.
        let mut public = CardSet::single(hand.up_card);
        for step in &record.hands[0].actions {
            if let Action::Play { card } = step.action {
                public.insert(card);
            }
        }
        let json = serde_json::to_value(&view).expect("serializes");
        assert_eq!(cards_in(&json).difference(public), CardSet::EMPTY, "{json:#}");
        assert!(!hand.tricks.is_empty() && hand.tricks[0].winner.is_none());
    }

    #[test]
    fn a_finished_match_shows_everything() {
        let mut game = game_in_progress();
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            // Making trump whenever possible, so the game moves on.
            let action = legal
                .iter()
                .find(|a| !matches!(a, Action::Concede | Action::Pass))
                .unwrap_or(&Action::Pass);
            game.apply(seat, *action).expect("legal");
        }
        let view = match_view(&detail(&game, true)).expect("replays");
        assert!(view.cards_revealed);
        let record = game.record();
        assert_eq!(view.hands.len(), record.hands.len());
        for (shown, hand) in view.hands.iter().zip(&record.hands) {
            assert_eq!(shown.hands, Some(hand.deal.hands.to_vec()));
            assert_eq!(shown.dummy, None, "no dummy in the four-handed game");
            assert_eq!(shown.kitty, Some(hand.deal.kitty));
            let discard = hand.actions.iter().find_map(|a| match a.action {
                Action::Discard { card } => Some(card),
                _ => None,
            });
            let shown_discard = shown.actions.iter().find(|a| a.action == "discard");
            assert_eq!(shown_discard.and_then(|a| a.card), discard);
            // Played out to the end, the tricks' winners make the outcome's count.
            let claimed = hand.actions.iter().any(|a| a.action == Action::Claim);
            if let (Some(HandOutcome::Played(played)), false) = (hand.outcome, claimed) {
                let mut tricks = [0u8; 2];
                for winner in shown.tricks.iter().filter_map(|t| t.winner) {
                    tricks[usize::from(winner % 2)] += 1;
                }
                assert_eq!(played.tricks, tricks);
            }
        }
        let last = view.hands.last().expect("hands");
        assert_eq!(record.scores.as_slice(), last.scores);
    }

    #[test]
    fn each_hand_reports_whether_its_deal_opens_its_commitment() {
        // A game sealed hand by hand, as a table seals it.
        let mut game = Game::new(Rules::default(), 5).expect("default rules");
        let salt = |hand: u32| Salt([hand as u8 + 1; 32]);
        game.seal_hand(salt(0));
        while let Some(seat) = game.turn() {
            let hand = game.hand_number();
            let legal = game.legal_actions(seat);
            let action = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
            game.apply(seat, *action.unwrap_or(&Action::Pass)).expect("legal");
            if game.hand_number() != hand {
                game.seal_hand(salt(game.hand_number()));
            }
        }
        let finished = detail(&game, true);
        let view = match_view(&finished).expect("replays");
        for (shown, hand) in view.hands.iter().zip(&finished.record.hands) {
            assert_eq!(shown.deal_check, Some(DealCheck::Verified));
            assert_eq!(shown.commitment, hand.seal.map(|seal| seal.commitment));
            assert_eq!(shown.salt, hand.seal.map(|seal| seal.salt));
        }
        // In progress: the commitments (everybody was sent them), no salt, no check.
        let mut running = detail(&game, false);
        running.record.winner = None;
        for shown in match_view(&running).expect("replays").hands {
            assert!(shown.commitment.is_some());
            assert_eq!((shown.salt, shown.deal_check), (None, None));
        }
        // A stored salt altered after the fact: that hand no longer checks.
        let mut tampered = finished.clone();
        if let Some(seal) = &mut tampered.record.hands[1].seal {
            seal.salt.0[0] ^= 1;
        }
        let checks: Vec<_> = match_view(&tampered)
            .expect("replays")
            .hands
            .iter()
            .map(|hand| hand.deal_check)
            .collect();
        assert_eq!(checks[1], Some(DealCheck::Mismatch));
        assert!(checks.iter().enumerate().all(|(n, c)| n == 1 || *c == Some(DealCheck::Verified)));
        // Hands dealt before deals were sealed say so.
        let mut old = finished;
        old.record.hands.iter_mut().for_each(|hand| hand.seal = None);
        let old = match_view(&old).expect("replays");
        assert!(old.hands.iter().all(|h| h.deal_check == Some(DealCheck::Unsealed)));
    }

    #[test]
    fn finished_matches_export_as_egn_when_egn_can_say_it() {
        let mut game = game_in_progress();
        let in_progress = egn_file(&detail(&game, false)).expect_err("in progress");
        assert_eq!(
            (in_progress.status, in_progress.body.code.as_str()),
            (StatusCode::CONFLICT, "match_in_progress")
        );
        let with_claim = {
            let mut game = game.clone();
            while let Some(seat) = game.turn() {
                let legal = game.legal_actions(seat);
                let claim = legal.iter().find(|a| **a == Action::Claim);
                let other = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
                let action = claim.or(other).unwrap_or(&Action::Pass);
                game.apply(seat, *action).expect("legal");
            }
            game
        };
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            let action = legal
                .iter()
                .find(|a| !matches!(a, Action::Concede | Action::Claim | Action::Pass))
                .unwrap_or(&Action::Pass);
            game.apply(seat, *action).expect("legal");
        }
        let (name, text) = egn_file(&detail(&game, true)).expect("expressible");
        assert_eq!(name, "match-m.egn");
        let read = egn::read(&text).expect("EGN");
        assert_eq!(read.players, ["P0", "P1", "P2", "P3"]);
        assert_eq!(egn::verify(&read).expect("legal").final_score, game.scores());

        let claimed = with_claim
            .record()
            .hands
            .iter()
            .flat_map(|h| &h.actions)
            .any(|a| a.action == Action::Claim);
        assert!(claimed, "the scenario has a claim");
        // A claim is written out as plays, and the file imports to the same score.
        let (_, text) = egn_file(&detail(&with_claim, true)).expect("a claim is expressible");
        let (record, _) = parse_import(&text).expect("importable");
        assert_eq!((record.scores, record.winner), (with_claim.scores(), with_claim.winner()));

        // A farmer's hand is not.
        let rules = Rules { farmers_hand: true, ..Rules::default() };
        let farmers = (0..200)
            .find_map(|seed| {
                let mut game = Game::new(rules, seed).expect("valid rules");
                while let Some(seat) = game.turn() {
                    let legal = game.legal_actions(seat);
                    let farmers = legal.iter().find(|a| **a == Action::FarmersHand);
                    let other = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
                    game.apply(seat, *farmers.or(other).unwrap_or(&Action::Pass)).expect("legal");
                }
                let steps = game.record().hands.iter().flat_map(|h| &h.actions);
                steps.clone().any(|a| a.action == Action::FarmersHand).then_some(game)
            })
            .expect("a farmer's hand within 200 games");
        let refused = egn_file(&detail(&farmers, true)).expect_err("a farmer's hand");
        assert_eq!(
            (refused.status, refused.body.code.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "egn_inexpressible")
        );
    }

    #[test]
    fn egn_names_follow_the_seating() {
        let start = GameStart { dealer: Seat(0), seating: [2, 0, 3, 1], shown: Vec::new() };
        let seats: Vec<MatchSeat> = ["S0", "S1", "S2", "S3"]
            .iter()
            .enumerate()
            .map(|(seat, name)| MatchSeat {
                seat: seat as u8,
                player_id: None,
                bot: None,
                name: (*name).to_owned(),
            })
            .collect();
        let names = names_in_joining_order(&start, &seats).expect("a permutation");
        // Player 2 sits in seat 0, so the third name is seat 0's.
        assert_eq!(names, ["S1", "S3", "S0", "S2"]);
        let bad = MatchSeat { seat: 9, ..seats[0].clone() };
        assert!(names_in_joining_order(&start, &[bad]).is_err());
    }

    #[test]
    fn imports_keep_every_step_and_refuse_what_a_match_cannot_be() {
        let (record, names) = parse_import(&fixture("MotE_W5_G1")).expect("importable");
        assert_eq!((record.scores.as_slice(), record.winner.map(|t| t.0)), (&[10, 3][..], Some(0)));
        let writes = import_writes("m1", &record, &names, 5);
        assert!(matches!(&writes[0], Write::MatchStarted { table_id, seats, .. }
            if table_id == IMPORT_TABLE && seats.iter().all(|s| s.player_id.is_none() && s.bot.is_none())));
        assert!(matches!(
            writes.last(),
            Some(Write::MatchEnded { scores, winner: Some(0), .. }) if scores == &[10, 3]
        ));
        let actions = writes.iter().filter(|w| matches!(w, Write::Action { .. })).count();
        let expected: usize = record.hands.iter().map(|h| h.actions.len()).sum();
        assert_eq!(actions, expected);
        let ended = writes.iter().filter(|w| matches!(w, Write::HandEnded { .. })).count();
        assert_eq!(ended, record.hands.len());

        let refusal = |text: &str| parse_import(text).expect_err("refused").body;
        let mid_game = refusal(&fixture("Six_Points_in_Two_Hands"));
        assert_eq!(mid_game.code, "starts_mid_game");
        assert!(mid_game.location.is_some());
        assert_eq!(refusal(&fixture("Custom_Scenario")).code, "unfinished_game");
        assert_eq!(refusal("{").code, "not_json");
        assert_eq!(refusal("{\"fileType\": \"PGN\"}").code, "not_egn");
        assert_eq!(refusal("{").findings, None);

        // A record with several findings: all of them, the first also on top.
        let mut file: serde_json::Value =
            serde_json::from_str(&fixture("MotE_W5_G1")).expect("JSON");
        let deals = file["deals"].as_array_mut().expect("deals");
        let repeated = deals[2].clone();
        deals.insert(3, repeated);
        file["metadata"]["finalScore"] = serde_json::json!([10, 4]);
        let refused = refusal(&file.to_string());
        let findings = refused.findings.expect("findings");
        let codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["repeated_deal", "final_score_differs"]);
        assert_eq!(
            (refused.code.as_str(), refused.location),
            ("repeated_deal", findings[0].location)
        );
    }
}
