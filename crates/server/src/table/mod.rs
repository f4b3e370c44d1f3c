//! One table: an actor that owns its game alone.
//!
//! Connections talk to it through a bounded channel ([`TableHandle`]); it
//! answers through each connection's bounded [`Outbox`], never waiting on a
//! client. Every event gets the next `seq` and is kept in a ring for clients
//! that resume; each receiver gets its own projection of it.
//!
//! This file holds the actor's state, how it is made or restored, and its
//! loop; the rest of it is in its parts: `mailbox` (the handle and the
//! messages a table takes), `requests` (what a connection asks of it),
//! `game` (a game's start, its actions and their writes, its rating),
//! `views` (events numbered and projected for each receiver, snapshots,
//! prompts), `bots` (moves made for a seat, and when they are due) and
//! `delivery` (messages held until their writes are durable).

mod bots;
mod delivery;
mod game;
// Public so the registry, which keeps tables' handles, depends on the
// handle alone and not on the actor that reports to it.
pub mod mailbox;
mod requests;
mod views;

#[cfg(test)]
mod leak_audit;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use euchre_bots::{Bot, BotKind};
use euchre_engine::{Game, Rules, Seat, Viewer};
use euchre_protocol::{
    Occupant, PlayerInfo, StoodIn, TableEvent, TableId, TableSettings, TableStatus, TableSummary,
};
use euchre_store::durable::Durability;
use euchre_store::{CloseReason, LiveTable, TableHost, Write};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use self::bots::Decision;
use self::delivery::{Delivery, Kept, Outgoing};
pub use self::mailbox::{
    ConnId, Outbox, Request, TableCommand, TableConfig, TableHandle, TableMessage,
};
pub use self::views::project;
use crate::clock::now_ms;
use crate::registry::Registry;

/// How far a restored table's seq jumps past its last stored action.
const RESTORE_SEQ_GAP: u64 = 1 << 20;

#[derive(Debug)]
enum Sitter {
    Human(PlayerInfo),
    Bot(BotKind),
}

#[derive(Debug, Default)]
struct SeatState {
    sitter: Option<Sitter>,
    /// The bot playing this seat: its own, or one standing in for an absent player.
    bot: Option<Box<dyn Bot>>,
    /// When the seated player lost their last connection.
    away_since: Option<Instant>,
    /// A bot has played for the player, away past the grace, since this
    /// hand; until they act again.
    stood_in: Option<StoodIn>,
}

#[derive(Debug)]
struct Subscriber {
    viewer: Viewer,
    player_id: String,
    outbox: Outbox,
}

/// What a table is made as: its id, its host, the settings it was opened
/// with and what they resolve to, and its invite. [`Table::new`] makes the
/// table; [`Table::restore`] reads one back from storage.
#[derive(Debug)]
pub struct TableSpec {
    pub id: TableId,
    pub host: PlayerInfo,
    pub settings: TableSettings,
    /// The rules `settings` resolve to.
    pub rules: Rules,
    /// The bot for the bot seats `settings` names no bot for.
    pub bot_kind: BotKind,
    /// What lets a stranger sit at or watch a private table.
    pub invite: Option<String>,
}

/// Why a stored table cannot be brought back ([`Table::restore`]).
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("table {table}: settings: {error}")]
    Settings { table: TableId, error: serde_json::Error },
    /// The settings name rules the engine refuses.
    #[error("{0}")]
    Rules(#[from] euchre_protocol::SettingsError),
    #[error("table {table}: seats: {error}")]
    Seats { table: TableId, error: serde_json::Error },
    /// The game in progress does not replay.
    #[error("table {table}: game: {error}")]
    Game { table: TableId, error: euchre_engine::ReplayError },
}

