//! The application's state and its reducer: [`App::update`] takes one
//! message (an update from the server, a key, the outcome of a request) and
//! returns the requests to make. No I/O here: `main.rs` carries the requests
//! out and feeds their outcomes back; `ui/` draws the state.
//!
//! This file holds the state, the server's updates and the requests'
//! outcomes; `keys.rs` holds what each screen does with a key.

mod keys;

use std::time::{Duration, Instant};

use euchre_client::{CreatedTable, Error, Update};
use euchre_engine::fairness::Verdict;
use euchre_engine::{Action, GameRecord};
use euchre_protocol::api::{GameAnalysis, MatchList, MatchSummaryView};
use euchre_protocol::{
    LobbyFilter, LobbyPage, LobbyQuery, QuickPlayRequest, TableEvent, TableId, TableNotice,
    TableSettings, TableStatus, TableSummary,
};
use ratatui::crossterm::event::KeyEvent;

pub use crate::form::CreateForm;
use crate::invite;
use crate::quick::{QuickForm, Searching};
use crate::seal;
use crate::table::TableModel;

/// What the app is showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    Lobby,
    Create,
    /// The quick-play form: a game with strangers.
    QuickPlay,
    Join,
    Table,
    /// The player's matches (the HTTP API).
    History,
    /// A finished match, hand by hand.
    Replay,
}

/// A finished match being replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub id: String,
    /// Seat `i`'s name.
    pub names: Vec<String>,
    pub record: GameRecord,
    /// The hand shown (an index into `record.hands`).
    pub hand: usize,
    /// The solver's analysis, once the server has it.
    pub analysis: Option<GameAnalysis>,
}

/// The connection as the user should know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Connection {
    Online,
    Reconnecting(String),
    Closed(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusKind {
    Info,
    Error,
}

/// The line at the bottom: the latest news or error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub kind: StatusKind,
}

/// A request for `main.rs` to make.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A page of the lobby (the first one: `after` none).
    ListTables(LobbyQuery),
    Create(TableSettings),
    /// Sit down (the first free seat for `None`); `or_watch`: a full table
    /// is watched instead.
    Sit {
        table: TableId,
        seat: Option<u8>,
        invite: Option<String>,
        or_watch: bool,
    },
    Watch {
        table: TableId,
        invite: Option<String>,
    },
    Leave(TableId),
    Start(TableId),
    Rematch(TableId),
    Act(TableId, Action),
    Chat(TableId, String),
    /// Ask for a game with strangers.
    QuickPlay(QuickPlayRequest),
    /// End the quick-play request.
    CancelQuickPlay,
    /// The player's latest matches, from the HTTP API.
    ListMatches,
    /// The page of matches after this cursor (a page's `next_cursor`).
    MoreMatches(String),
    /// A finished match's record, to replay.
    FetchRecord(String),
    /// A finished match's analysis, asked for again while it is computed.
    FetchAnalysis(String),
}

impl Command {
    fn what(&self) -> &'static str {
        match self {
            Command::ListTables(_) => "Listing tables",
            Command::Create(_) => "Creating the table",
            Command::Sit { .. } => "Sitting down",
            Command::Watch { .. } => "Watching",
            Command::Leave(_) => "Leaving",
            Command::Start(_) => "Starting",
            Command::Rematch(_) => "The rematch",
            Command::Act(..) => "That move",
            Command::Chat(..) => "Chat",
            Command::QuickPlay(_) => "Quick play",
            Command::CancelQuickPlay => "Cancelling quick play",
            Command::ListMatches => "Listing your matches",
            Command::MoreMatches(_) => "Listing more of your matches",
            Command::FetchRecord(_) => "Loading the match",
            Command::FetchAnalysis(_) => "The analysis",
        }
    }
}

/// How a request went.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Listed(LobbyPage),
    Created(CreatedTable),
    Seated {
        table: TableId,
        seat: u8,
    },
    Watching(TableId),
    /// The quick-play request waits in its pool; `team` is the code to
    /// pass on to the partner it invites.
    Queued {
        team: Option<String>,
    },
    /// Leave, start, rematch, act, chat or cancelling quick play, done.
    Done(Command),
    Failed(Command, Error),
    /// The first page of the player's matches.
    Matches(MatchList),
    /// A later page, to add at the end.
    MoreMatches(MatchList),
    Record(String, GameRecord),
    /// A match's analysis, by its id.
    Analysis(String, Box<GameAnalysis>),
    /// An HTTP request failed, with what went wrong in words (the error
    /// itself is not `Clone`, as every outcome is).
    HttpFailed(Command, String),
}

