//! Cluster mode: this node's part in a cluster of Euchre servers on NATS
//! JetStream and PostgreSQL (issue #16; docs/architecture.md, part two).
//!
//! - **Ownership.** The lease loop ([`euchre_cluster::Ownership`]) reports
//!   the shards this node gains and loses. On a gain the node fences the
//!   shard's log and reads it, restores the shard's open tables, answers
//!   the shard's commands (`euchre.cmd.<shard>`), and tells every node the
//!   shard moved (`euchre.moved.<shard>`): their connections at its tables
//!   close, and their clients resume. On a loss it appends nothing more for
//!   the shard and stops its tables.
//! - **Durability.** A table's writes go to its shard's log
//!   ([`ShardLogs`]) before anything they caused is sent; once stored they
//!   also go to the local journal, on their way to PostgreSQL for history.
//!   Once a closed table's last write is in PostgreSQL, its records are
//!   purged from the log; a closed table a take-over finds there (its owner
//!   died first) is recorded again and purged the same way.
//! - **Remote connections.** A command for a table another node owns is a
//!   NATS request to its shard's subject; the owner answers "accepted" or
//!   the refusal, and the command's own answer comes the way of events: the
//!   owner projects every message for its receiver, as for a local one, and
//!   publishes it to `euchre.to.<node>` addressed to that one connection,
//!   numbered, so the receiving node sees any gap (and closes the
//!   connection, whose client resumes) rather than skipping a message.
//! - **Lobby.** Each node writes its tables' summaries to the `euchre_lobby`
//!   bucket and watches the bucket to list every other node's tables.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::{self, kv};
use bytes::Bytes;
use euchre_cluster::{
    Change, Leases, LogConfig, LogError, Ownership, Shard, ShardLog, ShardLogs, Validity, shard_of,
};
use euchre_protocol::{CommandId, ErrorCode, Occupant, PlayerInfo, ServerMessage, TableId};
use euchre_store::Write;
use euchre_store::durable::{Durability, Then};
use euchre_store::journal::Lsn;
use euchre_store::writer::{Health, Recorder};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::frame::Frame;
use crate::registry::Mirrored;
use crate::state::AppState;
use crate::table::{ConnId, Outbox, Request, TableCommand, TableMessage};

/// The buckets every node of a cluster shares.
const OWNERS: &str = "euchre_owners";
const NODES: &str = "euchre_nodes";
const LOBBY: &str = "euchre_lobby";
/// How long a node waits before taking a shard over again.
const RETAKE_PAUSE: Duration = Duration::from_millis(200);
/// The longest wait between tries of a closed table's purge.
const PURGE_PAUSE_MAX: Duration = Duration::from_secs(5);
/// How long a node waits for a table's owner to accept a command.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Headers of a message to another node's connection.
const CONN: &str = "Euchre-Conn";
const STREAM: &str = "Euchre-Stream";
const NUMBER: &str = "Euchre-N";
const CLOSE: &str = "Euchre-Close";

/// This node of the cluster.
#[derive(Debug)]
pub struct Node {
    id: String,
    shards: Shard,
    client: async_nats::Client,
    js: jetstream::Context,
    log_config: LogConfig,
    logs: ShardLogs,
    durability: Arc<Logged>,
    /// Until when the lease loop surely holds each shard.
    validity: Validity,
    /// The lease loop's changes: a shard whose log stopped is taken over
    /// again by sending its gain anew.
    changes: mpsc::UnboundedSender<Change>,
    /// The nodes' heartbeats: which nodes are alive.
    nodes: Leases,
    /// Shards this node owns, each with the token that stops its tables.
    owned: Mutex<HashMap<Shard, CancellationToken>>,
    shutdown: CancellationToken,
    /// This node's connections, for what owners send them.
    locals: Mutex<HashMap<ConnId, Local>>,
    /// Other nodes' connections at this node's tables: (node, conn) → here.
    remotes: Mutex<HashMap<(String, ConnId), Remote>>,
    outbound_queue: usize,
    /// Every table of the cluster (the lobby, private tables too).
    registry: crate::registry::Registry,
}

/// One of this node's connections.
#[derive(Debug)]
struct Local {
    outbox: Outbox,
    too_slow: CancellationToken,
    moved: CancellationToken,
    /// Other nodes' tables it joined.
    tables: HashSet<TableId>,
    /// The last number seen from each owner's stream to it.
    streams: HashMap<String, u64>,
}

/// Another node's connection, as this node's tables see it.
#[derive(Debug)]
struct Remote {
    conn: ConnId,
    tx: mpsc::WeakSender<Frame>,
    too_slow: CancellationToken,
    /// This node's tables it sent a command to.
    tables: HashSet<TableId>,
}

