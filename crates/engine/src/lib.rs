//! The rules of Euchre as a pure, deterministic engine.
//!
//! No I/O, no clock, no global random generator: a [`Game`] is a function of
//! its [`Rules`], its seed and the actions applied to it.
//!
//! Game records in EGN (Euchre Game Notation) are read, verified and written
//! by the `egn` module, behind the `egn` feature (on by default): the
//! engine's only use of serde_json.
//!
//! ```
//! use euchre_engine::{Game, Rules, Viewer};
//!
//! // A new game: the first dealer is chosen and the first hand dealt.
//! let mut game = Game::new(Rules::default(), 42).unwrap();
//!
//! // The seat to act and exactly the actions it may take.
//! let seat = game.turn().unwrap();
//! let actions = game.legal_actions(seat);
//!
//! // Take one; the events say what happened. Illegal actions are errors
//! // and change nothing.
//! let events = game.apply(seat, actions[0]).unwrap();
//! assert!(!events.is_empty());
//!
//! // A seat sees its own cards and public information, nothing more.
//! let view = game.view(Viewer::Seat(seat));
//! assert_eq!(view.hand.unwrap().len(), 5);
//! ```
//!
//! Play a game to the end, always making trump and playing the first legal card:
//!
//! ```
//! use euchre_engine::{Action, Game, Rules};
//!
//! let mut game = Game::new(Rules::default(), 7).unwrap();
//! while let Some(seat) = game.turn() {
//!     let actions = game.legal_actions(seat);
//!     let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
//!     game.apply(seat, *action).unwrap();
//! }
//! assert!(game.winner().is_some());
//! ```

pub mod action;
pub mod card;
pub mod deal;
#[cfg(feature = "egn")]
pub mod egn;
pub mod error;
pub mod fairness;
pub mod game;
pub mod hand;
pub mod playout;
pub mod record;
pub mod rules;
pub mod seed;
pub mod sim;
pub mod trump;
pub mod view;

pub use action::{
    Action, DealtHands, Event, EventList, EventSink, HandOutcome, MAX_TEAMS, NoEvents, PerTeam,
    PlayedHand, RubberResult, Seat, Team, ThrowIn, Viewer,
};
pub use card::{Card, CardSet, Rank, Suit};
pub use deal::{Deal, DealError};
pub use error::RuleError;
pub use fairness::{Commitment, DealCheck, Salt, Seal};
pub use game::{Game, GameResult, GameStart, ReplayError};
pub use hand::{ActionList, Hand, Phase};
pub use record::{GameRecord, HandRecord, SeatAction};
pub use rules::{
    AllPass, Deck, FirstDealer, GameForm, LonerLead, Preset, Rules, Scoring, TurnedDownSuit,
};
pub use seed::Seed;
pub use view::GameView;
