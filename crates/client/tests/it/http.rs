//! The typed HTTP client against the real server, in process: every GET it
//! has, each answer read as the protocol's type and written back to the
//! very JSON the server sent (one declaration for both sides), a
//! tournament's entries made and withdrawn, and the API's errors as typed
//! errors.

use std::time::Duration;

use euchre_client::{AnalysisAnswer, Client, Config, HttpClient, HttpError, MatchQuery, Update};
use euchre_engine::Event;
use euchre_protocol::api::TableState;
use euchre_protocol::{TableEvent, TableSettings};
use euchre_server::testing::{TestServer, eventually};
use serde::Serialize;

const PATIENCE: Duration = Duration::from_secs(30);

/// Plays one game against three bots, the first legal action each time,
/// and returns its table.
async fn play_a_game(client: &Client, updates: &mut euchre_client::Updates) -> String {
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = client.create_table(settings).await.expect("created").table;
    client.sit(&table, Some(0), None).await.expect("seated");
    loop {
        let update = tokio::time::timeout(PATIENCE, updates.next())
            .await
            .expect("an update in time")
            .expect("connected");
        match update {
            Update::YourTurn { table, actions, .. } => {
                client.act(&table, actions[0]).await.expect("a prompted action");
            }
            Update::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. } => {
                return table;
            }
            _ => {}
        }
    }
}

/// The body at `path` as the server sent it, as JSON.
async fn raw(api: &HttpClient, path: &str) -> serde_json::Value {
    let url = format!("{}{}", api.base(), path.trim_start_matches('/'));
    let http = reqwest::Client::builder().no_proxy().build().expect("a client");
    let answer = http.get(url).send().await.expect("an answer");
    let text = answer.text().await.expect("a body");
    serde_json::from_str(&text).expect("JSON")
}

