//! The tournament mode against a server in this process: a progressive
//! night of eight players, one round of one hand, every player opening the
//! table the director seated it at and playing it out; then the baseline.

use std::time::Duration;

use euchre_loadgen::Think;
use euchre_loadgen::tournament::{TournamentConfig, run};
use euchre_server::testing::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_is_seated_played_out_and_timed_beside_its_baseline() -> anyhow::Result<()> {
    let server = TestServer::start_with(|settings| {
        settings.limits.connections_per_address = 1_000;
        settings.limits.guests_per_minute = 0;
        settings.limits.messages_per_second = 100_000;
        settings.limits.message_burst = 100_000;
        // Every registration comes from one address.
        settings.api.requests_per_second = 0;
    })
    .await;
    let config = TournamentConfig {
        url: server.url(),
        players: 8,
        rounds: 1,
        round_hands: 1,
        think: Think::Fixed(Duration::ZERO),
        seed: 5,
        source_addresses: 0,
        baseline: true,
    };
    let report = run(&config).await?;
    eprint!("{}", report.to_text());
    assert!(report.finished, "status {}", report.status);
    assert_eq!(report.tables_per_round, 2, "eight players, two tables");
    assert_eq!(report.round_seconds.len(), 1);
    assert!(report.errors.is_empty(), "errors: {:?}", report.errors);
    // Every seat a player who opened its table: their actions were acknowledged.
    assert!(report.actions > 0);
    assert_eq!(report.latency_ms.count, report.actions, "one latency per acknowledged action");
    assert!(report.hands_ended >= 2, "{} hands ended: one a table at least", report.hands_ended);
    assert!(report.seating_seconds >= report.seated_by_director_seconds);
    let baseline = report.baseline.as_ref().expect("a baseline after a finished tournament");
    assert_eq!(baseline.tables, 2);
    assert!(baseline.actions > 0 && baseline.errors.is_empty(), "{:?}", baseline.errors);
    server.stop().await;
    Ok(())
}
