//! Command forwarding: a command for a table another node owns is a NATS
//! request to its shard's subject, and the owner sends the command's answer
//! and the table's messages back to that one connection, numbered.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use bytes::Bytes;
use euchre_cluster::shard_of;
use euchre_protocol::{CommandId, ErrorCode, PlayerInfo, ServerMessage, TableId};
use futures_util::future::BoxFuture;
use prometheus_client::metrics::counter::Counter;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Node, lock, next_until};
use crate::frame::Frame;
use crate::placement::RemoteTables;
use crate::state::AppState;
use crate::table::{ConnId, Outbox, Request, TableCommand, TableMessage};

/// How long a node waits for a table's owner to accept a command.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Headers of a message to another node's connection.
const CONN: &str = "Euchre-Conn";
const STREAM: &str = "Euchre-Stream";
const NUMBER: &str = "Euchre-N";
const CLOSE: &str = "Euchre-Close";
/// How a pool's notice to a connection begins (the tag comes first).
const QUICK_PLAY_NEWS: &[u8] = br#"{"type":"quick_play_"#;

/// One of this node's connections.
#[derive(Debug)]
pub(super) struct Local {
    pub(super) outbox: Outbox,
    too_slow: CancellationToken,
    pub(super) moved: CancellationToken,
    /// Other nodes' tables it joined.
    pub(super) tables: HashSet<TableId>,
    /// The last number seen from each owner's stream to it.
    streams: HashMap<String, u64>,
}

/// Another node's connection, as this node's tables see it.
#[derive(Debug)]
pub(super) struct Remote {
    pub(super) conn: ConnId,
    tx: mpsc::WeakSender<Frame>,
    pub(super) too_slow: CancellationToken,
    /// This node's tables it sent a command to.
    pub(super) tables: HashSet<TableId>,
}

/// What a node sends a shard's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ToOwner {
    Command(RemoteCommand),
    /// The connection closed: the table treats it as disconnected.
    Left {
        table: TableId,
        node: String,
        conn: ConnId,
    },
}

/// A command of another node's connection `conn`, for the table here.
#[derive(Debug, Serialize, Deserialize)]
struct RemoteCommand {
    table: TableId,
    id: CommandId,
    node: String,
    conn: ConnId,
    player: PlayerInfo,
    request: Request,
}

/// The owner's answer to a command: the command's own answer (ack or
/// refusal by the table) comes later, with the events.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum Answer {
    Accepted,
    Refused { code: String, message: String },
}

/// The owner's answer to a command, with where clients reach the owner
/// (its `cluster.public_url`) when the command joined the table. A node of
/// an earlier version reads it as the bare [`Answer`] (the url is a field
/// it does not know).
#[derive(Debug, Serialize, Deserialize)]
struct CommandAnswer {
    #[serde(flatten)]
    answer: Answer,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl From<Answer> for CommandAnswer {
    fn from(answer: Answer) -> CommandAnswer {
        CommandAnswer { answer, url: None }
    }
}

impl Answer {
    /// The answer to a message another node sent that this one cannot read
    /// (a node of another version).
    pub(super) fn unreadable(error: serde_json::Error) -> Answer {
        Answer::Refused {
            code: ErrorCode::Unavailable.code().to_owned(),
            message: format!("a node sent what this one cannot read: {error}"),
        }
    }
}

impl RemoteTables for Node {
    fn connected(
        &self,
        conn: ConnId,
        outbox: Outbox,
        too_slow: CancellationToken,
        moved: CancellationToken,
    ) {
        let local =
            Local { outbox, too_slow, moved, tables: HashSet::new(), streams: HashMap::new() };
        lock(&self.locals).insert(conn, local);
    }

    fn joined(&self, conn: ConnId, table: &str) {
        if let Some(local) = lock(&self.locals).get_mut(&conn) {
            local.tables.insert(table.to_owned());
        }
    }

    fn gone(&self, conn: ConnId) {
        lock(&self.locals).remove(&conn);
    }

    fn left(&self, conn: ConnId, table: &str) {
        let message = ToOwner::Left { table: table.to_owned(), node: self.id.clone(), conn };
        let subject = self.command_subject(table);
        let client = self.client.clone();
        if let Ok(body) = serde_json::to_vec(&message) {
            tokio::spawn(async move {
                let _ = client.publish(subject, body.into()).await;
            });
        }
    }

