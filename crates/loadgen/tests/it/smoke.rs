//! A short run of each of the load generator's modes against a server in
//! this process: flat out and human-paced play (every action timed, every
//! hand that ends found in the history afterwards), idle connections, and
//! the echo yardstick.

use std::time::Duration;

use euchre_loadgen::{Config, Report, Stop, Think, echo, idle, run};
use euchre_server::testing::TestServer;
use tokio::task::JoinHandle;

fn config(url: &str, tables: usize, players: u8, hands: u64, think: Think) -> Config {
    Config {
        url: url.to_owned(),
        http: None,
        tables,
        players,
        tables_per_client: 1,
        bot: "basic".to_owned(),
        stop: Stop::Hands(hands),
        think,
        seed: 7,
        store_timeout: Duration::from_secs(10),
        source_addresses: 0,
        server_pid: None,
        watch_pids: Vec::new(),
        follow_hints: true,
        reconnect_for: None,
    }
}

fn check(report: &Report, hands: u64) {
    eprint!("{}", report.to_text());
    assert!(report.errors.is_empty(), "errors: {:?}", report.errors);
    assert!(report.actions > 0);
    assert_eq!(report.latency_ms.count, report.actions, "one latency per acknowledged action");
    assert!(report.latency_ms.p50 > 0.0 && report.latency_ms.p50 <= report.latency_ms.max);
    // With Nagle's algorithm on the server's sockets an ack waited for the
    // client's delayed TCP ack of the events before it: 40 ms or more at
    // the median. Without it the median is a few milliseconds even here.
    assert!(report.latency_ms.p50 < 35.0, "p50 {} ms: is TCP_NODELAY off?", report.latency_ms.p50);
    assert!(report.hands_ended >= hands, "{} hands ended", report.hands_ended);
    assert!(report.hands_stored >= report.hands_ended, "{} stored", report.hands_stored);
    assert!(report.hands_stored_per_second > 0.0);
    // Its own CPU per action is always there; the server's only with its pid.
    assert!(report.load_generator_cpu_us_per_action.is_some_and(|micros| micros > 0.0));
    assert_eq!(report.server_cpu_us_per_action, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_plays_times_and_stores_hands() -> anyhow::Result<()> {
    // As the benchmark runs it: limits for one address playing flat out.
    let server = TestServer::start_with(|settings| {
        settings.limits.messages_per_second = 100_000;
        settings.limits.message_burst = 100_000;
        settings.limits.connections_per_address = 1_000;
        settings.limits.guests_per_minute = 0;
        settings.api.requests_per_second = 0;
    })
    .await;
    let url = server.url();

    // Every seat a client: every action of the game is timed, on its way
    // to the acting client's ack and to each other client's event.
    let all_clients = run(&config(&url, 3, 4, 8, Think::Fixed(Duration::ZERO))).await?;
    check(&all_clients, 8);
    let reached_others = all_clients.to_others_ms.count;
    // Each action reaches three other clients; the last few may be unread at the stop.
    assert!(reached_others >= 2 * all_clients.actions, "{reached_others} timed to others");
    // One client and three bots per table.
    let with_bots = run(&config(&url, 2, 1, 6, Think::Fixed(Duration::ZERO))).await?;
    check(&with_bots, 6);
    assert_eq!(with_bots.to_others_ms.count, 0, "no other client to reach");
    // Clients playing several tables at once: three tables for two pairs of clients.
    let several = run(&Config {
        tables_per_client: 2,
        ..config(&url, 3, 2, 6, Think::Fixed(Duration::ZERO))
    })
    .await?;
    check(&several, 6);
    assert_eq!(several.connections, 4, "two groups of two clients");
    // People's pace: each client thinks a few milliseconds, drawn at random.
    let paced = run(&config(&url, 2, 4, 2, Think::Exponential(Duration::from_millis(3)))).await?;
    check(&paced, 2);
    // Idle connections: identified, held, none dropped (this process's own figures).
    // Two URLs (here the same node twice): the connections alternate.
    let both = format!("{url},{url}");
    let held = idle::hold(&both, 20, Duration::from_millis(500), &[std::process::id()]).await?;
    eprint!("{}", held.to_text());
    assert_eq!((held.connections, held.dropped), (20, 0));
    assert!(held.server_kib_per_connection.is_some());
    server.stop().await;
    Ok(())
}

/// The yardsticks' server on an ephemeral port, and its URL at `path`.
async fn echo_server(path: &str) -> anyhow::Result<(JoinHandle<anyhow::Result<()>>, String)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("ws://{}/{path}", listener.local_addr()?);
    Ok((tokio::spawn(async move { echo::serve(listener, None).await }), url))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_echo_yardstick_times_round_trips() -> anyhow::Result<()> {
    let (server, url) = echo_server("ws").await?;
    let report = echo::run(&url, 8, Duration::from_millis(500), Some(std::process::id())).await?;
    eprint!("{}", report.to_text());
    assert_eq!(report.connections, 8);
    assert!(report.round_trips > 0);
    assert_eq!(report.latency_ms.count, report.round_trips, "one latency per round trip");
    assert!(report.round_trips_per_second > 0.0);
    assert!(report.server_cpu_us_per_round_trip.is_some());
    assert!(report.load_generator_cpu_us_per_round_trip.is_some());
    server.abort();
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_yardstick_hands_each_frame_to_the_whole_group() -> anyhow::Result<()> {
    let (server, url) = echo_server("relay").await?;
    let report = echo::run_relay(&url, 3, 4, Duration::from_millis(500), None).await?;
    eprint!("{}", report.to_text());
    assert_eq!((report.yardstick, report.fan_out, report.connections), ("relay", 4, 12));
    // A turn ends only once all four members have read the frame, so any
    // turn at all shows the relay reached the whole group.
    assert!(report.round_trips > 0);
    assert_eq!(report.latency_ms.count, report.round_trips);
    server.abort();
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_durable_relay_journals_each_frame_before_the_group_hears_it() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("ws://{}/durable", listener.local_addr()?);
    let journal = dir.path().join("journal");
    let served = journal.clone();
    let server = tokio::spawn(async move { echo::serve(listener, Some(&served)).await });
    let report = echo::run_relay(&url, 2, 4, Duration::from_millis(500), None).await?;
    eprint!("{}", report.to_text());
    assert_eq!((report.yardstick, report.fan_out, report.connections), ("durable relay", 4, 8));
    assert!(report.round_trips > 0);
    server.abort();
    let _ = server.await;
    // Every frame a group heard was in the journal first: as many records
    // as turns at least (a turn's frame may be journaled and not yet heard
    // when the run stops).
    let records = euchre_store::journal::read_all(&journal)?;
    assert!(records.len() as u64 >= report.round_trips, "{} records", records.len());
    assert!(records.iter().all(|(_, write)| matches!(write, euchre_store::Write::Action { .. })));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_play_arrivals_are_all_seated_and_timed() -> anyhow::Result<()> {
    use euchre_engine::Preset;
    use euchre_loadgen::quick::{QuickConfig, run as quick_play};

    let server = TestServer::start_with(|settings| {
        settings.limits.connections_per_address = 1_000;
        settings.limits.guests_per_minute = 0;
        // Every arrival comes from one address.
        settings.quick_play.requests_per_address = 1_000;
        settings.quick_play.wave_ms = 100;
    })
    .await;
    // Twelve of each form: three tables of four, four of three, nobody left.
    let config = QuickConfig {
        url: server.url(),
        forms: vec![Preset::Standard, Preset::Cutthroat],
        rated: false,
        rate: 200.0,
        arrivals: 24,
        patience: Duration::from_secs(10),
        rating_spread: 0.0,
        database_url: None,
        seed: 7,
        source_addresses: 0,
        server_pid: None,
    };
    let report = quick_play(&config).await?;
    eprint!("{}", report.to_text());
    assert_eq!((report.matched, report.unmatched), (24, 0), "refused: {:?}", report.refused);
    assert_eq!(report.seated_ms.count, 24);
    assert!(report.seated_ms.p50 > 0.0 && report.seated_ms.p50 <= report.seated_ms.max);
    // New players (deviation 350, rated alike) never wait for the range.
    assert_eq!(report.policy_ms.max, 0.0);
    assert_eq!(report.server_ms.count, 24);
    server.stop().await;
    Ok(())
}

/// Rated quick play is for accounts: each arrival claims its name first,
/// then asks rated, and is seated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_arrivals_claim_their_names_and_are_seated() -> anyhow::Result<()> {
    use euchre_engine::Preset;
    use euchre_loadgen::quick::{QuickConfig, run as quick_play};

    let server = TestServer::start_with(|settings| {
        settings.limits.connections_per_address = 1_000;
        settings.limits.guests_per_minute = 0;
        settings.quick_play.requests_per_address = 1_000;
        settings.quick_play.wave_ms = 100;
        settings.ratings.min_account_age_seconds = 0;
        settings.ratings.min_games = 0;
    })
    .await;
    let config = QuickConfig {
        url: server.url(),
        forms: vec![Preset::Standard],
        rated: true,
        rate: 200.0,
        arrivals: 8,
        patience: Duration::from_secs(10),
        rating_spread: 0.0,
        database_url: None,
        seed: 7,
        source_addresses: 0,
        server_pid: None,
    };
    let report = quick_play(&config).await?;
    eprint!("{}", report.to_text());
    assert!(report.refused.is_empty(), "refused: {:?}", report.refused);
    assert_eq!((report.matched, report.unmatched), (8, 0));
    server.stop().await;
    Ok(())
}
