//! The match history API against a real server on an ephemeral port: games
//! played to the end over WebSockets, then listed, paged, filtered, shown,
//! replayed, exported and imported over HTTP.
//!
//! HTTP is spoken by `crate::support::http`, a few lines over a `TcpStream`.

use std::collections::{HashMap, HashSet};

use crate::support::http::{Answer, http, request};
use crate::support::{Client, PATIENCE, Players, TestServer, play_to_the_end, play_until};
use euchre_bots::BotKind;
use euchre_engine::{Action, CardSet, Event, Game, GameRecord, Preset, Viewer, egn};
use euchre_protocol::{
    ClientMessage, LobbyFilter, LobbyQuery, QuickPlayRequest, Reply, ServerMessage, TableEvent,
    TableSettings, TableStatus,
};
use euchre_server::api::import_writes;
use euchre_server::testing::eventually;
use euchre_store::sqlite::SqliteStore;
use euchre_store::{Store, Write};
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a shared fixture")
}

// ---- HTTP ---------------------------------------------------------------------

async fn get(server: &TestServer, path: &str) -> Answer {
    http(server, "GET", path, None).await
}

/// Imports `text` with the session `token`.
async fn import(server: &TestServer, token: &str, text: &str) -> Answer {
    request(server, "POST", "/api/matches/import", Some(token), Some(text.as_bytes())).await
}

/// A logged-in account's session token (only accounts import): a guest
/// named `name` claims its name.
async fn account(server: &TestServer, name: &str) -> String {
    let guest = server.player(name).await;
    let token = guest.token.clone().expect("a guest token");
    let body = json!({ "name": name, "password": "correct horse" }).to_string();
    let answer =
        request(server, "POST", "/api/accounts", Some(&token), Some(body.as_bytes())).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.json()["token"].as_str().expect("a session token").to_owned()
}

/// Every match the list holds, following the cursor with pages of `limit`.
async fn walk(server: &TestServer, filters: &str, limit: u32) -> Vec<Value> {
    let mut matches = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("/api/matches?limit={limit}{filters}");
        if let Some(cursor) = &cursor {
            path += &format!("&cursor={cursor}");
        }
        let answer = get(server, &path).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        let page = answer.json();
        let items = page["matches"].as_array().expect("a list").clone();
        assert!(items.len() <= limit as usize);
        matches.extend(items);
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return matches,
        }
    }
}

fn ids(matches: &[Value]) -> Vec<String> {
    matches.iter().map(|m| m["id"].as_str().expect("an id").to_owned()).collect()
}

// ---- Games -------------------------------------------------------------------------

fn with_bots() -> TableSettings {
    TableSettings { preset: Preset::Standard, bot_seats: vec![1, 2, 3], ..TableSettings::default() }
}

/// `name` sits in seat 0 at a new table of three bots, whose game begins,
/// and goes (the connection dropped): the table and `name`'s token.
async fn seated_then_gone(server: &TestServer, name: &str) -> (String, String) {
    let mut client = server.player(name).await;
    let table = client.create_table(with_bots()).await;
    client.sit(&table, Some(0)).await;
    let token = client.token.clone().expect("a token");
    (table, token)
}

/// `name` plays whole games in seat 0 against three bots, one per seed
/// (rematches at one table); returns their player id.
async fn finished_games(server: &TestServer, name: &str, seeds: &[u64]) -> String {
    let mut client = server.player(name).await;
    let table = client.create_table(with_bots()).await;
    client.sit(&table, Some(0)).await;
    for (game, seed) in seeds.iter().enumerate() {
        if game > 0 {
            let id = client.next_id();
            let rematch = ClientMessage::Rematch { id, table: table.clone() };
            let answer = client.command(rematch).await;
            assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
        }
        client = play_to_the_end(client, table.clone(), *seed).await;
    }
    client.player_id.expect("a player id")
}

/// A game that starts and stops at `name`'s first turn. The client must stay
/// connected, or a bot would stand in and finish the game.
async fn unfinished_game(server: &TestServer, name: &str) -> Client {
    let mut client = server.player(name).await;
    let table = client.create_table(with_bots()).await;
    client.sit(&table, Some(0)).await;
    client
}

/// Every card code anywhere in a JSON value.
fn cards_in(value: &Value) -> CardSet {
    match value {
        Value::String(text) => text.parse().map(CardSet::single).unwrap_or_default(),
        Value::Array(items) => items.iter().fold(CardSet::EMPTY, |s, v| s.union(cards_in(v))),
        Value::Object(map) => map.values().fold(CardSet::EMPTY, |s, v| s.union(cards_in(v))),
        _ => CardSet::EMPTY,
    }
}

fn scores(value: &Value) -> [u16; 2] {
    serde_json::from_value(value.clone()).expect("two scores")
}

// ---- The story ----------------------------------------------------------------------