/// The table actor's state.
#[derive(Debug)]
pub struct Table {
    id: TableId,
    host: PlayerInfo,
    settings: TableSettings,
    rules: Rules,
    bot_kind: BotKind,
    /// Seeds this table's bots, so random bots differ from table to table.
    bot_seed: u64,
    invite: Option<String>,
    config: TableConfig,
    registry: Registry,
    /// The summary last given to the registry: most actions change none of
    /// it, and then the registry's lock, which every table shares, is not taken.
    listed: Option<TableSummary>,
    /// Its own mailbox, where work it hands off (a game's rating) reports
    /// back; weak, so the table still stops once every handle is gone.
    mailbox: mpsc::WeakSender<TableMessage>,
    /// One per seat the rules have: 2, 3 or 4.
    seats: Vec<SeatState>,
    game: Option<Game>,
    games_started: u32,
    seq: u64,
    ring: VecDeque<(u64, TableEvent)>,
    subscribers: HashMap<ConnId, Subscriber>,
    /// When the last game action (or start) happened: bots and timers count from here.
    last_change: Instant,
    /// When the table last had no connection at all.
    empty_since: Option<Instant>,
    /// The stored id of the game in progress.
    match_id: Option<String>,
    /// The latest chat lines and their writers' ids, for the reports made
    /// here (`social::CHAT_KEPT` at most).
    chat_kept: VecDeque<(String, euchre_store::ChatLine)>,
    /// The players of the game in progress, by seat, when it is rated.
    rated_players: Option<Vec<String>>,
    /// The seats whose player forfeited the rated game in progress: away
    /// past the grace, or left it (see `ratings`).
    forfeits: Vec<bool>,
    /// By seat: the turns of the rated game in progress that the turn
    /// timer played, and the last one counted (so that a move asked of a
    /// bot twice counts once).
    timeouts: Vec<u32>,
    last_timeout: Option<(Seat, bots::Position)>,
    /// At a table without a host (quick play's): by seat, who asked for a
    /// rematch of the game just over, and when the others' time runs out.
    rematch_asked: Vec<bool>,
    rematch_deadline: Option<Instant>,
    /// Messages are held back until what caused them is durable.
    delivery: Delivery,
    /// Whether a search bot's decision is under way on the blocking pool.
    thinking: bool,
    /// Where the last hint was asked: one hint a decision, so that asking
    /// again cannot keep the blocking pool busy.
    hinted: Option<bots::Position>,
    /// The last hand reviewed (the game's number, the hand's): one review a
    /// hand, for the same reason.
    reviewed: Option<(u32, u32)>,
    /// Where decisions made on the blocking pool come back; set by
    /// [`Table::run`] (a table driven by hand decides on the spot).
    decisions: Option<mpsc::UnboundedSender<Decision>>,
}

impl Table {
    /// A new table made as `spec`, and the handle to reach it; run it with
    /// [`Table::run`]. It lists itself in `registry`, and keeps its writes
    /// in `durability` (`None`: nowhere, for tests).
    pub fn new(
        spec: TableSpec,
        config: TableConfig,
        registry: Registry,
        durability: Option<Arc<dyn Durability>>,
    ) -> (Table, TableHandle, mpsc::Receiver<TableMessage>) {
        let TableSpec { id, host, settings, rules, bot_kind, invite } = spec;
        let (tx, rx) = mpsc::channel(256);
        let mut table = Table {
            id: id.clone(),
            host,
            settings,
            rules,
            bot_kind,
            bot_seed: uuid::Uuid::new_v4().as_u64_pair().0,
            invite,
            config,
            registry,
            listed: None,
            mailbox: tx.downgrade(),
            seats: (0..rules.players).map(|_| SeatState::default()).collect(),
            game: None,
            games_started: 0,
            seq: 0,
            ring: VecDeque::new(),
            subscribers: HashMap::new(),
            last_change: Instant::now(),
            empty_since: Some(Instant::now()),
            match_id: None,
            chat_kept: VecDeque::new(),
            rated_players: None,
            forfeits: Vec::new(),
            timeouts: Vec::new(),
            last_timeout: None,
            rematch_asked: vec![false; usize::from(rules.players)],
            rematch_deadline: None,
            delivery: Delivery::new(durability),
            thinking: false,
            hinted: None,
            reviewed: None,
            decisions: None,
        };
        for seat in table.settings.bot_seats.clone() {
            let kind = table.settings.seat_bots.iter().find(|named| named.seat == seat);
            let kind = kind.and_then(|named| BotKind::from_name(&named.bot)).unwrap_or(bot_kind);
            if let Some(state) = table.seats.get_mut(usize::from(seat)) {
                state.sitter = Some(Sitter::Bot(kind));
                state.bot = Some(kind.create(table.bot_seed ^ u64::from(seat)));
            }
        }
        (table, TableHandle::new(id, tx), rx)
    }

