//! The HTTP API's typed client (docs/openapi.json): GETs of the match
//! history, a match in full, its engine record and its analysis, a table,
//! a player's profile, the leaderboard and `/readyz`; puzzles (the next,
//! the day's, an answer judged); tournaments (the list, one in full,
//! registering and withdrawing with the player's token), each answer read as
//! the protocol's own type ([`euchre_protocol::api`]), the very declaration
//! the server writes.
//!
//! The API is found from the server's WebSocket address (`ws://host:port/ws`
//! or `wss://…`; an `http://` or `https://` base works too). Over https the
//! server is checked against Mozilla's roots, built in as for `wss://`
//! (reqwest on rustls with ring and webpki-roots: no system certificates),
//! or against only the authorities a caller names ([`Roots::Only`]).
//!
//! ```no_run
//! use euchre_client::{HttpClient, MatchQuery};
//!
//! # async fn history() -> Result<(), euchre_client::HttpError> {
//! let api = HttpClient::new("wss://euchre.example.org/ws")?;
//! let query = MatchQuery { player: Some("a-player-id".into()), ..MatchQuery::default() };
//! for row in api.matches(&query).await?.matches {
//!     println!("{} {:?}", row.id, row.scores);
//! }
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use euchre_engine::Action;
use euchre_engine::GameRecord;
use euchre_protocol::api::{
    ErrorBody, GameAnalysis, Leaderboard, MatchList, MatchView, NewTournament, PlayerView,
    PuzzleAnswer, PuzzleVerdict, PuzzleView, Readiness, TableView, TournamentCreated,
    TournamentList, TournamentView,
};
use reqwest::header::RETRY_AFTER;
use reqwest::{Certificate, Method, StatusCode, Url};
use serde::de::DeserializeOwned;

/// How long a request may take, unless [`HttpClient::with_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The certificate authorities an https server is checked against.
#[derive(Clone, Debug, Default)]
pub enum Roots {
    /// Mozilla's, built in (webpki-roots), as `wss://` has them.
    #[default]
    Mozilla,
    /// Only these, as PEM: one certificate or several (a test's own authority).
    Only(Vec<u8>),
}

/// The filters of `GET /api/matches` a client sets; the server's defaults
/// for the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchQuery {
    /// Only the matches this player (a player id) sat in.
    pub player: Option<String>,
    /// Only finished matches.
    pub finished: bool,
    /// Matches per page, 1 to 100 (the server's default: 20).
    pub limit: Option<u32>,
    /// Where the page starts: the previous page's `next_cursor`.
    pub cursor: Option<String>,
}

/// A match's analysis, or the word that it is coming.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisAnswer {
    Ready(Box<GameAnalysis>),
    /// Being computed (202), or the server is too busy to take it now
    /// (503: `analysis_busy` when too many are queued): ask again after
    /// `retry_after`, the server's `Retry-After` if it gave one.
    Pending {
        retry_after: Option<Duration>,
    },
}

/// Why a request to the HTTP API failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Not a ws://, wss://, http:// or https:// address with a host.
    #[error("{address} is not a ws:// or wss:// address: {reason}")]
    BadAddress { address: String, reason: String },
    /// The authorities of [`Roots::Only`] are not PEM certificates, or the
    /// client could not be built with them.
    #[error("cannot set up the HTTP client: {0}")]
    Setup(#[source] reqwest::Error),
    /// No connection to the server (http).
    #[error("cannot reach the server: {reason}")]
    Unreachable {
        reason: String,
        #[source]
        source: reqwest::Error,
    },
    /// No connection, or no secure one, to an https server: unreachable, or
    /// its certificate is not vouched for by the roots.
    #[error("no secure connection to {host}: {reason}")]
    Insecure {
        host: String,
        reason: String,
        #[source]
        source: reqwest::Error,
    },
    /// No whole answer within the client's timeout.
    #[error("the server did not answer in time")]
    Timeout,
    /// The request failed otherwise (the connection dropped mid-answer, say).
    #[error("the request failed: {reason}")]
    Request {
        reason: String,
        #[source]
        source: reqwest::Error,
    },
    /// The server answered with an error: its status, its `{code, message}`
    /// (when the answer had one) and its `Retry-After`.
    #[error("{}", refusal_text(*.status, .body.as_deref()))]
    Refused { status: u16, body: Option<Box<ErrorBody>>, retry_after: Option<Duration> },
    /// The answer is not the JSON this path answers with.
    #[error("GET {path}: not the answer expected: {source}")]
    Unreadable {
        path: String,
        #[source]
        source: serde_json::Error,
    },
}

