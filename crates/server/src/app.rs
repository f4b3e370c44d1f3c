//! The HTTP side: routes, the WebSocket upgrade with its checks, and the
//! server's life from bind to graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use std::time::Duration;

use anyhow::Context;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use futures_util::StreamExt;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use euchre_store::Store;

use crate::admission::Refused;
use crate::api::ApiError;
use crate::client_address::{self, ClientAddress};
use crate::config::{Settings, Timing};
use crate::connection;
use crate::door::Door;
use crate::http_server::{self, ConnectionSettings};
use crate::state::AppState;
use crate::wake_gate::WakeGate;

/// The hard cap on one WebSocket message: far above the protocol's limit, so
/// an oversized command still gets a `too_large` answer, while a huge one
/// closes the connection (1009) before it is buffered.
const HARD_MESSAGE_CAP: usize = 64 * 1024;
/// Bytes of queued frames written out before a burst's flush; the buffer
/// only grows this far if a burst is this large.
const WRITE_BURST_BYTES: usize = 16 * 1024;

/// How long a client refused as `server_full` is asked to wait.
const SERVER_FULL_RETRY: Duration = Duration::from_secs(5);

/// The routes, for `run` and for tests.
pub fn router(state: AppState) -> Router {
    // Everything but the health checks and metrics is closed to an address
    // in the penalty box (`admission`): its monitoring is not its abuse.
    let guarded = Router::new()
        .route("/ws", get(websocket))
        .merge(crate::api::routes(state.clone()))
        .merge(crate::web::routes())
        .route_layer(middleware::from_fn_with_state(state.clone(), admit_address));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .merge(guarded)
        .with_state(state)
}

/// Finds the request's client address (its peer's, or the one a trusted
/// proxy forwarded for), refuses it if it is in the penalty box, and hands
/// it on to the route as a [`ClientAddress`]. A trusted proxy's header that
/// does not name the client is refused, `400 bad_forwarded_for`: counted as
/// the proxy's own, the request would share (and could spend) the limits of
/// everyone else whose header failed the same way.
async fn admit_address(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>().copied()
    else {
        return next.run(request).await;
    };
    let trusted = &state.settings.trusted_proxies;
    let Ok(client) = client_address::resolve(peer.ip(), request.headers(), trusted) else {
        let message = "X-Forwarded-For from the proxy does not name the client's address";
        return ApiError::new(StatusCode::BAD_REQUEST, "bad_forwarded_for", message)
            .into_response();
    };
    if let Some(wait) = state.admission.penalized(client) {
        return refusal(Refused::Penalized(wait));
    }
    if let Some(until) = state.players.sanctions().address_banned(client) {
        let message = crate::sanctions::until_text("a moderator banned this address", Some(until));
        return ApiError::new(StatusCode::FORBIDDEN, "address_banned", message).into_response();
    }
    request.extensions_mut().insert(ClientAddress(client));
    next.run(request).await
}

/// The coded answer to a refused connection: `{code, message}`, and
/// `Retry-After` where the wait is known.
fn refusal(refused: Refused) -> Response {
    let answer = match refused {
        Refused::Penalized(wait) => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "abuse_penalty",
            "a connection from this address was just closed for abuse; try again later",
        )
        .retry_after(wait),
        Refused::TooManyFromAddress => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_connections",
            "too many connections from this address",
        ),
        Refused::ServerFull => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_full",
            "the server holds all the connections it can; try again shortly",
        )
        .retry_after(SERVER_FULL_RETRY),
    };
    answer.into_response()
}

