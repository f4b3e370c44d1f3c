//! The cards as dealt: each hand, the up-card and the rest of the kitty.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::action::Seat;
use crate::card::{Card, CardSet};
use crate::rules::{Deck, HAND_SIZE, Rules};

/// One deal: who dealt, what each seat holds, and the kitty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    pub dealer: Seat,
    /// `hands[i]` is seat `i`'s hand.
    pub hands: [CardSet; 4],
    /// The dummy hand of the two- and three-handed games (empty otherwise):
    /// face down until the maker takes it.
    #[serde(default, skip_serializing_if = "no_dummy")]
    pub dummy: CardSet,
    /// The top card of the kitty, turned face up.
    pub up_card: Card,
    /// The rest of the kitty, face down (never shown to anybody).
    pub kitty: CardSet,
}

fn no_dummy(dummy: &CardSet) -> bool {
    dummy.is_empty()
}

/// A deal that does not fit the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("seat {seat} holds {held} cards, not {expected}")]
    WrongHandSize { seat: u8, held: u32, expected: u32 },
    #[error("the dummy holds {held} cards, not {expected}")]
    WrongDummySize { held: u32, expected: u32 },
    #[error("{card} is not in this pack")]
    NotInPack { card: Card },
    #[error("{card} is dealt twice")]
    Duplicate { card: Card },
    #[error("the deck holds {held} cards, not the pack's {expected}")]
    WrongDeckSize { held: usize, expected: usize },
    #[error("the dealt cards and the kitty do not make up the whole pack")]
    Incomplete,
    #[error("dealer {dealer} is not a seat at this table")]
    NoSuchDealer { dealer: u8 },
}

/// How many cards are dealt from one 64-bit random number: the product of
/// eleven ranges of at most 33 cards is below 2^56, small enough against
/// 2^64 that a number is almost never rejected, or the division that
/// decides it made.
const PER_DRAW: usize = 11;

/// Each pack's cards in index order, `PACKS[deck][joker]`: listed at
/// compile time, so that a deal starts from a copy. Each list has 64 places
/// (at most 33 used) so that a place masked to six bits is always in bounds.
const PACKS: [[[Card; 64]; 2]; 4] = {
    let mut packs = [[[Card::JOKER; 64]; 2]; 4];
    let mut deck = 0;
    while deck < 4 {
        let cards = Deck::ALL[deck].cards().0;
        let mut len = 0;
        let mut index = 0;
        while index < 32 {
            if cards & (1 << index) != 0 {
                packs[deck][0][len] = Card::from_index(index);
                packs[deck][1][len] = Card::from_index(index);
                len += 1;
            }
            index += 1;
        }
        // The joker follows the suited cards (the second row's next place
        // already holds it).
        deck += 1;
    }
    packs
};

/// `FALLING[n][k]` is `n (n - 1) ... (n - k + 1)`, the product of the
/// ranges of `k` shuffle offsets drawn from one number, the first place
/// choosing among `n` cards.
const FALLING: [[u64; PER_DRAW + 1]; 34] = {
    let mut table = [[1; PER_DRAW + 1]; 34];
    let mut n = 0;
    while n < 34 {
        let mut k = 1;
        while k <= PER_DRAW && k <= n {
            table[n][k] = table[n][k - 1] * (n - k + 1) as u64;
            k += 1;
        }
        n += 1;
    }
    table
};

