//! The work of the `random_hand` benchmarks in a plain loop, for profilers
//! such as callgrind whose instruction counts stay steady on a busy machine.
//!
//! `cargo build --profile bench -p euchre-engine --example random_hands`, then
//! `valgrind --tool=callgrind target/release/examples/random_hands sim 100000`
//! (or `game_api` for the full API; `deal` and `bid` stop the simulation's
//! work after the deal, or after the bidding and discards).

use std::hint::black_box;

use euchre_engine::{Action, Deal, Game, Hand, NoEvents, Phase, Rules, Seat, sim};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A uniformly random action from a full-API list, leaving out the ones that
/// cut a hand short: the benchmark's choice.
fn pick(actions: &[Action], rng: &mut SmallRng) -> Action {
    let keep = |a: &&Action| !matches!(a, Action::FarmersHand | Action::Claim | Action::Concede);
    let n = actions.iter().filter(keep).count();
    let index = rng.random_range(0..n);
    *actions.iter().filter(keep).nth(index).expect("index below count")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "sim".to_owned());
    let hands: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    // Opaque to the optimiser, as rules read from a table's settings are (and
    // as they are in the benchmark, whose closures capture them).
    let rules = black_box(Rules::default());
    let mut rng = SmallRng::seed_from_u64(1);
    match mode.as_str() {
        "sim" => {
            for n in 0..hands {
                black_box(sim::random_hand(&rules, Seat((n & 3) as u8), &mut rng));
            }
        }
        // The sim's parts, to see where its time goes: the deal alone, and
        // the deal with the hand made and bid (no card play).
        "deal" => {
            for n in 0..hands {
                black_box(Deal::shuffled(&rules, Seat((n & 3) as u8), &mut rng));
            }
        }
        "bid" => {
            for n in 0..hands {
                let mut hand =
                    Hand::new(rules, Deal::shuffled(&rules, Seat((n & 3) as u8), &mut rng));
                while hand.phase() != Phase::Playing
                    && let Some(seat) = hand.turn()
                {
                    let action = sim::random_action(&hand, &mut rng);
                    hand.apply_with(seat, action, &mut NoEvents).expect("a legal action");
                }
                black_box(hand);
            }
        }
        "game_api" => {
            let mut seed = 0;
            let mut game = Game::new(rules, seed).expect("valid rules");
            for _ in 0..hands {
                if game.is_over() {
                    seed += 1;
                    game = Game::new(rules, seed).expect("valid rules");
                }
                let number = game.hand_number();
                while let Some(seat) = game.turn() {
                    let actions = game.legal_actions(seat);
                    let events = game.apply(seat, pick(&actions, &mut rng)).expect("legal");
                    black_box(events);
                    if game.hand_number() != number {
                        break;
                    }
                }
            }
        }
        _ => {
            eprintln!("usage: random_hands [sim|deal|bid|game_api] [HANDS]");
            std::process::exit(2);
        }
    }
}