/// Serves on `listener` until `shutdown` completes, then tells every client,
/// stops every table and waits (up to the grace period) for them to finish.
pub async fn run(
    listener: TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let token = CancellationToken::new();
    crate::private_files::private_folder(&settings.data_dir)
        .with_context(|| format!("making the data folder {}", settings.data_dir.display()))?;
    let store = open_store(&settings).await?;
    // The journal first: whatever it holds that the database lacks goes in now.
    let journal_dir = settings.data_dir.join("journal");
    let (recorder, writer) =
        euchre_store::writer::start(store.clone(), journal_dir, WRITER_QUEUE).await?;
    let stop_writer = CancellationToken::new();
    let writer = tokio::spawn(writer.run(stop_writer.clone()));
    // The journal is in: any match still "in progress" at a closed table
    // (a crash between the two writes, or a version that kept no reason)
    // can never finish. Open tables' matches are restored below, not touched.
    match store.abandon_orphaned_matches().await {
        Ok(0) => {}
        Ok(marked) => {
            tracing::info!(matches = marked, "unfinished matches of closed tables abandoned")
        }
        Err(error) => tracing::warn!(%error, "cannot mark the matches of closed tables abandoned"),
    }
    let words = crate::word_list::WordList::load(&settings.moderation.word_list)?;
    let state = AppState::new(settings, token.clone(), store.clone(), recorder);
    state.players.load_claimed_names().await?;
    state.players.use_word_list(words);
    state.players.sanctions().load_key(&*store).await?;
    state.players.refresh_sanctions().await?;
    let state = if state.settings.cluster.enabled {
        // Tables come from the shards' logs, as this node gains shards.
        crate::node::start(state).await?
    } else {
        // One table that cannot be restored is set aside; only a store
        // that cannot be read at all stops the start.
        for live in store.live_tables().await? {
            match live {
                Ok(live) => {
                    let id = live.id.clone();
                    if state.restore_table(live).is_ok() {
                        tracing::info!(table = %id, "table restored");
                    }
                }
                Err(bad) => state.set_aside(&bad.id, bad.unfinished, &bad.error),
            }
        }
        state
    };
    state.tracker.spawn(crate::housekeeping::purge_on_schedule(state.clone()));
    state
        .tracker
        .spawn(crate::sanctions::keep_fresh(state.players.clone(), state.shutdown.clone()));
    state.tracker.spawn(crate::quick_play::run(state.clone()));
    state.tracker.spawn(crate::tournaments::run(state.clone()));
    let grace = Timing::ms(state.settings.timing.shutdown_grace_ms);
    let timing = &state.settings.timing;
    let connection_settings = ConnectionSettings {
        header_read_timeout: Timing::ms(timing.header_read_timeout_ms),
        idle_timeout: Timing::ms(timing.http_idle_timeout_ms),
        send_buffer_bytes: state.settings.limits.send_buffer_bytes,
    };
    let door = Arc::new(Door::new(
        &state.settings.limits,
        &state.settings.trusted_proxies,
        crate::admission::open_file_limit(),
        &state.metrics,
    ));
    let tracker = state.tracker.clone();
    let max_connections = state.admission.max_connections();
    let quick_play = state.quick_play.clone();
    let app = router(state);
    let stop = token.clone();
    tracing::info!(
        address = %listener.local_addr()?,
        max_connections,
        max_tcp_connections = door.max_open(),
        tcp_connections_per_address = door.per_address_max(),
        "listening"
    );
    let shutdown = async move {
        shutdown.await;
        tracing::info!("shutting down");
        // Waiting quick-play requests end first, so that their notices
        // are queued before the connections close (bounded: a stop
        // never hangs on the pools).
        let _ = tokio::time::timeout(QUICK_PLAY_CLOSE, quick_play.close()).await;
        stop.cancel();
    };
    http_server::serve(listener, app, door, connection_settings, grace, shutdown).await;
    // The HTTP server does not wait for upgraded WebSockets: the tracker does.
    token.cancel();
    tracker.close();
    if tokio::time::timeout(grace, tracker.wait()).await.is_err() {
        tracing::warn!("some connections or tables did not finish in time");
    }
    // Everything acknowledged is in the journal; give the database what it can take.
    stop_writer.cancel();
    let _ = writer.await;
    Ok(())
}

/// How long a stop waits for the quick-play pools to end their requests.
const QUICK_PLAY_CLOSE: Duration = Duration::from_secs(2);

/// Writes queued for the database in memory; more wait in the journal.
const WRITER_QUEUE: usize = 65_536;

