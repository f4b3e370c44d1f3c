//! Shards gained and lost: following the lease loop, taking a shard over
//! from its log (restoring its tables), giving one up, and hearing that one
//! moved; sweeping up the connections of nodes that stopped beating; and
//! this node's [`Placement`]: new tables in the shards it owns.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use euchre_cluster::{Change, Shard, ShardLog, shard_of};
use euchre_protocol::TableId;
use euchre_store::durable::Durability;
use euchre_store::{LiveTable, TableHost, Write};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::durability::RETAKE_PAUSE;
use super::{Node, lock, next_until};
use crate::placement::Placement;
use crate::state::AppState;
use crate::table::{ConnId, TableMessage};

impl Node {
    /// Acts on the lease loop's changes, in order.
    pub(super) async fn follow(
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
        let mut tournaments = Vec::new();
        for (table, writes) in tables {
            // History is idempotent: what a dead owner's journal held
            // reaches the database this way too.
            let logged = &self.durability;
            if let Some(tournament) = super::tournaments::latest(&writes) {
                // A tournament's versions, not a table's writes.
                tournaments.push(tournament);
                logged.record_history(&table, writes, true);
                continue;
            }
            if writes.iter().any(|write| matches!(write, Write::TableClosed { .. })) {
                // Closed before its owner purged it (it died first, or
                // PostgreSQL or NATS was away): recorded, then purged.
                logged.record_history(&table, writes, true);
                closed += 1;
                continue;
            }
            let mut live = euchre_store::live::live_table(&writes);
            if let Ok(Some(LiveTable { host: TableHost::Player { id, name }, .. })) = &mut live {
                *name = host_name(state, &table, id).await;
            }
            logged.record_history(&table, writes, true);
            match live {
                Ok(Some(live)) => restored += u32::from(state.restore_table(live).is_ok()),
                Ok(None) => {}
                // Set aside as at a start: closed, so no node tries it again.
                Err(error) => state.set_aside(&table, None, &error),
            }
        }
        // After its tables: the director finds its round's tables here.
        let adopted = self.adopt_tournaments(state, shard, tournaments).await;
        match self.client.subscribe(format!("euchre.cmd.{shard}")).await {
            Ok(commands) => {
                tokio::spawn(self.clone().serve_commands(commands, state.clone(), stop.clone()));
            }
            Err(error) => tracing::error!(shard, %error, "cannot listen for the shard's commands"),
        }
        match self.client.subscribe(super::pools::subject(shard)).await {
            Ok(requests) => {
                let stop = stop.clone();
                tokio::spawn(self.clone().serve_pools(requests, state.clone(), stop, shard));
            }
            Err(error) => tracing::error!(shard, %error, "cannot listen for the shard's pools"),
        }
        match self.client.subscribe(super::tournaments::subject(shard)).await {
            Ok(requests) => {
                let stop = stop.clone();
                tokio::spawn(self.clone().serve_tournaments(requests, state.clone(), stop, shard));
            }
            Err(error) => {
                tracing::error!(shard, %error, "cannot listen for the shard's tournaments")
            }
        }
        // With the epoch: a node that still believes it owns the shard at
        // an older one learns here that it is fenced out.
        let _ =
            self.client.publish(format!("euchre.moved.{shard}"), epoch.to_string().into()).await;
        tracing::info!(node = %self.id, shard, epoch, tables = restored, closed, tournaments = adopted, "shard taken over");
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
        // Its pools' requests end here; the other nodes end those their
        // connections made when they hear of the move.
        self.end_pool_requests(shard);
        let (quick_play, shards) = (self.quick_play.clone(), self.shards);
        tokio::spawn(async move { quick_play.disown(shard, shards).await });
        // The other nodes' connections at its tables close too, and resume
        // at the next owner (which says so again once it has the tables).
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.publish(format!("euchre.moved.{shard}"), Bytes::new()).await;
        });
        tracing::info!(node = %self.id, shard, "shard given up");
    }

    /// Every lease lifetime: another node's connections at this node's
    /// tables whose node has stopped beating (killed, cut off) are
    /// disconnected there, as a closed local connection is (the seat is
    /// away, and a bot plays for it after the grace), and their queues end;
    /// their clients, reconnected elsewhere, resume as new connections.
    pub(super) async fn sweep_dead_nodes(self: Arc<Self>, state: AppState, every: Duration) {
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

    /// A shard moved to a new owner: this node's connections at its tables
    /// close, so their clients resume at the new owner. If this node still
    /// owns the shard at an older epoch (its lease was taken while it ran,
    /// and neither a renewal nor an append has told it yet), it gives the
    /// shard up at once: its tables, fenced out of the log, would otherwise
    /// go on answering what writes nothing (a resume, say) until then, beside
    /// the new owner's, both to the same connections.
    pub(super) async fn on_moved(self: Arc<Self>, mut moved: async_nats::Subscriber) {
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
                self.end_pool_requests(shard);
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

/// The name of a table's player host, which its writes keep only the id
/// of: from the lobby or the database (else the restore looks in its seats).
async fn host_name(state: &AppState, table: &str, host_id: &str) -> Option<String> {
    if let Some(summary) = state.registry.summary(table) {
        return Some(summary.host);
    }
    let stats = state.store.player_stats(host_id).await.ok()?;
    stats.player.map(|player| player.name)
}

impl Node {
    /// A new time-ordered id whose shard `wanted` takes (`None` after
    /// 100,000 draws, far past any number of shards).
    fn draw_id(&self, wanted: impl Fn(Shard) -> bool) -> Option<TableId> {
        (0..100_000)
            .map(|_| uuid::Uuid::now_v7().simple().to_string())
            .find(|id| wanted(shard_of(id, self.shards)))
    }
}

/// This node's tables live in the shards it owns.
impl Placement for Node {
    /// A new table id in a shard this node owns; `None` if it owns none.
    fn new_table_id(&self) -> Option<TableId> {
        let owned: HashSet<Shard> = lock(&self.owned).keys().copied().collect();
        if owned.is_empty() {
            return None;
        }
        // With n nodes, n draws on average.
        self.draw_id(|shard| owned.contains(&shard))
    }

    /// The shard's log, then PostgreSQL.
    fn durability(&self) -> Arc<dyn Durability> {
        self.durability.clone()
    }

    fn holds(&self, id: &str) -> bool {
        lock(&self.owned).contains_key(&shard_of(id, self.shards))
    }

    /// An id in `id`'s shard, if this node owns it: with as many shards
    /// as the cluster has, that many draws on average.
    fn new_table_id_beside(&self, id: &str) -> Option<TableId> {
        let beside = shard_of(id, self.shards);
        if !self.holds(id) {
            return None;
        }
        self.draw_id(|shard| shard == beside)
    }

    /// What stops a table of this node: its shard moving, or shutdown.
    fn stop_token(&self, table: &str) -> CancellationToken {
        match lock(&self.owned).get(&shard_of(table, self.shards)) {
            Some(stop) => stop.child_token(),
            None => self.shutdown.child_token(),
        }
    }
}