#[tokio::test]
async fn played_and_imported_matches_are_listed_shown_replayed_and_exported() {
    let server = TestServer::start().await;
    let (ann, bob) =
        tokio::join!(finished_games(&server, "Ann", &[1, 3]), finished_games(&server, "Bob", &[2]));
    let _cid = unfinished_game(&server, "Cid").await;

    let importer = account(&server, "Importer").await;
    let imported = import(&server, &importer, &fixture("MotE_W5_G1")).await;
    assert_eq!(imported.status, 201, "{}", imported.body);
    let imported_id = imported.json()["id"].as_str().expect("the new id").to_owned();
    assert_eq!(imported.header("location"), Some(format!("/api/matches/{imported_id}").as_str()));

    // Three finished games, the import, and Cid's game in progress.
    let all = eventually("every match to be stored", PATIENCE, || async {
        let list = walk(&server, "", 100).await;
        let finished = list.iter().filter(|m| m["finished"] == json!(true)).count();
        (list.len() == 5 && finished == 4).then_some(list)
    })
    .await;
    let started: Vec<i64> = all.iter().map(|m| m["started_at"].as_i64().expect("a time")).collect();
    assert!(started.windows(2).all(|w| w[0] >= w[1]), "newest first: {started:?}");

    // Pages of every size see every match once, in the same order.
    for limit in [1, 2, 3] {
        let paged = walk(&server, "", limit).await;
        assert_eq!(ids(&paged), ids(&all), "pages of {limit}");
        assert_eq!(ids(&paged).into_iter().collect::<HashSet<_>>().len(), all.len());
    }

    // Filters.
    let ann_matches = walk(&server, &format!("&player={ann}"), 1).await;
    assert_eq!(ann_matches.len(), 2);
    for summary in &ann_matches {
        let seat = &summary["seats"][0];
        assert_eq!(seat["player_id"].as_str(), Some(ann.as_str()));
        assert_eq!(seat["name"], json!("Ann"));
    }
    let ann_won: Vec<String> = ids(&ann_matches)
        .into_iter()
        .zip(&ann_matches)
        .filter(|(_, m)| m["winner"] == json!(0))
        .map(|(id, _)| id)
        .collect();
    let won = walk(&server, &format!("&player={ann}&result=won"), 100).await;
    let lost = walk(&server, &format!("&player={ann}&result=lost"), 100).await;
    assert_eq!(ids(&won), ann_won);
    assert_eq!(won.len() + lost.len(), 2);
    assert!(lost.iter().all(|m| m["winner"] == json!(1)));
    assert_eq!(walk(&server, &format!("&player={bob}"), 100).await.len(), 1);
    let finished = walk(&server, "&finished=true", 2).await;
    assert_eq!(finished.len(), 4);
    assert!(finished.iter().all(|m| m["ended_at"].is_i64()));
    let newest = started[0];
    let since = walk(&server, &format!("&since={newest}"), 100).await;
    let until = walk(&server, &format!("&until={newest}"), 100).await;
    assert!(!since.is_empty());
    assert_eq!(since.len() + until.len(), all.len(), "since and until split the list");

    // A player's record: Ann sat in seat 0, on team 0.
    let answer = get(&server, &format!("/api/players/{ann}")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let record = answer.json();
    let totals = ann_matches
        .iter()
        .map(|m| scores(&m["scores"]))
        .fold([0, 0], |sum, s| [sum[0] + u32::from(s[0]), sum[1] + u32::from(s[1])]);
    assert_eq!((record["id"].as_str(), record["name"].as_str()), (Some(ann.as_str()), Some("Ann")));
    assert_eq!(record["played"], json!(2));
    assert_eq!(record["won"], json!(won.len()));
    assert_eq!(
        (record["points_for"].clone(), record["points_against"].clone()),
        (json!(totals[0]), json!(totals[1]))
    );
    for field in ["euchres_made", "euchres_suffered", "loners_tried", "loners_won"] {
        assert!(record[field].is_u64(), "{field}: {record}");
    }

    // Each finished match in full; its record replays to the listed score.
    for summary in &finished {
        let id = summary["id"].as_str().expect("an id");
        let detail = get(&server, &format!("/api/matches/{id}")).await.json();
        assert_eq!(detail["cards_revealed"], json!(true));
        let answer = get(&server, &format!("/api/matches/{id}/record")).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let record: GameRecord = serde_json::from_str(&answer.body).expect("an engine record");
        let game = Game::replay(&record).expect("the record replays");
        assert_eq!(game.scores(), scores(&summary["scores"]), "{id}");
        assert_eq!(game.winner().map(|t| json!(t.0)), Some(summary["winner"].clone()));
        let hands = detail["hands"].as_array().expect("hands");
        assert_eq!(hands.len(), record.hands.len());
        // Played here, each deal was sealed; an import never was.
        let sealed = summary["table_id"] != json!("import");
        for (shown, hand) in hands.iter().zip(&record.hands) {
            assert_eq!(shown["hands"], serde_json::to_value(hand.deal.hands).expect("json"));
            assert_eq!(shown["kitty"], serde_json::to_value(hand.deal.kitty).expect("json"));
            let check = if sealed { "verified" } else { "unsealed" };
            assert_eq!(shown["deal_check"], json!(check), "{id}");
            assert_eq!(hand.seal.is_some(), sealed);
            assert_eq!(
                shown["salt"],
                serde_json::to_value(hand.seal.map(|s| s.salt)).expect("json")
            );
        }
        assert_eq!(game.scores(), scores(&hands.last().expect("a hand")["scores"]));

        // As EGN: nobody conceded, and claims are written out as plays.
        let answer = get(&server, &format!("/api/matches/{id}/egn")).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let disposition = answer.header("content-disposition").expect("an attachment");
        assert!(disposition.starts_with("attachment;"), "{disposition}");
        let verified = egn::verify(&egn::read(&answer.body).expect("EGN")).expect("legal");
        assert_eq!(verified.final_score, game.scores());
    }

    // The import: the file's names and score, exported again as it came.
    let entry = all.iter().find(|m| m["id"] == json!(imported_id)).expect("listed");
    assert_eq!(
        (entry["imported"].clone(), entry["table_id"].clone()),
        (json!(true), json!("import"))
    );
    assert_eq!(scores(&entry["scores"]), [10, 3]);
    assert_eq!(entry["winner"], json!(0));
    let original = egn::read(&fixture("MotE_W5_G1")).expect("the fixture");
    let names: Vec<&str> = entry["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|seat| {
            assert!(seat["player_id"].is_null() && seat["bot"].is_null(), "{seat}");
            seat["name"].as_str().expect("a name")
        })
        .collect();
    assert_eq!(names, original.players);
    let answer = get(&server, &format!("/api/matches/{imported_id}/egn")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let again = egn::read(&answer.body).expect("EGN");
    assert_eq!(again.players, original.players);
    assert_eq!(egn::verify(&again).expect("legal").final_score, [10, 3]);

    // Cid's game in progress: public information only.
    let live = all.iter().find(|m| m["finished"] == json!(false)).expect("a game in progress");
    let id = live["id"].as_str().expect("an id");
    let detail = get(&server, &format!("/api/matches/{id}")).await.json();
    assert_eq!(detail["cards_revealed"], json!(false));
    let mut public = CardSet::EMPTY;
    for hand in detail["hands"].as_array().expect("hands") {
        assert!(hand["hands"].is_null() && hand["kitty"].is_null(), "{hand}");
        public = public.union(cards_in(&hand["up_card"]));
        for action in hand["actions"].as_array().expect("actions") {
            match action["action"].as_str() {
                Some("discard" | "pass_card") => assert!(action.get("card").is_none(), "{action}"),
                Some("play") => public = public.union(cards_in(&action["card"])),
                _ => {}
            }
        }
    }
    assert_eq!(cards_in(&detail).difference(public), CardSet::EMPTY, "{detail:#}");
    assert_eq!(
        get(&server, &format!("/api/matches/{id}/record")).await.error(409),
        "match_in_progress"
    );
    assert_eq!(
        get(&server, &format!("/api/matches/{id}/egn")).await.error(409),
        "match_in_progress"
    );

    server.stop().await;
}

#[tokio::test]
async fn bot_games_with_claims_export_as_egn_and_import_to_the_same_scores() {
    let server = TestServer::start().await;
    let importer = account(&server, "Importer").await;
    let mut exported = Vec::new();
    // Most games against the bots have a claim (they claim whenever the
    // engine allows); a few games are enough to meet one.
    for seed in 10..20 {
        let name = format!("Eve{seed}");
        let player = finished_games(&server, &name, &[seed]).await;
        let filter = format!("&player={player}&finished=true");
        let listed = eventually("the game to be stored", PATIENCE, || async {
            let list = walk(&server, &filter, 10).await;
            (list.len() == 1).then_some(list)
        })
        .await;
        let id = listed[0]["id"].as_str().expect("an id").to_owned();
        let answer = get(&server, &format!("/api/matches/{id}/record")).await;
        let record: GameRecord = serde_json::from_str(&answer.body).expect("an engine record");
        let claims = record.hands.iter().flat_map(|h| &h.actions);
        if !claims.clone().any(|a| a.action == Action::Claim) {
            continue;
        }
        let answer = get(&server, &format!("/api/matches/{id}/egn")).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let file = egn::read(&answer.body).expect("EGN");
        assert_eq!(egn::verify(&file).expect("legal").final_score, record.scores);
        let noted = answer.body.contains("claimed the remaining tricks here");
        assert!(noted, "the file says where a claim was written out");

        // Imported again: a new match with the same score and winner.
        let imported = import(&server, &importer, &answer.body).await;
        assert_eq!(imported.status, 201, "{}", imported.body);
        let new_id = imported.json()["id"].as_str().expect("the new id").to_owned();
        let again = eventually("the import to be stored", PATIENCE, || async {
            let answer = get(&server, &format!("/api/matches/{new_id}")).await;
            (answer.status == 200).then(|| answer.json())
        })
        .await;
        assert_eq!(scores(&again["scores"]), record.scores.pair(), "{again}");
        assert_eq!(again["winner"], json!(record.winner.map(|t| t.0)));
        exported.push(id);
        if exported.len() == 2 {
            break;
        }
    }
    assert_eq!(exported.len(), 2, "two of ten bot games had a claim");
    server.stop().await;
}

// ---- Errors -------------------------------------------------------------------------

#[tokio::test]
async fn a_rubber_is_played_to_its_end_and_stored_with_its_games() {
    let server = TestServer::start().await;
    let mut client = server.player("Rubber").await;
    let rules = json!({"rubber": true, "points_to_win": 2});
    let settings =
        TableSettings { rules: Some(rules.as_object().cloned().expect("rules")), ..with_bots() };
    let table = client.create_table(settings).await;
    client.sit(&table, Some(0)).await;
    let client =
        play_until(client, table, 7, |event| matches!(event, Event::RubberWon { .. })).await;
    // Every game of the rubber was announced before the rubber's end.
    let games_won = client
        .log
        .iter()
        .filter(|m| {
            matches!(
                m,
                ServerMessage::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. }
            )
        })
        .count();
    assert!((2..=3).contains(&games_won), "{games_won} games");
    let listed = eventually("the rubber to be stored", PATIENCE, || async {
        let list = walk(&server, "", 10).await;
        list.into_iter().find(|m| m["finished"] == json!(true))
    })
    .await;
    let rubber = listed["rubber"].as_array().expect("the rubber's games").clone();
    assert_eq!(rubber.len(), games_won);
    let winner = listed["winner"].as_u64().expect("a winner");
    let won = rubber.iter().filter(|game| game["winner"].as_u64() == Some(winner)).count();
    assert_eq!(won, 2, "{listed}");
    for game in &rubber {
        let losers =
            scores(&game["scores"])[1 - game["winner"].as_u64().expect("a winner") as usize];
        let points = match losers {
            0 => 3,
            1 | 2 => 2,
            _ => 1,
        };
        assert_eq!(game["rubber_points"], json!(points), "{game}");
    }
    // The match in full replays, and its last game's score is the match's.
    let id = listed["id"].as_str().expect("an id");
    let detail = get(&server, &format!("/api/matches/{id}")).await;
    assert_eq!(detail.status, 200, "{}", detail.body);
    let detail = detail.json();
    assert_eq!(detail["rubber"], json!(rubber));
    // Hand by hand the running score starts again with each game of the rubber.
    let hands = detail["hands"].as_array().expect("hands");
    let (mut running, mut game) = ([0u16; 2], 0);
    for hand in hands {
        if json!(running) == rubber[game]["scores"] {
            (running, game) = ([0, 0], game + 1);
        }
        if let Some(points) = hand["outcome"]["points"].as_array() {
            for (score, points) in running.iter_mut().zip(points) {
                *score += points.as_u64().expect("points") as u16;
            }
        }
        assert_eq!(json!(running), hand["scores"], "{hand}");
    }
    assert_eq!(game + 1, rubber.len(), "every game of the rubber was played");
    let last = scores(&hands.last().expect("a hand")["scores"]);
    assert_eq!(json!(last), listed["scores"]);
    // The engine's record replays to the same rubber.
    let record = get(&server, &format!("/api/matches/{id}/record")).await;
    let record: GameRecord = serde_json::from_str(&record.body).expect("a record");
    let replayed = Game::replay(&record).expect("the record replays");
    assert_eq!(replayed.games().len(), rubber.len());
    assert_eq!(replayed.winner().map(|team| u64::from(team.0)), Some(winner));
    server.stop().await;
}

