//! The application's state and its reducer: [`App::update`] takes one
//! message (an update from the server, a key, the outcome of a request) and
//! returns the requests to make. No I/O here: `main.rs` carries the requests
//! out and feeds their outcomes back; `ui/` draws the state.
//!
//! This file holds the state, the server's updates and the requests'
//! outcomes; `keys.rs` holds what each screen does with a key.

mod keys;

use std::time::{Duration, Instant};

use euchre_client::{CreatedTable, Error, Hint, Review, Update};
use euchre_engine::fairness::Verdict;
use euchre_engine::{Action, Event, GameRecord};
use euchre_protocol::api::{
    GameAnalysis, MatchList, MatchSummaryView, PuzzleVerdict, PuzzleView, TournamentList,
    TournamentSummaryView, TournamentView,
};
use euchre_protocol::{
    LobbyFilter, LobbyPage, LobbyQuery, PlayerInfo, QuickPlayRequest, ReportReason, ReviewedChoice,
    TableEvent, TableId, TableNotice, TableSettings, TableStatus, TableSummary,
};
use ratatui::crossterm::event::KeyEvent;

pub use crate::form::CreateForm;
use crate::invite;
use crate::puzzle::{PuzzleModel, Solved, Source};
use crate::quick::{QuickForm, Searching};
use crate::seal;
use crate::table::TableModel;
use crate::tournament;

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
    /// The puzzle trainer: one puzzle, then its solution.
    Puzzle,
    /// The tournaments registering and running.
    Tournaments,
    /// One tournament: its entries, standings and the round in play.
    Tournament,
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
    /// Hide a player's chat (`on`), or show it again.
    Mute {
        player: PlayerInfo,
        on: bool,
    },
    /// Block a player (`on`), or unblock them.
    Block {
        player: PlayerInfo,
        on: bool,
    },
    /// Report a player seen at `table`.
    Report {
        table: TableId,
        player: PlayerInfo,
        reason: ReportReason,
        details: String,
    },
    /// Ask for a game with strangers.
    QuickPlay(QuickPlayRequest),
    /// End the quick-play request.
    CancelQuickPlay,
    /// A moderator's warning was shown: not to be sent again.
    AcknowledgeWarning(i64),
    /// The player's latest matches, from the HTTP API.
    ListMatches,
    /// The page of matches after this cursor (a page's `next_cursor`).
    MoreMatches(String),
    /// A finished match's record, to replay.
    FetchRecord(String),
    /// A finished match's analysis, asked for again while it is computed.
    FetchAnalysis(String),
    /// A puzzle: the next for this player, or the day's.
    FetchPuzzle(Source),
    /// Answers puzzle `id` with one of its options.
    AnswerPuzzle {
        id: i64,
        action: Action,
    },
    /// What the expert bot would do in this seat now (practice tables).
    Hint(TableId),
    /// This seat's biggest mistake in finished hand `hand` (from 0) of the
    /// game in play (practice tables, with "review each hand" on).
    Review {
        table: TableId,
        hand: u32,
    },
    /// The tournaments listed.
    ListTournaments,
    /// One tournament, in full.
    FetchTournament(String),
    /// Registers for a tournament.
    Register(String),
    /// Withdraws from one.
    Withdraw(String),
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
            Command::Mute { .. } => "Muting",
            Command::Block { .. } => "Blocking",
            Command::Report { .. } => "Reporting",
            Command::QuickPlay(_) => "Quick play",
            Command::CancelQuickPlay => "Cancelling quick play",
            Command::AcknowledgeWarning(_) => "Acknowledging the warning",
            Command::ListMatches => "Listing your matches",
            Command::MoreMatches(_) => "Listing more of your matches",
            Command::FetchRecord(_) => "Loading the match",
            Command::FetchAnalysis(_) => "The analysis",
            Command::FetchPuzzle(_) => "Fetching a puzzle",
            Command::AnswerPuzzle { .. } => "Answering the puzzle",
            Command::Hint(_) => "The hint",
            Command::Review { .. } => "The review",
            Command::ListTournaments => "Listing the tournaments",
            Command::FetchTournament(_) => "Loading the tournament",
            Command::Register(_) => "Registering",
            Command::Withdraw(_) => "Withdrawing",
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
    Puzzle(Box<PuzzleView>, Source),
    /// The verdict on the answer `action` to puzzle `id`.
    Verdict {
        id: i64,
        action: Action,
        verdict: Box<PuzzleVerdict>,
    },
    Hint(Hint),
    Review(Review),
    Tournaments(TournamentList),
    Tournament(Box<TournamentView>),
    /// Registered in tournament `id` (`entered`), or withdrawn.
    Entry {
        id: String,
        entered: bool,
    },
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
    /// The hint for the decision in front of the player, shown until they act.
    pub hint: Option<ShownHint>,
    /// A hint was asked for and has not come yet: the table's `moved_at`
    /// then, the decision it is for.
    pub hint_asked: Option<u64>,
    /// "Review each hand" (`v` at a practice table): when a hand ends
    /// there, the server is asked for the player's biggest mistake in it.
    /// Off until turned on; it holds for every practice table this run.
    pub review_each_hand: bool,
    /// The last hand's review, shown for [`REVIEW_SHOWN`] or until a key.
    pub review: Option<ShownReview>,
    /// The puzzle on screen.
    pub puzzle: Option<PuzzleModel>,
    /// A puzzle is being fetched.
    pub puzzle_loading: bool,
    pub tournaments: Vec<TournamentSummaryView>,
    pub tournaments_selected: usize,
    /// The tournament shown, as last fetched.
    pub tournament: Option<TournamentView>,
    /// When the tournament shown was last asked for: it is asked again
    /// every [`TOURNAMENT_POLL`] while shown, as the browser's page polls.
    tournament_asked: Option<Instant>,
    /// The tournament table the player was last told of, told once.
    tournament_table_told: Option<String>,
    pub quit: bool,
}

