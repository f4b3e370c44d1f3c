//! Making trump and the dealer's discard.
//!
//! A hand is scored for a would-be trump suit by adding up what its cards are
//! worth (see [`strength`]); the bot makes trump when the score reaches
//! [`CALL`], after allowing for who gets the up-card.
//!
//! The numbers were tuned by playing variants of the bot against each other
//! over thousands of seeded games: each is near the best of its neighbours.

use euchre_engine::trump::{
    Mode, effective_suit_in, is_left_bower, is_trump, is_trump_in, power_in, suit_cards,
    suit_cards_in,
};
use euchre_engine::{Action, Card, CardSet, Phase, Rank, Seat, Suit};

use super::Situation;

/// The score at which a hand makes trump: roughly "three tricks between me
/// and my partner". Before allowing for the up-card, the right bower, a small
/// trump and two off-suit aces make it (30 + 12 + 10 + 10); three small
/// trumps, an ace and a card of a third suit do not (36 + 10 + a void's 12).
const CALL: i32 = 62;

/// What a void in a plain suit adds, once there are trumps to ruff with.
const VOID: i32 = 12;

/// Sure tricks (see [`sure_tricks_at_no_trump`]) at which a hand calls no
/// trump where the rules allow it, and at which it goes alone.
const NO_TRUMP_CALL: usize = 3;
const NO_TRUMP_ALONE: usize = 5;

/// Extra for naming "next" (the turned-down suit's colour mate) from the seat
/// left of the dealer: the dealer's side passed that colour, and the left
/// bower is likely not with them.
const NEXT_BONUS: i32 = 6;

/// What one card is worth towards making `trump`. Bowers and high trumps
/// count most; off-suit aces count as a likely trick, a guarded king as half.
fn card_value(card: Card, hand: CardSet, trump: Suit) -> i32 {
    if is_trump(card, trump) {
        return trump_value(card, trump);
    }
    match card.rank() {
        Rank::Ace => 10,
        Rank::King if hand.contains(Card::new(Rank::Ace, card.suit())) => 5,
        Rank::King => 2,
        _ => 0,
    }
}

fn trump_value(card: Card, trump: Suit) -> i32 {
    if card.is_joker() {
        return 35;
    }
    if card == Card::new(Rank::Jack, trump) {
        return 30;
    }
    if is_left_bower(card, trump) {
        return 25;
    }
    match card.rank() {
        Rank::Ace => 20,
        Rank::King => 16,
        Rank::Queen => 14,
        _ => 12,
    }
}

/// The joker turned up, the dealer names the suit it will stand for: his
/// strongest, as he is the one to pick the joker up if it is ordered.
pub(super) fn joker_suit(hand: CardSet) -> Action {
    let joker = CardSet::single(Card::JOKER);
    let best = Suit::ALL.into_iter().max_by_key(|suit| strength(hand.union(joker), *suit));
    Action::NameSuit { suit: best.unwrap_or(Suit::Spades) }
}

/// How good `hand` is with `trump` as trump. A void counts once the hand has
/// the trumps to ruff with.
fn strength(hand: CardSet, trump: Suit) -> i32 {
    let mut total: i32 = hand.iter().map(|card| card_value(card, hand, trump)).sum();
    let trumps = hand.intersection(suit_cards(trump, trump)).len();
    if trumps >= 2 {
        let voids = Suit::ALL
            .into_iter()
            .filter(|suit| *suit != trump && hand.intersection(suit_cards(*suit, trump)).is_empty())
            .count();
        total += VOID * voids as i32;
    }
    total
}

/// Whether to play `hand` alone: only when it should take at least four
/// tricks by itself. Both bowers and a third trump, and at most one card
/// that is neither a trump nor an ace.
fn alone(hand: CardSet, trump: Suit) -> bool {
    let trumps = hand.intersection(suit_cards(trump, trump));
    let right = Card::new(Rank::Jack, trump);
    let left = Card::new(Rank::Jack, trump.same_colour());
    let losers = hand.difference(trumps).iter().filter(|card| card.rank() != Rank::Ace).count();
    trumps.contains(right) && trumps.contains(left) && trumps.len() >= 3 && losers <= 1
}

