//! A puzzle and its parts, as the server stores them (JSON): the question
//! a solver is shown, the answers, and the solution shown after answering.

use euchre_engine::{
    Action, Card, Deal, GameView, Hand, HandOutcome, NoEvents, Phase, Seat, SeatAction, Suit,
};
use serde::{Deserialize, Serialize};

/// One puzzle drawn from a real hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// What the solver is shown before answering: only what the seat saw.
    pub question: Question,
    /// The best options, equally good (one, or a few such as two touching
    /// cards); each is a correct answer.
    pub answers: Vec<Action>,
    /// What the position is about, where it can be named from the position.
    pub themes: Vec<Theme>,
    /// Where it was found.
    pub source: Source,
    /// Every card and the reasons: for after the answer.
    pub solution: Solution,
}

/// The position as the seat saw it, and what it could do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub kind: Kind,
    /// The seat to act.
    pub seat: Seat,
    /// The seat's own view at the decision (the engine's: its hand, the
    /// up-card or trump, the bids, the tricks so far, the score), which
    /// never carries a card the seat could not see.
    pub view: GameView,
    /// Every option, the answers among them, in the engine's order.
    pub options: Vec<Action>,
}

/// What kind of decision a puzzle asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A bid or a pass (ordering up, calling, going alone, defending alone).
    Bid,
    /// The dealer's discard, or the loner's with call for best.
    Discard,
    /// A card to play.
    Card,
}

/// What a puzzle is about, named from the position and its answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// In round one, the answer orders the up-card up.
    OrderingUp,
    /// The answer makes trump alone.
    GoingAlone,
    /// The dealer has picked the up-card up and chooses what to discard.
    DealersDiscard,
    /// The seat leads and every answer is a trump.
    LeadingTrump,
    /// The seat cannot follow the suit led and every answer is a trump.
    Ruffing,
    /// Two tricks or more are done, trumps have fallen in them and the seat
    /// holds trump: which trumps are still out decides the play.
    CountingTrump,
    /// A maker plays alone and the seat defends: one trick saves the side
    /// from the loner's four points.
    SavingTheLoner,
}

/// The match, hand and action a puzzle was drawn from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The caller's name for the match (the server's match id).
    pub match_id: String,
    /// The hand's number in the match, from 0.
    pub hand: u32,
    /// The decision's place among the hand's recorded actions, from 0.
    pub action: u32,
    /// What was played there.
    pub played: Action,
    /// Whether a person sat in the seat (not a bot).
    pub by_human: bool,
}

/// The solution: revealed only once the puzzle is answered, as it carries
/// every card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// The hand's deal.
    pub deal: Deal,
    /// The hand's actions before the decision.
    pub before: Vec<SeatAction>,
    /// Each option valued both ways.
    pub values: Vec<OptionValue>,
    /// The worlds the expected points average over.
    pub worlds: u32,
    /// The first answer, the rest of the hand played out with every card
    /// shown.
    pub line: Line,
    /// Why, in words: both views' numbers and the solver's line.
    pub why: String,
}

/// One option's values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionValue {
    pub action: Action,
    /// For a card: the tricks the seat's side takes with every card shown,
    /// both sides playing perfectly afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tricks: Option<u8>,
    /// The points it brings the seat's side less the others', on average
    /// over the worlds the seat's view allowed (the analysis's value).
    pub expected: f64,
}

/// The rest of a hand played out from one option, every card shown: the
/// bidding finished by the basic bot's bids (the analysis's model of the
/// others), the cards by the solver's best play for each side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// The option the line starts with.
    pub first: Action,
    /// Who made trump, in what, and alone or not (`None`: thrown in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made: Option<Made>,
    /// The cards played from the decision on, in order.
    pub plays: Vec<(Seat, Card)>,
    /// How the hand ends.
    pub outcome: Option<HandOutcome>,
    /// The tricks the seat's side ends the hand with.
    pub tricks: u8,
    /// The points the hand brings the seat's side less the others'.
    pub points: f64,
}

/// Trump as it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Made {
    pub maker: Seat,
    /// `None` at no trump.
    pub trump: Option<Suit>,
    pub alone: bool,
}

/// A stored puzzle that does not hold together (its deal or actions do not
/// replay): never expected of one this crate made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the puzzle's position does not replay")]
pub struct BrokenPuzzle;

impl Puzzle {
    /// The hand as it stood at the decision, every card in place.
    pub fn position(&self) -> Result<Hand, BrokenPuzzle> {
        let rules = self.question.view.rules;
        self.solution.deal.validate(&rules).map_err(|_| BrokenPuzzle)?;
        let mut hand = Hand::new(rules, self.solution.deal);
        for step in &self.solution.before {
            hand.apply_with(step.seat, step.action, &mut NoEvents).map_err(|_| BrokenPuzzle)?;
        }
        let to_act = hand.turn() == Some(self.question.seat) && hand.phase() != Phase::Finished;
        to_act.then_some(hand).ok_or(BrokenPuzzle)
    }
}
