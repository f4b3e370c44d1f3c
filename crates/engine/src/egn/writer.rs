//! Writing a [`GameRecord`] as EGN ([`write()`]), and what EGN cannot say
//! ([`WriteError`]).
//!
//! [`write()`] turns the engine's [`GameRecord`] into EGN with full
//! `playerCards`, the calls, the discard and the tricks.
//!
//! EGN has no notation for a claim or a concession, so the rest of such a
//! hand is written out as legal plays in which the side that got the
//! remaining tricks wins every one of them ([`playout::play_out`]): a
//! claimant leads his winners from the highest down while the others play
//! their lowest legal card. The replay gives the same tricks, outcome and
//! points. The deal's `playAnnotations` say so at the first written-out card
//! (keyed by its index among the deal's cards, as EGN keys them), and the
//! file's `description` says that the record holds such hands. A claim can
//! always be written out (the engine accepts only a certain claim); a
//! concession can be unless it gave away a trick its side wins however the
//! cards are played (a player may concede holding the right bower).
//!
//! What EGN cannot say is an error ([`WriteError`]): such a concession,
//! farmer's hands (EGN has no such action), and scoring other than 1, 2 and 2
//! for a made hand, a march and a euchre. A hand still in progress at the end of the record is
//! left out. Rule options EGN does not name (the dealer discarding the card he
//! picked up, naming the turned-down suit counting as a pass, the first
//! dealer) are dropped: a record legal under them replays legally, with the
//! same scores, under the defaults [`read`](super::read) uses.

use super::raw::{
    RawBidding, RawDeal, RawFile, RawInitialState, RawMetadata, RawPhase, RawPlay, RawPlayer,
    RawRuleset,
};
use super::reader::egn_code;
use super::{FILE_TYPE, PLAYERS, VERSION};
use crate::action::{Action, HandOutcome};
use crate::card::CardSet;
use crate::playout::{self, PlayOutError, PlayedOut};
use crate::record::{GameRecord, HandRecord};
use crate::rules::{AllPass, Deck, LonerLead, Rules, Scoring, TurnedDownSuit};

