//! Leases and the log together, the way nodes use them: a node that stops
//! renewing loses its shard to another, which rebuilds from the log, and the
//! old node, back, cannot write.

use std::time::Duration;

use euchre_cluster::testing::Nats;
use euchre_cluster::{LeaseError, Leases, LogConfig, LogEntry, LogError, ShardLog, shard_of};
use euchre_testkit::eventually;
use tokio::time::Instant;

#[tokio::test]
async fn a_silent_owner_loses_its_shard_and_is_fenced_when_it_comes_back() {
    let Some(nats) = Nats::start() else { return };
    let ttl = Duration::from_secs(1);
    let config = LogConfig::default();
    let shard = shard_of("0193a8f2c4e07b3d9f1a2b3c4d5e6f70", 16);
    let name = format!("shard-{shard}");
    let (a_js, b_js) = (nats.jetstream().await, nats.jetstream().await);
    let (a_leases, b_leases) = (
        Leases::open(&a_js, "owners", ttl, 1).await.expect("opens"),
        Leases::open(&b_js, "owners", ttl, 1).await.expect("opens"),
    );

    // Node a owns the shard and plays.
    let mut a_lease = a_leases.try_acquire(&name, "a").await.expect("asks").expect("free");
    let (mut a_log, _) =
        ShardLog::take_over(&a_js, &config, shard, "a", a_lease.epoch()).await.expect("takes over");
    for n in 0..5 {
        a_log.append("t1", format!("a {n}").into()).await.expect("appends");
    }
    a_leases.renew(&mut a_lease).await.expect("renews");

    // Node a stalls (no renewals); node b asks until the lease is free.
    let stalled = Instant::now();
    let b_lease = eventually("the lease to expire", 10 * ttl, async || {
        b_leases.try_acquire(&name, "b").await.expect("asks")
    })
    .await;
    assert!(b_lease.epoch() > a_lease.epoch());
    let (mut b_log, entries) =
        ShardLog::take_over(&b_js, &config, shard, "b", b_lease.epoch()).await.expect("takes over");
    let taken = stalled.elapsed();
    let rebuilt: Vec<String> = entries
        .iter()
        .filter_map(|e| match e {
            LogEntry::Record { table, body, .. } if table == "t1" => {
                Some(String::from_utf8_lossy(body).into_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(rebuilt, (0..5).map(|n| format!("a {n}")).collect::<Vec<_>>());
    b_log.append("t1", "b 0".into()).await.expect("the new owner appends");
    eprintln!("lease time to live {ttl:?}: shard taken over {taken:?} after the owner went silent");

    // Node a wakes up believing it still owns the shard: every write is refused.
    assert!(matches!(a_log.append("t1", "a 5".into()).await, Err(LogError::Fenced(_))));
    assert!(matches!(a_leases.renew(&mut a_lease).await, Err(LeaseError::Lost(_))));
    let retake = ShardLog::take_over(&a_js, &config, shard, "a", a_lease.epoch()).await;
    assert!(matches!(retake, Err(LogError::Fenced(_))), "{retake:?}");
    b_log.append("t1", "b 1".into()).await.expect("b is undisturbed");
}
