//! Card play: what to lead, and how to follow.

use euchre_engine::{Card, CardSet};

use super::Seen;

/// The card to play from `playable` (the legal plays, never empty in play).
pub(super) fn choose_card(seen: &Seen, playable: CardSet) -> Option<Card> {
    if seen.trick.is_empty() { lead(seen, playable) } else { follow(seen, playable) }
}

fn lead(seen: &Seen, playable: CardSet) -> Option<Card> {
    let trumps = playable.intersection(seen.trumps());
    let highest_trump = trumps.iter().max_by_key(|card| seen.power(*card));
    let trumps_out = !seen.trumps_out().is_empty();
    let our_call = seen.maker.is_some_and(|maker| !seen.is_opponent(maker));

    // The makers draw the opponents' trumps with a sure winner: the right
    // bower first, then whatever has become the best trump left.
    if our_call
        && trumps_out
        && let Some(top) = highest_trump
        && seen.is_boss(top)
    {
        return Some(top);
    }

    // Lead trump to a partner who made it, to help draw the opponents'
    // trumps: the lowest, as any higher one was not sure to win.
    let lowest_trump = trumps.iter().min_by_key(|card| seen.power(*card));
    if seen.maker.is_some() && seen.maker == seen.partner() && trumps_out && lowest_trump.is_some()
    {
        return lowest_trump;
    }

    // Cash a plain-suit winner (an ace, or a king once the ace is gone)
    // unless an opponent has shown out of that suit and may trump it. Of
    // several, take the suit with the most cards still out: the likelier the
    // opponents must follow.
    let ruffable = |card: Card| {
        trumps_out
            && seen.active_opponents().any(|opponent| {
                seen.void(opponent, card.suit())
                    && seen.trump().is_some_and(|trump| !seen.void(opponent, trump))
            })
    };
    let cash = playable
        .iter()
        .filter(|card| !seen.is_trump(*card) && seen.is_boss(*card) && !ruffable(*card))
        .max_by_key(|card| seen.suit_cards(card.suit()).intersection(seen.unseen).len());
    if cash.is_some() {
        return cash;
    }

    // With no trump left outside this hand, any trump is a sure trick.
    if !trumps_out && highest_trump.is_some() {
        return highest_trump;
    }

    // Otherwise a low plain card, from the shortest suit so that a void (and
    // a chance to trump) comes sooner; holding only trumps, the best of them.
    let plain = playable.difference(trumps);
    plain
        .iter()
        .min_by_key(|card| (seen.power(*card), suit_length(playable, *card, seen)))
        .or(highest_trump)
}

fn follow(seen: &Seen, playable: CardSet) -> Option<Card> {
    let &(_, first) = seen.trick.first()?;
    let led = seen.suit_of(first);
    let cards: Vec<Card> = seen.trick.iter().map(|(_, card)| *card).collect();
    let &(winner, winning) = seen.trick.get(seen.winner(&cards))?;
    let to_beat = seen.trick_power(winning, led);
    let beaters: Vec<Card> =
        playable.iter().filter(|card| seen.trick_power(*card, led) > to_beat).collect();
    let cheapest = |cards: &mut dyn Iterator<Item = Card>| {
        cards.min_by_key(|card| seen.trick_power(*card, led))
    };

    if winner != seen.me && !seen.is_opponent(winner) {
        // Partner's card (or, three-handed, the other defender's) will hold:
        // do not waste a card overtaking it.
        if seen.safe(winning, led) {
            return throw_off(seen, playable);
        }
        // It may be beaten by an opponent still to play: take over only with
        // a card that is sure to win, and otherwise keep our good cards.
        let sure = cheapest(&mut beaters.iter().copied().filter(|card| seen.safe(*card, led)));
        return sure.or_else(|| throw_off(seen, playable));
    }

    // An opponent is winning: win as cheaply as will hold against the
    // players still to come (trumping in when void), else as cheaply as
    // possible; if nothing wins, give away the least useful card.
    if beaters.is_empty() {
        return throw_off(seen, playable);
    }
    let sure = cheapest(&mut beaters.iter().copied().filter(|card| seen.safe(*card, led)));
    sure.or_else(|| cheapest(&mut beaters.iter().copied()))
}

/// The card that costs least to give away: a plain card before a trump, a
/// loser before a winner, low before high, and from the shortest suit so a
/// void comes sooner.
fn throw_off(seen: &Seen, playable: CardSet) -> Option<Card> {
    playable.iter().min_by_key(|card| {
        let card = *card;
        (
            seen.is_trump(card),
            seen.is_boss(card),
            seen.power(card),
            suit_length(playable, card, seen),
        )
    })
}

/// How many of `cards` share `card`'s effective suit.
fn suit_length(cards: CardSet, card: Card, seen: &Seen) -> u32 {
    cards.intersection(seen.suit_cards(seen.suit_of(card))).len()
}
