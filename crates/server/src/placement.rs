//! Where tables live: the seam between the shared state ([`crate::state`])
//! and its connections on one side and cluster mode ([`crate::node`]) on
//! the other, so that neither reaches into the other. Each trait has two
//! implementations: [`OneNode`] for a node alone, `node::Node` in a
//! cluster; the state holds each as a trait object, never an `Option`, so
//! no caller branches on being in a cluster.
//!
//! - [`Placement`]: a new table's id, where its writes become durable, and
//!   what stops it. On one node: a time-ordered uuid, the local journal,
//!   the server's shutdown. In a cluster: an id in a shard this node owns,
//!   the shard's log, the shard moving to another node.
//! - [`RemoteTables`]: what this node's connections need of the tables
//!   other nodes own. In a cluster: commands forwarded to the owner, and
//!   the owner's messages back. On one node there are none: a table not
//!   here is no table.
//! - [`RemotePools`]: the quick-play pools other nodes own (in a cluster,
//!   each pool has one owner: the owner of the shard its name falls in).
//!   On one node, this node owns every pool.
//! - [`RemoteTournaments`]: the tournaments other nodes run (in a cluster,
//!   each has one director: that of the owner of the shard its id falls
//!   in), and the players connected to other nodes, whom a round seats.
//!   On one node there are neither.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use euchre_protocol::{CommandId, ErrorCode, PlayerInfo, QuickPlayRequest, ServerMessage, TableId};
use euchre_store::durable::Durability;
use euchre_store::writer::Recorder;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::table::{ConnId, Outbox, Request};

/// Where this node's tables live.
pub trait Placement: Send + Sync + fmt::Debug {
    /// An id for a new table of this node; `None` when this node can start
    /// none now (in a cluster: it owns no shard at the moment).
    fn new_table_id(&self) -> Option<TableId>;

    /// Where a table's writes become durable before anything they caused
    /// is sent.
    fn durability(&self) -> Arc<dyn Durability>;

    /// What stops a table of this node.
    fn stop_token(&self, table: &str) -> CancellationToken;

    /// Whether what `id` names (a table, a tournament) is this node's now:
    /// always on one node; in a cluster, whether it owns `id`'s shard.
    fn holds(&self, id: &str) -> bool;

    /// An id for a new table that lives and moves with `id` (a tournament
    /// and its round's tables): in a cluster, one in `id`'s shard; `None`
    /// when this node does not own that shard now.
    fn new_table_id_beside(&self, id: &str) -> Option<TableId>;
}

/// One node alone: every table and every pool is here, a table's writes go
/// to the local journal, and it stops when the server does.
#[derive(Debug)]
pub struct OneNode {
    journal: Arc<dyn Durability>,
    shutdown: CancellationToken,
}

impl OneNode {
    pub fn new(recorder: Recorder, shutdown: CancellationToken) -> OneNode {
        OneNode { journal: Arc::new(recorder), shutdown }
    }
}

impl Placement for OneNode {
    fn new_table_id(&self) -> Option<TableId> {
        Some(Uuid::now_v7().simple().to_string())
    }

    fn durability(&self) -> Arc<dyn Durability> {
        self.journal.clone()
    }

    fn stop_token(&self, _table: &str) -> CancellationToken {
        self.shutdown.clone()
    }

    fn holds(&self, _id: &str) -> bool {
        true
    }

    fn new_table_id_beside(&self, _id: &str) -> Option<TableId> {
        self.new_table_id()
    }
}

/// The tables other nodes own, as this node's connections reach them.
pub trait RemoteTables: Send + Sync + fmt::Debug {
    /// A connection of this node opened: what owners send it goes to
    /// `outbox`; `too_slow` closes it when messages were lost, `moved` when
    /// a table it joined moved to another node.
    fn connected(
        &self,
        conn: ConnId,
        outbox: Outbox,
        too_slow: CancellationToken,
        moved: CancellationToken,
    );

    /// A connection of this node joined a table (here or on another node),
    /// or is about to: a notice that the table moved must find it.
    fn joined(&self, conn: ConnId, table: &str);

    /// A connection of this node closed.
    fn gone(&self, conn: ConnId);

    /// Tells another node's table that a connection of this node at it closed.
    fn left(&self, conn: ConnId, table: &str);

    /// Sends a command for `table`, which is not on this node, to the node
    /// that owns it. `Ok` holds where clients reach the owner, when the
    /// command joined the table and the owner says (its
    /// `cluster.public_url`). `Err` is the error message for the client: the
    /// owner's refusal, `unavailable` when no node owns the table's shard
    /// right now (it is failing over), or `no_such_table` where no other
    /// node can have it.
    fn forward<'a>(
        &'a self,
        table: &'a str,
        id: CommandId,
        conn: ConnId,
        player: &'a PlayerInfo,
        request: Request,
    ) -> BoxFuture<'a, Result<Option<String>, ServerMessage>>;
}

