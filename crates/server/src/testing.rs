//! For tests (the `testing` feature): the server in the test's own process,
//! on an ephemeral loopback port, with a data folder of its own, stopped
//! gracefully by the test. This crate's tests and example, and the client,
//! TUI and load generator tests, all start it here, so they start it alike.
//!
//! The listener is bound before the server's task is spawned, so a client
//! may connect at once: nothing waits or polls for the server to listen.
//!
//! Re-exported from `euchre_testkit`, so every crate's tests use the same
//! ones: [`eventually`] (wait for what becomes true a moment later) and
//! [`skip`] (a service the machine lacks: skipped, or failed where
//! `EUCHRE_REQUIRE_SERVICES=1`).

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::Settings;

pub use euchre_testkit::{eventually, skip};

/// How long [`ServerTask::stop`] waits for a graceful shutdown.
pub const STOP_PATIENCE: Duration = Duration::from_secs(10);

/// A server on `127.0.0.1:0` with a fresh data folder (journal and, unless
/// the settings name another database, the SQLite file), removed when this
/// is dropped.
#[derive(Debug)]
pub struct TestServer {
    pub address: SocketAddr,
    pub data: tempfile::TempDir,
    task: ServerTask,
}

impl TestServer {
    /// The default settings with bots that do not pause.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// The settings `adjust` leaves of the defaults with bots that do not
    /// pause, no analysis at a match's end (tests finish matches by the
    /// hundred; the few that want it turn it on), few worlds, and accounts
    /// rated from their first game (the tests of the minimum set one).
    pub async fn start_with(adjust: impl FnOnce(&mut Settings)) -> TestServer {
        let mut settings = Settings::default();
        settings.timing.bot_delay_ms = 0;
        settings.analysis.at_match_end = false;
        settings.analysis.worlds = 16;
        settings.ratings.min_account_age_seconds = 0;
        settings.ratings.min_games = 0;
        adjust(&mut settings);
        TestServer::with_settings(settings).await
    }

    /// `settings` as given, apart from the data folder (and the database,
    /// when it is the default one).
    pub async fn with_settings(mut settings: Settings) -> TestServer {
        let data = tempfile::tempdir().expect("a data folder");
        keep_data_in(&mut settings, data.path());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let task = ServerTask::spawn(listener, settings);
        TestServer { address, data, task }
    }

    /// The WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.address)
    }

    /// Stops the server and waits for it, panicking unless it stops cleanly
    /// within [`STOP_PATIENCE`].
    pub async fn stop(self) {
        self.task.stop().await;
    }

    /// [`TestServer::stop`], waiting up to `limit`.
    pub async fn stop_within(self, limit: Duration) {
        self.task.stop_within(limit).await;
    }
}

/// Points `settings` at the folder `data`: the journal, and the SQLite file
/// in it unless the settings already name another database.
pub fn keep_data_in(settings: &mut Settings, data: &Path) {
    settings.data_dir = data.to_owned();
}

/// The server running on a listener the test bound itself: for a test that
/// stops a server and starts another on the same address and data folder.
/// Dropping it stops the server too, without waiting.
#[derive(Debug)]
pub struct ServerTask {
    stop: oneshot::Sender<()>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl ServerTask {
    /// Runs the server on `listener` as a task of the current runtime.
    pub fn spawn(listener: TcpListener, settings: Settings) -> ServerTask {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(crate::run(listener, settings, async move {
            // A dropped sender stops the server as a sent stop does.
            let _ = stopped.await;
        }));
        ServerTask { stop, task }
    }

    /// Stops the server and waits for it, panicking unless it stops cleanly
    /// within [`STOP_PATIENCE`].
    pub async fn stop(self) {
        self.stop_within(STOP_PATIENCE).await;
    }

    /// [`ServerTask::stop`], waiting up to `limit`.
    pub async fn stop_within(self, limit: Duration) {
        let _ = self.stop.send(());
        match tokio::time::timeout(limit, self.task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(error))) => panic!("the server did not stop cleanly: {error:#}"),
            Ok(Err(error)) => panic!("the server's task failed: {error}"),
            Err(_) => panic!("the server did not stop within {limit:?}"),
        }
    }
}
