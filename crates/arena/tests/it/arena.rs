//! Short arena runs, in games to five to keep them quick: the hard bot
//! beats the easy (basic) one over fixed deal seeds; a run gives the same
//! report on one thread and on two; the oracle (which sees every card)
//! beats the easy bot by far. Deterministic: the same seeds give the same
//! games. Longer runs and their figures: BENCHMARKS.md.

use euchre_arena::{BotSpec, Config, Report, run};
use euchre_bots::BotKind;
use euchre_engine::{Preset, Rules};

fn config(a: &str, b: &str, deals: u64) -> Config {
    Config {
        a: BotSpec::parse(a).expect("a bot"),
        b: BotSpec::parse(b).expect("a bot"),
        rules: Rules { points_to_win: 5, ..Preset::Standard.rules() },
        deals,
        seed: 1,
    }
}

#[test]
fn hard_beats_easy_over_duplicate_games() {
    let config = Config { a: BotSpec::Kind(BotKind::Hard), ..config("hard", "basic", 64) };
    let report = run(&config, 2, |_, _| {}).expect("the match is played");
    println!("{}", euchre_arena::describe(&report));
    assert_eq!(report.games, 128);
    assert_eq!(report.a_times.decisions > 0, report.b_times.decisions > 0);
    // Measured: hard won 77 of 128 games (60.2%) and scored 0.823 points a
    // hand to basic's 0.630 over 644 hands (a hard that solved its cards
    // won 74, 0.794 to 0.629 over 650; one that solved its bids too, 71).
    // The bars are the plain claims.
    assert!(report.a_win_rate > 0.5, "hard won only {:.3}", report.a_win_rate);
    assert!(
        report.a_points_per_hand > report.b_points_per_hand,
        "hard scored {:.3} a hand, basic {:.3}",
        report.a_points_per_hand,
        report.b_points_per_hand
    );
}

/// Everything in a report but the times, which are measured.
fn outcome(report: &Report) -> (u64, u64, u64, f64, f64, usize, usize) {
    (
        report.games,
        report.a_won,
        report.hands,
        report.a_points_per_hand,
        report.b_points_per_hand,
        report.a_times.decisions,
        report.b_times.decisions,
    )
}

#[test]
fn threads_do_not_change_the_report() {
    // A split player with the oracle in it: every kind of player the arena
    // seats, in one run (the bids scored by the solve and the basic bot's
    // play out together).
    let config = config("medium:worlds=8,bid_rollout=0.5/oracle", "basic", 12);
    let mut heard = Vec::new();
    let one = run(&config, 1, |done, all| heard.push((done, all))).expect("played on one thread");
    let two = run(&config, 2, |_, _| {}).expect("played on two threads");
    let three = run(&config, 3, |_, _| {}).expect("played on three threads");
    assert_eq!(one.games, 24);
    assert_eq!(heard, (1..=24).map(|done| (done, 24)).collect::<Vec<_>>());
    assert_eq!(outcome(&one), outcome(&two));
    assert_eq!(outcome(&one), outcome(&three));
    // Game by game too, in deal order, adding up to the report.
    assert_eq!(one.per_game, two.per_game);
    assert_eq!(one.per_game, three.per_game);
    let seeds: Vec<u64> = one.per_game.iter().map(|game| game.seed).collect();
    assert_eq!(seeds, (1..=12).flat_map(|seed| [seed, seed]).collect::<Vec<_>>());
    let won = one.per_game.iter().filter(|game| game.a_won).count() as u64;
    let hands: u64 = one.per_game.iter().map(|game| game.hands).sum();
    assert_eq!((won, hands), (one.a_won, one.hands));
    let same = euchre_arena::paired(&one.per_game, &two.per_game).expect("the same deals");
    assert_eq!((same.difference, same.interval), (0.0, [0.0, 0.0]));
}

#[test]
fn the_oracle_beats_easy_by_far() {
    let report = run(&config("oracle", "basic", 32), 2, |_, _| {}).expect("the match is played");
    println!("{}", euchre_arena::describe(&report));
    assert_eq!(report.games, 64);
    // Seeing every card is worth far more than hard's 55% in games to five.
    assert!(report.a_win_rate > 0.7, "the oracle won only {:.3}", report.a_win_rate);
    assert!(report.a_points_per_hand > report.b_points_per_hand + 0.3);
}

#[test]
fn a_player_against_itself_wins_half() {
    // The same deterministic player on both sides wins each deal's game on
    // one side and loses it on the other: so the split players must ask
    // each half for its own decisions to come out even too.
    for (a, b) in [("basic/basic", "basic"), ("oracle/oracle", "oracle"), ("oracle", "oracle")] {
        let report = run(&config(a, b, 8), 1, |_, _| {}).expect("the match is played");
        assert_eq!((report.games, report.a_won), (16, 8), "{a} against {b}");
        assert_eq!(report.a_points_per_hand, report.b_points_per_hand, "{a} against {b}");
    }
    // And a split player is not its halves alone.
    let mixed = run(&config("oracle/basic", "basic", 8), 1, |_, _| {}).expect("played");
    assert_ne!(mixed.a_points_per_hand, mixed.b_points_per_hand);
}
