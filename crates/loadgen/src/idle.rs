//! Idle connections: many identified players who say `hello` and then only
//! keep their connection open (answering the server's pings), to measure
//! what a held connection costs the server in memory and CPU.
//!
//! Given the server's process id (Linux), [`hold`] reads its resident memory
//! and CPU time from `/proc` before connecting, once every connection is
//! identified, and at the end of the hold, so the report gives memory per
//! connection and the share of a core the server spends on idle ones.

use std::time::{Duration, Instant};

use anyhow::Context;
use euchre_client::Session;
use futures_util::{StreamExt, stream};
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::player::PATIENCE;
use crate::process::ProcessSample;

/// Connections opened at once.
const CONNECT_CONCURRENCY: usize = 64;

/// What an idle run measured.
#[derive(Debug, Serialize)]
pub struct IdleReport {
    pub connections: usize,
    /// Seconds to open and identify them all.
    pub connect_seconds: f64,
    /// Seconds they were held once all were identified.
    pub held_seconds: f64,
    /// Connections the server closed or that failed while held.
    pub dropped: usize,
    /// The server's resident memory, in KiB, before and with every connection held.
    pub server_rss_before_kib: Option<u64>,
    pub server_rss_held_kib: Option<u64>,
    /// (held - before) / connections.
    pub server_kib_per_connection: Option<f64>,
    /// The server's CPU time over each half of the hold, as a share of one
    /// core (0.05 = 5%). The first half may still see the connections'
    /// set-up (their guest records going to the database); the second is
    /// the idle cost, heartbeats included.
    pub server_core_share_first_half: Option<f64>,
    pub server_core_share_second_half: Option<f64>,
}

impl IdleReport {
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{} idle identified connections: opened in {:.1} s, held {:.1} s, {} dropped\n",
            self.connections, self.connect_seconds, self.held_seconds, self.dropped
        );
        if let (Some(before), Some(held), Some(per)) =
            (self.server_rss_before_kib, self.server_rss_held_kib, self.server_kib_per_connection)
        {
            text += &format!(
                "server RSS: {before} KiB before, {held} KiB held: {per:.1} KiB per connection\n"
            );
        }
        if let (Some(first), Some(second)) =
            (self.server_core_share_first_half, self.server_core_share_second_half)
        {
            text += &format!(
                "server CPU while held: {:.2}% of a core in the first half, {:.2}% in the second\n",
                first * 100.0,
                second * 100.0
            );
        }
        text
    }
}

/// Opens `connections` identified connections to `url` (several URLs,
/// comma-separated: round-robin over them, see [`crate::urls`]), holds them
/// for `hold`, then closes them. `server_pids` (Linux; every node of a
/// cluster) adds the servers' memory and CPU figures, summed.
pub async fn hold(
    url: &str,
    connections: usize,
    hold: Duration,
    server_pids: &[u32],
) -> anyhow::Result<IdleReport> {
    let urls = crate::urls(url);
    let before = ProcessSample::read_all(server_pids)?;
    let started = Instant::now();
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut held = JoinSet::new();
    let mut opening = stream::iter(0..connections)
        .map(|index| identified(urls[index % urls.len()].to_owned(), index))
        .buffer_unordered(CONNECT_CONCURRENCY);
    while let Some(session) = opening.next().await {
        let mut session = session?;
        let mut stop = stop_rx.clone();
        held.spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.changed() => {
                        session.close(PATIENCE).await;
                        return true;
                    }
                    // Pings are answered underneath as it reads.
                    received = session.recv() => if received.is_err() {
                        return false;
                    },
                }
            }
        });
    }
    let connect_seconds = started.elapsed().as_secs_f64();
    let at_full = ProcessSample::read_all(server_pids)?;
    let hold_started = Instant::now();
    tokio::time::sleep(hold / 2).await;
    let at_half = ProcessSample::read_all(server_pids)?;
    let half_seconds = hold_started.elapsed().as_secs_f64();
    tokio::time::sleep(hold - hold / 2).await;
    let at_end = ProcessSample::read_all(server_pids)?;
    let held_seconds = hold_started.elapsed().as_secs_f64();
    let _ = stop_tx.send(true);
    let mut dropped = 0;
    while let Some(result) = held.join_next().await {
        if !result.unwrap_or(false) {
            dropped += 1;
        }
    }
    let rss = |sample: &Option<ProcessSample>| sample.as_ref().map(|s| s.rss_kib);
    let per_connection = match (rss(&before), rss(&at_end)) {
        (Some(before), Some(held)) if connections > 0 => {
            Some((held as f64 - before as f64) / connections as f64)
        }
        _ => None,
    };
    let share =
        |from: &Option<ProcessSample>, to: &Option<ProcessSample>, seconds: f64| match (from, to) {
            (Some(from), Some(to)) => Some((to.cpu_seconds - from.cpu_seconds) / seconds),
            _ => None,
        };
    Ok(IdleReport {
        connections,
        connect_seconds,
        held_seconds,
        dropped,
        server_rss_before_kib: rss(&before),
        server_rss_held_kib: rss(&at_end),
        server_kib_per_connection: per_connection,
        server_core_share_first_half: share(&at_full, &at_half, half_seconds),
        server_core_share_second_half: share(&at_half, &at_end, held_seconds - half_seconds),
    })
}

/// One connection that has said `hello` and been welcomed.
async fn identified(url: String, index: usize) -> anyhow::Result<Session> {
    let attempt = async {
        let mut session =
            Session::connect(&url).await.with_context(|| format!("connection {index}"))?;
        session
            .hello(&format!("idle{index}"), None)
            .await
            .with_context(|| format!("connection {index}: hello"))?;
        anyhow::Ok(session)
    };
    tokio::time::timeout(PATIENCE, attempt)
        .await
        .with_context(|| format!("connection {index}: no welcome in time"))?
}
