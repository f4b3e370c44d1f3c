//! Quick play: players ask for a game with strangers in a pool (a preset,
//! rated or casual), and one task per node owns the pools: it takes the
//! requests, forms tables in waves with the pure matcher ([`euchre_matcher`]), and seats the
//! players at a new table as `create_table` would make one.
//!
//! A request belongs to the player, not the connection: every connection
//! the player has while it waits holds it and gets its notices; when none is
//! left for the reconnect grace, it ends. A player has one request at most,
//! and none while they sit at a live table a pool formed. Everything the
//! task keeps is bounded: one request per player, each pool's size, the
//! connections holding a request, and the task's mailbox.
//!
//! In a cluster each pool has one owner, the owner of the shard its
//! [`pool_name`] falls in: requests from other nodes' connections come to
//! its task through `node::pools`, and when the owner loses the shard its
//! requests end with `owner_lost` (docs/architecture.md, "Quick play in a
//! cluster"). The one-request rule then holds across the cluster through
//! [`Claims`]: a request is claimed for the player before its pool takes
//! it, and the claim goes when the request ends or its table does.

mod service;

use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};

use euchre_protocol::{CommandId, ErrorCode, PlayerInfo, QuickPlayRequest, Refusal, TableId};
use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use crate::table::{ConnId, Outbox};

pub use service::{ended, run};

/// A `quick_play` from one connection, with what the pools need to answer
/// it and to seat the player: the connection's outbox, and the player's
/// rating in the preset's form (rating and deviation; `None`: unrated).
#[derive(Debug)]
pub struct Ask {
    pub id: CommandId,
    /// The request's id ([`new_request_id`]), named by its ack and end.
    pub request_id: u64,
    pub conn: ConnId,
    pub player: PlayerInfo,
    pub outbox: Outbox,
    pub request: QuickPlayRequest,
    pub rating: Option<(f64, f64)>,
    /// The client's address, counted against `requests_per_address`
    /// (`None`: not known, from a node of an older version).
    pub address: Option<IpAddr>,
    /// Everyone a block stands between the player and: never seated with them.
    pub avoid: Vec<String>,
}

/// What the pools' task is told.
#[derive(Debug)]
pub(crate) enum PoolMessage {
    Ask(Ask),
    Cancel {
        id: CommandId,
        conn: ConnId,
        player_id: String,
        outbox: Outbox,
    },
    /// A connection of the player said hello: it holds their request too.
    Attach {
        conn: ConnId,
        player_id: String,
        outbox: Outbox,
    },
    /// A connection closed.
    Gone {
        conn: ConnId,
        player_id: String,
    },
    /// This node no longer owns the pools whose name falls in `shard` (of
    /// `shards`): their requests end with `owner_lost`.
    Disown {
        shard: u16,
        shards: u16,
    },
    /// The server is stopping: every request ends with `shutdown`, and
    /// `done` is told once their notices are queued to the connections
    /// (which the server closes only then, so the notices go first).
    Close {
        done: tokio::sync::oneshot::Sender<()>,
    },
    /// A table the pools formed was made (`Some`) or could not be (`None`),
    /// for these players (and their requests' ids).
    Seated {
        players: Vec<(String, u64)>,
        table: Option<TableId>,
    },
}

/// The cluster-wide side of "one request per player, and never in two pool
/// games": each player's live request or pool table, claimed where every
/// node sees it (in a cluster, a JetStream key-value bucket:
/// `node::claims`). One node keeps the rule in its pools' task alone.
pub trait Claims: Send + Sync + std::fmt::Debug {
    /// Claims request `request_id` in `pool` for the player; their refusal
    /// (`already_queued`, `in_quick_play_game`) if they hold a live claim.
    fn claim<'a>(
        &'a self,
        player_id: &'a str,
        request_id: u64,
        pool: &'a str,
    ) -> BoxFuture<'a, Result<(), Refusal>>;

    /// The request matched: the player sits at `table`.
    fn seat(&self, player_id: &str, request_id: u64, table: &TableId);

    /// The request ended, or its table did: its claim goes (and only its:
    /// a newer request's claim stays).
    fn release(&self, player_id: &str, request_id: u64);

    /// The player's waiting request, if any: its id and its pool.
    fn waiting<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Option<(u64, String)>>;

    /// Completes once everything asked of the claims before it is written
    /// (a cancel's release, say), or could not be.
    fn written(&self) -> BoxFuture<'static, ()>;
}

