//! A typed async client for the Euchre server.
//!
//! [`Client::connect`] opens the WebSocket, says `hello` (as a new guest, or
//! as the player a saved token names) and leaves the connection to a task of
//! its own. Every request returns the server's acknowledgement or its coded
//! refusal as a `Result`. Table events arrive on [`Updates`] in `seq` order,
//! each exactly once, even across dropped connections: the task reconnects
//! with full-jitter backoff, says `hello` with the same token, and resumes
//! every table it follows from the last `seq` it delivered, or delivers the
//! server's snapshot when that tail is no longer kept.
//!
//! ```no_run
//! use euchre_client::{Client, Config, Update};
//! use euchre_protocol::TableSettings;
//!
//! # async fn play() -> Result<(), euchre_client::Error> {
//! let config = Config::new("ws://127.0.0.1:8080/ws", "Ann");
//! let (client, mut updates) = Client::connect(config).await?;
//! // Keep this to come back as the same player (and to the same seats).
//! println!("token: {}", client.identity().token);
//!
//! let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
//! let table = client.create_table(settings).await?.table;
//! client.sit(&table, Some(0), None).await?;
//! while let Some(update) = updates.next().await {
//!     match update {
//!         // Exactly the actions the server will accept, current as of `seq`.
//!         Update::YourTurn { table, actions, .. } => client.act(&table, actions[0]).await?,
//!         Update::Event { event: Some(event), .. } => println!("{event:?}"),
//!         _ => {}
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`Session`] is the layer underneath for code that drives one connection
//! from its own task and must see or time the protocol as it is (the load
//! generator, the server's tests): no task, no reconnection, every message
//! as the server sent it, with the same rule for stale prompts.
//!
//! [`HttpClient`] reads the HTTP API (match history, analyses, tables,
//! players, the leaderboard, `/readyz`, puzzles and tournaments) as the
//! protocol's types, over http or https.
//!
//! The protocol itself is described in `docs/protocol.md`.

use std::time::Duration;

use euchre_engine::{Action, Preset};
use euchre_protocol::{
    ClientMessage, LobbyPage, LobbyQuery, PlayerInfo, QuickPlayEndReason, QuickPlayRequest, Reply,
    ReportReason, ReviewedChoice, TableEvent, TableId, TableSettings, TableState, TableSummary,
};
use tokio::sync::{mpsc, oneshot};

mod backoff;
mod connection;
mod deal_watch;
pub mod http;
mod progress;
mod session;

pub use backoff::Backoff;
pub use deal_watch::DealWatch;
pub use http::{AnalysisAnswer, HttpClient, HttpError, MatchQuery, Roots};
use progress::Progress;
pub use progress::moves_game;
pub use session::{Received, Session, Socket, answer_to, socket_config};

/// Where to connect and as whom.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server's WebSocket address, `ws://host:port/ws`.
    pub url: String,
    /// The name of a new guest (ignored when `token` names a player).
    pub name: String,
    /// A token from an earlier [`Identity`]: come back as that player.
    pub token: Option<String>,
    /// How long to wait between attempts to reconnect.
    pub backoff: Backoff,
    /// How long the first connection and each `hello` may take.
    pub connect_timeout: Duration,
}

impl Config {
    /// A new guest called `name` at `url`, with the default backoff.
    pub fn new(url: impl Into<String>, name: impl Into<String>) -> Config {
        Config {
            url: url.into(),
            name: name.into(),
            token: None,
            backoff: Backoff::default(),
            connect_timeout: Duration::from_secs(10),
        }
    }

    /// Comes back as the player `token` names.
    pub fn with_token(mut self, token: impl Into<String>) -> Config {
        self.token = Some(token.into());
        self
    }
}