impl Deal {
    /// Shuffles the pack with `rng` and deals it.
    pub fn shuffled(rules: &Rules, dealer: Seat, rng: &mut impl Rng) -> Deal {
        let mut pack = PACKS[rules.deck as usize][usize::from(rules.joker)];
        let len = rules.deck.size() as usize + usize::from(rules.joker);
        // Fisher-Yates over the part of the pack that is dealt: the hands,
        // the dummy and the up-card. The rest is the kitty, whatever its order.
        let in_hands = (rules.hand_size() * u32::from(rules.players)) as usize;
        let dealt = in_hands + rules.dummy_size() as usize + 1;
        // Position `k` takes a random card from `k..len`. The offsets are
        // drawn several from one 64-bit number ("Batched ranged random
        // integer generation", Brackett-Rozinsky and Lemire, 2024): a number
        // uniform below the product of their ranges (Lemire's method), read
        // off one mixed-radix digit per multiplication. Two numbers deal a
        // 24-card pack, where one bounded draw per card took 21.
        for start in (0..dealt).step_by(PER_DRAW) {
            let end = (start + PER_DRAW).min(dealt);
            let product = FALLING[len - start][end - start];
            // Rejects the few numbers (fewer than `product` in 2^64) that
            // would make some digits more likely than others.
            let mut bits = loop {
                let x = rng.next_u64();
                let low = x.wrapping_mul(product);
                if low >= product || low >= product.wrapping_neg() % product {
                    break x;
                }
            };
            for k in start..end {
                let wide = u128::from(bits) * (len - k) as u128;
                // Both places are below `len` (at most 33): the masks change
                // nothing but spare the bounds checks.
                pack.swap(k & 63, (k + (wide >> 64) as usize) & 63);
                bits = wide as u64;
            }
        }
        let mut hands = [CardSet::EMPTY; 4];
        let (dealt_hands, _) = pack.as_chunks::<{ HAND_SIZE as usize }>();
        for (hand, cards) in hands.iter_mut().zip(dealt_hands).take(usize::from(rules.players)) {
            *hand = cards.iter().copied().collect();
        }
        let dummy = pack[in_hands..dealt - 1].iter().copied().collect();
        let up_card = pack[dealt - 1];
        let kitty = pack[dealt..len].iter().copied().collect();
        Deal { dealer, hands, dummy, up_card, kitty }
    }

    /// Builds a deal from its hands and up-card; the kitty is the rest of the pack.
    pub fn from_hands(
        rules: &Rules,
        dealer: Seat,
        hands: [CardSet; 4],
        up_card: Card,
    ) -> Result<Deal, DealError> {
        Deal::with_dummy(rules, dealer, hands, CardSet::EMPTY, up_card)
    }

    /// [`Deal::from_hands`] with a dummy hand.
    pub fn with_dummy(
        rules: &Rules,
        dealer: Seat,
        hands: [CardSet; 4],
        dummy: CardSet,
        up_card: Card,
    ) -> Result<Deal, DealError> {
        let mut used = CardSet::single(up_card).union(dummy);
        for hand in hands {
            used = used.union(hand);
        }
        let kitty = rules.pack().difference(used);
        let deal = Deal { dealer, hands, dummy, up_card, kitty };
        deal.validate(rules)?;
        Ok(deal)
    }

    /// Checks that the deal uses the whole pack, each card once, with hands of
    /// the right size.
    pub fn validate(&self, rules: &Rules) -> Result<(), DealError> {
        if self.dealer.0 >= rules.players {
            return Err(DealError::NoSuchDealer { dealer: self.dealer.0 });
        }
        let pack = rules.pack();
        let mut seen = CardSet::EMPTY;
        let parts = self.hands.iter().copied().chain([
            self.dummy,
            CardSet::single(self.up_card),
            self.kitty,
        ]);
        for part in parts {
            if let Some(card) = part.difference(pack).first() {
                return Err(DealError::NotInPack { card });
            }
            if let Some(card) = part.intersection(seen).first() {
                return Err(DealError::Duplicate { card });
            }
            seen = seen.union(part);
        }
        for (seat, hand) in self.hands.iter().enumerate() {
            let expected = if seat < usize::from(rules.players) { rules.hand_size() } else { 0 };
            if hand.len() != expected {
                return Err(DealError::WrongHandSize {
                    seat: seat as u8,
                    held: hand.len(),
                    expected,
                });
            }
        }
        if self.dummy.len() != rules.dummy_size() {
            return Err(DealError::WrongDummySize {
                held: self.dummy.len(),
                expected: rules.dummy_size(),
            });
        }
        if seen != pack {
            return Err(DealError::Incomplete);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Deck;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_listed_packs_are_the_rules_packs() {
        for deck in Deck::ALL {
            for joker in [false, true] {
                let pack = Rules { deck, joker, ..Rules::default() }.pack();
                let listed = &PACKS[deck as usize][usize::from(joker)][..pack.len() as usize];
                assert_eq!(listed.to_vec(), pack.to_vec(), "{deck:?} joker {joker}");
            }
        }
    }

    #[test]
    fn shuffled_deals_use_the_whole_pack() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for deck in [Deck::NineToAce, Deck::EightToAce, Deck::SevenToAce] {
            let rules = Rules { deck, ..Rules::default() };
            for _ in 0..200 {
                let deal = Deal::shuffled(&rules, Seat(1), &mut rng);
                assert_eq!(deal.validate(&rules), Ok(()));
            }
        }
        for preset in crate::rules::Preset::ALL {
            let rules = preset.rules();
            for _ in 0..50 {
                let deal = Deal::shuffled(&rules, Seat(1), &mut rng);
                assert_eq!(deal.validate(&rules), Ok(()), "{preset:?}");
                assert_eq!(deal.dummy.len(), rules.dummy_size());
                let empty_seats = deal.hands[usize::from(rules.players)..].iter();
                assert!(empty_seats.into_iter().all(|hand| hand.is_empty()));
            }
        }
    }

    #[test]
    fn every_card_is_equally_likely_everywhere() {
        // 48,000 deals of the 24-card pack: each card should be the up-card
        // 2,000 times and in seat 0's hand 10,000 times; allow five standard
        // deviations. Catches a batched draw that favours some offsets.
        let rules = Rules::default();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut up, mut seat0, mut kitty) = ([0u32; 32], [0u32; 32], [0u32; 32]);
        let deals = 48_000;
        for _ in 0..deals {
            let deal = Deal::shuffled(&rules, Seat(0), &mut rng);
            up[deal.up_card.index()] += 1;
            deal.hands[0].iter().for_each(|card| seat0[card.index()] += 1);
            deal.kitty.iter().for_each(|card| kitty[card.index()] += 1);
        }
        let near = |count: u32, p: f64| {
            let mean = deals as f64 * p;
            (f64::from(count) - mean).abs() < 5.0 * (mean * (1.0 - p)).sqrt()
        };
        for card in rules.deck.cards() {
            let i = card.index();
            assert!(near(up[i], 1.0 / 24.0), "{card} up {} times", up[i]);
            assert!(near(seat0[i], 5.0 / 24.0), "{card} in seat 0 {} times", seat0[i]);
            assert!(near(kitty[i], 3.0 / 24.0), "{card} in the kitty {} times", kitty[i]);
        }
    }

