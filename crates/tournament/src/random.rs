//! The seeded draws. Each purpose and round has its own ChaCha8 stream, so a
//! draw never depends on how many numbers an earlier one took, and the
//! shuffle is written here rather than taken from `rand`, whose algorithms
//! may change between versions: a stored tournament replays forever.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a stream is drawn for; its number is part of the stream id.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Purpose {
    Teams = 1,
    Seeding = 2,
    Seating = 3,
}

pub(crate) fn stream(seed: u64, purpose: Purpose, round: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((purpose as u64) << 32) | u64::from(round));
    rng
}

/// Fisher–Yates. The modulo's bias is below 2^-50 for any list here.
pub(crate) fn shuffle<T>(items: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// 0..n in a random order.
pub(crate) fn permutation(n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order, rng);
    order
}
