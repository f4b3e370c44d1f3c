//! The HTTP server: the accept loop, each connection served by hyper's
//! HTTP/1 server (what axum's `serve` runs) with the limits `serve` lacks.
//!
//! - Every connection passes the [`Door`] at accept: past the cap of its
//!   address or the accept limit it is closed before a byte is read.
//! - A request's head must come whole within `header_read_timeout_ms` of
//!   the connection's opening or of the previous answer (hyper's own timer).
//! - A connection on which nothing moves for `http_idle_timeout_ms` closes.
//! - WebSocket upgrades work as before: the socket, with its place at the
//!   door, goes on to the WebSocket.
//!
//! On shutdown the loop stops accepting, asks each connection to finish its
//! request and close, and waits for them up to the grace period.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::door::{Door, Entry};

/// How one connection is served.
#[derive(Clone, Debug)]
pub struct ConnectionSettings {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    /// `SO_SNDBUF`; 0 leaves it to the system.
    pub send_buffer_bytes: usize,
}

/// A pause after an accept error other than a connection's own (out of
/// files, say), so that the loop does not spin on it.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Serves `router` on `listener` until `shutdown` completes; then stops
/// accepting, asks every connection to close after its request, and waits
/// for them for up to `grace`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    door: Arc<Door>,
    settings: ConnectionSettings,
    grace: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let connections = TaskTracker::new();
    let closing = CancellationToken::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let entry = match door.enter(peer.ip()) {
            Ok(entry) => entry,
            Err(turned) => {
                // Closed unread: dropping the stream closes it.
                tracing::debug!(%peer, ?turned, "connection closed at the door");
                continue;
            }
        };
        configure(&stream, settings.send_buffer_bytes);
        let task = serve_connection(
            stream,
            entry,
            peer,
            router.clone(),
            settings.clone(),
            closing.clone(),
        );
        connections.spawn(task);
    }
    drop(listener);
    closing.cancel();
    connections.close();
    if tokio::time::timeout(grace, connections.wait()).await.is_err() {
        tracing::warn!("some HTTP connections did not finish in time");
    }
}

/// Errors of one connection (gone before it was accepted), not of the listener.
fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(error.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset)
}

/// Nagle off: an action's events and its ack are separate small frames,
/// and with Nagle the ack waited for the client's delayed TCP ack of the
/// events, about 40 ms on Linux (found by euchre-loadgen).
fn configure(stream: &TcpStream, send_buffer_bytes: usize) {
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "cannot set TCP_NODELAY");
    }
    if send_buffer_bytes > 0
        && let Err(error) = socket2::SockRef::from(stream).set_send_buffer_size(send_buffer_bytes)
    {
        tracing::debug!(%error, "cannot set SO_SNDBUF");
    }
}

async fn serve_connection(
    stream: TcpStream,
    entry: Entry,
    peer: SocketAddr,
    router: Router,
    settings: ConnectionSettings,
    closing: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let made_room = entry.heard().closing();
    let io = Watched { stream, activity: activity.clone(), entry };
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(peer));
        // A router is always ready: no `poll_ready` is needed.
        tower_service::Service::call(&mut router.clone(), request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(settings.header_read_timeout);
    let connection = builder.serve_connection(TokioIo::new(io), service).with_upgrades();
    let mut connection = pin!(connection);
    let mut asked_to_close = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%peer, %error, "HTTP connection ended");
                }
                return;
            }
            () = closing.cancelled(), if !asked_to_close => {
                asked_to_close = true;
                connection.as_mut().graceful_shutdown();
            }
            // Dropping the connection closes the socket.
            () = activity.idle_for(settings.idle_timeout) => {
                tracing::debug!(%peer, "idle HTTP connection closed");
                return;
            }
            () = made_room.cancelled() => {
                tracing::debug!(%peer, "silent connection closed to make room");
                return;
            }
        }
    }
}

/// When a connection last read or wrote a byte, in milliseconds since it
/// was accepted.
#[derive(Debug)]
struct Activity {
    since: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        Activity { since: Instant::now(), last_ms: AtomicU64::new(0) }
    }

    fn touch(&self) {
        let now = self.since.elapsed().as_millis() as u64;
        self.last_ms.store(now, Ordering::Relaxed);
    }

    /// Completes once nothing has moved for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = self.since + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + limit;
            if deadline <= Instant::now() {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A connection's socket with its place at the door (freed when the socket
/// is dropped, by hyper or, after an upgrade, by the WebSocket) and a note
/// of its last read or write.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    entry: Entry,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.touch();
            this.entry.heard().spoke();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
