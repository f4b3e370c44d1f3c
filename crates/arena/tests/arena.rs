//! A short arena run: the hard bot beats the easy (basic) one over fixed
//! deal seeds, in games to five to keep it quick. Deterministic: the same
//! seeds give the same games. Longer runs and their figures: BENCHMARKS.md.

use euchre_arena::{BotSpec, Config, run};
use euchre_bots::BotKind;
use euchre_engine::{Preset, Rules};

#[test]
fn hard_beats_easy_over_duplicate_games() {
    let config = Config {
        a: BotSpec::Kind(BotKind::Hard),
        b: BotSpec::Kind(BotKind::Basic),
        rules: Rules { points_to_win: 5, ..Preset::Standard.rules() },
        deals: 64,
        seed: 1,
    };
    let report = run(&config, |_, _| {}).expect("the match is played");
    println!("{}", euchre_arena::describe(&report));
    assert_eq!(report.games, 128);
    assert_eq!(report.a_times.decisions > 0, report.b_times.decisions > 0);
    // Measured: hard won 71 of 128 games (55.5%) and scored 0.782 points a
    // hand to basic's 0.635 over 671 hands. The bars are the plain claims.
    assert!(report.a_win_rate > 0.5, "hard won only {:.3}", report.a_win_rate);
    assert!(
        report.a_points_per_hand > report.b_points_per_hand,
        "hard scored {:.3} a hand, basic {:.3}",
        report.a_points_per_hand,
        report.b_points_per_hand
    );
}
