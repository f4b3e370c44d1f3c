//! One quick-play wave at 8,000 waiting players, spread over four pools of
//! four forms (partnership, cutthroat, three-handed, two-handed): the CPU
//! the matcher takes per wave, the pools' task's only work that grows with
//! the players waiting. `cargo bench -p euchre-server --bench quick_play`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use euchre_engine::Preset;
use euchre_matcher::{Entry, Policy, Shape, wave};

const WAITING: usize = 8_000;

/// A pool's waiting requests: ratings 1000 to 2000, deviations 40 to 350,
/// waits up to a minute, one in ten a team of two where the form has teams.
fn pool(players: usize, teams: bool, seed: u64) -> Vec<Entry> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut entries = Vec::new();
    let mut seated = 0;
    while seated < players {
        let size = if teams && next() % 10 == 0 { 2 } else { 1 };
        entries.push(Entry {
            rating: 1000.0 + (next() % 1000) as f64,
            deviation: 40.0 + (next() % 310) as f64,
            size,
            since: next() % 60_000,
            bots_at: None,
        });
        seated += usize::from(size);
    }
    entries
}

fn one_wave(c: &mut Criterion) {
    let policy = Policy::default();
    let forms = [Preset::Standard, Preset::Cutthroat, Preset::ThreeHanded, Preset::TwoHanded];
    let pools: Vec<(Shape, Vec<Entry>)> = forms
        .iter()
        .zip(1u64..)
        .map(|(preset, seed)| {
            let rules = preset.rules();
            let shape = Shape { seats: rules.players, partnerships: rules.partnerships() };
            (shape, pool(WAITING / forms.len(), rules.partnerships(), seed))
        })
        .collect();
    let seated: usize = pools
        .iter()
        .map(|(shape, entries)| {
            wave(entries, *shape, true, &policy, 60_000).len() * usize::from(shape.seats)
        })
        .sum();
    println!(
        "one wave seats {seated} of {WAITING} waiting (rated, ranges as after up to a minute)"
    );
    c.bench_function("quick_play_wave_8000_rated_four_forms", |b| {
        b.iter(|| {
            for (shape, entries) in &pools {
                black_box(wave(black_box(entries), *shape, true, &policy, 60_000));
            }
        })
    });
    c.bench_function("quick_play_wave_8000_casual_four_forms", |b| {
        b.iter(|| {
            for (shape, entries) in &pools {
                black_box(wave(black_box(entries), *shape, false, &policy, 60_000));
            }
        })
    });
}

criterion_group!(benches, one_wave);
criterion_main!(benches);
