//! A weak but sensible opponent: the arena's yardstick a little above random.

use euchre_engine::trump::{effective_suit, power, trick_power};
use euchre_engine::{Action, Card, GameView, Suit};

use crate::{Bot, legal_or_first};

/// Bids on the trumps it holds alone, wins a trick with its cheapest winning
/// card, otherwise throws its cheapest card, and leads its strongest. No
/// memory of what was played, no idea of a partner.
///
/// It has no random element: the same view always gets the same action.
#[derive(Clone, Copy, Debug, Default)]
pub struct NaiveBot;

/// The sum of trump powers (less ten each) at which it makes trump.
const CALL: u32 = 28;

impl Bot for NaiveBot {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        legal_or_first(decide(view, legal), legal)
    }
}

fn decide(view: &GameView, legal: &[Action]) -> Option<Action> {
    let hand = view.hand.as_deref().unwrap_or_default();
    let strength = |trump: Suit| -> u32 {
        hand.iter()
            .filter(|card| effective_suit(**card, trump) == trump)
            .map(|card| u32::from(power(*card, trump)).saturating_sub(10))
            .sum()
    };
    let trump = view.trump.unwrap_or(Suit::Spades);
    if legal.iter().any(|action| matches!(action, Action::Discard { .. })) {
        // The last of the weakest: ties go as they always have.
        return cards_of(legal)
            .max_by_key(|card| std::cmp::Reverse(power(*card, trump)))
            .map(|card| Action::Discard { card });
    }
    if legal.iter().any(|action| matches!(action, Action::Play { .. })) {
        return play_card(view, legal, trump);
    }
    // Bidding: the strongest call, if it is strong enough (or forced).
    let forced = !legal.contains(&Action::Pass);
    let call = legal
        .iter()
        .filter_map(|action| match *action {
            Action::OrderUp { alone: false } => Some((*action, strength(view.up_card.suit()))),
            Action::Call { suit, alone: false } => Some((*action, strength(suit))),
            _ => None,
        })
        .max_by_key(|(_, strength)| *strength);
    match call {
        Some((action, strength)) if forced || strength >= CALL => Some(action),
        _ if legal.contains(&Action::Pass) => Some(Action::Pass),
        // Naming the joker's suit, passing a card: whatever comes first.
        _ => None,
    }
}

fn cards_of(legal: &[Action]) -> impl Iterator<Item = Card> + '_ {
    legal.iter().filter_map(|action| match action {
        Action::Play { card } | Action::Discard { card } | Action::PassCard { card } => Some(*card),
        _ => None,
    })
}

/// The cheapest card that takes the trick, else the cheapest card; on lead
/// the strongest.
fn play_card(view: &GameView, legal: &[Action], trump: Suit) -> Option<Action> {
    let trick = view.tricks.last().filter(|trick| trick.winner.is_none());
    let card = match trick.map(|trick| trick.cards.as_slice()) {
        Some(played @ [(_, lead), ..]) => {
            let led = effective_suit(*lead, trump);
            let winning = played.iter().map(|(_, c)| trick_power(*c, led, trump)).max();
            let winning = winning.unwrap_or(0);
            cards_of(legal)
                .filter(|card| trick_power(*card, led, trump) > winning)
                .min_by_key(|card| power(*card, trump))
                .or_else(|| cards_of(legal).min_by_key(|card| power(*card, trump)))
        }
        _ => cards_of(legal).max_by_key(|card| power(*card, trump)),
    };
    card.map(|card| Action::Play { card })
}
