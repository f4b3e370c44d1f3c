//! EGN: every recorded game in the shared fixtures replays legally and ends
//! where it ended; broken records fail at the step that breaks them; games the
//! engine plays survive a round trip through EGN.

use std::path::PathBuf;

use euchre_engine::egn::{self, Call, EgnError, Ending, Location, Problem, Step, VerifyError};
use euchre_engine::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

fn fixture_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(FIXTURES)
        .expect("the shared fixtures sit beside the repository")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "egn"))
        .collect();
    paths.sort();
    paths
}

fn text(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a fixture")
}

fn json_of(name: &str) -> Value {
    serde_json::from_str(&text(name)).expect("fixture JSON")
}

fn verify_value(value: Value) -> Result<egn::Verification, VerifyError> {
    egn::verify(&egn::from_value(value).expect("readable EGN"))
}

fn verified(name: &str) -> egn::Verification {
    let game = egn::read(&text(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    egn::verify(&game).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn card(code: &str) -> Card {
    code.parse().expect("a card code")
}

fn cards(codes: &str) -> CardSet {
    card::parse_cards(codes).expect("card codes").into_iter().collect()
}

fn at(deal: usize, step: Step) -> Location {
    Location { deal: Some(deal), step }
}

// ---- The recorded games ----------------------------------------------------------

/// Final scores derived by the replay. Each game ends on its last deal and not
/// before; the custom scenario is one deal of a game in progress.
const FINALS: [(&str, [u16; 2]); 12] = [
    ("Custom_Scenario", [0, 1]),
    ("Epic_Comeback", [11, 9]),
    ("Me_and_Bears", [10, 9]),
    ("MotE_W5_G1", [10, 3]),
    ("MotE_W5_G2", [8, 10]),
    ("MotE_W5_G3", [10, 6]),
    ("MotE_W5_G4", [8, 10]),
    ("MotE_W5_G5", [11, 7]),
    ("MotE_W5_G6", [10, 9]),
    ("Quite_the_Hustle_Annotated", [10, 7]),
    ("Six_Points_in_Two_Hands", [10, 9]),
    ("VWEC_Finals_Annotated", [8, 10]),
];

#[test]
fn every_fixture_replays_legally_and_ends_where_it_ended() {
    let paths = fixture_paths();
    assert_eq!(paths.len(), FINALS.len(), "a fixture was added or removed: update FINALS");
    for path in paths {
        let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
        let result = verified(&name);
        let (_, final_score) =
            FINALS.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(result.final_score, *final_score, "{name}");
        assert_eq!(result.problems, Vec::<Problem>::new(), "{name}");
        let last = result.deals.len() - 1;
        assert!(result.deals.iter().all(|d| d.ending == Ending::Played), "{name}");
        // The running score is the initial score plus each deal's points.
        let mut score = result.initial_score;
        for deal in &result.deals {
            for (total, points) in score.iter_mut().zip(deal.points) {
                *total += u16::from(points);
            }
            assert_eq!(deal.score, score, "{name}, deal {}", deal.deal);
            assert_eq!(deal.tricks[0] + deal.tricks[1], 5, "{name}, deal {}", deal.deal);
        }
        if name == "Custom_Scenario" {
            assert_eq!((result.winner, result.won_at_deal), (None, None));
            continue;
        }
        // Won on the last deal, and not before.
        assert_eq!(result.won_at_deal, Some(last), "{name}");
        let winner = if final_score[0] >= 10 { Team(0) } else { Team(1) };
        assert_eq!(result.winner, Some(winner), "{name}");
        assert!(result.deals[..last].iter().all(|d| d.score.iter().all(|s| *s < 10)), "{name}");
    }
}

#[test]
fn six_points_in_two_hands_checked_by_hand() {
    let result = verified("Six_Points_in_Two_Hands");
    assert_eq!(result.initial_score, [4, 9]);
    // Deal 0: everybody passes round one, seat 2 names hearts alone; seat 0
    // sits out and seat 1 leads. Seat 2 takes every trick: a lone march, 4.
    let first = &result.deals[0];
    assert_eq!(first.dealer, Seat(0));
    assert_eq!(first.maker, Some(Seat(2)));
    assert_eq!(first.trump, Some(Suit::Hearts));
    assert!(first.alone);
    assert_eq!((first.tricks, first.points, first.score), ([5, 0], [4, 0], [8, 9]));
    assert_eq!(first.cards.as_ref().expect("replayed").hands[2], cards("As Jh Jd Th Qs"));
    // Deal 1: seat 2 orders the dealer (seat 1) up in diamonds and his side
    // marches: 2 points and the game, 10 to 9.
    let second = &result.deals[1];
    assert_eq!((second.dealer, second.maker), (Seat(1), Some(Seat(2))));
    assert_eq!((second.trump, second.alone), (Some(Suit::Diamonds), false));
    assert_eq!((second.tricks, second.points, second.score), ([5, 0], [2, 0], [10, 9]));
    // The dealer played the up-card, so it was not in the hand he was dealt.
    assert!(!second.cards.as_ref().expect("replayed").hands[1].contains(card("Qd")));
    assert_eq!(
        (result.final_score.as_slice(), result.winner, result.won_at_deal),
        (&[10, 9][..], Some(Team(0)), Some(1))
    );
}

#[test]
fn given_hands_are_used_as_dealt() {
    // All four hands given: the deal is exactly the file's.
    let result = verified("Custom_Scenario");
    let deal = &result.deals[0];
    assert_eq!(deal.cards.as_ref().expect("replayed").hands[0], cards("Kh As Jd Th Ah"));
    assert_eq!(deal.cards.as_ref().expect("replayed").hands[3], cards("Qs 9d Js 9s Td"));
    // Round one passes, seat 1 names spades; its side takes 3 tricks.
    assert_eq!((deal.maker, deal.trump), (Some(Seat(1)), Some(Suit::Spades)));
    assert_eq!((deal.tricks, deal.points), ([2, 3], [0, 1]));

    // The sitting-out partner's hand (the non-schema player_cards) is kept.
    let mote = verified("MotE_W5_G1");
    let lone = &mote.deals[8];
    assert_eq!((lone.maker, lone.alone), (Some(Seat(0)), true));
    assert_eq!(lone.cards.as_ref().expect("replayed").hands[2], cards("Kh As Js Ts 9c"));
    // A recorded discard is in the dealer's dealt hand; the up-card is not.
    let picked = &mote.deals[2];
    assert_eq!(picked.dealer, Seat(2));
    assert!(picked.cards.as_ref().expect("replayed").hands[2].contains(card("Qs")));
    assert!(!picked.cards.as_ref().expect("replayed").hands[2].contains(card("Qc")));
}

#[test]
fn the_loner_lead_rule_decides_who_plays_each_card() {
    // Me and Bears, deal 4: seat 2 goes alone with seat 1 dealing. From the
    // loner's left, seat 3 would lead and the cards fall to other players.
    let mut value = json_of("Me_and_Bears");
    value["metadata"]["ruleset"]["loner_lead"] = json!("LEFT_OF_LONER");
    let error = verify_value(value).expect_err("the wrong leader breaks the replay");
    assert_eq!(error.location().deal, Some(4), "{error}");
}

// ---- Broken records --------------------------------------------------------------

#[test]
fn a_renege_is_illegal_at_its_card() {
    // Six Points, deal 1: seat 0 throws Qc on the spade lead of trick 3 while
    // still holding the Ks it plays to trick 4 (Js moves to trick 2, where
    // seat 0 is already out of trump).
    let mut value = json_of("Six_Points_in_Two_Hands");
    let tricks = &mut value["deals"][1]["phases"][1]["tricks"];
    tricks[2][2] = json!("Js");
    tricks[3][2] = json!("Qc");
    let error = verify_value(value).expect_err("a renege");
    assert_eq!(error.code(), "must_follow_suit");
    assert_eq!(
        error,
        VerifyError::Renege {
            at: at(1, Step::Card { trick: 3, card: 2 }),
            seat: Seat(0),
            card: card("Qc"),
            led: Suit::Spades,
            held: cards("Ks"),
            proof: "Ks (played in trick 4)".to_owned(),
        }
    );
    let message = error.to_string();
    assert_eq!(
        message,
        "deal 1, trick 3, card 2: play Qc by seat 0 is a renege: spades were led and it held \
         Ks (played in trick 4)"
    );
}

#[test]
fn illegal_calls_are_named_by_index() {
    // Stick the dealer: the dealer may not pass round two.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["calls"] = json!(vec!["Pass"; 8]);
    value["deals"][0]["phases"].as_array_mut().expect("phases").truncate(1);
    let error = verify_value(value).expect_err("the dealer is stuck");
    assert_eq!(error.location(), at(0, Step::Call { index: 7 }));
    assert_eq!(error.code(), "dealer_must_call");

    // Naming the turned-down suit (spades: the up-card is Ks).
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["calls"][5] = json!("s");
    let error = verify_value(value).expect_err("spades were turned down");
    assert_eq!(error.location(), at(0, Step::Call { index: 5 }));
    assert_eq!(error.code(), "suit_turned_down");

    // Ordering up in round two.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["calls"][5] = json!("Order");
    let error = verify_value(value).expect_err("no ordering up in round two");
    assert_eq!((error.location(), error.code()), (at(0, Step::Call { index: 5 }), "not_now"));
}

#[test]
fn without_stick_the_dealer_eight_passes_throw_the_hand_in() {
    let mut value = json_of("Custom_Scenario");
    value["metadata"]["ruleset"]["std"] = json!(false);
    value["deals"][0]["phases"][0]["calls"] = json!(vec!["Pass"; 8]);
    value["deals"][0]["phases"].as_array_mut().expect("phases").truncate(1);
    let result = verify_value(value).expect("a legal throw-in");
    let deal = &result.deals[0];
    assert_eq!((deal.ending, deal.maker, deal.points), (Ending::ThrownIn, None, [0, 0]));
}

#[test]
fn records_that_contradict_themselves_are_inconsistent() {
    let inconsistent = |value: Value| {
        let error = verify_value(value).expect_err("inconsistent");
        assert_eq!(error.code(), "inconsistent_record", "{error}");
        error
    };
    // A card played twice.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][1]["tricks"][4][0] = json!("Jd");
    let error = inconsistent(value);
    assert_eq!(error.location(), at(1, Step::Card { trick: 4, card: 0 }));
    // A short trick that is not the last.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][1]["tricks"][0] = json!(["Jd", "Ts", "Jh"]);
    inconsistent(value);
    // The discard is also played.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][0]["discard"] = json!("Qd");
    assert_eq!(inconsistent(value).location(), at(1, Step::Discard));
    // A discard without a pick-up (round two call).
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["discard"] = json!("9c");
    inconsistent(value);
    // initialLead disagreeing with the rules.
    let mut value = json_of("MotE_W5_G1");
    value["deals"][0]["phases"][1]["initialLead"] = json!(2);
    assert_eq!(inconsistent(value).location(), at(0, Step::Card { trick: 0, card: 0 }));
    // A given hand that does not hold what its player played.
    let mut value = json_of("Custom_Scenario");
    value["deals"][0]["initialState"]["playerCards"][0][0] = json!("9c");
    assert_eq!(inconsistent(value).location(), at(0, Step::Setup));
    // An unfinished deal followed by another.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][1]["tricks"].as_array_mut().expect("tricks").truncate(3);
    let error = verify_value(value).expect_err("incomplete");
    assert_eq!((error.code(), error.location()), ("incomplete_deal", at(0, Step::End)));
}

#[test]
fn a_partial_last_deal_is_reported_unfinished() {
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][1]["tricks"].as_array_mut().expect("tricks").truncate(2);
    let result = verify_value(value).expect("a partial game is legal");
    let last = &result.deals[1];
    assert_eq!((last.ending, last.tricks, last.points), (Ending::Unfinished, [2, 0], [0, 0]));
    assert_eq!((result.final_score.as_slice(), result.winner), (&[8, 9][..], None));
}

#[test]
fn score_problems_are_reported() {
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["metadata"]["finalScore"] = json!([10, 8]);
    // A third deal: deal 1 again, word for word. It is left out.
    let mut extra = value["deals"][1].clone();
    extra["dealNumber"] = json!(2);
    value["deals"].as_array_mut().expect("deals").push(extra.clone());
    let result = verify_value(value.clone()).expect("every step is legal");
    assert_eq!(result.won_at_deal, Some(1));
    assert_eq!(
        result.problems,
        vec![
            Problem::RepeatedDeal { deal: 2, of: 1 },
            Problem::FinalScoreDiffers { recorded: [10, 8], derived: [10, 9] },
        ]
    );
    assert_eq!(result.deals[2].ending, Ending::Repeated);
    // Dealt by seat 1 again but not the same deal (a pass more): played
    // after the game was won, by the wrong dealer, and scored.
    extra["phases"][0]["calls"] = json!(["Pass", "Order"]);
    value["deals"][2] = extra;
    let result = verify_value(value).expect("every step is legal");
    assert_eq!(
        result.problems,
        vec![
            Problem::PlayedAfterGameOver { deal: 2 },
            Problem::DealerOutOfTurn { deal: 2, expected: Seat(2), recorded: Seat(1) },
            Problem::FinalScoreDiffers { recorded: [10, 8], derived: [12, 9] },
        ]
    );
}

#[test]
fn malformed_files_are_refused_at_read() {
    let read = |value: Value| egn::from_value(value).expect_err("refused");
    // A card code that names no card.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][1]["tricks"][2][1] = json!("Zz");
    let error = read(value);
    assert!(matches!(error, EgnError::Invalid { .. }), "{error}");
    assert_eq!(error.location(), Some(at(1, Step::Card { trick: 2, card: 1 })));
    assert!(error.to_string().contains("\"Zz\" is not a card"), "{error}");
    // A card outside the pack.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["initialState"]["upCard"] = json!("8s");
    assert_eq!(read(value).code(), "invalid_egn");
    // Not an EGN file at all.
    assert!(matches!(read(json!({"hello": "world"})), EgnError::NotEgn(None)));
    let shapeless = json!({"fileType": "Euchre Game Notation", "version": "1.4"});
    assert_eq!(read(shapeless).code(), "invalid_egn");
    assert!(matches!(egn::read("{ not json"), Err(EgnError::Json(_))));
}

#[test]
fn unsupported_features_are_named() {
    let unsupported = |value: Value| match egn::from_value(value) {
        Err(EgnError::Unsupported { at, feature }) => (at, feature),
        other => panic!("expected unsupported, got {other:?}"),
    };
    for field in ["partners_best", "four_trick_tokens"] {
        let mut value = json_of("Six_Points_in_Two_Hands");
        value["metadata"]["ruleset"][field] = json!(true);
        let (_, feature) = unsupported(value);
        assert_eq!(feature, format!("ruleset.{field}"));
    }
    // Defaults and false flags are fine.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["metadata"]["ruleset"]["joker"] = json!(false);
    value["metadata"]["ruleset"]["num_players"] = json!(4);
    assert!(egn::from_value(value).is_ok());
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["metadata"]["ruleset"]["num_players"] = json!(3);
    assert_eq!(unsupported(value).1, "ruleset.num_players 3");
    // A no-trump call reads; where the ruleset does not allow it, the
    // replay refuses it at that call.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["calls"][5] = json!("n");
    let game = egn::from_value(value).expect("readable");
    assert_eq!(game.deals[0].calls[5], Call::NoTrump);
    let error = egn::verify(&game).expect_err("no trump is off");
    assert_eq!(error.code(), "no_trump_off", "{error}");
    // Cards written by role or unknown.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][1]["tricks"][1][0] = json!("R");
    assert_eq!(unsupported(value).0, at(0, Step::Card { trick: 1, card: 0 }));
}

#[test]
fn rules_come_from_the_ruleset() {
    let mut value = json_of("Six_Points_in_Two_Hands");
    let ruleset = &mut value["metadata"]["ruleset"];
    ruleset["min_rank"] = json!(7);
    ruleset["winning_score"] = json!(11);
    ruleset["loner_lead"] = json!("LEFT_OF_LONER");
    ruleset["loner_march_score"] = json!(5);
    ruleset["loner_euchred_score"] = json!(4);
    ruleset["std"] = json!(false);
    let rules = egn::from_value(value).expect("readable").rules;
    assert_eq!(rules.deck, Deck::SevenToAce);
    assert_eq!(rules.points_to_win, 11);
    assert_eq!(rules.loner_lead, LonerLead::LeftOfLoner);
    assert_eq!((rules.scoring.lone_march, rules.scoring.lone_euchre), (5, 4));
    assert_eq!(rules.all_pass, AllPass::Redeal);
    let default = egn::read(&text("Six_Points_in_Two_Hands")).expect("readable");
    assert_eq!(default.rules.all_pass, AllPass::StickTheDealer);
    assert!(!default.rules.canadian_loner && !default.rules.defend_alone);
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["metadata"]["ruleset"]["canadian"] = json!(true);
    value["metadata"]["ruleset"]["defend_alone"] = json!(true);
    let rules = egn::from_value(value).expect("readable").rules;
    assert!(rules.canadian_loner && rules.defend_alone);
    assert_eq!(rules.scoring.defender_alone_euchre, 4);
    assert_eq!(default.deals[0].calls[5], Call::Name(Suit::Hearts));
}

// ---- Writing ------------------------------------------------------------------------

/// Plays a game with random legal actions, never claiming, conceding or
/// throwing in a farmer's hand (EGN has none of those).
fn random_game(rules: Rules, seed: u64) -> Game {
    let mut game = Game::new(rules, seed).expect("valid rules");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while let Some(seat) = game.turn() {
        let actions: Vec<Action> = game
            .legal_actions(seat)
            .into_iter()
            .filter(|a| !matches!(a, Action::Claim | Action::Concede | Action::FarmersHand))
            .collect();
        let action = actions[rng.random_range(0..actions.len() as u32) as usize];
        game.apply(seat, action).expect("a legal action");
    }
    game
}

fn names() -> Vec<String> {
    ["North", "East", "South", "West"].map(String::from).to_vec()
}

#[test]
fn games_round_trip_through_egn() {
    for preset in Preset::ALL {
        let rules = preset.rules();
        if rules.joker {
            // A turned-up joker's suit has no EGN call: its own test.
            continue;
        }
        if rules.rubber {
            // EGN records one game (a rubber is EMN's match of games).
            let game = random_game(rules, 1);
            let refused = egn::write(game.record(), &names());
            assert!(matches!(refused, Err(egn::WriteError::Rules(_))), "{preset:?}");
        } else if rules.partnerships() {
            round_trips(rules, &format!("{preset:?}"), 12);
        } else {
            // EGN's scores are a pair of partnerships: the writer says so.
            let game = random_game(rules, 1);
            let refused = egn::write(game.record(), &names());
            assert!(matches!(refused, Err(egn::WriteError::Rules(_))), "{preset:?}");
        }
    }
}

#[test]
fn no_trump_games_round_trip_through_egn() {
    let rules = Rules { allow_no_trump: true, ..Rules::default() };
    round_trips(rules, "no trump", 16);
    let mut no_trump_hands = 0;
    for seed in 0..16 {
        let game = random_game(rules, seed);
        let text = egn::write(game.record(), &names()).expect("expressible");
        assert!(text.contains("\"allow_no_trump\": true"));
        no_trump_hands += game
            .record()
            .hands
            .iter()
            .filter(
                |hand| matches!(hand.outcome, Some(HandOutcome::Played(p)) if p.trump.is_none()),
            )
            .count();
    }
    assert!(no_trump_hands > 0, "some random hand was played at no trump");
}

#[test]
fn joker_games_round_trip_through_egn_with_the_joker_as_b() {
    let rules = Rules { joker: true, ..Rules::default() };
    let (mut written, mut refused) = (0, 0);
    for seed in 0..24 {
        let game = random_game(rules, seed);
        match egn::write(game.record(), &names()) {
            Ok(text) => {
                assert!(text.contains("\"B\"") && !text.contains("JK"), "seed {seed}");
                let read = egn::read(&text).expect("readable");
                let (record, _) = egn::to_record(&read).expect("sound");
                assert_eq!(record.hands, game.record().hands, "seed {seed}");
                written += 1;
            }
            // A turned-up joker's named suit has no EGN call.
            Err(egn::WriteError::Inexpressible { action, .. }) => {
                assert_eq!(action, "joker suit");
                refused += 1;
            }
            Err(other) => panic!("seed {seed}: {other}"),
        }
    }
    assert!(written > 0 && refused > 0, "{written} written, {refused} refused");
    // Without the joker in the ruleset, B is not in the pack.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][1]["phases"][1]["tricks"][2][1] = json!("B");
    assert_eq!(egn::from_value(value).expect_err("not in the pack").code(), "invalid_egn");
}

#[test]
fn canadian_loners_and_lone_defenders_round_trip_through_egn() {
    let rules = Rules { canadian_loner: true, defend_alone: true, ..Rules::default() };
    let defended = round_trips(rules, "defend alone", 16);
    assert!(defended > 0, "some random hand was defended alone");
    // The writer says who defended alone; the reader replays it.
    let game = random_game(rules, 3);
    let text = egn::write(game.record(), &names()).expect("expressible");
    assert!(text.contains("\"defend_alone\": true") && text.contains("\"canadian\": true"));
    // A lone defender's euchre worth other than 4 is not EGN.
    let mut record = game.record().clone();
    record.rules.scoring.defender_alone_euchre = 2;
    assert!(matches!(egn::write(&record, &names()), Err(egn::WriteError::Rules(_))));
}

#[test]
fn an_alone_defender_must_fit_the_bidding() {
    // No loner in deal 1 (an order-up): nobody can defend alone.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["metadata"]["ruleset"]["defend_alone"] = json!(true);
    value["deals"][1]["phases"][0]["aloneDefender"] = json!(2);
    let game = egn::from_value(value).expect("readable");
    let error = egn::verify(&game).expect_err("inconsistent");
    assert_eq!(error.code(), "inconsistent_record", "{error}");
    // Not a seat at all.
    let mut value = json_of("Six_Points_in_Two_Hands");
    value["deals"][0]["phases"][0]["aloneDefender"] = json!(7);
    assert_eq!(egn::from_value(value).expect_err("refused").code(), "invalid_egn");
}

/// Writes random games under `rules` as EGN and reads them back, checking
/// every deal; returns how many hands had a lone defender.
fn round_trips(rules: Rules, label: &str, seeds: u64) -> usize {
    let mut defended = 0;
    {
        for seed in 0..seeds {
            let preset = label;
            let game = random_game(rules, seed);
            let record = game.record();
            let text = egn::write(record, &names()).expect("expressible");
            let read =
                egn::read(&text).unwrap_or_else(|e| panic!("{preset:?} {seed}: {e}\n{text}"));
            let result = egn::verify(&read).unwrap_or_else(|e| panic!("{preset:?} {seed}: {e}"));
            assert_eq!(result.deals.len(), record.hands.len());
            for (replayed, recorded) in result.deals.iter().zip(&record.hands) {
                assert_eq!(replayed.cards, Some(recorded.deal), "{preset:?} {seed}");
                match recorded.outcome.expect("finished") {
                    HandOutcome::Played(played) => {
                        assert_eq!(replayed.maker, Some(played.maker));
                        assert_eq!(replayed.trump, played.trump);
                        assert_eq!(replayed.alone, played.alone);
                        defended += usize::from(played.lone_defender.is_some());
                        assert_eq!(
                            (&replayed.tricks[..], &replayed.points[..]),
                            (played.tricks.as_slice(), played.points.as_slice())
                        );
                    }
                    HandOutcome::ThrownIn(_) => assert_eq!(replayed.ending, Ending::ThrownIn),
                }
            }
            assert_eq!(result.final_score, game.scores(), "{preset:?} {seed}");
            assert_eq!(result.winner, game.winner());
            assert_eq!(result.won_at_deal, Some(record.hands.len() - 1));
            assert_eq!(result.problems, Vec::<Problem>::new());
            let players: Vec<String> =
                record.start.seating.iter().map(|p| names()[usize::from(*p)].clone()).collect();
            assert_eq!(result.players, players);
        }
    }
    defended
}

#[test]
fn a_game_in_progress_is_written_up_to_its_last_finished_hand() {
    let mut game = random_game(Rules::default(), 5);
    let finished = game.record().hands.len();
    // Replay the record into a fresh game, stopping inside the last hand.
    let record = game.record().clone();
    game = Game::replay(&GameRecord {
        hands: {
            let mut hands = record.hands.clone();
            if let Some(last) = hands.last_mut() {
                last.actions.truncate(3);
                last.outcome = None;
            }
            hands
        },
        scores: PerTeam::new(2),
        winner: None,
        ..record
    })
    .expect("a prefix of a legal game replays");
    let text = egn::write(game.record(), &names()).expect("expressible");
    let result = egn::verify(&egn::read(&text).expect("readable")).expect("legal");
    assert_eq!(result.deals.len(), finished - 1);
}

#[test]
fn what_egn_cannot_say_is_an_error() {
    // A claim.
    let rules = Rules::default();
    let mut game = Game::new(rules, 9).expect("valid rules");
    let mut claimed = false;
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let action = if actions.contains(&Action::Claim) {
            claimed = true;
            Action::Claim
        } else {
            *actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0])
        };
        game.apply(seat, action).expect("legal");
    }
    assert!(claimed, "pick a seed whose game has a claim");
    // A claim is written out as plays that win the same tricks.
    let text = egn::write(game.record(), &names()).expect("a claim is written out");
    let result = egn::verify(&egn::read(&text).expect("readable")).expect("legal");
    assert_eq!(result.final_score, game.scores());
    // A concession at the first lead of a hand whose conceding side must
    // win a trick however it plays cannot be.
    let refused = (0..50).find_map(|seed| {
        let mut game = Game::new(rules, seed).expect("valid rules");
        while let Some(seat) = game.turn() {
            let actions = game.legal_actions(seat);
            let action = if actions.contains(&Action::Concede) {
                Action::Concede
            } else {
                *actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0])
            };
            game.apply(seat, action).expect("legal");
        }
        egn::write(game.record(), &names()).err()
    });
    let error = refused.expect("a concession of tricks no play gives away");
    assert!(
        matches!(error, egn::WriteError::Inexpressible { action, .. } if action.starts_with("concession")),
        "{error}"
    );
    // Three names, and scoring EGN cannot state.
    let game = random_game(rules, 1);
    assert_eq!(egn::write(game.record(), &names()[..3]), Err(egn::WriteError::Players(3)));
    let mut record = game.record().clone();
    record.rules.scoring.march = 3;
    assert!(matches!(egn::write(&record, &names()), Err(egn::WriteError::Rules(_))));
    // Call for best: EGN's cardExchanges are not written (nor read) yet.
    let mut record = game.record().clone();
    record.rules.call_for_best = true;
    assert!(matches!(egn::write(&record, &names()), Err(egn::WriteError::Rules(_))));
}
