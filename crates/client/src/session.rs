//! One connection driven by its caller's own task: [`Session`].
//!
//! [`Client`](crate::Client) is for playing: it owns its connection in a task
//! of its own, numbers and answers requests, hides repeats and gaps, and
//! reconnects. A session does none of that. It says `hello`, numbers
//! commands, writes and reads typed messages, and keeps each table's
//! progress so that it can tell a current prompt from a stale one by the
//! same rule as the client ([`moves_game`](crate::moves_game)). Everything
//! else is the caller's: every message comes back as the server sent it,
//! in order, each with the instant its frame was read, and a dropped
//! connection is an error, not a reconnection.
//!
//! It suits code that must see the protocol as it is or time it: the load
//! generator (thousands of sessions, one task each, timing each action from
//! its write to its `ack`) and the server's own tests (which audit every
//! frame).
//!
//! ```no_run
//! use euchre_client::Session;
//! use euchre_protocol::{ClientMessage, ServerMessage, TableSettings};
//!
//! # async fn play() -> Result<(), euchre_client::Error> {
//! let mut session = Session::connect("ws://127.0.0.1:8080/ws").await?;
//! session.hello("Ann", None).await?;
//! let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
//! let id = session.next_id();
//! let table = match session.request(&ClientMessage::CreateTable { id, settings }).await? {
//!     euchre_protocol::Reply::TableCreated { table, .. } => table,
//!     other => return Err(euchre_client::Error::UnexpectedReply(Box::new(other))),
//! };
//! let id = session.next_id();
//! session.request(&ClientMessage::Sit { id, table, seat: Some(0), invite: None }).await?;
//! loop {
//!     let received = session.recv().await?;
//!     if let ServerMessage::YourTurn { table, seq, actions, .. } = received.message {
//!         // Later messages may already have made it stale: ask before acting.
//!         if session.prompt_stands(&table, seq) {
//!             let id = session.next_id();
//!             let sent = session.send(&ClientMessage::Act { id, table, action: actions[0] }).await?;
//!             println!("sent at {sent:?}");
//!         }
//!     }
//! }
//! # }
//! ```

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use euchre_protocol::{ClientMessage, CommandId, PROTOCOL_VERSION, Reply, ServerMessage, TableId};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

use crate::progress::Record;
use crate::{Error, Identity};

/// A client's WebSocket to the server (`ws://` or `wss://`).
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The WebSocket settings of a client's socket: tungstenite's, but for the
/// read buffer, 4 KiB instead of 128. tungstenite zeroes the whole read
/// buffer before every read of the socket, even one that finds nothing, so
/// at 128 KiB a client spent most of its instructions clearing memory (the
/// load generator: 278,000 of its 337,000 instructions an action). The
/// server's messages are small; a larger one takes a few reads.
pub fn socket_config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(4096)
}

/// A message from the server, with the instant its frame was read (before
/// it was parsed).
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    pub at: Instant,
    pub message: ServerMessage,
}

/// The id of the command `message` answers, if it is an answer
/// (`welcome`, `ack`, or an `error` about a command).
pub fn answer_to(message: &ServerMessage) -> Option<CommandId> {
    match message {
        ServerMessage::Ack { id, .. } | ServerMessage::Welcome { id, .. } => Some(*id),
        ServerMessage::Error { id, .. } => *id,
        _ => None,
    }
}

/// One connection, driven by its caller: see the module's documentation.
#[derive(Debug)]
pub struct Session {
    socket: Socket,
    next_id: CommandId,
    /// Messages read while [`Session::request`] waited for its answer,
    /// returned by [`Session::recv`] first.
    early: VecDeque<Received>,
    /// What [`Session::recv`] has returned of each table.
    record: Record,
    /// In a cluster: where the node that owns each table this connection
    /// joined through another node is reached (`table_elsewhere`).
    elsewhere: HashMap<TableId, String>,
}

impl Session {
    /// Opens a connection to `url` (`ws://` or `wss://`) with Nagle off (a
    /// small frame must not wait for the acknowledgement of the one
    /// before). It has not said `hello` yet.
    pub async fn connect(url: &str) -> Result<Session, Error> {
        let fail = |reason: String| Error::Connect { url: url.to_owned(), reason };
        let (socket, _) = connect_async_with_config(url, Some(socket_config()), true)
            .await
            .map_err(|error| fail(error.to_string()))?;
        Ok(Session::over(socket))
    }

    /// A session over a socket the caller opened (from a chosen local
    /// address, say, or with its own buffer sizes).
    pub fn over(socket: Socket) -> Session {
        Session {
            socket,
            next_id: 0,
            early: VecDeque::new(),
            record: Record::default(),
            elsewhere: HashMap::new(),
        }
    }

    /// Says `hello` as the player `token` names, or else as a new guest
    /// called `name`, and waits for the welcome.
    pub async fn hello(&mut self, name: &str, token: Option<&str>) -> Result<Identity, Error> {
        let id = self.next_id();
        let hello = ClientMessage::Hello {
            id,
            protocol_version: PROTOCOL_VERSION,
            token: token.map(str::to_owned),
            name: token.is_none().then(|| name.to_owned()),
        };
        self.send(&hello).await?;
        loop {
            let received = self.read().await?;
            match received.message {
                ServerMessage::Welcome { id: answered, player, token, .. } if answered == id => {
                    return Ok(Identity { player, token });
                }
                ServerMessage::Error { id: Some(answered), code, message } if answered == id => {
                    return Err(Error::Refused { code, message });
                }
                _ => self.early.push_back(received),
            }
        }
    }