/// Who the server knows this client as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub player: PlayerInfo,
    /// Keep it secret: it is how the player comes back.
    pub token: String,
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// The server refused, with its code (`not_your_turn`, `seat_taken`,
    /// `must_follow_suit`, …: docs/protocol.md lists them) and message.
    /// Nothing changed at the server.
    #[error("refused ({code}): {message}")]
    Refused { code: String, message: String },
    /// The first connection (or its `hello`) failed.
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    /// The connection dropped with the request unanswered: it may or may not
    /// have been carried out. The client reconnects and resumes by itself;
    /// the table's events tell what happened.
    #[error("the connection dropped before the answer came")]
    ConnectionLost,
    /// The client was closed, or gave up (its token was refused).
    #[error("the client is closed")]
    Closed,
    /// A [`Session`]'s connection failed or was closed (the reason given).
    #[error("connection lost: {0}")]
    Socket(String),
    /// A [`Session`] read a frame that is not a server message.
    #[error("an unreadable message: {0}")]
    Unreadable(String),
    /// The request could not be written as JSON.
    #[error("cannot encode the request: {0}")]
    Encoding(String),
    /// The server acknowledged with a reply of another kind than asked for.
    #[error("unexpected reply {0:?}")]
    UnexpectedReply(Box<Reply>),
}

impl Error {
    /// The server's code, for a refusal.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Refused { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Something the server told this client, or news of the connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Update {
    /// A table event, in `seq` order, each once; `None` is an event this
    /// client may not see (the seq still counts).
    Event {
        table: TableId,
        seq: u64,
        event: Option<TableEvent>,
    },
    /// Everything this client may know of a table as of `seq`: after sitting
    /// or watching, and after a reconnection whose missed events are gone.
    Snapshot {
        table: TableId,
        seq: u64,
        state: Box<TableState>,
    },
    /// It is this client's turn at `table`: exactly the actions the server
    /// accepts now. A prompt that a later event moving the game (see
    /// [`moves_game`]) has made stale is not delivered; a table's notices
    /// (a rating, a deal's seal, chat, presence) leave it standing.
    YourTurn {
        table: TableId,
        seq: u64,
        actions: Vec<Action>,
        deadline_ms: Option<u64>,
    },
    /// A page of the lobby: the answer to [`Client::list_tables`], or its
    /// first page again after a reconnection (or when the server resends it
    /// to a client that fell behind). A first page (`after: None`) replaces
    /// what was listed; a later one adds to it.
    Lobby(LobbyPage),
    LobbyUpdate(TableSummary),
    LobbyRemoved(TableId),
    /// The player's own live tables changed (they sat, left, or one of
    /// them changed or closed): the whole list, as a first page's `yours`.
    LobbyYours(Vec<TableSummary>),
    /// The server is going down; the client reconnects after this long.
    ServerShutdown {
        reconnect_after_ms: u64,
    },
    /// A moderator's warning, sent after each hello until acknowledged
    /// ([`Client::acknowledge_warning`]).
    Warning {
        warning: i64,
        at: i64,
        message: String,
    },
    /// The connection dropped; the client is reconnecting.
    Disconnected {
        reason: String,
    },
    /// Connected again: each followed table's missed events follow (or its
    /// snapshot, when they are no longer kept), then its live events.
    Reconnected,
    /// A followed table could not be resumed (it closed while away).
    TableLost {
        table: TableId,
        code: String,
        message: String,
    },
    /// An error the server sent about no request (a frame it could not read).
    ServerError {
        code: String,
        message: String,
    },
    /// A tournament's round seats this player at `table`, in `seat`: not
    /// followed until the client opens it ([`Client::watch`]: a seated player sees from the seat).
    TournamentSeated {
        tournament: String,
        name: String,
        round: u32,
        table: TableId,
        seat: u8,
    },
    /// Progress of this player's quick-play request (see [`Client::quick_play`]).
    QuickPlayWaiting {
        preset: Preset,
        rated: bool,
        waiting: u32,
        partner: Option<PlayerInfo>,
    },
    /// The quick-play request was answered: this client sits at `table` in
    /// `seat` and follows it; its snapshot comes next.
    QuickPlayMatched {
        table: TableId,
        seat: u8,
    },
    /// The quick-play request ended without a table (not by this client's
    /// own cancel).
    QuickPlayEnded {
        reason: QuickPlayEndReason,
        message: String,
    },
    /// The client stopped for good (closed, or its token was refused).
    Closed {
        reason: String,
    },
}

/// A table just created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedTable {
    pub table: TableId,
    /// The invite code of a private table.
    pub invite: Option<String>,
}