impl HttpError {
    /// The API's code (`not_found`, `match_in_progress`, …), for an error answer.
    pub fn code(&self) -> Option<&str> {
        match self {
            HttpError::Refused { body: Some(body), .. } => Some(&body.code),
            _ => None,
        }
    }

    /// The HTTP status, for an error answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// What an error answer says, for people: its message, else its status.
fn refusal_text(status: u16, body: Option<&ErrorBody>) -> String {
    match body {
        Some(body) => body.message.clone(),
        None => format!("HTTP {status}"),
    }
}

/// The innermost cause's words: reqwest's own ("error sending request")
/// say little, the cause (refused, an unknown issuer) says what happened.
fn reason(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// A client of one server's HTTP API. Cheap to clone: clones share their
/// connections.
#[derive(Clone, Debug)]
pub struct HttpClient {
    /// `http(s)://host:port/`.
    base: Url,
    http: reqwest::Client,
    timeout: Duration,
}

impl HttpClient {
    /// The API of the server at `server` (its WebSocket address, or an
    /// http(s) base), checked over https against Mozilla's roots.
    pub fn new(server: &str) -> Result<HttpClient, HttpError> {
        HttpClient::with_roots(server, Roots::Mozilla)
    }

    /// [`HttpClient::new`], checking an https server against `roots`.
    pub fn with_roots(server: &str, roots: Roots) -> Result<HttpClient, HttpError> {
        let base = base_url(server)?;
        // The servers are ours, reached directly as the WebSocket is: no proxy.
        let mut builder = reqwest::Client::builder().no_proxy();
        if let Roots::Only(pem) = roots {
            builder = builder.tls_built_in_root_certs(false);
            for authority in Certificate::from_pem_bundle(&pem).map_err(HttpError::Setup)? {
                builder = builder.add_root_certificate(authority);
            }
        }
        let http = builder.build().map_err(HttpError::Setup)?;
        Ok(HttpClient { base, http, timeout: DEFAULT_TIMEOUT })
    }

    /// With `timeout` for each request, connecting included.
    pub fn with_timeout(mut self, timeout: Duration) -> HttpClient {
        self.timeout = timeout;
        self
    }

    /// `http(s)://host:port/`, where the API is.
    pub fn base(&self) -> &str {
        self.base.as_str()
    }

    /// A page of matches, newest first (`GET /api/matches`).
    pub async fn matches(&self, query: &MatchQuery) -> Result<MatchList, HttpError> {
        let mut url = self.url(&["api", "matches"]);
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(player) = &query.player {
                pairs.append_pair("player", player);
            }
            if query.finished {
                pairs.append_pair("finished", "true");
            }
            if let Some(limit) = query.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
            if let Some(cursor) = &query.cursor {
                pairs.append_pair("cursor", cursor);
            }
        }
        self.get_json(url).await
    }

    /// One match, every hand (`GET /api/matches/{id}`): as a spectator saw
    /// it while in progress, everything once over.
    pub async fn match_view(&self, id: &str) -> Result<MatchView, HttpError> {
        self.get_json(self.url(&["api", "matches", id])).await
    }

    /// A finished match as the engine's record (`GET /api/matches/{id}/record`).
    pub async fn record(&self, id: &str) -> Result<GameRecord, HttpError> {
        self.get_json(self.url(&["api", "matches", id, "record"])).await
    }

    /// A finished match's analysis (`GET /api/matches/{id}/analysis`), or
    /// that it is being computed: asking starts it.
    pub async fn analysis(&self, id: &str) -> Result<AnalysisAnswer, HttpError> {
        let url = self.url(&["api", "matches", id, "analysis"]);
        let path = url.path().to_owned();
        let response = self.send(url).await?;
        let status = response.status();
        if status == StatusCode::ACCEPTED || status == StatusCode::SERVICE_UNAVAILABLE {
            return Ok(AnalysisAnswer::Pending { retry_after: retry_after(&response) });
        }
        read(response, &path).await.map(|analysis| AnalysisAnswer::Ready(Box::new(analysis)))
    }

    /// A table by its id, open or closed (`GET /api/tables/{id}`).
    pub async fn table(&self, id: &str) -> Result<TableView, HttpError> {
        self.get_json(self.url(&["api", "tables", id])).await
    }

    /// A player's profile (`GET /api/players/{id}`).
    pub async fn player(&self, id: &str) -> Result<PlayerView, HttpError> {
        self.get_json(self.url(&["api", "players", id])).await
    }

    /// A page of a game form's leaderboard (`GET /api/leaderboard`): the
    /// form by name (`partnership` by default), and where the page starts.
    pub async fn leaderboard(
        &self,
        form: Option<&str>,
        limit: Option<u32>,
        offset: Option<u32>,
    ) -> Result<Leaderboard, HttpError> {
        let mut url = self.url(&["api", "leaderboard"]);
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(form) = form {
                pairs.append_pair("form", form);
            }
            if let Some(limit) = limit {
                pairs.append_pair("limit", &limit.to_string());
            }
            if let Some(offset) = offset {
                pairs.append_pair("offset", &offset.to_string());
            }
        }
        self.get_json(url).await
    }

