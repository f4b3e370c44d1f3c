//! Verifying a record: what each deal and the game came to
//! ([`Verification`]) and what is wrong with it ([`Finding`], [`Problem`]).
//! Each deal is rebuilt and replayed in `replay.rs`.
//!
//! [`verify`] stops at the first fault. [`check`] reads the whole record as
//! a referee does and reports every [`Finding`], each with its code, its
//! message and its [`Location`]:
//!
//! - a renege ([`VerifyError::Renege`], the engine's `must_follow_suit`),
//!   with the card and the cards of the suit led the seat held, each with how
//!   it is known: played later in the deal, listed in `playerCards`, or the
//!   up-card the dealer picked up. The renege is then played as it fell, so
//!   the deal goes on, and is scored as played (no penalty is applied);
//! - any other step the engine refuses, or a record that contradicts itself
//!   (a misplaced up-card, a card played twice, a trick short of cards): the
//!   deal cannot be replayed, scores nothing ([`Ending::Damaged`]), and the
//!   check resynchronises at the next deal. The damaged deal's cards after
//!   the fault are still read for reneges the holdings prove, as far as the
//!   bidding gives trump and a leader;
//! - a deal that stops before its hand is over while more follow
//!   (`incomplete_deal`): it scores nothing;
//! - a deal dealt by the wrong seat, a deal numbered as an earlier one,
//!   deals after the game was won (one finding each), a deal repeated word
//!   for word (left out of the score and of the rotation), and a
//!   `finalScore` the deals do not add up to: the [`Problem`]s.
//!
//! The scores are those of the deals that could be scored.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use super::replay::replay_deal;
use super::{Call, EgnDeal, EgnGame, Location, PLAYERS, Step, VerifyError, per_team};
use crate::action::{HandOutcome, PerTeam, Seat, Team};
use crate::card::{Card, CardSet, Suit};
use crate::deal::Deal;
use crate::record::HandRecord;

/// How a deal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Played,
    /// Everybody passed twice (without stick the dealer).
    ThrownIn,
    /// The record stops before the end of the hand.
    Unfinished,
    /// The record is faulty before the hand could be scored (see the
    /// findings): the deal scores nothing.
    Damaged,
    /// The deal repeats an earlier one word for word: it is left out.
    Repeated,
}

/// One deal, replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealResult {
    /// Index in the file's `deals`.
    pub deal: usize,
    pub dealer: Seat,
    pub ending: Ending,
    pub maker: Option<Seat>,
    pub trump: Option<Suit>,
    pub alone: bool,
    /// Tricks won by each team.
    pub tricks: [u8; 2],
    /// Points each team scored on this deal.
    pub points: [u8; 2],
    /// The running score after this deal.
    pub score: [u16; 2],
    /// The deal as replayed: given or reconstructed hands, and the kitty
    /// (`None` for a deal that could not be replayed).
    #[serde(skip)]
    pub cards: Option<Deal>,
}

/// Something wrong with a record whose every step was legal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Problem {
    /// Deals were recorded after a team had already won.
    PlayedAfterGameOver { deal: usize },
    /// The file's `finalScore` is not the score the deals add up to.
    FinalScoreDiffers { recorded: [u16; 2], derived: [u16; 2] },
    /// The deal did not pass to the left.
    DealerOutOfTurn { deal: usize, expected: Seat, recorded: Seat },
    /// The deal is word for word an earlier one (`of`): it is left out of
    /// the score and of the dealers' rotation.
    RepeatedDeal { deal: usize, of: usize },
    /// The deal's `dealNumber` is an earlier deal's (`of`). The deal itself
    /// is another, so it is scored.
    RepeatedDealNumber { deal: usize, number: u32, of: usize },
}

impl Problem {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::PlayedAfterGameOver { .. } => "played_after_game_over",
            Problem::FinalScoreDiffers { .. } => "final_score_differs",
            Problem::DealerOutOfTurn { .. } => "dealer_out_of_turn",
            Problem::RepeatedDeal { .. } => "repeated_deal",
            Problem::RepeatedDealNumber { .. } => "repeated_deal_number",
        }
    }

    /// The deal it concerns, or the header.
    pub fn location(&self) -> Option<Location> {
        match self {
            Problem::PlayedAfterGameOver { deal }
            | Problem::DealerOutOfTurn { deal, .. }
            | Problem::RepeatedDeal { deal, .. }
            | Problem::RepeatedDealNumber { deal, .. } => Some(Location::new(*deal, Step::Setup)),
            Problem::FinalScoreDiffers { .. } => Some(Location::HEADER),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::PlayedAfterGameOver { deal } => {
                write!(f, "deal {deal} was played after the game was won")
            }
            Problem::FinalScoreDiffers { recorded, derived } => {
                write!(f, "finalScore is {recorded:?}, but the deals add up to {derived:?}")
            }
            Problem::DealerOutOfTurn { deal, expected, recorded } => {
                write!(f, "deal {deal} is dealt by {recorded}, expected {expected}")
            }
            Problem::RepeatedDeal { deal, of } => {
                write!(
                    f,
                    "deal {deal} repeats deal {of} word for word; it is left out of the score"
                )
            }
            Problem::RepeatedDealNumber { deal, number, of } => {
                write!(f, "deal {deal} is numbered {number}, as deal {of} is")
            }
        }
    }
}

