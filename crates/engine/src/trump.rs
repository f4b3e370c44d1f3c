//! Card order once trump is known: the bowers, following suit, trick winners.
//!
//! Everything here is a table lookup or a mask, computed at compile time, so
//! that the simulation path pays a few instructions per card.

use crate::card::{Card, CardSet, Rank, Suit};

/// The suit a card belongs to for following and winning: the left bower
/// belongs to trump.
pub const fn effective_suit(card: Card, trump: Suit) -> Suit {
    if is_left_bower(card, trump) { trump } else { card.suit() }
}

pub const fn is_left_bower(card: Card, trump: Suit) -> bool {
    card.index() == Card::new(Rank::Jack, trump.same_colour()).index()
}

pub const fn is_trump(card: Card, trump: Suit) -> bool {
    TRUMP_MASKS[trump as usize][trump as usize] & card.bit() != 0
}

/// The cards of `suit` for following purposes when `trump` is trump.
pub const fn suit_cards(suit: Suit, trump: Suit) -> CardSet {
    CardSet(TRUMP_MASKS[trump as usize][suit as usize])
}

/// `TRUMP_MASKS[trump][suit]`: the cards that count as `suit` under `trump`.
const TRUMP_MASKS: [[u32; 4]; 4] = {
    let mut masks = [[0u32; 4]; 4];
    let mut trump = 0;
    while trump < 4 {
        let left = Card::new(Rank::Jack, Suit::from_index(trump as u8).same_colour()).bit();
        let mut suit = 0;
        while suit < 4 {
            let plain = CardSet::suit(Suit::from_index(suit as u8)).0;
            masks[trump][suit] = if suit == trump { plain | left } else { plain & !left };
            suit += 1;
        }
        trump += 1;
    }
    masks
};

/// `POWER[trump][card]`: trumps above every plain card, the right bower
/// highest and the left second; plain cards by rank. Only cards of the
/// led suit or trump can win, which [`trick_winner`] enforces.
const POWER: [[u8; 32]; 4] = {
    let mut power = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut index = 0;
        while index < 32 {
            let card = Card::from_index(index as u8);
            let rank = card.rank() as u8;
            let t = Suit::from_index(trump as u8);
            power[trump][index] = if card.index() == Card::new(Rank::Jack, t).index() {
                31
            } else if is_left_bower(card, t) {
                30
            } else if card.suit() as usize == trump {
                16 + rank
            } else {
                rank
            };
            index += 1;
        }
        trump += 1;
    }
    power
};

/// How strongly `card` contends for a trick led in `led` under `trump`
/// (zero: it cannot win).
#[inline]
pub fn trick_power(card: Card, led: Suit, trump: Suit) -> u8 {
    let power = POWER[trump as usize][card.index()];
    // Without branches: whether a card may win is unpredictable, and a
    // mispredicted branch here costs more than computing both sides.
    let eligible = (power >= 16) | suit_cards(led, trump).contains(card);
    (power + 1) * u8::from(eligible)
}

/// The position (0-based, in playing order) of the card that wins a trick.
pub fn trick_winner(cards: &[Card], trump: Suit) -> usize {
    let Some(first) = cards.first() else { return 0 };
    let led = effective_suit(*first, trump);
    let mut best = 0;
    let mut best_power = 0;
    for (position, card) in cards.iter().enumerate() {
        let power = trick_power(*card, led, trump);
        if power > best_power {
            best = position;
            best_power = power;
        }
    }
    best
}

/// The cards of `hand` that may be played to a trick led with `led`.
#[inline]
pub fn follow_mask(hand: CardSet, led: Suit, trump: Suit) -> CardSet {
    let following = hand.intersection(suit_cards(led, trump));
    if following.is_empty() { hand } else { following }
}

/// Cards of `suit` under `trump`, strongest first.
pub fn strongest_first(cards: CardSet, trump: Suit) -> Vec<Card> {
    let mut list = cards.to_vec();
    list.sort_by_key(|card| std::cmp::Reverse(POWER[trump as usize][card.index()]));
    list
}

/// The strength of a card within its effective suit: used for claims.
pub fn power(card: Card, trump: Suit) -> u8 {
    POWER[trump as usize][card.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn cards(text: &str) -> Vec<Card> {
        parse_cards(text).expect("valid cards")
    }

    #[test]
    fn bowers_are_the_two_highest_trumps() {
        let order = strongest_first(suit_cards(Suit::Hearts, Suit::Hearts), Suit::Hearts);
        assert_eq!(order, cards("Jh Jd Ah Kh Qh Th 9h 8h 7h"));
    }

    #[test]
    fn left_bower_follows_trump_not_its_printed_suit() {
        let jd = Card::new(Rank::Jack, Suit::Diamonds);
        assert_eq!(effective_suit(jd, Suit::Hearts), Suit::Hearts);
        assert!(!suit_cards(Suit::Diamonds, Suit::Hearts).contains(jd));
        let hand: CardSet = cards("Jd 9d As").into_iter().collect();
        // Diamonds led: the left bower is not a diamond, so only 9d must follow.
        assert_eq!(follow_mask(hand, Suit::Diamonds, Suit::Hearts).to_vec(), cards("9d"));
        // Hearts led: the left bower is the only heart.
        assert_eq!(follow_mask(hand, Suit::Hearts, Suit::Hearts).to_vec(), cards("Jd"));
    }

    #[test]
    fn void_in_led_suit_may_play_anything() {
        let hand: CardSet = cards("Js As").into_iter().collect();
        assert_eq!(follow_mask(hand, Suit::Hearts, Suit::Diamonds), hand);
    }

    #[test]
    fn trick_winners() {
        // Highest of the led suit when nobody trumps; off-suit aces cannot win.
        assert_eq!(trick_winner(&cards("9s Ts Ah Qs"), Suit::Clubs), 3);
        // Any trump beats the led suit; the left bower beats the ace of trump.
        assert_eq!(trick_winner(&cards("As 9c Ks Qs"), Suit::Clubs), 1);
        assert_eq!(trick_winner(&cards("Ac Js 9s Kc"), Suit::Clubs), 1);
        assert_eq!(trick_winner(&cards("Js Jc 9s Ac"), Suit::Clubs), 1);
        // A plain jack ranks between ten and queen.
        assert_eq!(trick_winner(&cards("Th Jh 9h 9c"), Suit::Spades), 1);
        assert_eq!(trick_winner(&cards("Th Jh Qh 9c"), Suit::Spades), 2);
    }
}