/// A whole game of `preset` between basic bots, stored as the finished match
/// `id` at a table, with the player `player` in the seat `seat` picks.
fn bot_game(
    preset: Preset,
    seed: u64,
    id: &str,
    player: &str,
    seat: impl Fn(&Game) -> u8,
) -> (Game, Vec<Write>) {
    let rules = preset.rules();
    let mut game = Game::new(rules, seed).expect("valid rules");
    let mut bots: Vec<_> =
        (0..rules.players).map(|seat| BotKind::Basic.create(seed ^ u64::from(seat))).collect();
    while let Some(seat) = game.turn() {
        let legal = game.legal_actions(seat);
        let view = game.view(Viewer::Seat(seat));
        let action = bots[usize::from(seat.0)].choose(&view, &legal).expect("a move");
        game.apply(seat, action).expect("a legal move");
    }
    assert!(game.winner().is_some(), "{preset:?} is played to the end");
    let names: Vec<String> = (0..rules.players).map(|seat| format!("Seat {seat}")).collect();
    let mut writes = import_writes(id, game.record(), &names, 1_000 + seed as i64);
    // As a table stores it: at a table, the player in one seat, bots elsewhere.
    let theirs = seat(&game);
    if let Some(Write::MatchStarted { table_id, seats, .. }) = writes.first_mut() {
        *table_id = "t-forms".into();
        for seat in seats.iter_mut() {
            if seat.seat == theirs {
                seat.player_id = Some(player.into());
            } else {
                seat.bot = Some("basic".into());
            }
        }
    }
    (game, writes)
}

/// The two- and three-handed games as the API shows them: one score per
/// player, the winner's seat, one hand per seat, the dummy once the match
/// is over, the `result` filter from the player's own seat, and the
/// player's record. (Stored behind the server's back, in its own database,
/// as tables do not offer these games yet.)
/// The server's own SQLite database, opened beside it. Opening sets the
/// connection's pragmas, which a busy server's write can hold off past the
/// busy timeout on a loaded machine: it is tried again.
async fn servers_database(server: &TestServer) -> SqliteStore {
    let url = format!("sqlite://{}/euchre.db", server.data.path().display());
    eventually("the server's database to open", PATIENCE, async || SqliteStore::connect(&url).await)
        .await
}

#[tokio::test]
async fn matches_of_two_and_three_players_show_a_score_per_player() {
    let server = TestServer::start().await;
    // The server answers once its database is migrated.
    assert_eq!(get(&server, "/api/matches").await.status, 200);
    let store = servers_database(&server).await;
    let player = "p-forms";
    let mut writes = vec![Write::Player {
        id: player.into(),
        name: "Forms".into(),
        token_hash: "hash-forms".into(),
        at: 0,
    }];
    let mut games = Vec::new();
    let forms = [Preset::Cutthroat, Preset::ThreeHanded, Preset::TwoHanded, Preset::TwoHandedPlain];
    for (index, preset) in forms.into_iter().enumerate() {
        let id = format!("forms-{index}");
        // The player wins the first two and loses the others.
        let seat = |game: &Game| {
            let winner = game.winner().map_or(0, |team| team.0);
            if index < 2 { winner } else { (winner + 1) % game.rules().players }
        };
        let (game, stored) = bot_game(preset, index as u64 + 1, &id, player, seat);
        let seat = seat(&game);
        writes.extend(stored);
        games.push((id, preset, game, seat));
    }
    store.apply(&writes).await.expect("stored");

    let listed = walk(&server, &format!("&player={player}"), 10).await;
    assert_eq!(listed.len(), forms.len());
    let (mut points_for, mut points_against, mut won) = (0, 0, 0);
    for (id, preset, game, seat) in &games {
        let rules = preset.rules();
        let summary = listed.iter().find(|m| m["id"] == json!(id)).expect("listed");
        let winner = game.winner().expect("won").0;
        assert_eq!(summary["scores"], json!(game.scores().as_slice()), "{summary}");
        assert_eq!(summary["scores"].as_array().map(Vec::len), Some(usize::from(rules.players)));
        assert_eq!(summary["winner"], json!(winner));
        assert_eq!(summary["winners"], json!([winner]), "one player wins alone");
        for (side, score) in game.scores().teams() {
            if side.0 == *seat {
                points_for += u64::from(*score);
            } else {
                points_against += u64::from(*score);
            }
        }
        won += u32::from(winner == *seat);

        let detail = get(&server, &format!("/api/matches/{id}")).await;
        assert_eq!(detail.status, 200, "{}", detail.body);
        let detail = detail.json();
        assert_eq!(detail["cards_revealed"], json!(true));
        let hands = detail["hands"].as_array().expect("hands");
        assert_eq!(hands.len(), game.record().hands.len());
        for (shown, hand) in hands.iter().zip(&game.record().hands) {
            let dealt = &hand.deal.hands[..usize::from(rules.players)];
            assert_eq!(shown["hands"], json!(dealt), "one hand per seat");
            let dummy = if rules.dummy { json!(hand.deal.dummy) } else { Value::Null };
            assert_eq!(shown["dummy"], dummy);
            assert_eq!(shown["kitty"], json!(hand.deal.kitty));
            assert_eq!(shown["scores"].as_array().map(Vec::len), Some(usize::from(rules.players)));
        }
        let last = hands.last().expect("a hand");
        assert_eq!(last["scores"], json!(game.scores().as_slice()), "{id}");
    }
    assert_eq!(won, 2);
    let wins = walk(&server, &format!("&player={player}&result=won"), 10).await;
    let losses = walk(&server, &format!("&player={player}&result=lost"), 10).await;
    assert_eq!(ids(&wins), ["forms-1", "forms-0"], "newest first");
    assert_eq!(ids(&losses), ["forms-3", "forms-2"]);

    let record = get(&server, &format!("/api/players/{player}")).await.json();
    assert_eq!(record["played"], json!(forms.len()));
    assert_eq!(record["won"], json!(won));
    assert_eq!(record["points_for"], json!(points_for));
    assert_eq!(record["points_against"], json!(points_against), "both opponents' points count");
    server.stop().await;
}

