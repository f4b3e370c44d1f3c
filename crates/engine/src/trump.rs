//! Card order once trump is known: the bowers, following suit, trick winners.
//!
//! Everything here is a table lookup or a mask, computed at compile time, so
//! that the simulation path pays a few instructions per card.

use crate::card::{Card, CardSet, Rank, Suit};

/// The suit a card belongs to for following and winning: the left bower
/// and the joker belong to trump.
pub const fn effective_suit(card: Card, trump: Suit) -> Suit {
    if is_left_bower(card, trump) || card.is_joker() { trump } else { card.suit() }
}

/// What a hand is played in: a trump suit, or no trump
/// ([`crate::Rules::allow_no_trump`]). It is the row of the tables below, so
/// a no-trump hand costs the simulation path nothing more:
/// rows 0 to 3 are the trump suits, row 4 no trump (no trumps, no bowers,
/// jacks between ten and queen; the highest card of the led suit wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mode(u8);

impl Mode {
    pub const NO_TRUMP: Mode = Mode(4);

    pub const fn trump(suit: Suit) -> Mode {
        Mode(suit as u8)
    }

    /// A trump suit's mode, or no trump's for `None`.
    pub const fn of(trump: Option<Suit>) -> Mode {
        match trump {
            Some(suit) => Mode::trump(suit),
            None => Mode::NO_TRUMP,
        }
    }

    /// The trump suit, or `None` for no trump.
    pub const fn suit(self) -> Option<Suit> {
        if self.0 < 4 { Some(Suit::from_index(self.0)) } else { None }
    }

    const fn row(self) -> usize {
        self.0 as usize
    }
}

/// [`effective_suit`] in `mode`: under no trump every card keeps its suit.
#[inline]
pub const fn effective_suit_in(card: Card, mode: Mode) -> Suit {
    // A card missing from its printed suit's row is the left bower: trump.
    if TRUMP_MASKS[mode.row()][card.suit() as usize] & card.bit() != 0 {
        card.suit()
    } else {
        Suit::from_index(mode.0)
    }
}

/// [`suit_cards`] in `mode`.
pub const fn suit_cards_in(suit: Suit, mode: Mode) -> CardSet {
    CardSet(TRUMP_MASKS[mode.row()][suit as usize])
}

/// [`power`] in `mode`: under no trump, a card's printed rank.
pub const fn power_in(card: Card, mode: Mode) -> u8 {
    POWER[mode.row()][card.index()]
}

/// [`follow_mask`] in `mode`.
#[inline]
pub fn follow_mask_in(hand: CardSet, led: Suit, mode: Mode) -> CardSet {
    let following = hand.intersection(CardSet(TRUMP_MASKS[mode.row()][led as usize]));
    if following.is_empty() { hand } else { following }
}

/// [`trick_power`] in `mode`: under no trump only the led suit can win.
#[inline]
pub fn trick_power_in(card: Card, led: Suit, mode: Mode) -> u8 {
    let power = POWER[mode.row()][card.index()];
    let eligible = (power >= 16) | (TRUMP_MASKS[mode.row()][led as usize] & card.bit() != 0);
    (power + 1) * u8::from(eligible)
}

/// [`trick_winner`] in `mode`.
pub fn trick_winner_in(cards: &[Card], mode: Mode) -> usize {
    let Some(first) = cards.first() else { return 0 };
    let led = effective_suit_in(*first, mode);
    let mut best = 0;
    let mut best_power = 0;
    for (position, card) in cards.iter().enumerate() {
        let power = trick_power_in(*card, led, mode);
        if power > best_power {
            best = position;
            best_power = power;
        }
    }
    best
}

pub const fn is_left_bower(card: Card, trump: Suit) -> bool {
    card.index() == Card::new(Rank::Jack, trump.same_colour()).index()
}

pub const fn is_trump(card: Card, trump: Suit) -> bool {
    TRUMP_MASKS[trump as usize][trump as usize] & card.bit() != 0
}

/// [`is_trump`] in `mode`: under no trump, no card is.
pub const fn is_trump_in(card: Card, mode: Mode) -> bool {
    match mode.suit() {
        Some(trump) => is_trump(card, trump),
        None => false,
    }
}

/// The cards of `suit` for following purposes when `trump` is trump.
pub const fn suit_cards(suit: Suit, trump: Suit) -> CardSet {
    CardSet(TRUMP_MASKS[trump as usize][suit as usize])
}

/// `TRUMP_MASKS[trump][suit]`: the cards that count as `suit` under `trump`
/// (the trump suit's with the left bower and the joker); row 4
/// ([`Mode::NO_TRUMP`]): each suit's printed cards.
const TRUMP_MASKS: [[u64; 4]; 5] = {
    let mut masks = [[0u64; 4]; 5];
    let mut suit = 0;
    while suit < 4 {
        masks[4][suit] = CardSet::suit(Suit::from_index(suit as u8)).0;
        suit += 1;
    }
    let mut trump = 0;
    while trump < 4 {
        let left = Card::new(Rank::Jack, Suit::from_index(trump as u8).same_colour()).bit();
        let mut suit = 0;
        while suit < 4 {
            let plain = CardSet::suit(Suit::from_index(suit as u8)).0;
            masks[trump][suit] =
                if suit == trump { plain | left | Card::JOKER.bit() } else { plain & !left };
            suit += 1;
        }
        trump += 1;
    }
    masks
};