/// What a node sends a shard's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ToOwner {
    Command(RemoteCommand),
    /// The connection closed: the table treats it as disconnected.
    Left {
        table: TableId,
        node: String,
        conn: ConnId,
    },
}

/// A command of another node's connection `conn`, for the table here.
#[derive(Debug, Serialize, Deserialize)]
struct RemoteCommand {
    table: TableId,
    id: CommandId,
    node: String,
    conn: ConnId,
    player: PlayerInfo,
    request: Request,
}

/// The owner's answer to a command: the command's own answer (ack or
/// refusal by the table) comes later, with the events.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Answer {
    Accepted,
    Refused { code: String, message: String },
}

/// A lobby entry in the bucket.
#[derive(Debug, Serialize, Deserialize)]
struct Listing {
    summary: euchre_protocol::TableSummary,
    host_id: String,
}

/// The cluster's durability: the shard's log (the truth), then the local
/// journal on the way to PostgreSQL (history, idempotent).
#[derive(Debug)]
struct Logged {
    logs: ShardLogs,
    history: History,
}

/// A table's writes on their way to PostgreSQL through the local journal,
/// and closed tables on their way out of the log once PostgreSQL has them.
#[derive(Clone, Debug)]
struct History {
    recorder: Recorder,
    /// A closed table, with the journal's LSN of its last write.
    closed: mpsc::UnboundedSender<(TableId, Lsn)>,
    /// Tables some of whose writes the journal refused here: when one
    /// closes, its records stay in the log (they are its only whole
    /// history), for its shard's next take-over to record again.
    unsure: Arc<Mutex<HashSet<TableId>>>,
}

impl History {
    /// Journals `writes` of `table` for PostgreSQL; `whole` when they are
    /// all its writes (read back from the log). If they close the table,
    /// its purge waits for PostgreSQL to have them. Never waits itself.
    fn record(&self, table: &str, writes: Vec<Write>, whole: bool) {
        let closes = writes.iter().any(|write| matches!(write, Write::TableClosed { .. }));
        let (table, closed, unsure) = (table.to_owned(), self.closed.clone(), self.unsure.clone());
        // On the journal's thread, in the order journaled: short.
        self.recorder.record_at(writes, move |journaled| match journaled {
            Ok(lsn) => {
                let missed = if whole {
                    // All its writes are journaled now, whatever missed before.
                    lock(&unsure).remove(&table);
                    false
                } else if closes {
                    // The table is done here either way.
                    lock(&unsure).remove(&table)
                } else {
                    false
                };
                if closes && missed {
                    tracing::warn!(%table, "a closed table's history missed the journal here: it stays in the log");
                } else if closes {
                    let _ = closed.send((table, lsn));
                }
            }
            Err(error) => {
                tracing::error!(%table, %error, "a table's history missed the journal");
                if !closes {
                    lock(&unsure).insert(table);
                }
            }
        });
    }
}

impl Durability for Logged {
    fn keep(&self, table: &str, writes: Vec<Write>, then: Then) {
        let history = self.history.clone();
        let copy = writes.clone();
        let table_id = table.to_owned();
        self.logs.keep(
            table,
            writes,
            Box::new(move |result| {
                if result.is_ok() {
                    history.record(&table_id, copy, false);
                }
                then(result);
            }),
        );
    }
}

/// Purges each closed table from its shard's log once PostgreSQL has its
/// last write (`stored_through`: the journal is stored in order, so it has
/// all the table's writes then). Neither the table nor any acknowledgement
/// waits for this.
async fn purge_closed(
    logs: ShardLogs,
    health: Arc<Health>,
    mut closed: mpsc::UnboundedReceiver<(TableId, Lsn)>,
    shutdown: CancellationToken,
) {
    loop {
        let (table, lsn) = tokio::select! {
            next = closed.recv() => match next {
                Some(next) => next,
                None => return,
            },
            () = shutdown.cancelled() => return,
        };
        let (logs, health, shutdown) = (logs.clone(), health.clone(), shutdown.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = health.stored_through(lsn) => {}
                () = shutdown.cancelled() => return,
            }
            purge_stored(&logs, &table, &shutdown).await;
        });
    }
}