/// A whole record, replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub players: Vec<String>,
    pub initial_score: [u16; 2],
    pub deals: Vec<DealResult>,
    pub final_score: PerTeam<u16>,
    /// The team that reached the winning score, if one did.
    pub winner: Option<Team>,
    /// The deal on which the game was won.
    pub won_at_deal: Option<usize>,
    /// Findings that are not illegal steps.
    pub problems: Vec<Problem>,
}

/// Something wrong with a record: a step the engine refuses, a record that
/// contradicts itself, or a [`Problem`] with a record whose steps are legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    Fault(VerifyError),
    Problem(Problem),
}

impl Finding {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Finding::Fault(error) => error.code(),
            Finding::Problem(problem) => problem.code(),
        }
    }

    /// Where in the file; `None` for none in particular.
    pub fn location(&self) -> Option<Location> {
        match self {
            Finding::Fault(error) => Some(error.location()),
            Finding::Problem(problem) => problem.location(),
        }
    }

    /// Whether it is a fault (an illegal or impossible step) rather than a problem.
    pub fn is_fault(&self) -> bool {
        matches!(self, Finding::Fault(_))
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Fault(error) => error.fmt(f),
            Finding::Problem(problem) => problem.fmt(f),
        }
    }
}

impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("Finding", 3)?;
        out.serialize_field("code", self.code())?;
        out.serialize_field("message", &self.to_string())?;
        out.serialize_field("location", &self.location())?;
        out.end()
    }
}

/// A whole record read as a referee reads it: every finding, and the
/// scores of the deals that could be scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The replay: damaged and repeated deals score nothing, a deal with a
    /// renege is scored as it was played (no renege penalty is applied).
    /// Its `problems` are the [`Finding::Problem`]s.
    pub verification: Verification,
    /// Every finding, in the file's order (a wrong `finalScore` last).
    pub findings: Vec<Finding>,
}

impl Checked {
    /// The first fault, if any: what [`verify`] returns as its error.
    pub fn first_fault(&self) -> Option<&VerifyError> {
        self.findings.iter().find_map(|finding| match finding {
            Finding::Fault(error) => Some(error),
            Finding::Problem(_) => None,
        })
    }
}

/// Replays every deal of `game`: the first illegal or impossible step is an
/// error; otherwise the result of each deal and of the game. [`check`] reads
/// on past the first fault.
pub fn verify(game: &EgnGame) -> Result<Verification, VerifyError> {
    let checked = check(game);
    match checked.first_fault() {
        Some(error) => Err(error.clone()),
        None => Ok(checked.verification),
    }
}

/// Replays every deal of `game` and reports every finding, not only the
/// first. After a fault the check resynchronises at the next deal; the rest
/// of a damaged deal is still read for reneges its holdings prove (see the
/// opening comment of `egn/verifier.rs`).
pub fn check(game: &EgnGame) -> Checked {
    let (checked, _) = replay_game(game);
    checked
}

/// A deal as compared for repeats: everything the file says of it but its
/// number (a deal copied under another number is still the same deal).
#[derive(PartialEq, Eq, Hash)]
struct DealContent<'a> {
    dealer: Seat,
    up_card: Card,
    dealt: &'a [CardSet; 4],
    kitty: CardSet,
    calls: &'a [Call],
    alone: bool,
    discard: Option<Card>,
    tricks: &'a [Vec<Card>],
    initial_lead: Option<Seat>,
    alone_defender: Option<Seat>,
}

