//! Throughput of the engine: random full hands and legal-move generation,
//! on the lean simulation path and through the full API, and perft of fixed
//! deals (asserting the committed counts it times).
//!
//! Run with `cargo bench -p euchre-engine`; `BENCHMARKS.md` has the figures.
//! Every random choice is uniform over the legal actions other than
//! farmer's hand, claims and concessions, on every path.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use euchre_engine::sim::{self, CardPlay};
use euchre_engine::{Action, Deal, Game, Hand, NoEvents, Phase, Rules, Seat};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

// Shared with the perft test, which uses all of it.
#[allow(dead_code)]
#[path = "../tests/it/perft/cases.rs"]
mod cases;

/// A uniformly random action from a full-API list, leaving out the ones that
/// cut a hand short (as `sim::random_action` does).
fn pick(actions: &[Action], rng: &mut SmallRng) -> Action {
    let keep = |a: &&Action| !matches!(a, Action::FarmersHand | Action::Claim | Action::Concede);
    let n = actions.iter().filter(keep).count();
    let index = rng.random_range(0..n);
    *actions.iter().filter(keep).nth(index).expect("index below count")
}

/// Plays `hands` hands of whole games through `step`, starting a new game
/// (seeded in turn) whenever one ends: the deal of each hand is the game's
/// own, from its ChaCha generator, and the game record grows as a server's
/// does. `step` takes one action and returns whether the game moved on.
fn play_games(hands: u64, seed: &mut u64, mut step: impl FnMut(&mut Game, Seat)) -> Duration {
    let rules = Rules::default();
    let start = Instant::now();
    let mut game = Game::new(rules, *seed).expect("valid rules");
    for _ in 0..hands {
        if game.is_over() {
            *seed += 1;
            game = Game::new(rules, *seed).expect("valid rules");
        }
        let number = game.hand_number();
        while let Some(seat) = game.turn() {
            step(&mut game, seat);
            if game.hand_number() != number {
                break;
            }
        }
    }
    start.elapsed()
}

fn random_hands(c: &mut Criterion) {
    let rules = Rules::default();
    let mut group = c.benchmark_group("random_hand");
    group.throughput(Throughput::Elements(1));

    // (a) The simulation path: sim::random_hand (Deal::shuffled with a
    // SmallRng, bids through Hand::apply_with into NoEvents, the cards on
    // sim::CardPlay).
    let mut rng = SmallRng::seed_from_u64(1);
    let mut dealer = 0u8;
    group.bench_function("sim", |b| {
        b.iter(|| {
            dealer = (dealer + 1) & 3;
            black_box(sim::random_hand(&rules, Seat(dealer), &mut rng))
        })
    });

    // (b) The full API as a server uses it: whole games through
    // Game::legal_actions (an inline ActionList) and Game::apply (an inline
    // EventList) at every step, the game record growing. One element is a hand.
    let mut rng = SmallRng::seed_from_u64(2);
    let mut seed = 0;
    group.bench_function("game_api", |b| {
        b.iter_custom(|hands| {
            play_games(hands, &mut seed, |game, seat| {
                let actions = game.legal_actions(seat);
                let events = game.apply(seat, pick(&actions, &mut rng)).expect("legal");
                black_box(events);
            })
        })
    });

    // (b) again with the events sent by Game::apply_with into one reused Vec
    // instead of returned, and the hand's ActionList.
    let mut rng = SmallRng::seed_from_u64(3);
    let mut seed = 0;
    let mut events = Vec::with_capacity(16);
    group.bench_function("game_api_reused_buffers", |b| {
        b.iter_custom(|hands| {
            play_games(hands, &mut seed, |game, seat| {
                let actions = game.hand().legal_actions(seat);
                events.clear();
                game.apply_with(seat, pick(actions.as_slice(), &mut rng), &mut events)
                    .expect("legal");
                black_box(&events);
            })
        })
    });

    // (b) one level down: Hand::legal_actions (into a Vec) and Hand::apply
    // with its events, without a game or its record.
    let mut rng = SmallRng::seed_from_u64(4);
    group.bench_function("hand_api", |b| {
        b.iter(|| {
            dealer = (dealer + 1) & 3;
            let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(dealer), &mut rng));
            while let Some(seat) = hand.turn() {
                let actions = hand.legal_actions(seat).as_slice().to_vec();
                let events = hand.apply(seat, pick(&actions, &mut rng)).expect("legal");
                black_box(events);
            }
            black_box(hand.outcome())
        })
    });
    group.finish();
}

