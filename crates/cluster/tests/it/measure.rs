//! What the cluster's parts cost, measured against a nats-server of the
//! test's own (ignored in the usual run; figures in docs/architecture.md):
//!
//! cargo test -p euchre-cluster --release --test it -- --ignored --nocapture

use std::time::{Duration, Instant};

use bytes::Bytes;
use euchre_cluster::testing::Nats;
use euchre_cluster::{Leases, LogConfig, ShardLog};

/// About the size of one stored action (`Write::Action` as JSON).
fn body() -> Bytes {
    Bytes::from(format!(
        r#"{{"write":"action","match_id":"{}","hand":3,"index":7,"seat":2,"action":{{"play":"JH"}},"seq":57,"at":1764082800000}}"#,
        "0193a8f2-c4e0-7b3d-9f1a-2b3c4d5e6f70"
    ))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run by hand"]
async fn append_and_lease_costs() {
    let Some(nats) = Nats::start() else { return };
    let config = LogConfig::default();
    let js = nats.jetstream().await;

    // One owner, one append at a time: the latency an acknowledgement gains.
    let (mut log, _) = ShardLog::take_over(&js, &config, 0, "n", 1).await.expect("takes over");
    let mut latencies = Vec::new();
    for n in 0..3_000 {
        let started = Instant::now();
        log.append(&format!("t{}", n % 50), body()).await.expect("appends");
        latencies.push(started.elapsed());
    }
    latencies.sort();
    println!(
        "one shard, appends one at a time: p50 {:?} p90 {:?} p99 {:?} max {:?} ({} bytes each)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1],
        body().len()
    );

    // Many shards at once, each one append in flight: throughput, and the
    // NATS server's CPU per append.
    for shards in [16u16, 64, 256] {
        let per_shard = 40_000 / u32::from(shards);
        let mut logs = Vec::new();
        for shard in 0..shards {
            let (log, _) =
                ShardLog::take_over(&js, &config, 100 + shard, "n", 1).await.expect("takes over");
            logs.push(log);
        }
        let cpu = nats.cpu_seconds();
        let started = Instant::now();
        let tasks: Vec<_> = logs
            .into_iter()
            .map(|mut log| {
                tokio::spawn(async move {
                    for n in 0..per_shard {
                        log.append(&format!("t{}", n % 50), body()).await.expect("appends");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("done");
        }
        let elapsed = started.elapsed().as_secs_f64();
        let appends = f64::from(per_shard) * f64::from(shards);
        let cpu = nats.cpu_seconds() - cpu;
        println!(
            "{shards} shards at once: {:.0} appends/s; nats-server CPU {:.1} µs per append",
            appends / elapsed,
            cpu / appends * 1e6
        );
    }

    // Renewing 256 shard leases, one after another, as one node holding them all would.
    let leases = Leases::open(&js, "leases", Duration::from_secs(10), 1).await.expect("opens");
    let mut held = Vec::new();
    for shard in 0..256 {
        held.push(
            leases.try_acquire(&format!("shard-{shard}"), "n").await.expect("asks").expect("free"),
        );
    }
    let cpu = nats.cpu_seconds();
    let started = Instant::now();
    for _ in 0..10 {
        for lease in &mut held {
            leases.renew(lease).await.expect("renews");
        }
    }
    let each = started.elapsed() / 2_560;
    let cpu = (nats.cpu_seconds() - cpu) / 2_560.0;
    println!(
        "lease renewal, one at a time: {each:?} each; nats-server CPU {:.1} µs each",
        cpu * 1e6
    );
}
