//! The weakest opponent: any legal action, uniformly at random.

use euchre_engine::{Action, GameView};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Bot, choices};

/// Picks uniformly among the legal actions, except that it never concedes
/// (a random concession would end most hands at once and teach nothing).
///
/// ChaCha is a named generator whose output does not change between
/// versions of `rand`, so a seed replays the same game for good.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, _view: &GameView, legal: &[Action]) -> Option<Action> {
        let count = choices(legal).count();
        if count == 0 {
            return None;
        }
        let pick = self.rng.random_range(0..count);
        choices(legal).nth(pick)
    }
}
