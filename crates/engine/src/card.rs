//! Suits, ranks, cards, and the bit set that holds them.
//!
//! A card is a number below 32: `suit * 8 + rank`, with ranks from the seven
//! (0) to the ace (7); the joker is 32. The bit set of a hand is therefore one
//! `u64`, and the common questions ("which of my cards follow this suit?") are
//! a mask and an `and`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The four suits. Suits of one colour differ in bit 1 only, so the suit of the
/// same colour (the left bower's suit) is `suit ^ 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Suit {
    Spades = 0,
    Hearts = 1,
    Clubs = 2,
    Diamonds = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Clubs, Suit::Diamonds];

    pub const fn from_index(index: u8) -> Suit {
        Suit::ALL[(index & 3) as usize]
    }

    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other suit of the same colour: where the left bower comes from.
    pub const fn same_colour(self) -> Suit {
        Suit::from_index(self as u8 ^ 2)
    }

    pub const fn is_red(self) -> bool {
        self as u8 & 1 == 1
    }

    /// The one-letter name used in card codes: `s`, `h`, `c`, `d`.
    pub const fn letter(self) -> char {
        match self {
            Suit::Spades => 's',
            Suit::Hearts => 'h',
            Suit::Clubs => 'c',
            Suit::Diamonds => 'd',
        }
    }

    pub const fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
        }
    }

    pub fn from_letter(letter: char) -> Option<Suit> {
        match letter.to_ascii_lowercase() {
            's' => Some(Suit::Spades),
            'h' => Some(Suit::Hearts),
            'c' => Some(Suit::Clubs),
            'd' => Some(Suit::Diamonds),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Suit::Spades => "spades",
            Suit::Hearts => "hearts",
            Suit::Clubs => "clubs",
            Suit::Diamonds => "diamonds",
        };
        f.write_str(name)
    }
}

/// Ranks in their plain (non-trump) order, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Rank {
    Seven = 0,
    Eight = 1,
    Nine = 2,
    Ten = 3,
    Jack = 4,
    Queen = 5,
    King = 6,
    Ace = 7,
}

impl Rank {
    pub const ALL: [Rank; 8] = [
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    pub const fn from_index(index: u8) -> Rank {
        Rank::ALL[(index & 7) as usize]
    }

    pub const fn index(self) -> usize {
        self as usize
    }

    /// The one-character name used in card codes: `7 8 9 T J Q K A`.
    pub const fn letter(self) -> char {
        match self {
            Rank::Seven => '7',
            Rank::Eight => '8',
            Rank::Nine => '9',
            Rank::Ten => 'T',
            Rank::Jack => 'J',
            Rank::Queen => 'Q',
            Rank::King => 'K',
            Rank::Ace => 'A',
        }
    }

    pub fn from_letter(letter: char) -> Option<Rank> {
        match letter.to_ascii_uppercase() {
            '7' => Some(Rank::Seven),
            '8' => Some(Rank::Eight),
            '9' | 'N' => Some(Rank::Nine),
            'T' => Some(Rank::Ten),
            'J' => Some(Rank::Jack),
            'Q' => Some(Rank::Queen),
            'K' => Some(Rank::King),
            'A' => Some(Rank::Ace),
            _ => None,
        }
    }
}

/// One card. Written as rank then suit letter: `Jc`, `Th`, `9s`; the joker
/// is `JK`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The joker (sheet 003): the highest trump, whatever trump is.
    pub const JOKER: Card = Card(32);

    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit as u8 * 8 + rank as u8)
    }

    /// The card with this index: below 32 a suited card, 32 and above the joker.
    pub const fn from_index(index: u8) -> Card {
        Card(if index < 32 { index } else { 32 })
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn is_joker(self) -> bool {
        self.0 == Card::JOKER.0
    }

    /// The printed suit. The joker has none: for it this is meaningless
    /// (spades); in play ask [`crate::trump::effective_suit`], which makes
    /// it a trump.
    pub const fn suit(self) -> Suit {
        Suit::from_index(self.0 >> 3)
    }

    /// The printed rank (meaningless for the joker, as [`Card::suit`]).
    pub const fn rank(self) -> Rank {
        Rank::from_index(self.0 & 7)
    }

    pub const fn bit(self) -> u64 {
        1 << self.0
    }
}

/// Every card's code by index: cards fill every message and record, and a
/// `&'static str` spares writing them out each time.
#[rustfmt::skip]
const CODES: [&str; 33] = [
    "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As",
    "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah",
    "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac",
    "7d", "8d", "9d", "Td", "Jd", "Qd", "Kd", "Ad",
    "JK",
];