    /// A table that was open when the server stopped, rebuilt from storage:
    /// its host, its settings, its seats (everybody away until they come back), and
    /// its game replayed to where it was.
    pub fn restore(
        live: LiveTable,
        config: TableConfig,
        registry: Registry,
        durability: Option<Arc<dyn Durability>>,
    ) -> Result<(Table, TableHandle, mpsc::Receiver<TableMessage>), RestoreError> {
        let settings: TableSettings = serde_json::from_value(live.settings)
            .map_err(|error| RestoreError::Settings { table: live.id.clone(), error })?;
        let rules = settings.resolve_rules().map_err(RestoreError::Rules)?;
        let bot_kind = BotKind::from_name(&settings.bot).unwrap_or(BotKind::Basic);
        let seats: Vec<Option<Occupant>> = serde_json::from_value(live.seats)
            .map_err(|error| RestoreError::Seats { table: live.id.clone(), error })?;
        let host = host_of(live.host, &seats);
        let spec = TableSpec { id: live.id, host, settings, rules, bot_kind, invite: live.invite };
        let (mut table, handle, rx) = Table::new(spec, config, registry, durability);
        let now = Instant::now();
        for (index, occupant) in seats.into_iter().enumerate().take(table.seats.len()) {
            table.seats[index] = match occupant {
                Some(Occupant::Player { player, .. }) => SeatState {
                    sitter: Some(Sitter::Human(player)),
                    bot: None,
                    away_since: Some(now),
                    stood_in: None,
                },
                Some(Occupant::Bot { bot }) => {
                    let kind = BotKind::from_name(&bot).unwrap_or(bot_kind);
                    SeatState {
                        sitter: Some(Sitter::Bot(kind)),
                        bot: Some(kind.create(table.bot_seed ^ index as u64)),
                        away_since: None,
                        stood_in: None,
                    }
                }
                None => SeatState::default(),
            };
        }
        if let Some(live_match) = live.game {
            let game = Game::replay(&live_match.record)
                .map_err(|error| RestoreError::Game { table: table.id.clone(), error })?;
            table.game = Some(game);
            table.match_id = Some(live_match.id);
            table.games_started = live_match.number;
            // Rated as it was when it started (a seat a leaver gave up to a
            // bot still counts), with the forfeits made before the restart.
            let players = live_match.seats.iter().map(|seat| seat.player_id.clone());
            table.rated_players = table.rated(players);
            table.forfeits = (0..table.seats.len())
                .map(|seat| live_match.forfeits.contains(&(seat as u8)))
                .collect();
            // Turns run out before the restart are not kept: each player
            // starts again from none.
            table.timeouts = vec![0; table.seats.len()];
            // Events after the last stored action (chat, presence) are gone:
            // jump the seq so that every client resumes from a snapshot.
            table.seq = live_match.last_seq + RESTORE_SEQ_GAP;
        }
        Ok((table, handle, rx))
    }

    pub fn summary(&self) -> TableSummary {
        TableSummary {
            table: self.id.clone(),
            host: self.host.name.clone(),
            preset: self.settings.preset,
            rules: self.rules,
            private: self.settings.private,
            seated: self.seated(),
            status: self.status(),
            turn_seconds: self.settings.turn_seconds,
            chat: self.settings.chat,
        }
    }

