//! The game server in this process, for the load generator's tests.

use std::time::Duration;

use euchre_server::Settings;
use euchre_server::config::DatabaseUrl;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server on an ephemeral port with its own data folder (journal and
/// SQLite file) and bots that do not pause.
pub struct TestServer {
    pub url: String,
    _data: tempfile::TempDir,
    stop: oneshot::Sender<()>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl TestServer {
    /// Starts it with the settings `adjust` leaves: the defaults, apart
    /// from the data folder and the bots' pause.
    pub async fn start(adjust: impl FnOnce(&mut Settings)) -> anyhow::Result<TestServer> {
        let data = tempfile::tempdir()?;
        let mut settings = Settings {
            data_dir: data.path().to_owned(),
            database_url: DatabaseUrl(format!(
                "sqlite://{}",
                data.path().join("euchre.db").display()
            )),
            ..Settings::default()
        };
        settings.timing.bot_delay_ms = 0;
        adjust(&mut settings);
        // Bound before the spawn: the clients never wait for the server to listen.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("ws://{}/ws", listener.local_addr()?);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(euchre_server::run(listener, settings, async move {
            let _ = stopped.await;
        }));
        Ok(TestServer { url, _data: data, stop, task })
    }

    /// Stops it and waits until it has (its data folder goes with it).
    pub async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(10), self.task).await???;
        Ok(())
    }
}