/// Purges a closed table whose history PostgreSQL has, trying again while
/// it fails (NATS away, the lease not surely held for a moment) and the
/// shard is still this node's. A shard given up (or whose log stopped
/// here) leaves the table to the take-over that follows, which reads it,
/// records it again and purges it.
async fn purge_stored(logs: &ShardLogs, table: &str, shutdown: &CancellationToken) {
    let mut pause = RETAKE_PAUSE;
    loop {
        match logs.purge(table).await {
            Ok(purged) => {
                tracing::debug!(%table, purged, "a closed table left its shard's log");
                return;
            }
            Err(LogError::Fenced(shard)) => {
                tracing::debug!(%table, shard, "a closed table is left to its shard's next take-over");
                return;
            }
            Err(error @ (LogError::BadTable(_) | LogError::Corrupt(..))) => {
                tracing::error!(%table, %error, "a closed table cannot be purged");
                return;
            }
            Err(error @ (LogError::Nats(_) | LogError::LeaseExpired(_))) => {
                if pause == RETAKE_PAUSE {
                    tracing::warn!(%table, %error, "cannot purge a closed table yet; trying again");
                }
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = shutdown.cancelled() => return,
                }
                pause = (pause * 2).min(PURGE_PAUSE_MAX);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether `name` can be one token of a NATS subject and a bucket key.
fn valid_node_id(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Joins the cluster: connects to NATS, opens the buckets, and starts the
/// lease loop and the node's listeners. Returns the state to serve with.
pub async fn start(mut state: AppState) -> anyhow::Result<AppState> {
    let settings = state.settings.cluster.clone();
    anyhow::ensure!(
        state.settings.database_url.expose().starts_with("postgres"),
        "cluster mode needs a shared PostgreSQL database: set database_url to postgres://…"
    );
    let id = if settings.node_id.is_empty() {
        format!("node-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
    } else {
        settings.node_id.clone()
    };
    anyhow::ensure!(valid_node_id(&id), "cluster.node_id {id:?}: use letters, digits, - and _");
    let client = async_nats::connect(settings.nats_url.as_str()).await?;
    tracing::debug!(node = %id, "connected to NATS");
    let js = jetstream::new(client.clone());
    let ttl = Duration::from_millis(settings.lease_ttl_ms.max(300));
    let replicas = settings.replicas.max(1);
    let owners = Leases::open(&js, OWNERS, ttl, replicas).await?;
    let nodes = Leases::open(&js, NODES, ttl, replicas).await?;
    let lobby = euchre_cluster::open_bucket(
        &js,
        LOBBY,
        "Euchre lobby: every table of the cluster",
        None,
        replicas,
    )
    .await
    .map_err(anyhow::Error::msg)?;
    tracing::debug!(node = %id, "buckets open");
    let shards = settings.shards.max(1);
    let (changes_tx, changes) = mpsc::unbounded_channel();
    let ownership = Ownership::new(&id, shards, owners, nodes.clone(), changes_tx.clone());
    let validity = ownership.validity();
    let logs = ShardLogs::new(shards).with_validity(validity.clone());
    let (closed, closed_rx) = mpsc::unbounded_channel();
    let history = History { recorder: state.recorder.clone(), closed, unsure: Arc::default() };
    let durability = Arc::new(Logged { logs: logs.clone(), history });
    let health = state.recorder.health().clone();
    tokio::spawn(purge_closed(logs.clone(), health, closed_rx, state.shutdown.clone()));
    let node = Arc::new(Node {
        id: id.clone(),
        shards,
        client: client.clone(),
        js,
        log_config: LogConfig { replicas, ..LogConfig::default() },
        logs,
        durability: durability.clone(),
        validity,
        changes: changes_tx,
        nodes,
        owned: Mutex::default(),
        shutdown: state.shutdown.clone(),
        locals: Mutex::default(),
        remotes: Mutex::default(),
        outbound_queue: state.settings.limits.outbound_queue.max(1),
        registry: state.registry.clone(),
    });
    state.durability = durability;
    state.cluster = Some(node.clone());
    state.players.write_guests_through();

    let deliveries = client.subscribe(format!("euchre.to.{id}")).await?;
    tokio::spawn(node.clone().deliver(deliveries));
    let moved = client.subscribe("euchre.moved.*").await?;
    tokio::spawn(node.clone().on_moved(moved));

    let (mirror, mirrored) = mpsc::unbounded_channel();
    state.registry.mirror_to(mirror);
    tokio::spawn(mirror_lobby(lobby.clone(), mirrored));
    let watch = lobby.watch_with_history(">").await?;
    tokio::spawn(watch_lobby(watch, state.clone()));
    tracing::debug!(node = %id, "lobby watched");

    state.tracker.spawn(ownership.run(state.shutdown.clone()));
    tokio::spawn(node.clone().follow(changes, state.clone()));
    tokio::spawn(node.clone().sweep_dead_nodes(state.clone(), ttl));
    tracing::info!(node = %id, shards, "joined the cluster");
    Ok(state)
}

impl Node {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The shards this node owns now.
    pub fn owned_shards(&self) -> Vec<Shard> {
        let mut shards: Vec<Shard> = lock(&self.owned).keys().copied().collect();
        shards.sort_unstable();
        shards
    }

    /// A new table id in a shard this node owns; `None` if it owns none.
    pub fn new_table_id(&self) -> Option<TableId> {
        let owned: HashSet<Shard> = lock(&self.owned).keys().copied().collect();
        if owned.is_empty() {
            return None;
        }
        // With n nodes, n draws on average.
        (0..100_000)
            .map(|_| uuid::Uuid::now_v7().simple().to_string())
            .find(|id| owned.contains(&shard_of(id, self.shards)))
    }

    /// What stops a table of this node: its shard moving, or shutdown.
    pub fn stop_token(&self, table: &str) -> CancellationToken {
        match lock(&self.owned).get(&shard_of(table, self.shards)) {
            Some(stop) => stop.child_token(),
            None => self.shutdown.child_token(),
        }
    }

    /// Keeps a new table's opening in its shard's log.
    pub async fn keep_and_wait(&self, table: &str, writes: Vec<Write>) -> Result<(), String> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.durability.keep(
            table,
            writes,
            Box::new(move |result| {
                let _ = tx.send(result);
            }),
        );
        match rx.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(format!("{error:?}")),
            Err(_) => Err("the shard's log stopped".to_owned()),
        }
    }

    /// A connection of this node opened.
    pub fn connected(
        &self,
        conn: ConnId,
        outbox: Outbox,
        too_slow: CancellationToken,
        moved: CancellationToken,
    ) {
        let local =
            Local { outbox, too_slow, moved, tables: HashSet::new(), streams: HashMap::new() };
        lock(&self.locals).insert(conn, local);
    }

    /// A connection of this node joined a table (here or on another node).
    pub fn joined(&self, conn: ConnId, table: &str) {
        if let Some(local) = lock(&self.locals).get_mut(&conn) {
            local.tables.insert(table.to_owned());
        }
    }

    /// A connection of this node closed.
    pub fn gone(&self, conn: ConnId) {
        lock(&self.locals).remove(&conn);
    }

    /// Tells another node's table that a connection of this node at it closed.
    pub fn left(&self, conn: ConnId, table: &str) {
        let message = ToOwner::Left { table: table.to_owned(), node: self.id.clone(), conn };
        let subject = self.command_subject(table);
        let client = self.client.clone();
        if let Ok(body) = serde_json::to_vec(&message) {
            tokio::spawn(async move {
                let _ = client.publish(subject, body.into()).await;
            });
        }
    }

    fn command_subject(&self, table: &str) -> String {
        format!("euchre.cmd.{}", shard_of(table, self.shards))
    }

    /// Sends a command to the node that owns `table`. `Err` is the error
    /// message for the client: the owner's refusal, or `unavailable` when no
    /// node owns the table's shard right now (it is failing over).
    pub async fn forward(
        &self,
        table: &str,
        id: CommandId,
        conn: ConnId,
        player: &PlayerInfo,
        request: Request,
    ) -> Result<(), ServerMessage> {
        let unavailable = || ErrorCode::Unavailable.to_message(Some(id));
        let message = ToOwner::Command(RemoteCommand {
            table: table.to_owned(),
            id,
            node: self.id.clone(),
            conn,
            player: player.clone(),
            request,
        });
        let body = serde_json::to_vec(&message).map_err(|_| unavailable())?;
        let request =
            async_nats::Request::new().payload(body.into()).timeout(Some(REQUEST_TIMEOUT));
        let reply = match self.client.send_request(self.command_subject(table), request).await {
            Ok(reply) => reply,
            Err(error) if error.kind() == async_nats::client::RequestErrorKind::NoResponders => {
                // Nobody owns the shard now: a table the lobby lists is
                // failing over; any other is unknown.
                return Err(if self.registry.contains(table) {
                    unavailable()
                } else {
                    ErrorCode::NoSuchTable.to_message(Some(id))
                });
            }
            Err(_) => return Err(unavailable()),
        };
        match serde_json::from_slice::<Answer>(&reply.payload) {
            Ok(Answer::Accepted) => Ok(()),
            Ok(Answer::Refused { code, message }) => {
                Err(ServerMessage::Error { id: Some(id), code, message })
            }
            Err(_) => Err(unavailable()),
        }
    }

    /// Acts on the lease loop's changes, in order.
    async fn follow(
        self: Arc<Self>,
        mut changes: mpsc::UnboundedReceiver<Change>,
        state: AppState,
    ) {
        while let Some(change) = changes.recv().await {
            match change {
                Change::Gained { shard, epoch } => self.clone().gain(&state, shard, epoch).await,
                Change::Lost { shard } => self.lose(shard),
            }
            let owned = lock(&self.owned).len();
            state.metrics.shards_owned.set(i64::try_from(owned).unwrap_or(i64::MAX));
        }
    }

    /// Takes a shard over: fence its log, read it, restore its open tables,
    /// answer its commands, and tell the other nodes. While NATS does not
    /// answer it tries again, as long as the lease is surely ours.
    async fn gain(self: Arc<Self>, state: &AppState, shard: Shard, epoch: u64) {
        if lock(&self.owned).contains_key(&shard) {
            return;
        }
        let (log, entries) = loop {
            if !self.validity.holds(shard, epoch) || self.shutdown.is_cancelled() {
                tracing::info!(shard, epoch, "the lease ran out before the shard was taken over");
                return;
            }
            let taken =
                ShardLog::take_over(&self.js, &self.log_config, shard, &self.id, epoch).await;
            match taken {
                Ok(taken) => break taken,
                Err(euchre_cluster::LogError::Fenced(_)) => {
                    tracing::warn!(shard, epoch, "a newer owner fenced the shard's log first");
                    return;
                }
                Err(error) => {
                    tracing::warn!(shard, %error, "cannot take the shard's log over yet");
                    tokio::time::sleep(RETAKE_PAUSE).await;
                }
            }
        };
        let stop = self.shutdown.child_token();
        lock(&self.owned).insert(shard, stop.clone());
        let stopped = self.logs.start(log);
        tokio::spawn(self.clone().retake_when_stopped(shard, epoch, stopped, stop.clone()));
        let tables = match euchre_cluster::tables_in(shard, &entries) {
            Ok(tables) => tables,
            Err(error) => {
                tracing::error!(shard, %error, "the shard's log cannot be read: its tables stay down");
                Default::default()
            }
        };
        let (mut restored, mut closed) = (0, 0);
        for (table, writes) in tables {
            // History is idempotent: what a dead owner's journal held
            // reaches the database this way too.
            let history = &self.durability.history;
            if writes.iter().any(|write| matches!(write, Write::TableClosed { .. })) {
                // Closed before its owner purged it (it died first, or
                // PostgreSQL or NATS was away): recorded, then purged.
                history.record(&table, writes, true);
                closed += 1;
                continue;
            }
            let host = host_name(state, &table, &writes).await;
            match euchre_store::live::live_table(&writes, |_| host) {
                Ok(Some(live)) => {
                    history.record(&table, writes, true);
                    match state.restore_table(live) {
                        Ok(()) => restored += 1,
                        Err(error) => tracing::error!(%table, %error, "cannot restore a table"),
                    }
                }
                Ok(None) => {}
                Err(error) => tracing::error!(%table, %error, "cannot rebuild a table"),
            }
        }
        match self.client.subscribe(format!("euchre.cmd.{shard}")).await {
            Ok(commands) => {
                tokio::spawn(self.clone().serve_commands(commands, state.clone(), stop));
            }
            Err(error) => tracing::error!(shard, %error, "cannot listen for the shard's commands"),
        }
        // With the epoch: a node that still believes it owns the shard at
        // an older one learns here that it is fenced out.
        let _ =
            self.client.publish(format!("euchre.moved.{shard}"), epoch.to_string().into()).await;
        tracing::info!(node = %self.id, shard, epoch, tables = restored, closed, "shard taken over");
    }

    /// When the shard's log stops taking writes here while the shard is still
    /// ours (NATS did not answer an append, or the lease ran out by this
    /// node's clock while the loop could not renew it), its tables have
    /// stopped: give the shard up here, and take it over again, from the
    /// log, as long as the lease is still ours (the lease loop reports a
    /// real loss on its own).
    async fn retake_when_stopped(
        self: Arc<Self>,
        shard: Shard,
        epoch: u64,
        stopped: tokio::sync::oneshot::Receiver<euchre_cluster::LogError>,
        lost: CancellationToken,
    ) {
        let error = tokio::select! {
            stopped = stopped => match stopped {
                Ok(error) => error,
                Err(_) => return,
            },
            () = lost.cancelled() => return,
        };
        tracing::warn!(node = %self.id, shard, %error, "the shard's log stopped here: taking it over again");
        self.lose(shard);
        tokio::time::sleep(RETAKE_PAUSE).await;
        let _ = self.changes.send(Change::Gained { shard, epoch });
    }

    /// Gives a shard up: nothing more is appended, and its tables stop.
    fn lose(&self, shard: Shard) {
        self.logs.stop(shard);
        if let Some(stop) = lock(&self.owned).remove(&shard) {
            stop.cancel();
        }
        self.close_joined(shard);
        // The other nodes' connections at its tables close too, and resume
        // at the next owner (which says so again once it has the tables).
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.publish(format!("euchre.moved.{shard}"), Bytes::new()).await;
        });
        tracing::info!(node = %self.id, shard, "shard given up");
    }

    /// Answers a shard's commands until the shard is lost.
    async fn serve_commands(
        self: Arc<Self>,
        mut commands: async_nats::Subscriber,
        state: AppState,
        stop: CancellationToken,
    ) {
        while let Some(message) = next_until(&mut commands, &stop).await {
            let answer = match serde_json::from_slice::<ToOwner>(&message.payload) {
                Ok(ToOwner::Command(command)) => Some(self.command(&state, command)),
                Ok(ToOwner::Left { table, node, conn }) => {
                    self.remote_left(&state, &table, node, conn);
                    None
                }
                Err(error) => Some(Answer::Refused {
                    code: ErrorCode::Unavailable.code().to_owned(),
                    message: format!("a node sent what this one cannot read: {error}"),
                }),
            };
            if let (Some(reply), Some(answer)) = (message.reply, answer)
                && let Ok(body) = serde_json::to_vec(&answer)
            {
                let _ = self.client.publish(reply, body.into()).await;
            }
        }
        let _ = commands.unsubscribe().await;
    }

    /// Hands another node's command to the table here.
    fn command(self: &Arc<Self>, state: &AppState, command: RemoteCommand) -> Answer {
        let RemoteCommand { table, id, node, conn, player, request } = command;
        let refused = |code: ErrorCode| Answer::Refused {
            code: code.code().to_owned(),
            message: code.message().to_owned(),
        };
        // In a handover the shard's subscription outlives its ownership for
        // a moment: a table that moved is failing over, not unknown, and
        // the client tries again (its connection is closed with the move).
        let owned = lock(&self.owned).contains_key(&shard_of(&table, self.shards));
        let Some(handle) = state.registry.get(&table).filter(|_| owned) else {
            return refused(if owned { ErrorCode::NoSuchTable } else { ErrorCode::Unavailable });
        };
        let key = (node, conn);
        let (conn, outbox) = self.remote_outbox(state, key.0.clone(), key.1);
        if let Some(remote) = lock(&self.remotes).get_mut(&key) {
            remote.tables.insert(table.clone());
        }
        let command =
            TableCommand { id, conn, player, outbox, request, received: std::time::Instant::now() };
        if handle.try_send(TableMessage::Command(command)) {
            Answer::Accepted
        } else if handle.is_closed() {
            refused(ErrorCode::Unavailable)
        } else {
            refused(ErrorCode::Busy)
        }
    }

    fn remote_left(&self, state: &AppState, table: &str, node: String, conn: ConnId) {
        let local = lock(&self.remotes).get(&(node, conn)).map(|remote| remote.conn);
        if let (Some(conn), Some(handle)) = (local, state.registry.get(table)) {
            tokio::spawn(async move {
                handle.send(TableMessage::Disconnected { conn }).await;
            });
        }
    }

    /// The outbox (and local id) of another node's connection: a queue that
    /// a task of its own publishes to that node, in order.
    fn remote_outbox(
        self: &Arc<Self>,
        state: &AppState,
        node: String,
        conn: ConnId,
    ) -> (ConnId, Outbox) {
        let mut remotes = lock(&self.remotes);
        let key = (node, conn);
        if let Some(remote) = remotes.get(&key)
            && let Some(tx) = remote.tx.upgrade()
        {
            return (remote.conn, Outbox::new(tx, remote.too_slow.clone()));
        }
        let (tx, rx) = mpsc::channel(self.outbound_queue);
        let too_slow = CancellationToken::new();
        let here = state.next_conn_id();
        let remote = Remote {
            conn: here,
            tx: tx.downgrade(),
            too_slow: too_slow.clone(),
            tables: HashSet::new(),
        };
        remotes.insert(key.clone(), remote);
        tokio::spawn(self.clone().pump(key, here, rx, too_slow.clone()));
        (here, Outbox::new(tx, too_slow))
    }

    /// Publishes one remote connection's messages to its node, numbered,
    /// until every table has let the connection go.
    async fn pump(
        self: Arc<Self>,
        key: (String, ConnId),
        here: ConnId,
        mut messages: mpsc::Receiver<Frame>,
        too_slow: CancellationToken,
    ) {
        let subject = format!("euchre.to.{}", key.0);
        let stream = format!("{}.{here}", self.id);
        let conn = key.1.to_string();
        let mut number = 0u64;
        loop {
            let message = tokio::select! {
                message = messages.recv() => match message {
                    Some(message) => message,
                    None => break,
                },
                () = too_slow.cancelled() => {
                    let mut headers = HeaderMap::new();
                    headers.insert(CONN, conn.as_str());
                    headers.insert(CLOSE, "too_slow");
                    let _ = self.client.publish_with_headers(subject.clone(), headers, Bytes::new()).await;
                    break;
                }
            };
            let Some(json) = message.json() else { continue };
            let body = Bytes::from(json);
            number += 1;
            let mut headers = HeaderMap::new();
            headers.insert(CONN, conn.as_str());
            headers.insert(STREAM, stream.as_str());
            headers.insert(NUMBER, number.to_string().as_str());
            if self.client.publish_with_headers(subject.clone(), headers, body).await.is_err() {
                break;
            }
        }
        let mut remotes = lock(&self.remotes);
        if remotes.get(&key).is_some_and(|remote| remote.conn == here) {
            remotes.remove(&key);
        }
    }

    /// Every lease lifetime: another node's connections at this node's
    /// tables whose node has stopped beating (killed, cut off) are
    /// disconnected there, as a closed local connection is (the seat is
    /// away, and a bot plays for it after the grace), and their queues end;
    /// their clients, reconnected elsewhere, resume as new connections.
    async fn sweep_dead_nodes(self: Arc<Self>, state: AppState, every: Duration) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = self.shutdown.cancelled() => return,
            }
            let live = match self.nodes.names().await {
                Ok(live) => live,
                Err(error) => {
                    tracing::debug!(%error, "cannot list the live nodes");
                    continue;
                }
            };
            let missing: HashSet<String> = lock(&self.remotes)
                .keys()
                .map(|(node, _)| node.clone())
                .filter(|node| !live.contains(node))
                .collect();
            // A listing can miss a heartbeat rewritten under it: a node is
            // dead only if its heartbeat's key is gone when read alone
            // (seen letting a live node's player go mid-game).
            let mut dead_nodes = HashSet::new();
            for node in missing {
                if let Ok(None) = self.nodes.holder(&node).await {
                    dead_nodes.insert(node);
                }
            }
            let dead: Vec<(ConnId, Vec<TableId>, CancellationToken)> = lock(&self.remotes)
                .iter()
                .filter(|((node, _), _)| dead_nodes.contains(node))
                .map(|(_, remote)| {
                    let tables = remote.tables.iter().cloned().collect();
                    (remote.conn, tables, remote.too_slow.clone())
                })
                .collect();
            for (conn, tables, queue) in dead {
                tracing::info!(conn, "a connection of a node that stopped beating is disconnected");
                for table in tables {
                    if let Some(handle) = state.registry.get(&table) {
                        handle.send(TableMessage::Disconnected { conn }).await;
                    }
                }
                queue.cancel();
            }
        }
    }

    /// Hands what owners send this node's connections to them; a gap in an
    /// owner's numbering (NATS dropped messages for a slow node) closes the
    /// connection, whose client resumes.
    async fn deliver(self: Arc<Self>, mut deliveries: async_nats::Subscriber) {
        while let Some(message) = next_until(&mut deliveries, &self.shutdown).await {
            let Some(headers) = &message.headers else { continue };
            let header = |name: &str| headers.get(name).map(|value| value.as_str().to_owned());
            let Some(conn) = header(CONN).and_then(|conn| conn.parse::<ConnId>().ok()) else {
                continue;
            };
            let mut locals = lock(&self.locals);
            let Some(local) = locals.get_mut(&conn) else { continue };
            if header(CLOSE).is_some() {
                local.too_slow.cancel();
                continue;
            }
            let (Some(stream), Some(number)) =
                (header(STREAM), header(NUMBER).and_then(|n| n.parse::<u64>().ok()))
            else {
                continue;
            };
            let last = local.streams.entry(stream).or_insert(0);
            if number != *last + 1 {
                tracing::warn!(
                    conn,
                    "messages from a table's node were lost; closing the connection"
                );
                local.too_slow.cancel();
                continue;
            }
            *last = number;
            // Encoded and projected for this connection by the table's
            // owner: relayed as it came, not decoded and encoded again.
            match axum::extract::ws::Utf8Bytes::try_from(message.payload) {
                Ok(json) => {
                    local.outbox.send(Frame::encoded(json));
                }
                Err(error) => tracing::warn!(%error, "a message from another node is not UTF-8"),
            }
        }
    }

    /// A shard moved to a new owner: this node's connections at its tables
    /// close, so their clients resume at the new owner. If this node still
    /// owns the shard at an older epoch (its lease was taken while it ran,
    /// and neither a renewal nor an append has told it yet), it gives the
    /// shard up at once: its tables, fenced out of the log, would otherwise
    /// go on answering what writes nothing (a resume, say) until then, beside
    /// the new owner's, both to the same connections.
    async fn on_moved(self: Arc<Self>, mut moved: async_nats::Subscriber) {
        while let Some(message) = next_until(&mut moved, &self.shutdown).await {
            let Some(shard) =
                message.subject.rsplit('.').next().and_then(|s| s.parse::<Shard>().ok())
            else {
                continue;
            };
            let theirs =
                std::str::from_utf8(&message.payload).ok().and_then(|e| e.parse::<u64>().ok());
            let fenced = theirs.zip(self.validity.epoch(shard)).is_some_and(|(t, mine)| t > mine);
            if fenced && lock(&self.owned).contains_key(&shard) {
                tracing::warn!(node = %self.id, shard, "another node took the shard over: giving it up");
                self.lose(shard);
            } else {
                self.close_joined(shard);
            }
        }
    }

    /// Closes this node's connections at the shard's tables: their
    /// clients reconnect and resume wherever the tables are now.
    fn close_joined(&self, shard: Shard) {
        for local in lock(&self.locals).values() {
            if local.tables.iter().any(|table| shard_of(table, self.shards) == shard) {
                local.moved.cancel();
            }
        }
    }
}

