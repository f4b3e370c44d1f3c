//! Quick play's one-request rule across the cluster: each player's live
//! request (or the pool table it formed) is a key of the `euchre_quick_play`
//! bucket, created only where no live claim is, so two nodes cannot both
//! take a request of one player.
//!
//! A claim names the node whose pools hold the request. It stays live while
//! that node holds the lease of the pool's shard (a dead node's claims lapse
//! with its leases, and a claim left by an old owner lapses when the pool
//! moves), and once seated, while the claim's table is open. A claim that
//! has lapsed is replaced (an update at the revision read, so two nodes
//! replacing it at once cannot both win). The owner deletes its claims when
//! their requests end or their tables finish; the bucket's age limit bounds
//! what a dead node left behind.
//!
//! One task per node writes its claims, in the order they were asked for:
//! a cancel's release is written before the claim of the request that
//! follows it, and before the cancel is answered (so the player may ask at
//! once in a pool of another node).

use std::collections::HashMap;
use std::time::Duration;

use async_nats::jetstream::kv;
use bytes::Bytes;
use euchre_cluster::{Leases, Shard, ownership::shard_key, shard_of};
use euchre_protocol::{ErrorCode, Refusal, TableId, TableStatus};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::quick_play::Claims;
use crate::registry::Registry;

/// The bucket of claims, and how long a claim nobody rewrote may last (a
/// dead node's, whose players never came back).
pub(super) const BUCKET: &str = "euchre_quick_play";
pub(super) const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Tries of a write NATS did not take (an outage), a pause apart.
const TRIES: u32 = 5;
const PAUSE: Duration = Duration::from_millis(200);

/// A player's claim, as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Claim {
    /// The node whose pools hold the request.
    node: String,
    request: u64,
    pool: String,
    /// The table the request formed, once seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    table: Option<TableId>,
}

/// What the claims' task is asked to do.
enum Op {
    Claim {
        player: String,
        request: u64,
        pool: String,
        answer: oneshot::Sender<Result<(), Refusal>>,
    },
    Seat {
        player: String,
        request: u64,
        table: TableId,
    },
    Release {
        player: String,
        request: u64,
    },
    Waiting {
        player: String,
        answer: oneshot::Sender<Option<(u64, String)>>,
    },
    /// Answered when every op before it is done (ops are done in order).
    Written {
        answer: oneshot::Sender<()>,
    },
}

/// This node's claims: a handle on its claims' task. Cheap to clone.
#[derive(Clone, Debug)]
pub(super) struct KvClaims {
    /// Unbounded, because releases must not be lost; what comes is bounded
    /// by what causes it: each request's claim, seat and release, and the
    /// requests are bounded by the pools and the connections' rate limits.
    ops: mpsc::UnboundedSender<Op>,
}

/// The claims' task's state.
struct Writer {
    bucket: kv::Store,
    node: String,
    shards: Shard,
    owners: Leases,
    registry: Registry,
    /// This node's claims: each player's request and the key's revision as
    /// written here.
    mine: HashMap<String, (u64, u64)>,
}

impl KvClaims {
    /// Starts the claims' task of `node`, which writes to `bucket`.
    pub(super) fn start(
        bucket: kv::Store,
        node: String,
        shards: Shard,
        owners: Leases,
        registry: Registry,
    ) -> KvClaims {
        let (ops, queue) = mpsc::unbounded_channel();
        let writer = Writer { bucket, node, shards, owners, registry, mine: HashMap::new() };
        tokio::spawn(writer.run(queue));
        KvClaims { ops }
    }
}

/// A player's key: their id if it is a valid key (ids are UUIDs), its hex
/// otherwise.
fn key(player: &str) -> String {
    if !player.is_empty() && player.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        player.to_owned()
    } else {
        player.bytes().map(|b| format!("{b:02x}")).collect()
    }
}

fn unavailable() -> Refusal {
    ErrorCode::Unavailable.refusal("quick play cannot check your other requests now; ask again")
}

impl Claims for KvClaims {
    fn claim<'a>(
        &'a self,
        player_id: &'a str,
        request_id: u64,
        pool: &'a str,
    ) -> BoxFuture<'a, Result<(), Refusal>> {
        Box::pin(async move {
            let (answer, answered) = oneshot::channel();
            let op = Op::Claim {
                player: player_id.to_owned(),
                request: request_id,
                pool: pool.to_owned(),
                answer,
            };
            self.ops.send(op).map_err(|_| unavailable())?;
            answered.await.unwrap_or_else(|_| Err(unavailable()))
        })
    }

    fn seat(&self, player_id: &str, request_id: u64, table: &TableId) {
        let op =
            Op::Seat { player: player_id.to_owned(), request: request_id, table: table.clone() };
        let _ = self.ops.send(op);
    }

    fn release(&self, player_id: &str, request_id: u64) {
        let _ = self.ops.send(Op::Release { player: player_id.to_owned(), request: request_id });
    }

    fn waiting<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Option<(u64, String)>> {
        Box::pin(async move {
            let (answer, answered) = oneshot::channel();
            self.ops.send(Op::Waiting { player: player_id.to_owned(), answer }).ok()?;
            answered.await.ok().flatten()
        })
    }

    fn written(&self) -> BoxFuture<'static, ()> {
        let (answer, answered) = oneshot::channel();
        let _ = self.ops.send(Op::Written { answer });
        Box::pin(async move {
            let _ = answered.await;
        })
    }
}

