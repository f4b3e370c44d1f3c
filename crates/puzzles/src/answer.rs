//! A submitted answer judged, and the hand played out both ways.

use euchre_engine::Action;
use euchre_engine::sim::Solver;
use serde::{Deserialize, Serialize};

use crate::line::play_out;
use crate::puzzle::{BrokenPuzzle, Line, Puzzle};

/// What a submitted answer was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// One of the best answers.
    Best,
    /// A legal option, but not one of the best.
    NotBest,
}

/// Why an answer cannot be judged. A client sends the answer, so every
/// way it can be wrong is an error, never a panic.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnswerError {
    #[error("that is not one of the puzzle's options")]
    NotAnOption,
    #[error(transparent)]
    Broken(#[from] BrokenPuzzle),
}

impl AnswerError {
    /// A stable code for the wire.
    pub fn code(&self) -> &'static str {
        match self {
            AnswerError::NotAnOption => "not_an_option",
            AnswerError::Broken(_) => "broken_puzzle",
        }
    }
}

/// The rest of the hand played from the best answer and from the one
/// submitted, every card shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BothWays {
    pub best: Line,
    pub answer: Line,
}

impl Puzzle {
    /// Whether `answer` is one of the best answers.
    pub fn judge(&self, answer: Action) -> Result<Verdict, AnswerError> {
        if !self.question.options.contains(&answer) {
            return Err(AnswerError::NotAnOption);
        }
        Ok(if self.answers.contains(&answer) { Verdict::Best } else { Verdict::NotBest })
    }

    /// "See it played": the rest of the hand from the best answer and from
    /// `answer`, each with every card shown (the bidding finished by the
    /// basic bot's bids, the cards by the solver's best play). When
    /// `answer` is a best answer, the best line starts with it.
    pub fn see_it_played(&self, answer: Action) -> Result<BothWays, AnswerError> {
        self.judge(answer)?;
        let hand = self.position()?;
        let seat = self.question.seat;
        let first = if self.answers.contains(&answer) {
            answer
        } else {
            *self.answers.first().ok_or(BrokenPuzzle)?
        };
        let mut solver = Solver::new();
        let best = play_out(&hand, seat, first, &mut solver).ok_or(BrokenPuzzle)?;
        let answer = play_out(&hand, seat, answer, &mut solver).ok_or(BrokenPuzzle)?;
        Ok(BothWays { best, answer })
    }
}