    /// The request goes to the table's shard's subject: its owner answers
    /// (`serve_commands`), or nobody does while the shard fails over.
    fn forward<'a>(
        &'a self,
        table: &'a str,
        id: CommandId,
        conn: ConnId,
        player: &'a PlayerInfo,
        request: Request,
    ) -> BoxFuture<'a, Result<Option<String>, ServerMessage>> {
        Box::pin(async move {
            let unavailable = || ErrorCode::Unavailable.to_message(Some(id));
            let message = ToOwner::Command(RemoteCommand {
                table: table.to_owned(),
                id,
                node: self.id.clone(),
                conn,
                player: player.clone(),
                request,
            });
            let body = serde_json::to_vec(&message).map_err(|_| unavailable())?;
            let request =
                async_nats::Request::new().payload(body.into()).timeout(Some(REQUEST_TIMEOUT));
            let reply = match self.client.send_request(self.command_subject(table), request).await {
                Ok(reply) => reply,
                Err(error)
                    if error.kind() == async_nats::client::RequestErrorKind::NoResponders =>
                {
                    // Nobody owns the shard now: it is failing over, and
                    // only its next owner can say whether the table is
                    // there (the lobby may not list one whose owner died
                    // just after making it). `unavailable` says to try again.
                    return Err(unavailable());
                }
                Err(_) => return Err(unavailable()),
            };
            match serde_json::from_slice::<CommandAnswer>(&reply.payload) {
                Ok(CommandAnswer { answer: Answer::Accepted, url }) => Ok(url),
                Ok(CommandAnswer { answer: Answer::Refused { code, message }, .. }) => {
                    Err(ServerMessage::Error { id: Some(id), code, message })
                }
                Err(_) => Err(unavailable()),
            }
        })
    }
}

impl Node {
    fn command_subject(&self, table: &str) -> String {
        format!("euchre.cmd.{}", shard_of(table, self.shards))
    }

    /// Answers a shard's commands until the shard is lost.
    pub(super) async fn serve_commands(
        self: Arc<Self>,
        mut commands: async_nats::Subscriber,
        state: AppState,
        stop: CancellationToken,
    ) {
        while let Some(message) = next_until(&mut commands, &stop).await {
            let answer = match serde_json::from_slice::<ToOwner>(&message.payload) {
                Ok(ToOwner::Command(command)) => Some(self.command(&state, command)),
                Ok(ToOwner::Left { table, node, conn }) => {
                    self.remote_left(&state, &table, node, conn);
                    None
                }
                Err(error) => Some(Answer::unreadable(error).into()),
            };
            self.answer(message.reply, answer).await;
        }
        let _ = commands.unsubscribe().await;
    }

    /// Sends `answer`, if any, to a request's `reply` subject, if it has one.
    pub(super) async fn answer(
        &self,
        reply: Option<async_nats::Subject>,
        answer: Option<impl Serialize>,
    ) {
        if let (Some(reply), Some(answer)) = (reply, answer)
            && let Ok(body) = serde_json::to_vec(&answer)
        {
            let _ = self.client.publish(reply, body.into()).await;
        }
    }

    /// Hands another node's command to the table here. A command that
    /// joins the table is answered with where clients reach this node, if
    /// it is configured: the client may come here instead.
    fn command(self: &Arc<Self>, state: &AppState, command: RemoteCommand) -> CommandAnswer {
        let RemoteCommand { table, id, node, conn, player, request } = command;
        let refused = |code: ErrorCode| {
            CommandAnswer::from(Answer::Refused {
                code: code.code().to_owned(),
                message: code.message().to_owned(),
            })
        };
        let joins =
            matches!(request, Request::Sit { .. } | Request::Watch { .. } | Request::Resume { .. });
        // In a handover the shard's subscription outlives its ownership for
        // a moment: a table that moved is failing over, not unknown, and
        // the client tries again (its connection is closed with the move).
        let owned = lock(&self.owned).contains_key(&shard_of(&table, self.shards));
        let Some(handle) = state.registry.get(&table).filter(|_| owned) else {
            return refused(if owned { ErrorCode::NoSuchTable } else { ErrorCode::Unavailable });
        };
        let key = (node, conn);
        let (conn, outbox) = self.remote_outbox(state, key.0.clone(), key.1);
        if let Some(remote) = lock(&self.remotes).get_mut(&key) {
            remote.tables.insert(table.clone());
        }
        let command = TableCommand {
            id,
            conn,
            player: Arc::new(player),
            outbox,
            request,
            received: std::time::Instant::now(),
        };
        if handle.try_send(TableMessage::Command(command)) {
            let url = self.public_url.clone().filter(|_| joins);
            CommandAnswer { answer: Answer::Accepted, url }
        } else if handle.is_closed() {
            refused(ErrorCode::Unavailable)
        } else {
            refused(ErrorCode::Busy)
        }
    }

