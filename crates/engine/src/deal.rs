//! The cards as dealt: each hand, the up-card and the rest of the kitty.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::action::Seat;
use crate::card::{Card, CardSet};
use crate::rules::Rules;

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
    #[error("the dealt cards and the kitty do not make up the whole pack")]
    Incomplete,
    #[error("dealer {dealer} is not a seat at this table")]
    NoSuchDealer { dealer: u8 },
}

impl Deal {
    /// Shuffles the pack with `rng` and deals it.
    pub fn shuffled(rules: &Rules, dealer: Seat, rng: &mut impl Rng) -> Deal {
        let mut pack = [Card::from_index(0); 33];
        let mut len = 0;
        for card in rules.pack() {
            pack[len] = card;
            len += 1;
        }
        // Fisher-Yates over the part of the pack that is dealt: the hands,
        // the dummy and the up-card. The rest is the kitty, whatever its order.
        let in_hands = (rules.hand_size() * u32::from(rules.players)) as usize;
        let dealt = in_hands + rules.dummy_size() as usize + 1;
        for i in 0..dealt {
            let j = i + rng.random_range(0..(len - i) as u32) as usize;
            pack.swap(i, j);
        }
        let size = rules.hand_size() as usize;
        let mut hands = [CardSet::EMPTY; 4];
        for (seat, hand) in hands.iter_mut().enumerate().take(usize::from(rules.players)) {
            *hand = pack[seat * size..(seat + 1) * size].iter().copied().collect();
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
}
