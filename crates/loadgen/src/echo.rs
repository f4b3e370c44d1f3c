//! The yardstick for flat-out play: a bare WebSocket echo server on the same
//! stack as the game server (tokio, axum, the same socket settings), and
//! clients that send it an action-sized message and wait for it back, as
//! fast as they can.
//!
//! Round trips per second through the echo, with the same client and the
//! same number of connections, is the most the machine could give a game
//! that did nothing: [`serve`] and [`run`] measure it, and the flat-out
//! figures are quoted as a share of it.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::ws::{Message as AxumMessage, WebSocketUpgrade};
use axum::routing::get;
use axum::serve::ListenerExt;
use euchre_engine::{Action, Card};
use euchre_protocol::ClientMessage;
use futures_util::{SinkExt, StreamExt, stream};
use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_tungstenite::connect_async_with_config;
use tokio_tungstenite::tungstenite::Message;

use crate::Latency;
use crate::player::PATIENCE;
use crate::process::ProcessSample;

/// Connections opened at once.
const CONNECT_CONCURRENCY: usize = 64;

/// Serves `/ws` on `listener`, echoing every text frame, until the process ends.
///
/// Its sockets are set up as the game server sets up its own: no Nagle, a
/// 2 KiB read buffer, frames flushed one by one.
pub async fn serve(listener: TcpListener) -> anyhow::Result<()> {
    let app = Router::new().route("/ws", get(upgrade));
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, app).await.context("serving the echo")
}

async fn upgrade(upgrade: WebSocketUpgrade) -> axum::response::Response {
    upgrade.read_buffer_size(2048).write_buffer_size(0).on_upgrade(|mut socket| async move {
        while let Some(Ok(frame)) = socket.recv().await {
            let echo = match frame {
                AxumMessage::Text(text) => AxumMessage::Text(text),
                AxumMessage::Close(_) => return,
                // Pings are answered by the socket itself.
                _ => continue,
            };
            if socket.send(echo).await.is_err() {
                return;
            }
        }
    })
}

/// What an echo run measured.
#[derive(Debug, Serialize)]
pub struct EchoReport {
    pub connections: usize,
    pub seconds: f64,
    pub round_trips: u64,
    pub round_trips_per_second: f64,
    /// Send to echo, in milliseconds.
    pub latency_ms: Latency,
    /// The echo server's CPU time per round trip, in microseconds (with its pid).
    pub server_cpu_us_per_round_trip: Option<f64>,
}

impl EchoReport {
    pub fn to_text(&self) -> String {
        let l = &self.latency_ms;
        let mut text = format!(
            "echo: {} connections for {:.2} s\n\
             round trips     {} ({:.0}/s)\n\
             latency ms      p50 {:.3}  p90 {:.3}  p99 {:.3}  p99.9 {:.3}  max {:.3}  mean {:.3}\n",
            self.connections,
            self.seconds,
            self.round_trips,
            self.round_trips_per_second,
            l.p50,
            l.p90,
            l.p99,
            l.p999,
            l.max,
            l.mean,
        );
        if let Some(cpu) = self.server_cpu_us_per_round_trip {
            text += &format!("server CPU      {cpu:.1} µs per round trip\n");
        }
        text
    }
}

/// Opens `connections` to the echo at `url`; each sends an action-sized
/// message and waits for it back, again and again, for `duration`.
pub async fn run(
    url: &str,
    connections: usize,
    duration: Duration,
    server_pid: Option<u32>,
) -> anyhow::Result<EchoReport> {
    if connections == 0 {
        bail!("no connections to echo on");
    }
    // What a seat sends most: an action, at its real size on the wire.
    let act = ClientMessage::Act {
        id: 1_000,
        table: "01JZ0000000000000000000000".to_owned(),
        action: Action::Play { card: Card::from_index(0) },
    };
    let text = serde_json::to_string(&act).context("serializing an action")?;
    let sockets: Vec<_> = stream::iter(0..connections)
        .map(|index| {
            let url = url.to_owned();
            async move {
                let connecting = connect_async_with_config(&url, None, true);
                let (socket, _) = tokio::time::timeout(PATIENCE, connecting)
                    .await
                    .with_context(|| format!("echo connection {index}: too slow"))?
                    .with_context(|| format!("echo connection {index} to {url}"))?;
                anyhow::Ok(socket)
            }
        })
        .buffer_unordered(CONNECT_CONCURRENCY)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;

    let before = server_pid.map(ProcessSample::read).transpose()?;
    let start = Instant::now();
    let end = start + duration;
    let mut echoing = JoinSet::new();
    for mut socket in sockets {
        let text = text.clone();
        echoing.spawn(async move {
            let mut latency = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3)?;
            while Instant::now() < end {
                let sent = Instant::now();
                socket.send(Message::Text(text.clone().into())).await?;
                loop {
                    let frame = tokio::time::timeout(PATIENCE, socket.next())
                        .await
                        .context("no echo in time")?;
                    match frame {
                        Some(Ok(Message::Text(_))) => break,
                        Some(Ok(_)) => continue,
                        Some(Err(error)) => return Err(error.into()),
                        None => bail!("the echo server closed the connection"),
                    }
                }
                let micros = u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX);
                latency.saturating_record(micros.max(1));
            }
            let _ = socket.close(None).await;
            anyhow::Ok(latency)
        });
    }
    let mut latency = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3)?;
    while let Some(finished) = echoing.join_next().await {
        latency.add(finished.context("an echo client failed")??)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let after = server_pid.map(ProcessSample::read).transpose()?;
    let round_trips = latency.len();
    let server_cpu_us_per_round_trip = match (before, after) {
        (Some(before), Some(after)) if round_trips > 0 => {
            Some((after.cpu_seconds - before.cpu_seconds) * 1e6 / round_trips as f64)
        }
        _ => None,
    };
    Ok(EchoReport {
        connections,
        seconds,
        round_trips,
        round_trips_per_second: round_trips as f64 / seconds,
        latency_ms: Latency::from_micros(&latency),
        server_cpu_us_per_round_trip,
    })
}
