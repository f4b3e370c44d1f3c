//! The match history over https: the real server, in process, behind a TLS
//! terminator of this test's own (the certificate in tests/tls/, trusted by
//! the client here only). Two games are played against bots over the plain
//! socket; the terminal client's history (euchre-client's HTTP client)
//! then pages through the player's matches one at a time and fetches a
//! record and its analysis, all over TLS, and refuses a server its roots do
//! not vouch for.

use std::sync::Arc;
use std::time::Duration;

use euchre_client::{Client, Config, HttpClient, HttpError, Roots, Update};
use euchre_engine::Event;
use euchre_protocol::{TableEvent, TableSettings};
use euchre_server::testing::TestServer;
use euchre_tui::history::{self, HistoryError};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

const PATIENCE: Duration = Duration::from_secs(15);

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tls").join(name)
}

/// Takes TLS connections and relays each, decrypted, to `upstream`.
async fn tls_terminator(upstream: std::net::SocketAddr) -> u16 {
    let certs = CertificateDer::pem_file_iter(fixture("server.pem"))
        .expect("the certificate")
        .collect::<Result<Vec<_>, _>>()
        .expect("a PEM certificate");
    let key = PrivateKeyDer::from_pem_file(fixture("server.key")).expect("the key");
    let config =
        ServerConfig::builder().with_no_client_auth().with_single_cert(certs, key).expect("valid");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that refuses the certificate ends here.
                let Ok(mut client) = acceptor.accept(client).await else { return };
                let Ok(mut server) = TcpStream::connect(upstream).await else { return };
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    port
}

/// The API at `server`, trusting this test's authority only.
fn api(server: &str) -> HttpClient {
    let authority = std::fs::read(fixture("ca.pem")).expect("the authority");
    HttpClient::with_roots(server, Roots::Only(authority)).expect("a valid authority")
}

/// Plays one game against three bots, the first legal action each time.
async fn play_a_game(client: &Client, updates: &mut euchre_client::Updates) {
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = client.create_table(settings).await.expect("created").table;
    client.sit(&table, Some(0), None).await.expect("seated");
    loop {
        let update = tokio::time::timeout(PATIENCE, updates.next())
            .await
            .expect("an update in time")
            .expect("connected");
        match update {
            Update::YourTurn { table, actions, .. } => {
                client.act(&table, actions[0]).await.expect("a prompted action");
            }
            Update::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. } => {
                client.leave(&table).await.expect("left");
                return;
            }
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_pages_and_replays_over_https() {
    let server = TestServer::start_with(|settings| {
        settings.analysis.worlds = 4;
        settings.analysis.retry_after_seconds = 1;
    })
    .await;
    let (client, mut updates) =
        Client::connect(Config::new(server.url(), "Tess")).await.expect("connect");
    play_a_game(&client, &mut updates).await;
    play_a_game(&client, &mut updates).await;
    let player = client.identity().player.id.clone();
    client.close().await;

    let port = tls_terminator(server.address).await;
    let secure = api(&format!("wss://127.0.0.1:{port}/ws"));
    // A page of one, then the next, then no more.
    let first = history::matches(&secure, &player, None, 1).await.expect("page 1");
    assert_eq!(first.matches.len(), 1);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = history::matches(&secure, &player, Some(&cursor), 1).await.expect("page 2");
    assert_eq!(second.matches.len(), 1);
    assert_ne!(second.matches[0].id, first.matches[0].id, "the next match, not the same");
    if let Some(cursor) = second.next_cursor {
        let third = history::matches(&secure, &player, Some(&cursor), 1).await.expect("3");
        assert!(third.matches.is_empty() && third.next_cursor.is_none(), "{third:?}");
    }
    // By name too (the certificate's other name), and the record replays.
    // The last hand reaches the store a moment after the game's end (the
    // writer gathers writes for a while), so read until both are finished.
    let by_name = api(&format!("wss://localhost:{port}/ws"));
    let mut both = history::matches(&by_name, &player, None, 50).await.expect("both");
    for _ in 0..50 {
        if both.matches.iter().all(|row| row.finished) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        both = history::matches(&by_name, &player, None, 50).await.expect("both");
    }
    assert_eq!(both.matches.len(), 2);
    assert!(both.matches.iter().all(|row| row.finished), "{both:?}");
    let record = secure.record(&both.matches[0].id).await.expect("the record");
    assert!(!record.hands.is_empty());
    // The analysis: queued at the first ask (202), waited for, then served.
    let id = &both.matches[0].id;
    let analysis = history::analysis(&secure, id).await.expect("the analysis");
    let finished = record.hands.iter().filter(|hand| hand.outcome.is_some()).count();
    assert_eq!(analysis.hands.len(), finished);
    assert_eq!(analysis.players.len(), 4);
    let unknown = history::analysis(&secure, "no-such-match").await.expect_err("no such match");
    assert!(unknown.to_string().contains("no-such-match"), "{unknown}");
    assert!(
        matches!(&unknown, HistoryError::Http(error) if error.code() == Some("not_found")),
        "{unknown:?}"
    );
    // Mozilla's roots do not vouch for this test's authority: refused.
    let mozilla = HttpClient::new(&format!("wss://127.0.0.1:{port}/ws")).expect("an address");
    let refused =
        history::matches(&mozilla, &player, None, history::PAGE).await.expect_err("an issuer");
    assert!(refused.to_string().contains("no secure connection"), "{refused}");
    assert!(matches!(&refused, HistoryError::Http(HttpError::Insecure { .. })), "{refused:?}");

    server.stop_within(PATIENCE).await;
}
