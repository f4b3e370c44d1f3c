//! The keys each screen answers: the lobby's, the new table's form, joining
//! by id, the table's (with its chat line, hint and review), the history's
//! and a replay's, the puzzle trainer's and the tournaments'.
//! Like the rest of the reducer they change the state and return the
//! requests to make.

use euchre_protocol::TableStatus;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{App, Command, Screen};
use crate::invite;
use crate::puzzle::Source;
use crate::quick::{QuickField, Searching};
use crate::tournament;

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return Vec::new();
        }
        // A hand's review stays up until the next key, which still does
        // what it does.
        self.review = None;
        match self.screen {
            Screen::Lobby => self.lobby_key(key),
            Screen::Create => self.create_key(key),
            Screen::QuickPlay => self.quick_key(key),
            Screen::Join => self.join_key(key),
            Screen::Table => self.table_key(key),
            Screen::History => self.history_key(key),
            Screen::Replay => self.replay_key(key),
            Screen::Puzzle => self.puzzle_key(key),
            Screen::Tournaments => self.tournaments_key(key),
            Screen::Tournament => self.tournament_key(key),
        }
    }

    fn lobby_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let rows = self.lobby_rows();
        let selected = rows.get(self.lobby_selected).map(|summary| summary.table.clone());
        let last = rows.len().saturating_sub(1);
        match key.code {
            KeyCode::Up => self.lobby_selected = self.lobby_selected.saturating_sub(1),
            KeyCode::Down => {
                // Past the last one listed: the next page, if there is one.
                if self.lobby_selected == last
                    && !self.lobby_loading
                    && let Some(next) = self.lobby_next.clone()
                {
                    self.lobby_loading = true;
                    return vec![self.list_tables(Some(next))];
                }
                self.lobby_selected = (self.lobby_selected + 1).min(last)
            }
            KeyCode::Char('f') => {
                self.lobby_open_only = !self.lobby_open_only;
                self.lobby_selected = 0;
                return vec![self.list_tables(None)];
            }
            KeyCode::Char('n') => {
                self.screen = Screen::Create;
                self.status = None;
            }
            KeyCode::Char('p') => {
                if self.searching.is_some() {
                    self.error("Quick play is already searching: x cancels it.");
                } else {
                    self.screen = Screen::QuickPlay;
                    self.status = None;
                }
            }
            KeyCode::Char('x') if self.searching.is_some() => {
                return vec![Command::CancelQuickPlay];
            }
            KeyCode::Char('j') => {
                self.screen = Screen::Join;
                self.join_input.clear();
                self.status = None;
            }
            KeyCode::Char('r') => return vec![self.list_tables(None)],
            KeyCode::Char('h') => {
                self.screen = Screen::History;
                self.status = None;
                self.history_loading = true;
                self.history_selected = 0;
                // The lobby's first page again: the player's live tables, current.
                return vec![Command::ListMatches, self.list_tables(None)];
            }
            KeyCode::Char('z') => return self.fetch_puzzle(Source::Next),
            KeyCode::Char('d') => return self.fetch_puzzle(Source::Daily),
            KeyCode::Char('t') => {
                self.screen = Screen::Tournaments;
                self.status = None;
                return vec![Command::ListTournaments];
            }
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Enter => {
                if let Some(table) = selected {
                    self.invite = None;
                    // One of the player's own: back to their seat.
                    if self.is_yours(&table) {
                        return vec![Command::Watch { table, invite: None }];
                    }
                    return vec![Command::Sit { table, seat: None, invite: None, or_watch: true }];
                }
            }
            KeyCode::Char('w') => {
                if let Some(table) = selected {
                    self.invite = None;
                    return vec![Command::Watch { table, invite: None }];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    fn fetch_puzzle(&mut self, source: Source) -> Vec<Command> {
        if self.puzzle_loading {
            return Vec::new();
        }
        self.puzzle_loading = true;
        self.info(match source {
            Source::Next => "Fetching a puzzle…",
            Source::Daily => "Fetching the puzzle of the day…",
        });
        vec![Command::FetchPuzzle(source)]
    }

    /// Before the answer, the table's keys pick and answer; after it, `s`
    /// shows the hand played out, `n` the next puzzle.
    fn puzzle_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(puzzle) = self.puzzle.as_mut() else {
            self.screen = Screen::Lobby;
            return Vec::new();
        };
        let count = puzzle.options().len();
        let open = puzzle.solved.is_none();
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => {
                self.screen = Screen::Lobby;
                self.status = None;
            }
            KeyCode::Left | KeyCode::Up if open && count > 0 => {
                puzzle.selected = (puzzle.selected + count - 1) % count
            }
            KeyCode::Right | KeyCode::Down if open && count > 0 => {
                puzzle.selected = (puzzle.selected + 1) % count
            }
            KeyCode::Char(digit @ '1'..='9') if open => {
                let index = digit as usize - '1' as usize;
                if index < count {
                    puzzle.selected = index;
                }
            }
            KeyCode::Enter if open && !puzzle.answering => {
                if let Some(action) = puzzle.options().get(puzzle.selected).copied() {
                    puzzle.answering = true;
                    return vec![Command::AnswerPuzzle { id: puzzle.puzzle.id, action }];
                }
            }
            KeyCode::Char('s') if !open => puzzle.shown = puzzle.shown.next(),
            KeyCode::Up if !open => puzzle.why_scroll = puzzle.why_scroll.saturating_sub(1),
            KeyCode::Down if !open => {
                puzzle.why_scroll = (puzzle.why_scroll + 1).min(puzzle.why_lines())
            }
            KeyCode::Char('n') => return self.fetch_puzzle(Source::Next),
            KeyCode::Char('d') => return self.fetch_puzzle(Source::Daily),
            _ => {}
        }
        Vec::new()
    }

    fn tournaments_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let last = self.tournaments.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => self.screen = Screen::Lobby,
            KeyCode::Up => self.tournaments_selected = self.tournaments_selected.saturating_sub(1),
            KeyCode::Down => self.tournaments_selected = (self.tournaments_selected + 1).min(last),
            KeyCode::Char('r') => return vec![Command::ListTournaments],
            KeyCode::Enter => {
                if let Some(listed) = self.tournaments.get(self.tournaments_selected) {
                    let id = listed.id.clone();
                    // Another tournament than the one last shown: none shown until it comes.
                    if self.tournament.as_ref().is_some_and(|shown| shown.id != id) {
                        self.tournament = None;
                    }
                    self.screen = Screen::Tournament;
                    self.status = None;
                    self.tournament_asked = Some(self.now);
                    return vec![Command::FetchTournament(id)];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    fn tournament_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(view) = self.tournament.as_ref() else {
            if let KeyCode::Esc | KeyCode::Char('q') = key.code {
                self.screen = Screen::Tournaments;
            }
            return Vec::new();
        };
        let id = view.id.clone();
        let entered = tournament::entered(view, &self.player_id);
        let registering = view.status == "registering";
        let seated = tournament::your_table(view, &self.player_id).map(|(_, _, t)| t.to_owned());
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => {
                self.screen = Screen::Tournaments;
                return vec![Command::ListTournaments];
            }
            KeyCode::Char('e') if registering && !entered => {
                self.info("Registering…");
                return vec![Command::Register(id)];
            }
            KeyCode::Char('w') if registering && entered => {
                self.info("Withdrawing…");
                return vec![Command::Withdraw(id)];
            }
            KeyCode::Char('r') => {
                self.tournament_asked = Some(self.now);
                return vec![Command::FetchTournament(id)];
            }
            KeyCode::Char('o') => {
                if let Some(table) = seated {
                    self.invite = None;
                    return vec![Command::Watch { table, invite: None }];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    fn history_key(&mut self, key: KeyEvent) -> Vec<Command> {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => self.screen = Screen::Lobby,
            KeyCode::Up => self.history_selected = self.history_selected.saturating_sub(1),
            KeyCode::Down | KeyCode::PageDown | KeyCode::End => {
                // The player's live tables first, then the matches.
                let last = (self.yours.len() + self.history.len()).saturating_sub(1);
                let target = match key.code {
                    KeyCode::Down => self.history_selected + 1,
                    KeyCode::PageDown => self.history_selected + 10,
                    _ => last,
                };
                // Past the last one loaded: the next page, if there is one.
                if target > last
                    && self.history_selected == last
                    && !self.history_loading
                    && let Some(cursor) = self.history_next.clone()
                {
                    self.history_loading = true;
                    return vec![Command::MoreMatches(cursor)];
                }
                self.history_selected = target.min(last);
            }
            KeyCode::PageUp => self.history_selected = self.history_selected.saturating_sub(10),
            KeyCode::Home => self.history_selected = 0,
            KeyCode::Enter if self.history_selected < self.yours.len() => {
                let table = self.yours[self.history_selected].table.clone();
                self.invite = None;
                return vec![Command::Watch { table, invite: None }];
            }
            KeyCode::Enter => match self.history.get(self.history_selected - self.yours.len()) {
                Some(row) if row.finished || row.abandoned.is_some() => {
                    return vec![Command::FetchRecord(row.id.clone())];
                }
                Some(_) => {
                    self.error("That match is still being played: its replay comes at the end.")
                }
                None => {}
            },
            _ => {}
        }
        Vec::new()
    }

    fn replay_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(replay) = self.replay.as_mut() else {
            self.screen = Screen::History;
            return Vec::new();
        };
        let last = replay.record.hands.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => self.screen = Screen::History,
            KeyCode::Left | KeyCode::Up => replay.hand = replay.hand.saturating_sub(1),
            KeyCode::Right | KeyCode::Down | KeyCode::Enter | KeyCode::Char(' ') => {
                replay.hand = (replay.hand + 1).min(last)
            }
            KeyCode::Home => replay.hand = 0,
            KeyCode::End => replay.hand = last,
            _ => {}
        }
        Vec::new()
    }

    fn create_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let form = &mut self.create;
        match key.code {
            KeyCode::Esc => self.screen = Screen::Lobby,
            KeyCode::Up | KeyCode::BackTab => form.move_cursor(false),
            KeyCode::Down | KeyCode::Tab => form.move_cursor(true),
            KeyCode::Left => form.change(false),
            KeyCode::Right | KeyCode::Char(' ') => form.change(true),
            KeyCode::Enter => {
                self.info("Creating the table…");
                return vec![Command::Create(self.create.settings())];
            }
            _ => {}
        }
        Vec::new()
    }

    fn quick_key(&mut self, key: KeyEvent) -> Vec<Command> {
        // The code line takes what is typed (and the call to type it goes).
        if self.quick.current() == QuickField::TeamCode {
            match key.code {
                KeyCode::Char(c) => {
                    self.quick.type_code(c);
                    self.status = None;
                    return Vec::new();
                }
                KeyCode::Backspace => {
                    self.quick.team_code.pop();
                    return Vec::new();
                }
                _ => {}
            }
        }
        let form = &mut self.quick;
        match key.code {
            KeyCode::Esc => self.screen = Screen::Lobby,
            KeyCode::Up | KeyCode::BackTab => form.move_cursor(false),
            KeyCode::Down | KeyCode::Tab => form.move_cursor(true),
            KeyCode::Left => form.change(false),
            KeyCode::Right | KeyCode::Char(' ') => form.change(true),
            KeyCode::Enter if form.lacks_code() => {
                self.error("Type the team code your partner was given, or choose alone.");
            }
            KeyCode::Enter => {
                let request = self.quick.request();
                self.searching = Some(Searching::new(&request, self.now));
                self.screen = Screen::Lobby;
                self.status = None;
                return vec![Command::QuickPlay(request)];
            }
            _ => {}
        }
        Vec::new()
    }

    fn join_key(&mut self, key: KeyEvent) -> Vec<Command> {
        match key.code {
            KeyCode::Esc => self.screen = Screen::Lobby,
            KeyCode::Backspace => {
                self.join_input.pop();
            }
            KeyCode::Char(c) => self.join_input.push(c),
            KeyCode::Enter => match invite::parse(&self.join_input) {
                Some((table, invite)) => {
                    self.invite = invite.clone();
                    self.info(format!("Joining table {table}…"));
                    return vec![Command::Sit { table, seat: None, invite, or_watch: true }];
                }
                None => {
                    self.error("Type a table id (and its invite code), or paste an invite link.")
                }
            },
            _ => {}
        }
        Vec::new()
    }

    fn table_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(table) = self.table.as_ref() else {
            self.screen = Screen::Lobby;
            return Vec::new();
        };
        let id = table.id.clone();
        if let Some(line) = self.chat_input.as_mut() {
            match key.code {
                KeyCode::Esc => self.chat_input = None,
                KeyCode::Backspace => {
                    line.pop();
                }
                KeyCode::Char(c) => line.push(c),
                KeyCode::Enter => {
                    let text = line.trim().to_owned();
                    self.chat_input = None;
                    if text.starts_with('/') {
                        match crate::social::command(table, &text) {
                            Ok(command) => return vec![command],
                            Err(usage) => self.error(usage),
                        }
                    } else if !text.is_empty() {
                        return vec![Command::Chat(id, text)];
                    }
                }
                _ => {}
            }
            return Vec::new();
        }
        let count = self.actions().len();
        match key.code {
            KeyCode::Left | KeyCode::Up if count > 0 => {
                self.selected = (self.selected + count - 1) % count
            }
            KeyCode::Right | KeyCode::Down if count > 0 => {
                self.selected = (self.selected + 1) % count
            }
            KeyCode::Char(digit @ '1'..='9') => {
                let index = digit as usize - '1' as usize;
                if index < count {
                    self.selected = index;
                }
            }
            KeyCode::Enter => {
                if self.acting {
                    return Vec::new();
                }
                if let Some(action) = self.actions().get(self.selected).copied() {
                    self.acting = true;
                    self.hint = None;
                    if let Some(model) = self.table.as_mut() {
                        let seq = model.moved_at;
                        self.sent_from =
                            model.prompt.take().map(|actions| (id.clone(), seq, actions));
                    }
                    return vec![Command::Act(id, action)];
                }
            }
            KeyCode::Char('c') => {
                if table.summary.chat {
                    self.chat_input = Some(String::new());
                } else {
                    self.error("This table has no chat.");
                }
            }
            // Asked for wherever the player has a decision: the help line
            // offers it at practice tables only, and elsewhere the server's
            // refusal says why not.
            KeyCode::Char('h') if count > 0 && table.your_seat.is_some() => {
                // One hint a decision: the one given stays on screen.
                if self.hint_asked.is_some() || self.current_hint().is_some() {
                    return Vec::new();
                }
                self.hint_asked = Some(table.moved_at);
                return vec![Command::Hint(id)];
            }
            KeyCode::Char('v') => {
                if self.review_offered() {
                    self.review_each_hand = !self.review_each_hand;
                    self.info(if self.review_each_hand {
                        "Review each hand: on. Your biggest mistake is said when a hand ends."
                    } else {
                        "Review each hand: off."
                    });
                } else {
                    self.error("Reviews are for practice tables: every other seat a bot.");
                }
            }
            KeyCode::Char('s') if table.summary.status == TableStatus::Open => {
                return vec![Command::Start(id)];
            }
            KeyCode::Char('r') if table.finished() => return vec![Command::Rematch(id)],
            KeyCode::Char('l') | KeyCode::Esc => {
                self.leave_table();
                self.info(format!("Left table {id}."));
                return vec![Command::Leave(id), self.list_tables(None)];
            }
            KeyCode::Char('q') => self.quit = true,
            _ => {}
        }
        Vec::new()
    }
}
