//! Puzzles against a real server: recorded matches imported, analysed as
//! they are imported and mined; then puzzles served as their questions
//! alone, answers judged and rated, and the day's puzzle.

use std::time::Duration;

use euchre_bots::BotKind;
use euchre_engine::{Game, GameRecord, NoEvents, Preset, Seat, Viewer};
use euchre_server::api::import_writes;
use euchre_server::testing::eventually;
use euchre_store::sqlite::SqliteStore;
use euchre_store::{Store, StoredPuzzle, Write};
use serde_json::{Value, json};

use crate::support::http::{Answer, request};
use crate::support::{PATIENCE, Players, TestServer};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

/// Analysing and mining three whole matches on two shared cores.
const MINING: Duration = Duration::from_secs(180);

/// A server that analyses (with few worlds) and mines what is imported,
/// an account to import with, and the server's database.
async fn server_with_puzzles() -> (TestServer, SqliteStore) {
    let server = TestServer::start_with(|settings| {
        settings.analysis.at_match_end = true;
        settings.analysis.worlds = 16;
    })
    .await;
    let importer = server.account("Importer").await.token.expect("a session");
    for name in ["MotE_W5_G1", "MotE_W5_G2", "MotE_W5_G3"] {
        let text = std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a fixture");
        let answer =
            request(&server, "POST", "/api/matches/import", Some(&importer), Some(text.as_bytes()))
                .await;
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let url = format!("sqlite://{}/euchre.db", server.data.path().display());
    let store = eventually("the server's database to open", PATIENCE, async || {
        SqliteStore::connect(&url).await
    })
    .await;
    eventually("puzzles to be mined", MINING, || async {
        let count = store.puzzles_before(i64::MAX).await.expect("the store answers");
        (count >= 3).then_some(())
    })
    .await;
    (server, store)
}

async fn get(server: &TestServer, path: &str, token: Option<&str>) -> Answer {
    request(server, "GET", path, token, None).await
}

async fn answer(server: &TestServer, id: i64, action: &Value, token: Option<&str>) -> Answer {
    let body = json!({ "action": action }).to_string();
    let path = format!("/api/puzzles/{id}/answer");
    request(server, "POST", &path, token, Some(body.as_bytes())).await
}

async fn stored(store: &SqliteStore, id: i64) -> StoredPuzzle {
    store.puzzle(id).await.expect("the store answers").expect("the puzzle is stored")
}

/// The view the engine gives the puzzle's seat at its decision, from the
/// stored match's record: what the question must carry, and nothing more.
async fn seats_own_view(store: &SqliteStore, puzzle: &StoredPuzzle, seat: Seat) -> Value {
    let detail = store.get_match(&puzzle.match_id).await.expect("read").expect("the match");
    let record: &GameRecord = &detail.record;
    let deals = record.hands.iter().map(|hand| hand.deal).collect();
    let mut game = Game::with_deals(record.rules, record.seed, record.start.clone(), deals)
        .expect("the record replays");
    for (number, hand) in record.hands.iter().enumerate() {
        for (index, step) in hand.actions.iter().enumerate() {
            if (number as u32, index as u32) == (puzzle.hand, puzzle.action) {
                return serde_json::to_value(game.view(Viewer::Seat(seat))).expect("serializes");
            }
            game.apply_with(step.seat, step.action, &mut NoEvents).expect("replays");
        }
    }
    panic!("the puzzle's decision is not in its match");
}

/// The best answers of a stored puzzle, and an option that is not one.
fn right_and_wrong(puzzle: &StoredPuzzle) -> (Value, Value) {
    let answers = puzzle.puzzle["answers"].as_array().expect("answers").clone();
    let options = puzzle.puzzle["question"]["options"].as_array().expect("options");
    let wrong = options.iter().find(|option| !answers.contains(option)).expect("a wrong option");
    (answers[0].clone(), wrong.clone())
}

#[tokio::test]
async fn a_puzzle_is_served_as_its_question_judged_and_rated_for_accounts_only() {
    let (server, store) = server_with_puzzles().await;
    let ann = server.account("Ann").await;
    let token = ann.token.clone().expect("a session");
    let ann_id = ann.player_id.clone().expect("an id");

    // The next puzzle: the question alone, the seat's own view exactly.
    let next = get(&server, "/api/puzzles/next", Some(&token)).await;
    assert_eq!(next.status, 200, "{}", next.body);
    let question = next.json();
    let mut keys: Vec<&str> =
        question.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["id", "kind", "options", "plays", "rating", "seat", "view"]);
    let id = question["id"].as_i64().expect("an id");
    let puzzle = stored(&store, id).await;
    let seat = Seat(u8::try_from(question["seat"].as_u64().expect("a seat")).expect("small"));
    assert_eq!(question["view"], seats_own_view(&store, &puzzle, seat).await);
    assert_eq!(question["options"], puzzle.puzzle["question"]["options"]);
    // The same puzzle by its id (a link to it); an unknown id is not found.
    assert_eq!(get(&server, &format!("/api/puzzles/{id}"), None).await.json(), question);
    let unknown = format!("/api/puzzles/{}", id + 1_000_000);
    assert_eq!(get(&server, &unknown, None).await.error(404), "not_found");
    assert_eq!(get(&server, "/api/puzzles/nonsense", None).await.error(404), "not_found");

    // A right answer: told so, with the line both ways; Ann's rating rises.
    let (right, wrong) = right_and_wrong(&puzzle);
    let verdict = answer(&server, id, &right, Some(&token)).await;
    assert_eq!(verdict.status, 200, "{}", verdict.body);
    let verdict = verdict.json();
    assert_eq!(verdict["correct"], json!(true), "{verdict}");
    assert_eq!(verdict["answers"], puzzle.puzzle["answers"]);
    assert!(verdict["why"].as_str().is_some_and(|why| !why.is_empty()), "{verdict}");
    assert_eq!(verdict["best_line"]["first"], right);
    assert_eq!(verdict["answer_line"]["first"], right);
    let rating = &verdict["rating"];
    assert!(rating["after"].as_i64() > rating["before"].as_i64(), "{verdict}");
    assert_eq!((rating["before"].clone(), rating["streak"].clone()), (json!(1500), json!(1)));
    assert!(verdict["puzzle_rating"].as_i64() < Some(1500), "the puzzle lost: {verdict}");
    let after_right = rating["after"].as_i64();

    // Answered again, it is judged but not rated twice.
    let again = answer(&server, id, &wrong, Some(&token)).await.json();
    assert_eq!((again["correct"].clone(), again["rating"].clone()), (json!(false), Value::Null));

    // The next puzzle is another; a wrong answer ends the streak.
    let other = get(&server, "/api/puzzles/next", Some(&token)).await.json();
    let other_id = other["id"].as_i64().expect("an id");
    assert_ne!(other_id, id, "an answered puzzle is not served again");
    let (right_other, wrong_other) = right_and_wrong(&stored(&store, other_id).await);
    let verdict = answer(&server, other_id, &wrong_other, Some(&token)).await.json();
    assert_eq!(verdict["correct"], json!(false), "{verdict}");
    assert_eq!(verdict["answer_line"]["first"], wrong_other);
    assert_eq!(verdict["best_line"]["first"], right_other);
    let rating = &verdict["rating"];
    assert_eq!(rating["before"].as_i64(), after_right);
    assert!(rating["after"].as_i64() < rating["before"].as_i64(), "{verdict}");
    assert_eq!((rating["streak"].clone(), rating["best_streak"].clone()), (json!(0), json!(1)));

    let record = get(&server, &format!("/api/players/{ann_id}/puzzles"), None).await.json();
    assert_eq!(record["rating"]["attempts"], json!(2), "{record}");
    assert_eq!(record["rating"]["solved"], json!(1), "{record}");
    assert_eq!(record["rating"]["rating"], rating["after"], "{record}");
    let history: Vec<(i64, bool)> = record["history"]
        .as_array()
        .expect("a history")
        .iter()
        .map(|a| (a["puzzle_id"].as_i64().expect("id"), a["correct"].as_bool().expect("bool")))
        .collect();
    assert_eq!(history, [(other_id, false), (id, true)]);

    // A guest's answer is judged, never rated, and leaves the puzzle's
    // rating as it was; a guest is served puzzles too.
    let guest = server.player("Gus").await.token.expect("a guest token");
    let before = stored(&store, other_id).await.rating;
    let verdict = answer(&server, other_id, &right_other, Some(&guest)).await.json();
    assert_eq!((verdict["correct"].clone(), verdict["rating"].clone()), (json!(true), Value::Null));
    assert_eq!(stored(&store, other_id).await.rating, before);
    assert_eq!(get(&server, "/api/puzzles/next", Some(&guest)).await.status, 200);
    assert_eq!(get(&server, "/api/puzzles/next", None).await.status, 200);
    let gus = get(&server, "/api/players/nobody-at-all/puzzles", None).await;
    assert_eq!(gus.error(404), "not_found");
    server.stop().await;
}

