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
//!
//! Looking for free shards costs two requests a shard not held, and a node
//! can stay below its share for good (256 shards on three nodes: 86, 86 and
//! 84), so a node looks only when shards may have come free ([`Looks`]):
//! for a few ticks after the live nodes' count changed or a shard moved
//! here, and otherwise every few lifetimes.

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
    looks: Looks,
}

/// Ticks a node keeps looking for free shards after something changed:
/// shards a node gives up are released on its next tick, which may come
/// a tick after this node's.
const LOOK_AFTER_CHANGE: u32 = 3;
/// With nothing changed, a node looks once in this many ticks (three
/// lifetimes and a tick): a net under the rule for a shard that came free
/// with no node leaving. (A node that loses a lease it could not renew
/// looks again itself, since a shard moved.)
const LOOK_EVERY: u32 = 10;

/// When a node below its share looks for free shards.
///
/// Shards come free when a node leaves (its heartbeat expires with its
/// leases, a moment after them, or is released just after them), when a
/// node joins (the others give up their excess), and seldom otherwise. So
/// a change in the live nodes' count, or a shard gained or lost here, opens
/// [`LOOK_AFTER_CHANGE`] ticks of looking; otherwise a node looks every
/// [`LOOK_EVERY`] ticks.
#[derive(Debug, Default)]
struct Looks {
    nodes: usize,
    /// Ticks of looking left.
    left: u32,
    /// Ticks since the last look.
    since: u32,
}

impl Looks {
    /// Whether this tick looks, with `nodes` live now.
    fn due(&mut self, nodes: usize) -> bool {
        if nodes != self.nodes {
            self.nodes = nodes;
            self.changed();
        }
        let due = self.left > 0 || self.since + 1 >= LOOK_EVERY;
        self.left = self.left.saturating_sub(1);
        self.since = if due { 0 } else { self.since + 1 };
        due
    }

    /// Shards moved: look again for the next few ticks.
    fn changed(&mut self) {
        self.left = LOOK_AFTER_CHANGE;
    }
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
            looks: Looks::default(),
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
        if self.held.len() >= fair || !self.looks.due(nodes) {
            return Ok(());
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
                self.looks.changed();
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

    fn lose(&mut self, shard: Shard) {
        self.looks.changed();
        self.validity.clear(shard);
        let _ = self.changes.send(Change::Lost { shard });
    }
}

/// How long a caller should wait for leases of time to live `ttl` to move
/// after a node stops without releasing them: the expiry, and two ticks.
pub fn failover_bound(ttl: Duration) -> Duration {
    ttl + 2 * (ttl / 3)
}

#[cfg(test)]
mod tests {
    use super::{LOOK_AFTER_CHANGE, LOOK_EVERY, Looks};

    /// Whether each of `ticks` ticks looks, with `nodes` live throughout.
    fn ticks(looks: &mut Looks, nodes: usize, ticks: u32) -> Vec<bool> {
        (0..ticks).map(|_| looks.due(nodes)).collect()
    }

    #[test]
    fn a_settled_node_looks_for_free_shards_seldom() {
        let mut looks = Looks::default();
        // Starting: the count went from none to three.
        let start = ticks(&mut looks, 3, LOOK_AFTER_CHANGE);
        assert!(start.iter().all(|&due| due), "{start:?}");
        let settled = ticks(&mut looks, 3, 4 * LOOK_EVERY);
        let looked = settled.iter().filter(|&&due| due).count();
        assert_eq!(looked, 4, "once in {LOOK_EVERY} ticks: {settled:?}");
    }

    #[test]
    fn a_node_leaving_or_a_shard_moving_opens_ticks_of_looking() {
        let mut looks = Looks::default();
        ticks(&mut looks, 3, 10);
        // A node's heartbeat expired: look at once and for a few ticks more.
        assert!(ticks(&mut looks, 2, LOOK_AFTER_CHANGE).iter().all(|&due| due));
        ticks(&mut looks, 2, 10);
        looks.changed();
        assert!(ticks(&mut looks, 2, LOOK_AFTER_CHANGE).iter().all(|&due| due));
    }
}