impl Writer {
    async fn run(mut self, mut queue: mpsc::UnboundedReceiver<Op>) {
        while let Some(op) = queue.recv().await {
            match op {
                Op::Claim { player, request, pool, answer } => {
                    let claimed = self.claim(&player, request, pool).await;
                    let _ = answer.send(claimed);
                }
                Op::Seat { player, request, table } => self.seat(&player, request, table).await,
                Op::Release { player, request } => self.release(&player, request).await,
                Op::Waiting { player, answer } => {
                    let found = self.read(&player).await.ok().flatten();
                    let waiting = match found {
                        Some((claim, _)) if claim.table.is_none() && self.holds(&claim).await => {
                            Some((claim.request, claim.pool))
                        }
                        _ => None,
                    };
                    let _ = answer.send(waiting);
                }
                Op::Written { answer } => {
                    let _ = answer.send(());
                }
            }
        }
    }

    /// The player's claim and its revision, if they have one.
    async fn read(&self, player: &str) -> Result<Option<(Claim, u64)>, Refusal> {
        let entry = self.bucket.entry(key(player)).await.map_err(|_| unavailable())?;
        Ok(entry.filter(|entry| entry.operation == kv::Operation::Put).map(|entry| {
            // An unreadable claim (a newer node's?) counts as lapsed.
            let claim = serde_json::from_slice(&entry.value).unwrap_or(Claim {
                node: String::new(),
                request: 0,
                pool: String::new(),
                table: None,
            });
            (claim, entry.revision)
        }))
    }

    /// Whether `claim`'s node still holds the lease of its pool's shard.
    async fn holds(&self, claim: &Claim) -> bool {
        let shard = shard_of(&claim.pool, self.shards);
        match self.owners.holder(&shard_key(shard)).await {
            Ok(holder) => holder.is_some_and(|holder| holder.node == claim.node),
            // Unknown: kept, rather than risk two requests.
            Err(_) => true,
        }
    }

    /// The refusal a live `claim` gives a new request; `None` if it lapsed.
    async fn refusal(&self, claim: &Claim) -> Option<Refusal> {
        let open = |table: &TableId| {
            self.registry.summary(table).is_some_and(|s| s.status != TableStatus::Finished)
        };
        match &claim.table {
            Some(table) if open(table) => Some(ErrorCode::InQuickPlayGame.into()),
            // Seated: the owner lets it go when the table finishes (the
            // lobby may not list a table just made yet).
            Some(_) => self.holds(claim).await.then(|| ErrorCode::InQuickPlayGame.into()),
            None => self.holds(claim).await.then(|| ErrorCode::AlreadyQueued.into()),
        }
    }

    async fn claim(&mut self, player: &str, request: u64, pool: String) -> Result<(), Refusal> {
        let claim = Claim { node: self.node.clone(), request, pool, table: None };
        let value = Bytes::from(serde_json::to_vec(&claim).map_err(|_| unavailable())?);
        for _ in 0..TRIES {
            let written = match self.read(player).await? {
                None => self.bucket.create(key(player), value.clone()).await.ok(),
                Some((held, revision)) => {
                    if let Some(refusal) = self.refusal(&held).await {
                        return Err(refusal);
                    }
                    // Lapsed: replaced, unless another node replaced it first.
                    self.bucket.update(key(player), value.clone(), revision).await.ok()
                }
            };
            if let Some(revision) = written {
                self.mine.insert(player.to_owned(), (request, revision));
                return Ok(());
            }
        }
        Err(unavailable())
    }

    async fn seat(&mut self, player: &str, request: u64, table: TableId) {
        let Some(&(mine, revision)) = self.mine.get(player) else { return };
        if mine != request {
            return;
        }
        let Some((mut claim, _)) = self.read(player).await.ok().flatten() else { return };
        claim.table = Some(table);
        let Ok(value) = serde_json::to_vec(&claim) else { return };
        match self.bucket.update(key(player), value.into(), revision).await {
            Ok(revision) => {
                self.mine.insert(player.to_owned(), (request, revision));
            }
            // Replaced since (the pool moved): no longer this node's.
            Err(_) => {
                self.mine.remove(player);
            }
        }
    }

    async fn release(&mut self, player: &str, request: u64) {
        let Some(&(mine, revision)) = self.mine.get(player) else { return };
        if mine != request {
            return;
        }
        self.mine.remove(player);
        for _ in 0..TRIES {
            match self.bucket.delete_expect_revision(key(player), Some(revision)).await {
                Ok(()) => return,
                // Replaced since by another node: theirs now.
                Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => return,
                Err(error) => {
                    tracing::warn!(%error, "cannot release a quick-play claim; trying again");
                    tokio::time::sleep(PAUSE).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_players_key_is_their_id_or_its_hex() {
        let id = "0193a8f2-c4e0-7b3d-9f1a-2b3c4d5e6f70";
        assert_eq!(key(id), id);
        assert_eq!(key("a.b"), "612e62");
        assert_eq!(key(""), "");
    }
}