/// Why a [`GameRecord`] cannot be written as EGN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("EGN needs 4 player names, {0} given")]
    Players(usize),
    #[error("EGN cannot state these rules: {0}")]
    Rules(&'static str),
    #[error("hand {hand}: EGN has no {action}")]
    Inexpressible { hand: usize, action: &'static str },
    #[error("hand {hand} is not finished, but later hands follow")]
    Unfinished { hand: usize },
    #[error("the seating names player {0}, who is not in the list")]
    Seating(u8),
    /// A claim or concession could not be written out as plays: the record
    /// does not replay, which means a corrupt record or a bug.
    #[error("hand {hand}: the claim or concession cannot be written out: {reason}")]
    PlayOut { hand: usize, reason: String },
}

/// Writes `record` as EGN. `players` are the names in joining order; the
/// record's seating puts them in their seats. The opening comment of
/// `egn/writer.rs` says what EGN cannot express.
pub fn write(record: &GameRecord, players: &[String]) -> Result<String, WriteError> {
    if players.len() != usize::from(PLAYERS) {
        return Err(WriteError::Players(players.len()));
    }
    let names = record
        .start
        .seating
        .iter()
        .map(|player| {
            players
                .get(usize::from(*player))
                .map(|name| RawPlayer::Name(name.clone()))
                .ok_or(WriteError::Seating(*player))
        })
        .collect::<Result<_, _>>()?;
    let rules = &record.rules;
    let defaults = Scoring::default();
    let scoring = rules.scoring;
    if (scoring.made, scoring.march, scoring.euchre)
        != (defaults.made, defaults.march, defaults.euchre)
    {
        return Err(WriteError::Rules("made, march and euchre scores other than 1, 2 and 2"));
    }
    if rules.rubber {
        return Err(WriteError::Rules("a rubber (EGN records one game)"));
    }
    if rules.game_hands.is_some() {
        return Err(WriteError::Rules("a game of a fixed number of hands"));
    }
    if !rules.partnerships() {
        return Err(WriteError::Rules("a game without partnerships (two- or three-handed)"));
    }
    if rules.call_for_best {
        return Err(WriteError::Rules("call for best (partners_best with cardExchanges)"));
    }
    if rules.defend_alone && scoring.defender_alone_euchre != defaults.defender_alone_euchre {
        return Err(WriteError::Rules("a lone defender's euchre scoring other than 4"));
    }
    let ruleset = RawRuleset {
        std: Some(rules.all_pass == AllPass::StickTheDealer),
        min_rank: Some(match rules.deck {
            Deck::TenToAce => 10,
            Deck::NineToAce => 9,
            Deck::EightToAce => 8,
            Deck::SevenToAce => 7,
        }),
        winning_score: Some(i64::from(rules.points_to_win)),
        loner_lead: Some(
            match rules.loner_lead {
                LonerLead::LeftOfDealer => "LEFT_OF_DEALER",
                LonerLead::LeftOfLoner => "LEFT_OF_LONER",
            }
            .to_owned(),
        ),
        loner_march_score: Some(i64::from(scoring.lone_march)),
        loner_euchred_score: Some(i64::from(scoring.lone_euchre)),
        farmers: Some(rules.farmers_hand),
        // Written only when on, so records under the other rules read as before.
        canadian: rules.canadian_loner.then_some(true),
        defend_alone: rules.defend_alone.then_some(true),
        allow_no_trump: rules.allow_no_trump.then_some(true),
        joker: rules.joker.then_some(true),
        ..RawRuleset::default()
    };
    let mut deals = Vec::with_capacity(record.hands.len());
    let mut written_out = false;
    for (number, hand) in record.hands.iter().enumerate() {
        if hand.outcome.is_none() {
            if number + 1 == record.hands.len() {
                break; // the hand in progress: left out
            }
            return Err(WriteError::Unfinished { hand: number });
        }
        let played_out = playout::play_out(rules, hand).map_err(|error| match error {
            PlayOutError::NoPlayOut { .. } => WriteError::Inexpressible {
                hand: number,
                action: "concession of tricks its side wins however the cards are played",
            },
            error => WriteError::PlayOut { hand: number, reason: error.to_string() },
        })?;
        written_out |= played_out.is_some();
        let deal = raw_deal(rules, number, hand, played_out.as_ref())?;
        deals.push(serde_json::to_value(deal).map_err(|_| WriteError::Rules("unserializable"))?);
    }
    let file = RawFile {
        file_type: FILE_TYPE.to_owned(),
        version: VERSION.to_owned(),
        metadata: RawMetadata {
            title: None,
            description: written_out.then(|| {
                "Claims and concessions are written out as card play, as EGN has no notation \
                 for them; playAnnotations say where each one was."
                    .to_owned()
            }),
            players: names,
            initial_score: vec![0, 0],
            final_score: record
                .winner
                .map(|_| record.scores.iter().map(|score| i64::from(*score)).collect()),
            ruleset: Some(ruleset),
        },
        deals,
    };
    serde_json::to_string_pretty(&file).map_err(|_| WriteError::Rules("unserializable"))
}

/// A claim or concession in words, for the annotation at its first written-out card.
fn played_out_note(played_out: &PlayedOut) -> String {
    match played_out.ending {
        playout::Ending::Claim { seat } => format!(
            "{seat} claimed the remaining tricks here. EGN has no claim, so the rest of the hand \
             is written out as legal plays that give the same tricks: the claiming side plays its \
             highest card, the other side its lowest."
        ),
        playout::Ending::Concession { seat } => format!(
            "{seat} conceded the remaining tricks here. EGN has no concession, so the rest of the \
             hand is written out as legal plays in which the conceding side takes no trick."
        ),
    }
}

fn raw_deal(
    rules: &Rules,
    number: usize,
    hand: &HandRecord,
    played_out: Option<&PlayedOut>,
) -> Result<RawDeal, WriteError> {
    let deal = &hand.deal;
    // A claim or concession is written as the plays that stand for it.
    let actions = played_out.map_or(&hand.actions[..], |p| &p.actions[..]);
    let mut calls = Vec::new();
    let mut alone = false;
    let mut made = false;
    let mut alone_defender = None;
    let mut discard = None;
    let mut plays = Vec::new();
    for taken in actions {
        match taken.action {
            // After trump is made, a pass is a defender's answer to a loner.
            Action::Pass if made => {}
            Action::Pass => calls.push("Pass".to_owned()),
            Action::DefendAlone => alone_defender = Some(i64::from(taken.seat.0)),
            Action::OrderUp { alone: a } => {
                calls.push("Order".to_owned());
                alone = a;
                made = true;
            }
            // Naming the turned-down suit is accepted only where it counts as a pass.
            Action::Call { suit, .. } if suit == deal.up_card.suit() => {
                debug_assert_eq!(rules.turned_down_suit, TurnedDownSuit::CountsAsPass);
                calls.push("Pass".to_owned());
            }
            Action::Call { suit, alone: a } => {
                calls.push(suit.letter().to_string());
                alone = a;
                made = true;
            }
            Action::CallNoTrump { alone: a } => {
                calls.push("n".to_owned());
                alone = a;
                made = true;
            }
            Action::Discard { card } => discard = Some(egn_code(card)),
            Action::Play { card } => plays.push(egn_code(card)),
            Action::FarmersHand => {
                return Err(WriteError::Inexpressible { hand: number, action: "farmer's hand" });
            }
            Action::Claim => {
                return Err(WriteError::Inexpressible { hand: number, action: "claim" });
            }
            Action::Concede => {
                return Err(WriteError::Inexpressible { hand: number, action: "concession" });
            }
            Action::PassCard { .. } => {
                return Err(WriteError::Inexpressible { hand: number, action: "card exchange" });
            }
            Action::NameSuit { .. } => {
                return Err(WriteError::Inexpressible { hand: number, action: "joker suit" });
            }
        }
    }
    let per_trick = 4 - usize::from(alone) - usize::from(alone_defender.is_some());
    let mut phases = vec![RawPhase::Bidding(RawBidding {
        phase_number: Some(0),
        calls,
        is_alone: alone,
        discard,
        alone_defender,
        card_exchanges: None,
    })];
    if matches!(hand.outcome, Some(HandOutcome::Played(_))) {
        phases.push(RawPhase::Play(RawPlay {
            phase_number: Some(1),
            tricks: plays.chunks(per_trick).map(<[String]>::to_vec).collect(),
            is_alone: false,
            initial_lead: None,
            play_annotations: played_out
                .map(|p| serde_json::json!({ p.first_written.to_string(): [played_out_note(p)] })),
        }));
    }
    let codes = |cards: CardSet| cards.iter().map(egn_code).collect();
    Ok(RawDeal {
        deal_number: Some(number as i64),
        initial_state: RawInitialState {
            dealer: i64::from(deal.dealer.0),
            up_card: egn_code(deal.up_card),
            player_cards: Some(deal.hands.iter().map(|hand| codes(*hand)).collect()),
            player_cards_snake: None,
            kitty: None,
        },
        phases,
    })
}