/// A `quick_play` on its way to another node's pool: the command's id, the
/// request's own id ([`crate::quick_play::new_request_id`]), the request,
/// and the player's rating in its form.
#[derive(Debug)]
pub struct PoolAsk {
    pub id: CommandId,
    pub request_id: u64,
    pub request: QuickPlayRequest,
    pub rating: Option<(f64, f64)>,
    /// The client's address, for the pool's count per address.
    pub address: std::net::IpAddr,
    /// Everyone a block stands between the player and: the pool's owner
    /// never seats them together.
    pub avoid: Vec<String>,
}

/// The quick-play pools other nodes own. A request for one of them goes to
/// its owner, whose notices come back to the connection as a table's
/// messages do.
pub trait RemotePools: Send + Sync + fmt::Debug {
    /// Whether this node owns `pool` (a [`crate::quick_play::pool_name`]) now:
    /// its requests go to this node's own pools' task, and only the others
    /// to [`RemotePools::ask`].
    fn owns(&self, pool: &str) -> bool;

    /// Sends a `quick_play` to the owner of `pool`. `Err` is the error
    /// message for the client: the owner's refusal, or `unavailable` while
    /// no node owns the pool.
    fn ask<'a>(
        &'a self,
        pool: &'a str,
        conn: ConnId,
        player: &'a PlayerInfo,
        ask: PoolAsk,
    ) -> BoxFuture<'a, Result<(), ServerMessage>>;

    /// Sends a `cancel_quick_play` to the owner of the pool the player asked
    /// from this node; `None` when they asked none from here.
    fn cancel<'a>(
        &'a self,
        id: CommandId,
        conn: ConnId,
        player_id: &'a str,
    ) -> Option<BoxFuture<'a, Result<(), ServerMessage>>>;

    /// A new connection of the player: it holds their request at its
    /// owner, wherever the player asked.
    fn attach(self: Arc<Self>, conn: ConnId, player_id: &str);

    /// A connection of the player closed.
    fn gone(&self, conn: ConnId, player_id: &str);
}

/// The tournaments other nodes run, and the players connected there.
pub trait RemoteTournaments: Send + Sync + fmt::Debug {
    /// Sends a request for tournament `id`, which this node does not run
    /// ([`Placement::holds`]), to the node that does: its director's answer,
    /// `unavailable` while no node owns the tournament's shard, or
    /// `not_running` where no other node can have it.
    fn forward<'a>(
        &'a self,
        id: &'a str,
        request: crate::tournaments::Request,
    ) -> BoxFuture<'a, crate::tournaments::Answer>;

    /// Which of `players` are connected to other nodes now (a node that
    /// does not answer soon counts as having none of them).
    fn connected_elsewhere(&self, players: Vec<String>) -> BoxFuture<'_, HashSet<String>>;

    /// Tells the other nodes' connections of a round seated here.
    fn announce_elsewhere(&self, round: Arc<crate::tournaments::RoundSeated>);
}

/// No other node: every tournament runs here, every player connects here.
impl RemoteTournaments for OneNode {
    fn forward<'a>(
        &'a self,
        _: &'a str,
        _: crate::tournaments::Request,
    ) -> BoxFuture<'a, crate::tournaments::Answer> {
        Box::pin(std::future::ready(Err(crate::tournaments::Refused::not_running())))
    }

    fn connected_elsewhere(&self, _: Vec<String>) -> BoxFuture<'_, HashSet<String>> {
        Box::pin(std::future::ready(HashSet::new()))
    }

    fn announce_elsewhere(&self, _: Arc<crate::tournaments::RoundSeated>) {}
}

/// No other node: a table not in this node's registry is no table at all.
impl RemoteTables for OneNode {
    fn connected(&self, _: ConnId, _: Outbox, _: CancellationToken, _: CancellationToken) {}

    fn joined(&self, _: ConnId, _: &str) {}

    fn gone(&self, _: ConnId) {}

    /// A table that closed while the connection was at it: nobody to tell.
    fn left(&self, _: ConnId, _: &str) {}

    fn forward<'a>(
        &'a self,
        _: &'a str,
        id: CommandId,
        _: ConnId,
        _: &'a PlayerInfo,
        _: Request,
    ) -> BoxFuture<'a, Result<Option<String>, ServerMessage>> {
        Box::pin(std::future::ready(Err(ErrorCode::NoSuchTable.to_message(Some(id)))))
    }
}

/// No other node: this node owns every pool, and every request waits here.
impl RemotePools for OneNode {
    fn owns(&self, _: &str) -> bool {
        true
    }

    /// Never called ([`RemotePools::owns`] is always true); should it be,
    /// the pool has no owner to reach.
    fn ask<'a>(
        &'a self,
        _: &'a str,
        _: ConnId,
        _: &'a PlayerInfo,
        ask: PoolAsk,
    ) -> BoxFuture<'a, Result<(), ServerMessage>> {
        Box::pin(std::future::ready(Err(ErrorCode::Unavailable.to_message(Some(ask.id)))))
    }

    /// Every request waits in this node's own pools, which cancel it.
    fn cancel<'a>(
        &'a self,
        _: CommandId,
        _: ConnId,
        _: &'a str,
    ) -> Option<BoxFuture<'a, Result<(), ServerMessage>>> {
        None
    }

    fn attach(self: Arc<Self>, _: ConnId, _: &str) {}

    fn gone(&self, _: ConnId, _: &str) {}
}
