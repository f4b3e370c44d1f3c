//! What drawing puzzles costs: the mining of a ten-hand standard game's
//! stored analysis, beside the yardstick of that analysis itself (at the
//! default worlds), which the server computes once per match anyway. The
//! figure: puzzles per core-second, and mining's time as a share of the
//! analysis's.
//!
//! `cargo bench -p euchre-puzzles`; figures in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::{Criterion, criterion_group, criterion_main};
use euchre_analysis::{DEFAULT_WORLDS, GameAnalysis, Settings, analyse};
use euchre_bots::{BasicBot, Bot};
use euchre_engine::{Game, GameRecord, Rules, Viewer};
use euchre_puzzles::{Match, mine};

const HANDS: usize = 10;

/// The first ten hands of the first standard game (by seed) in which basic
/// bots play at least ten: the analysis bench's game.
fn ten_hands() -> GameRecord {
    for seed in 0.. {
        let mut game = Game::new(Rules::default(), seed).expect("valid rules");
        let mut bots: Vec<BasicBot> = (0..4).map(|_| BasicBot::new()).collect();
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            let view = game.view(Viewer::Seat(seat));
            let action = bots[seat.index()].choose(&view, &legal).expect("a choice");
            game.apply(seat, action).expect("legal");
        }
        let mut record = game.record().clone();
        if record.hands.len() >= HANDS {
            record.hands.truncate(HANDS);
            record.winner = None;
            return record;
        }
    }
    unreachable!("some game lasts ten hands")
}

fn mined(record: &GameRecord, analysis: &GameAnalysis) -> usize {
    let game = Match { id: "bench", record, analysis, humans: &[] };
    mine(&game).expect("mined").len()
}

fn bench(c: &mut Criterion) {
    let record = ten_hands();
    let settings = Settings { worlds: DEFAULT_WORLDS, seed: 1 };
    let started = ThreadTime::now();
    let analysis = analyse(&record, &settings).expect("analysed");
    let analysis_cpu = started.elapsed().as_secs_f64();
    let started = ThreadTime::now();
    let puzzles = mined(&record, &analysis);
    let mining_cpu = started.elapsed().as_secs_f64();
    eprintln!(
        "ten hands: {puzzles} puzzles; thread CPU: analysis {analysis_cpu:.3} s, mining \
         {mining_cpu:.4} s ({:.1}% of the analysis); {:.0} puzzles per core-second of mining, \
         {:.2} counting the analysis",
        100.0 * mining_cpu / analysis_cpu,
        puzzles as f64 / mining_cpu,
        puzzles as f64 / (analysis_cpu + mining_cpu)
    );

    let mut group = c.benchmark_group("ten_hands");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("mining_the_stored_analysis", |b| {
        b.iter(|| mined(black_box(&record), black_box(&analysis)))
    });
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("analysis_at_default_worlds", |b| {
        b.iter(|| analyse(black_box(&record), &settings))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