    /// Whether the server is ready (`GET /readyz`), answered when it is
    /// not (503) too: the database's state and the journal's backlog.
    pub async fn readiness(&self) -> Result<Readiness, HttpError> {
        let url = self.url(&["readyz"]);
        let path = url.path().to_owned();
        let response = self.send(url).await?;
        let status = response.status();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            let body = response.bytes().await.map_err(|error| self.failed(error))?;
            return serde_json::from_slice(&body)
                .map_err(|source| HttpError::Unreadable { path, source });
        }
        read(response, &path).await
    }

    /// Claims the name of the guest whose token is `token`, with
    /// `password` (`POST /api/accounts`): the player is an account from
    /// then on. The answer is the new session's token.
    pub async fn claim(
        &self,
        token: &str,
        name: &str,
        password: &str,
    ) -> Result<String, HttpError> {
        #[derive(serde::Deserialize)]
        struct Started {
            token: String,
        }
        let url = self.url(&["api", "accounts"]);
        let path = url.path().to_owned();
        let body = serde_json::json!({ "name": name, "password": password }).to_string();
        let request = self
            .http
            .post(url)
            .bearer_auth(token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body);
        let response =
            request.timeout(self.timeout).send().await.map_err(|error| self.failed(error))?;
        let started: Started = read_answer(response, &path, StatusCode::CREATED).await?;
        Ok(started.token)
    }

    /// The next puzzle (`GET /api/puzzles/next`): for an account's token,
    /// the one rated nearest its puzzle rating that it has not answered;
    /// for a guest's token or none, one at random. The question only.
    pub async fn next_puzzle(&self, token: Option<&str>) -> Result<PuzzleView, HttpError> {
        let url = self.url(&["api", "puzzles", "next"]);
        self.call(Method::GET, url, token, None, StatusCode::OK).await
    }

    /// The puzzle of the day (`GET /api/puzzles/daily`), the same for everyone.
    pub async fn daily_puzzle(&self) -> Result<PuzzleView, HttpError> {
        self.get_json(self.url(&["api", "puzzles", "daily"])).await
    }

    /// Answers puzzle `id` with `action`, one of its options
    /// (`POST /api/puzzles/{id}/answer`): the verdict, the best answers and
    /// the rest of the hand played both ways. An account's first answer is
    /// rated; a guest's, or none, only judged.
    pub async fn answer_puzzle(
        &self,
        id: i64,
        action: Action,
        token: Option<&str>,
    ) -> Result<PuzzleVerdict, HttpError> {
        let url = self.url(&["api", "puzzles", &id.to_string(), "answer"]);
        let body = serde_json::to_vec(&PuzzleAnswer { action })
            .map_err(|source| HttpError::Unreadable { path: url.path().to_owned(), source })?;
        self.call(Method::POST, url, token, Some(body), StatusCode::OK).await
    }

    /// The listed tournaments, latest start first (`GET /api/tournaments`).
    pub async fn tournaments(&self) -> Result<TournamentList, HttpError> {
        self.get_json(self.url(&["api", "tournaments"])).await
    }

    /// One tournament: its entries, rounds with their tables, and standings
    /// (`GET /api/tournaments/{id}`).
    pub async fn tournament(&self, id: &str) -> Result<TournamentView, HttpError> {
        self.get_json(self.url(&["api", "tournaments", id])).await
    }

    /// Creates a tournament organised by the account whose token is
    /// `token` (`POST /api/tournaments`); the answer is its id.
    pub async fn create_tournament(
        &self,
        token: &str,
        spec: &NewTournament,
    ) -> Result<String, HttpError> {
        let url = self.url(&["api", "tournaments"]);
        let body = serde_json::to_vec(spec)
            .map_err(|source| HttpError::Unreadable { path: url.path().to_owned(), source })?;
        let created: TournamentCreated =
            self.call(Method::POST, url, Some(token), Some(body), StatusCode::CREATED).await?;
        Ok(created.id)
    }

    /// Starts tournament `id` now, for its organiser (`POST /api/tournaments/{id}/start`).
    pub async fn start_tournament(&self, id: &str, token: &str) -> Result<(), HttpError> {
        let url = self.url(&["api", "tournaments", id, "start"]);
        self.call_empty(Method::POST, url, token).await
    }

    /// Registers the player whose token is `token` in tournament `id`
    /// (`POST /api/tournaments/{id}/entries`), until it starts.
    pub async fn register(&self, id: &str, token: &str) -> Result<(), HttpError> {
        let url = self.url(&["api", "tournaments", id, "entries"]);
        self.call_empty(Method::POST, url, token).await
    }

    /// Withdraws that player (`DELETE /api/tournaments/{id}/entries/me`).
    pub async fn withdraw(&self, id: &str, token: &str) -> Result<(), HttpError> {
        let url = self.url(&["api", "tournaments", id, "entries", "me"]);
        self.call_empty(Method::DELETE, url, token).await
    }

    /// Sends `method` to `url` with the bearer `token` (if any) and a JSON
    /// `body` (if any), and reads an answer of status `expected` as `T`.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        token: Option<&str>,
        body: Option<Vec<u8>>,
        expected: StatusCode,
    ) -> Result<T, HttpError> {
        let path = url.path().to_owned();
        let response = self.send_with(method, url, token, body).await?;
        read_answer(response, &path, expected).await
    }

    /// [`HttpClient::call`] for an answer with no body (204).
    async fn call_empty(&self, method: Method, url: Url, token: &str) -> Result<(), HttpError> {
        let response = self.send_with(method, url, Some(token), None).await?;
        let status = response.status();
        if status == StatusCode::NO_CONTENT {
            return Ok(());
        }
        let retry_after = retry_after(&response);
        let body = response.bytes().await.unwrap_or_default();
        let body = serde_json::from_slice::<ErrorBody>(&body).ok().map(Box::new);
        Err(HttpError::Refused { status: status.as_u16(), body, retry_after })
    }

    async fn send_with(
        &self,
        method: Method,
        url: Url,
        token: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response, HttpError> {
        let mut request =
            self.http.request(method, url).header(reqwest::header::ACCEPT, "application/json");
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body);
        }
        request.timeout(self.timeout).send().await.map_err(|error| self.failed(error))
    }

    /// The URL of `segments` under the base, each percent-encoded as needed.
    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.clear().extend(segments);
        }
        url
    }

    /// GETs `url`: the answer, whatever its status.
    async fn send(&self, url: Url) -> Result<reqwest::Response, HttpError> {
        let request = self.http.get(url).header(reqwest::header::ACCEPT, "application/json");
        request.timeout(self.timeout).send().await.map_err(|error| self.failed(error))
    }

    /// GETs `url` and reads a 200's body as `T`; any other status is the
    /// API's error.
    async fn get_json<T: DeserializeOwned>(&self, url: Url) -> Result<T, HttpError> {
        let path = url.path().to_owned();
        let response = self.send(url).await?;
        read(response, &path).await
    }

    /// A failure of reqwest's as this client tells it.
    fn failed(&self, error: reqwest::Error) -> HttpError {
        if error.is_timeout() {
            return HttpError::Timeout;
        }
        let reason = reason(&error);
        if !error.is_connect() {
            return HttpError::Request { reason, source: error };
        }
        if self.base.scheme() == "https" {
            let host = self.base.host_str().unwrap_or_default().to_owned();
            HttpError::Insecure { host, reason, source: error }
        } else {
            HttpError::Unreachable { reason, source: error }
        }
    }
}

