//! The oracle: a player that cheats, for measurement only.
//!
//! It sees every hand, the kitty and the dummy: it is handed the whole
//! [`Game`], not a seat's view, so it is not a [`euchre_bots::Bot`], no
//! [`euchre_bots::BotKind`] names it, and the server (which does not depend
//! on this crate) cannot seat it. It exists to measure a ceiling: how often
//! a player that knows where every card is beats a given bot over the same
//! deals. The gap between that and an honest bot's figure is the part of
//! the gap that better play could close; the rest is the cards.
//!
//! Each decision scores every legal action on the real deal and takes the
//! best (the first of the best, in the engine's order):
//!
//! - In card play, the card is followed by the rest of the hand solved
//!   double-dummy ([`Solver`]): perfect play by all four seats, which is
//!   exactly how the oracle and its partner go on to play.
//! - Before card play (bids, the dealer's discard, the card passed for
//!   best), the action is followed by the rest of the bidding and
//!   discarding as the basic bot would do it from each seat's own view
//!   (the oracle's partner too, although he is an oracle: simple, and
//!   exact for the opponents when they are the basic bot), then the card
//!   play solved double-dummy on the real cards.
//!
//! An action is worth the points it brings the oracle's side less the
//! others', plus a little a trick to break ties: the search bots' own
//! [`outcome_value`]. The double-dummy play assumes the opponents play
//! perfectly too, which the basic bot does not, so the bids are scored
//! somewhat cautiously.

use euchre_bots::{BasicBot, Bot, outcome_value};
use euchre_engine::sim::Solver;
use euchre_engine::{Action, Event, Game, HandOutcome, Phase, Seat, Viewer};

/// Bids or discards played out before the solve, at most: a hand's
/// bidding ends in a few, so more means something is stuck.
const MAX_ROLLOUT: usize = 64;

/// The cheating player: see the module documentation.
#[derive(Debug)]
pub struct Oracle {
    solver: Solver,
    basic: BasicBot,
}

impl Default for Oracle {
    fn default() -> Oracle {
        Oracle::new()
    }
}

impl Oracle {
    pub fn new() -> Oracle {
        Oracle { solver: Solver::with_table_bits(14), basic: BasicBot::new() }
    }

    /// The action for `seat`, whose turn it is in `game`, from `legal`
    /// (never a concession; `None` only when nothing else is legal).
    pub fn choose(&mut self, game: &Game, seat: Seat, legal: &[Action]) -> Option<Action> {
        let actions: Vec<Action> =
            legal.iter().copied().filter(|action| *action != Action::Concede).collect();
        if actions.len() <= 1 {
            return actions.first().copied();
        }
        if actions.contains(&Action::Claim) {
            // Offered only when it cannot fail.
            return Some(Action::Claim);
        }
        let mut best: Option<(Action, f64)> = None;
        for action in actions {
            let Some(value) = self.value(game, seat, action) else { continue };
            if best.is_none_or(|(_, top)| value > top) {
                best = Some((action, value));
            }
        }
        best.map(|(action, _)| action)
            .or_else(|| self.basic.choose(&game.view(Viewer::Seat(seat)), legal))
    }

    /// What `action` by `seat` is worth on the real deal: see the module
    /// documentation. `None` if the engine refuses it or the hand cannot be
    /// played out.
    fn value(&mut self, game: &Game, seat: Seat, action: Action) -> Option<f64> {
        let mut game = game.clone();
        let number = game.hand_number();
        let mut ended = hand_ended(game.apply(seat, action).ok()?);
        for _ in 0..MAX_ROLLOUT {
            if let Some(outcome) = ended {
                return Some(outcome_value(game.rules(), seat, &outcome));
            }
            if game.hand_number() != number {
                return None;
            }
            if game.hand().phase() == Phase::Playing {
                let outcome = self.solver.outcome(game.hand())?;
                return Some(outcome_value(game.rules(), seat, &outcome));
            }
            let next = game.turn()?;
            let legal = game.legal_actions(next);
            let bid = self.basic.choose(&game.view(Viewer::Seat(next)), &legal)?;
            ended = hand_ended(game.apply(next, bid).ok()?);
        }
        None
    }
}

/// The outcome of the hand, if `events` end it.
fn hand_ended(events: impl IntoIterator<Item = Event>) -> Option<HandOutcome> {
    events.into_iter().find_map(|event| match event {
        Event::HandEnded { outcome, .. } => Some(outcome),
        _ => None,
    })
}
