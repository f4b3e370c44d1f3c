//! Round trips through EGN (claims and concessions written out as play) and
//! the conversion of recorded games into engine records.

use serde_json::Value;

use super::*;
use crate::action::{Action, Seat};
use crate::card::{Card, CardSet};
use crate::game::Game;
use crate::record::GameRecord;
use crate::rules::Rules;

/// A whole game by the engine, making trump when it can and never claiming
/// or conceding, so the record and EGN hold the same steps.
fn played_game(seed: u64) -> Game {
    let mut game = Game::new(Rules::default(), seed).expect("default rules");
    while let Some(seat) = game.turn() {
        let choices: Vec<Action> = game
            .legal_actions(seat)
            .into_iter()
            .filter(|a| !matches!(a, Action::Claim | Action::Concede))
            .collect();
        let action = choices.iter().find(|a| **a != Action::Pass).or(choices.first());
        game.apply(seat, *action.expect("an expressible action")).expect("a legal action");
    }
    game
}

fn names() -> Vec<String> {
    ["North", "East", "South", "West"].map(String::from).to_vec()
}

#[test]
fn a_game_written_as_egn_comes_back_as_the_same_record() {
    for seed in 0..20 {
        let game = played_game(seed);
        let original = game.record();
        let text = write(original, &names()).expect("expressible in EGN");
        let (record, verification) = to_record(&read(&text).expect("readable")).expect("sound");
        // Every deal, step and outcome survives; the full hands are in the file.
        assert_eq!(record.hands, original.hands, "seed {seed}");
        assert_eq!((record.scores, record.winner), (original.scores, original.winner));
        assert_eq!(record.start.dealer, original.start.dealer);
        assert_eq!(verification.final_score, original.scores);
        let replayed = Game::replay(&record).expect("the record replays");
        assert_eq!(replayed.scores(), original.scores);
    }
}

/// A game where every claim the engine allows is made and, in hand 2
/// if `concede_at` says so, the first seat to play in that trick concedes.
fn claiming_game(rules: Rules, seed: u64, concede_at: Option<u8>) -> Game {
    let mut game = Game::new(rules, seed).expect("valid rules");
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let concede =
            game.record().hands.len() == 3 && Some(game.hand().tricks_played()) == concede_at;
        let action = if actions.contains(&Action::Claim) {
            Action::Claim
        } else if concede && actions.contains(&Action::Concede) {
            Action::Concede
        } else {
            let making = actions.iter().find(|a| !matches!(a, Action::Pass | Action::Concede));
            *making.unwrap_or(&actions[0])
        };
        game.apply(seat, action).expect("a legal action");
    }
    game
}

/// `original` written as EGN and read back: the same deals, outcomes and
/// scores, and a note at each hand that was cut short.
fn round_trip(original: &GameRecord, text: &str) {
    let file: Value = serde_json::from_str(text).expect("JSON");
    let (record, verification) =
        to_record(&read(text).expect("readable")).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(verification.final_score, original.scores);
    assert_eq!((record.scores, record.winner), (original.scores, original.winner));
    let mut cut_short = false;
    for (index, (again, hand)) in record.hands.iter().zip(&original.hands).enumerate() {
        assert_eq!(again.deal, hand.deal);
        assert_eq!(again.outcome, hand.outcome, "hand {index}");
        let cut = hand.actions.iter().any(|a| matches!(a.action, Action::Claim | Action::Concede));
        let notes = &file["deals"][index]["phases"][1]["playAnnotations"];
        assert_eq!(notes.is_object(), cut, "hand {index}: {notes}");
        cut_short |= cut;
    }
    let described = file["metadata"]["description"].as_str().unwrap_or("");
    assert_eq!(described.contains("written out"), cut_short);
}

#[test]
fn claims_are_written_out_as_plays_with_the_same_scores() {
    let mut claims = 0;
    for rules in [Rules::default(), crate::rules::Preset::Online.rules()] {
        for seed in 0..30 {
            let game = claiming_game(rules, seed, None);
            let text = write(game.record(), &names()).expect("claims are expressible");
            round_trip(game.record(), &text);
            let steps = game.record().hands.iter().flat_map(|h| &h.actions);
            claims += steps.filter(|a| a.action == Action::Claim).count();
        }
    }
    assert!(claims > 50, "{claims} claims");
}

#[test]
fn concessions_are_written_out_unless_play_cannot_give_the_tricks() {
    let (mut written, mut refused) = (0, 0);
    for seed in 0..40 {
        for trick in 0..5 {
            let game = claiming_game(Rules::default(), seed, Some(trick));
            let conceded = game.record().hands.get(2).and_then(|h| h.actions.last());
            if conceded.map(|a| a.action) != Some(Action::Concede) {
                continue; // claimed, or the game was over
            }
            match write(game.record(), &names()) {
                Ok(text) => {
                    round_trip(game.record(), &text);
                    written += 1;
                }
                Err(WriteError::Inexpressible { hand: 2, action }) => {
                    assert!(action.starts_with("concession"), "{action}");
                    refused += 1;
                }
                Err(error) => panic!("seed {seed}: {error}"),
            }
        }
    }
    assert!(written > 10 && refused > 0, "{written} written out, {refused} refused");
}

