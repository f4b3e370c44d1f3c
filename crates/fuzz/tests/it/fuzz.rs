//! The fuzz targets that need no server: the protocol's decoding, EGN
//! import, and the engine under arbitrary actions. (The server's connection
//! handling is fuzzed with the server's own tests:
//! `euchre-server` › `tests/it/server.rs` › `arbitrary_frames_never_break_a_connection_or_the_server`.)
//! Each prints its number of executions; together they take a few seconds.

use euchre_engine::{Action, Card, Game, GameRecord, GameView, Preset, Seat, Suit, Viewer, egn};
use euchre_fuzz::{client_frames, fuzz, mutated_json, mutated_text};
use euchre_protocol::{ErrorCode, parse_client_message};
use proptest::prelude::*;
use proptest::sample::Index;

/// Any text a client could send decodes to a command or to a typed refusal
/// (`bad_json` or `unknown_type`), never a panic; a command decoded
/// re-encodes to itself.
#[test]
fn protocol_decoding_of_any_text() {
    let frames = client_frames();
    let bytes = proptest::collection::vec(any::<u8>(), 0..256)
        .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let text =
        prop_oneof![2 => mutated_text(frames.clone()), 2 => mutated_json(frames), 1 => bytes];
    fuzz("protocol decoding", 10_000, text, |text| {
        match parse_client_message(&text) {
            Ok(message) => {
                let again = serde_json::to_string(&message).expect("a command serializes");
                prop_assert_eq!(parse_client_message(&again), Ok(message));
            }
            Err(bad) => {
                prop_assert!(matches!(bad.code, ErrorCode::BadJson | ErrorCode::UnknownType));
                prop_assert!(!bad.message.is_empty());
            }
        }
        Ok(())
    });
}

/// Found by `protocol_decoding_of_any_text`: a float in the free-form
/// `rules` came back one bit off after a round trip, with serde_json's
/// default (fast, not exact) float parser.
#[test]
fn a_float_in_a_command_survives_the_round_trip() {
    let text = r#"{"bot":"random","bot_seats":[1],"chat":false,"id":4,"preset":"three_handed","private":true,"rules":{"a":{"a":-1.4391719644196806e-244}},"turn_seconds":5,"type":"create_table"}"#;
    let message = parse_client_message(text).expect("a command");
    let again = serde_json::to_string(&message).expect("a command serializes");
    assert_eq!(parse_client_message(&again), Ok(message));
}

/// The EGN files the import starts from: the shared fixtures, and games
/// the engine plays and writes out (every four-handed preset).
fn egn_seeds() -> Vec<String> {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");
    let mut seeds: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.path().extension().is_some_and(|e| e == "egn"))
                .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    for (index, preset) in Preset::ALL.into_iter().enumerate() {
        let rules = preset.rules();
        if !rules.partnerships() {
            continue;
        }
        let mut game = Game::new(rules, index as u64).expect("valid rules");
        while let Some(seat) = game.turn() {
            let actions = game.legal_actions(seat);
            let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
            game.apply(seat, *action).expect("legal");
        }
        let names: Vec<String> = (0..4).map(|seat| format!("Player {seat}")).collect();
        if let Ok(text) = egn::write(game.record(), &names) {
            seeds.push(text);
        }
    }
    assert!(seeds.len() >= 10, "the corpus: {} files", seeds.len());
    seeds
}

/// Any text offered as an EGN import is read, checked and turned into a
/// record or refused with a finding, never a panic; what the import takes
/// replays through the engine.
#[test]
fn egn_import_of_any_text() {
    let seeds = egn_seeds();
    let text = prop_oneof![3 => mutated_text(seeds.clone()), 1 => mutated_json(seeds)];
    fuzz("EGN import", 1_500, text, |text| {
        if let Ok(game) = egn::read(&text) {
            let _ = egn::check(&game);
            let _ = egn::verify(&game);
        }
        let max_hands = euchre_server::Settings::default().api.import_max_hands;
        if let Ok((record, _names)) = euchre_server::api::import::parse_import(&text, max_hands) {
            prop_assert!(Game::replay(&record).is_ok(), "an import that does not replay");
        }
        Ok(())
    });
}

/// How a fuzzed step picks its action: mostly one of the legal ones, so
/// games get far, else anything at all.
#[derive(Clone, Debug)]
enum Pick {
    Legal(Index),
    Any(Action),
}

fn any_action() -> impl Strategy<Value = Action> {
    let suit = proptest::sample::select(Suit::ALL.to_vec());
    // Past 32 is the joker, whether or not the pack has it.
    let card = (0u8..40).prop_map(Card::from_index);
    prop_oneof![
        proptest::sample::select(vec![
            Action::Pass,
            Action::FarmersHand,
            Action::Claim,
            Action::Concede,
            Action::DefendAlone,
        ]),
        any::<bool>().prop_map(|alone| Action::OrderUp { alone }),
        any::<bool>().prop_map(|alone| Action::CallNoTrump { alone }),
        (suit.clone(), any::<bool>()).prop_map(|(suit, alone)| Action::Call { suit, alone }),
        suit.prop_map(|suit| Action::NameSuit { suit }),
        card.clone().prop_map(|card| Action::Discard { card }),
        card.clone().prop_map(|card| Action::Play { card }),
        card.prop_map(|card| Action::PassCard { card }),
    ]
}

/// Everything observable of a game: its record, every viewer's view, the
/// turn and every seat's legal actions.
type Observed = (GameRecord, Vec<GameView>, Vec<Vec<Action>>, Option<Seat>);

fn observed(game: &Game) -> Observed {
    let views = (0..4)
        .map(|seat| game.view(Viewer::Seat(Seat(seat))))
        .chain([game.view(Viewer::Spectator)])
        .collect();
    let legal = (0..5).map(|seat| game.legal_actions(Seat(seat)).to_vec()).collect();
    (game.record().clone(), views, legal, game.turn())
}

/// The engine under arbitrary actions from arbitrary seats (a seat past
/// the table's too) in every preset: an action is accepted exactly when
/// `legal_actions` lists it, and a refused one changes nothing observable.
#[test]
fn the_engine_under_arbitrary_actions() {
    let pick = prop_oneof![4 => any::<Index>().prop_map(Pick::Legal), 1 => any_action().prop_map(Pick::Any)];
    let steps = proptest::collection::vec((0u8..5, pick), 1..300);
    let input = (proptest::sample::select(Preset::ALL.to_vec()), any::<u64>(), steps);
    fuzz("engine actions", 1_000, input, |(preset, seed, steps)| {
        let mut game = Game::new(preset.rules(), seed).expect("valid rules");
        for (seat, pick) in steps {
            let seat = Seat(seat);
            let legal = game.legal_actions(seat);
            let action = match pick {
                Pick::Legal(index) if !legal.is_empty() => legal[index.index(legal.len())],
                Pick::Legal(_) => Action::Pass,
                Pick::Any(action) => action,
            };
            let before = game.clone();
            match game.apply(seat, action) {
                Ok(_) => prop_assert!(legal.contains(&action), "{action:?} by {seat} accepted"),
                Err(error) => {
                    prop_assert!(!legal.contains(&action), "{action:?} by {seat}: {error}");
                    prop_assert_eq!(observed(&game), observed(&before), "{:?} changed it", action);
                }
            }
        }
        Ok(())
    });
}