/// Everything the reducer reacts to.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Update(Update),
    Key(KeyEvent),
    Done(Outcome),
    /// The time now: `main.rs` sends it before every other message, and
    /// every quarter second while a turn timer runs, so that the reducer
    /// and the drawing need no clock of their own.
    Tick(Instant),
}

#[derive(Clone, Debug)]
pub struct App {
    /// The WebSocket address, to show and to build invite links from.
    pub server: String,
    pub name: String,
    /// The player's id, for the match history.
    pub player_id: String,
    pub screen: Screen,
    /// The lobby's tables listed so far, in the order of their ids: its
    /// first pages, kept current by the server's updates.
    pub lobby: Vec<TableSummary>,
    /// The live tables where the player holds a seat, as the last first
    /// page listed them: shown first, Enter resumes.
    pub yours: Vec<TableSummary>,
    /// The selected row of [`App::lobby_rows`].
    pub lobby_selected: usize,
    /// Open tables with a free seat only (`f` shows every table).
    pub lobby_open_only: bool,
    /// How many tables match the filter, as of the last page and the
    /// updates since.
    pub lobby_total: u64,
    /// Where the lobby's next page starts, if there is one.
    pub lobby_next: Option<TableId>,
    /// A page of the lobby is being fetched.
    pub lobby_loading: bool,
    pub history: Vec<MatchSummaryView>,
    /// The selected row of the history: the player's live tables
    /// ([`App::yours`]) come first, then the matches.
    pub history_selected: usize,
    /// Where the next page of the history starts, if there is one.
    pub history_next: Option<String>,
    /// A page of the history is being fetched.
    pub history_loading: bool,
    pub replay: Option<Replay>,
    pub create: CreateForm,
    pub quick: QuickForm,
    /// The quick-play request, while it waits for a table.
    pub searching: Option<Searching>,
    pub join_input: String,
    /// The table followed (one at a time).
    pub table: Option<TableModel>,
    /// The invite code of the table followed, when it is private.
    pub invite: Option<String>,
    /// Which of the prompt's actions is picked.
    pub selected: usize,
    /// The chat line being typed, while open.
    pub chat_input: Option<String>,
    pub status: Option<Status>,
    pub connection: Connection,
    /// The time as of the last [`Msg::Tick`].
    pub now: Instant,
    /// When the table's turn timer plays for this client (the prompt's
    /// `deadline_ms` after it came), while it is this client's turn.
    pub turn_deadline: Option<Instant>,
    /// An action is in flight: no other is sent until it is answered.
    pub acting: bool,
    /// The prompt the action in flight came from (with the table's
    /// `moved_at` then), offered again if the server refuses it (a refusal
    /// changes nothing, so no new prompt comes).
    sent_from: Option<(TableId, u64, Vec<Action>)>,
    pub quit: bool,
}

impl App {
    pub fn new(server: impl Into<String>, name: impl Into<String>) -> App {
        App {
            server: server.into(),
            name: name.into(),
            player_id: String::new(),
            screen: Screen::Lobby,
            lobby: Vec::new(),
            yours: Vec::new(),
            lobby_selected: 0,
            lobby_open_only: true,
            lobby_total: 0,
            lobby_next: None,
            lobby_loading: false,
            history: Vec::new(),
            history_selected: 0,
            history_next: None,
            history_loading: false,
            replay: None,
            create: CreateForm::default(),
            quick: QuickForm::default(),
            searching: None,
            join_input: String::new(),
            table: None,
            invite: None,
            selected: 0,
            chat_input: None,
            status: None,
            connection: Connection::Online,
            now: Instant::now(),
            turn_deadline: None,
            acting: false,
            sent_from: None,
            quit: false,
        }
    }

    /// The requests to make when the app starts.
    pub fn start(&self) -> Vec<Command> {
        vec![self.list_tables(None)]
    }

    /// The lobby's filter: open tables with a free seat, or every one.
    pub fn lobby_filter(&self) -> LobbyFilter {
        if self.lobby_open_only {
            LobbyFilter { status: Some(TableStatus::Open), free_seat: true, preset: None }
        } else {
            LobbyFilter::default()
        }
    }

    /// The lobby's page after `after` (the first page for `None`).
    fn list_tables(&self, after: Option<TableId>) -> Command {
        Command::ListTables(LobbyQuery { filter: self.lobby_filter(), limit: None, after })
    }