#[test]
fn what_a_record_cannot_say_is_refused() {
    let text = write(played_game(1).record(), &names()).expect("expressible in EGN");
    let game = read(&text).expect("readable");

    let mid_game = EgnGame { initial_score: [4, 9], ..game.clone() };
    let error = to_record(&mid_game).expect_err("a mid-game start");
    assert_eq!(error.code(), "starts_mid_game");
    assert_eq!(error.location(), Some(Location::HEADER));

    let skipped = vec![game.deals[0].clone(), game.deals[2].clone()];
    let out_of_turn = EgnGame { deals: skipped, ..game.clone() };
    let error = to_record(&out_of_turn).expect_err("a dealer skipped");
    assert_eq!(error.code(), "dealer_out_of_turn");
    assert_eq!(error.location(), Some(Location::new(1, Step::Setup)));

    let twice = vec![game.deals[0].clone(), game.deals[0].clone()];
    let repeated = EgnGame { deals: twice, ..game.clone() };
    let error = to_record(&repeated).expect_err("a deal twice");
    assert_eq!(error.code(), "repeated_deal");
    assert_eq!(error.location(), Some(Location::new(1, Step::Setup)));

    let mut numbered_twice = game.clone();
    numbered_twice.deals[1].number = Some(0);
    let error = to_record(&numbered_twice).expect_err("a deal number twice");
    assert_eq!(error.code(), "repeated_deal_number");
    assert_eq!(error.location(), Some(Location::new(1, Step::Setup)));

    let empty = EgnGame { deals: Vec::new(), ..game.clone() };
    assert_eq!(to_record(&empty).expect_err("no deals").code(), "no_deals");

    // A broken deal is the verifier's error, with its position.
    let mut broken = game;
    broken.deals[0].tricks[0].swap(0, 1);
    let error = to_record(&broken).expect_err("an illegal record");
    assert!(matches!(error, RecordError::Verify(_)), "{error}");
    assert!(error.location().is_some_and(|at| at.deal == Some(0)));
}

#[test]
fn every_recorded_game_becomes_a_record_unless_it_starts_mid_game() {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");
    let mut converted = 0;
    for entry in std::fs::read_dir(folder).expect("the shared fixtures") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|ext| ext != "egn") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a fixture");
        let game = read(&text).expect("readable");
        match to_record(&game) {
            Ok((record, verification)) => {
                assert_eq!(record.scores, verification.final_score, "{path:?}");
                Game::replay(&record).expect("the record replays");
                converted += 1;
            }
            Err(error) => {
                assert_ne!(game.initial_score, [0, 0], "{path:?}: {error}");
                assert_eq!(error.code(), "starts_mid_game");
            }
        }
    }
    assert!(converted >= 10, "only {converted} fixtures converted");
}

#[test]
fn a_wrong_final_score_is_left_to_the_caller() {
    let text = write(played_game(2).record(), &names()).expect("expressible in EGN");
    let mut game = read(&text).expect("readable");
    game.final_score = Some([0, 0]);
    let (record, verification) = to_record(&game).expect("the deals are sound");
    assert!(record.winner.is_some());
    assert!(matches!(verification.problems[..], [Problem::FinalScoreDiffers { .. }]));
}

/// Many distinct deals, every one thrown in: each is looked up once among
/// the earlier ones, so forty thousand take no longer than replaying them
/// (compared with every earlier deal, as before, they took minutes). A
/// repeated deal and a repeated number at the end are still found.
#[test]
fn repeats_are_found_among_many_deals_in_one_pass() {
    let cards: Vec<Card> = "shcd"
        .chars()
        .flat_map(|suit| "9TJQKA".chars().map(move |rank| format!("{rank}{suit}")))
        .map(|code| code.parse().expect("a card"))
        .collect();
    let thrown_in = |number: usize, up_card: Card, kitty: CardSet| EgnDeal {
        number: Some(number as u32),
        dealer: Seat((number % 4) as u8),
        up_card,
        dealt: [CardSet::EMPTY; 4],
        kitty,
        calls: vec![Call::Pass; 8],
        alone: false,
        discard: None,
        tricks: Vec::new(),
        initial_lead: None,
        alone_defender: None,
    };
    const DEALS: usize = 40_000;
    let mut deals = Vec::with_capacity(DEALS + 2);
    'deals: for up_card in &cards {
        let others: Vec<Card> = cards.iter().copied().filter(|card| card != up_card).collect();
        for (i, a) in others.iter().enumerate() {
            for (j, b) in others.iter().enumerate().skip(i + 1) {
                for c in &others[j + 1..] {
                    if deals.len() == DEALS {
                        break 'deals;
                    }
                    let kitty = [*a, *b, *c].into_iter().fold(CardSet::EMPTY, |mut set, card| {
                        set.insert(card);
                        set
                    });
                    deals.push(thrown_in(deals.len(), *up_card, kitty));
                }
            }
        }
    }
    assert_eq!(deals.len(), DEALS);
    let game = read(&write(played_game(1).record(), &names()).expect("EGN")).expect("readable");
    let many = EgnGame { deals: deals.clone(), final_score: None, ..game.clone() };
    let checked = check(&many);
    assert_eq!(checked.findings, Vec::new());
    assert_eq!(checked.verification.deals.len(), DEALS);
    assert!(checked.verification.deals.iter().all(|deal| deal.ending == Ending::ThrownIn));

    // A copy of deal 5 under a new number, then a new deal under deal 7's number.
    let mut copy = deals[5].clone();
    copy.number = Some(DEALS as u32);
    deals.push(copy);
    let mut renumbered = thrown_in(DEALS + 1, cards[0], CardSet::EMPTY);
    renumbered.number = Some(7);
    renumbered.dealer = Seat((DEALS % 4) as u8); // the copy is out of the rotation
    deals.push(renumbered);
    let problems = verify(&EgnGame { deals, final_score: None, ..game }).expect("legal").problems;
    assert_eq!(
        problems,
        [
            Problem::RepeatedDeal { deal: DEALS, of: 5 },
            Problem::RepeatedDealNumber { deal: DEALS + 1, number: 7, of: 7 },
        ]
    );
}
