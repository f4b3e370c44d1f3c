//! The yardstick for flat-out play: a bare WebSocket echo server on the same
//! stack as the game server (tokio, axum, the same socket settings), and
//! clients that send it an action-sized message and wait for it back, as
//! fast as they can.
//!
//! Round trips per second through the echo, with the same client and the
//! same number of connections, is the most the machine could give a game
//! that did nothing: [`serve`] and [`run`] measure it, and the flat-out
//! figures are quoted as a share of it.
//!
//! An action is not one round trip, though: one frame comes in and every
//! seat of the table gets one out. The relay ([`run_relay`], at `/relay/N`
//! on the same server) is the yardstick for that shape: connections in
//! groups of a table's size, one member at a time sending a frame that the
//! server hands to every member through its own queue and task, as the game
//! server does, with no game, no journal and no database. Messages relayed
//! per second is the most a game server with per-seat delivery could
//! acknowledge here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::ws::{Message as AxumMessage, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::serve::ListenerExt;
use euchre_client::socket_config;
use euchre_engine::{Action, Card};
use euchre_protocol::ClientMessage;
use euchre_store::Write;
use euchre_store::journal::Journal;
use futures_util::future::try_join_all;
use futures_util::{SinkExt, StreamExt, TryStreamExt, stream};
use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

use crate::Latency;
use crate::player::PATIENCE;
use crate::process::CpuClock;
use crate::samples::{self, Samples};

/// Connections opened at once.
const CONNECT_CONCURRENCY: usize = 64;

/// The frame the relay sends a member once it is in its group, so that
/// clients start only when every member will hear every message.
const JOINED: &str = "joined";

/// Queued frames per relay member.
const RELAY_QUEUE: usize = 64;

/// Frames a durable group journals before it checkpoints them (nothing
/// reads them back: the checkpoint only lets the journal reclaim space).
const CHECKPOINT_EVERY: u32 = 256;

/// Every relay group, by group number.
type Groups = Arc<Mutex<HashMap<u64, Arc<Group>>>>;

/// The yardsticks' state: the relay's groups, and the durable relay's
/// groups with their journal (none: no `/durable`).
#[derive(Clone, Default)]
struct Yardsticks {
    relay: Groups,
    durable: Groups,
    journal: Option<Arc<Journal>>,
}

/// One relay group: its members' queues (a `std` mutex: never held across
/// an await), and in the durable relay its task, where frames go first.
#[derive(Default)]
struct Group {
    members: Mutex<Vec<mpsc::Sender<Utf8Bytes>>>,
    task: OnceLock<mpsc::UnboundedSender<Utf8Bytes>>,
}