/// Connects to the database and migrates it, retrying while a database
/// server is not up; a SQLite file that cannot be opened stops the start.
async fn open_store(settings: &Settings) -> anyhow::Result<Arc<dyn Store>> {
    let database = settings.database();
    if let Some(warning) = &database.warning {
        tracing::warn!("{warning}");
    }
    let url = database.url.expose();
    let mut delay = std::time::Duration::from_millis(200);
    loop {
        let attempt = async {
            let store = euchre_store::connect(url).await?;
            store.migrate().await?;
            Ok::<_, euchre_store::StoreError>(store)
        };
        match attempt.await {
            Ok(store) => return Ok(Arc::from(store)),
            Err(euchre_store::StoreError::UnsupportedUrl(url)) => {
                anyhow::bail!("unsupported database URL {url:?}: use sqlite://FILE or postgres://…")
            }
            // A schema this version cannot use: waiting will not help
            // (docs/self-hosting.md, "Restarts").
            Err(error) if error.is_unusable_schema() => anyhow::bail!(
                "{error}: run the version that migrated this database, or restore a backup \
                 taken before"
            ),
            // A file that cannot be opened now will not open by waiting
            // (a missing or read-only folder, a file of another program):
            // only a database server is worth waiting for.
            Err(error) if url.starts_with("sqlite:") => anyhow::bail!(
                "cannot open the SQLite database {url}: {error}. Check that its folder exists \
                 and the server's user may write there (--data-dir, --database-url)"
            ),
            Err(error) => {
                tracing::warn!(%error, database = ?database.url, "database not ready; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(std::time::Duration::from_secs(5));
            }
        }
    }
}

/// Ready when the database answers and is not far behind the journal.
async fn readyz(State(state): State<AppState>) -> Response {
    let health = state.recorder.health();
    let (connected, backlog) = (health.connected(), health.backlog());
    let ready = connected && backlog < READY_BACKLOG && !state.shutdown.is_cancelled();
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    let database = if connected { "up" } else { "down" };
    let body = euchre_protocol::api::Readiness { ready, database: database.to_owned(), backlog };
    (status, axum::Json(body)).into_response()
}

/// Writes waiting for the database beyond which the server reports not ready.
const READY_BACKLOG: u64 = 10_000;

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        state.metrics.render(),
    )
}

async fn websocket(
    upgrade: WebSocketUpgrade,
    headers: HeaderMap,
    Extension(ClientAddress(peer)): Extension<ClientAddress>,
    State(state): State<AppState>,
) -> Response {
    if !origin_allowed(&headers, &state.settings.allowed_origins) {
        let message = "this origin may not connect";
        return ApiError::new(StatusCode::FORBIDDEN, "origin_not_allowed", message).into_response();
    }
    if state.shutdown.is_cancelled() {
        let message = "the server is shutting down";
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "shutting_down", message)
            .into_response();
    }
    let slot = match state.admission.admit(peer) {
        Ok(slot) => slot,
        Err(refused) => return refusal(refused),
    };
    let tracker = state.tracker.clone();
    upgrade
        .read_buffer_size(state.settings.limits.read_buffer_bytes)
        .max_message_size(HARD_MESSAGE_CAP)
        .max_frame_size(HARD_MESSAGE_CAP)
        // Frames wait in the buffer until the connection flushes a burst
        // (see `connection::write_burst`), up to this much; a socket that
        // will not take more holds the next write back, so the buffer never
        // holds much more than one message past this.
        .write_buffer_size(WRITE_BURST_BYTES)
        // No cap of its own: one message larger than a cap cannot be sent
        // at all. With a cap of 256 KiB a client listing the lobby, then one
        // message of every public table, was dropped as too slow past about
        // a thousand tables (found by the load generator's slow reader); the
        // lobby now comes a page at a time, but a snapshot can be large too.
        .max_write_buffer_size(usize::MAX)
        .on_upgrade(move |socket| {
            let (sink, stream) = socket.split();
            let stream = WakeGate::new(stream);
            tracker.track_future(async move {
                connection::serve(sink, stream, state, peer).await;
                drop(slot);
            })
        })
}

/// Browsers send `Origin`; it must be this server's own host or one the
/// settings allow. Native clients send none and are allowed.
fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    if allowed.iter().any(|a| a == origin || a == "*") {
        return true;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    matches!((host, origin_host), (Some(host), Some(origin_host)) if host == origin_host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().expect("header"));
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, origin.parse().expect("header"));
        }
        headers
    }

    #[test]
    fn origins() {
        let allowed = vec!["https://club.example".to_owned()];
        assert!(origin_allowed(&headers(None, "localhost:8080"), &allowed));
        assert!(origin_allowed(
            &headers(Some("http://localhost:8080"), "localhost:8080"),
            &allowed
        ));
        assert!(origin_allowed(&headers(Some("https://club.example"), "x:1"), &allowed));
        assert!(!origin_allowed(
            &headers(Some("https://evil.example"), "localhost:8080"),
            &allowed
        ));
    }
}
