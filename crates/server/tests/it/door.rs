//! The door: one address's silent TCP connections cannot take the server's
//! files; the health checks, the API and the games of everyone else go on,
//! and the silent sockets are closed.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use euchre_server::testing::eventually;

use euchre_engine::Preset;
use euchre_protocol::TableSettings;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::binary::{Server, Stop};
use crate::support::http::{Source, request_to};
use crate::support::{Client, PATIENCE, TestServer, play_to_the_end};

/// The server's open-file limit in the test: small, so that the silent
/// sockets below are twice what it could hold.
const OPEN_FILES: u32 = 512;
/// Silent sockets from one address.
const SILENT: usize = 1_000;
/// TCP connections one address may hold: the default (64), as the
/// WebSockets' cap is set to its default (32) below.
const PER_ADDRESS: usize = 64;
/// The header-read timeout the server runs with.
const HEADER_TIMEOUT: Duration = Duration::from_millis(6_000);

/// A TCP connection from `source` to `address`, or `None` if it was not
/// made within a second (a full accept queue).
async fn connect_from(source: [u8; 4], address: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.bind(SocketAddr::from((source, 0))).expect("a loopback address");
    tokio::time::timeout(Duration::from_secs(1), socket.connect(address)).await.ok()?.ok()
}

/// Whether the server closed `stream` (an end of file or a reset) by `deadline`.
async fn closed_by(stream: &mut TcpStream, deadline: tokio::time::Instant) -> bool {
    let mut byte = [0u8; 1];
    match tokio::time::timeout_at(deadline, stream.read(&mut byte)).await {
        Ok(Ok(0)) | Ok(Err(_)) => true,
        Ok(Ok(_)) => panic!("a silent socket got bytes it never asked for"),
        Err(_) => false,
    }
}

#[tokio::test]
async fn silent_sockets_from_one_address_leave_room_for_everyone_else() {
    let data = tempfile::tempdir().expect("a data folder");
    let database = format!("sqlite://{}/euchre.db", data.path().display());
    let header_timeout = HEADER_TIMEOUT.as_millis().to_string();
    let server = Server::start_limited(
        data.path(),
        &database,
        Some(OPEN_FILES),
        &[
            ("EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS", "32"),
            ("EUCHRE_LIMITS__TCP_CONNECTIONS_PER_ADDRESS", "64"),
            ("EUCHRE_TIMING__HEADER_READ_TIMEOUT_MS", &header_timeout),
        ],
    );
    let address = server.address;

    // One address opens twice as many sockets as the server has files, and
    // never sends a byte.
    let mut silent = Vec::with_capacity(SILENT);
    let first = tokio::time::Instant::now();
    for _ in 0..SILENT {
        if let Some(stream) = connect_from([127, 0, 0, 1], address).await {
            silent.push(stream);
        }
    }
    let opened = tokio::time::Instant::now();
    assert!(silent.len() > OPEN_FILES as usize, "only {} connected", silent.len());

    // Another address: the health checks and the API answer…
    let elsewhere = Source { address: [127, 0, 0, 2], forwarded_for: None };
    let health = request_to(address, elsewhere, "GET", "/healthz", None, None).await;
    assert_eq!(health.status, 200, "{}", health.body);
    let ready = request_to(address, elsewhere, "GET", "/readyz", None, None).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
    let board = request_to(address, elsewhere, "GET", "/api/leaderboard", None, None).await;
    assert_eq!(board.status, 200, "{}", board.body);
    // …as the address's cap turns the rest of the silent ones away at
    // accept (not the accept limit, not a timeout), once the server has
    // taken them all from the kernel's queue. The address holds at most the
    // cap at once: on a loaded machine, slow to accept, those let in first
    // time out meanwhile and make room for as many more each timeout.
    eventually("the silent sockets past the cap to be turned away", PATIENCE, async || {
        let metrics = request_to(address, elsewhere, "GET", "/metrics", None, None).await.body;
        let name = "euchre_tcp_connections_turned_away_total";
        let line = metrics.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' '));
        let turned_away = line.and_then(|value| value.parse::<f64>().ok()).unwrap_or(0.0) as usize;
        let timeouts = first.elapsed().as_millis() / HEADER_TIMEOUT.as_millis();
        let let_in = PER_ADDRESS * (1 + timeouts as usize);
        let expected = silent.len().saturating_sub(let_in);
        if turned_away >= expected { Ok(()) } else { Err(format!("{turned_away} of {expected}")) }
    })
    .await;

    // …and a player there plays a whole game.
    let mut dora = Client::connect_at(address, [127, 0, 0, 2], None).await.expect("let in");
    dora.hello("Dora").await;
    let settings =
        TableSettings { preset: Preset::Standard, bot_seats: vec![1, 2, 3], ..Default::default() };
    let table = dora.create_table(settings).await;
    assert_eq!(dora.sit(&table, Some(0)).await, 0);
    let dora = play_to_the_end(dora, table, 7).await;
    drop(dora);

    // Every silent socket is closed: those past the address's cap at once,
    // the others once the header-read timeout ran out.
    let deadline = opened + HEADER_TIMEOUT + Duration::from_secs(10);
    let mut open = 0;
    for stream in &mut silent {
        if !closed_by(stream, deadline).await {
            open += 1;
        }
    }
    assert_eq!(open, 0, "silent sockets still open {:?} after they connected", opened.elapsed());
    assert!(
        server.logged("WARN", "cannot accept").is_empty(),
        "the server never ran out of files to accept with"
    );
    drop(silent);
    server.stop(Stop::Term);
}

