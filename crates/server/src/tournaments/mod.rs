//! Tournaments the server runs (docs/tournaments.md): one task, the
//! director, owns every tournament of this node. The HTTP API asks it to
//! create one, or to register or withdraw a player; on its own it starts a
//! tournament at its time, pairs each round with `euchre_tournament`, makes
//! the round's tables (a bot plays for a player who is not there), reads
//! each table's result from the history as the game ends, and pairs the next
//! round once the last table of the round is done.
//!
//! Every change is saved whole (`Write::Tournament`, through the journal,
//! before anyone is answered), so a restart picks each tournament up where
//! it was: the pairing of the round in play is derived again from the seed
//! and the results, and its tables, restored like any other, are the ones
//! saved with it, so no round is ever paired twice.

mod director;
mod doc;
mod view;

use std::collections::HashMap;
use std::sync::Arc;

use euchre_protocol::api::NewTournament;
use euchre_protocol::{PlayerInfo, ServerMessage, TableId};
use euchre_store::StoredTournament;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc, oneshot};

pub use director::run;
pub use doc::TournamentDoc;
pub use view::{summary_view, tournament_view};

/// Why the director refused a request: a code and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct Refused {
    pub code: String,
    pub message: String,
}

impl Refused {
    fn new(code: &str, message: impl Into<String>) -> Refused {
        Refused { code: code.to_owned(), message: message.into() }
    }

    pub fn not_running() -> Refused {
        Refused::new("not_running", "no such tournament, or it is over")
    }

    pub fn not_organiser() -> Refused {
        Refused::new("not_organiser", "only its organiser does that")
    }

    /// The director does not answer, or (in a cluster) the tournament's
    /// node does not, or it is moving to another node.
    pub fn unavailable() -> Refused {
        Refused::new("unavailable", "tournaments are not running; try again shortly")
    }
}

/// A request about one tournament: what the HTTP API asks, and what a node
/// of a cluster sends the node that runs the tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Registers `player` (entering with `rating`) until the start.
    Register { player: PlayerInfo, rating: f64 },
    /// Withdraws a registration until the start; after it, leaves.
    Withdraw { player_id: String },
    /// Starts it now rather than at its time: for its organiser.
    StartNow { organiser_id: String },
    /// What only its organiser does; `staff` when a moderator or admin
    /// asks, who may cancel any tournament and remove any player
    /// ([`Organise::moderated`]).
    Organise {
        organiser_id: String,
        act: Organise,
        #[serde(default)]
        staff: bool,
    },
    /// The tournament as the director holds it now (one not over).
    Current,
}

/// The director's answer to a [`Request`]: `Ok(Some(_))` only to `current`.
pub type Answer = Result<Option<StoredTournament>, Refused>;

/// What the director is asked to do.
#[derive(Debug)]
enum Command {
    Create {
        organiser: PlayerInfo,
        spec: NewTournament,
        reply: oneshot::Sender<Result<String, Refused>>,
    },
    /// A request about tournament `id`; `forwarded` when another node sent
    /// it here (answered here or not at all, never sent on again).
    Request { id: String, request: Request, forwarded: bool, reply: oneshot::Sender<Answer> },
    /// Tournaments of a shard this node has just taken over (in a
    /// cluster), as the shard's log and the store hold them.
    Adopt { tournaments: Vec<StoredTournament> },
}

/// What an organiser does to a tournament not over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "act", rename_all = "snake_case")]
pub enum Organise {
    /// No next round is seated until resumed (the round in play ends).
    Pause,
    Resume,
    /// Over: no more rounds; the tables in play finish as games.
    Cancel,
    /// Takes a player out: before the start, their entry; after, from the
    /// next round on (their results stand; in a team format their team
    /// withdraws).
    Remove {
        player_id: String,
    },
    /// Adds players, each with their rating: before the start, as entries;
    /// after it, until round two is seated, as late entries (a Swiss takes
    /// a team of two, a knockout none), starting on no points.
    AddLate {
        players: Vec<(PlayerInfo, f64)>,
    },
}

/// A round just seated: where it seats each player present at its start,
/// for their connections (on every node of a cluster).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundSeated {
    pub tournament: String,
    pub name: String,
    /// From 1.
    pub round: u32,
    /// Each player's table and seat (none for bots' seats, nor for players
    /// absent at the round's start).
    pub seats: HashMap<String, (TableId, u8)>,
}

impl RoundSeated {
    /// What a connection of `player_id` is told, if the round seats them.
    pub fn message_for(&self, player_id: &str) -> Option<ServerMessage> {
        let (table, seat) = self.seats.get(player_id)?;
        Some(ServerMessage::TournamentSeated {
            tournament: self.tournament.clone(),
            name: self.name.clone(),
            round: self.round,
            table: table.clone(),
            seat: *seat,
        })
    }
}

impl Organise {
    /// Whether a moderator may do it to any tournament: cancel it (a name
    /// or a purpose against the server's rules) or take a player out.
    pub fn moderated(&self) -> bool {
        matches!(self, Organise::Cancel | Organise::Remove { .. })
    }
}