    /// Whether `listed` is this table's summary now: [`Table::summary`]
    /// compared field by field, without copying the id and the host's name
    /// (after every action, so no allocation).
    fn lists_as(&self, listed: &TableSummary) -> bool {
        // Destructured, so a new field cannot be left out of the comparison.
        let TableSummary {
            table,
            host,
            preset,
            rules,
            private,
            seated,
            status,
            turn_seconds,
            chat,
        } = listed;
        *table == self.id
            && *host == self.host.name
            && *preset == self.settings.preset
            && *rules == self.rules
            && *private == self.settings.private
            && *seated == self.seated()
            && *status == self.status()
            && *turn_seconds == self.settings.turn_seconds
            && *chat == self.settings.chat
    }

    /// Seats taken, by people or bots.
    fn seated(&self) -> u8 {
        self.seats.iter().filter(|s| s.sitter.is_some()).count() as u8
    }

    pub(super) fn status(&self) -> TableStatus {
        match &self.game {
            None => TableStatus::Open,
            Some(game) if game.is_over() => TableStatus::Finished,
            Some(_) => TableStatus::Playing,
        }
    }

    /// The actor's loop. It waits on five things: its mailbox (connections'
    /// commands and goodbyes, and the ratings of a game it finished), the
    /// journal's word that held messages may go, a bot's decision back from
    /// the blocking pool, its next timer (a move due, or closing when idle),
    /// and shutdown. It runs until every handle is gone, the table is
    /// abandoned, another node takes it over, or the server shuts down.
    pub async fn run(mut self, mut rx: mpsc::Receiver<TableMessage>, shutdown: CancellationToken) {
        let Some(mut durable) = self.delivery.durable_rx.take() else { return };
        let mut closed = false;
        let (decisions_tx, mut decisions) = mpsc::unbounded_channel();
        self.decisions = Some(decisions_tx);
        loop {
            let wake = self.next_wake();
            tokio::select! {
                message = rx.recv() => match message {
                    Some(message) => self.handle(message),
                    None => break,
                },
                Some(kept) = durable.recv() => match kept {
                    Kept::Released(ticket) => {
                        let ready = self.delivery.release(ticket);
                        self.deliver(ready);
                    }
                    Kept::Fenced => {
                        // Another node took the table over: what is held was
                        // never stored, so it is never sent.
                        tracing::warn!(table = %self.id, "another node owns this table now; stopping it here");
                        break;
                    }
                },
                Some(decision) = decisions.recv() => {
                    self.decided(decision);
                    self.end_step();
                }
                () = sleep_until(wake) => {
                    if !self.on_timer(Instant::now()) {
                        // Abandoned: the table is closed for good.
                        self.close_for_good(CloseReason::EveryoneLeft);
                        self.end_step();
                        closed = true;
                        break;
                    }
                }
                () = shutdown.cancelled() => break,
            }
        }
        if closed {
            self.registry.remove(&self.id);
        } else {
            // Stopped, not closed: in a cluster another node carries it on.
            self.registry.unload(&self.id);
        }
        tracing::debug!(table = %self.id, "table closed");
    }

    /// Journals the table's closing and why, with the match it leaves
    /// unfinished (which can no longer finish: abandoned).
    fn close_for_good(&mut self, reason: CloseReason) {
        let at = now_ms();
        let unfinished = match (&self.game, &self.match_id) {
            (Some(game), Some(id)) if !game.is_over() => Some(id.clone()),
            _ => None,
        };
        if let Some(match_id) = &unfinished {
            // Everyone is away by now: whoever was seated forfeits.
            let away: Vec<Seat> = (0..self.seats.len())
                .filter(|&i| self.seats[i].away_since.is_some())
                .map(|i| Seat(i as u8))
                .collect();
            for seat in away {
                self.forfeit(seat);
            }
            let scores = self.game.as_ref().map(|g| g.scores().as_slice().to_vec());
            self.rate(match_id, scores.unwrap_or_default(), None);
        }
        let id = self.id.clone();
        self.delivery.writes.push(Write::TableAbandoned { id: id.clone(), reason, unfinished, at });
        self.delivery.writes.push(Write::TableClosed { id, at });
    }

