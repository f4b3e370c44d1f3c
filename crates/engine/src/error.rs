//! The typed errors `apply` returns. Each has a stable snake_case code for
//! clients and a message for people. An error never changes the game.

use serde::{Serialize, Serializer};

use crate::action::Seat;
use crate::card::{Card, Suit};

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("the game is over")]
    GameOver,
    #[error("{seat} is not at this table")]
    NoSuchSeat { seat: Seat },
    #[error("it is {turn}'s turn, not yours")]
    NotYourTurn { turn: Seat },
    #[error("your partner is playing alone: you sit this hand out")]
    SittingOut,
    #[error("{action} is not possible now: {phase}")]
    NotNow { action: &'static str, phase: &'static str },
    #[error("{card} is not in your hand")]
    CardNotInHand { card: Card },
    #[error("you must follow suit: {led} was led and you hold one")]
    MustFollowSuit { led: Suit },
    #[error("{suit} was turned down this hand and cannot be named")]
    SuitTurnedDown { suit: Suit },
    #[error("stick the dealer: the dealer must name a suit")]
    DealerMustCall,
    #[error("the card picked up ({card}) cannot be discarded under these rules")]
    CannotDiscardUpCard { card: Card },
    #[error("a claim must be made on lead, before playing to the trick")]
    ClaimNotOnLead,
    #[error("claim refused: some holding of the other players could still take a trick")]
    ClaimNotCertain,
    #[error("farmer's hand is not played under these rules")]
    FarmersHandOff,
    #[error("a farmer's hand holds only the two lowest ranks")]
    NotFarmersHand,
    #[error("canadian loner: the dealer's partner may order up only alone")]
    MustGoAlone,
    #[error("no trump may not be called under these rules")]
    NoTrumpOff,
    #[error("nobody goes alone in this game: there is no partner or dummy to play without")]
    NoGoingAlone,
    #[error(
        "with three players only the maker may concede: a defender would give away the other's tricks"
    )]
    OnlyMakerConcedes,
}

impl RuleError {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::GameOver => "game_over",
            RuleError::NoSuchSeat { .. } => "no_such_seat",
            RuleError::NotYourTurn { .. } => "not_your_turn",
            RuleError::SittingOut => "sitting_out",
            RuleError::NotNow { .. } => "not_now",
            RuleError::CardNotInHand { .. } => "card_not_in_hand",
            RuleError::MustFollowSuit { .. } => "must_follow_suit",
            RuleError::SuitTurnedDown { .. } => "suit_turned_down",
            RuleError::DealerMustCall => "dealer_must_call",
            RuleError::CannotDiscardUpCard { .. } => "cannot_discard_up_card",
            RuleError::ClaimNotOnLead => "claim_not_on_lead",
            RuleError::ClaimNotCertain => "claim_not_certain",
            RuleError::FarmersHandOff => "farmers_hand_off",
            RuleError::NotFarmersHand => "not_farmers_hand",
            RuleError::MustGoAlone => "must_go_alone",
            RuleError::NoGoingAlone => "no_going_alone",
            RuleError::NoTrumpOff => "no_trump_off",
            RuleError::OnlyMakerConcedes => "only_maker_concedes",
        }
    }
}

/// Serialized as `{"code": ..., "message": ...}`, the shape clients see.
impl Serialize for RuleError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut state = serializer.serialize_struct("RuleError", 2)?;
        state.serialize_field("code", self.code())?;
        state.serialize_field("message", &self.to_string())?;
        state.end()
    }
}