/// Each two- and three-handed form played at a table over WebSockets (one
/// person, bots in the other seats), then read back through the public
/// interfaces: listed finished with the scores and winner the players were
/// told, and its stored record replayed by the engine to the same scores.
#[tokio::test]
async fn every_small_form_played_at_a_table_is_stored_and_replays_to_its_scores() {
    let server = TestServer::start().await;
    let forms = [Preset::ThreeHanded, Preset::Cutthroat, Preset::TwoHanded, Preset::TwoHandedPlain];
    for (round, preset) in forms.into_iter().enumerate() {
        let mut client = server.player("Solo").await;
        let bot_seats = (1..preset.rules().players).collect();
        let table = client
            .create_table(TableSettings { preset, bot_seats, ..TableSettings::default() })
            .await;
        client.sit(&table, Some(0)).await;
        let client = play_to_the_end(client, table, 40 + round as u64).await;
        let (team, told) = client
            .log
            .iter()
            .find_map(|message| match message {
                ServerMessage::Event {
                    event: Some(TableEvent::Game(Event::GameWon { team, scores })),
                    ..
                } => Some((team.0, scores.as_slice().to_vec())),
                _ => None,
            })
            .expect("the game was won");
        let player = client.player_id.clone().expect("a player id");
        let summary = eventually("the finished match", PATIENCE, || {
            let path = format!("/api/matches?player={player}&finished=true");
            let server = &server;
            async move {
                let page = get(server, &path).await.json();
                page["matches"].as_array().and_then(|m| m.first().cloned())
            }
        })
        .await;
        assert_eq!(summary["rules"], json!(preset.rules()), "{summary}");
        assert_eq!(summary["seats"].as_array().map(Vec::len), Some(told.len()));
        assert_eq!(summary["scores"], json!(told), "the stored scores are the ones told");
        assert_eq!(summary["winner"], json!(team));
        assert_eq!(summary["winners"], json!([team]), "one player wins alone");
        let id = summary["id"].as_str().expect("an id");
        let record: GameRecord =
            serde_json::from_str(&get(&server, &format!("/api/matches/{id}/record")).await.body)
                .expect("a record");
        let replayed = Game::replay(&record).expect("the stored record replays");
        assert_eq!(replayed.scores().as_slice(), told.as_slice(), "{preset:?}");
        assert_eq!(replayed.winner().map(|t| t.0), Some(team));
    }
    server.stop().await;
}

