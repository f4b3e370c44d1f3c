//! Pairing one round at scale: a progressive night of 512 players (128
//! tables) and a Swiss of 256 teams, each after three rounds played so the
//! history constrains the pairing, beside a naive yardstick measured in the
//! same run: the same players shuffled into tables with no history read.
//! `cargo bench -p euchre-tournament --bench pairing`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use euchre_tournament::{
    Format, Player, ProgressiveSettings, Seeding, Settings, SwissSettings, TableResult, Teams,
    Tournament,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PLAYERS: usize = 512;
const TEAMS: usize = 256;
const PLAYED: u32 = 3;

fn players(count: usize) -> Vec<Player> {
    (0..count).map(|k| Player::new(format!("p{k}"), 1000.0 + (k * 37 % 1000) as f64)).collect()
}

/// A tournament with `PLAYED` rounds recorded, results varied by table.
fn after_three_rounds(format: Format, count: usize) -> Tournament {
    let mut tournament =
        Tournament::new(Settings { seed: 42, players: players(count), format }).expect("valid");
    for _ in 0..PLAYED {
        let tables = tournament.next_round().expect("a round").tables.len();
        let results = (0..tables as u32).map(|k| TableResult::one([10, k % 10])).collect();
        tournament.record_round(results).expect("accepted");
    }
    tournament
}

/// The yardstick: players (or teams) shuffled into groups, nothing else.
fn naive_groups(count: usize, size: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..count).collect();
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order.chunks(size).map(<[usize]>::to_vec).collect()
}

fn pairing(c: &mut Criterion) {
    let night =
        after_three_rounds(Format::Progressive(ProgressiveSettings::new(PLAYED + 1)), PLAYERS);
    let swiss = after_three_rounds(
        Format::Swiss(SwissSettings {
            rounds: PLAYED + 1,
            teams: Teams::ByRating,
            seeding: Seeding::Rating,
        }),
        TEAMS * 2,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    c.bench_function("progressive_round_512_players", |b| {
        b.iter(|| black_box(night.next_round().expect("a round")))
    });
    c.bench_function("naive_shuffle_512_players_into_tables", |b| {
        b.iter(|| black_box(naive_groups(PLAYERS, 4, &mut rng)))
    });
    c.bench_function("swiss_round_256_teams", |b| {
        b.iter(|| black_box(swiss.next_round().expect("a round")))
    });
    c.bench_function("naive_shuffle_256_teams_into_pairs", |b| {
        b.iter(|| black_box(naive_groups(TEAMS, 2, &mut rng)))
    });
}

criterion_group!(benches, pairing);
criterion_main!(benches);
