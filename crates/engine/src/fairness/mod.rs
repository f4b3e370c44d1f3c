//! Provably fair deals: a commitment to each deal, published before anyone
//! bids, and the reveal that lets anybody check it once the hand is over.
//!
//! The commitment is the SHA-256 of one line of ASCII text (the preimage):
//!
//! ```text
//! euchre-deal-v1:<card>,<card>,…,<card>:<salt>
//! ```
//!
//! - the cards are the whole pack in the deck order [`Deal::deck`] gives:
//!   seat 0's hand, seat 1's, … (as many seats as the game has), then the
//!   dummy (where the game has one), the up-card and the rest of the kitty;
//!   within each part in the engine's card order, the order the protocol
//!   lists a hand in. Each card is written as the protocol writes it (`9s`,
//!   `Th`, `Jc`, `JK` for the joker);
//! - the salt is 32 random bytes as 64 lowercase hex digits.
//!
//! So `printf '%s' 'euchre-deal-v1:9s,Ts,…:0123…' | sha256sum` checks one.
//!
//! The salt is why the commitment hides the deal: a player who knows his
//! own hand and the up-card could otherwise try every way the other cards
//! might lie (about 600 million for the standard game) and find the one
//! that hashes to the commitment. It must therefore be secret and
//! unguessable until the reveal, and it is an input here, never drawn from
//! the game's seed: the seed fixes every deal of the game to come, and
//! once the record is published (the seed with it) a salt derived from it
//! would open every commitment of the game at once. The server draws each salt from the operating
//! system's generator; the engine only records it ([`crate::Game::seal_hand`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use crate::action::Seat;
use crate::card::{Card, CardSet};
use crate::deal::{Deal, DealError};
use crate::rules::Rules;

mod witness;

pub use witness::{Mismatch, Unchecked, Verdict, Witness};

/// What the preimage starts with: names the scheme, so that a later change
/// of encoding cannot be mistaken for this one.
pub const PREIMAGE_PREFIX: &str = "euchre-deal-v1";

/// A hand's secret random salt. Its `Debug` does not print it, so a log
/// line cannot reveal it before the hand ends.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Salt(pub [u8; 32]);

/// The SHA-256 of a deal's preimage: what every seat is sent before the
/// first bid.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment(pub [u8; 32]);

/// A hand's commitment and the salt that opens it, as a record keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seal {
    pub commitment: Commitment,
    pub salt: Salt,
}

/// Whether a recorded hand's deal is the one its commitment fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DealCheck {
    /// The deal and salt hash to the commitment.
    Verified,
    /// They do not: the record was changed after the commitment was made.
    Mismatch,
    /// The hand was dealt without a commitment (before deals were sealed).
    Unsealed,
}

impl Deal {
    /// The whole pack in the committed order: each seat's hand in seat
    /// order, the dummy, the up-card, the rest of the kitty.
    pub fn deck(&self) -> Vec<Card> {
        let mut deck = Vec::with_capacity(33);
        for hand in self.hands {
            deck.extend(hand.iter());
        }
        deck.extend(self.dummy.iter());
        deck.push(self.up_card);
        deck.extend(self.kitty.iter());
        deck
    }
}

impl Deal {
    /// The deal a deck in the committed order lays out (the inverse of
    /// [`Deal::deck`]): refused unless it is exactly this game's pack,
    /// each card once.
    pub fn from_deck(rules: &Rules, dealer: Seat, deck: &[Card]) -> Result<Deal, DealError> {
        let pack = rules.pack();
        if deck.len() != pack.len() as usize {
            return Err(DealError::WrongDeckSize {
                held: deck.len(),
                expected: pack.len() as usize,
            });
        }
        let mut seen = CardSet::EMPTY;
        for &card in deck {
            if !pack.contains(card) {
                return Err(DealError::NotInPack { card });
            }
            if seen.contains(card) {
                return Err(DealError::Duplicate { card });
            }
            seen.insert(card);
        }
        let part = |cards: &[Card]| cards.iter().copied().collect::<CardSet>();
        let (size, players) = (rules.hand_size() as usize, usize::from(rules.players));
        let (in_hands, rest) = deck.split_at(size * players);
        let (dummy, rest) = rest.split_at(rules.dummy_size() as usize);
        let mut hands = [CardSet::EMPTY; 4];
        for (hand, cards) in hands.iter_mut().zip(in_hands.chunks(size)) {
            *hand = part(cards);
        }
        let deal =
            Deal { dealer, hands, dummy: part(dummy), up_card: rest[0], kitty: part(&rest[1..]) };
        deal.validate(rules)?;
        Ok(deal)
    }
}