#[tokio::test]
async fn bad_parameters_and_unknown_ids_are_clear_errors() {
    let server = TestServer::start().await;
    for (query, code) in [
        ("limit=0", "bad_limit"),
        ("limit=101", "bad_limit"),
        ("limit=many", "bad_limit"),
        ("result=draw&player=p", "bad_result"),
        ("result=won", "result_needs_player"),
        ("cursor=not-a-cursor", "bad_cursor"),
        ("cursor=12.%20drop", "bad_cursor"),
        ("finished=maybe", "bad_finished"),
        ("since=yesterday", "bad_time"),
        ("colour=red", "bad_query"),
    ] {
        let answer = get(&server, &format!("/api/matches?{query}")).await;
        assert_eq!(answer.error(400), code, "{query}");
    }
    let empty = get(&server, "/api/matches").await;
    assert_eq!(empty.status, 200);
    assert_eq!(empty.json(), json!({ "matches": [], "next_cursor": null }));

    let unknown = "0190b7c2-7c1e-7e36-8d2a-5f3b9d1e4c2a";
    for path in [
        format!("/api/matches/{unknown}"),
        format!("/api/matches/{unknown}/record"),
        format!("/api/matches/{unknown}/egn"),
        "/api/matches/..%2F..%2Fetc".to_owned(),
        format!("/api/players/{unknown}"),
    ] {
        assert_eq!(get(&server, &path).await.error(404), "not_found", "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn imports_the_engine_refuses_are_explained() {
    let server = TestServer::start().await;
    let importer = account(&server, "Importer").await;
    let answer = import(&server, &importer, &fixture("Six_Points_in_Two_Hands")).await;
    assert_eq!(answer.error(400), "starts_mid_game");
    assert_eq!(answer.json()["location"]["step"], json!("header"));
    assert_eq!(
        import(&server, &importer, &fixture("Custom_Scenario")).await.error(400),
        "unfinished_game"
    );
    assert_eq!(import(&server, &importer, "{\"fileType\":").await.error(400), "not_json");

    // Naming a suit in round one: the engine's own code, and where.
    let mut file: Value = serde_json::from_str(&fixture("MotE_W5_G1")).expect("JSON");
    let phases = file["deals"][0]["phases"].as_array_mut().expect("phases");
    let bidding = phases.iter_mut().find(|p| p["type"] == json!("EUCHRE_BIDDING")).expect("bids");
    bidding["calls"][0] = json!("h");
    let answer = import(&server, &importer, &file.to_string()).await;
    assert_eq!(answer.error(400), "not_now");
    assert_eq!(answer.json()["location"], json!({ "deal": 0, "step": "call", "index": 0 }));

    // A faulty record: every finding, not only the first, each with its location.
    let faulty = |name: &str| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/data/faulty");
        std::fs::read_to_string(format!("{dir}/{name}.egn")).expect("a faulty record")
    };
    let answer = import(&server, &importer, &faulty("misplaced_up_card")).await;
    assert_eq!(answer.error(400), "inconsistent_record");
    let body = answer.json();
    assert_eq!(body["location"], json!({ "deal": 0, "step": "setup" }));
    let findings = body["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 8, "{body:#}");
    assert_eq!(findings[0]["code"], body["code"]);
    assert_eq!(findings[0]["message"], body["message"]);
    let reneges: Vec<&Value> = findings[1..].iter().map(|f| &f["location"]).collect();
    assert!(findings[1..].iter().all(|f| f["code"] == json!("must_follow_suit")), "{body:#}");
    assert_eq!(reneges[0], &json!({ "deal": 0, "step": "card", "trick": 1, "card": 2 }));
    assert_eq!(reneges[6], &json!({ "deal": 2, "step": "card", "trick": 1, "card": 3 }));
    let message = findings[1]["message"].as_str().expect("a message");
    assert!(message.ends_with("it held Kc (played in trick 3)"), "{message}");
    let answer = import(&server, &importer, &faulty("incomplete_first_deal")).await;
    assert_eq!(answer.error(400), "incomplete_deal");
    let codes: Vec<Value> = answer.json()["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].clone())
        .collect();
    assert_eq!(codes, [json!("incomplete_deal"), json!("must_follow_suit")]);

    let huge = format!("{{\"padding\": \"{}\"}}", "x".repeat(1024 * 1024));
    assert_eq!(import(&server, &importer, &huge).await.error(413), "too_large");
    assert_eq!(walk(&server, "", 10).await.len(), 0, "nothing refused was stored");
    server.stop().await;
}

/// Only an account imports (a guest's token is not enough), so many times
/// an hour, a record of so many deals at most, with seat names a player
/// could take.
#[tokio::test]
async fn imports_need_an_account_and_keep_to_their_limits() {
    let server = TestServer::start_with(|settings| {
        settings.api.imports_per_hour_per_account = 3;
        settings.api.import_max_hands = 11;
    })
    .await;
    let game = fixture("MotE_W5_G1");
    let anonymous = http(&server, "POST", "/api/matches/import", Some(game.as_bytes())).await;
    assert_eq!(anonymous.error(401), "no_token");
    assert_eq!(import(&server, "nonsense", &game).await.error(401), "bad_token");
    let guest = server.player("Guest").await;
    let guest_token = guest.token.clone().expect("a guest token");
    assert_eq!(import(&server, &guest_token, &game).await.error(403), "not_an_account");

    let importer = account(&server, "Importer").await;
    let mut named: Value = serde_json::from_str(&game).expect("JSON");
    named["metadata"]["players"][1] = json!("Bell\u{7}");
    let answer = import(&server, &importer, &named.to_string()).await;
    assert_eq!(answer.error(400), "bad_name");
    assert_eq!(answer.json()["location"]["step"], json!("header"));
    let mut longer: Value = serde_json::from_str(&game).expect("JSON");
    let deals = longer["deals"].as_array_mut().expect("deals");
    assert_eq!(deals.len(), 11, "the cap is the fixture's own length");
    deals.push(deals[10].clone());
    assert_eq!(import(&server, &importer, &longer.to_string()).await.error(400), "too_many_hands");
    assert_eq!(import(&server, &importer, &game).await.status, 201, "at the cap");

    // The account's three an hour are spent (the refusals cost a read each).
    let refused = import(&server, &importer, &game).await;
    assert_eq!(refused.error(429), "too_many_imports");
    let wait: u64 =
        refused.header("retry-after").and_then(|s| s.parse().ok()).expect("Retry-After");
    assert!(wait > 60, "about 20 minutes: {wait}");
    let other = account(&server, "Other").await;
    assert_eq!(import(&server, &other, &game).await.status, 201, "another account");
    server.stop().await;
}

/// Each address has its own rate on the API: past the burst, `429
/// rate_limited` with `Retry-After`, while another address, the static
/// files and the WebSocket (which has its own admission) are not held back.
#[tokio::test]
async fn the_api_is_rate_limited_per_address() {
    let server = TestServer::start_with(|settings| {
        settings.api.requests_per_second = 1;
        settings.api.request_burst = 3;
    })
    .await;
    let mut statuses = Vec::new();
    // The burst of three, then a refusal (twenty requests take far less
    // than the seventeen seconds that would refill the bucket).
    let refused = loop {
        let answer = get(&server, "/api/leaderboard").await;
        if answer.status != 200 || statuses.len() == 20 {
            break answer;
        }
        statuses.push(answer.status);
    };
    assert!(statuses.len() >= 3, "the burst: {statuses:?}");
    assert_eq!(refused.error(429), "rate_limited");
    let wait: u64 =
        refused.header("retry-after").and_then(|s| s.parse().ok()).expect("Retry-After");
    assert_eq!(wait, 1, "a second refills one request");
    assert_eq!(get(&server, "/api/matches").await.status, 429, "every API route");

    let elsewhere = Client::http_status_from(&server, [127, 7, 0, 2], "/api/leaderboard");
    assert_eq!(elsewhere.await, 200, "another address");
    assert_eq!(get(&server, "/").await.status, 200, "the static files");
    let mut player = Client::connect_from(&server, [127, 0, 0, 1]).await.expect("admitted");
    player.hello("Player").await;
    server.stop().await;
}

// ---- The OpenAPI document --------------------------------------------------------

/// Found by schemathesis (its `positive_data_acceptance` check): the
/// document let through values the API refuses, an empty `player` and any
/// `form` at all.
#[test]
fn the_documented_parameters_admit_only_what_the_api_takes() {
    let document = serde_json::to_value(euchre_server::api::openapi()).expect("serializes");
    let schema = |path: &str, name: &str| {
        let parameters = document["paths"][path]["get"]["parameters"].as_array().expect("some");
        let parameter = parameters.iter().find(|p| p["name"] == name).expect("documented");
        parameter["schema"].clone()
    };
    let forms: Vec<&str> = euchre_engine::GameForm::ALL.iter().map(|form| form.name()).collect();
    assert_eq!(schema("/api/leaderboard", "form")["enum"], serde_json::json!(forms));
    assert_eq!(schema("/api/matches", "player")["minLength"], 1);
}

/// A finished match's analysis, here an imported one: the
/// first request queues it (202 with Retry-After), then it is served from
/// the store, the same each time. A match in progress is refused with 409
/// (the analysis names every card), an unknown one with 404.
#[tokio::test]
async fn a_finished_matchs_analysis_is_queued_then_served_from_the_store() {
    let server = TestServer::start_with(|settings| settings.analysis.worlds = 8).await;
    let importer = account(&server, "Ann").await;
    let imported = import(&server, &importer, &fixture("MotE_W5_G1")).await;
    assert_eq!(imported.status, 201, "{}", imported.body);
    let id = imported.json()["id"].as_str().expect("the new id").to_owned();
    let path = format!("/api/matches/{id}/analysis");
    // The import is acknowledged before its writes reach the database.
    eventually("the import to be stored", PATIENCE, || async {
        (get(&server, &format!("/api/matches/{id}")).await.status == 200).then_some(())
    })
    .await;

    let first = get(&server, &path).await;
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(first.header("retry-after"), Some("5"));
    assert_eq!(first.json(), json!({"status": "queued", "retry_after": 5}));
    let analysis = eventually("the analysis to be stored", PATIENCE, || async {
        let answer = get(&server, &path).await;
        (answer.status == 200).then(|| answer.json())
    })
    .await;
    assert_eq!(analysis["worlds"], json!(8));
    assert_eq!(analysis["players"].as_array().map(Vec::len), Some(4));
    let hands = analysis["hands"].as_array().expect("hands");
    let decisions: usize =
        hands.iter().map(|hand| hand["decisions"].as_array().map_or(0, Vec::len)).sum();
    assert!(hands.len() > 3 && decisions > 30, "{} hands, {decisions} decisions", hands.len());
    let again = get(&server, &path).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json(), analysis, "computed once, then read as stored");

    let _playing = unfinished_game(&server, "Ida").await;
    let live = eventually("the game in progress to be stored", PATIENCE, || async {
        let list = walk(&server, "", 100).await;
        let live = list.into_iter().find(|m| m["finished"] == json!(false))?;
        live["id"].as_str().map(str::to_owned)
    })
    .await;
    let refused = get(&server, &format!("/api/matches/{live}/analysis")).await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(refused.json()["code"], json!("match_in_progress"));
    let unknown = get(&server, "/api/matches/no-such-match/analysis").await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert_eq!(unknown.json()["code"], json!("not_found"));
}

/// "Leave" means a bot takes the seat for the rest of the game, and so it
/// does: a game everyone left to bots is played to its end, even with
/// nobody connected (and without the bots' pause, with nobody to watch),
/// so its match is finished, not abandoned, with the bot named in the
/// seat; then the table closes.
#[tokio::test]
async fn a_game_everyone_left_to_bots_is_finished_by_them_not_abandoned() {
    let server = TestServer::start_with(|settings| {
        settings.timing.reconnect_grace_ms = 300;
        settings.timing.table_close_ms = 300;
        // A whole game at this pause outlasts the close by far.
        settings.timing.bot_delay_ms = 200;
    })
    .await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(with_bots()).await;
    ann.sit(&table, Some(0)).await;
    let id = ann.next_id();
    let left = ann.command(ClientMessage::Leave { id, table: table.clone() }).await;
    assert!(matches!(left, ServerMessage::Ack { .. }), "{left:?}");
    drop(ann);
    // The table leaves the server's list before the store has its close
    // (the writer gathers its writes): wait for the reason too.
    let closed = eventually("the table to close", PATIENCE, || async {
        let answer = get(&server, &format!("/api/tables/{table}")).await.json();
        (answer["state"] == "closed" && !answer["closed_reason"].is_null()).then_some(answer)
    })
    .await;
    let last = &closed["last_match"];
    assert_eq!(last["finished"], json!(true), "{closed}");
    assert_eq!(last["abandoned"], Value::Null, "{closed}");
    // Her seat keeps her name (her history, her side's result) and names
    // the bot that played it from the first hand; the others are bots'.
    let id = last["id"].as_str().expect("the match id");
    let seats = get(&server, &format!("/api/matches/{id}")).await.json()["seats"].clone();
    assert_eq!(seats[0]["name"], json!("Ann"), "{seats}");
    assert_eq!(seats[0]["stand_in"], json!({ "bot": "basic", "from_hand": 0 }), "{seats}");
    assert!(seats[1].get("stand_in").is_none(), "{seats}");
    server.stop().await;
}

/// A player's profile averages the analyses of their matches:
/// nothing before one is analysed, then the accuracy and points lost of
/// their seat in each analysed match, by form; the bots' seats count for
/// nobody. (Stored behind the server's back, as in the test above.)
#[tokio::test]
async fn a_profile_shows_the_accuracy_of_the_players_analysed_matches() {
    let server = TestServer::start_with(|settings| settings.analysis.worlds = 4).await;
    assert_eq!(get(&server, "/api/matches").await.status, 200);
    let store = servers_database(&server).await;
    let player = "p-analysed";
    let mut writes = vec![Write::Player {
        id: player.into(),
        name: "Ann".into(),
        token_hash: "h".into(),
        at: 0,
    }];
    let games = [(Preset::Standard, 0), (Preset::Standard, 1), (Preset::Cutthroat, 2)];
    for (index, (preset, seat)) in games.iter().enumerate() {
        let id = format!("analysed-{index}");
        writes.extend(bot_game(*preset, index as u64 + 5, &id, player, |_| *seat).1);
    }
    store.apply(&writes).await.expect("stored");
    let profile = get(&server, &format!("/api/players/{player}")).await.json();
    assert_eq!(profile["accuracy"], json!([]), "nothing analysed yet");

    let mut figures: HashMap<&str, Vec<Value>> = HashMap::new();
    for (index, (preset, seat)) in games.iter().enumerate() {
        let path = format!("/api/matches/analysed-{index}/analysis");
        let analysis = eventually("the analysis", PATIENCE, || async {
            let answer = get(&server, &path).await;
            (answer.status == 200).then(|| answer.json())
        })
        .await;
        let form = preset.rules().form().name();
        figures.entry(form).or_default().push(analysis["players"][usize::from(*seat)].clone());
    }
    let profile = get(&server, &format!("/api/players/{player}")).await.json();
    let shown = profile["accuracy"].as_array().expect("by form");
    assert_eq!(shown.len(), 2, "{profile}");
    for entry in shown {
        let form = entry["form"].as_str().expect("a form");
        let seats = &figures[form];
        let sum =
            |field: &str| seats.iter().map(|s| s[field].as_f64().expect("a number")).sum::<f64>();
        assert_eq!(entry["matches"], json!(seats.len()), "{entry}");
        assert_eq!(entry["decisions"].as_f64(), Some(sum("decisions")), "{entry}");
        let accuracy = sum("within_tolerance") / sum("decisions");
        let points_lost = sum("points_lost") / seats.len() as f64;
        let close =
            |field: &str, want: f64| (entry[field].as_f64().expect("a number") - want).abs() < 1e-9;
        assert!(close("accuracy", accuracy) && close("points_lost", points_lost), "{entry}");
    }
    server.stop().await;
}

/// Every finished match is analysed as it ends, an imported
/// one as it is imported: its analysis is stored without anyone asking,
/// and the player's profile shows its accuracy.
#[tokio::test]
async fn a_match_played_to_its_end_is_analysed_without_a_request() {
    let server = TestServer::start_with(|settings| {
        settings.analysis.at_match_end = true;
        settings.analysis.worlds = 4;
    })
    .await;
    let store = servers_database(&server).await;
    let player = finished_games(&server, "Ann", &[3]).await;
    let played = eventually("the match to be stored as finished", PATIENCE, || async {
        let list = walk(&server, &format!("&player={player}&finished=true"), 10).await;
        list.first().and_then(|m| m["id"].as_str().map(str::to_owned))
    })
    .await;
    let importer = account(&server, "Bo").await;
    let imported = import(&server, &importer, &fixture("MotE_W5_G1")).await;
    assert_eq!(imported.status, 201, "{}", imported.body);
    let imported = imported.json()["id"].as_str().expect("the new id").to_owned();
    for id in [&played, &imported] {
        eventually("the analysis to be stored unasked", PATIENCE, || async {
            store.match_analysis(id).await.expect("the store answers").map(|_| ())
        })
        .await;
    }
    let profile = get(&server, &format!("/api/players/{player}")).await.json();
    let accuracy = profile["accuracy"].as_array().expect("by form");
    assert_eq!(accuracy.len(), 1, "{profile}");
    assert_eq!(accuracy[0]["form"], json!("partnership"), "{profile}");
    assert_eq!(accuracy[0]["matches"], json!(1), "{profile}");
    let metrics = get(&server, "/metrics").await.body;
    assert!(metrics.contains("euchre_analyses_at_match_end_total 2"), "{metrics}");
    server.stop().await;
}

/// The analysis's 200 is documented as the `GameAnalysis` it serves, not as
/// any JSON value: a real analysis (with both kinds of value) matches the
/// document's schema field by field, and declares nothing the schema lacks.
#[test]
fn the_analysis_is_documented_as_it_is_served() {
    let document = serde_json::to_value(euchre_server::api::openapi()).expect("serializes");
    let ok = &document["paths"]["/api/matches/{id}/analysis"]["get"]["responses"]["200"];
    let schema = &ok["content"]["application/json"]["schema"];
    assert_eq!(schema, &json!({"$ref": "#/components/schemas/GameAnalysis"}));

    let (game, _) = bot_game(Preset::Standard, 3, "m-analysed", "p-ann", |_| 0);
    let settings = euchre_analysis::Settings { worlds: 2, seed: 1 };
    let analysis = euchre_analysis::analyse(game.record(), &settings).expect("analysed");
    let decisions = || analysis.hands.iter().flat_map(|hand| &hand.decisions);
    assert!(decisions().any(|d| d.shown.is_some()) && decisions().any(|d| d.known.is_some()));
    let served = serde_json::to_value(&analysis).expect("serializes");
    let mismatches = schema_mismatches(&document, schema, &served, "analysis");
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// Where `value` breaks `schema` (the OpenAPI subset utoipa writes: `$ref`,
/// `oneOf`, `type`, `enum`, `required`, `properties`, `items`). An object
/// schema with properties declares all of them: an undeclared field is a
/// mismatch.
fn schema_mismatches(document: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    if let Some(Value::String(target)) = schema.get("$ref") {
        let name = target.trim_start_matches("#/components/schemas/");
        return schema_mismatches(document, &document["components"]["schemas"][name], value, at);
    }
    if let Some(Value::Array(alternatives)) = schema.get("oneOf") {
        let fits = |alternative| schema_mismatches(document, alternative, value, at).is_empty();
        return match alternatives.iter().filter(|alternative| fits(alternative)).count() {
            1 => Vec::new(),
            n => vec![format!("{at}: {n} of oneOf fit {value}")],
        };
    }
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => return vec![format!("{at}: no type in {schema}")],
    };
    if !types.iter().any(|&t| t == kind || (t == "number" && kind == "integer")) {
        return vec![format!("{at}: {kind}, documented as {types:?}")];
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        return vec![format!("{at}: {value} is not among {allowed:?}")];
    }
    let mut mismatches = Vec::new();
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let at = format!("{at}[{i}]");
                mismatches.extend(schema_mismatches(document, &schema["items"], item, &at));
            }
        }
        Value::Object(fields) => {
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap_or_default();
                if !fields.contains_key(name) {
                    mismatches.push(format!("{at}.{name}: required, missing"));
                }
            }
            let Some(properties) = schema.get("properties") else { return mismatches };
            for (name, field) in fields {
                let at = format!("{at}.{name}");
                match properties.get(name) {
                    Some(property) => {
                        mismatches.extend(schema_mismatches(document, property, field, &at))
                    }
                    None => mismatches.push(format!("{at}: not documented")),
                }
            }
        }
        _ => {}
    }
    mismatches
}

