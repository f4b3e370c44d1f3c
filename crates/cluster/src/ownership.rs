//! A node's lease loop: its heartbeat, and its fair share of the shards.
//!
//! Every tick (a third of the lease's time to live) the node renews its
//! heartbeat (a lease on its own name in the nodes bucket) and each shard it
//! holds, counts the live nodes, and aims at its fair share, `ceil(shards /
//! nodes)`: below it, it takes free shards (starting from a place of its
//! own, so nodes starting together rarely race for the same keys); above it
//! (a node joined), it gives the excess up for the newcomer to take. What it
//! gains and loses it reports as [`Change`]s: the server starts a gained
//! shard's tables from the log, and stops a lost shard's at once.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::{Lease, LeaseError, Leases, Shard, Validity};

/// A change in the shards this node owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The node owns `shard` from now on, with this fencing epoch.
    Gained { shard: Shard, epoch: u64 },
    /// The node no longer owns `shard`: stop its tables, acknowledge nothing more.
    Lost { shard: Shard },
}

/// The lease key of a shard.
pub fn shard_key(shard: Shard) -> String {
    format!("shard-{shard}")
}

/// One node's leases.
#[derive(Debug)]
pub struct Ownership {
    node: String,
    shards: Shard,
    owners: Leases,
    nodes: Leases,
    heartbeat: Option<Lease>,
    held: BTreeMap<Shard, Lease>,
    changes: mpsc::UnboundedSender<Change>,
    validity: Validity,
}

impl Ownership {
    /// `owners` holds the shards' leases, `nodes` the nodes' heartbeats
    /// (both with the same time to live); changes go to `changes`.
    pub fn new(
        node: &str,
        shards: Shard,
        owners: Leases,
        nodes: Leases,
        changes: mpsc::UnboundedSender<Change>,
    ) -> Ownership {
        Ownership {
            node: node.to_owned(),
            shards: shards.max(1),
            owners,
            nodes,
            heartbeat: None,
            held: BTreeMap::new(),
            changes,
            validity: Validity::default(),
        }
    }

    /// Until when each shard held is surely this node's, kept up to date by
    /// [`Ownership::run`]: what the shard logs' writers check (see
    /// [`crate::ShardLogs::with_validity`]).
    pub fn validity(&self) -> Validity {
        self.validity.clone()
    }

    /// Ticks until `stop`, then releases everything held, so other nodes
    /// need not wait for the leases to expire.
    pub async fn run(mut self, stop: CancellationToken) {
        let every = self.owners.ttl() / 3;
        loop {
            // Ticks are a third of a lifetime apart however long one takes
            // (a slow listing, a loaded machine): the next renewal does not
            // wait a whole pause more behind it.
            let next = Instant::now() + every;
            if let Err(error) = self.tick().await {
                tracing::warn!(node = %self.node, %error, "cluster lease tick failed");
            }
            tokio::select! {
                () = tokio::time::sleep_until(next) => {}
                () = stop.cancelled() => break,
            }
        }
        for (shard, lease) in std::mem::take(&mut self.held) {
            self.lose(shard);
            let _ = self.owners.release(lease).await;
        }
        if let Some(heartbeat) = self.heartbeat.take() {
            let _ = self.nodes.release(heartbeat).await;
        }
    }

    /// The shards held now.
    pub fn held(&self) -> Vec<Shard> {
        self.held.keys().copied().collect()
    }

    /// One round: renewals, heartbeat, then the fair share.
    pub async fn tick(&mut self) -> Result<(), LeaseError> {
        // Shards first: a failed heartbeat must not cost the shards a renewal.
        self.renew_all().await;
        self.beat().await?;
        // Within a tick: a listing held up (a key expiring under it) must
        // not hold the next renewals up past the leases' lifetime.
        let nodes = self.nodes.count(self.owners.ttl() / 3).await?.max(1);
        let fair = usize::from(self.shards).div_ceil(nodes);
        while self.held.len() > fair {
            let Some((shard, lease)) = self.held.pop_last() else { break };
            tracing::info!(node = %self.node, shard, nodes, "giving a shard up: above the fair share");
            self.lose(shard);
            self.owners.release(lease).await?;
        }
        let start = crate::shard_of(&self.node, self.shards);
        for offset in 0..self.shards {
            if self.held.len() >= fair {
                break;
            }
            let shard = (start + offset) % self.shards;
            if self.held.contains_key(&shard) {
                continue;
            }
            if let Some(lease) = self.owners.try_acquire(&shard_key(shard), &self.node).await? {
                self.validity.set(shard, lease.epoch(), lease.valid_until());
                let _ = self.changes.send(Change::Gained { shard, epoch: lease.epoch() });
                self.held.insert(shard, lease);
            }
        }
        Ok(())
    }

    async fn beat(&mut self) -> Result<(), LeaseError> {
        if let Some(heartbeat) = &mut self.heartbeat {
            match self.nodes.renew(heartbeat).await {
                Ok(()) => return Ok(()),
                // Expired (this node was paused): it simply beats anew.
                Err(LeaseError::Lost(_)) => self.heartbeat = None,
                Err(error) => return Err(error),
            }
        }
        match self.nodes.try_acquire(&self.node, &self.node).await? {
            Some(heartbeat) => {
                self.heartbeat = Some(heartbeat);
                Ok(())
            }
            None => Err(LeaseError::Nats(format!("another process runs as node {}", self.node))),
        }
    }

    /// Renews every shard held; drops those lost, or no longer surely ours.
    async fn renew_all(&mut self) {
        let shards: Vec<Shard> = self.held.keys().copied().collect();
        for shard in shards {
            let Some(lease) = self.held.get_mut(&shard) else { continue };
            let left = lease.valid_until().saturating_duration_since(Instant::now());
            let renewed = self.owners.renew(lease).await;
            let lost = match renewed {
                Ok(()) => {
                    self.validity.set(shard, lease.epoch(), lease.valid_until());
                    // Due with two thirds left: this node's loop is starved.
                    if left < self.owners.ttl() / 3 {
                        let left_ms = left.as_millis();
                        tracing::warn!(node = %self.node, shard, left_ms, "a shard's lease was renewed late");
                    }
                    false
                }
                Err(LeaseError::Lost(_)) => true,
                // NATS did not answer: keep trying until the lease runs out.
                Err(_) => Instant::now() >= lease.valid_until(),
            };
            if lost {
                self.held.remove(&shard);
                self.lose(shard);
            }
        }
    }

    fn lose(&self, shard: Shard) {
        self.validity.clear(shard);
        let _ = self.changes.send(Change::Lost { shard });
    }
}

/// How long a caller should wait for leases of time to live `ttl` to move
/// after a node stops without releasing them: the expiry, and two ticks.
pub fn failover_bound(ttl: Duration) -> Duration {
    ttl + 2 * (ttl / 3)
}
