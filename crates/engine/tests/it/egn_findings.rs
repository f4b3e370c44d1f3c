//! A referee's reading of faulty records: every finding, each at its deal
//! and step, and the scores that can still be computed. The records in
//! `data/faulty/` are engine games written as EGN (without `playerCards`)
//! and then damaged by hand; each file's `description` says how.

use euchre_engine::egn::{self, Checked, Ending, Finding, Location, Problem, Step, VerifyError};
use euchre_engine::{Card, Seat, Suit};

fn checked(name: &str) -> Checked {
    let path = format!("{}/tests/data/faulty/{name}.egn", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("a faulty record");
    egn::check(&egn::read(&text).expect("readable EGN"))
}

fn card(deal: usize, trick: usize, card: usize) -> Option<Location> {
    Some(Location { deal: Some(deal), step: Step::Card { trick, card } })
}

fn setup(deal: usize) -> Option<Location> {
    Some(Location { deal: Some(deal), step: Step::Setup })
}

/// Each finding's code and location, in order.
fn found(checked: &Checked) -> Vec<(&'static str, Option<Location>)> {
    checked.findings.iter().map(|f| (f.code(), f.location())).collect()
}

const RENEGE: &str = "must_follow_suit";

#[test]
fn a_misplaced_up_card_and_the_seven_reneges_after_it_are_all_reported() {
    let checked = checked("misplaced_up_card");
    assert_eq!(
        found(&checked),
        [
            ("inconsistent_record", setup(0)),
            // Deal 0 cannot be replayed, but its plays are still read.
            (RENEGE, card(0, 1, 2)),
            (RENEGE, card(0, 2, 1)),
            (RENEGE, card(0, 2, 3)),
            // The check resynchronises at deal 1 and replays it.
            (RENEGE, card(1, 0, 1)),
            (RENEGE, card(1, 3, 2)),
            (RENEGE, card(2, 1, 2)),
            (RENEGE, card(2, 1, 3)),
        ]
    );
    let message = checked.findings[0].to_string();
    assert!(message.contains("seat 1 played the up-card Th, which it never held"), "{message}");
    // Each renege names the card and the holding that proves it.
    let Finding::Fault(VerifyError::Renege { seat, card, led, held, proof, .. }) =
        &checked.findings[1]
    else {
        panic!("a renege: {:?}", checked.findings[1]);
    };
    let kc: Card = "Kc".parse().expect("a card");
    assert_eq!((*seat, card.to_string(), *led), (Seat(0), "Ts".to_owned(), Suit::Clubs));
    assert!(held.contains(kc));
    assert_eq!(proof, "Kc (played in trick 3)");
    assert_eq!(
        checked.findings[1].to_string(),
        "deal 0, trick 1, card 2: play Ts by seat 0 is a renege: clubs were led and it held \
         Kc (played in trick 3)"
    );
    // The damaged deal scores nothing; the others score as they were played.
    let deals = &checked.verification.deals;
    assert_eq!((deals[0].ending, deals[0].points), (Ending::Damaged, [0, 0]));
    assert!(deals[1..].iter().all(|d| d.ending == Ending::Played));
    let last = deals.last().expect("deals").score;
    assert_eq!(checked.verification.final_score.pair(), last);
    // `verify` still stops at the first.
    let game = egn::read(
        &std::fs::read_to_string(format!(
            "{}/tests/data/faulty/misplaced_up_card.egn",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("the record"),
    )
    .expect("readable");
    assert_eq!(
        egn::verify(&game).expect_err("faulty").location(),
        Location { deal: Some(0), step: Step::Setup }
    );
}

#[test]
fn an_incomplete_first_deal_does_not_hide_the_renege_in_the_second() {
    let checked = checked("incomplete_first_deal");
    let end = Some(Location { deal: Some(0), step: Step::End });
    assert_eq!(found(&checked), [("incomplete_deal", end), (RENEGE, card(1, 1, 1))]);
    assert!(checked.findings[1].to_string().ends_with("it held Js (played in trick 2)"));
    let deals = &checked.verification.deals;
    assert_eq!((deals[0].ending, deals[0].points), (Ending::Damaged, [0, 0]));
    assert_eq!(deals[1].ending, Ending::Played);
}

#[test]
fn a_deal_left_out_puts_the_next_dealer_out_of_turn() {
    let checked = checked("wrong_dealer");
    assert_eq!(found(&checked), [("dealer_out_of_turn", setup(3))]);
    assert_eq!(checked.findings[0].to_string(), "deal 3 is dealt by seat 3, expected seat 2");
    assert!(checked.verification.deals.iter().all(|d| d.ending == Ending::Played));
}

#[test]
fn a_repeated_deal_is_reported_and_left_out() {
    let checked = checked("repeated_deal");
    // The file's finalScore leaves the repeat out too: no other finding.
    assert_eq!(found(&checked), [("repeated_deal", setup(3))]);
    let deals = &checked.verification.deals;
    assert_eq!((deals[3].ending, deals[3].points), (Ending::Repeated, [0, 0]));
    assert_eq!(deals[3].score, deals[2].score);
}

#[test]
fn a_repeated_deal_number_is_reported_and_the_deal_scored() {
    let checked = checked("repeated_deal_number");
    assert_eq!(found(&checked), [("repeated_deal_number", setup(1))]);
    assert_eq!(checked.findings[0].to_string(), "deal 1 is numbered 0, as deal 0 is");
    assert!(!checked.findings[0].is_fault());
    // Another deal under an old number: played, scored and in the rotation,
    // so the file's finalScore adds up.
    assert!(checked.verification.deals.iter().all(|d| d.ending == Ending::Played));
    assert_eq!(
        checked.verification.problems,
        [Problem::RepeatedDealNumber { deal: 1, number: 0, of: 0 }]
    );
}

#[test]
fn every_deal_after_the_game_was_won_is_reported() {
    let checked = checked("after_the_game_was_won");
    assert_eq!(checked.verification.won_at_deal, Some(4));
    assert_eq!(
        found(&checked),
        [
            ("played_after_game_over", setup(5)),
            ("played_after_game_over", setup(6)),
            ("played_after_game_over", setup(7)),
        ]
    );
}

#[test]
fn findings_serialize_with_code_message_and_location() {
    let checked = checked("incomplete_first_deal");
    let json = serde_json::to_value(&checked.findings).expect("serializes");
    assert_eq!(json[0]["code"], "incomplete_deal");
    assert_eq!(json[0]["location"], serde_json::json!({ "deal": 0, "step": "end" }));
    assert_eq!(
        json[1]["location"],
        serde_json::json!({ "deal": 1, "step": "card", "trick": 1, "card": 1 })
    );
    assert!(json[1]["message"].as_str().is_some_and(|m| m.contains("renege")));
}

#[test]
fn a_renege_in_a_partial_last_deal_is_proven_by_the_hands_the_file_gives() {
    use euchre_engine::{Action, Game, Rules};
    let mut game = Game::new(Rules::default(), 5).expect("valid rules");
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let plain = actions.iter().filter(|a| !matches!(a, Action::Claim | Action::Concede));
        let choices: Vec<Action> = plain.copied().collect();
        game.apply(seat, *choices.iter().find(|a| **a != Action::Pass).unwrap_or(&choices[0]))
            .expect("legal");
    }
    let names = ["Ann", "Bob", "Cid", "Dee"].map(String::from);
    let text = egn::write(game.record(), &names).expect("expressible");
    let mut file: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    file["metadata"].as_object_mut().expect("metadata").remove("finalScore");
    let last = file["deals"].as_array().expect("deals").len() - 1;
    // A seat throws, in trick `a`, the card it played in a later trick `b`,
    // and the record stops after trick `a`: only playerCards shows what it held.
    let mut proven = None;
    'search: for a in 0..4 {
        for position in 1..4 {
            for b in a + 1..5 {
                for other in 0..4 {
                    let mut doctored = file.clone();
                    let tricks = &mut doctored["deals"][last]["phases"][1]["tricks"];
                    let moved = tricks[b][other].clone();
                    tricks[b][other] = tricks[a][position].clone();
                    tricks[a][position] = moved;
                    tricks.as_array_mut().expect("tricks").truncate(a + 1);
                    let checked = egn::check(&egn::from_value(doctored).expect("readable"));
                    if let [Finding::Fault(VerifyError::Renege { at, proof, .. })] =
                        &checked.findings[..]
                        && Some(*at) == card(last, a, position)
                    {
                        proven = Some(proof.clone());
                        break 'search;
                    }
                }
            }
        }
    }
    let proof = proven.expect("a renege the given hands prove");
    assert!(proof.ends_with("(dealt to it in playerCards)"), "{proof}");
}