/// `docs/openapi.json` must match the routes and types. Regenerate it with
/// `UPDATE_OPENAPI=1 cargo test -p euchre-server --test it history::`.
#[test]
fn checked_in_openapi_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
    let generated = euchre_server::api::openapi().to_pretty_json().expect("serializes") + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &generated).expect("write the document");
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/openapi.json is stale: run UPDATE_OPENAPI=1 cargo test -p euchre-server --test it history::"
    );
}

#[tokio::test]
async fn the_openapi_document_is_served_and_names_every_route() {
    let server = TestServer::start().await;
    let answer = get(&server, "/api/openapi.json").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let served = answer.json();
    let document = serde_json::to_value(euchre_server::api::openapi()).expect("serializes");
    assert_eq!(served, document);
    let paths: HashSet<&str> =
        served["paths"].as_object().expect("paths").keys().map(String::as_str).collect();
    let expected = [
        "/api/matches",
        "/api/matches/{id}",
        "/api/matches/{id}/record",
        "/api/matches/{id}/analysis",
        "/api/matches/{id}/egn",
        "/api/matches/import",
        "/api/tables/{id}",
        "/api/players/{id}",
        "/api/leaderboard",
        "/api/accounts",
        "/api/accounts/password",
        "/api/accounts/me",
        "/api/accounts/me/games",
        "/api/sessions",
        "/api/sessions/current",
        "/api/admin/log",
        "/api/admin/reports",
        "/api/admin/reports/{id}/close",
        "/api/accounts/name",
        "/api/sessions",
        "/api/sessions/current",
        "/api/admin/log",
        "/api/admin/players/{who}",
        "/api/admin/players/{who}/warn",
        "/api/admin/players/{who}/mute",
        "/api/admin/players/{who}/unmute",
        "/api/admin/players/{who}/ban",
        "/api/admin/players/{who}/unban",
        "/api/admin/players/{who}/rename",
        "/api/admin/address-bans",
        "/api/admin/address-bans/lift",
        "/api/tournaments",
        "/api/tournaments/{id}",
        "/api/tournaments/{id}/entries",
        "/api/tournaments/{id}/entries/me",
        "/api/tournaments/{id}/start",
        "/api/tournaments/{id}/pause",
        "/api/tournaments/{id}/resume",
        "/api/tournaments/{id}/cancel",
        "/api/tournaments/{id}/entries/{player}",
        "/api/tournaments/{id}/late",
        "/api/puzzles/next",
        "/api/puzzles/daily",
        "/api/puzzles/{id}",
        "/api/puzzles/{id}/answer",
        "/api/players/{id}/puzzles",
    ];
    assert_eq!(paths, expected.into_iter().collect());
    // Every schema a path or a schema points to is in the document.
    fn refs<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    found.push(target);
                }
                map.values().for_each(|v| refs(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    refs(&served, &mut found);
    assert!(!found.is_empty());
    for target in found {
        let name = target.strip_prefix("#/components/schemas/").expect("a local schema");
        assert!(served["components"]["schemas"][name].is_object(), "{target} is missing");
    }
    server.stop().await;
}

/// Leave and come back: a new connection with the same token finds the
/// player's live table first in the lobby (whatever its filter). Everyone
/// gone, the table closes; its link (`/api/tables/{id}`) says when and why,
/// and its unfinished match reads abandoned in the API, cards, record and
/// analysis (of its finished hands) all served.
#[tokio::test]
async fn a_table_everyone_left_explains_itself_and_its_match_reads_abandoned() {
    let server = TestServer::start_with(|settings| {
        settings.timing.reconnect_grace_ms = 300;
        settings.timing.table_close_ms = 300;
    })
    .await;
    let (table, token) = seated_then_gone(&server, "Ann").await;

    // Back on a new connection: the lobby of open tables lists the game in
    // play as hers, and nobody else's lobby does.
    let mut again = Client::connect(&server.url()).await;
    again.try_hello("Ann", Some(&token)).await.expect("welcome back");
    let open = LobbyQuery {
        filter: LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() },
        ..LobbyQuery::default()
    };
    let page = again.list_tables(open.clone()).await.expect("a page");
    let yours: Vec<&str> = page.yours.iter().map(|t| t.table.as_str()).collect();
    assert_eq!(yours, vec![table.as_str()]);
    assert!(page.tables.is_empty(), "the game in play is not an open table");
    let mut bob = server.player("Bob").await;
    assert!(bob.list_tables(open).await.expect("a page").yours.is_empty());
    let live = get(&server, &format!("/api/tables/{table}")).await;
    assert_eq!(live.status, 200, "{}", live.body);
    assert_eq!(live.json()["state"], "open");
    drop(again);

    // Everyone gone: closed after the idle time, the game abandoned.
    let closed = eventually("the table to close", PATIENCE, || async {
        let answer = get(&server, &format!("/api/tables/{table}")).await.json();
        (answer["state"] == "closed" && !answer["last_match"]["abandoned"].is_null())
            .then_some(answer)
    })
    .await;
    assert_eq!(closed["closed_reason"], "everyone_left");
    assert_eq!(closed["host"], "Ann");
    assert!(closed["closed_at"].as_i64() >= closed["created_at"].as_i64());
    assert!(closed.get("invite").is_none());
    let last = &closed["last_match"];
    assert_eq!((last["finished"].clone(), last["number"].clone()), (json!(false), json!(1)));
    assert_eq!(last["abandoned"]["reason"], "everyone_left");
    assert_eq!(last["abandoned"]["at"], closed["closed_at"]);
    let match_id = last["id"].as_str().expect("the match id");

    let shown = get(&server, &format!("/api/matches/{match_id}")).await.json();
    assert_eq!(shown["finished"], false);
    assert_eq!(shown["abandoned"], last["abandoned"]);
    assert_eq!(shown["cards_revealed"], true, "it can never go on: its cards are shown");
    let listed = walk(&server, "", 10).await;
    assert_eq!(listed[0]["abandoned"]["reason"], "everyone_left");
    assert_eq!(get(&server, &format!("/api/matches/{match_id}/record")).await.status, 200);
    // Its analysis is served (the hands that finished), not refused as in progress.
    let analysis_path = format!("/api/matches/{match_id}/analysis");
    let analysis = eventually("the abandoned match's analysis", PATIENCE, || async {
        let answer = get(&server, &analysis_path).await;
        assert!(matches!(answer.status, 200 | 202), "{} {}", answer.status, answer.body);
        (answer.status == 200).then(|| answer.json())
    })
    .await;
    assert_eq!(analysis["players"].as_array().map(Vec::len), Some(4));
    // Gone from the lobby, "yours" included.
    let mut back = Client::connect(&server.url()).await;
    back.try_hello("Ann", Some(&token)).await.expect("welcome back");
    assert!(back.list_tables(LobbyQuery::default()).await.expect("a page").yours.is_empty());

    for path in
        ["/api/tables/0190b7c2-7c1e-7e36-8d2a-5f3b9d1e4c2a".to_owned(), "/api/tables/..%2Fx".into()]
    {
        assert_eq!(get(&server, &path).await.error(404), "not_found", "{path}");
    }
    drop(bob);
    server.stop().await;
}

