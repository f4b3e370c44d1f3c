//! Computer players for Euchre.
//!
//! A bot is handed what its seat may know — a [`GameView`] — and the actions
//! the engine accepts from that seat now, and picks one. It never sees the
//! [`euchre_engine::Game`], so it cannot look at other hands. Bots are pure
//! and deterministic: no I/O, no clock, and any randomness comes from a
//! generator seeded when the bot is made, so a game between bots replays
//! exactly from its seeds.
//!
//! ```
//! use euchre_bots::BotKind;
//! use euchre_engine::{Game, Rules, Seat, Viewer};
//!
//! let mut game = Game::new(Rules::default(), 7).unwrap();
//! // One bot per seat, made by name as the server would.
//! let kind = BotKind::from_name("basic").unwrap();
//! let mut bots: Vec<_> = (0..4).map(|seat| kind.create(seat)).collect();
//! while let Some(seat) = game.turn() {
//!     let view = game.view(Viewer::Seat(seat));
//!     let legal = game.legal_actions(seat);
//!     let action = bots[seat.index()].choose(&view, &legal).unwrap();
//!     game.apply(seat, action).unwrap();
//! }
//! assert!(game.winner().is_some());
//! ```

use std::fmt;

use euchre_engine::{Action, GameView};
use serde::{Deserialize, Serialize};

mod basic;
mod naive;
pub mod policy;
mod random;
mod search;

pub use basic::BasicBot;
pub use naive::NaiveBot;
pub use policy::PolicyBot;
pub use random::RandomBot;
pub use search::{NetPlay, SearchBot, SearchSettings, ViewWorlds, bid_out, outcome_value};

/// A computer player for one seat.
///
/// The search bots ([`SearchBot`]) too: whatever they compute, they get only
/// the seat's view, so they deal the hidden cards themselves, in every way
/// the view allows.
pub trait Bot: Send + fmt::Debug {
    /// Picks the seat's next action.
    ///
    /// Call it for the seat whose turn it is, with `view` made for that seat
    /// (`Viewer::Seat`) and `legal` from `Game::legal_actions` for that seat.
    ///
    /// Returns one of `legal`, and never [`Action::Concede`]. Returns `None`
    /// only when `legal` offers nothing else: it is empty, or holds nothing but
    /// `Concede` (which the engine offers to every player during play, even
    /// out of turn). Either way the caller asked at the wrong moment; the
    /// caller decides what to do rather than the bot giving up the hand.
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action>;
}

/// The bots the server can create by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Any legal action, uniformly at random (never a concession).
    Random,
    /// Bids on its trumps alone, wins cheaply or throws its cheapest card:
    /// [`NaiveBot`], the weakest sensible yardstick.
    Naive,
    /// Sound, ordinary Euchre by simple rules of thumb: [`BasicBot`]. The
    /// easy level (`easy` is read as this name).
    #[serde(alias = "easy")]
    Basic,
    /// A reference Monte-Carlo search: [`SearchBot`] with
    /// [`SearchSettings::MEDIUM`].
    Medium,
    /// A stronger Monte-Carlo search: [`SearchBot`] with
    /// [`SearchSettings::HARD`].
    Hard,
    /// The strongest: hard's search with the play-outs' cards played by a
    /// learned policy ([`policy`]) instead of the basic bot's,
    /// [`SearchSettings::EXPERT`].
    Expert,
}

impl BotKind {
    pub const ALL: [BotKind; 6] = [
        BotKind::Random,
        BotKind::Naive,
        BotKind::Basic,
        BotKind::Medium,
        BotKind::Hard,
        BotKind::Expert,
    ];

    /// The name used in configuration and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Naive => "naive",
            BotKind::Basic => "basic",
            BotKind::Medium => "medium",
            BotKind::Hard => "hard",
            BotKind::Expert => "expert",
        }
    }

    /// The kind of `name`: its own name, or `easy` for [`BotKind::Basic`]
    /// (the levels are easy, medium, hard and expert; `basic` stays the name on the
    /// wire, so that tables and records made before the levels read alike).
    pub fn from_name(name: &str) -> Option<BotKind> {
        if name == "easy" {
            return Some(BotKind::Basic);
        }
        BotKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Whether this kind searches (medium, hard, expert): its decisions take
    /// milliseconds, not microseconds, so a server runs them off its
    /// event loop.
    pub fn searches(self) -> bool {
        matches!(self, BotKind::Medium | BotKind::Hard | BotKind::Expert)
    }

    /// A new bot of this kind. `seed` feeds its random generator, if it has
    /// one: the same seed gives the same choices.
    pub fn create(self, seed: u64) -> Box<dyn Bot> {
        match self {
            BotKind::Random => Box::new(RandomBot::new(seed)),
            BotKind::Naive => Box::new(NaiveBot),
            BotKind::Basic => Box::new(BasicBot::new()),
            BotKind::Medium => Box::new(SearchBot::new(SearchSettings::MEDIUM, seed)),
            BotKind::Hard => Box::new(SearchBot::new(SearchSettings::HARD, seed)),
            BotKind::Expert => Box::new(SearchBot::new(SearchSettings::EXPERT, seed)),
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The actions a bot may pick from: everything legal but a concession.
fn choices(legal: &[Action]) -> impl Iterator<Item = Action> + '_ {
    legal.iter().copied().filter(|action| *action != Action::Concede)
}

/// `wanted` if it is legal, else the first legal choice: a bot's reasoning
/// can be wrong, but what it returns never is.
fn legal_or_first(wanted: Option<Action>, legal: &[Action]) -> Option<Action> {
    match wanted {
        Some(action) if action != Action::Concede && legal.contains(&action) => Some(action),
        _ => choices(legal).next(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_by_name_and_serde() {
        for kind in BotKind::ALL {
            assert_eq!(BotKind::from_name(kind.name()), Some(kind));
            let json = serde_json::to_string(&kind).expect("serializes");
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<BotKind>(&json).expect("parses"), kind);
        }
        assert_eq!(BotKind::from_name("genius"), None);
        assert_eq!(BotKind::from_name("easy"), Some(BotKind::Basic));
        assert_eq!(serde_json::from_str::<BotKind>("\"easy\"").expect("parses"), BotKind::Basic);
    }

    #[test]
    fn an_illegal_wish_falls_back_to_a_legal_choice() {
        let legal = [Action::Concede, Action::Pass, Action::OrderUp { alone: false }];
        let wish = Some(Action::Claim);
        assert_eq!(legal_or_first(wish, &legal), Some(Action::Pass));
        assert_eq!(legal_or_first(Some(Action::Concede), &legal), Some(Action::Pass));
        assert_eq!(legal_or_first(None, &[Action::Concede]), None);
        assert_eq!(legal_or_first(None, &[]), None);
    }
}
