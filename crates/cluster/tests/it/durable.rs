//! Tables' writes kept in their shards' logs through the server's
//! `Durability` seam, against a nats-server of the test's own.

use std::time::Duration;

use euchre_cluster::testing::Nats;
use euchre_cluster::{LogConfig, ShardLog, ShardLogs, shard_of, tables_in};
use euchre_store::Write;
use euchre_store::durable::{Durability, NotDurable};
use euchre_testkit::eventually;
use tokio::sync::oneshot;

const SHARDS: u16 = 4;

fn closed(table: &str, at: i64) -> Write {
    Write::TableClosed { id: table.to_owned(), at }
}

/// Keeps `writes` of `table` and waits for the answer.
async fn keep(logs: &ShardLogs, table: &str, writes: Vec<Write>) -> Result<(), NotDurable> {
    let (tx, rx) = oneshot::channel();
    logs.keep(table, writes, Box::new(move |result| drop(tx.send(result))));
    tokio::time::timeout(Duration::from_secs(10), rx).await.expect("answered").expect("once")
}

/// Two table ids in `shard`, and one in another shard.
fn tables(shard: u16) -> (String, String, String) {
    let mut ids = (0..).map(|n| format!("table{n}"));
    let mut find =
        |want: bool| ids.find(|id| (shard_of(id, SHARDS) == shard) == want).expect("an id");
    (find(true), find(true), find(false))
}

#[tokio::test]
async fn steps_are_kept_in_order_read_back_per_table_and_refused_once_fenced() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let shard = 1;
    let (one, two, elsewhere) = tables(shard);
    let (a_js, b_js) = (nats.jetstream().await, nats.jetstream().await);

    let a = ShardLogs::new(SHARDS);
    let (log, _) = ShardLog::take_over(&a_js, &config, shard, "a", 1).await.expect("takes over");
    a.start(log);
    let mut kept = Vec::new();
    for n in 0..10 {
        let table = if n % 3 == 0 { &two } else { &one };
        let writes = vec![closed(table, n), closed(table, 100 + n)];
        keep(&a, table, writes.clone()).await.expect("durable");
        kept.push((table.clone(), writes));
    }
    // A table of a shard this node does not own is refused at once.
    assert!(matches!(
        keep(&a, &elsewhere, vec![closed(&elsewhere, 0)]).await,
        Err(NotDurable::Fenced)
    ));

    // Node b takes the shard over and finds each table's writes, in order.
    let (_log, entries) =
        ShardLog::take_over(&b_js, &config, shard, "b", 2).await.expect("takes over");
    let rebuilt = tables_in(shard, &entries).expect("readable");
    for table in [&one, &two] {
        let expected: Vec<Write> =
            kept.iter().filter(|(t, _)| t == table).flat_map(|(_, w)| w.clone()).collect();
        assert_eq!(rebuilt[table.as_str()], expected, "{table}");
    }
    assert_eq!(rebuilt.len(), 2);

    // Node a, fenced, refuses this step and every later one.
    assert!(matches!(keep(&a, &one, vec![closed(&one, 999)]).await, Err(NotDurable::Fenced)));
    assert!(matches!(keep(&a, &two, vec![closed(&two, 999)]).await, Err(NotDurable::Fenced)));
    let (_log, after) = ShardLog::take_over(&b_js, &config, shard, "b", 2).await.expect("again");
    assert_eq!(
        tables_in(shard, &after).expect("readable"),
        rebuilt,
        "nothing of a's after the fence"
    );

    // A shard given up refuses at once too.
    a.stop(shard);
    assert!(matches!(keep(&a, &one, vec![closed(&one, 1000)]).await, Err(NotDurable::Fenced)));
}

#[tokio::test]
async fn nothing_is_appended_once_the_lease_has_run_out_by_the_nodes_clock() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let shard = 2;
    let (one, _, _) = tables(shard);
    let js = nats.jetstream().await;
    let validity = euchre_cluster::Validity::default();
    let until = tokio::time::Instant::now() + Duration::from_millis(300);
    validity.set(shard, 1, until);
    let logs = ShardLogs::new(SHARDS).with_validity(validity.clone());
    let (log, _) = ShardLog::take_over(&js, &config, shard, "a", 1).await.expect("takes over");
    let stopped = logs.start(log);
    keep(&logs, &one, vec![closed(&one, 1)]).await.expect("durable while the lease holds");

    // The lease loop could not renew (NATS cut off, say) and the lease's
    // time ran out: NATS would take the append, the node does not send it.
    tokio::time::sleep_until(until).await;
    assert!(matches!(keep(&logs, &one, vec![closed(&one, 2)]).await, Err(NotDurable::Fenced)));
    let why =
        tokio::time::timeout(Duration::from_secs(5), stopped).await.expect("told").expect("why");
    assert!(matches!(why, euchre_cluster::LogError::LeaseExpired(2)), "{why:?}");
    // Renewed again, the same log still refuses: it is taken over anew.
    validity.set(shard, 1, tokio::time::Instant::now() + Duration::from_secs(60));
    assert!(matches!(keep(&logs, &one, vec![closed(&one, 3)]).await, Err(NotDurable::Fenced)));
    let entries = euchre_cluster::log::read_shard(&js, &config, shard, 0).await.expect("reads");
    assert_eq!(
        tables_in(shard, &entries).expect("readable").remove(&one),
        Some(vec![closed(&one, 1)]),
        "only the append made under the lease is in the log"
    );
    // A lease at another epoch (lost, then taken again) is not this log's.
    validity.set(shard, 7, tokio::time::Instant::now() + Duration::from_secs(60));
    assert!(!validity.holds(shard, 1));
}

