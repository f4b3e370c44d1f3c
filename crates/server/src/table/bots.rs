//! Moves made for a seat: by its bot after the bot's delay, or by a
//! stand-in for a player who is away past the grace period or slow past the
//! turn timer; a search bot decides on the blocking pool. And the table's
//! timers: when the next move is due, and when an empty table closes.

use std::time::Duration;

use euchre_bots::Bot;
use euchre_engine::{Action, Game, Seat, Viewer};
use tokio::time::Instant;

use euchre_protocol::{StoodIn, TableStatus};

use super::{Sitter, Table};

/// Where a game stands: the table's game number, the hand, and the actions
/// taken in it. A decision is applied only where it was made.
pub(super) type Position = (u32, u32, usize);

/// A decision come back from the blocking pool, with the bot that made it
/// (`None` if it panicked: a new one is made next time).
#[derive(Debug)]
pub(super) struct Decision {
    pub(super) seat: Seat,
    pub(super) position: Position,
    pub(super) bot: Option<Box<dyn Bot>>,
    pub(super) action: Option<Action>,
}

impl Table {
    pub(super) fn turn_deadline(&self) -> Option<Instant> {
        let seconds = self.settings.turn_seconds?;
        Some(self.last_change + Duration::from_secs(u64::from(seconds)))
    }

    /// Whether the game in progress is left to bots alone: every seat's
    /// person left it (or none sat), so a bot plays each seat for good.
    /// Such a game is played to its end, even with nobody connected, so
    /// that "a bot takes your seat" holds: it ends finished, not abandoned.
    /// So is a tournament's, whose round waits for its result.
    pub(super) fn bots_finish_it(&self) -> bool {
        self.status() == TableStatus::Playing
            && (self.seats.iter().all(|state| matches!(state.sitter, Some(Sitter::Bot(_))))
                || self.host.id == super::TOURNAMENT_HOST)
    }

    /// When the seat to act will be played automatically, if it will be.
    fn automatic_move(&self) -> Option<(Seat, Instant)> {
        let game = self.game.as_ref()?;
        let seat = game.turn()?;
        let state = &self.seats[seat.index()];
        // Bots pause so that people can follow the play; with nobody
        // watching a game left to bots there is nobody to follow it.
        let unwatched = self.subscribers.is_empty() && self.bots_finish_it();
        let delay = if unwatched { Duration::ZERO } else { self.config.bot_delay };
        let bot_time = self.last_change + delay;
        match &state.sitter {
            Some(Sitter::Bot(_)) => Some((seat, bot_time)),
            Some(Sitter::Human(_)) => {
                let away = state
                    .away_since
                    .map(|since| (since + self.config.reconnect_grace).max(bot_time));
                let timed_out = self.turn_deadline();
                let due = match (away, timed_out) {
                    (Some(a), Some(t)) => Some(a.min(t)),
                    (a, t) => a.or(t),
                };
                due.map(|due| (seat, due))
            }
            None => None,
        }
    }

    /// Whether a game nobody watches, left to bots (which then play with
    /// no pause), waits for its last step's writes before its next move:
    /// one step of it in flight at a time, so that it goes at the pace its
    /// writes are kept and never queues a flood of them ahead of other
    /// tables' (a cluster's shard log keeps one record at a time).
    fn waits_for_writes(&self) -> bool {
        self.subscribers.is_empty() && self.bots_finish_it() && self.delivery.writing()
    }

    pub(super) fn next_wake(&self) -> Option<Instant> {
        let idle = self.idle_close_at();
        // While a bot thinks, its move is not due again.
        let bot = self.automatic_move().filter(|_| !self.thinking && !self.waits_for_writes());
        let bot = bot.map(|(_, due)| due);
        [bot, idle, self.rematch_deadline].into_iter().flatten().min()
    }

    /// Runs what is due at `now`. False when the table should close.
    pub fn on_timer(&mut self, now: Instant) -> bool {
        if self.idle_close_at().is_some_and(|at| now >= at) {
            return false;
        }
        if self.rematch_deadline.is_some_and(|deadline| now >= deadline) {
            self.rematch_time_up();
            self.after_change();
        }
        if let Some((seat, due)) = self.automatic_move()
            && now >= due
            && !self.thinking
            && !self.waits_for_writes()
            && self.play_for(seat)
        {
            self.after_change();
        }
        self.end_step();
        true
    }