/// A 200's body as `T`, or the error answer as [`HttpError::Refused`].
async fn read<T: DeserializeOwned>(
    response: reqwest::Response,
    path: &str,
) -> Result<T, HttpError> {
    read_answer(response, path, StatusCode::OK).await
}

/// The body of an answer with status `expected` as `T`, or the error
/// answer as [`HttpError::Refused`].
async fn read_answer<T: DeserializeOwned>(
    response: reqwest::Response,
    path: &str,
    expected: StatusCode,
) -> Result<T, HttpError> {
    let status = response.status();
    let retry_after = retry_after(&response);
    let body = response.bytes().await.map_err(|error| {
        if error.is_timeout() {
            HttpError::Timeout
        } else {
            HttpError::Request { reason: reason(&error), source: error }
        }
    })?;
    if status != expected {
        let body = serde_json::from_slice::<ErrorBody>(&body).ok().map(Box::new);
        return Err(HttpError::Refused { status: status.as_u16(), body, retry_after });
    }
    serde_json::from_slice(&body)
        .map_err(|source| HttpError::Unreadable { path: path.to_owned(), source })
}

/// The answer's `Retry-After`, in seconds (the only form the server sends).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse().ok().map(Duration::from_secs)
}

/// The API's base, `http(s)://host:port/`, from a WebSocket address
/// (`ws://` is http, `wss://` https) or an http(s) one; its path is not the
/// API's.
fn base_url(server: &str) -> Result<Url, HttpError> {
    let bad = |reason: &str| HttpError::BadAddress {
        address: server.to_owned(),
        reason: reason.to_owned(),
    };
    // The URL standard reads `wss:///ws` as the host `ws`: no host here.
    if server.split_once("://").is_some_and(|(_, rest)| rest.starts_with('/')) {
        return Err(bad("no host"));
    }
    let mut url = Url::parse(server).map_err(|error| bad(&error.to_string()))?;
    let scheme = match url.scheme() {
        "ws" | "http" => "http",
        "wss" | "https" => "https",
        _ => return Err(bad("not a ws://, wss://, http:// or https:// address")),
    };
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host"));
    }
    url.set_scheme(scheme).map_err(|()| bad("not a ws://, wss://, http:// or https:// address"))?;
    url.set_path("/");
    url.set_query(None);
    url.set_fragment(None);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_found_from_the_websocket_address() {
        let read = |server| base_url(server).map(|url| url.to_string());
        assert_eq!(read("ws://127.0.0.1:8080/ws").ok(), Some("http://127.0.0.1:8080/".into()));
        assert_eq!(
            read("wss://euchre.example.org/ws").ok(),
            Some("https://euchre.example.org/".into())
        );
        assert_eq!(read("ws://host/ws").ok(), Some("http://host/".into()));
        assert_eq!(read("wss://[::1]:9443/ws").ok(), Some("https://[::1]:9443/".into()));
        assert_eq!(read("http://localhost").ok(), Some("http://localhost/".into()));
        assert_eq!(read("wss://host:443/ws?node=2").ok(), Some("https://host/".into()));
        assert!(matches!(read("ftp://host/"), Err(HttpError::BadAddress { .. })));
        assert!(read("ws://host:port/").is_err());
        assert!(read("wss:///ws").is_err());
    }

    #[test]
    fn ids_and_filters_are_percent_encoded() {
        let api = HttpClient::new("ws://127.0.0.1:8080/ws").expect("an address");
        assert_eq!(
            api.url(&["api", "matches", "p 1/x", "record"]).as_str(),
            "http://127.0.0.1:8080/api/matches/p%201%2Fx/record"
        );
        let mut url = api.url(&["api", "matches"]);
        url.query_pairs_mut().append_pair("player", "1700.ab-c d&e");
        assert_eq!(url.query(), Some("player=1700.ab-c+d%26e"));
    }

    #[test]
    fn an_error_answer_reads_as_its_message() {
        let body = ErrorBody {
            code: "not_found".into(),
            message: "no match \"m\"".into(),
            location: None,
            findings: None,
        };
        let refused =
            HttpError::Refused { status: 404, body: Some(Box::new(body)), retry_after: None };
        assert_eq!(refused.to_string(), "no match \"m\"");
        assert_eq!((refused.code(), refused.status()), (Some("not_found"), Some(404)));
        let bare = HttpError::Refused { status: 502, body: None, retry_after: None };
        assert_eq!((bare.to_string().as_str(), bare.code()), ("HTTP 502", None));
    }
}