/// The text whose SHA-256 is the commitment (see the module's description).
pub fn preimage(deck: &[Card], salt: &Salt) -> String {
    let cards: Vec<String> = deck.iter().map(Card::to_string).collect();
    format!("{PREIMAGE_PREFIX}:{}:{salt}", cards.join(","))
}

/// The commitment to `deck` under `salt`.
pub fn commit(deck: &[Card], salt: &Salt) -> Commitment {
    Commitment(Sha256::digest(preimage(deck, salt).as_bytes()).into())
}

impl Seal {
    /// Seals `deal` with `salt`.
    pub fn new(deal: &Deal, salt: Salt) -> Seal {
        Seal { commitment: commit(&deal.deck(), &salt), salt }
    }

    /// Whether `deal` (with the kept salt) hashes to the kept commitment.
    pub fn opens(&self, deal: &Deal) -> bool {
        commit(&deal.deck(), &self.salt) == self.commitment
    }
}

/// Checks a recorded deal against its seal, if it has one.
pub fn check(deal: &Deal, seal: Option<&Seal>) -> DealCheck {
    match seal {
        None => DealCheck::Unsealed,
        Some(seal) if seal.opens(deal) => DealCheck::Verified,
        Some(_) => DealCheck::Mismatch,
    }
}

/// Lower-case hex, written in one piece rather than a formatter call a byte.
fn write_hex(bytes: &[u8; 32], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let mut digits = [0u8; 64];
    hex::encode_to_slice(bytes, &mut digits).map_err(|_| fmt::Error)?;
    f.write_str(std::str::from_utf8(&digits).map_err(|_| fmt::Error)?)
}

/// Reads 64 hex digits (either case).
fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(text, &mut bytes).ok()?;
    Some(bytes)
}

