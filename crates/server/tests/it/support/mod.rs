//! The server's tests' harness: the shared test server
//! (`euchre_server::testing`) with players on a client that logs every
//! message, on `euchre_client::Session` (which speaks the protocol and keeps
//! the stale-prompt rule; the raw socket stays at hand for malformed frames).

#![allow(dead_code)]

pub mod binary;
pub mod http;

use std::net::SocketAddr;
use std::time::Duration;

pub use euchre_client::answer_to as answer_id;
use euchre_client::{Error, Session};
use euchre_engine::{Action, Event};
use euchre_protocol::{
    ClientMessage, LobbyPage, LobbyQuery, Reply, ServerMessage, TableEvent, TableSettings,
};
pub use euchre_server::testing::TestServer;
use futures_util::{SinkExt, StreamExt};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;

/// How long a test waits for any one message before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);
/// How long a test waits for one kind of message among others.
pub const WAIT_FOR: Duration = Duration::from_secs(60);

/// What the tests add to the shared server: players on this harness's [`Client`].
pub trait Players {
    /// A connected client that has said hello as `name`.
    fn player(&self, name: &str) -> impl Future<Output = Client>;
    /// A connected client whose guest `name` has claimed the name with a
    /// password: an account (its `token` is the session's).
    fn account(&self, name: &str) -> impl Future<Output = Client>;
}

impl Players for TestServer {
    async fn player(&self, name: &str) -> Client {
        let mut client = Client::connect(&self.url()).await;
        client.hello(name).await;
        client
    }

    async fn account(&self, name: &str) -> Client {
        let mut client = self.player(name).await;
        let token = client.token.clone().expect("a guest token");
        let body = serde_json::json!({ "name": name, "password": "correct horse" }).to_string();
        let answer =
            http::request(self, "POST", "/api/accounts", Some(&token), Some(body.as_bytes())).await;
        assert_eq!(answer.status, 201, "{}", answer.body);
        let session = answer.json()["token"].as_str().map(str::to_owned);
        client.token = Some(session.expect("a session token"));
        client
    }
}

/// A WebSocket upgrade the server refused.
#[derive(Debug)]
pub struct Refusal {
    pub status: u16,
    pub headers: tokio_tungstenite::tungstenite::http::HeaderMap,
    /// The `{code, message}` body, if it was JSON.
    pub body: Option<Value>,
}

impl Refusal {
    pub fn code(&self) -> Option<&str> {
        self.body.as_ref()?.get("code")?.as_str()
    }

    /// `Retry-After`, in seconds.
    pub fn retry_after(&self) -> Option<u64> {
        self.headers.get("retry-after")?.to_str().ok()?.parse().ok()
    }
}

pub struct Client {
    session: Session,
    pub token: Option<String>,
    pub player_id: Option<String>,
    /// Every message received, in order.
    pub log: Vec<ServerMessage>,
}

impl Client {
    pub async fn connect(url: &str) -> Client {
        Client::try_connect(url).await.expect("connect")
    }

    /// A connection to `server` from `source`, a loopback address of the
    /// test's own (`127.x.y.z`), so per-address limits see it alone; or the
    /// server's refusal of the upgrade: its status, headers and body.
    pub async fn connect_from(server: &TestServer, source: [u8; 4]) -> Result<Client, Refusal> {
        Client::connect_forwarded(server, source, None).await
    }

    /// As [`Client::connect_from`], the upgrade carrying `X-Forwarded-For:
    /// forwarded_for` when given (as a reverse proxy at `source` would).
    pub async fn connect_forwarded(
        server: &TestServer,
        source: [u8; 4],
        forwarded_for: Option<&str>,
    ) -> Result<Client, Refusal> {
        Client::connect_at(server.address, source, forwarded_for).await
    }