    fn remote_left(&self, state: &AppState, table: &str, node: String, conn: ConnId) {
        let local = lock(&self.remotes).get(&(node, conn)).map(|remote| remote.conn);
        if let (Some(conn), Some(handle)) = (local, state.registry.get(table)) {
            tokio::spawn(async move {
                handle.send(TableMessage::Disconnected { conn }).await;
            });
        }
    }

    /// The outbox (and local id) of another node's connection: a queue that
    /// a task of its own publishes to that node, in order.
    pub(super) fn remote_outbox(
        self: &Arc<Self>,
        state: &AppState,
        node: String,
        conn: ConnId,
    ) -> (ConnId, Outbox) {
        let mut remotes = lock(&self.remotes);
        let key = (node, conn);
        if let Some(remote) = remotes.get(&key)
            && let Some(tx) = remote.tx.upgrade()
        {
            return (remote.conn, Outbox::new(tx, remote.too_slow.clone()));
        }
        let (tx, rx) = mpsc::channel(self.outbound_queue);
        let too_slow = CancellationToken::new();
        let here = state.next_conn_id();
        let remote = Remote {
            conn: here,
            tx: tx.downgrade(),
            too_slow: too_slow.clone(),
            tables: HashSet::new(),
        };
        remotes.insert(key.clone(), remote);
        let relayed = state.metrics.frames_relayed.clone();
        tokio::spawn(self.clone().pump(key, here, rx, too_slow.clone(), relayed));
        (here, Outbox::new(tx, too_slow))
    }

    /// Publishes one remote connection's messages to its node, numbered,
    /// until every table has let the connection go.
    async fn pump(
        self: Arc<Self>,
        key: (String, ConnId),
        here: ConnId,
        mut messages: mpsc::Receiver<Frame>,
        too_slow: CancellationToken,
        relayed: Counter,
    ) {
        let subject = format!("euchre.to.{}", key.0);
        let stream = format!("{}.{here}", self.id);
        let conn = key.1.to_string();
        let mut number = 0u64;
        loop {
            let message = tokio::select! {
                message = messages.recv() => match message {
                    Some(message) => message,
                    None => break,
                },
                () = too_slow.cancelled() => {
                    let mut headers = HeaderMap::new();
                    headers.insert(CONN, conn.as_str());
                    headers.insert(CLOSE, "too_slow");
                    let _ = self.client.publish_with_headers(subject.clone(), headers, Bytes::new()).await;
                    break;
                }
            };
            if let Some(table) = message.joins()
                && let Some(remote) = lock(&self.remotes).get_mut(&key)
            {
                // A pool here seated it: the table lets it go if its node dies.
                remote.tables.insert(table.clone());
            }
            let Some(json) = message.json() else { continue };
            let body = Bytes::from(json);
            number += 1;
            let mut headers = HeaderMap::new();
            headers.insert(CONN, conn.as_str());
            headers.insert(STREAM, stream.as_str());
            headers.insert(NUMBER, number.to_string().as_str());
            if self.client.publish_with_headers(subject.clone(), headers, body).await.is_err() {
                break;
            }
            relayed.inc();
        }
        let mut remotes = lock(&self.remotes);
        if remotes.get(&key).is_some_and(|remote| remote.conn == here) {
            remotes.remove(&key);
        }
    }

