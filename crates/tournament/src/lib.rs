//! Tournaments, pure: no I/O, no clock, every random choice drawn from the
//! settings' seed. A [`Tournament`] is built from its [`Settings`], takes the
//! organiser's [`Change`]s and each round's results, and derives the next
//! round's pairing from them alone, so a stored [`Record`] re-derives every
//! round ([`verify`]). The formats, their pairing rules, tie-breaks and
//! scoring are described in `docs/tournaments.md`.
//!
//! ```
//! use euchre_tournament::{
//!     Format, Player, Seeding, Settings, Standings, SwissSettings, TableResult, Teams,
//!     Tournament, verify,
//! };
//!
//! let players = (0..8).map(|k| Player::new(format!("p{k}"), 1500.0 - k as f64)).collect();
//! let format = Format::Swiss(SwissSettings { rounds: 2, teams: Teams::ByRating, seeding: Seeding::Rating });
//! let mut swiss = Tournament::new(Settings { seed: 7, players, format }).unwrap();
//! while !swiss.is_finished() {
//!     let round = swiss.next_round().unwrap();
//!     // Every game won 10 to 6 by the side in seats 0 and 2.
//!     let results = round.tables.iter().map(|_| TableResult::one([10, 6])).collect();
//!     swiss.record_round(results).unwrap();
//! }
//! let Standings::Swiss(standings) = swiss.standings() else { unreachable!() };
//! assert_eq!(standings[0].match_points, 2.0);
//! // The stored record re-derives every round.
//! assert!(verify(swiss.record()).is_ok());
//! ```

mod error;
pub mod knockout;
pub mod progressive;
mod random;
mod round;
pub mod schedule;
mod settings;
pub mod swiss;
mod teams;
mod tournament;
pub mod whist;

pub use error::TournamentError;
pub use knockout::KnockoutStanding;
pub use progressive::PlayerStanding;
pub use round::{Round, Score, Seat, Table, TableResult, Team, TeamId};
pub use settings::{
    Format, KnockoutSettings, Leftover, Player, PlayerId, ProgressiveSettings, RoundLength,
    Seeding, Settings, SwissSettings, Teams,
};
pub use swiss::TeamStanding;
pub use tournament::{Change, Event, Mismatch, Record, Standings, Tournament, verify};