#[tokio::test]
async fn bad_answers_are_typed_errors_and_change_nothing() {
    let (server, store) = server_with_puzzles().await;
    let ann = server.account("Ann").await;
    let token = ann.token.clone().expect("a session");
    let ann_id = ann.player_id.clone().expect("an id");
    let id = get(&server, "/api/puzzles/next", None).await.json()["id"].as_i64().expect("an id");
    // Never an option: puzzles come from games without no trump.
    let not_an_option = json!({ "action": "call_no_trump" });
    assert_eq!(answer(&server, id, &not_an_option, Some(&token)).await.error(400), "bad_answer");
    let not_an_action = json!({ "action": "juggle" });
    assert_eq!(answer(&server, id, &not_an_action, Some(&token)).await.error(400), "bad_answer");
    let path = format!("/api/puzzles/{id}/answer");
    let garbage = request(&server, "POST", &path, Some(&token), Some(b"{not json")).await;
    assert_eq!(garbage.error(400), "bad_answer");
    let (right, _) = right_and_wrong(&stored(&store, id).await);
    assert_eq!(answer(&server, id + 1_000_000, &right, Some(&token)).await.error(404), "not_found");
    let unparsable = request(&server, "POST", "/api/puzzles/x/answer", None, Some(b"{}")).await;
    assert_eq!(unparsable.error(404), "not_found");
    let bad_token = answer(&server, id, &right, Some("not-a-token")).await;
    assert_eq!(bad_token.status, 401, "{}", bad_token.body);
    // Nothing was recorded: Ann's first real answer is still rated.
    let record = get(&server, &format!("/api/players/{ann_id}/puzzles"), None).await.json();
    assert_eq!(record, json!({ "rating": null, "history": [] }));
    let verdict = answer(&server, id, &right, Some(&token)).await.json();
    assert_eq!(verdict["rating"]["streak"], json!(1), "{verdict}");
    server.stop().await;
}

