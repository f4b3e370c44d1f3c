//! Random hands per second in each game form: every preset, and the options
//! that change the pack or how cards are played (the joker, no trump). The
//! same work as `engine`'s `random_hand/sim`: `sim::random_hand` deals,
//! bids and plays a whole hand with uniformly random legal choices.
//!
//! Run with `cargo bench -p euchre-engine --bench forms`; `BENCHMARKS.md` has
//! the figures.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use euchre_engine::{HandOutcome, Preset, Rules, Seat, sim};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn forms() -> Vec<(String, Rules)> {
    let standard = Preset::Standard.rules();
    let mut forms: Vec<(String, Rules)> =
        Preset::ALL.iter().map(|preset| (preset.name().to_owned(), preset.rules())).collect();
    forms.push(("joker".to_owned(), Rules { joker: true, ..standard }));
    forms.push(("no_trump".to_owned(), Rules { allow_no_trump: true, ..standard }));
    forms
}

fn random_hands_per_form(c: &mut Criterion) {
    let mut group = c.benchmark_group("form");
    group.throughput(Throughput::Elements(1));
    for (name, rules) in forms() {
        let mut rng = SmallRng::seed_from_u64(7);
        let mut dealer = 0u8;
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                dealer = (dealer + 1) % rules.players;
                let outcome = sim::random_hand(&rules, Seat(dealer), &mut rng);
                // Each hand is checked a little, so the work cannot be skipped.
                if let HandOutcome::Played(played) = outcome {
                    debug_assert_eq!(played.tricks.iter().sum::<u8>(), 5);
                }
                black_box(outcome)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, random_hands_per_form);
criterion_main!(benches);