/// How often the tournament shown is fetched again.
pub const TOURNAMENT_POLL: Duration = Duration::from_secs(3);

/// How long a hand's review stays on screen, unless a key dismisses it.
pub const REVIEW_SHOWN: Duration = Duration::from_secs(8);

/// A finished hand's review, as the server gave it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownReview {
    pub table: TableId,
    /// The hand, from 0.
    pub hand: u32,
    /// The biggest mistake, or `None`: no choice cost a quarter of a point.
    pub mistake: Option<ReviewedChoice>,
    /// When it came.
    pub since: Instant,
}

/// The expert bot's choice for the decision the player faces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownHint {
    pub table: TableId,
    /// The table's `moved_at` when it came: it stands until the game moves.
    pub moved_at: u64,
    pub action: Action,
    pub why: String,
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
            hint: None,
            hint_asked: None,
            review_each_hand: false,
            review: None,
            puzzle: None,
            puzzle_loading: false,
            tournaments: Vec::new(),
            tournaments_selected: 0,
            tournament: None,
            tournament_asked: None,
            tournament_table_told: None,
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
                if self.review.as_ref().is_some_and(|shown| !self.review_fresh(shown)) {
                    self.review = None;
                }
                self.poll_tournament()
            }
        }
    }

    /// The tournament shown, asked for again once [`TOURNAMENT_POLL`] has
    /// passed since the last time.
    fn poll_tournament(&mut self) -> Vec<Command> {
        let Some(view) = self.tournament.as_ref().filter(|_| self.screen == Screen::Tournament)
        else {
            return Vec::new();
        };
        let due = self
            .tournament_asked
            .is_none_or(|asked| self.now.saturating_duration_since(asked) >= TOURNAMENT_POLL);
        if !due || matches!(view.status.as_str(), "finished" | "cancelled") {
            return Vec::new();
        }
        self.tournament_asked = Some(self.now);
        vec![Command::FetchTournament(view.id.clone())]
    }

    /// The hint for the decision the player faces now, if one was given.
    pub fn current_hint(&self) -> Option<&ShownHint> {
        let table = self.table.as_ref()?;
        let hint = self.hint.as_ref()?;
        let current = hint.table == table.id && hint.moved_at == table.moved_at;
        (current && !self.actions().is_empty()).then_some(hint)
    }

    /// Whether a hint can be asked for here: a practice table (every other
    /// seat a bot, so never rated, and not a tournament's) at the player's
    /// turn. The server has the last word; this only decides what the help
    /// line offers.
    pub fn hint_offered(&self) -> bool {
        self.table.as_ref().is_some_and(TableModel::practice) && !self.actions().is_empty()
    }

    /// Whether "review each hand" can be turned on or off here: at a
    /// practice table, as a hint can be asked for.
    pub fn review_offered(&self) -> bool {
        self.table.as_ref().is_some_and(TableModel::practice)
    }

    /// The review to show now: the table's, for [`REVIEW_SHOWN`] after it came.
    pub fn current_review(&self) -> Option<&ShownReview> {
        let table = self.table.as_ref()?;
        let shown = self.review.as_ref()?;
        (shown.table == table.id && self.review_fresh(shown)).then_some(shown)
    }

    fn review_fresh(&self, shown: &ShownReview) -> bool {
        self.now.saturating_duration_since(shown.since) < REVIEW_SHOWN
    }

    /// Whether the screen needs a tick every so often: a turn timer, the
    /// time a quick-play request has waited, a review to take down, or a
    /// tournament's page (the ticks fetch it again).
    pub fn ticking(&self) -> bool {
        self.time_left().is_some()
            || self.searching.is_some()
            || self.review.is_some()
            || (self.screen == Screen::Tournament && self.tournament.is_some())
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
                    // A hand just ended here, with "review each hand" on:
                    // the review of it is asked for (the hand's number is
                    // the one dealt, before the next deal replaces it).
                    let ended = matches!(event, Some(TableEvent::Game(Event::HandEnded { .. })));
                    let review = (fresh
                        && ended
                        && self.review_each_hand
                        && self.screen == Screen::Table
                        && model.practice())
                    .then(|| model.game.as_ref().map(|game| game.hand_number))
                    .flatten()
                    .map(|hand| Command::Review { table: table.clone(), hand });
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
                    return review.into_iter().collect();
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
            Update::Warning { warning, message, .. } => {
                // Shown on the status line, as an error is: seen, so acknowledged.
                self.error(format!("A moderator warns you: {message}"));
                return vec![Command::AcknowledgeWarning(warning)];
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
            Update::TournamentSeated { name, round, table, .. } => {
                // Away from any table: taken to it, as the round begins.
                if self.table.is_none() {
                    self.info(format!("Round {round} of {name}: your table."));
                    self.invite = None;
                    return vec![Command::Watch { table, invite: None }];
                }
                self.info(format!(
                    "Round {round} of {name} seats you at another table: t, then the tournament's o, opens it."
                ));
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
        self.hint = None;
        self.hint_asked = None;
        self.review = None;
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
            Outcome::Done(Command::Rematch(_))
                if self
                    .table
                    .as_ref()
                    .is_some_and(|t| t.finished() && t.rematch_vote.is_some()) =>
            {
                self.info("You asked for a rematch.");
            }
            Outcome::Done(Command::Start(_) | Command::Rematch(_)) => self.info("A new game."),
            Outcome::Done(command) => {
                if let Some(text) = crate::social::done(&command) {
                    self.info(text);
                }
            }
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
            Outcome::Puzzle(puzzle, source) => {
                self.puzzle_loading = false;
                // Not over a game the player went to meanwhile.
                if matches!(self.screen, Screen::Lobby | Screen::Puzzle) {
                    self.puzzle = Some(PuzzleModel::new(*puzzle, source, &self.name));
                    self.screen = Screen::Puzzle;
                    self.status = None;
                }
            }
            Outcome::Verdict { id, action, verdict } => {
                if let Some(puzzle) = self.puzzle.as_mut().filter(|p| p.puzzle.id == id) {
                    puzzle.answering = false;
                    let text = match &verdict.rating {
                        Some(change) => format!(
                            "Your puzzle rating: {} → {} ({}).",
                            change.before,
                            change.after,
                            signed(change.after - change.before)
                        ),
                        None => "Not rated: a guest's answer, or one answered before.".to_owned(),
                    };
                    puzzle.solved = Some(Solved::new(*verdict, action));
                    self.info(text);
                }
            }
            Outcome::Hint(hint) => {
                let asked_at = self.hint_asked.take();
                let table = self.table.as_ref().filter(|table| table.id == hint.table);
                if let (Some(table), Some(moved_at)) = (table, asked_at) {
                    // Still the decision it was asked for: the hinted action
                    // is picked, so Enter plays it.
                    if table.moved_at == moved_at
                        && let Some(index) = self.actions().iter().position(|a| *a == hint.action)
                    {
                        self.selected = index;
                    }
                    self.hint = Some(ShownHint {
                        table: hint.table,
                        moved_at,
                        action: hint.action,
                        why: hint.why,
                    });
                }
            }
            Outcome::Review(review) => {
                // Not once turned off, nor at another table than the one shown.
                let here = self.table.as_ref().is_some_and(|table| table.id == review.table);
                if self.review_each_hand && here {
                    self.review = Some(ShownReview {
                        table: review.table,
                        hand: review.hand,
                        mistake: review.mistake,
                        since: self.now,
                    });
                }
            }
            Outcome::Tournaments(list) => {
                self.tournaments = list
                    .tournaments
                    .into_iter()
                    .filter(|t| matches!(t.status.as_str(), "registering" | "running"))
                    .collect();
                self.tournaments_selected =
                    self.tournaments_selected.min(self.tournaments.len().saturating_sub(1));
                if self.tournaments.is_empty() {
                    self.info("No tournament is registering or running.");
                }
            }
            Outcome::Tournament(view) => {
                let seated = tournament::your_table(&view, &self.player_id)
                    .map(|(round, _, table)| (round, table.to_owned()));
                if let Some((round, table)) = seated
                    && self.tournament_table_told.as_deref() != Some(table.as_str())
                    && self.screen == Screen::Tournament
                {
                    self.info(format!("Round {round} seats you: o opens your table."));
                    self.tournament_table_told = Some(table);
                }
                self.tournament = Some(*view);
            }
            Outcome::Entry { id, entered } => {
                self.info(if entered { "You are registered." } else { "You withdrew." });
                self.tournament_asked = Some(self.now);
                return vec![Command::FetchTournament(id)];
            }
            Outcome::HttpFailed(command, error) => {
                if let Command::ListMatches | Command::MoreMatches(_) = command {
                    self.history_loading = false;
                }
                if let Command::FetchPuzzle(_) = command {
                    self.puzzle_loading = false;
                }
                if let (Command::AnswerPuzzle { .. }, Some(puzzle)) = (&command, &mut self.puzzle) {
                    puzzle.answering = false;
                }
                self.error(format!("{} failed: {error}", command.what()))
            }
            Outcome::Failed(command, error) => {
                if let Command::ListTables(_) = command {
                    self.lobby_loading = false;
                }
                if let Command::Hint(_) = command {
                    // The server's reason, plainly: a refusal is no fault.
                    self.hint_asked = None;
                    self.error(format!("No hint: {}", describe(&error)));
                    return Vec::new();
                }
                if let Command::Review { .. } = command {
                    self.error(format!("No review: {}", describe(&error)));
                    return Vec::new();
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
