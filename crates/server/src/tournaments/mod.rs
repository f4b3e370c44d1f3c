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

use euchre_protocol::PlayerInfo;
use euchre_protocol::api::NewTournament;
use tokio::sync::{mpsc, oneshot};

pub use director::run;
pub use doc::TournamentDoc;
pub use view::{summary_view, tournament_view};

/// Why the director refused a request: a code and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refused {
    pub code: &'static str,
    pub message: String,
}

impl Refused {
    fn new(code: &'static str, message: impl Into<String>) -> Refused {
        Refused { code, message: message.into() }
    }

    pub fn not_running() -> Refused {
        Refused::new("not_running", "no such tournament, or it is over")
    }

    pub fn not_organiser() -> Refused {
        Refused::new("not_organiser", "only its organiser does that")
    }
}

/// What the director is asked to do.
#[derive(Debug)]
enum Command {
    Create {
        organiser: PlayerInfo,
        spec: NewTournament,
        reply: oneshot::Sender<Result<String, Refused>>,
    },
    Register {
        id: String,
        player: PlayerInfo,
        rating: f64,
        reply: oneshot::Sender<Result<(), Refused>>,
    },
    Withdraw {
        id: String,
        player_id: String,
        reply: oneshot::Sender<Result<(), Refused>>,
    },
    StartNow {
        id: String,
        organiser_id: String,
        reply: oneshot::Sender<Result<(), Refused>>,
    },
    /// What only its organiser does.
    Organise {
        id: String,
        organiser_id: String,
        act: Organise,
        reply: oneshot::Sender<Result<(), Refused>>,
    },
    /// The tournament as the director holds it now (one not over).
    Current {
        id: String,
        reply: oneshot::Sender<Option<TournamentDoc>>,
    },
}

/// What an organiser does to a tournament not over.
#[derive(Clone, Debug, PartialEq)]
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

/// The director's mailbox: cheap to clone.
#[derive(Clone, Debug)]
pub struct Tournaments {
    tx: mpsc::Sender<Command>,
    mailbox: std::sync::Arc<std::sync::Mutex<Option<mpsc::Receiver<Command>>>>,
}

impl Default for Tournaments {
    fn default() -> Tournaments {
        let (tx, rx) = mpsc::channel(256);
        Tournaments { tx, mailbox: std::sync::Arc::new(std::sync::Mutex::new(Some(rx))) }
    }
}

impl Tournaments {
    /// A new tournament organised by `organiser`: its id.
    pub async fn create(
        &self,
        organiser: PlayerInfo,
        spec: NewTournament,
    ) -> Result<String, Refused> {
        self.ask(|reply| Command::Create { organiser, spec, reply }).await
    }

    /// Registers `player` (entering with `rating`) until the start.
    pub async fn register(&self, id: &str, player: PlayerInfo, rating: f64) -> Result<(), Refused> {
        let id = id.to_owned();
        self.ask(|reply| Command::Register { id, player, rating, reply }).await
    }

    /// Withdraws `player_id`'s registration until the start.
    pub async fn withdraw(&self, id: &str, player_id: &str) -> Result<(), Refused> {
        let (id, player_id) = (id.to_owned(), player_id.to_owned());
        self.ask(|reply| Command::Withdraw { id, player_id, reply }).await
    }

    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<Result<T, Refused>>) -> Command,
    ) -> Result<T, Refused> {
        let busy = || Refused::new("unavailable", "tournaments are not running; try again shortly");
        let (reply, answer) = oneshot::channel();
        self.tx.send(command(reply)).await.map_err(|_| busy())?;
        answer.await.map_err(|_| busy())?
    }

    /// No director runs here: every request is answered `unavailable`.
    pub fn close(&self) {
        drop(self.take_mailbox());
    }

    /// Starts the tournament now rather than at its time: for its organiser.
    pub async fn start_now(&self, id: &str, organiser_id: &str) -> Result<(), Refused> {
        let (id, organiser_id) = (id.to_owned(), organiser_id.to_owned());
        self.ask(|reply| Command::StartNow { id, organiser_id, reply }).await
    }

    /// Does `act` for `organiser_id`, if they organise the tournament.
    pub async fn organise(
        &self,
        id: &str,
        organiser_id: &str,
        act: Organise,
    ) -> Result<(), Refused> {
        let (id, organiser_id) = (id.to_owned(), organiser_id.to_owned());
        self.ask(|reply| Command::Organise { id, organiser_id, act, reply }).await
    }

    /// The tournament as its director holds it now, if it runs here and is
    /// not over: fresher than the store, which the journal feeds a moment
    /// later.
    pub async fn current(&self, id: &str) -> Option<TournamentDoc> {
        let (reply, answer) = oneshot::channel();
        let id = id.to_owned();
        self.tx.send(Command::Current { id, reply }).await.ok()?;
        answer.await.ok().flatten()
    }

    fn take_mailbox(&self) -> Option<mpsc::Receiver<Command>> {
        self.mailbox.lock().ok().and_then(|mut mailbox| mailbox.take())
    }
}
