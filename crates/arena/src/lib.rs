//! Duplicate matches between two bots.
//!
//! Each deal seed is played once for every way of seating bot A on one side
//! and bot B on the others (the two sides of a partnership game; each seat
//! in turn in the three-handed games, A alone against two Bs), so both
//! bots get the same cards and neither the deals nor the seats favour
//! either. The report gives A's share of games won with a 95% Wilson
//! interval, the points each scored per hand, and how long each took to
//! decide: wall-clock time and the time the thread actually ran (on a busy machine the wall clock counts the waits too).
//!
//! The deals can be played on several threads ([`run()`]'s `threads`): each
//! game depends only on its deal seed and the bots, and the results are
//! added up in deal order, so the report is the same for any number of
//! threads (but for the decision times).
//!
//! Besides the bots, the arena can seat the [`oracle::Oracle`], a player
//! that sees every card: a ceiling to measure the bots against, never a
//! player for a table.
//!
//! The parts, re-exported here: `spec` names the players (a [`BotSpec`]),
//! `run` plays the match and times each decision, `report` says how it went,
//! `rows` writes each game as CSV, and `statistics` holds the Wilson
//! interval and two runs compared game by game ([`paired`]).

pub mod oracle;
mod report;
mod rows;
mod run;
mod spec;
mod statistics;

pub use report::{Percentiles, Report, Times, describe};
pub use rows::{GameRow, read_games, write_games};
pub use run::{Config, run};
pub use spec::BotSpec;
pub use statistics::{Paired, against_self_play, paired, wilson_interval};