#[tokio::test]
async fn a_closed_table_is_purged_by_the_shards_writer_only_while_the_lease_holds() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let shard = 3;
    let (one, two, elsewhere) = tables(shard);
    let (a_js, b_js) = (nats.jetstream().await, nats.jetstream().await);
    let validity = euchre_cluster::Validity::default();
    validity.set(shard, 1, tokio::time::Instant::now() + Duration::from_secs(60));
    let logs = ShardLogs::new(SHARDS).with_validity(validity.clone());
    let (log, _) = ShardLog::take_over(&a_js, &config, shard, "a", 1).await.expect("takes over");
    logs.start(log);
    keep(&logs, &one, vec![closed(&one, 1)]).await.expect("durable");
    keep(&logs, &two, vec![closed(&two, 2)]).await.expect("durable");
    keep(&logs, &one, vec![closed(&one, 3)]).await.expect("durable");

    assert_eq!(logs.purge(&one).await.expect("purged"), 2);
    let entries = euchre_cluster::log::read_shard(&a_js, &config, shard, 0).await.expect("reads");
    let left = tables_in(shard, &entries).expect("readable");
    assert_eq!(left.keys().collect::<Vec<_>>(), [&two], "only the purged table went");
    // The shard's log goes on after a purge.
    keep(&logs, &two, vec![closed(&two, 4)]).await.expect("durable after a purge");
    // Not this node's shard: refused.
    assert!(matches!(logs.purge(&elsewhere).await, Err(euchre_cluster::LogError::Fenced(_))));

    // The lease no longer surely held: nothing is sent, and the table stays.
    validity.clear(shard);
    let refused = logs.purge(&two).await;
    assert!(matches!(refused, Err(euchre_cluster::LogError::LeaseExpired(3))), "{refused:?}");
    let entries = euchre_cluster::log::read_shard(&a_js, &config, shard, 0).await.expect("reads");
    assert_eq!(tables_in(shard, &entries).expect("readable")[two.as_str()].len(), 2);

    // Fenced by a new owner: a's writer purges nothing more.
    validity.set(shard, 1, tokio::time::Instant::now() + Duration::from_secs(60));
    let (_log, _) = ShardLog::take_over(&b_js, &config, shard, "b", 2).await.expect("takes over");
    assert!(matches!(keep(&logs, &two, vec![closed(&two, 5)]).await, Err(NotDurable::Fenced)));
    assert!(matches!(logs.purge(&two).await, Err(euchre_cluster::LogError::Fenced(3))));
    let entries = euchre_cluster::log::read_shard(&b_js, &config, shard, 0).await.expect("reads");
    assert_eq!(tables_in(shard, &entries).expect("readable")[two.as_str()].len(), 2);
}

#[tokio::test]
async fn a_purge_asked_while_nats_is_away_never_stops_the_shards_writer() {
    let Some(mut nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let shard = 0;
    let (one, two, _) = tables(shard);
    let js = nats.jetstream().await;
    let logs = ShardLogs::new(SHARDS);
    let (log, _) = ShardLog::take_over(&js, &config, shard, "a", 1).await.expect("takes over");
    logs.start(log);
    keep(&logs, &one, vec![closed(&one, 1)]).await.expect("durable");
    keep(&logs, &two, vec![closed(&two, 2)]).await.expect("durable");

    // NATS goes away for a second (same port and store), while the purge is asked.
    let outage = tokio::task::spawn_blocking(move || {
        nats.outage(Duration::from_secs(1));
        nats
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let during = tokio::time::timeout(Duration::from_secs(15), logs.purge(&one)).await;
    // It gets through once NATS is back (the client holds it meanwhile: so
    // it went in the runs here), or fails as NATS's failure, which the node
    // tries again; never as a lost shard.
    let during = during.expect("answered");
    eprintln!("a purge asked while NATS was away: {during:?}");
    assert!(matches!(during, Ok(_) | Err(euchre_cluster::LogError::Nats(_))), "{during:?}");
    let nats = outage.await.expect("NATS is back");
    eventually("a purge to go through once NATS is back", Duration::from_secs(30), async || {
        match logs.purge(&one).await {
            Ok(n) => Some(n),
            Err(euchre_cluster::LogError::Nats(_)) => None,
            Err(error) => panic!("{error}"),
        }
    })
    .await;
    // A failed purge leaves the shard's writer as it was.
    keep(&logs, &two, vec![closed(&two, 3)]).await.expect("durable after the outage");
    let js = nats.jetstream().await;
    let entries = euchre_cluster::log::read_shard(&js, &config, shard, 0).await.expect("reads");
    let left = tables_in(shard, &entries).expect("readable");
    assert!(!left.contains_key(&one), "purged");
    assert_eq!(left[two.as_str()], vec![closed(&two, 2), closed(&two, 3)]);
}