    /// Notes the hand from which a bot stands in for the player at `seat`.
    fn stood_in_for(&mut self, seat: Seat) {
        let Some(game) = &self.game else { return };
        let from = StoodIn { from_hand: game.hand_number(), scores: game.scores() };
        self.seats[seat.index()].stood_in.get_or_insert(from);
    }

    /// When the table closes for want of anyone connected: never while
    /// bots finish a game everyone left (it closes once that game is over).
    fn idle_close_at(&self) -> Option<Instant> {
        let since = self.empty_since.filter(|_| !self.bots_finish_it())?;
        Some(since + self.config.idle_close)
    }

    /// A bot acts for `seat`: its own bot, or a stand-in for an absent or
    /// slow player. A search bot thinks for milliseconds, which would hold up
    /// every table sharing this worker: on a running table it decides on the
    /// blocking pool and its action comes back as a [`Decision`]. True if the
    /// action was taken now.
    fn play_for(&mut self, seat: Seat) -> bool {
        // A person away past the grace forfeits; one the turn timer plays
        // for forfeits after so many turns.
        let state = &self.seats[seat.index()];
        let grace = self.config.reconnect_grace;
        if matches!(state.sitter, Some(Sitter::Human(_))) {
            if state.away_since.is_some_and(|since| since.elapsed() >= grace) {
                self.forfeit(seat);
                self.stood_in_for(seat);
            } else if let Some(game) = &self.game {
                let at = position(self.games_started, game);
                self.timed_out(seat, at);
            }
        }
        let Some(game) = &self.game else { return false };
        let view = game.view(Viewer::Seat(seat));
        let legal = game.legal_actions(seat);
        let position = position(self.games_started, game);
        let kind = match &self.seats[seat.index()].sitter {
            Some(Sitter::Bot(kind)) => *kind,
            _ => self.bot_kind,
        };
        let seed = self.bot_seed ^ u64::from(seat.0);
        let mut bot = self.seats[seat.index()].bot.take().unwrap_or_else(|| kind.create(seed));
        if let Some(decisions) = self.decisions.clone().filter(|_| kind.searches()) {
            self.thinking = true;
            tokio::task::spawn_blocking(move || {
                let chosen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    bot.choose(&view, &legal)
                }));
                let decision = match chosen {
                    Ok(action) => Decision { seat, position, bot: Some(bot), action },
                    Err(_) => Decision { seat, position, bot: None, action: None },
                };
                // The table may have closed meanwhile: then nobody waits.
                let _ = decisions.send(decision);
            });
            return false;
        }
        let action = bot.choose(&view, &legal);
        self.seats[seat.index()].bot = Some(bot);
        self.take_bot_action(seat, action);
        true
    }

    /// A decision from the blocking pool: applied if the game is still where
    /// it was decided and the seat's move still due (a player may have come
    /// back and played, or the game ended); otherwise dropped, and the timer
    /// asks again if a move is due.
    pub(super) fn decided(&mut self, decision: Decision) {
        let Decision { seat, position: decided_at, bot, action } = decision;
        self.thinking = false;
        if let Some(bot) = bot {
            self.seats[seat.index()].bot.get_or_insert(bot);
        }
        let current = self.game.as_ref().map(|game| position(self.games_started, game));
        let due =
            self.automatic_move().is_some_and(|(turn, due)| turn == seat && due <= Instant::now());
        if current == Some(decided_at) && due {
            self.take_bot_action(seat, action);
            self.after_change();
        }
    }

    fn take_bot_action(&mut self, seat: Seat, action: Option<Action>) {
        // A bot declines only when nothing but a concession is offered, which the
        // engine never leaves as the only choice on a turn: it waits then.
        let Some(action) = action else {
            tracing::error!(table = %self.id, seat = seat.0, "a bot had nothing to play");
            self.last_change = Instant::now();
            return;
        };
        if let Err(error) = self.apply(seat, action) {
            tracing::error!(table = %self.id, %error, "a bot chose an illegal action");
        }
    }
}

/// Where `game`, the table's game number `games_started`, stands.
pub(super) fn position(games_started: u32, game: &Game) -> Position {
    let actions = game.record().hands.last().map_or(0, |hand| hand.actions.len());
    (games_started, game.hand_number(), actions)
}
