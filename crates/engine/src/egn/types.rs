//! The typed record ([`EgnGame`], [`EgnDeal`], [`Call`]), where in a file
//! something happened ([`Location`], [`Step`]), and the errors of reading
//! ([`EgnError`]) and of replaying ([`VerifyError`]).
//!
//! Errors name positions as 0-based indexes into the file, as EGN numbers
//! deals and annotations: "deal 3, trick 2, card 1" is `deals[3]`, that deal's
//! `tricks[2][1]`; "call 5" is `calls[5]`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::action::{Action, Seat};
use crate::card::{Card, CardSet, Suit};
use crate::error::RuleError;
use crate::rules::Rules;

/// An EGN file, read and checked for form (not yet for legality: see [`verify`](super::verify)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EgnGame {
    pub version: String,
    pub title: Option<String>,
    /// Names by seat, clockwise from seat 0.
    pub players: Vec<String>,
    /// Team scores before the first deal: `[team 0, team 1]`.
    pub initial_score: [u16; 2],
    /// The final score the file claims, if it says.
    pub final_score: Option<[u16; 2]>,
    pub rules: Rules,
    pub deals: Vec<EgnDeal>,
}

/// One deal as the file records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EgnDeal {
    /// The file's `dealNumber`.
    pub number: Option<u32>,
    pub dealer: Seat,
    pub up_card: Card,
    /// Cards the file says each seat was dealt: usually none, sometimes a
    /// whole hand (five cards), which then must agree with the play.
    pub dealt: [CardSet; 4],
    /// Face-down kitty cards the file names.
    pub kitty: CardSet,
    /// The calls in order, from the player left of the dealer.
    pub calls: Vec<Call>,
    /// The maker went alone.
    pub alone: bool,
    /// The dealer's discard, if known.
    pub discard: Option<Card>,
    /// Each trick's cards in playing order, starting with its leader.
    pub tricks: Vec<Vec<Card>>,
    /// Who led the first trick, when the file says (a non-schema field).
    pub initial_lead: Option<Seat>,
    /// The defender who played alone against the loner (`aloneDefender`).
    pub alone_defender: Option<Seat>,
}

/// A call in the bidding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Call {
    Pass,
    /// Round one: order up the up-card's suit.
    Order,
    /// Round two: name a suit.
    Name(Suit),
    /// Round two: no trump (`n`).
    NoTrump,
}

// ---- Positions and errors ------------------------------------------------------

/// A step within a deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// The file's header: metadata, players, ruleset.
    Header,
    /// The deal's initial state: dealer, up-card, dealt cards, kitty.
    Setup,
    Call {
        index: usize,
    },
    Discard,
    Card {
        trick: usize,
        card: usize,
    },
    /// After the deal's last recorded step.
    End,
}

/// Where in a file something happened: a deal (its index in `deals`) and a
/// step. Read back too: the HTTP API's clients read it from an error answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub deal: Option<usize>,
    #[serde(flatten)]
    pub step: Step,
}

impl Location {
    pub(super) const HEADER: Location = Location { deal: None, step: Step::Header };

    pub(super) fn new(deal: usize, step: Step) -> Location {
        Location { deal: Some(deal), step }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Header => f.write_str("header"),
            Step::Setup => f.write_str("initial state"),
            Step::Call { index } => write!(f, "call {index}"),
            Step::Discard => f.write_str("discard"),
            Step::Card { trick, card } => write!(f, "trick {trick}, card {card}"),
            Step::End => f.write_str("end"),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.deal {
            Some(deal) => write!(f, "deal {deal}, {}", self.step),
            None => write!(f, "{}", self.step),
        }
    }
}

/// Why a file cannot be read as EGN.
#[derive(Debug, thiserror::Error)]
pub enum EgnError {
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not an EGN file: fileType is {0:?}, expected \"Euchre Game Notation\"")]
    NotEgn(Option<String>),
    #[error("{at}: {feature} is not supported by this engine")]
    Unsupported { at: Location, feature: String },
    #[error("{at}: {reason}")]
    Invalid { at: Location, reason: String },
}

impl EgnError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            EgnError::Json(_) => "not_json",
            EgnError::NotEgn(_) => "not_egn",
            EgnError::Unsupported { .. } => "unsupported",
            EgnError::Invalid { .. } => "invalid_egn",
        }
    }

    pub fn location(&self) -> Option<Location> {
        match self {
            EgnError::Unsupported { at, .. } | EgnError::Invalid { at, .. } => Some(*at),
            _ => None,
        }
    }

    pub(super) fn invalid(at: Location, reason: impl Into<String>) -> EgnError {
        EgnError::Invalid { at, reason: reason.into() }
    }

    pub(super) fn unsupported(at: Location, feature: impl Into<String>) -> EgnError {
        EgnError::Unsupported { at, feature: feature.into() }
    }
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The engine refused a step.
    #[error("{at}: {} by {seat} is illegal: {error}", describe(*action))]
    Illegal { at: Location, seat: Seat, action: Action, error: RuleError },
    /// The record contradicts itself, so no deal can explain it.
    #[error("{at}: {reason}")]
    Inconsistent { at: Location, reason: String },
    /// The seat the record implies is not the seat the engine expects. The
    /// replay derives both from the same rules, so this means a bug.
    #[error("{at}: the record has {record} play, the engine expects {engine}")]
    TurnMismatch { at: Location, record: Seat, engine: Seat },
    /// A card that does not follow suit from a seat that held the suit led.
    /// `held` are its cards of that suit then; `proof` says how each is known
    /// (played later in the deal, listed in `playerCards`, the up-card).
    #[error("{at}: play {card} by {seat} is a renege: {led} were led and it held {proof}")]
    Renege { at: Location, seat: Seat, card: Card, led: Suit, held: CardSet, proof: String },
    /// A deal stops before its hand is over, yet more deals follow.
    #[error("{at}: the deal stops before the hand is over, yet more deals follow")]
    IncompleteDeal { at: Location },
}

impl VerifyError {
    /// The engine's error code for an illegal step, or a code of our own.
    pub fn code(&self) -> &'static str {
        match self {
            VerifyError::Illegal { error, .. } => error.code(),
            VerifyError::Inconsistent { .. } => "inconsistent_record",
            VerifyError::TurnMismatch { .. } => "turn_mismatch",
            // The engine's code for the same play.
            VerifyError::Renege { .. } => "must_follow_suit",
            VerifyError::IncompleteDeal { .. } => "incomplete_deal",
        }
    }

    pub fn location(&self) -> Location {
        match self {
            VerifyError::Illegal { at, .. }
            | VerifyError::Inconsistent { at, .. }
            | VerifyError::TurnMismatch { at, .. }
            | VerifyError::Renege { at, .. }
            | VerifyError::IncompleteDeal { at } => *at,
        }
    }

    pub(super) fn inconsistent(at: Location, reason: impl Into<String>) -> VerifyError {
        VerifyError::Inconsistent { at, reason: reason.into() }
    }
}

/// An action in words: "play Qs", "order up alone", "call hearts".
pub fn describe(action: Action) -> String {
    let alone = |alone: bool| if alone { " alone" } else { "" };
    match action {
        Action::Pass => "pass".to_owned(),
        Action::OrderUp { alone: a } => format!("order up{}", alone(a)),
        Action::Call { suit, alone: a } => format!("call {suit}{}", alone(a)),
        Action::Discard { card } => format!("discard {card}"),
        Action::Play { card } => format!("play {card}"),
        other => other.name().replace('_', " "),
    }
}