impl<'a> DealContent<'a> {
    fn of(deal: &'a EgnDeal) -> DealContent<'a> {
        // Every field named, so a field added to `EgnDeal` must be placed here.
        let EgnDeal {
            number: _,
            dealer,
            up_card,
            dealt,
            kitty,
            calls,
            alone,
            discard,
            tricks,
            initial_lead,
            alone_defender,
        } = deal;
        DealContent {
            dealer: *dealer,
            up_card: *up_card,
            dealt,
            kitty: *kitty,
            calls,
            alone: *alone,
            discard: *discard,
            tricks,
            initial_lead: *initial_lead,
            alone_defender: *alone_defender,
        }
    }
}

/// [`check`], also returning each deal as the engine replayed it (only
/// those that replayed: all of them when there is no fault).
pub(super) fn replay_game(game: &EgnGame) -> (Checked, Vec<HandRecord>) {
    let target = u16::from(game.rules.points_to_win);
    let reached = |score: [u16; 2]| score.iter().any(|points| *points >= target);
    let mut score = game.initial_score;
    let mut over = reached(score);
    let mut won_at_deal = None;
    let mut findings = Vec::new();
    let mut deals: Vec<DealResult> = Vec::with_capacity(game.deals.len());
    let mut replayed = Vec::with_capacity(game.deals.len());
    let mut previous_dealer: Option<Seat> = None;
    let mut contents: HashMap<DealContent<'_>, usize> = HashMap::with_capacity(game.deals.len());
    let mut numbers: HashMap<u32, usize> = HashMap::new();
    for (index, deal) in game.deals.iter().enumerate() {
        let unscored = |ending| DealResult {
            deal: index,
            dealer: deal.dealer,
            ending,
            maker: None,
            trump: None,
            alone: false,
            tricks: [0, 0],
            points: [0, 0],
            score,
            cards: None,
        };
        // The first deal with each content and with each number: a repeat
        // is found with one lookup, not a comparison with every earlier deal.
        let first_with_number = deal.number.map(|number| *numbers.entry(number).or_insert(index));
        let first_like_it = *contents.entry(DealContent::of(deal)).or_insert(index);
        if first_like_it < index {
            let of = first_like_it;
            findings.push(Finding::Problem(Problem::RepeatedDeal { deal: index, of }));
            deals.push(unscored(Ending::Repeated));
            continue;
        }
        if over {
            findings.push(Finding::Problem(Problem::PlayedAfterGameOver { deal: index }));
        }
        if let Some(expected) = previous_dealer.map(|dealer| dealer.next(PLAYERS))
            && deal.dealer != expected
        {
            let recorded = deal.dealer;
            findings.push(Finding::Problem(Problem::DealerOutOfTurn {
                deal: index,
                expected,
                recorded,
            }));
        }
        previous_dealer = Some(deal.dealer);
        if let (Some(number), Some(of)) = (deal.number, first_with_number.filter(|of| *of < index))
        {
            findings.push(Finding::Problem(Problem::RepeatedDealNumber {
                deal: index,
                number,
                of,
            }));
        }
        let mut faults = Vec::new();
        let played = replay_deal(&game.rules, index, deal, &mut faults);
        findings.extend(faults.into_iter().map(Finding::Fault));
        let Some((hand, cards, actions)) = played else {
            deals.push(unscored(Ending::Damaged));
            continue;
        };
        let outcome = hand.outcome();
        replayed.push(HandRecord { deal: cards, actions, outcome, seal: None });
        let mut ending = match outcome {
            Some(HandOutcome::Played(_)) => Ending::Played,
            Some(HandOutcome::ThrownIn(_)) => Ending::ThrownIn,
            None => Ending::Unfinished,
        };
        if ending == Ending::Unfinished && index + 1 < game.deals.len() {
            let at = Location::new(index, Step::End);
            findings.push(Finding::Fault(VerifyError::IncompleteDeal { at }));
            ending = Ending::Damaged;
        }
        let points = outcome.and_then(|o| o.points()).map(|points| points.pair()).unwrap_or([0, 0]);
        for (total, points) in score.iter_mut().zip(points) {
            *total = total.saturating_add(u16::from(points));
        }
        if !over && reached(score) {
            over = true;
            won_at_deal = Some(index);
        }
        deals.push(DealResult {
            deal: index,
            dealer: deal.dealer,
            ending,
            maker: hand.maker(),
            trump: hand.trump(),
            alone: hand.alone(),
            tricks: hand.tricks_won().pair(),
            points,
            score,
            cards: Some(cards),
        });
    }
    if let Some(recorded) = game.final_score.filter(|recorded| *recorded != score) {
        findings.push(Finding::Problem(Problem::FinalScoreDiffers { recorded, derived: score }));
    }
    let winner = if reached(score) {
        Some(if score[0] >= score[1] { Team(0) } else { Team(1) })
    } else {
        None
    };
    let problems = findings
        .iter()
        .filter_map(|finding| match finding {
            Finding::Problem(problem) => Some(problem.clone()),
            Finding::Fault(_) => None,
        })
        .collect();
    let verification = Verification {
        players: game.players.clone(),
        initial_score: game.initial_score,
        deals,
        final_score: per_team(score),
        winner,
        won_at_deal,
        problems,
    };
    (Checked { verification, findings }, replayed)
}