/// A match left "in progress" at a table the store says closed (a crash
/// between the two writes, or a version before abandonment was kept) reads
/// abandoned after the next start; an open table's game is restored, never
/// abandoned.
#[tokio::test]
async fn at_start_up_unfinished_matches_of_closed_tables_are_abandoned() {
    let data = tempfile::tempdir().expect("a data folder");
    let url = format!("sqlite://{}/euchre.db", data.path().display());
    let store = SqliteStore::connect(&url).await.expect("open");
    store.migrate().await.expect("migrate");
    let rules = Preset::Standard.rules();
    let game = Game::new(rules, 3).expect("valid rules");
    let started = |id: &str, table: &str| Write::MatchStarted {
        id: id.into(),
        table_id: table.into(),
        number: 1,
        rules,
        seed: game.record().seed,
        start: game.start().clone(),
        seats: (0..4)
            .map(|seat| euchre_store::MatchSeat {
                seat,
                player_id: None,
                bot: Some("basic".into()),
                name: format!("Bot {seat}"),
                stand_in: None,
            })
            .collect(),
        at: 10,
    };
    let opened = |id: &str| Write::TableOpened {
        id: id.into(),
        host_id: "host".into(),
        settings: serde_json::to_value(with_bots()).expect("settings"),
        invite: None,
        at: 5,
    };
    let host =
        Write::Player { id: "host".into(), name: "Host".into(), token_hash: "h".into(), at: 1 };
    let dealt = Write::HandDealt {
        match_id: "m-open".into(),
        number: 0,
        deal: game.record().hands[0].deal,
        seal: None,
    };
    store
        .apply(&[
            host,
            opened("t-closed"),
            started("m-closed", "t-closed"),
            Write::TableClosed { id: "t-closed".into(), at: 20 },
            opened("t-open"),
            started("m-open", "t-open"),
            dealt,
        ])
        .await
        .expect("apply");
    drop(store);

    let server = TestServer::start_with(|settings| {
        settings.database_url = euchre_server::config::DatabaseUrl(url.clone());
    })
    .await;
    let closed = get(&server, "/api/matches/m-closed").await.json();
    assert_eq!(closed["abandoned"], json!({ "at": 20, "reason": "everyone_left" }));
    let open = get(&server, "/api/matches/m-open").await.json();
    assert_eq!(open["abandoned"], Value::Null, "{open}");
    let table = get(&server, "/api/tables/t-open").await.json();
    assert_eq!(table["state"], "open", "restored: {table}");
    server.stop().await;
}