/// Serves `/ws` on `listener`, echoing every text frame, and `/relay/N`,
/// handing every text frame to each member of group N, until the process
/// ends. With a `journal` folder, `/durable/N` too: the relay through a
/// task per group and the game server's journal.
///
/// Its sockets are set up as the game server sets up its own: no Nagle, a
/// 2 KiB read buffer, frames flushed one by one.
pub async fn serve(listener: TcpListener, journal: Option<&std::path::Path>) -> anyhow::Result<()> {
    let journal = match journal {
        Some(dir) => {
            let opened = Journal::open(dir).context("opening the durable relay's journal")?;
            Some(Arc::new(opened.journal))
        }
        None => None,
    };
    let yardsticks = Yardsticks { journal, ..Yardsticks::default() };
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/relay/{group}", get(relay))
        .route("/durable/{group}", get(durable_relay))
        .with_state(yardsticks);
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

async fn relay(
    Path(group): Path<u64>,
    State(yardsticks): State<Yardsticks>,
    upgrade: WebSocketUpgrade,
) -> axum::response::Response {
    let group = group_of(&yardsticks.relay, group);
    member_upgrade(upgrade, group, None)
}

async fn durable_relay(
    Path(number): Path<u64>,
    State(yardsticks): State<Yardsticks>,
    upgrade: WebSocketUpgrade,
) -> axum::response::Response {
    let Some(journal) = yardsticks.journal else {
        return (axum::http::StatusCode::NOT_FOUND, "no journal: start with --echo-journal")
            .into_response();
    };
    let group = group_of(&yardsticks.durable, number);
    let task = group
        .task
        .get_or_init(|| {
            let (frames, inbox) = mpsc::unbounded_channel();
            tokio::spawn(journal_then_relay(group.clone(), journal, inbox));
            frames
        })
        .clone();
    member_upgrade(upgrade, group, Some(task))
}

fn group_of(groups: &Groups, number: u64) -> Arc<Group> {
    let mut groups = groups.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    groups.entry(number).or_default().clone()
}

fn member_upgrade(
    upgrade: WebSocketUpgrade,
    group: Arc<Group>,
    task: Option<mpsc::UnboundedSender<Utf8Bytes>>,
) -> axum::response::Response {
    upgrade
        .read_buffer_size(2048)
        .write_buffer_size(0)
        .on_upgrade(move |socket| relay_member(socket, group, task))
}

/// One relay member: its socket's frames go to every member's queue (or,
/// in the durable relay, to the group's task), and its own queue goes to
/// its socket.
async fn relay_member(
    mut socket: WebSocket,
    group: Arc<Group>,
    task: Option<mpsc::UnboundedSender<Utf8Bytes>>,
) {
    let (queue, mut queued) = mpsc::channel(RELAY_QUEUE);
    lock(&group).push(queue.clone());
    if socket.send(AxumMessage::Text(JOINED.into())).await.is_ok() {
        loop {
            tokio::select! {
                frame = socket.recv() => match frame {
                    Some(Ok(AxumMessage::Text(text))) => match &task {
                        Some(task) => {
                            if task.send(text).is_err() {
                                break;
                            }
                        }
                        None => hand_to_members(&group, &text),
                    },
                    Some(Ok(AxumMessage::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                },
                Some(text) = queued.recv() => {
                    if socket.send(AxumMessage::Text(text)).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    lock(&group).retain(|member| !member.same_channel(&queue));
}

fn hand_to_members(group: &Group, text: &Utf8Bytes) {
    for member in lock(group).iter() {
        // A member that cannot keep up misses frames; its client times out.
        let _ = member.try_send(text.clone());
    }
}

/// A durable group's task, as a table's: journals each frame's record and
/// hands the frame to the members once the journal has synced it.
async fn journal_then_relay(
    group: Arc<Group>,
    journal: Arc<Journal>,
    mut frames: mpsc::UnboundedReceiver<Utf8Bytes>,
) {
    let (synced, mut durable) = mpsc::unbounded_channel();
    let mut index: u32 = 0;
    loop {
        tokio::select! {
            Some(text) = frames.recv() => {
                index = index.wrapping_add(1);
                let synced = synced.clone();
                let record = vec![action_record(index)];
                let appended = journal.append_then(record, move |result| {
                    let _ = synced.send((text, result));
                });
                if appended.is_err() {
                    return;
                }
            }
            Some((text, result)) = durable.recv() => {
                let Ok(lsn) = result else { return };
                hand_to_members(&group, &text);
                if lsn % u64::from(CHECKPOINT_EVERY) == 0 {
                    journal.checkpoint(lsn);
                }
            }
            else => return,
        }
    }
}

/// The record a table journals for a card played: the durable relay's
/// write, the same size.
fn action_record(index: u32) -> Write {
    Write::Action {
        match_id: "01JZ0000000000000000000000".to_owned(),
        hand: index / 24 + 1,
        index: index % 24,
        seat: (index % 4) as u8,
        action: Action::Play { card: Card::from_index((index % 24) as u8) },
        seq: u64::from(index),
        at: 1_764_000_000_000,
    }
}

fn lock(group: &Group) -> std::sync::MutexGuard<'_, Vec<mpsc::Sender<Utf8Bytes>>> {
    group.members.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What an echo or relay run measured.
#[derive(Debug, Serialize)]
pub struct EchoReport {
    /// The yardstick: `echo`, `relay` or `durable relay`.
    pub yardstick: &'static str,
    /// Connections that each frame reaches: 1 for the echo, a group's size for the relay.
    pub fan_out: usize,
    pub connections: usize,
    pub seconds: f64,
    pub round_trips: u64,
    pub round_trips_per_second: f64,
    /// Send to echo, in milliseconds.
    pub latency_ms: Latency,
    /// The echo server's CPU time per round trip, in microseconds (with its pid).
    pub server_cpu_us_per_round_trip: Option<f64>,
    /// The load generator's own CPU time per round trip, in microseconds.
    pub load_generator_cpu_us_per_round_trip: Option<f64>,
}

impl EchoReport {
    pub fn to_text(&self) -> String {
        let l = &self.latency_ms;
        let kind = match self.fan_out {
            1 => self.yardstick.to_owned(),
            n => format!("{} to groups of {n}", self.yardstick),
        };
        let mut text = format!(
            "{kind}: {} connections for {:.2} s\n\
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
        if let Some(cpu) = self.load_generator_cpu_us_per_round_trip {
            text += &format!("load generator  {cpu:.1} µs of CPU per round trip\n");
        }
        text
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

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
    let text = action_text()?;
    let sockets = connect_all(vec![url.to_owned(); connections]).await?;

    let cpu = CpuClock::start(server_pid)?;
    let start = Instant::now();
    let end = start + duration;
    let mut echoing = JoinSet::new();
    for mut socket in sockets {
        let text = text.clone();
        echoing.spawn(async move {
            let mut latency = Samples::new()?;
            while Instant::now() < end {
                let sent = Instant::now();
                socket.send(Message::Text(text.clone().into())).await?;
                next_text(&mut socket).await?;
                record(&mut latency, sent);
            }
            let _ = socket.close(None).await;
            anyhow::Ok(latency.into_histogram())
        });
    }
    report("echo", 1, connections, start, echoing, cpu).await
}

/// Opens `groups` groups of `members` connections to the relay at `url`
/// (`ws://host:port/relay`, or `/durable` for the durable relay). In each
/// group the members take turns, as a table's seats do: one sends an
/// action-sized message and the next turn starts once every member has
/// read it; for `duration`.
pub async fn run_relay(
    url: &str,
    groups: usize,
    members: usize,
    duration: Duration,
    server_pid: Option<u32>,
) -> anyhow::Result<EchoReport> {
    if groups == 0 || members == 0 {
        bail!("no groups to relay to");
    }
    let text = action_text()?;
    let urls = (0..groups * members).map(|index| format!("{url}/{}", index / members)).collect();
    let mut sockets = connect_all(urls).await?;
    // Every member is in its group once it has heard so.
    for socket in &mut sockets {
        next_text(socket).await?;
    }

    let cpu = CpuClock::start(server_pid)?;
    let start = Instant::now();
    let end = start + duration;
    let mut relaying = JoinSet::new();
    while !sockets.is_empty() {
        let mut group: Vec<Socket> = sockets.drain(..members).collect();
        let text = text.clone();
        relaying.spawn(async move {
            let mut latency = Samples::new()?;
            let mut turn = 0;
            while Instant::now() < end {
                let sent = Instant::now();
                group[turn % members].send(Message::Text(text.clone().into())).await?;
                try_join_all(group.iter_mut().map(next_text)).await?;
                record(&mut latency, sent);
                turn += 1;
            }
            for socket in &mut group {
                let _ = socket.close(None).await;
            }
            anyhow::Ok(latency.into_histogram())
        });
    }
    // The durable relay's clients are the relay's; only the path differs.
    let yardstick = if url.ends_with("/durable") { "durable relay" } else { "relay" };
    report(yardstick, members, groups * members, start, relaying, cpu).await
}

/// What a seat sends most: an action, at its real size on the wire.
fn action_text() -> anyhow::Result<String> {
    let act = ClientMessage::Act {
        id: 1_000,
        table: "01JZ0000000000000000000000".to_owned(),
        action: Action::Play { card: Card::from_index(0) },
    };
    serde_json::to_string(&act).context("serializing an action")
}

async fn connect_all(urls: Vec<String>) -> anyhow::Result<Vec<Socket>> {
    stream::iter(urls.into_iter().enumerate())
        .map(|(index, url)| async move {
            let connecting = connect_async_with_config(&url, Some(socket_config()), true);
            let (socket, _) = tokio::time::timeout(PATIENCE, connecting)
                .await
                .with_context(|| format!("connection {index}: too slow"))?
                .with_context(|| format!("connection {index} to {url}"))?;
            anyhow::Ok(socket)
        })
        .buffered(CONNECT_CONCURRENCY)
        .try_collect()
        .await
}

/// Reads up to the next text frame.
async fn next_text(socket: &mut Socket) -> anyhow::Result<()> {
    loop {
        let frame =
            tokio::time::timeout(PATIENCE, socket.next()).await.context("no echo in time")?;
        match frame {
            Some(Ok(Message::Text(_))) => return Ok(()),
            Some(Ok(_)) => continue,
            Some(Err(error)) => return Err(error.into()),
            None => bail!("the echo server closed the connection"),
        }
    }
}

fn record(latency: &mut Samples, sent: Instant) {
    latency.record(u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX));
}

/// Adds up the clients' histograms and the server's CPU into a report.
async fn report(
    yardstick: &'static str,
    fan_out: usize,
    connections: usize,
    start: Instant,
    mut clients: JoinSet<anyhow::Result<Histogram<u64>>>,
    cpu: CpuClock,
) -> anyhow::Result<EchoReport> {
    let mut latency = samples::histogram()?;
    while let Some(finished) = clients.join_next().await {
        latency.add(finished.context("an echo client failed")??)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let round_trips = latency.len();
    let (load_generator_cpu_us_per_round_trip, server_cpu_us_per_round_trip) =
        cpu.per(round_trips)?;
    Ok(EchoReport {
        yardstick,
        fan_out,
        connections,
        seconds,
        round_trips,
        round_trips_per_second: round_trips as f64 / seconds,
        latency_ms: Latency::from_micros(&latency),
        server_cpu_us_per_round_trip,
        load_generator_cpu_us_per_round_trip,
    })
}