    /// As [`Client::connect_forwarded`], to the server at `address`.
    pub async fn connect_at(
        address: SocketAddr,
        source: [u8; 4],
        forwarded_for: Option<&str>,
    ) -> Result<Client, Refusal> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket.bind(SocketAddr::from((source, 0))).expect("a loopback address");
        let stream = socket.connect(address).await.expect("a TCP connection");
        let url = format!("ws://{address}/ws");
        let mut request = url.into_client_request().expect("a request");
        if let Some(forwarded_for) = forwarded_for {
            // As bytes: a client may send any (obs-text too) through a proxy.
            let value = tokio_tungstenite::tungstenite::http::HeaderValue::from_bytes(
                forwarded_for.as_bytes(),
            );
            request.headers_mut().insert("x-forwarded-for", value.expect("a header value"));
        }
        match tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream)).await {
            Ok((socket, _)) => {
                let session = Session::over(socket);
                Ok(Client { session, token: None, player_id: None, log: Vec::new() })
            }
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                let (parts, body) = response.into_parts();
                let body = body.and_then(|bytes| serde_json::from_slice(&bytes).ok());
                Err(Refusal { status: parts.status.as_u16(), headers: parts.headers, body })
            }
            Err(error) => panic!("the upgrade failed: {error}"),
        }
    }

    /// The status of a plain `GET path` to `server` from `source`.
    pub async fn http_status_from(server: &TestServer, source: [u8; 4], path: &str) -> u16 {
        Client::http_status_forwarded(server, source, path, None).await
    }

    /// As [`Client::http_status_from`], with `X-Forwarded-For: forwarded_for` when given.
    pub async fn http_status_forwarded(
        server: &TestServer,
        source: [u8; 4],
        path: &str,
        forwarded_for: Option<&str>,
    ) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket.bind(SocketAddr::from((source, 0))).expect("a loopback address");
        let mut stream = socket.connect(server.address).await.expect("a TCP connection");
        let forwarded = forwarded_for
            .map(|client| format!("X-Forwarded-For: {client}\r\n"))
            .unwrap_or_default();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: test\r\n{forwarded}Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("sent");
        let mut answer = Vec::new();
        tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer))
            .await
            .expect("an answer in time")
            .expect("read");
        let answer = String::from_utf8_lossy(&answer);
        // "HTTP/1.1 429 Too Many Requests"
        answer.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or(0)
    }

    /// A connection, or `None` if nothing listens at `url` (a stopped node).
    pub async fn try_connect(url: &str) -> Option<Client> {
        let session = Session::connect(url).await.ok()?;
        Some(Client { session, token: None, player_id: None, log: Vec::new() })
    }

    pub fn next_id(&mut self) -> u64 {
        self.session.next_id()
    }

    pub async fn send_text(&mut self, text: String) {
        self.session.socket().send(Message::Text(text.into())).await.expect("send");
    }

    /// Sends any frame; false if the connection is gone.
    pub async fn send_frame(&mut self, frame: Message) -> bool {
        self.session.socket().send(frame).await.is_ok()
    }

    /// The next frame as it came, `None` once the connection has ended.
    pub async fn next_frame(&mut self) -> Option<Message> {
        let frame = tokio::time::timeout(PATIENCE, self.session.socket().next()).await;
        frame.expect("a frame in time").and_then(Result::ok)
    }

    pub async fn send(&mut self, message: &ClientMessage) {
        self.session.send(message).await.expect("send");
    }

    /// The next message; panics after [`PATIENCE`] or if the socket closes.
    pub async fn recv(&mut self) -> ServerMessage {
        self.try_recv().await.expect("a message")
    }

    /// The next message, or `None` when the server closed the connection.
    pub async fn try_recv(&mut self) -> Option<ServerMessage> {
        self.try_recv_within(PATIENCE).await
    }

    /// [`Client::try_recv`], waiting up to `patience`.
    pub async fn try_recv_within(&mut self, patience: Duration) -> Option<ServerMessage> {
        let received =
            tokio::time::timeout(patience, self.session.recv()).await.expect("a message in time");
        match received {
            Ok(received) => {
                self.log.push(received.message.clone());
                Some(received.message)
            }
            Err(Error::Unreadable(text)) => panic!("unparseable {text}"),
            Err(_) => None,
        }
    }

    /// Whether a prompt of `table` at `seq` still stands after what has
    /// been read since (the client library's rule).
    pub fn prompt_stands(&self, table: &str, seq: u64) -> bool {
        self.session.prompt_stands(table, seq)
    }

    /// The close code the server sent, reading until the connection ends.
    pub async fn close_code(&mut self) -> Option<u16> {
        self.close_frame().await.map(|(code, _)| code)
    }

    /// How the server ended the connection: `Some(code)` if its close frame
    /// was read, `None` if the socket was reset or ended first (a server
    /// that closes while a large frame is still arriving resets the
    /// socket, which can discard its close frame unread); panics if the
    /// connection is still open after [`PATIENCE`].
    pub async fn ended_by_server(&mut self) -> Option<u16> {
        let ended = tokio::time::timeout(PATIENCE, async {
            loop {
                match self.session.socket().next().await {
                    Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                    Some(Ok(_)) => continue,
                    Some(Err(_)) | None => return None,
                }
            }
        });
        ended.await.expect("the server ends the connection")
    }

    /// The close code and reason the server sent, reading until the
    /// connection ends.
    pub async fn close_frame(&mut self) -> Option<(u16, String)> {
        loop {
            let frame =
                tokio::time::timeout(PATIENCE, self.session.socket().next()).await.ok()??;
            match frame {
                Ok(Message::Close(Some(frame))) => {
                    return Some((frame.code.into(), frame.reason.to_string()));
                }
                Ok(Message::Close(None)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// Reads until `wanted` matches, returning that message; fails after
    /// [`WAIT_FOR`] however many other messages come meanwhile (notices
    /// that keep coming would otherwise keep a failing test waiting).
    pub async fn recv_until(&mut self, wanted: impl Fn(&ServerMessage) -> bool) -> ServerMessage {
        let deadline = tokio::time::Instant::now() + WAIT_FOR;
        loop {
            let message = self.recv().await;
            if wanted(&message) {
                return message;
            }
            if tokio::time::Instant::now() > deadline {
                let recent: Vec<String> =
                    self.log.iter().rev().take(12).map(|m| format!("{m:?}")).collect();
                panic!("not the message waited for within {WAIT_FOR:?}; latest first: {recent:#?}");
            }
        }
    }

    /// Sends a command and waits for its answer (ack or error), returning it.
    /// A `rate_limited` answer is retried: bots do not pause in tests, so a
    /// client that has just played a game flat out can meet the limit.
    pub async fn command(&mut self, message: ClientMessage) -> ServerMessage {
        let id = message.id();
        for _ in 0..50 {
            self.send(&message).await;
            let answer = self.recv_until(|m| answer_id(m) == Some(id)).await;
            if error_code(&answer) != Some("rate_limited") {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("command {id} was still rate limited after 5 s")
    }

    pub async fn hello(&mut self, name: &str) {
        self.try_hello(name, None).await.expect("welcome");
    }

    /// Says hello as `token`'s player, or else as a new guest `name`: the
    /// identity, or the server's refusal.
    pub async fn try_hello(
        &mut self,
        name: &str,
        token: Option<&str>,
    ) -> Result<euchre_client::Identity, Error> {
        let welcome = tokio::time::timeout(PATIENCE, self.session.hello(name, token));
        let identity = welcome.await.expect("an answer to hello in time")?;
        self.token = Some(identity.token.clone());
        self.player_id = Some(identity.player.id.clone());
        Ok(identity)
    }

    pub async fn create_table(&mut self, settings: TableSettings) -> String {
        let id = self.next_id();
        match self.command(ClientMessage::CreateTable { id, settings }).await {
            ServerMessage::Ack { reply: Reply::TableCreated { table, .. }, .. } => table,
            other => panic!("expected table_created, got {other:?}"),
        }
    }

    /// A page of the lobby (which subscribes to its changes), or the
    /// error that refused the query.
    pub async fn list_tables(&mut self, query: LobbyQuery) -> Result<LobbyPage, ServerMessage> {
        let id = self.next_id();
        let answer = self.command(ClientMessage::ListTables { id, query }).await;
        if error_code(&answer).is_some() {
            return Err(answer);
        }
        // The page comes before the ack.
        let page = self.log.iter().rev().find_map(|m| match m {
            ServerMessage::Lobby(page) => Some(page.clone()),
            _ => None,
        });
        Ok(page.expect("a lobby page before the ack"))
    }

    pub async fn sit(&mut self, table: &str, seat: Option<u8>) -> u8 {
        let id = self.next_id();
        let sit = ClientMessage::Sit { id, table: table.to_owned(), seat, invite: None };
        match self.command(sit).await {
            ServerMessage::Ack { reply: Reply::Seated { seat, .. }, .. } => seat,
            other => panic!("expected seated, got {other:?}"),
        }
    }
}

/// The error code of an error message.
pub fn error_code(message: &ServerMessage) -> Option<&str> {
    match message {
        ServerMessage::Error { code, .. } => Some(code),
        _ => None,
    }
}

/// Every card mentioned anywhere in a message.
pub fn cards_in(message: &ServerMessage) -> Vec<euchre_engine::Card> {
    fn walk(value: &Value, found: &mut Vec<euchre_engine::Card>) {
        match value {
            Value::String(text) => found.extend(text.parse::<euchre_engine::Card>().ok()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            Value::Object(map) => map.values().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(&serde_json::to_value(message).expect("serialize"), &mut found);
    found
}

/// The last table seq a client has seen.
pub fn last_seq(client: &Client) -> Option<u64> {
    client.log.iter().rev().find_map(|m| match m {
        ServerMessage::Event { seq, .. } | ServerMessage::Snapshot { seq, .. } => Some(*seq),
        _ => None,
    })
}

/// The last `your_turn` read (say, while waiting for an ack), if it still
/// stands: no event that moves the game has come since.
pub fn pending_turn(client: &Client) -> Option<(u64, Vec<Action>)> {
    client.log.iter().rev().find_map(|m| match m {
        ServerMessage::YourTurn { table, seq, actions, .. } => {
            client.prompt_stands(table, *seq).then(|| (*seq, actions.clone()))
        }
        _ => None,
    })
}

/// Plays for one client until its table's game is won; returns its log.
///
/// Like a careful client, it keeps one action in flight at a time: it acts
/// on a `your_turn` that still stands and then waits for that action's
/// answer.
pub async fn play_to_the_end(client: Client, table: String, seed: u64) -> Client {
    play_until(client, table, seed, |event| matches!(event, Event::GameWon { .. })).await
}

/// [`play_to_the_end`], stopping at the first event `done` accepts (a
/// rubber's end, say).
pub async fn play_until(
    mut client: Client,
    table: String,
    seed: u64,
    done: impl Fn(&Event) -> bool,
) -> Client {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut in_flight = None;
    if let Some((_, actions)) = pending_turn(&client) {
        in_flight = Some(act(&mut client, &table, pick(&actions, &mut rng)).await);
    }
    loop {
        let message = client.recv().await;
        if in_flight.is_some() && answer_id(&message) == in_flight {
            in_flight = None;
        }
        match message {
            ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } if done(&event) => {
                return client;
            }
            ServerMessage::YourTurn { seq, actions, .. }
                if in_flight.is_none() && client.prompt_stands(&table, seq) =>
            {
                in_flight = Some(act(&mut client, &table, pick(&actions, &mut rng)).await);
            }
            // Bots do not pause here, so a client can outrun the per-connection
            // limit; a careful client waits and tries again, as the protocol asks.
            ServerMessage::Error { code, .. } if code == "rate_limited" && in_flight.is_none() => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if let Some((_, actions)) = pending_turn(&client) {
                    in_flight = Some(act(&mut client, &table, pick(&actions, &mut rng)).await);
                }
            }
            ServerMessage::Error { code, message, .. } => {
                let recent: Vec<String> =
                    client.log.iter().rev().take(12).map(|m| format!("{m:?}")).collect();
                panic!("error {code}: {message}; latest first: {recent:#?}")
            }
            _ => {}
        }
    }
}

/// Sends a game action, returning its command id.
pub async fn act(client: &mut Client, table: &str, action: Action) -> u64 {
    let id = client.next_id();
    client.send(&ClientMessage::Act { id, table: table.to_owned(), action }).await;
    id
}

/// A random legal action that keeps the game moving: no concessions, and
/// making trump more often than passing.
pub fn pick(actions: &[Action], rng: &mut ChaCha8Rng) -> Action {
    let useful: Vec<Action> =
        actions.iter().copied().filter(|a| !matches!(a, Action::Concede | Action::Pass)).collect();
    if !useful.is_empty() && (rng.random_range(0..3) > 0 || !actions.contains(&Action::Pass)) {
        useful[rng.random_range(0..useful.len())]
    } else {
        actions.first().copied().unwrap_or(Action::Pass)
    }
}
