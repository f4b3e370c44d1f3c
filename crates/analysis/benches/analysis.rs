//! What analysing a ten-hand standard game costs on one core: with every
//! card shown (goal: under a second), and with what each player knew at the
//! default number of worlds (goal: under ten seconds); beside them, the
//! plain solver once on each position where a card was chosen.
//!
//! `cargo bench -p euchre-analysis`; figures in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::{Criterion, criterion_group, criterion_main};
use euchre_analysis::{DEFAULT_WORLDS, Settings, analyse, options};
use euchre_bots::{BasicBot, Bot};
use euchre_engine::sim::Solver;
use euchre_engine::{Game, GameRecord, Hand, Phase, Rules, Viewer};

const HANDS: usize = 10;

/// The first ten hands of the first standard game (by seed) in which basic
/// bots play at least ten: ordinary play, every hand finished.
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

/// Every position where a card was played with a choice.
fn card_choices(record: &GameRecord) -> Vec<Hand> {
    let deals = record.hands.iter().map(|hand| hand.deal).collect();
    let mut game = Game::with_deals(record.rules, record.seed, record.start.clone(), deals)
        .expect("a sound record");
    let mut positions = Vec::new();
    for hand in &record.hands {
        for step in &hand.actions {
            let position = *game.hand();
            if position.phase() == Phase::Playing
                && options(&position, step.seat, step.action).len() > 1
            {
                positions.push(position);
            }
            game.apply(step.seat, step.action).expect("legal");
        }
    }
    positions
}

fn bench(c: &mut Criterion) {
    let record = ten_hands();
    let positions = card_choices(&record);
    let shown = analyse(&record, &Settings { worlds: 0, seed: 1 }).expect("analysed");
    assert_eq!(shown.hands.len(), HANDS);
    let decisions: usize = shown.hands.iter().map(|hand| hand.decisions.len()).sum();
    let options: usize = shown
        .hands
        .iter()
        .flat_map(|hand| &hand.decisions)
        .filter_map(|decision| decision.shown.as_ref())
        .map(|shown| shown.options.len())
        .sum();
    eprintln!(
        "ten hands: {decisions} decisions, {} cards chosen, {options} card options",
        positions.len()
    );

    let started = ThreadTime::now();
    black_box(analyse(&record, &Settings { worlds: 0, seed: 1 }).expect("analysed"));
    eprintln!("every card shown: CPU {:.4} s", started.elapsed().as_secs_f64());
    for worlds in [DEFAULT_WORLDS / 2, DEFAULT_WORLDS, 2 * DEFAULT_WORLDS] {
        seed_noise(&record, worlds);
    }

    let mut group = c.benchmark_group("ten_hands");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("solver_once_per_card_choice", |b| {
        b.iter(|| {
            let mut solver = Solver::new();
            for hand in &positions {
                black_box(solver.outcome(hand));
            }
        })
    });
    group.bench_function("every_card_shown", |b| {
        b.iter(|| analyse(black_box(&record), &Settings { worlds: 0, seed: 1 }))
    });
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("both_ways_at_default_worlds", |b| {
        b.iter(|| analyse(black_box(&record), &Settings { worlds: DEFAULT_WORLDS, seed: 1 }))
    });
    group.finish();
}

/// How much the losses move between two seeds at `worlds` worlds (the
/// noise the tolerance has to sit above), and each analysis's running time
/// on this thread (the machine is shared: criterion's figures are wall time).
fn seed_noise(record: &GameRecord, worlds: u32) {
    let losses = |seed| {
        let started = ThreadTime::now();
        let analysis = analyse(record, &Settings { worlds, seed }).expect("analysed");
        let cpu = started.elapsed();
        let known = analysis.hands.into_iter().flat_map(|hand| hand.decisions);
        let losses: Vec<f64> =
            known.filter_map(|decision| decision.known).map(|known| known.points_lost).collect();
        (losses, cpu)
    };
    let ((first, cpu_first), (second, cpu_second)) = (losses(1), losses(2));
    let mut differences: Vec<f64> = first.iter().zip(&second).map(|(a, b)| (a - b).abs()).collect();
    differences.sort_by(f64::total_cmp);
    let within = |loss: f64| loss < euchre_analysis::grade::TOLERANCE;
    let flipped = first.iter().zip(&second).filter(|(a, b)| within(**a) != within(**b)).count();
    let mean = differences.iter().sum::<f64>() / differences.len().max(1) as f64;
    let p95 = differences.get(differences.len() * 95 / 100).copied().unwrap_or(0.0);
    let max = differences.last().copied().unwrap_or(0.0);
    eprintln!(
        "{worlds} worlds: CPU {:.2} s and {:.2} s; seeds 1 and 2, {} decisions: |loss difference| \
         mean {mean:.3}, 95th percentile {p95:.3}, max {max:.3}; within tolerance by one seed \
         and not the other: {flipped}",
        cpu_first.as_secs_f64(),
        cpu_second.as_secs_f64(),
        differences.len()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
