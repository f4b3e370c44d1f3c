//! Shard leases against a real `nats-server -js` of each test's own.

use std::time::Duration;

use euchre_cluster::testing::Nats;
use euchre_cluster::{LeaseError, Leases};
use euchre_testkit::eventually;
use tokio::time::{Instant, sleep};

async fn leases(nats: &Nats, ttl: Duration) -> Leases {
    Leases::open(&nats.jetstream().await, "leases", ttl, 1).await.expect("the bucket opens")
}

#[tokio::test]
async fn of_two_contenders_exactly_one_gets_the_lease() {
    let Some(nats) = Nats::start() else { return };
    // Two nodes, each with its own connection, racing for the same shards.
    let (a, b) =
        (leases(&nats, Duration::from_secs(5)).await, leases(&nats, Duration::from_secs(5)).await);
    for shard in 0..20 {
        let name = format!("shard-{shard}");
        let (got_a, got_b) = tokio::join!(a.try_acquire(&name, "a"), b.try_acquire(&name, "b"));
        let (got_a, got_b) = (got_a.expect("a asks"), got_b.expect("b asks"));
        let winner = match (&got_a, &got_b) {
            (Some(lease), None) | (None, Some(lease)) => lease.holder().clone(),
            _ => panic!("{name}: a got {got_a:?}, b got {got_b:?}"),
        };
        assert_eq!(a.holder(&name).await.expect("reads"), Some(winner.clone()));
        assert!(winner.epoch > 0);
        // Asking again changes nothing while it is held.
        assert!(a.try_acquire(&name, "a").await.expect("asks").is_none());
        assert!(b.try_acquire(&name, "b").await.expect("asks").is_none());
    }
}

#[tokio::test]
async fn renewing_keeps_the_lease_past_its_time_to_live() {
    let Some(nats) = Nats::start() else { return };
    let ttl = Duration::from_secs(1);
    let (owner, rival) = (leases(&nats, ttl).await, leases(&nats, ttl).await);
    let mut lease = owner.try_acquire("shard-0", "owner").await.expect("asks").expect("free");
    let epoch = lease.epoch();
    let until = Instant::now() + 3 * ttl;
    while Instant::now() < until {
        sleep(ttl / 4).await;
        owner.renew(&mut lease).await.expect("still ours");
        assert!(lease.valid_until() > Instant::now() + ttl / 2);
        assert!(rival.try_acquire("shard-0", "rival").await.expect("asks").is_none());
    }
    // Renewing keeps the epoch: the same holder, the same fencing token.
    assert_eq!(lease.epoch(), epoch);
    let holder = rival.holder("shard-0").await.expect("reads").expect("held");
    assert_eq!((holder.node.as_str(), holder.epoch), ("owner", epoch));
}

#[tokio::test]
async fn a_lease_not_renewed_expires_and_passes_to_the_next_node_with_a_higher_epoch() {
    let Some(nats) = Nats::start() else { return };
    let ttl = Duration::from_secs(1);
    let (old, new) = (leases(&nats, ttl).await, leases(&nats, ttl).await);
    let started = Instant::now();
    let mut stale = old.try_acquire("shard-7", "old").await.expect("asks").expect("free");
    // The old owner goes silent; the next node keeps asking.
    let lease = eventually("the lease to expire", 10 * ttl, async || {
        new.try_acquire("shard-7", "new").await.expect("asks")
    })
    .await;
    let waited = started.elapsed();
    assert!(waited >= ttl, "taken over after {waited:?}, before the time to live");
    assert!(lease.epoch() > stale.epoch(), "{} after {}", lease.epoch(), stale.epoch());
    // The old owner learns it on its next renewal, and cannot give away what is not its own.
    assert!(matches!(old.renew(&mut stale).await, Err(LeaseError::Lost(_))));
    old.release(stale).await.expect("a lost lease releases quietly");
    let holder = old.holder("shard-7").await.expect("reads").expect("held");
    assert_eq!((holder.node.as_str(), holder.epoch), ("new", lease.epoch()));
}

#[tokio::test]
async fn a_released_lease_is_free_at_once() {
    let Some(nats) = Nats::start() else { return };
    let leases = leases(&nats, Duration::from_secs(30)).await;
    let lease = leases.try_acquire("shard-1", "a").await.expect("asks").expect("free");
    let first = lease.epoch();
    leases.release(lease).await.expect("released");
    assert_eq!(leases.holder("shard-1").await.expect("reads"), None);
    let again = leases.try_acquire("shard-1", "b").await.expect("asks").expect("free again");
    assert!(again.epoch() > first);
    assert!(matches!(
        leases.try_acquire("no spaces allowed", "a").await,
        Err(LeaseError::BadName(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_renewed_while_the_leases_are_counted_counts_once() {
    let Some(nats) = Nats::start() else { return };
    let ttl = Duration::from_secs(30);
    let (holders, counter) = (leases(&nats, ttl).await, leases(&nats, ttl).await);
    const HELD: usize = 40;
    let mut held = Vec::new();
    for node in 0..HELD {
        let name = format!("node-{node}");
        held.push(holders.try_acquire(&name, &name).await.expect("asks").expect("free"));
    }
    // Every node beats over and over, as the nodes' heartbeats do. A key
    // rewritten while it is listed can come twice; it counts once (a count
    // of one too many made a node give a shard up for nobody, and the
    // table's connections closed). It can also be missed: a count short
    // only makes a node try for a free shard, and gives nothing up.
    let stop = tokio_util::sync::CancellationToken::new();
    let beating = tokio::spawn({
        let stop = stop.clone();
        async move {
            while !stop.is_cancelled() {
                for lease in &mut held {
                    holders.renew(lease).await.expect("still ours");
                }
            }
        }
    });
    let mut counts = Vec::new();
    for _ in 0..40 {
        counts.push(counter.count(ttl).await.expect("counts"));
    }
    stop.cancel();
    beating.await.expect("beat");
    assert!(counts.iter().all(|&count| count <= HELD), "{HELD} held, counted {counts:?}");
    assert_eq!(counter.count(ttl).await.expect("counts"), HELD, "once the keys are still");
}
