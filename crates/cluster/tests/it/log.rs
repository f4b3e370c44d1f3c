//! The shared action log against a real `nats-server -js` of each test's own.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use euchre_cluster::log::{read_shard, read_table};
use euchre_cluster::testing::Nats;
use euchre_cluster::{LogConfig, LogEntry, LogError, ShardLog};

fn records(entries: &[LogEntry]) -> Vec<(String, String)> {
    entries
        .iter()
        .filter_map(|entry| match entry {
            LogEntry::Record { table, body, .. } => {
                Some((table.clone(), String::from_utf8_lossy(body).into_owned()))
            }
            LogEntry::Fence { .. } => None,
        })
        .collect()
}

fn fences(entries: &[LogEntry]) -> Vec<(String, u64)> {
    entries
        .iter()
        .filter_map(|entry| match entry {
            LogEntry::Fence { node, epoch, .. } => Some((node.clone(), *epoch)),
            LogEntry::Record { .. } => None,
        })
        .collect()
}

#[tokio::test]
async fn a_new_owner_reads_everything_and_the_old_owner_can_no_longer_append() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let (old_js, new_js) = (nats.jetstream().await, nats.jetstream().await);
    let (mut old, before) =
        ShardLog::take_over(&old_js, &config, 3, "old", 10).await.expect("takes over");
    assert!(before.is_empty(), "a new shard's log is empty");
    for n in 0..3 {
        old.append("t1", Bytes::from(format!("old {n}"))).await.expect("appends");
    }
    let (mut new, read) =
        ShardLog::take_over(&new_js, &config, 3, "new", 20).await.expect("takes over");
    assert_eq!(fences(&read), vec![("old".into(), 10)]);
    let expected: Vec<(String, String)> =
        (0..3).map(|n| ("t1".into(), format!("old {n}"))).collect();
    assert_eq!(records(&read), expected);
    // The old owner, not knowing yet, tries to go on: refused, and from then on too.
    assert!(matches!(old.append("t1", "stale".into()).await, Err(LogError::Fenced(3))));
    assert!(matches!(old.append("t2", "stale too".into()).await, Err(LogError::Fenced(3))));
    new.append("t1", "new 0".into()).await.expect("the new owner appends");
    let table = read_table(&new_js, &config, 3, "t1").await.expect("reads");
    let mut expected = expected;
    expected.push(("t1".into(), "new 0".into()));
    assert_eq!(records(&table), expected, "nothing of the stale owner's, everything acknowledged");
    // Each record says which owner wrote it.
    let epochs: Vec<u64> = table
        .iter()
        .filter_map(|e| match e {
            LogEntry::Record { epoch, .. } => Some(*epoch),
            LogEntry::Fence { .. } => None,
        })
        .collect();
    assert_eq!(epochs, vec![10, 10, 10, 20]);
}

#[tokio::test]
async fn an_owner_with_an_older_epoch_cannot_take_the_log_back() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let js = nats.jetstream().await;
    ShardLog::take_over(&js, &config, 0, "new", 9).await.expect("takes over");
    let stale = ShardLog::take_over(&js, &config, 0, "old", 5).await;
    assert!(matches!(stale, Err(LogError::Fenced(0))), "{stale:?}");
    // The same epoch again (the same holder, after an append failed) may.
    ShardLog::take_over(&js, &config, 0, "new", 9).await.expect("takes over again");
}