#[tokio::test]
async fn the_daily_puzzle_is_one_for_everyone_all_day() {
    let (server, store) = server_with_puzzles().await;
    // Every puzzle is from today: the first stored stands in.
    let first = store.nth_puzzle_before(i64::MAX, 0).await.expect("read").expect("one");
    let daily = get(&server, "/api/puzzles/daily", None).await.json();
    assert_eq!(daily["id"].as_i64(), Some(first.id), "{daily}");
    // Puzzles stored before today: the day's is one of them, whoever asks.
    let mined = stored(&store, first.id).await;
    let yesterday = euchre_server::puzzles::day_start(euchre_server::clock::now_ms()) - 1;
    let older: Vec<_> = (0..5)
        .map(|n| euchre_store::NewPuzzle {
            match_id: format!("m-older-{n}"),
            hand: 0,
            action: 0,
            kind: mined.kind.clone(),
            themes: mined.themes.clone(),
            by_human: false,
            rating: mined.rating,
            puzzle: mined.puzzle.clone(),
        })
        .collect();
    assert_eq!(store.save_puzzles(&older, yesterday).await.expect("saved"), 5);
    let token = server.account("Ann").await.token.expect("a session");
    let daily = get(&server, "/api/puzzles/daily", None).await.json();
    let id = daily["id"].as_i64().expect("an id");
    let chosen = stored(&store, id).await;
    assert!(chosen.match_id.starts_with("m-older-"), "{}", chosen.match_id);
    for _ in 0..3 {
        assert_eq!(get(&server, "/api/puzzles/daily", Some(&token)).await.json(), daily);
    }
    server.stop().await;
}

