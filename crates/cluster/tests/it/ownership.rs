//! Nodes' lease loops sharing the shards, against a nats-server of the test's own.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use euchre_cluster::ownership::failover_bound;
use euchre_cluster::testing::Nats;
use euchre_cluster::{Change, Leases, Ownership, Shard};
use euchre_testkit::eventually;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

const TTL: Duration = Duration::from_secs(1);
const SHARDS: Shard = 16;

/// A node's lease loop, running, and what it owns as its changes say.
struct Node {
    changes: mpsc::UnboundedReceiver<Change>,
    owned: BTreeMap<Shard, u64>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

async fn node(nats: &Nats, name: &str) -> Node {
    let js = nats.jetstream().await;
    let owners = Leases::open(&js, "owners", TTL, 1).await.expect("opens");
    let nodes = Leases::open(&js, "nodes", TTL, 1).await.expect("opens");
    let (tx, changes) = mpsc::unbounded_channel();
    let stop = CancellationToken::new();
    let task = tokio::spawn(Ownership::new(name, SHARDS, owners, nodes, tx).run(stop.clone()));
    Node { changes, owned: BTreeMap::new(), stop, task }
}

impl Node {
    fn update(&mut self) {
        while let Ok(change) = self.changes.try_recv() {
            match change {
                Change::Gained { shard, epoch } => {
                    assert!(self.owned.insert(shard, epoch).is_none(), "gained {shard} twice");
                }
                Change::Lost { shard } => {
                    assert!(self.owned.remove(&shard).is_some(), "lost {shard} not held");
                }
            }
        }
    }

    fn shards(&self) -> BTreeSet<Shard> {
        self.owned.keys().copied().collect()
    }
}

/// Waits until `done` holds of the nodes, updated as their changes come.
async fn until(nodes: &mut [&mut Node], within: Duration, done: impl Fn(&[&mut Node]) -> bool) {
    eventually("the nodes to agree", within, async || {
        for node in nodes.iter_mut() {
            node.update();
        }
        done(nodes).then_some(())
    })
    .await;
}

#[tokio::test]
async fn two_nodes_share_the_shards_and_one_takes_all_when_the_other_dies() {
    let Some(nats) = Nats::start() else { return };
    let (mut a, mut b) = (node(&nats, "a").await, node(&nats, "b").await);
    // Half each, no shard twice, none left out.
    until(&mut [&mut a, &mut b], 6 * TTL, |nodes| {
        nodes.iter().all(|n| n.owned.len() == usize::from(SHARDS) / 2)
    })
    .await;
    assert!(a.shards().is_disjoint(&b.shards()));
    let before = a.owned.clone();

    // a dies without a word (no release): b gets its shards once they expire.
    a.task.abort();
    let died = Instant::now();
    until(&mut [&mut b], failover_bound(TTL) + TTL, |nodes| {
        nodes[0].owned.len() == usize::from(SHARDS)
    })
    .await;
    let took = died.elapsed();
    assert!(took >= TTL / 2, "a's shards moved after {took:?}, before they could expire");
    for (shard, epoch) in before {
        assert!(b.owned[&shard] > epoch, "shard {shard}: a new owner has a higher epoch");
    }
    eprintln!("lease time to live {TTL:?}: the dead node's shards moved in {took:?}");
}

#[tokio::test]
async fn a_node_that_stops_cleanly_hands_its_shards_over_at_once() {
    let Some(nats) = Nats::start() else { return };
    let (mut a, mut b) = (node(&nats, "a").await, node(&nats, "b").await);
    until(&mut [&mut a, &mut b], 6 * TTL, |nodes| {
        nodes.iter().all(|n| n.owned.len() == usize::from(SHARDS) / 2)
    })
    .await;
    a.stop.cancel();
    (&mut a.task).await.expect("a stops");
    a.update();
    assert!(a.owned.is_empty(), "a reported every shard lost: {:?}", a.owned);
    let stopped = Instant::now();
    // Released keys are free at once: the next tick of b takes them, well
    // before they could have expired. (b first sees one node: a's heartbeat
    // is released too.)
    until(&mut [&mut b], TTL, |nodes| nodes[0].owned.len() == usize::from(SHARDS)).await;
    assert!(stopped.elapsed() < TTL);
}

#[tokio::test]
async fn a_node_that_joins_gets_its_share() {
    let Some(nats) = Nats::start() else { return };
    let mut a = node(&nats, "a").await;
    until(&mut [&mut a], 3 * TTL, |nodes| nodes[0].owned.len() == usize::from(SHARDS)).await;
    let (mut b, mut c) = (node(&nats, "b").await, node(&nats, "c").await);
    // ceil(16 / 3) = 6 at most each: 6, 6 and 4 in some order.
    until(&mut [&mut a, &mut b, &mut c], 10 * TTL, |nodes| {
        let counts: Vec<usize> = nodes.iter().map(|n| n.owned.len()).collect();
        counts.iter().sum::<usize>() == usize::from(SHARDS) && counts.iter().all(|&c| c <= 6)
    })
    .await;
    let all: BTreeSet<Shard> = a.shards().union(&b.shards()).copied().collect();
    let all: BTreeSet<Shard> = all.union(&c.shards()).copied().collect();
    assert_eq!(all.len(), usize::from(SHARDS), "every shard owned exactly once");
}
