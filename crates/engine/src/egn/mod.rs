//! EGN (Euchre Game Notation): reading, verifying and writing game records.
//!
//! [EGN](https://github.com/NextSuit-Labs/euchre-game-notation) is a JSON
//! record of a game: the players, a ruleset, and for each deal the dealer, the
//! up-card, the calls and the tricks card by card, each trick starting with its
//! leader. It stores no trick winners, no scores and usually no hands: a
//! rules engine derives them. [`verify`] does so by replaying every deal
//! through [`Hand`](crate::Hand), so each call and card is judged by the very code that
//! runs live games.
//!
//! ```
//! use euchre_engine::{egn, Action, Game, Rules};
//!
//! // Play a game, write it as EGN, read it back and replay it.
//! let mut game = Game::new(Rules::default(), 3).unwrap();
//! while let Some(seat) = game.turn() {
//!     let actions = game.legal_actions(seat);
//!     let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
//!     game.apply(seat, *action).unwrap();
//! }
//! let names = ["North", "East", "South", "West"].map(String::from);
//! let text = egn::write(game.record(), &names).unwrap();
//! let checked = egn::verify(&egn::read(&text).unwrap()).unwrap();
//! assert_eq!(checked.final_score, game.scores());
//! ```
//!
//! The parts, each in its own file whose opening comment tells the details:
//!
//! - `types.rs`: the typed record ([`EgnGame`]), positions in a file
//!   ([`Location`]) and the errors of reading and replaying; how positions
//!   are numbered.
//! - `raw.rs`: the file as JSON, the serde mirrors the reader and the writer share.
//! - `reader.rs`: [`read`] and [`from_value`]: what is read, and how EGN's
//!   ruleset maps onto [`Rules`](crate::Rules) (and what is unsupported).
//! - `verifier.rs`: [`verify`], which stops at the first fault, and
//!   [`check`], which reads on as a referee does and reports every [`Finding`].
//! - `replay.rs`: how a deal is rebuilt from its play when the file does not
//!   give the hands, and replayed through [`Hand`](crate::Hand).
//! - `convert.rs`: [`to_record`], a game as the engine's own
//!   [`GameRecord`](crate::GameRecord).
//! - `writer.rs`: [`write()`]: a record as EGN, claims and concessions
//!   written out as play, and what EGN cannot say.
//!
//! This module is the engine's only use of `serde_json`; it is behind the
//! `egn` feature, on by default.

mod convert;
mod raw;
mod reader;
mod replay;
mod types;
mod verifier;
mod writer;

#[cfg(test)]
mod tests;

pub use convert::{RecordError, to_record};
pub use reader::{from_value, read};
pub use types::{Call, EgnDeal, EgnError, EgnGame, Location, Step, VerifyError, describe};
pub use verifier::{Checked, DealResult, Ending, Finding, Problem, Verification, check, verify};
pub use writer::{WriteError, write};

use crate::action::{PerTeam, Team};

/// The `fileType` every EGN file carries.
pub const FILE_TYPE: &str = "Euchre Game Notation";
/// The EGN version [`write()`] produces.
pub const VERSION: &str = "1.4";

const PLAYERS: u8 = 4;
const HAND_SIZE: usize = crate::rules::HAND_SIZE as usize;

fn per_team(pair: [u16; 2]) -> PerTeam<u16> {
    let mut values = PerTeam::new(2);
    values[Team(0)] = pair[0];
    values[Team(1)] = pair[1];
    values
}
