//! Abusive clients, run beside the well-behaved tables: the server must
//! answer each with coded errors or cut it off, while the other tables keep
//! their latency.
//!
//! - The **flooder** sends thousands of messages a second on one
//!   connection, and reads the answers: actions (legal or not) and chat at
//!   its own table, malformed JSON, unknown types, protocol pings. When the
//!   server closes it, it reconnects with its token and carries on.
//! - The **oversized-frame sender** sends frames over the protocol's limit
//!   (which should get `too_large`), then one far past it (which should
//!   close the connection), and reconnects.
//! - The **connection hog** opens identified connections until the server
//!   refuses one, holds them all, and keeps knocking once a second.
//! - The **slow reader** watches busy tables with a tiny receive buffer and
//!   never reads its socket; after a while it reads what is there, to see
//!   whether and how the server cut it off, and starts again.
//!
//! Each abuser connects from its own loopback address (`127.2.0.N`, see
//! [`crate::net`]) when asked, so a per-address limit applies to it alone.
//! Each reports what the server did to it: connections accepted and
//! refused, errors by code, close codes.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use euchre_engine::{Action, Card};
use euchre_protocol::{
    ClientMessage, LobbyFilter, LobbyQuery, PROTOCOL_VERSION, Reply, ServerMessage, TableSettings,
    TableStatus,
};
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{MissedTickBehavior, interval, sleep, timeout};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::net::{self, Dial, Socket};
use crate::process::ProcessSample;
use crate::{Config, Report};

/// How long any one answer may take before an abuser gives up on it.
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// A pause before reconnecting once the server cut an abuser off or refused it.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);
/// The frames the oversized-frame sender sends on each connection: this many
/// just over the limit, then one far past it.
const OVER_LIMIT_FRAMES: usize = 50;
/// Just over the server's default 4 KiB limit, and far past its 64 KiB cap.
const OVER_LIMIT_BYTES: usize = 8 * 1024;
const HUGE_BYTES: usize = 1024 * 1024;
/// The slow reader's receive buffer (the kernel doubles it): a phone on a
/// bad network, or a client that stopped reading.
const SLOW_RECEIVE_BUFFER: u32 = 4096;
/// How long the slow reader reads, once it looks, before it counts a
/// connection the server still writes to as not cut off.
const SLOW_DRAIN: Duration = Duration::from_secs(3);
/// How often the hog knocks again once refused.
const HOG_KNOCK: Duration = Duration::from_secs(1);

/// One kind of abusive client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abuser {
    Flooder,
    OversizedFrames,
    ConnectionHog,
    SlowReader,
}

impl Abuser {
    pub const ALL: [Abuser; 4] =
        [Abuser::Flooder, Abuser::OversizedFrames, Abuser::ConnectionHog, Abuser::SlowReader];

    pub fn name(self) -> &'static str {
        match self {
            Abuser::Flooder => "flooder",
            Abuser::OversizedFrames => "oversized",
            Abuser::ConnectionHog => "hog",
            Abuser::SlowReader => "slow_reader",
        }
    }

    /// A comma-separated list of names, or `all`, or `none`.
    pub fn parse_list(text: &str) -> anyhow::Result<Vec<Abuser>> {
        match text {
            "all" => return Ok(Abuser::ALL.to_vec()),
            "none" | "" => return Ok(Vec::new()),
            _ => {}
        }
        text.split(',')
            .map(|name| {
                Abuser::ALL.into_iter().find(|a| a.name() == name.trim()).with_context(|| {
                    format!("no abuser {name:?}: flooder, oversized, hog, slow_reader, all, none")
                })
            })
            .collect()
    }
}

/// How the abusers run.
#[derive(Clone, Debug)]
pub struct AbuseConfig {
    pub url: String,
    pub abusers: Vec<Abuser>,
    /// Connect each abuser from its own loopback address (127.2.0.N).
    pub own_addresses: bool,
    /// Messages a second the flooder sends.
    pub flood_rate: u32,
    /// Busy tables the slow reader watches, and how long it holds still
    /// before looking at what it got.
    pub slow_watches: usize,
    pub slow_hold: Duration,
}