#[tokio::test]
async fn a_stalled_request_body_is_closed_after_the_idle_timeout() {
    let idle = Duration::from_millis(500);
    let server = TestServer::start_with(|settings| {
        settings.timing.http_idle_timeout_ms = idle.as_millis() as u64;
        settings.timing.header_read_timeout_ms = 60_000;
    })
    .await;
    let mut stream = TcpStream::connect(server.address).await.expect("connect");
    // A log-in whose head comes whole and whose body never does.
    let head = "POST /api/sessions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
                Content-Length: 100\r\n\r\n{\"name\":";
    stream.write_all(head.as_bytes()).await.expect("sent");
    let sent = Instant::now();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    assert!(closed_by(&mut stream, deadline).await, "still open after {:?}", sent.elapsed());
    assert!(sent.elapsed() >= idle, "closed after {:?}, before the idle timeout", sent.elapsed());
    server.stop().await;
}

#[tokio::test]
async fn silent_sockets_from_many_addresses_cannot_keep_out_those_who_speak() {
    let data = tempfile::tempdir().expect("a data folder");
    let database = format!("sqlite://{}/euchre.db", data.path().display());
    // Nothing is closed for its silence while the test runs.
    let server = Server::start_limited(
        data.path(),
        &database,
        Some(OPEN_FILES),
        &[
            ("EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS", "32"),
            ("EUCHRE_TIMING__HEADER_READ_TIMEOUT_MS", "60000"),
        ],
    );
    let address = server.address;
    // Six addresses hold as many silent sockets as each may: 384, past the
    // accept limit (512 files less 256).
    let mut silent = Vec::new();
    for source in 1..=6 {
        for _ in 0..PER_ADDRESS {
            if let Some(stream) = connect_from([127, 0, 1, source], address).await {
                silent.push(stream);
            }
        }
    }
    assert!(silent.len() > (OPEN_FILES as usize - 256), "only {} connected", silent.len());
    // Those who speak get in: silent sockets make room for them. (While the
    // server still takes the silent ones from its queue, closing the oldest
    // for each, it may turn a newcomer away: a client asks again.)
    eventually("a client that speaks to be let in", PATIENCE, async || {
        let mut stream = connect_from([127, 0, 0, 2], address).await.ok_or("no connection")?;
        let request = b"GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
        stream.write_all(request).await.map_err(|error| error.to_string())?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.map_err(|error| error.to_string())?;
        let head = String::from_utf8_lossy(&answer).lines().next().unwrap_or("").to_owned();
        if head.contains(" 200 ") { Ok(()) } else { Err(format!("answered {head:?}")) }
    })
    .await;
    let elsewhere = Source { address: [127, 0, 0, 2], forwarded_for: None };
    for path in ["/healthz", "/readyz", "/api/leaderboard"] {
        let answer = request_to(address, elsewhere, "GET", path, None, None).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    let mut dora = Client::connect_at(address, [127, 0, 0, 2], None).await.expect("let in");
    dora.hello("Dora").await;
    drop((dora, silent));
    server.stop(Stop::Term);
}