/// Mid-hand positions: random hands stopped after a random number of plays
/// below `most_plays`.
fn positions(count: usize, most_plays: u32) -> Vec<Hand> {
    let rules = Rules::default();
    let mut rng = SmallRng::seed_from_u64(5);
    let mut found = Vec::with_capacity(count);
    while found.len() < count {
        let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(0), &mut rng));
        let stop = rng.random_range(0..most_plays);
        let mut plays = 0;
        while let Some(seat) = hand.turn() {
            if hand.phase() == Phase::Playing {
                if plays == stop {
                    found.push(hand);
                    break;
                }
                plays += 1;
            }
            let action = sim::random_action(&hand, &mut rng);
            hand.apply_with(seat, action, &mut NoEvents).expect("legal");
        }
    }
    found
}

/// Playouts as a search bot runs them: from the first lead of random hands
/// (trump made, discards done), `CardPlay::random_playout` on a copy of a
/// position renumbered once beforehand.
fn playouts(c: &mut Criterion) {
    let plays: Vec<CardPlay> =
        positions(1000, 1).iter().map(|hand| CardPlay::new(hand).expect("in play")).collect();
    let mut rng = SmallRng::seed_from_u64(6);
    let mut group = c.benchmark_group("playout");
    // One element is one playout to the end of the hand.
    group.throughput(Throughput::Elements(plays.len() as u64));
    group.bench_function("card_play", |b| {
        b.iter(|| {
            let mut total = 0;
            for play in black_box(&plays) {
                let mut copy = *play;
                total += copy.random_playout(&mut rng)[0];
            }
            total
        })
    });
    group.finish();
}

fn legal_moves(c: &mut Criterion) {
    let positions = positions(1000, 20);
    let mut group = c.benchmark_group("legal_moves");
    // One element is one position's legal moves.
    group.throughput(Throughput::Elements(positions.len() as u64));
    // (c) The simulation path: the mask of legal cards.
    group.bench_function("sim_legal_plays", |b| {
        b.iter(|| {
            let mut total = 0;
            for hand in black_box(&positions) {
                total += hand.legal_plays().len();
            }
            total
        })
    });
    // The same on the renumbered bit sets a playout uses, turned back into
    // a `CardSet` of cards.
    let plays: Vec<CardPlay> =
        positions.iter().map(|hand| CardPlay::new(hand).expect("in play")).collect();
    group.bench_function("card_play_legal_plays", |b| {
        b.iter(|| {
            let mut total = 0;
            for play in black_box(&plays) {
                total += play.legal_plays().len();
            }
            total
        })
    });
    // The full API: every legal action (cards, a claim when it is certain,
    // concession), in the inline ActionList.
    group.bench_function("hand_legal_actions", |b| {
        b.iter(|| {
            let mut total = 0;
            for hand in black_box(&positions) {
                if let Some(seat) = hand.turn() {
                    total += hand.legal_actions(seat).len();
                }
            }
            total
        })
    });
    // The same, copied into a Vec, as a caller that keeps the list does.
    group.bench_function("hand_legal_actions_vec", |b| {
        b.iter(|| {
            let mut total = 0;
            for hand in black_box(&positions) {
                if let Some(seat) = hand.turn() {
                    total += hand.legal_actions(seat).as_slice().to_vec().len();
                }
            }
            total
        })
    });
    group.finish();
}

/// Perft trees above this many leaves take too long per iteration to time.
const PERFT_LIMIT: u64 = 3_000_000;

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for case in cases::load() {
        let hand = case.hand();
        // The deepest committed count within the limit: the whole hand for
        // every case but `all_void`, whose full tree has 207 million leaves.
        let Some(&(depth, expected)) = case.counts.iter().rfind(|(_, n)| *n <= PERFT_LIMIT) else {
            continue;
        };
        // One element is one leaf.
        group.throughput(Throughput::Elements(expected));
        group.bench_function(format!("{}/depth_{depth}", case.id), |b| {
            // Each timed count is checked against the committed one.
            b.iter(|| {
                let leaves = sim::perft(black_box(&hand), depth);
                assert_eq!(leaves, expected, "{} depth {depth}", case.id);
                leaves
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = random_hands, playouts, legal_moves, perft
}
criterion_main!(benches);
