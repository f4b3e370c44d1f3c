//! `euchre-tools` run as a program: the schedule report and a stored
//! tournament record verified, then doctored.

use std::path::PathBuf;
use std::process::{Command, Output};

use euchre_tournament::{
    Event, Format, Player, ProgressiveSettings, Settings, TableResult, Tournament,
};
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_euchre-tools")).args(args).output().expect("the binary runs")
}

#[test]
fn the_schedule_report_per_count() {
    let output =
        run(&["tournament-schedule", "--players", "8,13", "--leftover", "sit-out", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let reports: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(reports.len(), 2);
    for (report, (players, rounds)) in reports.iter().zip([(8, 7), (13, 13)]) {
        assert_eq!(
            (report["players"].as_u64(), report["rounds"].as_u64()),
            (Some(players), Some(rounds))
        );
        assert_eq!(report["whist_design"], true);
        assert_eq!(report["partner_repeats"], 0);
        assert_eq!(report["most_opposed"], 2);
    }
    let table = run(&["tournament-schedule", "--players", "13", "--rounds", "4"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.lines().nth(1).is_some_and(|line| line.split_whitespace().take(2).eq(["13", "4"])),
        "{text}"
    );
    assert!(!run(&["tournament-schedule", "--players", "x"]).status.success());
}

#[test]
fn a_record_verifies_and_a_doctored_one_does_not() {
    let players = (0..9).map(|k| Player::new(format!("p{k}"), 1500.0)).collect();
    let format = Format::Progressive(ProgressiveSettings::new(3));
    let mut night = Tournament::new(Settings { seed: 4, players, format }).expect("valid");
    while !night.is_finished() {
        let tables = night.next_round().expect("a round").tables.len();
        night.record_round(vec![TableResult::one([5, 3]); tables]).expect("accepted");
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let good = dir.join("night.json");
    std::fs::write(&good, serde_json::to_string(night.record()).expect("JSON")).expect("written");
    let mut doctored = night.record().clone();
    let Event::Round { round, .. } = &mut doctored.events[1] else { panic!("a round") };
    round.tables.swap(0, 1);
    let bad = dir.join("doctored.json");
    std::fs::write(&bad, serde_json::to_string(&doctored).expect("JSON")).expect("written");

    let output = run(&["tournament-verify", good.to_str().expect("a path")]);
    assert!(output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("ok: 3 round(s) re-derived, finished")
    );
    let output =
        run(&["tournament-verify", good.to_str().expect("a path"), bad.to_str().expect("a path")]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("event 1: round 2 is stored paired differently"), "{stdout}");
}