impl Card {
    /// The code as text, such as `Jc` (`JK` for the joker).
    pub fn code_str(self) -> &'static str {
        CODES[self.index()]
    }

    /// The two-letter code, such as `Jc` (`JK` for the joker): ASCII.
    pub fn code(self) -> [u8; 2] {
        if self.is_joker() {
            return *b"JK";
        }
        // Both letters are ASCII.
        [self.rank().letter() as u8, self.suit().letter() as u8]
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code_str())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A card code that does not name a card.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a card (expected a rank 7 8 9 T J Q K A and a suit s h c d, such as \"Jc\", or JK for the joker)"
)]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(text: &str) -> Result<Card, ParseCardError> {
        if text.eq_ignore_ascii_case("jk") {
            return Ok(Card::JOKER);
        }
        let mut chars = text.chars();
        let parsed = match (chars.next(), chars.next(), chars.next()) {
            (Some(r), Some(s), None) => Rank::from_letter(r).zip(Suit::from_letter(s)),
            _ if text.len() == 3 && text.starts_with("10") => {
                text[2..].chars().next().and_then(Suit::from_letter).map(|s| (Rank::Ten, s))
            }
            _ => None,
        };
        parsed
            .map(|(rank, suit)| Card::new(rank, suit))
            .ok_or_else(|| ParseCardError(text.to_owned()))
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code_str())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A set of cards as a bit set: bit `i` is the card with index `i`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(pub u64);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);

    /// Every card of the given suit.
    pub const fn suit(suit: Suit) -> CardSet {
        CardSet(0xff << (suit as u64 * 8))
    }

    /// Every card of the given rank.
    pub const fn rank(rank: Rank) -> CardSet {
        CardSet(0x0101_0101 << rank as u64)
    }

    /// Every card from `lowest` up to the ace, in all four suits.
    pub const fn ranks_from(lowest: Rank) -> CardSet {
        let per_suit = (0xffu64 << lowest as u64) & 0xff;
        CardSet(per_suit * 0x0101_0101)
    }

    pub const fn single(card: Card) -> CardSet {
        CardSet(card.bit())
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    pub fn insert(&mut self, card: Card) {
        self.0 |= card.bit();
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !card.bit();
    }

    pub const fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    pub const fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    pub const fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// The lowest-indexed card, if any.
    pub const fn first(self) -> Option<Card> {
        if self.0 == 0 { None } else { Some(Card(self.0.trailing_zeros() as u8)) }
    }

    /// The `n`th card in index order (`n < len`). The simulation path uses it
    /// to pick a uniformly random legal card without allocating.
    pub fn nth(self, n: u32) -> Option<Card> {
        let mut bits = self.0;
        for _ in 0..n {
            bits &= bits.wrapping_sub(1);
        }
        CardSet(bits).first()
    }

    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }

    /// The cards in a stable, readable order (by suit, then rank).
    pub fn to_vec(self) -> Vec<Card> {
        self.iter().collect()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(cards: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for card in cards {
            set.insert(card);
        }
        set
    }
}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;
    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

/// Iterates a [`CardSet`] from the lowest index up.
#[derive(Clone, Debug)]
pub struct CardSetIter(u64);

impl Iterator for CardSetIter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let card = Card(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(card)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CardSet, D::Error> {
        let cards = Vec::<Card>::deserialize(deserializer)?;
        Ok(cards.into_iter().collect())
    }
}

/// Parses a space- or comma-separated list of card codes: `"Jc Js Ac"`.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, ParseCardError> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|code| !code.is_empty())
        .map(str::parse)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cards_code_as_text_is_its_letters() {
        for index in 0..=32u8 {
            let card = Card::from_index(index);
            assert_eq!(card.code_str().as_bytes(), card.code(), "card {index}");
            assert_eq!(card.code_str().parse::<Card>().ok(), Some(card));
        }
    }

    #[test]
    fn card_codes_round_trip() {
        for index in 0..=32 {
            let card = Card::from_index(index);
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
        }
        assert_eq!("10h".parse::<Card>(), Ok(Card::new(Rank::Ten, Suit::Hearts)));
        assert_eq!("Nd".parse::<Card>(), Ok(Card::new(Rank::Nine, Suit::Diamonds)));
        assert!("Xs".parse::<Card>().is_err());
        assert!("J".parse::<Card>().is_err());
        assert!("Jcc".parse::<Card>().is_err());
        assert_eq!("jk".parse::<Card>(), Ok(Card::JOKER));
        assert_eq!(Card::JOKER.to_string(), "JK");
        assert!(Card::JOKER.is_joker() && !Card::new(Rank::Jack, Suit::Clubs).is_joker());
    }

    #[test]
    fn same_colour_suits_pair_up() {
        assert_eq!(Suit::Spades.same_colour(), Suit::Clubs);
        assert_eq!(Suit::Hearts.same_colour(), Suit::Diamonds);
        assert!(Suit::Hearts.is_red() && Suit::Diamonds.is_red());
        assert!(!Suit::Spades.is_red() && !Suit::Clubs.is_red());
    }

    #[test]
    fn deck_masks_have_the_right_sizes() {
        assert_eq!(CardSet::ranks_from(Rank::Nine).len(), 24);
        assert_eq!(CardSet::ranks_from(Rank::Eight).len(), 28);
        assert_eq!(CardSet::ranks_from(Rank::Seven).len(), 32);
        assert_eq!(CardSet::suit(Suit::Clubs).len(), 8);
        assert_eq!(CardSet::rank(Rank::Jack).len(), 4);
    }

    #[test]
    fn nth_walks_the_set_in_order() {
        let set: CardSet = parse_cards("Jc 9s Ah").expect("cards").into_iter().collect();
        let order: Vec<Card> = (0..3).filter_map(|n| set.nth(n)).collect();
        assert_eq!(order, set.to_vec());
        assert_eq!(set.nth(3), None);
    }
}

#[cfg(feature = "schema")]
mod schema {
    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use super::{Card, CardSet};

    impl JsonSchema for Card {
        fn schema_name() -> Cow<'static, str> {
            "Card".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": "^([789TJQKA][shcd]|JK)$",
                "description": "A card: rank (7 8 9 T J Q K A) then suit (s h c d), e.g. \"Jc\"; \"JK\" is the joker.",
            })
        }
    }

    impl JsonSchema for CardSet {
        fn schema_name() -> Cow<'static, str> {
            "CardSet".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "array",
                "items": generator.subschema_for::<Card>(),
                "uniqueItems": true,
            })
        }
    }
}
