//! `euchre-verify` run as a program: on a real record, on a doctored one, and
//! on the engine's own game record.

use std::path::PathBuf;
use std::process::{Command, Output};

use euchre_engine::{Action, Game, Rules};
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

fn run(files: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_euchre-verify")).args(files).output().expect("the binary runs")
}

/// Every JSON document the program printed.
fn documents(output: &Output) -> Vec<Value> {
    serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("stdout is JSON documents")
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(format!("{FIXTURES}/{name}.egn"))
}

/// Writes a file under the test's own scratch directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).expect("a scratch file");
    path
}

#[test]
fn a_real_record_verifies() {
    let output = run(&[fixture("Six_Points_in_Two_Hands")]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let docs = documents(&output);
    assert_eq!(docs.len(), 1);
    let result = &docs[0]["result"];
    assert_eq!(docs[0]["format"], "egn");
    assert_eq!(docs[0]["ok"], true);
    assert_eq!(result["final_score"], json!([10, 9]));
    assert_eq!(result["winner"], 0);
    let first = &result["deals"][0];
    assert_eq!(
        (&first["dealer"], &first["maker"], &first["trump"], &first["alone"]),
        (&json!(0), &json!(2), &json!("hearts"), &json!(true))
    );
    assert_eq!((&first["tricks"], &first["points"]), (&json!([5, 0]), &json!([4, 0])));
    assert_eq!(first["score"], json!([8, 9]));
}

#[test]
fn a_doctored_record_fails_at_its_step() {
    // Seat 0 reneges on the spade lead of deal 1, trick 3.
    let mut value: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("Six_Points_in_Two_Hands")).expect("the fixture"),
    )
    .expect("JSON");
    let tricks = &mut value["deals"][1]["phases"][1]["tricks"];
    tricks[2][2] = json!("Js");
    tricks[3][2] = json!("Qc");
    let doctored = scratch("reneged.egn", &value.to_string());
    let output = run(&[fixture("Epic_Comeback"), doctored.clone()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&doctored.display().to_string()), "{stderr}");
    assert!(
        stderr.contains("must_follow_suit: deal 1, trick 3, card 2: play Qc by seat 0"),
        "{stderr}"
    );
    // The good file still gets its report; the bad one a located error.
    let docs = documents(&output);
    assert_eq!(docs[0]["ok"], true);
    let error = &docs[1]["error"];
    assert_eq!((&error["deal"], &error["step"]), (&json!(1), &json!("trick 3, card 2")));
    assert_eq!(error["code"], "must_follow_suit");
}

#[test]
fn unreadable_and_unknown_files_fail() {
    let output =
        run(&[PathBuf::from("/nonexistent/file.egn"), scratch("other.json", "{\"a\": 1}")]);
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    assert_eq!(docs[0]["error"]["code"], "unreadable");
    assert_eq!(docs[1]["error"]["code"], "unknown_format");
}

#[test]
fn the_engines_own_records_verify_too() {
    // Claims are in the engine's records, though EGN cannot hold them.
    let mut game = Game::new(Rules::default(), 11).expect("valid rules");
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let action = if actions.contains(&Action::Claim) {
            Action::Claim
        } else {
            *actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0])
        };
        game.apply(seat, action).expect("legal");
    }
    let text = serde_json::to_string(game.record()).expect("a record serializes");
    let output = run(&[scratch("record.json", &text)]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let docs = documents(&output);
    assert_eq!(docs[0]["format"], "record");
    assert_eq!(docs[0]["result"]["final_score"], json!(game.scores()));

    // A card swapped into another seat's turn is caught and named.
    let mut record: Value = serde_json::from_str(&text).expect("JSON");
    let actions = record["hands"][0]["actions"].as_array_mut().expect("actions");
    let play = actions.iter().position(|a| a["action"] == "play").expect("a card was played");
    actions[play]["seat"] = json!((actions[play]["seat"].as_u64().expect("a seat") + 1) % 4);
    let output = run(&[scratch("bad-record.json", &record.to_string())]);
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    assert_eq!(docs[0]["error"]["code"], "not_your_turn");
    assert_eq!(docs[0]["error"]["step"], json!(format!("action {play}")));
}