/// The stream of [`Update`]s. It ends when the client stops.
#[derive(Debug)]
pub struct Updates {
    rx: mpsc::UnboundedReceiver<Update>,
    /// What has been delivered of each table, so that a prompt the game has
    /// moved past is dropped when it is read, not only when it arrives.
    progress: Progress,
}

impl Updates {
    /// The next update, or `None` once the client has stopped.
    pub async fn next(&mut self) -> Option<Update> {
        loop {
            let update = self.rx.recv().await?;
            if !self.progress.overtaken(&update) {
                return Some(update);
            }
        }
    }

    /// An update already received, if any, without waiting.
    pub fn try_next(&mut self) -> Option<Update> {
        loop {
            let update = self.rx.try_recv().ok()?;
            if !self.progress.overtaken(&update) {
                return Some(update);
            }
        }
    }
}

/// The answer to [`Client::hint`]: the expert bot's action for the seat
/// (not taken) and why, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub table: TableId,
    pub action: Action,
    pub why: String,
}

/// The answer to [`Client::review`]: the seat's biggest mistake in
/// finished hand `hand` (numbered from 0), or `None` when every choice was
/// within a quarter of a point of the best.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    pub table: TableId,
    pub hand: u32,
    pub mistake: Option<ReviewedChoice>,
}

/// What a request does to what the client follows, once acknowledged.
#[derive(Clone, Debug)]
pub(crate) enum Follow {
    Nothing,
    /// Sitting or watching: resume this table after a reconnection.
    Table {
        table: TableId,
        invite: Option<String>,
    },
    /// Leaving: stop following it.
    Unfollow(TableId),
    /// Listing tables: list them again (the first page, the same filter)
    /// after a reconnection.
    Lobby(LobbyQuery),
}

/// An acknowledged request: the reply, and the lobby for `list_tables`.
#[derive(Debug)]
pub(crate) struct Answer {
    reply: Reply,
    lobby: Option<LobbyPage>,
}

pub(crate) enum Command {
    /// The message's id is set when it is sent.
    Request {
        message: ClientMessage,
        follow: Follow,
        answer: oneshot::Sender<Result<Answer, Error>>,
    },
    Close,
}

/// The refusal a client meets by sending faster than the server allows.
const RATE_LIMITED: &str = "rate_limited";

/// How long a request keeps being sent again while it is rate limited.
pub const RATE_LIMIT_PATIENCE: Duration = Duration::from_secs(10);

/// A handle on the connection; clones share it. The connection closes when
/// the last handle is dropped or [`Client::close`] is called.
#[derive(Clone, Debug)]
pub struct Client {
    commands: mpsc::Sender<Command>,
    identity: Identity,
}

impl Client {
    /// Connects and says `hello`. Fails fast if the server cannot be reached
    /// or refuses the token; after that, the client reconnects by itself.
    pub async fn connect(config: Config) -> Result<(Client, Updates), Error> {
        let progress = Progress::default();
        let (updates_tx, updates_rx) = mpsc::unbounded_channel();
        let (commands, commands_rx) = mpsc::channel(64);
        let (connection, identity) =
            connection::Connection::open(config, updates_tx, progress.clone()).await?;
        tokio::spawn(connection.run(commands_rx));
        Ok((Client { commands, identity }, Updates { rx: updates_rx, progress }))
    }

