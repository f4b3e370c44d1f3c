//! Cluster mode: this node's part in a cluster of Euchre servers on NATS
//! JetStream and PostgreSQL (docs/architecture.md, part two).
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
//! - **Quick play.** Each pool has one owner, the owner of the shard its
//!   name falls in: other nodes send it their connections' requests
//!   (`euchre.pool.<shard>`), and its notices come back as a remote table's
//!   messages do. When the shard moves, its requests end (`owner_lost`).
//!   Each player's request is claimed in the `euchre_quick_play` bucket, so
//!   that a player waits in one pool of the cluster and sits at one pool
//!   table.
//! - **Tournaments.** Each has one director, that of the owner of the
//!   shard its id falls in, whose round tables live in the same shard:
//!   requests go to it (`euchre.tournament.<shard>`), and a take-over hands
//!   the new owner's director the tournament from the shard's log. Who is
//!   present at a round's start is asked of every node (`euchre.presence`).
//! - **Revocations.** Log-outs, password changes and claims go to every
//!   node on `euchre.revoked`: each forgets the tokens, cuts its
//!   connections that held them and learns the claimed names. A ban of an
//!   account is one too; bans of addresses and chat mutes go on
//!   `euchre.sanctions`.
//!
//! A file per part: `start` joins the cluster and wires the parts up;
//! `nats` connects to NATS with the node's credentials and TLS;
//! `shards` gains and loses shards, sweeps up the connections of dead
//! nodes, and places this node's new tables in its shards ([`Placement`]);
//! `durability` keeps tables' writes in their shard's log, then in
//! PostgreSQL; `forward` carries commands to a table's owner and its
//! messages back ([`RemoteTables`]); `pools` carries quick-play requests
//! to their pool's owner; `tournaments` carries tournament requests to
//! their director and asks who is present; `claims` keeps each player to one request
//! across the cluster; `lobby` shares the lobby;
//! `revocations` shares the ends of sessions, `social` the mutes and
//! blocks an account changes, `sanctions` the bans and moderators' mutes.
//!
//! [`Placement`]: crate::placement::Placement
//! [`RemoteTables`]: crate::placement::RemoteTables

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_nats::jetstream;
use euchre_cluster::{Change, Leases, LogConfig, Shard, ShardLogs, Validity};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::table::ConnId;
use durability::Logged;
use forward::{Local, Remote};

mod claims;
mod durability;
mod forward;
mod lobby;
mod nats;
mod pools;
mod revocations;
mod sanctions;
mod shards;
mod social;
mod start;
mod tournaments;

pub use start::start;

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
    /// This node's pools, which end their requests when a shard is lost.
    quick_play: crate::quick_play::QuickPlay,
    /// The requests this node's connections made to other nodes' pools.
    asked: Mutex<pools::Asked>,
    /// How long a pool's owner keeps a request with no connection.
    pool_grace: std::time::Duration,
    /// Where clients reach this node itself (`cluster.public_url`): told to
    /// the clients that join its tables through other nodes.
    public_url: Option<String>,
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
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