    /// A fresh command id: this session's commands are numbered 1, 2, …
    /// (a caller may use its own ids instead, as long as it matches the
    /// answers itself).
    pub fn next_id(&mut self) -> CommandId {
        self.next_id += 1;
        self.next_id
    }

    /// Writes `message` as it is (its id included) and returns the instant
    /// just before the write: the start of an action's acknowledgement time.
    pub async fn send(&mut self, message: &ClientMessage) -> Result<Instant, Error> {
        let text =
            serde_json::to_string(message).map_err(|error| Error::Encoding(error.to_string()))?;
        let at = Instant::now();
        self.socket.send(Message::Text(text.into())).await.map_err(lost)?;
        Ok(at)
    }

    /// Sends `message` and reads until its answer: the reply, or the
    /// server's refusal as [`Error::Refused`]. What arrives meanwhile (a
    /// table's snapshot and prompt before a seat's acknowledgement, say)
    /// is kept for [`Session::recv`]. Nothing is retried.
    pub async fn request(&mut self, message: &ClientMessage) -> Result<Reply, Error> {
        let id = message.id();
        self.send(message).await?;
        loop {
            let received = self.read().await?;
            match received.message {
                ServerMessage::Ack { id: answered, reply } if answered == id => return Ok(reply),
                ServerMessage::Error { id: Some(answered), code, message } if answered == id => {
                    return Err(Error::Refused { code, message });
                }
                _ => self.early.push_back(received),
            }
        }
    }

    /// The next message, in the order the server sent it. Pings and pongs
    /// are answered underneath and not returned. Cancel-safe: it can sit
    /// in a `select!` beside timers.
    pub async fn recv(&mut self) -> Result<Received, Error> {
        let received = self.next_message().await?;
        self.note(&received.message);
        Ok(received)
    }

    /// [`Session::recv`] without keeping the tables' progress, for a
    /// caller that keeps its own (the client's connection task).
    pub(crate) async fn next_message(&mut self) -> Result<Received, Error> {
        match self.early.pop_front() {
            Some(received) => Ok(received),
            None => self.read().await,
        }
    }

    /// Whether a prompt of `table` sent at `seq` still stands, given what
    /// [`Session::recv`] has returned since: only an event that moves the
    /// game (see [`moves_game`](crate::moves_game)) or a snapshot makes it
    /// stale.
    pub fn prompt_stands(&self, table: &str, seq: u64) -> bool {
        !self.record.overtaken(table, seq)
    }

    /// The last seq of `table` that [`Session::recv`] returned.
    pub fn last_seq(&self, table: &str) -> Option<u64> {
        self.record.delivered(table)
    }

    /// The messages [`Session::request`] kept while it waited (which
    /// [`Session::recv`] would return first), for a caller that goes on to
    /// read the socket itself and keeps its own tables' progress: the load
    /// generator, which reads only the fields it acts on.
    pub fn take_early(&mut self) -> VecDeque<Received> {
        std::mem::take(&mut self.early)
    }

    /// Where the node that owns `table` is reached, if the server said
    /// (`table_elsewhere`, read by any of this session's calls so far): a
    /// client that comes back there with its token stops the table's
    /// messages crossing between nodes.
    pub fn elsewhere(&self, table: &str) -> Option<&str> {
        self.elsewhere.get(table).map(String::as_str)
    }

    /// The socket itself, for frames the protocol has no message for (a
    /// test of what the server does with a malformed one, say). Messages
    /// kept by [`Session::request`] are still returned by [`Session::recv`].
    pub fn socket(&mut self) -> &mut Socket {
        &mut self.socket
    }

    /// Says goodbye with a close frame, waiting at most `patience`.
    pub async fn close(&mut self, patience: Duration) {
        let _ = tokio::time::timeout(patience, self.socket.close(None)).await;
    }

    /// The next message off the socket, skipping frames that carry none.
    async fn read(&mut self) -> Result<Received, Error> {
        loop {
            let frame = self.socket.next().await;
            // Taken before the parse: the time spent reading JSON is the reader's.
            let at = Instant::now();
            match frame {
                None => return Err(Error::Socket("the server closed the connection".to_owned())),
                Some(Err(error)) => return Err(lost(error)),
                Some(Ok(Message::Close(frame))) => {
                    let why =
                        frame.map_or_else(String::new, |f| format!(": {} {}", f.code, f.reason));
                    return Err(Error::Socket(format!("closed by the server{why}")));
                }
                Some(Ok(Message::Text(text))) => {
                    let message =
                        serde_json::from_str::<ServerMessage>(text.as_str()).map_err(|error| {
                            Error::Unreadable(format!("{error}: {}", text.as_str()))
                        })?;
                    if let ServerMessage::TableElsewhere { table, url } = &message {
                        self.elsewhere.insert(table.clone(), url.clone());
                    }
                    return Ok(Received { at, message });
                }
                Some(Ok(_)) => {}
            }
        }
    }

    fn note(&mut self, message: &ServerMessage) {
        match message {
            ServerMessage::Event { table, seq, event } => {
                self.record.note(table, *seq, crate::moves_game(event.as_ref()))
            }
            ServerMessage::Snapshot { table, seq, .. } => self.record.note(table, *seq, true),
            _ => {}
        }
    }
}

fn lost(error: tokio_tungstenite::tungstenite::Error) -> Error {
    Error::Socket(error.to_string())
}