/// The matches the server's database holds for `table` (written, listed or not).
async fn stored_matches_of(server: &TestServer, table: &str) -> Vec<String> {
    use sqlx::Connection;
    let url = format!("sqlite://{}/euchre.db", server.data.path().display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.expect("the server's database");
    sqlx::query_scalar("SELECT id FROM matches WHERE table_id = $1")
        .bind(table)
        .fetch_all(&mut db)
        .await
        .expect("its matches")
}

/// Games at a private table and at a pool's are not listed, nor shown,
/// while they are played (who sits there and how it stands are for those
/// at them), and such a table's page says only what its invite link tells,
/// to all but its players; once a game ends it is listed as any other.
#[tokio::test]
async fn games_at_private_and_pool_tables_are_not_shown_while_played() {
    let server = TestServer::start_with(|settings| settings.quick_play.wave_ms = 100).await;
    // Ann at a private table with three bots, at her first turn.
    let mut ann = server.player("Ann").await;
    let id = ann.next_id();
    let settings = TableSettings { private: true, ..with_bots() };
    let (private, invite) = match ann.command(ClientMessage::CreateTable { id, settings }).await {
        ServerMessage::Ack { reply: Reply::TableCreated { table, invite, .. }, .. } => {
            (table, invite)
        }
        other => panic!("expected table_created, got {other:?}"),
    };
    let id = ann.next_id();
    let sit = ClientMessage::Sit { id, table: private.clone(), seat: Some(0), invite };
    assert!(matches!(ann.command(sit).await, ServerMessage::Ack { .. }));
    // Four strangers matched by a pool; nobody acts.
    let mut strangers = Vec::new();
    for name in ["Sam", "Sue", "Sid", "Sol"] {
        let mut client = server.player(name).await;
        let id = client.next_id();
        let request = QuickPlayRequest::new(Preset::Standard, false);
        let answer = client.command(ClientMessage::QuickPlay { id, request }).await;
        assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }));
        strangers.push(client);
    }
    let mut pool = None;
    for client in &mut strangers {
        let matched = client.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
        if let ServerMessage::QuickPlayMatched { table, .. } = matched.await {
            pool = Some(table);
        }
    }
    let pool = pool.expect("the pool's table");
    // Bob at a public table, started last: once his game is listed, the
    // others are in the database too (one writer, in order).
    let bob = unfinished_game(&server, "Bob").await;
    let public_game = eventually("Bob's game to be listed", PATIENCE, async || {
        walk(&server, "", 50).await.into_iter().find(|m| m["seats"][0]["name"] == "Bob")
    })
    .await;
    let listed = walk(&server, "", 50).await;
    for table in [&private, &pool] {
        let stored = stored_matches_of(&server, table).await;
        assert_eq!(stored.len(), 1, "{table}'s game is in the database");
        assert!(listed.iter().all(|m| m["table_id"] != json!(table)), "{table}: {listed:#?}");
        for path in
            [format!("/api/matches/{}", stored[0]), format!("/api/matches/{}/egn", stored[0])]
        {
            assert_eq!(get(&server, &path).await.error(404), "not_found", "{path}");
        }
        let page = get(&server, &format!("/api/tables/{table}")).await;
        assert_eq!(page.status, 200, "{}", page.body);
        let expected = json!({
            "id": table, "host": null, "private": true, "state": "open", "created_at": null,
            "closed_at": null, "closed_reason": null, "last_match": null,
        });
        assert_eq!(page.json(), expected, "only what the invite tells");
    }
    // Except to those playing there (their Plays is rebuilt from it after a
    // reload): Ann's token shows her game; Bob's, seated elsewhere, does not.
    let stored = stored_matches_of(&server, &private).await;
    let (ann_token, bob_token) = (ann.token.clone(), bob.token.clone());
    let (ann_token, bob_token) = (ann_token.expect("a token"), bob_token.expect("a token"));
    let path = format!("/api/matches/{}", stored[0]);
    let mine = request(&server, "GET", &path, Some(&ann_token), None).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert_eq!(mine.json()["cards_revealed"], json!(false), "in play: public cards only");
    assert_eq!(
        request(&server, "GET", &path, Some(&bob_token), None).await.error(404),
        "not_found"
    );
    assert_eq!(request(&server, "GET", &path, Some("forged"), None).await.error(404), "not_found");
    let table_path = format!("/api/tables/{private}");
    let hers = request(&server, "GET", &table_path, Some(&ann_token), None).await.json();
    assert_eq!(hers["last_match"]["id"], json!(stored[0]), "{hers}");
    assert_eq!(hers["host"], json!("Ann"), "{hers}");
    let his = request(&server, "GET", &table_path, Some(&bob_token), None).await.json();
    assert_eq!(his["last_match"], Value::Null, "{his}");
    let shown =
        get(&server, &format!("/api/matches/{}", public_game["id"].as_str().unwrap_or(""))).await;
    assert_eq!(shown.status, 200, "a public game in play is shown: {}", shown.body);

    // Ann's game ends: listed and shown as any other.
    let ann = play_to_the_end(ann, private.clone(), 5).await;
    let ended = stored_matches_of(&server, &private).await;
    eventually("Ann's game, ended, to be listed", PATIENCE, async || {
        walk(&server, "", 50).await.into_iter().find(|m| m["id"] == json!(ended[0]))
    })
    .await;
    assert_eq!(get(&server, &format!("/api/matches/{}", ended[0])).await.status, 200);
    drop((ann, bob, strangers));
    server.stop().await;
}

/// A player back from away, on any device, is told from which hand a bot
/// played for them and what the score was then (the snapshot to their
/// seat says so, until they act again); nobody else is told.
#[tokio::test]
async fn a_player_back_from_away_is_told_from_which_hand_a_bot_stood_in() {
    let server = TestServer::start_with(|settings| {
        settings.timing.reconnect_grace_ms = 200;
        settings.timing.bot_delay_ms = 20;
    })
    .await;
    let (table, token) = seated_then_gone(&server, "Ann").await;
    let record = format!("/api/tables/{table}");
    let hands = async || {
        let id = get(&server, &record).await.json()["last_match"]["id"].as_str()?.to_owned();
        let hands = get(&server, &format!("/api/matches/{id}")).await.json()["hands"].clone();
        hands.as_array().map(Vec::len).filter(|&count| count >= 3)
    };
    eventually("the bots to play two hands for Ann", PATIENCE, hands).await;

    let snapshot = async |client: &mut Client| {
        let id = client.next_id();
        // A seq beyond the table's: a snapshot, as a page opened afresh gets.
        let resume = ClientMessage::Resume { id, table: table.clone(), last_seq: u64::MAX };
        client.send(&resume).await;
        match client.recv_until(|m| matches!(m, ServerMessage::Snapshot { .. })).await {
            ServerMessage::Snapshot { state, .. } => *state,
            _ => unreachable!("recv_until returns what it waited for"),
        }
    };
    let mut back = Client::connect(&server.url()).await;
    back.try_hello("Ann", Some(&token)).await.expect("welcome back");
    let state = snapshot(&mut back).await;
    let stood_in = state.stood_in.expect("a bot stood in for Ann");
    assert_eq!(stood_in.from_hand, 0, "she never played a card of hers");
    assert_eq!(stood_in.scores.as_slice(), &[0, 0]);
    let mut bob = server.player("Bob").await;
    assert_eq!(snapshot(&mut bob).await.stood_in, None, "a spectator is not told");

    // Once she acts, it is told no more.
    let (seq, actions) =
        match back.recv_until(|m| matches!(m, ServerMessage::YourTurn { .. })).await {
            ServerMessage::YourTurn { seq, actions, .. } => (seq, actions),
            _ => unreachable!("recv_until returns what it waited for"),
        };
    let action = actions.first().copied().expect("a legal action");
    let id = back.next_id();
    let answer = back.command(ClientMessage::Act { id, table: table.clone(), action }).await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "at seq {seq}: {answer:?}");
    assert_eq!(snapshot(&mut back).await.stood_in, None);
    drop((back, bob));
    server.stop().await;
}
