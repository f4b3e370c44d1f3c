//! The engine example's simple bot (crates/engine/examples/play.rs), as a
//! yardstick a little better than random. A copy, so that the example stays
//! free to change.

use euchre_bots::Bot;
use euchre_engine::trump::{effective_suit, power, trick_power};
use euchre_engine::{Action, Card, GameView, Suit};

#[derive(Debug)]
pub struct NaiveBot;

impl Bot for NaiveBot {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        Some(choose(view, legal))
    }
}

fn choose(view: &GameView, legal: &[Action]) -> Action {
    let hand = view.hand.clone().unwrap_or_default();
    let strength = |trump: Suit| -> u32 {
        hand.iter()
            .filter(|c| effective_suit(**c, trump) == trump)
            .map(|c| u32::from(power(*c, trump)) - 10)
            .sum()
    };
    let best = |actions: &mut dyn Iterator<Item = Action>, key: &dyn Fn(&Action) -> i32| {
        actions.max_by_key(|a| key(a))
    };
    if let Some(Action::Discard { .. }) = legal.first() {
        let trump = view.trump.unwrap_or(Suit::Spades);
        let cheapest = best(&mut legal.iter().copied(), &|a| match a {
            Action::Discard { card } => -i32::from(power(*card, trump)),
            _ => i32::MIN,
        });
        return cheapest.unwrap_or(legal[0]);
    }
    if legal.iter().any(|a| matches!(a, Action::Play { .. })) {
        return play_card(view, legal);
    }
    let call = best(&mut legal.iter().copied(), &|a| match a {
        Action::OrderUp { alone: false } => strength(view.up_card.suit()) as i32,
        Action::Call { suit, alone: false } => strength(*suit) as i32,
        _ => i32::MIN,
    });
    let forced = !legal.contains(&Action::Pass);
    match call {
        Some(action @ (Action::OrderUp { .. } | Action::Call { .. })) => {
            let suit = match action {
                Action::Call { suit, .. } => suit,
                _ => view.up_card.suit(),
            };
            if forced || strength(suit) >= 28 { action } else { Action::Pass }
        }
        _ => legal.first().copied().unwrap_or(Action::Pass),
    }
}

fn play_card(view: &GameView, legal: &[Action]) -> Action {
    let trump = view.trump.unwrap_or(Suit::Spades);
    let cards: Vec<Card> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    let trick = view.tricks.last().filter(|t| t.winner.is_none()).map(|t| t.cards.as_slice());
    let cheapest = |cards: &mut dyn Iterator<Item = Card>| cards.min_by_key(|c| power(*c, trump));
    let card = match trick {
        Some(played) if !played.is_empty() => {
            let led = effective_suit(played[0].1, trump);
            let winning =
                played.iter().map(|(_, c)| trick_power(*c, led, trump)).max().unwrap_or(0);
            cheapest(&mut cards.iter().copied().filter(|c| trick_power(*c, led, trump) > winning))
                .or_else(|| cheapest(&mut cards.iter().copied()))
        }
        _ => cards.iter().copied().max_by_key(|c| power(*c, trump)),
    };
    card.map(|card| Action::Play { card }).unwrap_or(legal[0])
}