/// The bid for `me` holding `hand`, in either round.
pub(super) fn bid(view: &Situation, me: Seat, hand: CardSet, legal: &[Action]) -> Option<Action> {
    // A farmer's hand (only the two lowest ranks) is as weak as hands come:
    // take the redeal when the rules offer it.
    if legal.contains(&Action::FarmersHand) {
        return Some(Action::FarmersHand);
    }
    match view.phase {
        Phase::OrderingUp => Some(round_one(view, me, hand)),
        Phase::Calling => round_two(view, me, hand, legal),
        _ => None,
    }
}

/// Round one: order up the up-card's suit, or pass.
fn round_one(view: &Situation, me: Seat, hand: CardSet) -> Action {
    let up = view.up_card;
    let trump = up.suit();
    let dealer = view.dealer;
    // The hand the bot would play: the dealer's after picking up and discarding.
    let playing = if me == dealer {
        let allowed = if view.rules.dealer_may_discard_up_card {
            hand.union(CardSet::single(up))
        } else {
            hand
        };
        let mut after = hand.union(CardSet::single(up));
        if let Some(card) = discard(after, Mode::trump(trump), allowed) {
            after.remove(card);
        }
        after
    } else {
        hand
    };
    let mut score = strength(playing, trump);
    // Ordering up puts the up-card in the dealer's hand: a trump for our
    // side when the dealer is my partner, for theirs when an opponent.
    if view.rules.partnerships() && me == dealer.partner() {
        score += trump_value(up, trump);
    } else if me != dealer {
        score -= trump_value(up, trump);
    }
    if score >= CALL { Action::OrderUp { alone: alone(playing, trump) } } else { Action::Pass }
}

/// Tricks `hand` takes by itself at no trump, wherever the lead is: in each
/// suit, its cards from the ace down that nothing left can beat (the ace;
/// the ace and king; ...).
fn sure_tricks_at_no_trump(hand: CardSet) -> usize {
    let sure_in = |suit: Suit| {
        Rank::ALL.iter().rev().take_while(|rank| hand.contains(Card::new(**rank, suit))).count()
    };
    Suit::ALL.into_iter().map(sure_in).sum()
}

/// Round two: call no trump with enough sure tricks where the rules allow
/// it; else name the best suit if it is good enough, or when the dealer is
/// stuck and must name one.
fn round_two(view: &Situation, me: Seat, hand: CardSet, legal: &[Action]) -> Option<Action> {
    let sure = sure_tricks_at_no_trump(hand);
    let no_trump = Action::CallNoTrump { alone: sure >= NO_TRUMP_ALONE };
    if sure >= NO_TRUMP_CALL && legal.contains(&no_trump) {
        return Some(no_trump);
    }
    let turned_down = view.turned_down.unwrap_or(view.up_card.suit());
    let left_of_dealer = me == view.dealer.next(view.rules.players);
    let score = |suit: Suit| {
        let next = if left_of_dealer && suit == turned_down.same_colour() { NEXT_BONUS } else { 0 };
        strength(hand, suit) + next
    };
    // Only suits the engine accepts, and never the turned-down suit (where
    // naming it is allowed, it only counts as a pass).
    let best = Suit::ALL
        .into_iter()
        .filter(|suit| {
            *suit != turned_down && legal.contains(&Action::Call { suit: *suit, alone: false })
        })
        .max_by_key(|suit| score(*suit))?;
    let stuck = !legal.contains(&Action::Pass);
    if stuck || score(best) >= CALL {
        Some(Action::Call { suit: best, alone: alone(hand, best) })
    } else {
        Some(Action::Pass)
    }
}

/// The discard from `hand` (the dealer's, which holds the up-card, or a
/// loner's or dummy-taker's) among `allowed`, with the trump of `mode` (or
/// none).
///
/// Never a trump while there is anything else. Otherwise make a void if a
/// single card short of an ace would do it, else throw the lowest off-suit
/// card, from the shortest suit on a tie. Aces are kept: they win tricks.
pub(super) fn discard(hand: CardSet, mode: Mode, allowed: CardSet) -> Option<Card> {
    let suit_length = |card: Card| {
        let suit = effective_suit_in(card, mode);
        hand.intersection(suit_cards_in(suit, mode)).len()
    };
    allowed.iter().min_by_key(|card| {
        let trump_card = is_trump_in(*card, mode);
        let ace = !trump_card && card.rank() == Rank::Ace;
        let makes_void = !trump_card && suit_length(*card) == 1;
        (trump_card, ace, !makes_void, power_in(*card, mode), suit_length(*card))
    })
}
