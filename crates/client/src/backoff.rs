//! How long to wait before each attempt to reconnect.

use std::time::Duration;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Exponential backoff with full jitter: before attempt `n` (from 0) the
/// client waits a uniformly random time between zero and
/// `min(max, first * 2^n)`, so that the clients a server restart drops do
/// not all come back in the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// The ceiling of the first wait.
    pub first: Duration,
    /// The ceiling of every wait.
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { first: Duration::from_millis(250), max: Duration::from_secs(15) }
    }
}

impl Backoff {
    /// The ceiling before attempt `attempt`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.first.saturating_mul(factor).min(self.max)
    }

    /// A random wait before attempt `attempt`.
    pub(crate) fn wait(&self, attempt: u32, rng: &mut ChaCha8Rng) -> Duration {
        let ceiling = self.ceiling(attempt).as_millis() as u64;
        Duration::from_millis(rng.random_range(0..=ceiling))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn ceilings_double_up_to_the_maximum() {
        let backoff = Backoff { first: Duration::from_millis(100), max: Duration::from_secs(1) };
        let ceilings: Vec<u64> = (0..6).map(|n| backoff.ceiling(n).as_millis() as u64).collect();
        assert_eq!(ceilings, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(backoff.ceiling(u32::MAX), Duration::from_secs(1));
    }

    #[test]
    fn waits_are_spread_over_the_whole_range() {
        let backoff = Backoff { first: Duration::from_millis(1000), max: Duration::from_secs(1) };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let waits: Vec<Duration> = (0..1000).map(|_| backoff.wait(0, &mut rng)).collect();
        assert!(waits.iter().all(|wait| *wait <= Duration::from_secs(1)));
        let low = waits.iter().filter(|w| **w < Duration::from_millis(250)).count();
        let high = waits.iter().filter(|w| **w > Duration::from_millis(750)).count();
        // A quarter each, give or take: full jitter, not a fixed delay.
        assert!((180..=320).contains(&low) && (180..=320).contains(&high), "{low} {high}");
    }
}
