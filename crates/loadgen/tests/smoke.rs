//! A short load run against a server in this process: every action is timed,
//! and every hand that ends is found in the history afterwards.

use std::time::Duration;

use euchre_loadgen::{Config, Report, Stop, Think, run};
use euchre_server::Settings;
use euchre_server::config::DatabaseUrl;

fn config(url: &str, tables: usize, players: u8, hands: u64) -> Config {
    Config {
        url: url.to_owned(),
        http: None,
        tables,
        players,
        bot: "basic".to_owned(),
        stop: Stop::Hands(hands),
        think: Think::Fixed(Duration::ZERO),
        seed: 7,
        store_timeout: Duration::from_secs(10),
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_plays_times_and_stores_hands() -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    let mut settings = Settings {
        data_dir: data.path().to_owned(),
        database_url: DatabaseUrl(format!("sqlite://{}", data.path().join("euchre.db").display())),
        ..Settings::default()
    };
    // As the benchmark runs it: bots without a pause, and limits for one
    // address playing flat out.
    settings.timing.bot_delay_ms = 0;
    settings.limits.messages_per_second = 100_000;
    settings.limits.message_burst = 100_000;
    settings.limits.connections_per_address = 1_000;
    // Bound before the spawn: the clients never wait for the server to listen.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("ws://{}/ws", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(euchre_server::run(listener, settings, async move {
        let _ = stopped.await;
    }));

    // Every seat a client: every action of the game is timed.
    let all_clients = run(&config(&url, 3, 4, 8)).await?;
    check(&all_clients, 8);
    // One client and three bots per table.
    let with_bots = run(&config(&url, 2, 1, 6)).await?;
    check(&with_bots, 6);

    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(10), server).await???;
    Ok(())
}