/// A match a person played is mined from their seat alone: the bots'
/// decisions beside them make no puzzles. (Played by basic bots and
/// stored behind the server's back as a table would store it, the player
/// in seat 2; analysed on the first request.)
#[tokio::test]
async fn a_match_with_a_person_gives_puzzles_from_their_seat_only() {
    let server = TestServer::start_with(|settings| settings.analysis.worlds = 16).await;
    assert_eq!(get(&server, "/api/matches", None).await.status, 200);
    let url = format!("sqlite://{}/euchre.db", server.data.path().display());
    let store = eventually("the server's database to open", PATIENCE, async || {
        SqliteStore::connect(&url).await
    })
    .await;
    let player = "p-solver";
    let mut writes = vec![Write::Player {
        id: player.into(),
        name: "Ann".into(),
        token_hash: "h".into(),
        at: 0,
    }];
    let mut ids = Vec::new();
    for seed in 1..=3u64 {
        let rules = Preset::Standard.rules();
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut bots: Vec<_> =
            (0..rules.players).map(|seat| BotKind::Basic.create(seed ^ u64::from(seat))).collect();
        while let Some(seat) = game.turn() {
            let view = game.view(Viewer::Seat(seat));
            let action =
                bots[usize::from(seat.0)].choose(&view, &game.legal_actions(seat)).expect("a move");
            game.apply(seat, action).expect("a legal move");
        }
        let id = format!("m-person-{seed}");
        let names: Vec<String> = (0..4).map(|seat| format!("Seat {seat}")).collect();
        let mut stored = import_writes(&id, game.record(), &names, 1_000);
        if let Some(Write::MatchStarted { table_id, seats, .. }) = stored.first_mut() {
            *table_id = "t-person".into();
            for seat in seats.iter_mut() {
                if seat.seat == 2 {
                    seat.player_id = Some(player.into());
                } else {
                    seat.bot = Some("basic".into());
                }
            }
        }
        writes.extend(stored);
        ids.push(id);
    }
    store.apply(&writes).await.expect("stored");
    for id in &ids {
        let path = format!("/api/matches/{id}/analysis");
        eventually("the analysis", MINING, || async {
            (get(&server, &path, None).await.status == 200).then_some(())
        })
        .await;
    }
    // Mined just after the analysis is stored.
    let count = eventually("the person's puzzles", MINING, || async {
        let count = store.puzzles_before(i64::MAX).await.expect("the store answers");
        (count > 0).then_some(count)
    })
    .await;
    for nth in 0..count {
        let puzzle = store.nth_puzzle_before(i64::MAX, nth).await.expect("read").expect("one");
        assert!(ids.contains(&puzzle.match_id), "{}", puzzle.match_id);
        assert_eq!(puzzle.puzzle["question"]["seat"], json!(2), "{}", puzzle.puzzle["question"]);
        assert!(puzzle.by_human);
    }
    server.stop().await;
}
