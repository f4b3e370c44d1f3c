//! `euchre-server`: loads the settings, starts logging, and serves until
//! Ctrl-C or SIGTERM.

use anyhow::Context;
use clap::Parser;
use euchre_server::config::{Flags, LogFormat, Settings};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than glibc's allocator: a table's every action allocates
/// (frames, the journal's records, SQLite's rows), and glibc's malloc and
/// free were 15% of the server's instructions per action (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let flags = Flags::parse();
    let settings = Settings::load(&flags).context("reading the settings")?;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    match settings.log_format {
        LogFormat::Human => tracing_subscriber::fmt().with_env_filter(filter).init(),
        LogFormat::Json => tracing_subscriber::fmt().json().with_env_filter(filter).init(),
    }
    let listener = tokio::net::TcpListener::bind(settings.bind)
        .await
        .with_context(|| format!("binding {}", settings.bind))?;
    euchre_server::run(listener, settings, shutdown_signal()).await
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