/// The name of a table's host, which its writes keep only the id of: from
/// the lobby, the table's seats, or the database.
async fn host_name(state: &AppState, table: &str, writes: &[Write]) -> Option<String> {
    if let Some(summary) = state.registry.summary(table) {
        return Some(summary.host);
    }
    let host_id = writes.iter().find_map(|write| match write {
        Write::TableOpened { host_id, .. } => Some(host_id.clone()),
        _ => None,
    })?;
    let seated = writes.iter().rev().find_map(|write| match write {
        Write::TableSeats { seats, .. } => {
            let seats: Vec<Option<Occupant>> = serde_json::from_value(seats.clone()).ok()?;
            seats.into_iter().flatten().find_map(|occupant| match occupant {
                Occupant::Player { player, .. } if player.id == host_id => Some(player.name),
                _ => None,
            })
        }
        _ => None,
    });
    if seated.is_some() {
        return seated;
    }
    let stats = state.store.player_stats(&host_id).await.ok()?;
    stats.player.map(|player| player.name)
}

/// Writes this node's tables' lobby changes to the bucket, in order. A
/// change NATS does not take (an outage) is tried again until it is, so
/// the other nodes' lobbies are not left with a stale entry; the later
/// changes wait behind it, in order.
async fn mirror_lobby(bucket: kv::Store, mut changes: mpsc::UnboundedReceiver<Mirrored>) {
    while let Some(change) = changes.recv().await {
        let (key, value) = match change {
            Mirrored::Listed { summary, host_id } => {
                let key = summary.table.clone();
                match serde_json::to_vec(&Listing { summary, host_id }) {
                    Ok(value) => (key, Some(Bytes::from(value))),
                    Err(error) => {
                        tracing::warn!(%error, "a lobby entry cannot be encoded");
                        continue;
                    }
                }
            }
            Mirrored::Closed { table } => (table, None),
        };
        let mut pause = Duration::from_millis(100);
        loop {
            let written = match &value {
                Some(value) => {
                    bucket.put(&key, value.clone()).await.map(drop).map_err(|e| e.to_string())
                }
                None => bucket.delete(&key).await.map_err(|e| e.to_string()),
            };
            match written {
                Ok(()) => break,
                Err(error) => {
                    tracing::warn!(%error, table = %key, "cannot update the cluster's lobby; trying again");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(2));
                }
            }
        }
    }
}

/// Lists the other nodes' tables as the bucket changes.
async fn watch_lobby(mut watch: kv::Watch, state: AppState) {
    loop {
        let entry = tokio::select! {
            entry = watch.next() => match entry {
                Some(Ok(entry)) => entry,
                Some(Err(error)) => {
                    tracing::warn!(%error, "the cluster's lobby watch failed");
                    continue;
                }
                None => break,
            },
            () = state.shutdown.cancelled() => break,
        };
        match entry.operation {
            kv::Operation::Put => match serde_json::from_slice::<Listing>(&entry.value) {
                Ok(listing) => state.registry.insert_remote(listing.summary, &listing.host_id),
                Err(error) => tracing::warn!(%error, key = %entry.key, "an unreadable lobby entry"),
            },
            kv::Operation::Delete | kv::Operation::Purge => {
                state.registry.remove_remote(&entry.key)
            }
        }
    }
}

/// The subscription's next message; `None` once it ends or `stop` is cancelled.
async fn next_until(
    subscriber: &mut async_nats::Subscriber,
    stop: &CancellationToken,
) -> Option<async_nats::Message> {
    tokio::select! {
        message = subscriber.next() => message,
        () = stop.cancelled() => None,
    }
}
