//! Puzzles drawn from real hands: the decisions of analysed matches where
//! one choice is clearly best, shown as the seat saw them, judged and
//! played out. Pure: no I/O, no clock; the server stores the puzzles
//! (serde, as JSON) and serves them.
//!
//! ```
//! use euchre_analysis::{Settings, analyse};
//! use euchre_bots::{BasicBot, Bot};
//! use euchre_engine::{Game, Rules, Viewer};
//! use euchre_puzzles::{Match, Verdict, mine};
//!
//! // A match between basic bots, analysed as the server analyses it.
//! let mut game = Game::new(Rules::default(), 3).unwrap();
//! let mut bot = BasicBot::new();
//! while let Some(seat) = game.turn() {
//!     let view = game.view(Viewer::Seat(seat));
//!     let action = bot.choose(&view, &game.legal_actions(seat)).unwrap();
//!     game.apply(seat, action).unwrap();
//! }
//! let analysis = analyse(game.record(), &Settings { worlds: 40, seed: 1 }).unwrap();
//! let found = mine(&Match { id: "m1", record: game.record(), analysis: &analysis, humans: &[] })
//!     .unwrap();
//! assert!(!found.is_empty());
//! for puzzle in &found {
//!     // Each answer is judged best; any other option is not.
//!     assert_eq!(puzzle.judge(puzzle.answers[0]), Ok(Verdict::Best));
//!     let other = puzzle.question.options.iter().find(|o| !puzzle.answers.contains(o)).unwrap();
//!     assert_eq!(puzzle.judge(*other), Ok(Verdict::NotBest));
//!     // The rest of the hand, from the best answer and from what was played.
//!     let both = puzzle.see_it_played(puzzle.source.played).unwrap();
//!     assert_eq!(both.answer.first, puzzle.source.played);
//! }
//! ```
//!
//! # How a puzzle is chosen
//!
//! Each decision of a match's analysis ([`euchre_analysis`]) by a seat a
//! person played (every seat, in a match of bots only) is a candidate.
//! Its options are valued two ways: with every card shown (cards only: the
//! tricks the seat's side takes, both sides playing perfectly after), and
//! over the worlds the seat's view allowed (every decision: expected
//! points). [`select::answers`] keeps it when both views name the same
//! answers:
//!
//! - A card: the card played took at least [`select::TRICKS_LOST`] trick
//!   fewer than the best with every card shown. The answers are the cards
//!   that take the most tricks; over the seat's worlds they lie within
//!   [`select::EQUAL`] points of each other and each beats every other card
//!   by at least [`select::PLAY_GAP`].
//! - A bid, a pass or a discard: the answers are the options within
//!   [`select::EQUAL`] of the best over the seat's worlds, and they beat
//!   every other option by at least [`select::BID_GAP`]. (Whether the
//!   player chose well does not matter: a clear choice is a puzzle.)
//!
//! So a puzzle has one answer, or a set of equally good ones, under both
//! views, and at least one option that is not an answer.
//!
//! Puzzles come from the four-handed game without a joker or no trump
//! ([`supports`]).
//!
//! # What a solver may see
//!
//! The [`Question`] is the seat's own view from the engine
//! ([`euchre_engine::GameView`], which carries only the seat's cards and
//! what was shown to it) and the options. The [`Solution`] holds the deal
//! and the line with every card shown: a server sends it only after the
//! answer. The crate's tests check both: every card in a question is one
//! the seat saw, and each answer is best by a brute-force search of its
//! own, with every card shown and over worlds dealt from the question
//! alone.

mod answer;
mod hint;
mod line;
mod mine;
mod puzzle;
pub mod select;
mod theme;

pub use answer::{AnswerError, BothWays, Verdict};
pub use hint::{HINT_WORLDS, Hint, hint};
pub use mine::{Match, MineError, human_first, mine, supports};
pub use puzzle::{
    BrokenPuzzle, Kind, Line, Made, OptionValue, Puzzle, Question, Solution, Source, Theme,
};