    fn info(&mut self, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), kind: StatusKind::Info });
    }

    fn error(&mut self, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), kind: StatusKind::Error });
    }

    /// The legal actions on offer now, if it is this client's turn.
    pub fn actions(&self) -> &[Action] {
        self.table.as_ref().and_then(|table| table.prompt.as_deref()).unwrap_or_default()
    }

    /// The invite link of the table followed, as the browser client makes it.
    pub fn invite_link(&self) -> Option<String> {
        let table = self.table.as_ref()?;
        let code = self.invite.as_deref()?;
        Some(invite::link(&self.server, &table.id, code))
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Command> {
        match msg {
            Msg::Update(update) => self.on_update(update),
            Msg::Key(key) => self.on_key(key),
            Msg::Done(outcome) => self.on_outcome(outcome),
            Msg::Tick(now) => {
                self.now = now;
                Vec::new()
            }
        }
    }

    /// Whether the screen shows a clock that needs a tick every so often:
    /// a turn timer, or the time a quick-play request has waited.
    pub fn ticking(&self) -> bool {
        self.time_left().is_some() || self.searching.is_some()
    }

    /// The time left to act before a bot acts for this client, while its
    /// turn is timed.
    pub fn time_left(&self) -> Option<Duration> {
        if self.actions().is_empty() {
            return None;
        }
        self.turn_deadline.map(|deadline| deadline.saturating_duration_since(self.now))
    }

    fn on_update(&mut self, update: Update) -> Vec<Command> {
        match update {
            Update::Snapshot { table, seq, state } => {
                // A snapshot's actions come without a deadline: the prompt
                // the server sends after it brings that.
                self.turn_deadline = None;
                match self.table.as_mut() {
                    Some(model) if model.id == table => model.replace(seq, *state),
                    _ => {
                        self.table = Some(TableModel::from_snapshot(table, seq, *state));
                        self.selected = 0;
                        self.screen = Screen::Table;
                    }
                }
            }
            Update::Event { table, seq, event } => {
                if let Some(model) = self.table.as_mut().filter(|model| model.id == table) {
                    let fresh = seq > model.seq;
                    let notice = match &event {
                        Some(TableEvent::Table(notice)) if fresh => Some(notice.clone()),
                        _ => None,
                    };
                    model.apply(seq, event);
                    match notice {
                        Some(TableNotice::Rated { .. }) => {
                            let news = match model.your_rating() {
                                Some(mine) => format!(
                                    "Rated: your rating is now {} ({}).",
                                    mine.rating,
                                    signed(mine.change)
                                ),
                                None => "The game was rated.".to_owned(),
                            };
                            self.info(news);
                        }
                        Some(TableNotice::DealRevealed { .. }) => {
                            let news = model.deals.checked().and_then(|(hand, verdict)| {
                                seal::news(*hand, verdict).map(|news| (news, verdict))
                            });
                            match news {
                                Some((news, Verdict::Mismatch(_))) => self.error(news),
                                Some((news, _)) => self.info(news),
                                None => {}
                            }
                        }
                        _ if model.finished() => self.info("Game over."),
                        _ => {}
                    }
                }
            }
            Update::YourTurn { table, actions, deadline_ms, .. } => {
                if let Some(model) = self.table.as_mut().filter(|model| model.id == table) {
                    model.prompt = Some(actions);
                    self.selected = 0;
                    self.turn_deadline = deadline_ms.map(|ms| self.now + Duration::from_millis(ms));
                }
            }
            Update::Lobby(page) => self.add_page(page),
            Update::LobbyUpdate(summary) => {
                // Past the pages listed: it comes with a later page.
                if self.lobby_next.as_ref().is_some_and(|next| summary.table > *next) {
                    return Vec::new();
                }
                if self.list_in_lobby(summary) {
                    self.lobby_total += 1;
                }
            }
            Update::LobbyYours(tables) => {
                let picked = self.history_selected.checked_sub(self.yours.len());
                self.yours = tables;
                // The same match stays picked in the history below them.
                if let Some(row) = picked {
                    self.history_selected = self.yours.len() + row;
                }
            }
            Update::LobbyRemoved(table) => {
                if let Some(gone) = self.yours.iter().position(|t| t.table == table) {
                    self.yours.remove(gone);
                    // The history's rows below it move up: the same one stays picked.
                    if gone < self.history_selected {
                        self.history_selected -= 1;
                    }
                }
                if let Ok(known) = self.lobby.binary_search_by(|known| known.table.cmp(&table)) {
                    self.lobby.remove(known);
                    self.lobby_total = self.lobby_total.saturating_sub(1);
                    self.clamp_lobby();
                }
            }
            Update::ServerShutdown { reconnect_after_ms } => {
                let seconds = reconnect_after_ms.div_ceil(1000);
                self.connection =
                    Connection::Reconnecting(format!("the server is restarting ({seconds} s)"));
            }
            Update::Disconnected { reason } => self.connection = Connection::Reconnecting(reason),
            Update::Reconnected => {
                self.connection = Connection::Online;
                self.info("Reconnected: the game goes on.");
            }
            Update::TableLost { table, message, .. } => {
                if self.table.as_ref().is_some_and(|model| model.id == table) {
                    self.leave_table();
                    self.error(format!("Table {table} is gone: {message}"));
                    return vec![self.list_tables(None)];
                }
            }
            Update::QuickPlayWaiting { preset, rated, waiting, partner } => {
                if let Some(searching) =
                    self.searching.as_mut().filter(|searching| searching.is_for(preset, rated))
                {
                    (searching.preset, searching.rated, searching.unknown) = (preset, rated, false);
                    searching.waiting = Some(waiting);
                    if let Some(partner) = partner {
                        searching.partner = Some(partner.name);
                    }
                }
            }
            Update::QuickPlayMatched { table, seat } => {
                // The table's snapshot follows and opens it.
                self.searching = None;
                self.invite = None;
                self.info(format!("Matched: table {table}, seat {seat}."));
            }
            Update::QuickPlayEnded { message, .. } => {
                self.searching = None;
                self.error(format!("Quick play ended: {message}"));
            }
            Update::ServerError { code, message } => {
                self.error(format!("Server error ({code}): {message}"))
            }
            Update::Closed { reason } => self.connection = Connection::Closed(reason),
        }
        Vec::new()
    }

    /// A first page replaces the list; a later one adds to it (the
    /// updates may have brought some of its tables already).
    fn add_page(&mut self, page: LobbyPage) {
        if page.after.is_none() {
            self.lobby.clear();
            self.yours = page.yours;
        }
        for summary in page.tables {
            self.list_in_lobby(summary);
        }
        self.lobby_total = page.total;
        self.lobby_next = page.next;
        self.lobby_loading = false;
        self.clamp_lobby();
    }

    /// `summary` in its place in the lobby (the list is in id order), in
    /// place of the one listed with its id; whether it is new to the list.
    fn list_in_lobby(&mut self, summary: TableSummary) -> bool {
        match self.lobby.binary_search_by(|known| known.table.cmp(&summary.table)) {
            Ok(known) => {
                self.lobby[known] = summary;
                false
            }
            Err(at) => {
                self.lobby.insert(at, summary);
                true
            }
        }
    }

    fn clamp_lobby(&mut self) {
        self.lobby_selected = self.lobby_selected.min(self.lobby_rows().len().saturating_sub(1));
    }

    /// The lobby's rows: the player's own tables first, then the public
    /// ones listed (without those already shown as theirs).
    pub fn lobby_rows(&self) -> Vec<&TableSummary> {
        let listed = self.lobby.iter().filter(|t| !self.is_yours(&t.table));
        self.yours.iter().chain(listed).collect()
    }

    /// Whether the player holds a seat at `table`, as the lobby said.
    pub fn is_yours(&self, table: &str) -> bool {
        self.yours.iter().any(|t| t.table == table)
    }

    fn leave_table(&mut self) {
        self.table = None;
        self.invite = None;
        self.chat_input = None;
        self.acting = false;
        self.sent_from = None;
        self.screen = Screen::Lobby;
    }

    fn on_outcome(&mut self, outcome: Outcome) -> Vec<Command> {
        match outcome {
            Outcome::Listed(page) => self.add_page(page),
            Outcome::Created(CreatedTable { table, invite }) => {
                self.invite = invite.clone();
                self.info(format!("Table {table} created."));
                return vec![Command::Sit { table, seat: Some(0), invite, or_watch: false }];
            }
            Outcome::Seated { table, seat } => {
                self.info(format!("Seated at table {table}, seat {seat}."));
            }
            Outcome::Watching(table) => self.info(format!("Watching table {table}.")),
            Outcome::Done(Command::Act(..)) => {
                self.acting = false;
                self.sent_from = None;
            }
            Outcome::Done(Command::Leave(_)) => {}
            Outcome::Queued { team } => {
                if let Some(searching) = self.searching.as_mut() {
                    searching.queued = true;
                    searching.team = team;
                }
            }
            Outcome::Done(Command::CancelQuickPlay) => {
                self.searching = None;
                self.info("Quick play cancelled.");
            }
            Outcome::Done(Command::Start(_) | Command::Rematch(_)) => self.info("A new game."),
            Outcome::Done(_) => {}
            Outcome::Matches(page) => {
                self.history = page.matches;
                self.history_next = page.next_cursor;
                self.history_selected = 0;
                self.history_loading = false;
                if self.history.is_empty() {
                    self.info("No matches yet.");
                }
            }
            Outcome::MoreMatches(page) => {
                self.history.extend(page.matches);
                self.history_next = page.next_cursor;
                self.history_loading = false;
                // Down again: the first of the new ones.
                let last = (self.yours.len() + self.history.len()).saturating_sub(1);
                self.history_selected = (self.history_selected + 1).min(last);
            }
            Outcome::Record(id, record) => {
                let names = self
                    .history
                    .iter()
                    .find(|row| row.id == id)
                    .map(|row| {
                        let mut names = vec![String::new(); usize::from(record.rules.players)];
                        for seat in &row.seats {
                            if let Some(name) = names.get_mut(usize::from(seat.seat)) {
                                name.clone_from(&seat.name);
                            }
                        }
                        // Bots share a name: their seat tells them apart.
                        let shared: Vec<bool> = names
                            .iter()
                            .map(|name| names.iter().filter(|other| *other == name).count() > 1)
                            .collect();
                        names
                            .iter()
                            .zip(shared)
                            .enumerate()
                            .map(
                                |(seat, (name, shared))| {
                                    if shared { format!("{name} {seat}") } else { name.clone() }
                                },
                            )
                            .collect()
                    })
                    .unwrap_or_default();
                self.replay =
                    Some(Replay { id: id.clone(), names, record, hand: 0, analysis: None });
                self.screen = Screen::Replay;
                self.status = None;
                return vec![Command::FetchAnalysis(id)];
            }
            Outcome::Analysis(id, analysis) => {
                // Only for the match still shown.
                if let Some(replay) = self.replay.as_mut().filter(|replay| replay.id == id) {
                    replay.analysis = Some(*analysis);
                }
            }
            Outcome::HttpFailed(command, error) => {
                if let Command::ListMatches | Command::MoreMatches(_) = command {
                    self.history_loading = false;
                }
                self.error(format!("{} failed: {error}", command.what()))
            }
            Outcome::Failed(command, error) => {
                if let Command::ListTables(_) = command {
                    self.lobby_loading = false;
                }
                if let Command::Act(..) = command {
                    self.acting = false;
                    // Only if nothing has happened since: else a fresh prompt comes.
                    if let (Some((id, seq, actions)), Some(model)) =
                        (self.sent_from.take(), self.table.as_mut())
                        && model.id == id
                        && model.moved_at == seq
                        && model.prompt.is_none()
                    {
                        model.prompt = Some(actions);
                    }
                }
                if let Command::QuickPlay(_) = command {
                    self.searching = None;
                    if error.code() == Some("already_queued") {
                        // From before a restart, or another terminal: shown, so x cancels it.
                        self.searching = Some(Searching::already_waiting(self.now));
                        self.error(format!(
                            "{}: x cancels it to ask for another.",
                            describe(&error)
                        ));
                        return Vec::new();
                    }
                }
                if let (Command::CancelQuickPlay, Some("not_queued")) = (&command, error.code()) {
                    // Matched or ended meanwhile: nothing waits any more.
                    self.searching = None;
                }
                if let Command::Sit { table, invite, or_watch: true, .. } = &command
                    && matches!(error.code(), Some("table_full" | "game_in_progress"))
                {
                    self.info(format!("Table {table} is full: watching it."));
                    return vec![Command::Watch { table: table.clone(), invite: invite.clone() }];
                }
                self.error(format!("{} failed: {}", command.what(), describe(&error)));
            }
        }
        Vec::new()
    }
}

/// A rating change as shown: "+12", "−8", "±0".
pub fn signed(change: i32) -> String {
    match change {
        0 => "±0".to_owned(),
        change if change > 0 => format!("+{change}"),
        change => format!("−{}", change.unsigned_abs()),
    }
}

/// An error as the user should read it.
pub fn describe(error: &Error) -> String {
    match error {
        Error::Refused { message, .. } => message.clone(),
        other => other.to_string(),
    }
}
