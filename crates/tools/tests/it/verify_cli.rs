//! `euchre-verify` run as a program: on a real record, on a doctored one, and
//! on the engine's own game record.

use std::path::PathBuf;
use std::process::{Command, Output};

use euchre_engine::{Action, Game, Rules, Salt};
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
        stderr.contains(
            "must_follow_suit: deal 1, trick 3, card 2: play Qc by seat 0 is a renege: spades \
             were led and it held Ks (played in trick 4)"
        ),
        "{stderr}"
    );
    // The good file still gets its report; the bad one a located finding.
    let docs = documents(&output);
    assert_eq!(docs[0]["ok"], true);
    assert_eq!(docs[0]["findings"], json!([]));
    let findings = docs[1]["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:?}");
    let finding = &findings[0];
    assert_eq!((&finding["deal"], &finding["step"]), (&json!(1), &json!("trick 3, card 2")));
    assert_eq!(finding["code"], "must_follow_suit");
    // Scored as played: the renege does not change who took the tricks.
    assert_eq!(docs[1]["result"]["final_score"], json!([10, 9]));
}

const FAULTY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/data/faulty");

fn faulty(name: &str) -> PathBuf {
    PathBuf::from(format!("{FAULTY}/{name}.egn"))
}

/// Each finding of a document as (code, deal, step).
fn findings(doc: &Value) -> Vec<(String, Value, Value)> {
    let list = doc["findings"].as_array().expect("findings");
    list.iter()
        .map(|f| {
            (f["code"].as_str().expect("a code").to_owned(), f["deal"].clone(), f["step"].clone())
        })
        .collect()
}

fn at(code: &str, deal: usize, step: &str) -> (String, Value, Value) {
    (code.to_owned(), json!(deal), json!(step))
}

#[test]
fn a_faulty_record_is_read_to_the_end() {
    let output = run(&[faulty("misplaced_up_card"), faulty("incomplete_first_deal")]);
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    // The misplaced up-card and the seven reneges after it.
    assert_eq!(
        findings(&docs[0]),
        [
            at("inconsistent_record", 0, "initial state"),
            at("must_follow_suit", 0, "trick 1, card 2"),
            at("must_follow_suit", 0, "trick 2, card 1"),
            at("must_follow_suit", 0, "trick 2, card 3"),
            at("must_follow_suit", 1, "trick 0, card 1"),
            at("must_follow_suit", 1, "trick 3, card 2"),
            at("must_follow_suit", 2, "trick 1, card 2"),
            at("must_follow_suit", 2, "trick 1, card 3"),
        ]
    );
    assert_eq!(docs[0]["ok"], false);
    // The scores it can still compute: deal 0 scores nothing.
    let deals = docs[0]["result"]["deals"].as_array().expect("deals");
    assert_eq!((&deals[0]["ending"], &deals[0]["points"]), (&json!("damaged"), &json!([0, 0])));
    assert_eq!(docs[0]["result"]["final_score"], deals.last().expect("a deal")["score"]);
    // The incomplete first deal and the renege in the second.
    assert_eq!(
        findings(&docs[1]),
        [at("incomplete_deal", 0, "end"), at("must_follow_suit", 1, "trick 1, card 1")]
    );
    // Every finding on stderr too, one line each, and a summary per file.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 8 + 1 + 2 + 1, "{stderr}");
    let score = &docs[0]["result"]["final_score"];
    let summary =
        format!("8 finding(s); the deals that could be scored make {} to {}", score[0], score[1]);
    assert!(stderr.contains(&summary), "{stderr}");
    assert!(stderr.contains("seat 1 played the up-card Th, which it never held"), "{stderr}");
    assert!(stderr.contains("it held Js (played in trick 2)"), "{stderr}");
}

#[test]
fn every_kind_of_score_finding_is_reported() {
    let names = ["wrong_dealer", "repeated_deal", "after_the_game_was_won", "repeated_deal_number"];
    let output = run(&names.map(faulty));
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    assert_eq!(findings(&docs[0]), [at("dealer_out_of_turn", 3, "initial state")]);
    assert_eq!(findings(&docs[1]), [at("repeated_deal", 3, "initial state")]);
    assert_eq!(
        findings(&docs[2]),
        (5..8).map(|deal| at("played_after_game_over", deal, "initial state")).collect::<Vec<_>>()
    );
    assert_eq!(findings(&docs[3]), [at("repeated_deal_number", 1, "initial state")]);
}

#[test]
fn unreadable_and_unknown_files_fail() {
    let output =
        run(&[PathBuf::from("/nonexistent/file.egn"), scratch("other.json", "{\"a\": 1}")]);
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    assert_eq!(docs[0]["findings"][0]["code"], "unreadable");
    assert_eq!(docs[1]["findings"][0]["code"], "unknown_format");
    assert!(docs[1]["result"].is_null());
}

#[test]
fn the_engines_own_records_verify_too() {
    // Claims are in the engine's records as they were made.
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
    assert_eq!(docs[0]["findings"][0]["code"], "not_your_turn");
    assert_eq!(docs[0]["findings"][0]["step"], json!(format!("action {play}")));
}

#[test]
fn sealed_deals_are_checked_and_a_tampered_one_is_named() {
    // Sealed hand by hand as a table seals them.
    let mut game = Game::new(Rules::default(), 4).expect("valid rules");
    game.seal_hand(Salt([1; 32]));
    while let Some(seat) = game.turn() {
        let hand = game.hand_number();
        let actions = game.legal_actions(seat);
        let action = *actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, action).expect("legal");
        if game.hand_number() != hand {
            game.seal_hand(Salt([game.hand_number() as u8 + 1; 32]));
        }
    }
    let text = serde_json::to_string(game.record()).expect("a record serializes");
    let output = run(&[scratch("sealed.json", &text)]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    let docs = documents(&output);
    let hands = game.record().hands.len();
    assert_eq!(docs[0]["deal_checks"], json!(vec!["verified"; hands]));

    // A salt changed after the fact (or a deal: the same hash) is caught.
    let mut record: Value = serde_json::from_str(&text).expect("JSON");
    let salt = &mut record["hands"][1]["seal"]["salt"];
    *salt = json!(format!("ff{}", &salt.as_str().expect("hex")[2..]));
    let output = run(&[scratch("resalted.json", &record.to_string())]);
    assert_eq!(output.status.code(), Some(1));
    let docs = documents(&output);
    assert_eq!(docs[0]["deal_checks"][1], "mismatch");
    assert_eq!(docs[0]["findings"][0]["code"], "deal_mismatch");
    assert_eq!(docs[0]["findings"][0]["deal"], json!(1));
}