#[tokio::test]
async fn every_append_acknowledged_to_the_old_owner_is_read_by_the_new_one() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let (old_js, new_js) = (nats.jetstream().await, nats.jetstream().await);
    let (mut old, _) =
        ShardLog::take_over(&old_js, &config, 1, "old", 1).await.expect("takes over");
    // The old owner appends as fast as it can while the new one takes over.
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writer = tokio::spawn({
        let acknowledged = acknowledged.clone();
        async move {
            for n in 0.. {
                match old.append(&format!("t{}", n % 4), Bytes::from(n.to_string())).await {
                    Ok(_) => acknowledged.lock().expect("lock").push(n.to_string()),
                    Err(LogError::Fenced(_)) => return n,
                    Err(error) => panic!("{error}"),
                }
            }
            unreachable!()
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let (_new, read) =
        ShardLog::take_over(&new_js, &config, 1, "new", 2).await.expect("takes over");
    let refused_at = writer.await.expect("the old owner stopped");
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(acknowledged.len() > 10, "only {} appends before the takeover", acknowledged.len());
    assert_eq!(acknowledged.len() as u64, refused_at, "refused once, then never appended again");
    let read: Vec<String> = records(&read).into_iter().map(|(_, body)| body).collect();
    assert_eq!(read, acknowledged, "exactly what was acknowledged, in order");
}

#[tokio::test]
async fn the_log_reads_back_in_order_after_the_owner_and_nats_both_crash() {
    let Some(mut nats) = Nats::start() else { return };
    let config = LogConfig::default();
    {
        let js = nats.jetstream().await;
        let (mut log, _) = ShardLog::take_over(&js, &config, 5, "a", 1).await.expect("takes over");
        for n in 0..200 {
            log.append(&format!("t{}", n % 5), Bytes::from(n.to_string())).await.expect("appends");
        }
        // The owner dies here: no goodbye, its connection simply drops.
    }
    nats.crash_and_restart();
    let js = nats.jetstream().await;
    let all = read_shard(&js, &config, 5, 0).await.expect("reads");
    let bodies: Vec<String> = records(&all).into_iter().map(|(_, body)| body).collect();
    assert_eq!(bodies, (0..200).map(|n| n.to_string()).collect::<Vec<_>>());
    assert!(all.windows(2).all(|w| w[0].seq() < w[1].seq()));
    for table in 0..5 {
        let one = read_table(&js, &config, 5, &format!("t{table}")).await.expect("reads");
        let expected: Vec<(String, String)> = (0..200)
            .filter(|n| n % 5 == table)
            .map(|n| (format!("t{table}"), n.to_string()))
            .collect();
        assert_eq!(records(&one), expected);
    }
    // Reading on from a point gives only what follows it.
    let tail = read_shard(&js, &config, 5, all[150].seq()).await.expect("reads");
    assert_eq!(tail.len(), all.len() - 151);
    // The next owner rebuilds from the same entries.
    let (_log, read) = ShardLog::take_over(&js, &config, 5, "b", 2).await.expect("takes over");
    assert_eq!(read, all);
}

#[tokio::test]
async fn a_table_id_that_cannot_be_a_subject_is_refused_before_anything_is_sent() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let js = nats.jetstream().await;
    let (mut log, _) = ShardLog::take_over(&js, &config, 2, "a", 1).await.expect("takes over");
    for bad in ["", "a.b", "*", ">", "a b"] {
        assert!(matches!(log.append(bad, "x".into()).await, Err(LogError::BadTable(_))), "{bad:?}");
        assert!(matches!(read_table(&js, &config, 2, bad).await, Err(LogError::BadTable(_))));
    }
    // Refused before sending: the log is still good.
    log.append("fine", "x".into()).await.expect("appends");
    assert_eq!(records(&read_shard(&js, &config, 2, 0).await.expect("reads")).len(), 1);
}

#[tokio::test]
async fn nodes_starting_together_all_open_the_same_streams_and_buckets() {
    let Some(nats) = Nats::start() else { return };
    let mut contexts = Vec::new();
    for _ in 0..8 {
        contexts.push(nats.jetstream().await);
    }
    // Every node creates what is missing at once; one create wins, and the
    // others must read the winner's back rather than fail to start.
    let opened = futures_util::future::join_all(contexts.iter().map(|js| async move {
        let log = euchre_cluster::log::read_shard(js, &LogConfig::default(), 0, 0).await;
        let bucket = euchre_cluster::open_bucket(js, "together", "a test bucket", None, 1).await;
        (log.map(|_| ()).map_err(|e| e.to_string()), bucket.map(|_| ()))
    }))
    .await;
    for (log, bucket) in opened {
        log.expect("the log's stream opens");
        bucket.expect("the bucket opens");
    }
}

#[tokio::test]
async fn a_closed_tables_records_are_purged_alone_and_the_owner_appends_on() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let js = nats.jetstream().await;
    let (mut log, _) = ShardLog::take_over(&js, &config, 4, "a", 1).await.expect("takes over");
    for n in 0..6 {
        log.append(&format!("t{}", n % 2), Bytes::from(n.to_string())).await.expect("appends");
    }
    // t1's record is the stream's last: purging it must not move the last
    // sequence the owner's next append expects.
    assert_eq!(log.purge_table("t1").await.expect("purges"), 3);
    assert!(read_table(&js, &config, 4, "t1").await.expect("reads").is_empty());
    log.append("t0", "6".into()).await.expect("the owner appends on after the purge");
    let kept = read_table(&js, &config, 4, "t0").await.expect("reads");
    let kept: Vec<String> = records(&kept).into_iter().map(|(_, body)| body).collect();
    assert_eq!(kept, ["0", "2", "4", "6"]);
    // Nothing left to purge: a second purge is harmless.
    assert_eq!(log.purge_table("t1").await.expect("purges"), 0);
    assert!(matches!(log.purge_table("a.b").await, Err(LogError::BadTable(_))));
    // The next owner reads the rest, and the single-writer check still holds.
    let (mut next, read) = ShardLog::take_over(&js, &config, 4, "b", 2).await.expect("takes over");
    assert_eq!(records(&read).len(), 4);
    assert_eq!(fences(&read), vec![("a".into(), 1)]);
    assert!(matches!(log.append("t0", "stale".into()).await, Err(LogError::Fenced(4))));
    assert!(
        matches!(log.purge_table("t0").await, Err(LogError::Fenced(4))),
        "a fenced handle purges nothing"
    );
    next.append("t0", "7".into()).await.expect("the new owner appends");
}