/// What the server did to one abuser.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AbuserReport {
    pub abuser: &'static str,
    /// Connections the server took (the WebSocket upgrade went through).
    pub connections_accepted: u64,
    /// Attempts the server turned away, by how (`http_429`, …).
    pub connections_refused: BTreeMap<String, u64>,
    pub frames_sent: u64,
    pub bytes_sent: u64,
    /// Commands the server carried out (`ack`s).
    pub acks: u64,
    /// `error` messages received, by code.
    pub errors: BTreeMap<String, u64>,
    /// How the server ended connections: a close code (`1008`), or
    /// `reset` / `ended` when the socket went without a close frame.
    pub closed_by_server: BTreeMap<String, u64>,
    /// Connections still open when the run stopped.
    pub open_at_end: u64,
    /// From the abuser's start to the server first ending one of its
    /// connections, in milliseconds.
    pub first_cut_off_ms: Option<u64>,
}

impl AbuserReport {
    fn new(abuser: Abuser) -> AbuserReport {
        AbuserReport { abuser: abuser.name(), ..AbuserReport::default() }
    }

    fn count_error(&mut self, code: &str) {
        *self.errors.entry(code.to_owned()).or_default() += 1;
    }

    fn cut_off(&mut self, how: String, started: Instant) {
        *self.closed_by_server.entry(how).or_default() += 1;
        self.first_cut_off_ms.get_or_insert(millis(started.elapsed()));
    }

    fn refused(&mut self, error: &anyhow::Error) {
        let how = match error.downcast_ref::<tungstenite::Error>() {
            Some(tungstenite::Error::Http(response)) => {
                format!("http_{}", response.status().as_u16())
            }
            Some(other) => other.to_string(),
            None => error.to_string(),
        };
        *self.connections_refused.entry(how).or_default() += 1;
    }

    fn sent(&mut self, bytes: usize) {
        self.frames_sent += 1;
        self.bytes_sent += bytes as u64;
    }

    /// One line for people.
    pub fn to_text(&self) -> String {
        let list = |map: &BTreeMap<String, u64>| {
            if map.is_empty() {
                "none".to_owned()
            } else {
                map.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
            }
        };
        let first = self.first_cut_off_ms.map_or("never".to_owned(), |ms| format!("{ms} ms"));
        format!(
            "{:<12} accepted {}, refused [{}], sent {} frames ({} KiB), acks {}, errors [{}], closed by the server [{}] (first after {first}), open at the end {}\n",
            self.abuser,
            self.connections_accepted,
            list(&self.connections_refused),
            self.frames_sent,
            self.bytes_sent / 1024,
            self.acks,
            list(&self.errors),
            list(&self.closed_by_server),
            self.open_at_end,
        )
    }
}

/// Runs every abuser until `stop` turns true, then reports on each.
pub async fn run(config: AbuseConfig, stop: watch::Receiver<bool>) -> Vec<AbuserReport> {
    let mut running = JoinSet::new();
    for (index, abuser) in config.abusers.iter().copied().enumerate() {
        let dial = Dial {
            source: config.own_addresses.then(|| net::loopback(2, index)),
            receive_buffer: None,
        };
        let (config, stop) = (config.clone(), stop.clone());
        running.spawn(async move {
            let report = match abuser {
                Abuser::Flooder => flooder(&config, dial, stop).await,
                Abuser::OversizedFrames => oversized(&config, dial, stop).await,
                Abuser::ConnectionHog => hog(&config, dial, stop).await,
                Abuser::SlowReader => slow_reader(&config, dial, stop).await,
            };
            (index, report)
        });
    }
    let mut reports: Vec<(usize, AbuserReport)> = running.join_all().await;
    reports.sort_by_key(|(index, _)| *index);
    reports.into_iter().map(|(_, report)| report).collect()
}

/// An identified connection, and what it learned on the way.
struct Connection {
    socket: Socket,
    token: String,
    next_id: u64,
}

impl Connection {
    /// Counts how a connection ended: cut off by the server (then pauses
    /// before the next try), or still open when the run stopped (then closes it).
    async fn ended(mut self, how: Option<String>, report: &mut AbuserReport, started: Instant) {
        match how {
            Some(how) => {
                report.cut_off(how, started);
                sleep(RECONNECT_PAUSE).await;
            }
            None => {
                report.open_at_end += 1;
                let _ = timeout(Duration::from_secs(2), self.socket.close(None)).await;
            }
        }
    }

