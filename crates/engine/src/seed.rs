//! A game's seed: the 32 bytes its ChaCha8 generator starts from, so that
//! the first dealer and every shuffle of the game follow from it.
//!
//! A server draws each match's seed from the operating system: 256 bits, as
//! many as the generator takes, so nobody can search the seeds for the one
//! that deals what he saw. Games used to be seeded from a `u64` (tests and
//! tools still are): [`Seed::from`] turns one into the same 32 bytes rand's
//! `seed_from_u64` expands it to, so an old record or test deals the same
//! cards, and records written then (the seed a JSON number) still read.

use std::fmt;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// The 32 bytes a game's generator starts from. Its `Debug` does not print
/// them: until the game ends they fix every deal to come.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The game's generator, at its start.
    pub fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::from_seed(self.0)
    }
}

/// A 64-bit seed as the older games had: the 32 bytes rand expands it to
/// (PCG32, which rand_core documents as value-stable), so
/// `Game::new(rules, 7)` deals what it always dealt.
impl From<u64> for Seed {
    fn from(seed: u64) -> Seed {
        Seed(ChaCha8Rng::seed_from_u64(seed).get_seed())
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(secret)")
    }
}

/// Text that should have been 64 hex digits (a seed, a salt, a commitment)
/// and is not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not {what} (64 hex digits)")]
pub struct NotHex {
    /// What the text should have been: "a seed", "a commitment", ...
    pub what: &'static str,
    pub text: String,
}

impl std::str::FromStr for Seed {
    type Err = NotHex;

    /// 64 hex digits (either case).
    fn from_str(text: &str) -> Result<Seed, NotHex> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes)
            .map_err(|_| NotHex { what: "a seed", text: text.to_owned() })?;
        Ok(Seed(bytes))
    }
}

/// 64 lowercase hex digits.
impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// 64 hex digits, or a record's older 64-bit seed (a JSON number).
impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Seed, D::Error> {
        deserializer.deserialize_any(SeedVisitor)
    }
}

struct SeedVisitor;

impl de::Visitor<'_> for SeedVisitor {
    type Value = Seed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a seed: 64 hex digits, or an older record's unsigned 64-bit number")
    }

    fn visit_u64<E: de::Error>(self, seed: u64) -> Result<Seed, E> {
        Ok(Seed::from(seed))
    }

    fn visit_i64<E: de::Error>(self, seed: i64) -> Result<Seed, E> {
        u64::try_from(seed)
            .map(Seed::from)
            .map_err(|_| E::custom(format!("seed {seed} is negative")))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Seed, E> {
        text.parse().map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;

    #[test]
    fn a_64_bit_seed_becomes_the_32_bytes_that_draw_the_same_numbers() {
        for small in [0, 1, 7, u64::MAX] {
            let mut old = ChaCha8Rng::seed_from_u64(small);
            let mut new = Seed::from(small).rng();
            let (old, new): (Vec<u64>, Vec<u64>) =
                (0..8).map(|_| (old.next_u64(), new.next_u64())).unzip();
            assert_eq!(old, new, "seed {small}");
        }
    }

    #[test]
    fn a_seed_is_64_hex_digits_and_an_older_number_still_reads() {
        let seed = Seed(std::array::from_fn(|i| i as u8 * 7));
        let json = serde_json::to_value(seed).expect("serializes");
        assert_eq!(json, serde_json::Value::String(seed.to_string()));
        assert_eq!(json.as_str().map(str::len), Some(64));
        assert_eq!(serde_json::from_value::<Seed>(json).expect("reads back"), seed);
        // A record from before: `"seed": 17`, as the engine wrote a u64.
        assert_eq!(serde_json::from_str::<Seed>("17").expect("an old seed"), Seed::from(17));
        assert_eq!(
            serde_json::from_str::<Seed>(&u64::MAX.to_string()).expect("the largest"),
            Seed::from(u64::MAX)
        );
        assert!(serde_json::from_str::<Seed>("-1").is_err());
        assert!(serde_json::from_str::<Seed>("\"abcd\"").is_err());
        assert!(!format!("{seed:?}").contains(&seed.to_string()[..8]), "{seed:?}");
    }
}
