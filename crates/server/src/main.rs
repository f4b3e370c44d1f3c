//! `euchre-server`: loads the settings, starts logging, and serves until
//! Ctrl-C or SIGTERM; or runs an operator's command (`euchre-server admin …`).

use anyhow::Context;
use clap::Parser;
use euchre_server::admin::Command;
use euchre_server::config::{Flags, LogFormat, Settings};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than glibc's allocator: a table's every action allocates
/// (frames, the journal's records, SQLite's rows), and glibc's malloc and
/// free were 15% of the server's instructions per action (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // Before any file is made: the journal and the database are secret.
    euchre_server::private_files::keep_new_files_private();
    let flags = Flags::parse();
    let settings = Settings::load(&flags).context("reading the settings")?;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    match settings.log_format {
        LogFormat::Human => tracing_subscriber::fmt().with_env_filter(filter).init(),
        LogFormat::Json => tracing_subscriber::fmt().json().with_env_filter(filter).init(),
    }
    if let Some(Command::Admin(command)) = flags.command {
        return euchre_server::admin::run(command, &settings, &mut std::io::stdout()).await;
    }
    let shutdown = shutdown_signal().context("installing the signal handlers")?;
    let listener = tokio::net::TcpListener::bind(settings.bind)
        .await
        .with_context(|| format!("binding {}", settings.bind))?;
    euchre_server::run(listener, settings, shutdown).await
}

/// Completes on Ctrl-C or SIGTERM. The handlers are installed now, not
/// when the future is first polled (once the server is up): a signal that
/// comes during the start (a long migration, the journal's replay, the
/// tables' restore) then stops the server cleanly as soon as it serves,
/// where it used to kill the process outright.
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
}