/// A new request's id: random, so that ids from different nodes do not
/// meet, and under 2^53, so that JavaScript reads it exactly.
pub fn new_request_id() -> u64 {
    uuid::Uuid::new_v4().as_u64_pair().0 >> 11
}

/// How connections reach the pools' task. Cheap to clone.
#[derive(Clone, Debug)]
pub struct QuickPlay {
    tx: mpsc::Sender<PoolMessage>,
    /// The task's end of the mailbox, until [`run`] takes it.
    mailbox: Arc<Mutex<Option<mpsc::Receiver<PoolMessage>>>>,
    /// In a cluster, where the requests are claimed.
    claims: Arc<OnceLock<Arc<dyn Claims>>>,
}

impl QuickPlay {
    /// The pools' mailbox, holding at most `capacity` messages.
    pub fn new(capacity: usize) -> QuickPlay {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        QuickPlay { tx, mailbox: Arc::new(Mutex::new(Some(rx))), claims: Arc::default() }
    }

    /// Claims requests cluster-wide from now on (set once, at joining).
    pub fn use_claims(&self, claims: Arc<dyn Claims>) {
        let _ = self.claims.set(claims);
    }

    pub fn claims(&self) -> Option<&Arc<dyn Claims>> {
        self.claims.get()
    }

    /// Hands a `quick_play` to the pools, which answer on its outbox (the
    /// `queued` ack, or the refusal), once it is claimed in a cluster. A
    /// full mailbox is refused `busy`.
    pub async fn ask(&self, ask: Ask) -> Result<(), Refusal> {
        let claims = self.claims();
        let (player_id, request_id) = (ask.player.id.clone(), ask.request_id);
        if let Some(claims) = claims {
            let pool = pool_name(ask.request.preset, ask.request.rated);
            claims.claim(&player_id, request_id, &pool).await?;
        }
        self.tx.try_send(PoolMessage::Ask(ask)).map_err(|_| {
            if let Some(claims) = claims {
                claims.release(&player_id, request_id);
            }
            busy()
        })
    }

    /// Hands a `cancel_quick_play` to the pools, which answer on `outbox`.
    pub fn cancel(
        &self,
        id: CommandId,
        conn: ConnId,
        player_id: &str,
        outbox: Outbox,
    ) -> Result<(), Refusal> {
        let message = PoolMessage::Cancel { id, conn, player_id: player_id.to_owned(), outbox };
        self.tx.try_send(message).map_err(|_| busy())
    }

    /// A new connection of the player: it holds their request, if any.
    pub fn attach(&self, conn: ConnId, player_id: &str, outbox: Outbox) {
        // Lost only when the pools are flooded: the connection then misses
        // the notices, and the request still ends with the player's last
        // connection.
        let _ =
            self.tx.try_send(PoolMessage::Attach { conn, player_id: player_id.to_owned(), outbox });
    }

    /// A connection of the player closed. Waits for room: a lost goodbye
    /// would keep a request alive for a player who has gone.
    pub async fn gone(&self, conn: ConnId, player_id: &str) {
        let message = PoolMessage::Gone { conn, player_id: player_id.to_owned() };
        let _ = self.tx.send(message).await;
    }

    /// This node lost `shard` (of `shards`): the requests in its pools end.
    /// Waits for room: a lost word would leave requests nobody answers.
    pub async fn disown(&self, shard: u16, shards: u16) {
        let _ = self.tx.send(PoolMessage::Disown { shard, shards }).await;
    }

    /// The server is stopping: ends every request with `shutdown` and
    /// returns once their notices are in the connections' queues (or the
    /// pools' task is gone).
    pub async fn close(&self) {
        let (done, closed) = tokio::sync::oneshot::channel();
        if self.tx.send(PoolMessage::Close { done }).await.is_ok() {
            let _ = closed.await;
        }
    }

    pub(crate) fn sender(&self) -> mpsc::Sender<PoolMessage> {
        self.tx.clone()
    }

    pub(crate) fn take_mailbox(&self) -> Option<mpsc::Receiver<PoolMessage>> {
        self.mailbox.lock().ok().and_then(|mut mailbox| mailbox.take())
    }
}

/// A pool's name, the same on every node: in a cluster, its shard (and so
/// its owner) is the shard of this name.
pub fn pool_name(preset: euchre_engine::Preset, rated: bool) -> String {
    let kind = if rated { "rated" } else { "casual" };
    format!("pool-{preset:?}-{kind}")
}

fn busy() -> Refusal {
    ErrorCode::Busy.refusal("quick play is busy; try again in a moment")
}
