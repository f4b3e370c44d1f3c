//! The task that owns the WebSocket: it sends requests and matches their
//! answers, delivers each table's events once and in seq order, and
//! reconnects and resumes when the connection drops.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};

use euchre_protocol::{
    ClientMessage, CommandId, LobbyPage, LobbyQuery, Reply, ServerMessage, TableId,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tokio::sync::{mpsc, oneshot};

use crate::progress::Progress;
use crate::{Answer, Command, Config, Error, Follow, Identity, Session, Update};

/// A request sent on the current socket, not yet answered.
struct Pending {
    follow: Follow,
    /// `None` for the client's own requests (resuming, listing again).
    answer: Option<oneshot::Sender<Result<Answer, Error>>>,
    /// Set on a `resume` the client sent for this table.
    resume_of: Option<TableId>,
}

/// A table to take up again after a reconnection.
#[derive(Clone, Debug)]
struct Followed {
    seated: bool,
    invite: Option<String>,
}

/// Why serving a socket ended.
enum Ended {
    /// The client closed, or every handle is gone.
    Stop,
    /// The connection dropped: reconnect.
    Lost(Error),
}

pub(crate) struct Connection {
    config: Config,
    token: String,
    session: Session,
    pending: HashMap<CommandId, Pending>,
    followed: HashMap<TableId, Followed>,
    /// What to list again after a reconnection, if the tables were listed.
    lobby: Option<LobbyQuery>,
    /// Tables with a `resume` in flight to fill a gap (one at a time).
    resuming: HashSet<TableId>,
    /// The last lobby page, the answer to `list_tables`.
    last_lobby: Option<LobbyPage>,
    /// The server said to come back no sooner than this.
    come_back_after_ms: Option<u64>,
    /// Requests made while reconnecting, sent once connected.
    queued: Vec<Command>,
    updates: mpsc::UnboundedSender<Update>,
    /// What has been delivered of each table, shared with [`crate::Updates`],
    /// which drops prompts the game has moved past.
    progress: Progress,
    rng: ChaCha8Rng,
    /// In a cluster: the node that owns a table this client just joined,
    /// where it goes once the join is answered (`table_elsewhere`).
    elsewhere: Option<(TableId, String)>,
    /// Tables whose hint was followed since the last reconnection: a hint
    /// for one of them again (a `public_url` that does not lead to its
    /// owner) is not followed, so a client never goes round in circles.
    moved_for: HashSet<TableId>,
    /// The connection a hint was followed from, closed once the tables are
    /// taken up at the owner (so the seat never looks away meanwhile).
    leaving: Option<Session>,
}

impl Connection {
    /// Connects and says `hello`.
    pub(crate) async fn open(
        config: Config,
        updates: mpsc::UnboundedSender<Update>,
        progress: Progress,
    ) -> Result<(Connection, Identity), Error> {
        let (session, identity) = handshake(&config, config.token.as_deref()).await?;
        // Each client's jitter differs, so that clients dropped together spread out.
        let seed = RandomState::new().hash_one(&identity.player.id);
        let connection = Connection {
            config,
            token: identity.token.clone(),
            session,
            pending: HashMap::new(),
            followed: HashMap::new(),
            lobby: None,
            resuming: HashSet::new(),
            last_lobby: None,
            come_back_after_ms: None,
            queued: Vec::new(),
            updates,
            progress,
            rng: ChaCha8Rng::seed_from_u64(seed),
            elsewhere: None,
            moved_for: HashSet::new(),
            leaving: None,
        };
        Ok((connection, identity))
    }

    /// Serves the connection, reconnecting as needed, until the client stops.
    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        loop {
            match self.serve(&mut commands).await {
                Ended::Stop => {
                    self.session.close(self.config.connect_timeout).await;
                    self.emit(Update::Closed { reason: "closed by the client".to_owned() });
                    return;
                }
                Ended::Lost(error) => {
                    tracing::debug!(%error, "connection lost");
                    for (_, pending) in self.pending.drain() {
                        if let Some(answer) = pending.answer {
                            let _ = answer.send(Err(Error::ConnectionLost));
                        }
                    }
                    self.resuming.clear();
                    self.elsewhere = None;
                    self.leaving = None;
                    self.emit(Update::Disconnected { reason: error.to_string() });
                    if !self.reconnect(&mut commands).await {
                        return;
                    }
                }
            }
        }
    }

    async fn serve(&mut self, commands: &mut mpsc::Receiver<Command>) -> Ended {
        for command in std::mem::take(&mut self.queued) {
            if let Some(ended) = self.command(Some(command)).await {
                return ended;
            }
        }
        loop {
            tokio::select! {
                command = commands.recv() => {
                    if let Some(ended) = self.command(command).await {
                        return ended;
                    }
                }
                received = self.session.next_message() => match received {
                    Ok(received) => {
                        if let Err(error) = self.receive(received.message).await {
                            return Ended::Lost(error);
                        }
                        if let Err(error) = self.follow_hint().await {
                            return Ended::Lost(error);
                        }
                    }
                    Err(Error::Unreadable(error)) => {
                        tracing::warn!(%error, "a frame this client cannot read")
                    }
                    Err(error) => return Ended::Lost(error),
                },
            }
        }
    }

    /// Sends one request; `None` (every handle dropped) or a close stops.
    async fn command(&mut self, command: Option<Command>) -> Option<Ended> {
        match command {
            None | Some(Command::Close) => Some(Ended::Stop),
            Some(Command::Request { message, follow, answer }) => {
                self.send(message, follow, Some(answer), None).await.err().map(Ended::Lost)
            }
        }
    }

    async fn send(
        &mut self,
        mut message: ClientMessage,
        follow: Follow,
        answer: Option<oneshot::Sender<Result<Answer, Error>>>,
        resume_of: Option<TableId>,
    ) -> Result<(), Error> {
        let id = self.session.next_id();
        message.set_id(id);
        match self.session.send(&message).await {
            Ok(_) => {
                self.pending.insert(id, Pending { follow, answer, resume_of });
                Ok(())
            }
            Err(error @ Error::Encoding(_)) => {
                if let Some(answer) = answer {
                    let _ = answer.send(Err(error));
                }
                Ok(())
            }
            Err(error) => {
                // Answered with the others the lost connection leaves pending.
                self.pending.insert(id, Pending { follow, answer, resume_of });
                Err(error)
            }
        }
    }

    /// The last seq delivered for `table`.
    fn delivered(&self, table: &str) -> Option<u64> {
        self.progress.delivered(table)
    }

    /// Delivers `update`, noting it first.
    fn emit(&self, update: Update) {
        self.progress.note(&update);
        // Nobody listening any more is not an error: requests still work.
        let _ = self.updates.send(update);
    }

    async fn receive(&mut self, message: ServerMessage) -> Result<(), Error> {
        match message {
            ServerMessage::Ack { id, reply } => self.answered(id, Ok(reply)),
            ServerMessage::Error { id: Some(id), code, message } => {
                self.answered(id, Err((code, message)))
            }
            ServerMessage::Error { id: None, code, message } => {
                self.emit(Update::ServerError { code, message })
            }
            ServerMessage::Event { table, seq, event } => {
                match self.delivered(&table) {
                    // Seen already: a resume replays what arrived before the drop.
                    Some(last) if seq <= last => {}
                    // A gap: ask for the missing events (once); they come
                    // again, with this one, in order.
                    Some(last) if seq > last + 1 => {
                        if self.resuming.insert(table.clone()) {
                            let resume = ClientMessage::Resume {
                                id: 0,
                                table: table.clone(),
                                last_seq: last,
                            };
                            self.send(resume, Follow::Nothing, None, Some(table)).await?;
                        }
                    }
                    _ => self.emit(Update::Event { table, seq, event }),
                }
            }
            ServerMessage::Snapshot { table, seq, state } => {
                self.emit(Update::Snapshot { table, seq, state })
            }
            // Stale prompts are dropped as they are read (`Updates::next`).
            ServerMessage::YourTurn { table, seq, actions, deadline_ms } => {
                self.emit(Update::YourTurn { table, seq, actions, deadline_ms })
            }
            ServerMessage::Lobby(page) => {
                self.last_lobby = Some(page.clone());
                self.emit(Update::Lobby(page));
            }
            ServerMessage::LobbyUpdate { table } => self.emit(Update::LobbyUpdate(table)),
            ServerMessage::LobbyRemoved { table } => self.emit(Update::LobbyRemoved(table)),
            ServerMessage::LobbyYours { tables } => {
                if let Some(page) = &mut self.last_lobby {
                    page.yours = tables.clone();
                }
                self.emit(Update::LobbyYours(tables));
            }
            ServerMessage::Shutdown { reconnect_after_ms } => {
                self.come_back_after_ms = Some(reconnect_after_ms);
                self.emit(Update::ServerShutdown { reconnect_after_ms });
            }
            ServerMessage::Warning { warning, at, message, .. } => {
                self.emit(Update::Warning { warning, at, message })
            }
            ServerMessage::QuickPlayWaiting { preset, rated, waiting, partner } => {
                self.emit(Update::QuickPlayWaiting { preset, rated, waiting, partner })
            }
            ServerMessage::QuickPlayMatched { table, seat, .. } => {
                // Seated by the pool: followed, to be resumed after a drop, as after `sit`.
                self.followed.insert(table.clone(), Followed { seated: true, invite: None });
                self.emit(Update::QuickPlayMatched { table, seat });
            }
            ServerMessage::QuickPlayEnded { reason, message, .. } => {
                self.emit(Update::QuickPlayEnded { reason, message })
            }
            ServerMessage::TableElsewhere { table, url } => {
                if !self.moved_for.contains(&table) {
                    self.elsewhere = Some((table, url));
                }
            }
            ServerMessage::TournamentSeated { tournament, name, round, table, seat } => {
                self.emit(Update::TournamentSeated { tournament, name, round, table, seat })
            }
            // Only ever the answer to `hello`, read by the handshake.
            ServerMessage::Welcome { .. } => {}
        }
        Ok(())
    }

    fn answered(&mut self, id: CommandId, result: Result<Reply, (String, String)>) {
        let Some(pending) = self.pending.remove(&id) else { return };
        if let Some(table) = &pending.resume_of {
            self.resuming.remove(table);
        }
        match result {
            Ok(reply) => {
                let lobby = match &pending.follow {
                    Follow::Table { table, invite } => {
                        let seated = matches!(reply, Reply::Seated { .. });
                        let followed = Followed { seated, invite: invite.clone() };
                        self.followed.insert(table.clone(), followed);
                        None
                    }
                    Follow::Unfollow(table) => {
                        self.followed.remove(table);
                        None
                    }
                    Follow::Lobby(query) => {
                        self.lobby = Some(query.clone());
                        self.last_lobby.clone()
                    }
                    Follow::Nothing => None,
                };
                if let Some(answer) = pending.answer {
                    let _ = answer.send(Ok(Answer { reply, lobby }));
                }
            }
            Err((code, message)) => {
                if let Some(table) = pending.resume_of {
                    self.followed.remove(&table);
                    self.emit(Update::TableLost {
                        table,
                        code: code.clone(),
                        message: message.clone(),
                    });
                }
                if let Some(answer) = pending.answer {
                    let _ = answer.send(Err(Error::Refused { code, message }));
                }
            }
        }
    }

    /// Connects again (waiting with backoff between attempts), then resumes
    /// every followed table. False when the client stopped meanwhile.
    async fn reconnect(&mut self, commands: &mut mpsc::Receiver<Command>) -> bool {
        let mut attempt = 0;
        loop {
            let mut wait = self.config.backoff.wait(attempt, &mut self.rng);
            if let Some(ms) = self.come_back_after_ms.take() {
                wait += std::time::Duration::from_millis(ms);
            }
            let sleep = tokio::time::sleep(wait);
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    () = &mut sleep => break,
                    command = commands.recv() => match command {
                        None | Some(Command::Close) => {
                            self.emit(Update::Closed { reason: "closed by the client".to_owned() });
                            return false;
                        }
                        Some(request) => self.queued.push(request),
                    },
                }
            }
            match handshake(&self.config, Some(&self.token)).await {
                Ok((session, _)) => {
                    self.session = session;
                    break;
                }
                Err(Error::Refused { code, message })
                    if code == "bad_token" || code == "session_expired" || code == "banned" =>
                {
                    // The server no longer knows this player, or its session
                    // ended (closed with 4003), or a moderator banned it
                    // (4004; the message says until when): nothing to
                    // resume, and trying again would only be refused again.
                    self.emit(Update::Closed { reason: format!("{code}: {message}") });
                    return false;
                }
                Err(error) => {
                    tracing::debug!(%error, attempt, "reconnecting failed");
                    attempt = attempt.saturating_add(1);
                }
            }
        }
        self.emit(Update::Reconnected);
        self.moved_for.clear();
        // Lost again at once: the next round of `run` reconnects.
        let _ = self.take_up().await;
        true
    }

    /// Resumes every followed table on the session just opened (from the
    /// last seq delivered, so nothing is delivered twice or skipped), and
    /// lists the tables again if they were listed.
    async fn take_up(&mut self) -> Result<(), Error> {
        let followed: Vec<(TableId, Followed)> =
            self.followed.iter().map(|(table, f)| (table.clone(), f.clone())).collect();
        for (table, followed) in followed {
            let last_seq = self.delivered(&table).unwrap_or(0);
            let message = match (followed.seated, followed.invite) {
                // A private table lets a spectator back in by its invite,
                // with a snapshot.
                (false, Some(invite)) => {
                    ClientMessage::Watch { id: 0, table: table.clone(), invite: Some(invite) }
                }
                _ => ClientMessage::Resume { id: 0, table: table.clone(), last_seq },
            };
            self.send(message, Follow::Nothing, None, Some(table)).await?;
        }
        if let Some(query) = self.lobby.clone() {
            self.send(ClientMessage::ListTables { id: 0, query }, Follow::Nothing, None, None)
                .await?;
        }
        Ok(())
    }

    /// Goes to the node that owns the table a hint named, once nothing is
    /// in flight and that table is the only one followed (a client at
    /// tables of several nodes stays where it is: its tables' messages
    /// reach it through this node). It connects there with the same token
    /// and takes its tables up; the connection it leaves is closed once
    /// that is answered, so the seat never looks away. If the owner cannot
    /// be reached, the client stays: this node serves the table too.
    async fn follow_hint(&mut self) -> Result<(), Error> {
        if !self.pending.is_empty() || !self.resuming.is_empty() {
            return Ok(());
        }
        if let Some(mut left) = self.leaving.take() {
            let patience = self.config.connect_timeout;
            tokio::spawn(async move { left.close(patience).await });
        }
        let Some((table, _)) = &self.elsewhere else { return Ok(()) };
        let alone = self.followed.len() == 1 && self.followed.contains_key(table);
        let Some((table, url)) = self.elsewhere.take().filter(|_| alone) else { return Ok(()) };
        self.moved_for.insert(table.clone());
        let owner = Config { url: url.clone(), ..self.config.clone() };
        match handshake(&owner, Some(&self.token)).await {
            Ok((session, _)) => {
                tracing::debug!(%table, %url, "moving to the node that owns the table");
                self.leaving = Some(std::mem::replace(&mut self.session, session));
                self.take_up().await?;
            }
            Err(error) => {
                tracing::debug!(%table, %url, %error, "staying: the owner is not reachable")
            }
        }
        Ok(())
    }
}

/// Opens the socket and says `hello`, as the player `token` names or as a
/// new guest.
async fn handshake(config: &Config, token: Option<&str>) -> Result<(Session, Identity), Error> {
    let attempt = async {
        let mut session = Session::connect(&config.url).await?;
        let identity = session.hello(&config.name, token).await?;
        Ok((session, identity))
    };
    let fail = |reason: String| Error::Connect { url: config.url.clone(), reason };
    match tokio::time::timeout(config.connect_timeout, attempt).await {
        Err(_) => Err(fail(format!("no welcome within {:?}", config.connect_timeout))),
        Ok(Err(error @ (Error::Refused { .. } | Error::Connect { .. }))) => Err(error),
        Ok(Err(error)) => Err(fail(error.to_string())),
        Ok(Ok(connected)) => Ok(connected),
    }
}
