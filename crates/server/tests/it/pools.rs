//! Quick play's pools against one address that keeps asking: its requests
//! count against a cap per pool even once their connections are gone, and a
//! request nobody holds makes room in a full pool for one who is here.

use euchre_engine::Preset;
use euchre_protocol::{ClientMessage, QuickPlayRequest, Reply, ServerMessage};
use euchre_server::testing::eventually;

use crate::support::{Client, PATIENCE, TestServer, error_code};

/// A pool nobody is matched in by the test's few requests: four seats, no bots.
fn request() -> QuickPlayRequest {
    QuickPlayRequest::new(Preset::Standard, false)
}

/// A guest from `source` who said hello.
async fn guest(server: &TestServer, source: [u8; 4], name: &str) -> Client {
    let mut client = Client::connect_from(server, source).await.expect("let in");
    client.hello(name).await;
    client
}

/// Asks for quick play: `Ok` once queued, or the error code.
async fn ask(client: &mut Client) -> Result<(), String> {
    let id = client.next_id();
    match client.command(ClientMessage::QuickPlay { id, request: request() }).await {
        ServerMessage::Ack { reply: Reply::Queued { .. }, .. } => Ok(()),
        other => Err(error_code(&other).map_or_else(|| format!("{other:?}"), str::to_owned)),
    }
}

#[tokio::test]
async fn one_address_holds_a_few_requests_in_a_pool_even_once_its_connections_are_gone() {
    let server = TestServer::start_with(|settings| {
        settings.quick_play.wave_ms = 100;
        settings.quick_play.requests_per_address = 3;
        settings.limits.guests_per_minute = 100;
    })
    .await;
    let hoarder = [127, 0, 9, 1];
    // Three requests, each left behind by its connection (they live on for
    // the reconnect grace, 30 s).
    for n in 0..3 {
        let mut client = guest(&server, hoarder, &format!("Hoard{n}")).await;
        assert_eq!(ask(&mut client).await, Ok(()));
    }
    let mut fourth = guest(&server, hoarder, "Hoard3").await;
    assert_eq!(ask(&mut fourth).await, Err("busy".to_owned()), "the address's fourth");
    // Another pool of the same address, and the same pool of another, are their own.
    let id = fourth.next_id();
    let other = QuickPlayRequest::new(Preset::StickTheDealer, false);
    let answer = fourth.command(ClientMessage::QuickPlay { id, request: other }).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }), "{answer:?}");
    let mut elsewhere = guest(&server, [127, 0, 9, 2], "Elsewhere").await;
    assert_eq!(ask(&mut elsewhere).await, Ok(()));
    server.stop().await;
}

#[tokio::test]
async fn a_request_with_no_connection_makes_room_in_a_full_pool() {
    let server = TestServer::start_with(|settings| {
        settings.quick_play.wave_ms = 100;
        settings.quick_play.max_waiting_per_pool = 3;
    })
    .await;
    let mut waiting = Vec::new();
    for n in 1..=3 {
        let mut client = guest(&server, [127, 0, 9, 10 + n], &format!("Wait{n}")).await;
        assert_eq!(ask(&mut client).await, Ok(()));
        waiting.push(client);
    }
    // Full of players who are here: the pool refuses.
    let mut late = guest(&server, [127, 0, 9, 20], "Late").await;
    assert_eq!(ask(&mut late).await, Err("busy".to_owned()), "a full pool");
    // They go; their requests would wait out the grace (30 s), but they
    // hold no place from a player who is here.
    drop(waiting);
    eventually("a place for the late player", PATIENCE, async || ask(&mut late).await).await;
    server.stop().await;
}
