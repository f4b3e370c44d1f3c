//! Each abuser against a server in this process with its default limits,
//! beside a few quickly played tables: what the server does to each (the
//! defences docs/security.md lists, the penalty box included), and that
//! the tables play on.

use std::time::Duration;

use euchre_loadgen::abuse::{AbuseConfig, Abuser, AbuserReport, run_beside};
use euchre_loadgen::{Config, Stop, Think};
use euchre_server::testing::TestServer;

fn abuser(reports: &[AbuserReport], abuser: Abuser) -> &AbuserReport {
    reports.iter().find(|r| r.abuser == abuser.name()).expect("a report for each abuser")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_abuser_is_refused_or_cut_off_and_the_tables_play_on() -> anyhow::Result<()> {
    // A short outbound queue and a small kernel send buffer, so the slow
    // reader overflows them within the test's few seconds (the defence is
    // the same at the defaults, only slower to trip; see BENCHMARKS.md).
    let server = TestServer::start_with(|settings| {
        settings.limits.outbound_queue = 64;
        settings.limits.send_buffer_bytes = 8192;
    })
    .await;
    // Every other limit is the default.
    let limits = euchre_server::Settings::default().limits;
    let url = server.url();

    let play = Config {
        url: url.clone(),
        http: None,
        tables: 4,
        players: 4,
        tables_per_client: 1,
        bot: "basic".to_owned(),
        stop: Stop::After(Duration::from_secs(6)),
        // About ten actions a second a client: within the default rate limit.
        think: Think::Exponential(Duration::from_millis(20)),
        seed: 3,
        store_timeout: Duration::from_secs(10),
        // Four clients an address: well within the default limit.
        source_addresses: 4,
        server_pid: None,
        watch_pids: Vec::new(),
        follow_hints: true,
        reconnect_for: None,
    };
    let abuse = AbuseConfig {
        url,
        abusers: Abuser::ALL.to_vec(),
        own_addresses: true,
        flood_rate: 5_000,
        slow_watches: 4,
        slow_hold: Duration::from_secs(3),
    };
    let run = run_beside(&play, abuse, Some(std::process::id())).await?;
    eprint!("{}", run.to_text());

    // The well-behaved tables played, with no refusal of any kind.
    assert!(run.play.actions > 0);
    assert!(run.play.errors.is_empty(), "errors at the tables: {:?}", run.play.errors);

    // Closed, then kept out: the run is shorter than the penalty, so each
    // of these two gets one connection and 429s from then on.
    assert!(limits.abuse_penalty_ms >= 6_000, "the penalty outlasts the run");
    let flooder = abuser(&run.abusers, Abuser::Flooder);
    assert!(flooder.errors.get("rate_limited").copied().unwrap_or(0) > 0, "{flooder:?}");
    assert_eq!(flooder.closed_by_server.get("1008"), Some(&1), "{flooder:?}");
    assert_eq!(flooder.connections_accepted, 1, "{flooder:?}");
    assert!(flooder.connections_refused.get("http_429").copied().unwrap_or(0) > 0, "{flooder:?}");

    let oversized = abuser(&run.abusers, Abuser::OversizedFrames);
    assert!(oversized.errors.get("too_large").copied().unwrap_or(0) > 0, "{oversized:?}");
    assert_eq!(oversized.closed_by_server.get("1009"), Some(&1), "{oversized:?}");
    assert_eq!(oversized.connections_accepted, 1, "{oversized:?}");
    let refused = oversized.connections_refused.get("http_429").copied().unwrap_or(0);
    assert!(refused > 0, "{oversized:?}");

    let hog = abuser(&run.abusers, Abuser::ConnectionHog);
    assert_eq!(hog.connections_accepted, limits.connections_per_address as u64, "{hog:?}");
    assert!(hog.connections_refused.get("http_429").copied().unwrap_or(0) > 0, "{hog:?}");
    assert_eq!(hog.open_at_end, hog.connections_accepted, "the hog keeps what it got");

    let slow = abuser(&run.abusers, Abuser::SlowReader);
    // Cut off: the server closes it (4000) once its queue overflows, but
    // the close frame waits behind everything the reader never read, so
    // when it finally reads the socket it mostly finds it reset.
    let cut_off: u64 =
        ["4000", "reset", "ended"].iter().filter_map(|how| slow.closed_by_server.get(*how)).sum();
    // A connection left open after its hold ("not_cut_off") is allowed
    // beside a cut-off one: once it reconnects, the tables it watches may
    // play too slowly on a loaded machine to fill its queue during the
    // hold, which is the limit not yet reached, not the limit failing.
    assert!(cut_off > 0, "{slow:?}");
    server.stop().await;
    Ok(())
}