    /// Hands what owners send this node's connections to them; a gap in an
    /// owner's numbering (NATS dropped messages for a slow node) closes the
    /// connection, whose client resumes.
    pub(super) async fn deliver(self: Arc<Self>, mut deliveries: async_nats::Subscriber) {
        while let Some(message) = next_until(&mut deliveries, &self.shutdown).await {
            let Some(headers) = &message.headers else { continue };
            let header = |name: &str| headers.get(name).map(|value| value.as_str().to_owned());
            let Some(conn) = header(CONN).and_then(|conn| conn.parse::<ConnId>().ok()) else {
                continue;
            };
            let mut locals = lock(&self.locals);
            let Some(local) = locals.get_mut(&conn) else { continue };
            if header(CLOSE).is_some() {
                local.too_slow.cancel();
                continue;
            }
            let (Some(stream), Some(number)) =
                (header(STREAM), header(NUMBER).and_then(|n| n.parse::<u64>().ok()))
            else {
                continue;
            };
            let last = local.streams.entry(stream).or_insert(0);
            if number != *last + 1 {
                tracing::warn!(
                    conn,
                    "messages from a table's node were lost; closing the connection"
                );
                local.too_slow.cancel();
                continue;
            }
            *last = number;
            if message.payload.starts_with(QUICK_PLAY_NEWS) {
                self.quick_play_news(local, conn, &message.payload);
                continue;
            }
            // Encoded and projected for this connection by the table's
            // owner: relayed as it came, not decoded and encoded again.
            match axum::extract::ws::Utf8Bytes::try_from(message.payload) {
                Ok(json) => {
                    local.outbox.send(Frame::encoded(json));
                }
                Err(error) => tracing::warn!(%error, "a message from another node is not UTF-8"),
            }
        }
    }
}

impl Node {
    /// A pool's notice to `local` (`conn`): a match joins it to the table
    /// (a move of the table's shard closes it; a close tells the table), and
    /// the end of the request is passed on once (a moved pool's owner and
    /// this node may both say `owner_lost`).
    fn quick_play_news(&self, local: &mut Local, conn: ConnId, payload: &[u8]) {
        let Ok(message) = serde_json::from_slice::<ServerMessage>(payload) else { return };
        let joins = match &message {
            ServerMessage::QuickPlayMatched { table, request, .. } => {
                // Seated, even by an old owner's late match; but only the
                // request this node follows stops being followed.
                local.tables.insert(table.clone());
                lock(&self.asked).forget_conn(conn, Some(*request));
                Some(table.clone())
            }
            ServerMessage::QuickPlayEnded { request, .. }
                if !lock(&self.asked).forget_conn(conn, Some(*request)) =>
            {
                return;
            }
            _ => None,
        };
        // Decoded, so that the connection sees a match as a local one: it
        // joins the connection to the table.
        let frame = Frame::from(message);
        local.outbox.send(match joins {
            Some(table) => Frame::joining(table, frame),
            None => frame,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{Answer, CommandAnswer};

    /// Nodes of two versions side by side (a rolling upgrade): the owner's
    /// url is a field an older node skips, and an older owner's answer has none.
    #[test]
    fn an_answer_with_the_owners_address_reads_on_nodes_of_either_version() {
        let told =
            CommandAnswer { answer: Answer::Accepted, url: Some("ws://n2.example/ws".into()) };
        let wire = serde_json::to_value(&told).expect("serializes");
        assert_eq!(wire, serde_json::json!({"kind": "accepted", "url": "ws://n2.example/ws"}));
        assert!(matches!(serde_json::from_value::<Answer>(wire), Ok(Answer::Accepted)));

        let bare = serde_json::to_vec(&Answer::Accepted).expect("serializes");
        let read: CommandAnswer = serde_json::from_slice(&bare).expect("parses");
        assert!(matches!(read, CommandAnswer { answer: Answer::Accepted, url: None }));
        let refused = Answer::Refused { code: "busy".into(), message: "later".into() };
        let read: CommandAnswer =
            serde_json::from_slice(&serde_json::to_vec(&refused).expect("serializes"))
                .expect("parses");
        assert!(matches!(read.answer, Answer::Refused { code, .. } if code == "busy"));
    }
}