    #[test]
    fn bad_deals_are_rejected() {
        let rules = Rules::default();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let deal = Deal::shuffled(&rules, Seat(0), &mut rng);
        let mut twice = deal;
        twice.hands[1] = deal.hands[0];
        assert!(matches!(twice.validate(&rules), Err(DealError::Duplicate { .. })));
        let mut short = deal;
        short.kitty = CardSet::EMPTY;
        assert_eq!(short.validate(&rules), Err(DealError::Incomplete));
        let big = Rules { deck: Deck::SevenToAce, ..Rules::default() };
        let wide = Deal::shuffled(&big, Seat(0), &mut rng);
        assert!(matches!(wide.validate(&rules), Err(DealError::NotInPack { .. })));
    }

    /// Games are stored as a seed and the actions: the deals a seed makes
    /// must never change, or stored games replay differently. A digest of
    /// 200 deals in every preset and with the joker, from fixed seeds.
    #[test]
    fn a_seed_always_deals_the_same_cards() {
        let mut forms: Vec<Rules> =
            crate::rules::Preset::ALL.iter().map(|preset| preset.rules()).collect();
        forms.push(Rules { joker: true, ..Rules::default() });
        forms.push(Rules { deck: Deck::SevenToAce, joker: true, ..Rules::default() });
        let mut digests = Vec::new();
        for (n, rules) in forms.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
            let mut digest = 0u64;
            for dealer in 0..200u8 {
                let deal = Deal::shuffled(rules, Seat(dealer % rules.players), &mut rng);
                let parts = deal.hands.map(|hand| hand.0);
                for part in
                    parts.into_iter().chain([deal.dummy.0, deal.up_card.bit(), deal.kitty.0])
                {
                    digest = (digest ^ part).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            digests.push(digest);
        }
        // Computed by the shuffle as of commit 55ba39e.
        let expected = [
            0x86e9059841b93c08,
            0x91004f455203f748,
            0x032f26df7f131e58,
            0xec51106ae0519ce0,
            0x11f3fae8df7b11b0,
            0x14918f7c22c0a840,
            0x0d0b4ed31eb3e258,
            0xbece4bd494e16a20,
            0x83547cf1ddb77350,
            0x606f4f4e613f78b8,
            0x602c440de40e08a8,
            0xe0566b75df6ace50,
            0xd6dab0158e052998,
            0x86fd0b2f1c9ba690,
            0xbb5fa868fe1d0920,
            0x4b738e3607e96e2c,
        ];
        assert_eq!(digests, expected);
    }
}