macro_rules! hex_bytes {
    ($name:ident, $what:literal) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_hex(&self.0, f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::seed::NotHex;

            fn from_str(text: &str) -> Result<$name, crate::seed::NotHex> {
                parse_hex(text)
                    .map($name)
                    .ok_or_else(|| crate::seed::NotHex { what: $what, text: text.to_owned() })
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

hex_bytes!(Salt, "a salt");
hex_bytes!(Commitment, "a commitment");

impl fmt::Debug for Salt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Salt(secret)")
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

#[cfg(feature = "schema")]
mod schema {
    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use super::{Commitment, DealCheck, Salt};

    impl JsonSchema for Commitment {
        fn schema_name() -> Cow<'static, str> {
            "Commitment".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": "SHA-256 of the deal's preimage, lowercase hex: \"euchre-deal-v1:\", the deck's cards joined by commas, \":\", the salt (docs/security.md).",
            })
        }
    }

    impl JsonSchema for Salt {
        fn schema_name() -> Cow<'static, str> {
            "Salt".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": "A hand's secret salt: 32 random bytes, lowercase hex, revealed when the hand ends.",
            })
        }
    }

    impl JsonSchema for DealCheck {
        fn schema_name() -> Cow<'static, str> {
            "DealCheck".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({ "type": "string", "enum": ["verified", "mismatch", "unsealed"] })
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::action::Seat;
    use crate::rules::Preset;

    fn salt(byte: u8) -> Salt {
        Salt([byte; 32])
    }

    #[test]
    fn the_deck_is_the_whole_pack_in_the_documented_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for preset in Preset::ALL {
            let rules = preset.rules();
            let deal = Deal::shuffled(&rules, Seat(0), &mut rng);
            let deck = deal.deck();
            assert_eq!(deck.len() as u32, rules.pack().len(), "{preset:?}");
            assert_eq!(deck.iter().copied().collect::<crate::CardSet>(), rules.pack());
            let size = rules.hand_size() as usize;
            for seat in 0..usize::from(rules.players) {
                let part: crate::CardSet =
                    deck[seat * size..(seat + 1) * size].iter().copied().collect();
                assert_eq!(part, deal.hands[seat], "{preset:?} seat {seat}");
            }
            let after_hands = size * usize::from(rules.players) + rules.dummy_size() as usize;
            assert_eq!(deck[after_hands], deal.up_card);
        }
    }

    #[test]
    fn a_known_deal_has_a_known_commitment() {
        // Written out by hand from the documented encoding, and hashed by
        // `printf '%s' … | sha256sum`, independently of this code.
        let rules = Preset::Standard.rules();
        let hands = ["9s Ts Js Qs Ks", "As 9h Th Jh Qh", "Kh Ah 9c Tc Jc", "Qc Kc Ac 9d Td"]
            .map(|hand| hand.split(' ').map(|c| c.parse::<Card>().expect("card")).collect());
        let up = "Jd".parse().expect("card");
        let deal = Deal::from_hands(&rules, Seat(3), hands, up).expect("a deal");
        let text = preimage(&deal.deck(), &salt(0xab));
        assert_eq!(
            text,
            "euchre-deal-v1:9s,Ts,Js,Qs,Ks,As,9h,Th,Jh,Qh,Kh,Ah,9c,Tc,Jc,Qc,Kc,Ac,9d,Td,Jd,Qd,Kd,Ad:\
             abababababababababababababababababababababababababababababababab"
        );
        assert_eq!(
            Seal::new(&deal, salt(0xab)).commitment.to_string(),
            "3104dd3e8e0bbc6fb46da716e3ecec60b800a5ec67a7c6680d6b7c8e0db845ca"
        );
    }

    #[test]
    fn a_changed_deal_or_salt_no_longer_opens_the_seal() {
        let rules = Preset::Standard.rules();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let deal = Deal::shuffled(&rules, Seat(1), &mut rng);
        let seal = Seal::new(&deal, salt(7));
        assert_eq!(check(&deal, Some(&seal)), DealCheck::Verified);
        assert_eq!(check(&deal, None), DealCheck::Unsealed);
        // Two cards swapped between seats 0 and 1.
        let (a, b) =
            (deal.hands[0].first().expect("a card"), deal.hands[1].first().expect("a card"));
        let mut swapped = deal;
        swapped.hands[0] =
            swapped.hands[0].difference(crate::CardSet::single(a)).union(crate::CardSet::single(b));
        swapped.hands[1] =
            swapped.hands[1].difference(crate::CardSet::single(b)).union(crate::CardSet::single(a));
        assert_eq!(check(&swapped, Some(&seal)), DealCheck::Mismatch);
        let resalted = Seal { salt: salt(8), ..seal };
        assert_eq!(check(&deal, Some(&resalted)), DealCheck::Mismatch);
    }

    #[test]
    fn salts_and_commitments_are_hex_on_the_wire_and_salts_stay_out_of_logs() {
        let seal = Seal::new(
            &Deal::shuffled(&Preset::Standard.rules(), Seat(0), &mut ChaCha8Rng::seed_from_u64(1)),
            salt(0x0f),
        );
        let json = serde_json::to_value(seal).expect("serializes");
        assert_eq!(json["salt"], "0f".repeat(32));
        assert_eq!(serde_json::from_value::<Seal>(json).expect("reads back"), seal);
        assert!(!format!("{seal:?}").contains("0f0f"), "{seal:?}");
        assert!("0f".repeat(31).parse::<Salt>().is_err());
        assert!("zz".repeat(32).parse::<Salt>().is_err());
    }

    #[test]
    fn a_game_seals_each_hand_once_and_its_record_replays_with_the_seals() {
        let mut game = crate::Game::new(Preset::Standard.rules(), 3).expect("a game");
        let mut sealed = 0u8;
        let first = game.seal_hand(salt(sealed));
        assert_eq!(game.seal_hand(salt(99)), first, "a hand is sealed once");
        while let Some(seat) = game.turn() {
            let hand = game.hand_number();
            let actions = game.legal_actions(seat);
            let action =
                *actions.iter().find(|a| **a != crate::Action::Pass).unwrap_or(&actions[0]);
            game.apply(seat, action).expect("legal");
            if game.hand_number() != hand {
                sealed = sealed.wrapping_add(1);
                game.seal_hand(salt(sealed));
            }
        }
        let record = game.record().clone();
        assert!(record.hands.len() > 1);
        for hand in &record.hands {
            assert_eq!(check(&hand.deal, hand.seal.as_ref()), DealCheck::Verified);
        }
        let replayed = crate::Game::replay(&record).expect("replays");
        assert_eq!(replayed.record(), &record, "the seals survive a replay");
        let json = serde_json::to_string(&record).expect("serializes");
        assert_eq!(serde_json::from_str::<crate::GameRecord>(&json).expect("reads"), record);
    }
}