/// `POWER[trump][card]`: trumps above every plain card, the joker highest,
/// then the right bower and the left; plain cards by rank. Only cards of
/// the led suit or trump can win, which [`trick_winner`] enforces. Row 4 (no
/// trump): every card by its rank, none a trump (the joker is not played
/// without trumps).
const POWER: [[u8; 33]; 5] = {
    let mut power = [[0u8; 33]; 5];
    let mut index = 0;
    while index < 32 {
        power[4][index] = Card::from_index(index as u8).rank() as u8;
        index += 1;
    }
    let mut trump = 0;
    while trump < 4 {
        let mut index = 0;
        while index < 33 {
            let card = Card::from_index(index as u8);
            let rank = card.rank() as u8;
            let t = Suit::from_index(trump as u8);
            power[trump][index] = if card.is_joker() {
                32
            } else if card.index() == Card::new(Rank::Jack, t).index() {
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
    fn is_trump_in_agrees_with_is_trump_and_no_trump_has_none() {
        let pack = crate::rules::Rules { joker: true, ..Default::default() }.pack();
        for card in pack {
            for suit in Suit::ALL {
                assert_eq!(is_trump_in(card, Mode::trump(suit)), is_trump(card, suit));
            }
            assert!(!is_trump_in(card, Mode::NO_TRUMP), "{card}");
        }
    }

    #[test]
    fn the_joker_is_the_highest_trump_and_follows_trump() {
        for trump in Suit::ALL {
            let order = strongest_first(suit_cards(trump, trump), trump);
            assert_eq!(order[0], Card::JOKER);
            assert_eq!(effective_suit(Card::JOKER, trump), trump);
            assert!(is_trump(Card::JOKER, trump));
        }
        // It beats the right bower, and led it calls for trump.
        assert_eq!(trick_winner(&[cards("Jc")[0], Card::JOKER], Suit::Clubs), 1);
        let hand: CardSet = cards("9c As").into_iter().collect();
        let led = effective_suit(Card::JOKER, Suit::Clubs);
        assert_eq!(follow_mask(hand, led, Suit::Clubs).to_vec(), cards("9c"));
        // Holding it as the only trump, a player must follow trump with it.
        let hand: CardSet = [Card::JOKER, cards("As")[0]].into_iter().collect();
        assert_eq!(follow_mask(hand, Suit::Clubs, Suit::Clubs).to_vec(), vec![Card::JOKER]);
    }

    #[test]
    fn bowers_are_the_two_highest_trumps() {
        // (Without the joker, which the next test puts above them.)
        let hearts =
            suit_cards(Suit::Hearts, Suit::Hearts).difference(CardSet::single(Card::JOKER));
        let order = strongest_first(hearts, Suit::Hearts);
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
    fn no_trump_has_no_bowers_and_the_led_suit_wins() {
        let mode = Mode::NO_TRUMP;
        assert_eq!(mode.suit(), None);
        assert_eq!(Mode::trump(Suit::Clubs).suit(), Some(Suit::Clubs));
        // Jacks keep their suits and rank between ten and queen.
        let js = Card::new(Rank::Jack, Suit::Spades);
        assert_eq!(effective_suit_in(js, mode), Suit::Spades);
        assert_eq!(trick_winner_in(&cards("Th Jh 9h Ac"), mode), 1);
        assert_eq!(trick_winner_in(&cards("Jc Js Qc 9c"), mode), 2);
        // Nothing trumps: an off-suit card never wins.
        assert_eq!(trick_winner_in(&cards("9s Jc Jd Ah"), mode), 0);
        // Following: the jack of clubs is a club, whatever the colour.
        let hand: CardSet = cards("Jc 9s Ah").into_iter().collect();
        assert_eq!(follow_mask_in(hand, Suit::Spades, mode).to_vec(), cards("9s"));
        assert_eq!(follow_mask_in(hand, Suit::Clubs, mode).to_vec(), cards("Jc"));
        assert_eq!(follow_mask_in(hand, Suit::Diamonds, mode), hand);
    }

    #[test]
    fn the_modes_of_the_four_suits_agree_with_the_suit_functions() {
        let all = CardSet::ranks_from(Rank::Seven);
        let deck = all.to_vec();
        for trump in Suit::ALL {
            let mode = Mode::trump(trump);
            for card in all {
                assert_eq!(effective_suit_in(card, mode), effective_suit(card, trump));
                for led in Suit::ALL {
                    assert_eq!(trick_power_in(card, led, mode), trick_power(card, led, trump));
                }
            }
            for led in Suit::ALL {
                let hand: CardSet = deck.iter().step_by(3).copied().collect();
                assert_eq!(follow_mask_in(hand, led, mode), follow_mask(hand, led, trump));
            }
            for window in deck.windows(4) {
                assert_eq!(trick_winner_in(window, mode), trick_winner(window, trump));
            }
        }
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