/// `typed`, read by the client, written back: the JSON the server sent.
async fn same_as_sent(api: &HttpClient, path: &str, typed: &impl Serialize) {
    let typed = serde_json::to_value(typed).expect("writes");
    assert_eq!(typed, raw(api, path).await, "GET {path} reads back as sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_reads_as_the_protocols_type() {
    let server = TestServer::start_with(|settings| {
        settings.analysis.worlds = 4;
        settings.analysis.retry_after_seconds = 1;
    })
    .await;
    let (client, mut updates) =
        Client::connect(Config::new(server.url(), "Hana")).await.expect("connect");
    let table = play_a_game(&client, &mut updates).await;
    let player = client.identity().player.id.clone();
    let api = HttpClient::new(&server.url()).expect("an address").with_timeout(PATIENCE);

    // The writer gathers writes for a while: ready once it has them all.
    eventually("the writer to catch up", PATIENCE, async || {
        api.readiness().await.ok().filter(|ready| ready.ready && ready.backlog == 0)
    })
    .await;
    let query =
        MatchQuery { player: Some(player.clone()), finished: true, ..MatchQuery::default() };
    let list = eventually("the finished match to be listed", PATIENCE, async || {
        api.matches(&query).await.ok().filter(|list| list.matches.len() == 1)
    })
    .await;
    same_as_sent(&api, &format!("/api/matches?player={player}&finished=true"), &list).await;
    let id = list.matches[0].id.clone();
    assert_eq!(list.matches[0].table_id, table);

    let view = api.match_view(&id).await.expect("the match");
    assert!(view.cards_revealed && !view.hands.is_empty());
    assert!(view.hands.iter().all(|hand| hand.hands.is_some()), "a finished match shows all");
    same_as_sent(&api, &format!("/api/matches/{id}"), &view).await;
    let record = api.record(&id).await.expect("the record");
    assert_eq!(record.hands.len(), view.hands.len());

    let analysis = eventually("the analysis", PATIENCE, async || match api.analysis(&id).await {
        Ok(AnalysisAnswer::Ready(analysis)) => Ok(analysis),
        Ok(pending) => Err(format!("{pending:?}")),
        Err(error) => Err(error.to_string()),
    })
    .await;
    assert_eq!(analysis.players.len(), 4);
    same_as_sent(&api, &format!("/api/matches/{id}/analysis"), &analysis).await;

    let at_table = api.table(&table).await.expect("the table");
    assert_eq!(at_table.last_match.as_ref().map(|game| game.id.as_str()), Some(id.as_str()));
    assert_eq!(at_table.state, TableState::Open, "the player is still seated");
    same_as_sent(&api, &format!("/api/tables/{table}"), &at_table).await;

    let profile = eventually("the profile to count the match", PATIENCE, async || {
        api.player(&player).await.ok().filter(|profile| profile.played == 1)
    })
    .await;
    assert_eq!(profile.name, "Hana");
    same_as_sent(&api, &format!("/api/players/{player}"), &profile).await;
    let board = api.leaderboard(None, Some(5), None).await.expect("the board");
    assert_eq!(board.form, "partnership");
    assert!(board.places.is_empty(), "a guest is rated but not ranked: {board:?}");
    same_as_sent(&api, "/api/leaderboard?limit=5", &board).await;

    // The API's refusals, typed.
    let missing = api.match_view("no-such-match").await.expect_err("no such match");
    assert_eq!((missing.status(), missing.code()), (Some(404), Some("not_found")));
    assert!(missing.to_string().contains("no-such-match"), "{missing}");
    let bad = api.leaderboard(Some("bridge"), None, None).await.expect_err("no such form");
    assert_eq!((bad.status(), bad.code()), (Some(400), Some("bad_form")));
    client.close().await;
    server.stop_within(PATIENCE).await;

    // And nobody there.
    let gone = api.readiness().await.expect_err("the server stopped");
    assert!(matches!(gone, HttpError::Unreachable { .. }), "{gone:?}");
}

/// Registering and withdrawing with a player's own token, the tournament
/// read back in full, and the API's refusals as typed errors; a server
/// with no puzzle yet says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournaments_take_entries_with_the_players_token() {
    let server = TestServer::start().await;
    let api = HttpClient::new(&server.url()).expect("an address").with_timeout(PATIENCE);
    let (olive, _olive_updates) =
        Client::connect(Config::new(server.url(), "Olive")).await.expect("connect");
    let organiser = api
        .claim(&olive.identity().token, "Olive", "a long enough password")
        .await
        .expect("an account");
    let spec = serde_json::json!({
        "name": "Friday Night", "format": "progressive", "preset": "standard",
        "starts_in_seconds": 3600,
    });
    let http = reqwest::Client::builder().no_proxy().build().expect("a client");
    let created = http
        .post(format!("{}api/tournaments", api.base()))
        .bearer_auth(&organiser)
        .header("content-type", "application/json")
        .body(spec.to_string())
        .send()
        .await
        .expect("an answer");
    assert_eq!(created.status(), 201);
    let created: serde_json::Value =
        serde_json::from_str(&created.text().await.expect("a body")).expect("JSON");
    let id = created["id"].as_str().expect("an id");

    let (hana, _updates) = Client::connect(Config::new(server.url(), "Hana")).await.expect("in");
    let token = &hana.identity().token;
    api.register(id, token).await.expect("registered");
    let view = api.tournament(id).await.expect("the tournament");
    same_as_sent(&api, &format!("/api/tournaments/{id}"), &view).await;
    let names: Vec<&str> = view.entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["Hana"]);
    api.withdraw(id, token).await.expect("withdrawn");
    assert!(api.tournament(id).await.expect("the tournament").entries.is_empty());

    let refused = api.register("no-such-tournament", token).await.expect_err("refused");
    assert_eq!(refused.code(), Some("not_registering"), "{refused}");
    // The list is the database's, which the writer feeds: read once it has caught up.
    eventually("the writer to catch up", PATIENCE, async || {
        api.readiness().await.ok().filter(|ready| ready.ready && ready.backlog == 0)
    })
    .await;
    let list = api.tournaments().await.expect("the list");
    assert!(list.tournaments.iter().any(|listed| listed.id == id), "{list:?}");
    same_as_sent(&api, "/api/tournaments", &list).await;

    let none = api.next_puzzle(Some(token)).await.expect_err("no puzzle yet");
    assert_eq!((none.status(), none.code()), (Some(404), Some("not_found")));
    let none = api.daily_puzzle().await.expect_err("no puzzle yet");
    assert_eq!(none.code(), Some("not_found"));

    server.stop().await;
}