    /// Connects and says hello, with `token` if there is one (an abuser
    /// comes back as itself), counting the attempt in `report`.
    async fn open(
        url: &str,
        dial: Dial,
        token: Option<&str>,
        report: &mut AbuserReport,
    ) -> Option<Connection> {
        let socket = match timeout(ANSWER_WAIT, net::connect(url, dial)).await {
            Ok(Ok(socket)) => socket,
            Ok(Err(error)) => {
                report.refused(&error);
                return None;
            }
            Err(_) => {
                *report.connections_refused.entry("timed_out".into()).or_default() += 1;
                return None;
            }
        };
        report.connections_accepted += 1;
        let mut connection = Connection { socket, token: String::new(), next_id: 0 };
        let hello = ClientMessage::Hello {
            id: connection.next_id(),
            protocol_version: PROTOCOL_VERSION,
            token: token.map(str::to_owned),
            name: token.is_none().then(|| "abuser".to_owned()),
        };
        match connection.command(hello, report).await {
            Ok(ServerMessage::Welcome { token, .. }) => {
                connection.token = token;
                Some(connection)
            }
            _ => None,
        }
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    async fn send_text(&mut self, text: String, report: &mut AbuserReport) -> bool {
        let bytes = text.len();
        let sent = self.socket.send(Message::Text(text.into())).await.is_ok();
        if sent {
            report.sent(bytes);
        }
        sent
    }

    /// Sends a command and reads until its answer (an `ack`, a `welcome`,
    /// or an `error`, returned as an error).
    async fn command(
        &mut self,
        message: ClientMessage,
        report: &mut AbuserReport,
    ) -> anyhow::Result<ServerMessage> {
        let id = message.id();
        let text = serde_json::to_string(&message)?;
        if !self.send_text(text, report).await {
            bail!("the connection is gone");
        }
        loop {
            let frame = timeout(ANSWER_WAIT, self.socket.next()).await.context("no answer")?;
            let Some(Ok(frame)) = frame else { bail!("the connection is gone") };
            let Message::Text(text) = frame else { continue };
            let Ok(message) = serde_json::from_str::<ServerMessage>(&text) else { continue };
            match &message {
                ServerMessage::Welcome { id: answer, .. } if *answer == id => return Ok(message),
                ServerMessage::Ack { id: answer, .. } if *answer == id => {
                    report.acks += 1;
                    return Ok(message);
                }
                ServerMessage::Error { id: Some(answer), code, .. } if *answer == id => {
                    report.count_error(&code.to_string());
                    bail!("refused: {code}");
                }
                _ => {}
            }
        }
    }
}

/// Counts one frame read from the server. `Some` when the connection ended,
/// with how.
fn observe(
    frame: Option<Result<Message, tungstenite::Error>>,
    report: &mut AbuserReport,
) -> Option<String> {
    match frame {
        Some(Ok(Message::Text(text))) => {
            match serde_json::from_str::<ServerMessage>(&text) {
                Ok(ServerMessage::Error { code, .. }) => report.count_error(&code.to_string()),
                Ok(ServerMessage::Ack { .. }) => report.acks += 1,
                _ => {}
            }
            None
        }
        Some(Ok(Message::Close(Some(close)))) => Some(u16::from(close.code).to_string()),
        Some(Ok(Message::Close(None))) => Some("close_without_code".to_owned()),
        Some(Ok(_)) => None,
        Some(Err(tungstenite::Error::Io(error)))
            if error.kind() == std::io::ErrorKind::ConnectionReset =>
        {
            Some("reset".to_owned())
        }
        Some(Err(tungstenite::Error::Protocol(
            tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
        ))) => Some("reset".to_owned()),
        Some(Err(error)) => Some(format!("error: {error}")),
        None => Some("ended".to_owned()),
    }
}

/// Reads what is left, for the server's close frame: `still_open` if none
/// came within `patience`.
async fn read_to_close(
    socket: &mut Socket,
    report: &mut AbuserReport,
    patience: Duration,
) -> String {
    let reading = async {
        loop {
            if let Some(how) = observe(socket.next().await, report) {
                return how;
            }
        }
    };
    timeout(patience, reading).await.unwrap_or_else(|_| "still_open".to_owned())
}

/// The flooder's own table: three bots and chat, so every kind of message
/// reaches a table actor.
async fn own_table(connection: &mut Connection, report: &mut AbuserReport) -> Option<String> {
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let id = connection.next_id();
    let table = match connection.command(ClientMessage::CreateTable { id, settings }, report).await
    {
        Ok(ServerMessage::Ack { reply: Reply::TableCreated { table, .. }, .. }) => table,
        _ => return None,
    };
    let id = connection.next_id();
    let sit = ClientMessage::Sit { id, table: table.clone(), seat: Some(0), invite: None };
    connection.command(sit, report).await.ok()?;
    Some(table)
}

/// The `n`th message of a flood: valid commands and invalid ones in turn.
fn flood_message(n: u64, table: &str) -> String {
    let act = |action| {
        serde_json::to_string(&ClientMessage::Act { id: n, table: table.to_owned(), action })
    };
    let text = match n % 6 {
        // Often not this seat's turn, or not legal now: refused by the table.
        0 => act(Action::Pass),
        1 => act(Action::Play { card: Card::from_index((n / 6 % 24) as u8) }),
        2 => serde_json::to_string(&ClientMessage::Chat {
            id: n,
            table: table.to_owned(),
            text: format!("flood {n}"),
        }),
        3 => Ok(format!("{{\"type\":\"act\",\"id\":{n},\"table\":")),
        4 => Ok(format!("{{\"type\":\"shout\",\"id\":{n}}}")),
        _ => serde_json::to_string(&ClientMessage::Ping { id: n }),
    };
    text.unwrap_or_default()
}

async fn flooder(config: &AbuseConfig, dial: Dial, stop: watch::Receiver<bool>) -> AbuserReport {
    let mut report = AbuserReport::new(Abuser::Flooder);
    let started = Instant::now();
    let mut token: Option<String> = None;
    let mut table: Option<String> = None;
    let mut n = 0u64;
    // Sent in batches every 10 ms: timers are not finer than a millisecond.
    let per_tick = u64::from(config.flood_rate.div_ceil(100).max(1));
    while !*stop.borrow() {
        let Some(mut connection) =
            Connection::open(&config.url, dial, token.as_deref(), &mut report).await
        else {
            sleep(RECONNECT_PAUSE).await;
            continue;
        };
        token = Some(connection.token.clone());
        // The table is made once; coming back, the flooder only watches it
        // (as its seated player, so its actions still count as the seat's).
        let joined = match &table {
            None => {
                table = own_table(&mut connection, &mut report).await;
                table.is_some()
            }
            Some(table) => {
                let id = connection.next_id();
                let watch = ClientMessage::Watch { id, table: table.clone(), invite: None };
                connection.command(watch, &mut report).await.is_ok()
            }
        };
        let target = table.clone().unwrap_or_default();
        if !joined {
            sleep(RECONNECT_PAUSE).await;
            continue;
        }
        let mut ticks = interval(Duration::from_millis(10));
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut stop = stop.clone();
        let ended = loop {
            tokio::select! {
                _ = stop.changed() => break None,
                frame = connection.socket.next() => {
                    if let Some(how) = observe(frame, &mut report) {
                        break Some(how);
                    }
                }
                _ = ticks.tick() => {
                    let mut failed = false;
                    for _ in 0..per_tick {
                        n += 1;
                        let text = flood_message(n, &target);
                        let bytes = text.len();
                        if connection.socket.feed(Message::Text(text.into())).await.is_err() {
                            failed = true;
                            break;
                        }
                        report.sent(bytes);
                    }
                    if failed || connection.socket.flush().await.is_err() {
                        break Some(read_to_close(&mut connection.socket, &mut report, ANSWER_WAIT).await);
                    }
                }
            }
        };
        connection.ended(ended, &mut report, started).await;
    }
    report
}

async fn oversized(config: &AbuseConfig, dial: Dial, stop: watch::Receiver<bool>) -> AbuserReport {
    let mut report = AbuserReport::new(Abuser::OversizedFrames);
    let started = Instant::now();
    let mut token: Option<String> = None;
    while !*stop.borrow() {
        let Some(mut connection) =
            Connection::open(&config.url, dial, token.as_deref(), &mut report).await
        else {
            sleep(RECONNECT_PAUSE).await;
            continue;
        };
        token = Some(connection.token.clone());
        let mut ticks = interval(Duration::from_millis(10));
        let mut stop = stop.clone();
        let mut frames = 0;
        let ended = loop {
            tokio::select! {
                _ = stop.changed() => break None,
                frame = connection.socket.next() => {
                    if let Some(how) = observe(frame, &mut report) {
                        break Some(how);
                    }
                }
                _ = ticks.tick() => {
                    // A chat line padded past the limit, then one past the hard cap.
                    let size = if frames < OVER_LIMIT_FRAMES { OVER_LIMIT_BYTES } else { HUGE_BYTES };
                    frames += 1;
                    let padding = "x".repeat(size);
                    let text = format!(
                        "{{\"type\":\"chat\",\"id\":{frames},\"table\":\"none\",\"text\":\"{padding}\"}}"
                    );
                    let sent = connection.send_text(text, &mut report).await;
                    // After the huge one there is nothing to do but see how it ends.
                    if !sent || size == HUGE_BYTES {
                        break Some(read_to_close(&mut connection.socket, &mut report, ANSWER_WAIT).await);
                    }
                }
            }
        };
        connection.ended(ended, &mut report, started).await;
    }
    report
}

async fn hog(config: &AbuseConfig, dial: Dial, stop: watch::Receiver<bool>) -> AbuserReport {
    let mut report = AbuserReport::new(Abuser::ConnectionHog);
    let started = Instant::now();
    let mut token: Option<String> = None;
    let mut held = JoinSet::new();
    let mut refused_once = false;
    while !*stop.borrow() {
        match Connection::open(&config.url, dial, token.as_deref(), &mut report).await {
            Some(connection) => {
                token = Some(connection.token.clone());
                let mut stop = stop.clone();
                let mut socket = connection.socket;
                // Held: read (which answers the server's pings) until the end.
                held.spawn(async move {
                    let mut scratch = AbuserReport::default();
                    loop {
                        tokio::select! {
                            _ = stop.changed() => {
                                let _ = timeout(Duration::from_secs(2), socket.close(None)).await;
                                return (None, scratch);
                            }
                            frame = socket.next() => {
                                if let Some(how) = observe(frame, &mut scratch) {
                                    return (Some((how, Instant::now())), scratch);
                                }
                            }
                        }
                    }
                });
            }
            None => {
                refused_once = true;
            }
        }
        // Open as fast as the server takes them; once refused, knock now and then.
        if refused_once {
            let mut stop = stop.clone();
            tokio::select! {
                _ = stop.changed() => {}
                () = sleep(HOG_KNOCK) => {}
            }
        }
    }
    while let Some(Ok((ended, seen))) = held.join_next().await {
        for (code, count) in seen.errors {
            *report.errors.entry(code).or_default() += count;
        }
        match ended {
            Some((how, at)) => {
                *report.closed_by_server.entry(how).or_default() += 1;
                let ms = millis(at - started);
                report.first_cut_off_ms =
                    Some(report.first_cut_off_ms.map_or(ms, |first| first.min(ms)));
            }
            None => report.open_at_end += 1,
        }
    }
    report
}

async fn slow_reader(
    config: &AbuseConfig,
    dial: Dial,
    stop: watch::Receiver<bool>,
) -> AbuserReport {
    let mut report = AbuserReport::new(Abuser::SlowReader);
    let started = Instant::now();
    let dial = Dial { receive_buffer: Some(SLOW_RECEIVE_BUFFER), ..dial };
    let mut token: Option<String> = None;
    while !*stop.borrow() {
        let Some(mut connection) =
            Connection::open(&config.url, dial, token.as_deref(), &mut report).await
        else {
            sleep(RECONNECT_PAUSE).await;
            continue;
        };
        token = Some(connection.token.clone());
        let busy = match busy_tables(&mut connection, config.slow_watches, &mut report).await {
            Ok(busy) => busy,
            Err(CutOff { how }) => {
                // Cut off before it even stopped reading (the lobby).
                report.cut_off(format!("{how} (reading the lobby)"), started);
                sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if busy.is_empty() {
            // Nothing to watch yet (the tables are still being set up).
            let _ = timeout(Duration::from_secs(2), connection.socket.close(None)).await;
            sleep(Duration::from_secs(1)).await;
            continue;
        }
        for table in busy {
            let id = connection.next_id();
            let text = serde_json::to_string(&ClientMessage::Watch { id, table, invite: None })
                .unwrap_or_default();
            if !connection.send_text(text, &mut report).await {
                break;
            }
        }
        // Now read nothing for a while.
        let mut stop = stop.clone();
        let stopped = tokio::select! {
            _ = stop.changed() => true,
            () = sleep(config.slow_hold) => false,
        };
        // Then see what the server did: read until a close, or until it is
        // clear the connection is still being written to.
        let how = read_to_close(&mut connection.socket, &mut report, SLOW_DRAIN).await;
        if how == "still_open" {
            report.open_at_end += u64::from(stopped);
            let _ = timeout(Duration::from_secs(2), connection.socket.close(None)).await;
            if !stopped {
                *report.closed_by_server.entry("not_cut_off".into()).or_default() += 1;
            }
        } else {
            report.cut_off(how, started);
        }
    }
    report
}

/// The connection ended before the lobby was read: how (a close code,
/// `reset`, `ended`, …), as the report counts it.
#[derive(Debug, thiserror::Error)]
#[error("{how}")]
struct CutOff {
    how: String,
}

/// Up to `wanted` public tables in play, from the lobby, a page at a time;
/// `Err` with how the connection ended if it did.
async fn busy_tables(
    connection: &mut Connection,
    wanted: usize,
    report: &mut AbuserReport,
) -> Result<Vec<String>, CutOff> {
    let filter = LobbyFilter { status: Some(TableStatus::Playing), ..LobbyFilter::default() };
    let mut query =
        LobbyQuery { filter, limit: Some(euchre_protocol::LOBBY_PAGE_MAX), after: None };
    let mut found = Vec::new();
    while found.len() < wanted {
        let message = ClientMessage::ListTables { id: connection.next_id(), query: query.clone() };
        if !connection.send_text(serde_json::to_string(&message).unwrap_or_default(), report).await
        {
            return Err(CutOff { how: "ended".to_owned() });
        }
        let reading = async {
            loop {
                let frame = connection.socket.next().await;
                if let Some(Ok(Message::Text(text))) = &frame
                    && let Ok(ServerMessage::Lobby(page)) = serde_json::from_str(text)
                {
                    return Ok(Some(page));
                }
                if let Some(how) = observe(frame, report) {
                    return Err(CutOff { how });
                }
            }
        };
        let Some(page) = timeout(ANSWER_WAIT, reading).await.unwrap_or(Ok(None))? else { break };
        found.extend(page.tables.into_iter().map(|t| t.table));
        match page.next {
            Some(next) => query.after = Some(next),
            None => break,
        }
    }
    found.truncate(wanted);
    Ok(found)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The server's resident memory over a run, sampled twice a second.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MemoryWatch {
    pub start_kib: u64,
    pub max_kib: u64,
    pub end_kib: u64,
}

/// A play run with abusers beside it.
#[derive(Debug, Serialize)]
pub struct AbuseRun {
    pub play: Report,
    pub abusers: Vec<AbuserReport>,
    /// With the server's pid.
    pub server_memory: Option<MemoryWatch>,
}

impl AbuseRun {
    pub fn to_text(&self) -> String {
        let mut text = self.play.to_text();
        if self.abusers.is_empty() {
            text += "abusers         none\n";
        }
        for abuser in &self.abusers {
            text += &abuser.to_text();
        }
        if let Some(memory) = self.server_memory {
            text += &format!(
                "server RSS      {} KiB at the start, {} KiB at most, {} KiB at the end\n",
                memory.start_kib, memory.max_kib, memory.end_kib
            );
        }
        text
    }
}

/// Plays `play` (see [`crate::run`]) with the abusers of `abuse` running
/// beside it from start to end, and, given its pid, watches the server's
/// memory.
pub async fn run_beside(
    play: &Config,
    abuse: AbuseConfig,
    server_pid: Option<u32>,
) -> anyhow::Result<AbuseRun> {
    let (stop, stopped) = watch::channel(false);
    let abusers = tokio::spawn(run(abuse, stopped.clone()));
    let memory = server_pid.map(|pid| tokio::spawn(watch_memory(pid, stopped)));
    let report = crate::run(play).await;
    stop.send_replace(true);
    let abusers = abusers.await.context("the abusers failed")?;
    let server_memory = match memory {
        Some(task) => Some(task.await.context("the memory watch failed")??),
        None => None,
    };
    Ok(AbuseRun { play: report?, abusers, server_memory })
}

async fn watch_memory(pid: u32, mut stop: watch::Receiver<bool>) -> anyhow::Result<MemoryWatch> {
    let start = ProcessSample::read(pid)?.rss_kib;
    let mut watch = MemoryWatch { start_kib: start, max_kib: start, end_kib: start };
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            () = sleep(Duration::from_millis(500)) => {}
        }
        let rss = ProcessSample::read(pid)?.rss_kib;
        watch.max_kib = watch.max_kib.max(rss);
        watch.end_kib = rss;
    }
    watch.end_kib = ProcessSample::read(pid)?.rss_kib;
    watch.max_kib = watch.max_kib.max(watch.end_kib);
    Ok(watch)
}