/// The director's mailbox, and the rounds it seats: cheap to clone.
#[derive(Clone, Debug)]
pub struct Tournaments {
    tx: mpsc::Sender<Command>,
    mailbox: Arc<std::sync::Mutex<Option<mpsc::Receiver<Command>>>>,
    seated: broadcast::Sender<Arc<RoundSeated>>,
}

/// Rounds seated that a connection may fall behind by: rounds start
/// minutes apart, so one lagging this far has stopped reading anyway.
const SEATED_BACKLOG: usize = 16;

impl Default for Tournaments {
    fn default() -> Tournaments {
        let (tx, rx) = mpsc::channel(256);
        let (seated, _) = broadcast::channel(SEATED_BACKLOG);
        Tournaments { tx, mailbox: Arc::new(std::sync::Mutex::new(Some(rx))), seated }
    }
}

impl Tournaments {
    /// A new tournament organised by `organiser`: its id.
    pub async fn create(
        &self,
        organiser: PlayerInfo,
        spec: NewTournament,
    ) -> Result<String, Refused> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Command::Create { organiser, spec, reply })
            .await
            .map_err(|_| Refused::unavailable())?;
        answer.await.map_err(|_| Refused::unavailable())?
    }

    /// Registers `player` (entering with `rating`) until the start.
    pub async fn register(&self, id: &str, player: PlayerInfo, rating: f64) -> Result<(), Refused> {
        self.ask(id, Request::Register { player, rating }).await.map(drop)
    }

    /// Withdraws `player_id`'s registration until the start.
    pub async fn withdraw(&self, id: &str, player_id: &str) -> Result<(), Refused> {
        let player_id = player_id.to_owned();
        self.ask(id, Request::Withdraw { player_id }).await.map(drop)
    }

    /// Starts the tournament now rather than at its time: for its organiser.
    pub async fn start_now(&self, id: &str, organiser_id: &str) -> Result<(), Refused> {
        let organiser_id = organiser_id.to_owned();
        self.ask(id, Request::StartNow { organiser_id }).await.map(drop)
    }

    /// Does `act` for `organiser_id`, if they organise the tournament.
    pub async fn organise(
        &self,
        id: &str,
        organiser_id: &str,
        act: Organise,
    ) -> Result<(), Refused> {
        let organiser_id = organiser_id.to_owned();
        self.ask(id, Request::Organise { organiser_id, act, staff: false }).await.map(drop)
    }

    /// Does `act` for a moderator or admin, `staff_id`: what a moderator
    /// may do to any tournament ([`Organise::moderated`]), anything to
    /// their own.
    pub async fn moderate(&self, id: &str, staff_id: &str, act: Organise) -> Result<(), Refused> {
        let organiser_id = staff_id.to_owned();
        self.ask(id, Request::Organise { organiser_id, act, staff: true }).await.map(drop)
    }

    /// The tournament as its director holds it now, if it runs (here, or in
    /// a cluster on its node) and is not over: fresher than the store,
    /// which the journal feeds a moment later.
    pub async fn current(&self, id: &str) -> Option<TournamentDoc> {
        let stored = self.ask(id, Request::Current).await.ok()??;
        TournamentDoc::from_stored(&stored).ok()
    }

    /// Asks the director, which answers or (in a cluster) asks the
    /// tournament's node.
    async fn ask(&self, id: &str, request: Request) -> Answer {
        self.send(id, request, false).await
    }

    /// A request another node of a cluster sent: answered here, or refused
    /// if the tournament is not this node's.
    pub async fn answer_forwarded(&self, id: &str, request: Request) -> Answer {
        self.send(id, request, true).await
    }

    async fn send(&self, id: &str, request: Request, forwarded: bool) -> Answer {
        let (reply, answer) = oneshot::channel();
        let command = Command::Request { id: id.to_owned(), request, forwarded, reply };
        self.tx.send(command).await.map_err(|_| Refused::unavailable())?;
        answer.await.map_err(|_| Refused::unavailable())?
    }

    /// A cluster's node took a shard over: the director runs these
    /// tournaments of it from now on (the newest version of each).
    pub async fn adopt(&self, tournaments: Vec<StoredTournament>) {
        let _ = self.tx.send(Command::Adopt { tournaments }).await;
    }

    /// The rounds seated from now on (here, or in a cluster on any node):
    /// for a welcomed connection, which tells its player of theirs.
    pub fn seated(&self) -> broadcast::Receiver<Arc<RoundSeated>> {
        self.seated.subscribe()
    }

    /// Tells this node's connections of a round seated.
    pub fn announce(&self, round: Arc<RoundSeated>) {
        // Nobody connected: nobody to tell.
        let _ = self.seated.send(round);
    }

    fn take_mailbox(&self) -> Option<mpsc::Receiver<Command>> {
        self.mailbox.lock().ok().and_then(|mut mailbox| mailbox.take())
    }
}