    /// The player this client is, and the token to come back with.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Sends `message` and waits for its answer. A `rate_limited` refusal
    /// (nothing changed) is sent again after a pause, as the protocol asks,
    /// for up to [`RATE_LIMIT_PATIENCE`].
    async fn request(&self, follow: Follow, message: ClientMessage) -> Result<Answer, Error> {
        let mut pause = Duration::from_millis(50);
        let mut waited = Duration::ZERO;
        loop {
            let (answer, answered) = oneshot::channel();
            let command =
                Command::Request { message: message.clone(), follow: follow.clone(), answer };
            self.commands.send(command).await.map_err(|_| Error::Closed)?;
            match answered.await.map_err(|_| Error::Closed)? {
                Err(error)
                    if error.code() == Some(RATE_LIMITED) && waited < RATE_LIMIT_PATIENCE =>
                {
                    tokio::time::sleep(pause).await;
                    waited += pause;
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
                result => return result,
            }
        }
    }

    async fn done(&self, follow: Follow, message: ClientMessage) -> Result<(), Error> {
        match self.request(follow, message).await?.reply {
            Reply::Done => Ok(()),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Asks the server for a `pong`.
    pub async fn ping(&self) -> Result<(), Error> {
        match self.request(Follow::Nothing, ClientMessage::Ping { id: 0 }).await?.reply {
            Reply::Pong => Ok(()),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// A page of the public tables matching `query`'s filter (the next
    /// one: `after` the last page's `next`). Changes to the tables matching
    /// the filter follow as [`Update::LobbyUpdate`] and
    /// [`Update::LobbyRemoved`], whichever page they are on.
    pub async fn list_tables(&self, query: LobbyQuery) -> Result<LobbyPage, Error> {
        let follow = Follow::Lobby(LobbyQuery { after: None, ..query.clone() });
        let answer = self.request(follow, ClientMessage::ListTables { id: 0, query }).await?;
        Ok(answer.lobby.unwrap_or_default())
    }

    /// Creates a table hosted by this player (who still has to sit).
    pub async fn create_table(&self, settings: TableSettings) -> Result<CreatedTable, Error> {
        let message = ClientMessage::CreateTable { id: 0, settings };
        match self.request(Follow::Nothing, message).await?.reply {
            Reply::TableCreated { table, invite } => Ok(CreatedTable { table, invite }),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Takes `seat` (the first free one if `None`); returns the seat taken.
    /// Its snapshot arrives on [`Updates`] first.
    pub async fn sit(
        &self,
        table: &str,
        seat: Option<u8>,
        invite: Option<String>,
    ) -> Result<u8, Error> {
        let follow = Follow::Table { table: table.to_owned(), invite: invite.clone() };
        let table = table.to_owned();
        let message = ClientMessage::Sit { id: 0, table, seat, invite };
        match self.request(follow, message).await?.reply {
            Reply::Seated { seat, .. } => Ok(seat),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Watches a table as a spectator.
    pub async fn watch(&self, table: &str, invite: Option<String>) -> Result<(), Error> {
        let follow = Follow::Table { table: table.to_owned(), invite: invite.clone() };
        let table = table.to_owned();
        let message = ClientMessage::Watch { id: 0, table, invite };
        match self.request(follow, message).await?.reply {
            Reply::Watching { .. } => Ok(()),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Leaves a table (a bot takes the seat if a game is on).
    pub async fn leave(&self, table: &str) -> Result<(), Error> {
        let follow = Follow::Unfollow(table.to_owned());
        let table = table.to_owned();
        self.done(follow, ClientMessage::Leave { id: 0, table }).await
    }

    /// Starts the game (host only): bots take the empty seats.
    pub async fn start(&self, table: &str) -> Result<(), Error> {
        let table = table.to_owned();
        self.done(Follow::Nothing, ClientMessage::Start { id: 0, table }).await
    }

    /// After a game: another with the same seats (host only).
    pub async fn rematch(&self, table: &str) -> Result<(), Error> {
        let table = table.to_owned();
        self.done(Follow::Nothing, ClientMessage::Rematch { id: 0, table }).await
    }

    /// A game action. Its events arrive on [`Updates`] before this returns.
    pub async fn act(&self, table: &str, action: Action) -> Result<(), Error> {
        let table = table.to_owned();
        self.done(Follow::Nothing, ClientMessage::Act { id: 0, table, action }).await
    }

    /// What the expert bot would do in this player's seat now, and why in
    /// one line: at a practice table only (every other seat a bot), once a
    /// decision; `hint_not_allowed` anywhere else. Nothing is played.
    pub async fn hint(&self, table: &str) -> Result<Hint, Error> {
        let message = ClientMessage::Hint { id: 0, table: table.to_owned() };
        match self.request(Follow::Nothing, message).await?.reply {
            Reply::Hint { table, action, why } => Ok(Hint { table, action, why }),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// This player's biggest mistake in finished hand `hand` (from 0, as
    /// `hand_dealt` numbers it) of the game in play: at a practice table
    /// only, once a hand (`bad_request` for a second, or a hand not over);
    /// `hint_not_allowed` anywhere else.
    pub async fn review(&self, table: &str, hand: u32) -> Result<Review, Error> {
        let message = ClientMessage::Review { id: 0, table: table.to_owned(), hand };
        match self.request(Follow::Nothing, message).await?.reply {
            Reply::Review { table, hand, mistake } => Ok(Review { table, hand, mistake }),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Says something to the table.
    pub async fn chat(&self, table: &str, text: impl Into<String>) -> Result<(), Error> {
        let (table, text) = (table.to_owned(), text.into());
        self.done(Follow::Nothing, ClientMessage::Chat { id: 0, table, text }).await
    }

    /// Hides `player`'s chat from this player at every table (`on`), or
    /// shows it again.
    pub async fn mute(&self, player: &str, on: bool) -> Result<(), Error> {
        let player = player.to_owned();
        let message = if on {
            ClientMessage::Mute { id: 0, player }
        } else {
            ClientMessage::Unmute { id: 0, player }
        };
        self.done(Follow::Nothing, message).await
    }

    /// Blocks `player` (`on`: never seated together, their chat hidden), or
    /// unblocks them.
    pub async fn block(&self, player: &str, on: bool) -> Result<(), Error> {
        let player = player.to_owned();
        let message = if on {
            ClientMessage::Block { id: 0, player }
        } else {
            ClientMessage::Unblock { id: 0, player }
        };
        self.done(Follow::Nothing, message).await
    }

    /// Reports `player`, seen at `table` (the server attaches the match and
    /// their chat lines there).
    pub async fn report(
        &self,
        player: &str,
        reason: ReportReason,
        details: String,
        table: Option<TableId>,
    ) -> Result<(), Error> {
        let player = player.to_owned();
        let report =
            ClientMessage::Report { id: 0, player, reason, details, table, match_id: None };
        self.done(Follow::Nothing, report).await
    }

    /// Asks for a game with strangers; returns the team code when the
    /// request invites a partner. [`Update::QuickPlayMatched`] (then the
    /// table's snapshot) or [`Update::QuickPlayEnded`] follows.
    pub async fn quick_play(&self, request: QuickPlayRequest) -> Result<Option<String>, Error> {
        let message = ClientMessage::QuickPlay { id: 0, request };
        match self.request(Follow::Nothing, message).await?.reply {
            Reply::Queued { team, .. } => Ok(team),
            other => Err(Error::UnexpectedReply(Box::new(other))),
        }
    }

    /// Ends this player's quick-play request (`not_queued` if there is none).
    pub async fn cancel_quick_play(&self) -> Result<(), Error> {
        self.done(Follow::Nothing, ClientMessage::CancelQuickPlay { id: 0 }).await
    }

    /// The player has read moderators' warning `warning`: it is not sent again.
    pub async fn acknowledge_warning(&self, warning: i64) -> Result<(), Error> {
        self.done(Follow::Nothing, ClientMessage::AcknowledgeWarning { id: 0, warning }).await
    }

    /// Closes the connection; [`Updates`] ends with [`Update::Closed`].
    pub async fn close(&self) {
        let _ = self.commands.send(Command::Close).await;
    }
}

#[cfg(test)]
mod tests {
    //! Which prompts reach the reader, fed as the connection task delivers
    //! updates (each noted, then sent), with the reader slower than the
    //! server: everything has arrived before the first read.

    use euchre_engine::{Card, Commitment, Event, PerTeam, Rules, Salt, Seat, Team};
    use euchre_protocol::{SeatRating, TableNotice};

    use super::*;

    const TABLE: &str = "t1";

    fn event(seq: u64, event: Option<TableEvent>) -> Update {
        Update::Event { table: TABLE.to_owned(), seq, event }
    }

    fn game(seq: u64, game_event: Event) -> Update {
        event(seq, Some(TableEvent::Game(game_event)))
    }

    fn notice(seq: u64, notice: TableNotice) -> Update {
        event(seq, Some(TableEvent::Table(notice)))
    }

    fn prompt(seq: u64) -> Update {
        let actions = vec![Action::Pass];
        Update::YourTurn { table: TABLE.to_owned(), seq, actions, deadline_ms: None }
    }

    /// The seqs of the prompts a reader gets of `sent`, read only once all
    /// of it has arrived.
    fn prompts_read_after(sent: Vec<Update>) -> Vec<u64> {
        let progress = Progress::default();
        let (tx, rx) = mpsc::unbounded_channel();
        for update in sent {
            progress.note(&update);
            tx.send(update).expect("the reader is there");
        }
        let mut updates = Updates { rx, progress };
        std::iter::from_fn(|| updates.try_next())
            .filter_map(|update| match update {
                Update::YourTurn { seq, .. } => Some(seq),
                _ => None,
            })
            .collect()
    }

    fn rated() -> TableNotice {
        let rating =
            |seat| SeatRating { seat, player_id: format!("p{seat}"), rating: 1600, change: 100 };
        TableNotice::Rated { form: "partnership".into(), ratings: (0..4).map(rating).collect() }
    }

    fn game_started() -> TableNotice {
        TableNotice::GameStarted { game: 2, rules: Rules::default() }
    }

    /// The load generator's stopped tables: a rated game's rating comes a
    /// moment after `game_won`, here after the next game's first prompt.
    #[test]
    fn a_rating_after_the_next_games_first_prompt_leaves_it_standing() {
        let won = Event::GameWon { team: Team(0), scores: PerTeam::new(2) };
        let prompts = prompts_read_after(vec![
            game(40, won),
            notice(41, game_started()),
            // The deal, which this seat sees only in part.
            event(42, None),
            notice(43, TableNotice::DealCommitted { hand: 0, commitment: Commitment([7; 32]) }),
            prompt(43),
            notice(44, rated()),
        ]);
        assert_eq!(prompts, vec![43]);
    }

    #[test]
    fn no_table_notice_makes_a_prompt_stale() {
        let notices = [
            TableNotice::DealCommitted { hand: 3, commitment: Commitment([7; 32]) },
            TableNotice::DealRevealed { hand: 2, deck: vec![Card::JOKER], salt: Salt([1; 32]) },
            TableNotice::Chat { from: "Ann".into(), text: "hi".into(), from_id: None },
            TableNotice::Presence { seat: 2, connected: false, grace_ms: Some(10_000) },
            TableNotice::SeatLeft { seat: 2 },
            rated(),
        ];
        for later in notices {
            let prompts = prompts_read_after(vec![prompt(10), notice(11, later.clone())]);
            assert_eq!(prompts, vec![10], "after {later:?}");
        }
    }

    #[test]
    fn an_event_that_moves_the_game_makes_a_prompt_stale() {
        let played =
            || Some(TableEvent::Game(Event::CardPlayed { seat: Seat(1), card: Card::JOKER }));
        // A card played, an event hidden from this seat (only game events
        // ever are), a new game.
        let moves = [played(), None, Some(TableEvent::Table(game_started()))];
        for moved in moves {
            let prompts = prompts_read_after(vec![prompt(10), event(11, moved.clone())]);
            assert!(prompts.is_empty(), "after {moved:?}");
            // A notice in between does not save it.
            let prompts =
                prompts_read_after(vec![prompt(10), notice(11, rated()), event(12, moved.clone())]);
            assert!(prompts.is_empty(), "after a rating, then {moved:?}");
        }
        // Nor does a snapshot (the server prompts again after sending one).
        let state = euchre_protocol::TableState {
            summary: euchre_protocol::TableSummary {
                table: TABLE.into(),
                host: "Ann".into(),
                preset: euchre_engine::Preset::Standard,
                rules: Rules::default(),
                private: false,
                seated: 4,
                status: euchre_protocol::TableStatus::Playing,
                turn_seconds: None,
                chat: true,
            },
            seats: Vec::new(),
            your_seat: Some(0),
            game: None,
            deal_commitment: None,
            actions: Vec::new(),
            rematch_vote: None,
            stood_in: None,
        };
        let snapshot = Update::Snapshot { table: TABLE.into(), seq: 11, state: Box::new(state) };
        assert!(prompts_read_after(vec![prompt(10), snapshot]).is_empty());
    }
}
