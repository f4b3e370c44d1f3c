//! The database goes away in the middle of a game: the table plays on, every
//! action is still acknowledged (the journal has it), `/readyz` says so, and
//! once the database is back it receives everything. The cut is real: the
//! server reaches PostgreSQL through a TCP proxy that this test severs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::support::{Players, TestServer};
use euchre_engine::Event;
use euchre_protocol::{ServerMessage, TableEvent, TableSettings};
use euchre_server::config::DatabaseUrl;
use euchre_server::testing::eventually;
use sqlx::Connection;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// A TCP proxy to PostgreSQL that can be cut (dropping every connection and
/// refusing new ones) and restored.
struct Proxy {
    port: u16,
    up: Arc<AtomicBool>,
    cut: Arc<Notify>,
}

impl Proxy {
    async fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let up = Arc::new(AtomicBool::new(true));
        let cut = Arc::new(Notify::new());
        let (accept_up, accept_cut) = (up.clone(), cut.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !accept_up.load(Ordering::SeqCst) {
                    continue; // refused: dropped at once
                }
                let cut = accept_cut.clone();
                tokio::spawn(async move {
                    let postgres = euchre_testkit::postgres::address();
                    let Ok(mut server) = TcpStream::connect(postgres).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        () = cut.notified() => {}
                    }
                });
            }
        });
        Proxy { port, up, cut }
    }

    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.cut.notify_waiters();
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// `GET /readyz`: its status and JSON body (null when it has none).
async fn readyz(server: &TestServer) -> (u16, serde_json::Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(server.address).await.expect("connect");
    let request = "GET /readyz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or_default())
}

/// Polls `/readyz` until `wanted` holds, for at most 30 seconds.
async fn wait_ready(server: &TestServer, wanted: impl Fn(u16, &serde_json::Value) -> bool) {
    eventually("/readyz to reach the expected state", Duration::from_secs(30), async || {
        let (status, body) = readyz(server).await;
        if wanted(status, &body) { Ok(()) } else { Err(format!("{status} {body}")) }
    })
    .await;
}

/// Actions the log shows, one per event that records an action.
fn actions_seen(log: &[ServerMessage]) -> i64 {
    log.iter()
        .filter(|m| {
            matches!(
                m,
                ServerMessage::Event {
                    event: Some(TableEvent::Game(
                        Event::Passed { .. }
                            | Event::TrumpMade { .. }
                            | Event::Discarded { .. }
                            | Event::CardPlayed { .. }
                            | Event::Claimed { .. }
                            | Event::Conceded { .. }
                    )),
                    ..
                }
            )
        })
        .count() as i64
}

#[tokio::test]
async fn the_table_plays_on_while_the_database_is_away_and_nothing_is_lost() {
    let Some(database) = euchre_testkit::postgres::fresh_database("outage").await else { return };
    let proxy = Proxy::start().await;
    let server = TestServer::start_with(|settings| {
        let through_proxy =
            euchre_testkit::postgres::database_url_via(&database, "127.0.0.1", proxy.port);
        settings.database_url = DatabaseUrl(through_proxy);
    })
    .await;
    wait_ready(&server, |status, _| status == 200).await;

    let mut ann = server.player("Ann").await;
    let table = ann
        .create_table(TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() })
        .await;
    ann.sit(&table, Some(0)).await;

    // The database goes away; the server notices.
    proxy.cut();
    wait_ready(&server, |status, body| status == 503 && body["database"] == "down").await;

    // The game is played to the end regardless.
    let ann = crate::support::play_to_the_end(ann, table.clone(), 7).await;
    let (winner_scores, played) = ann
        .log
        .iter()
        .find_map(|m| match m {
            ServerMessage::Event {
                event: Some(TableEvent::Game(Event::GameWon { scores, .. })),
                ..
            } => Some(*scores),
            _ => None,
        })
        .map(|scores| (scores, actions_seen(&ann.log)))
        .expect("the game was won");
    let (_, body) = readyz(&server).await;
    assert!(body["backlog"].as_u64().unwrap_or(0) > 0, "writes wait for the database: {body}");

    // It comes back, and catches up.
    proxy.restore();
    wait_ready(&server, |status, body| status == 200 && body["backlog"] == 0).await;
    let mut db = sqlx::PgConnection::connect(&euchre_testkit::postgres::database_url(&database))
        .await
        .expect("connect to the test database");
    // Each seat holds its side's score and result: seats 0 and 1 tell both.
    let seats: Vec<(i64, i64, Option<bool>)> = sqlx::query_as(
        "SELECT s.side, s.score, s.won FROM match_seats s JOIN matches m ON m.id = s.match_id \
         WHERE m.table_id = $1 AND m.ended_at IS NOT NULL ORDER BY s.seat",
    )
    .bind(&table)
    .fetch_all(&mut db)
    .await
    .expect("the finished match is stored");
    let stored: Vec<(i64, u16)> =
        seats.iter().map(|(side, score, _)| (*side, *score as u16)).collect();
    assert_eq!(stored[..2], [(0, winner_scores[0]), (1, winner_scores[1])]);
    assert_eq!(seats.iter().filter(|(_, _, won)| *won == Some(true)).count(), 2, "{seats:?}");
    let (stored,): (i64,) = sqlx::query_as(
        // Four characters an action (crates/store/src/plays.rs).
        "SELECT CAST(COALESCE(SUM(length(h.plays)), 0) / 4 AS BIGINT) FROM hands h \
         JOIN matches m ON m.id = h.match_id WHERE m.table_id = $1",
    )
    .bind(&table)
    .fetch_one(&mut db)
    .await
    .expect("count the actions");
    assert_eq!(stored, played, "every action reached the database");
    drop(db);
    server.stop().await;
    euchre_testkit::postgres::drop_database(&database).await;
}