    /// The round clock's end: the hand in play is the game's last, in the
    /// game and in its stored rules (the record replays to that end).
    fn settle(&mut self) {
        let (Some(game), Some(match_id)) = (self.game.as_mut(), &self.match_id) else { return };
        if game.end_after_hand_in_play() {
            let rules = game.record().rules;
            self.delivery.writes.push(Write::MatchRules { match_id: match_id.clone(), rules });
        }
    }

    /// Handles one message.
    pub fn handle(&mut self, message: TableMessage) {
        match message {
            TableMessage::Command(command) => self.command(command),
            TableMessage::Disconnected { conn } => self.disconnected(conn),
            TableMessage::Begin => {
                if self.game.is_none() && self.seats.iter().all(|s| s.sitter.is_some()) {
                    self.begin_game();
                }
            }
            TableMessage::Settle => self.settle(),
            TableMessage::Rated(notice) => self.publish(TableEvent::Table(notice)),
            TableMessage::Unrated { match_id, notice } => {
                let playing = self.game.as_ref().is_some_and(|game| !game.is_over());
                if playing && self.match_id.as_deref() == Some(match_id.as_str()) {
                    self.publish(TableEvent::Table(notice));
                }
            }
        }
        self.touch_connections();
        self.end_step();
    }

    /// Sends (or holds until durable) what the last step produced.
    pub(super) fn end_step(&mut self) {
        // Dropping a slow receiver can publish a notice, which is a new step.
        for _ in 0..8 {
            let ready = self.delivery.finish_step(&self.id);
            if ready.is_empty() && self.delivery.staged.is_empty() {
                return;
            }
            self.deliver(ready);
            if self.delivery.staged.is_empty() && self.delivery.writes.is_empty() {
                return;
            }
        }
    }

    /// Sends messages; receivers too slow to take them are dropped.
    fn deliver(&mut self, messages: Vec<Outgoing>) {
        let mut too_slow = Vec::new();
        for (conn, outbox, message) in messages {
            if !outbox.send(message) && !too_slow.contains(&conn) {
                too_slow.push(conn);
            }
        }
        for conn in too_slow {
            self.disconnected(conn);
        }
    }

    fn touch_connections(&mut self) {
        if self.subscribers.is_empty() {
            self.empty_since.get_or_insert_with(Instant::now);
        } else {
            self.empty_since = None;
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Who a restored table's host is: for a table quick play formed, the
/// same nobody `AppState::create_pool_table` gives it; for a player the
/// store no longer has, their name as they sat, or else a placeholder.
fn host_of(host: TableHost, seats: &[Option<Occupant>]) -> PlayerInfo {
    match host {
        TableHost::QuickPlay => quick_play_host(),
        TableHost::Player { id, name } => {
            let seated = || {
                seats.iter().flatten().find_map(|occupant| match occupant {
                    Occupant::Player { player, .. } if player.id == id => Some(player.name.clone()),
                    _ => None,
                })
            };
            let name = name.or_else(seated).unwrap_or_else(|| FORMER_PLAYER.to_owned());
            PlayerInfo { id, name }
        }
    }
}

/// The name shown for a host whom the store no longer has.
const FORMER_PLAYER: &str = "a former player";

/// Whether `host` is [`quick_play_host`]: a table without a host.
fn hostless(host: &PlayerInfo) -> bool {
    host.id == euchre_store::QUICK_PLAY_HOST
}

/// The host of a tournament's table: its director, nobody who plays. The
/// table plays its game to the end with nobody connected, and offers no
/// rematch (the next round is the director's).
pub fn tournament_host() -> PlayerInfo {
    PlayerInfo { id: TOURNAMENT_HOST.to_owned(), name: "Tournament".to_owned() }
}

/// [`tournament_host`]'s id: not a UUID, so never a player's.
pub const TOURNAMENT_HOST: &str = "tournament";

/// The host of a table quick play formed: nobody who plays.
pub fn quick_play_host() -> PlayerInfo {
    PlayerInfo { id: euchre_store::QUICK_PLAY_HOST.to_owned(), name: "Quick play".to_owned() }
}
