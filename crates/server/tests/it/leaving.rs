//! A player leaves: takes their games as one EGN bundle, then deletes the
//! account with its password. Everything of theirs ends at once; the other
//! players' matches stay readable; the name is held, then freed.

use std::time::Duration;

use crate::ratings::play;
use crate::support::http::{Answer, http, log_in, request};
use crate::support::{Client, PATIENCE, Players, TestServer};
use euchre_protocol::TableSettings;
use euchre_server::testing::eventually;
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse";

async fn delete(server: &TestServer, token: Option<&str>, password: Option<&str>) -> Answer {
    let body = password.map(|password| json!({ "password": password }).to_string());
    let body = body.as_deref().map(str::as_bytes);
    request(server, "DELETE", "/api/accounts/me", token, body).await
}

async fn bundle(server: &TestServer, token: &str) -> Value {
    let answer = request(server, "GET", "/api/accounts/me/games", Some(token), None).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()
}

/// Ann and Bob, two accounts, play a game to its end with two bots (a
/// two-handed game would do, but EGN cannot state it); the match, once stored.
async fn a_game_between_ann_and_bob(server: &TestServer) -> (Client, Client, Value) {
    let mut ann = server.account("Ann").await;
    let mut bob = server.account("Bob").await;
    let settings = TableSettings { bot_seats: vec![2, 3], ..TableSettings::default() };
    let table = ann.create_table(settings).await;
    ann.sit(&table, Some(0)).await;
    bob.sit(&table, Some(1)).await;
    let mut both = play(vec![ann, bob], &table, 5).await;
    let (bob, ann) = (both.pop().expect("Bob"), both.pop().expect("Ann"));
    let id = ann.player_id.clone().expect("an id");
    let stored = eventually("the match to be stored, finished", PATIENCE, async || {
        let answer = http(server, "GET", &format!("/api/matches?player={id}"), None).await;
        let matches = answer.json()["matches"].as_array().cloned().unwrap_or_default();
        matches.into_iter().find(|m| m["finished"] == true)
    })
    .await;
    (ann, bob, stored)
}

/// The bundle holds the finished game as EGN; deleting needs the password
/// (not the session alone) and an account; once deleted, the account's
/// connection closes at once, its password and sessions let nobody in,
/// its seat reads "deleted player" in Bob's match, which stays whole, and
/// its profile has no rating left.
#[tokio::test]
async fn a_player_takes_their_games_and_deletes_the_account_with_its_password() {
    let server = TestServer::start().await;
    let (mut ann, bob, stored) = a_game_between_ann_and_bob(&server).await;
    let (ann_id, bob_id) = (ann.player_id.clone().expect("id"), bob.player_id.clone().expect("id"));
    let token = ann.token.clone().expect("a session");

    let games = bundle(&server, &token).await;
    assert_eq!(games["fileType"], "Euchre Game Notation bundle", "{games}");
    assert_eq!(games["player_id"], ann_id.as_str());
    let listed = games["games"].as_array().expect("games");
    assert_eq!(listed.len(), 1, "{games}");
    assert_eq!(listed[0]["fileType"], "Euchre Game Notation");
    assert_eq!(games["skipped"], json!([]), "{games}");
    assert!(games.get("next_cursor").is_none(), "one bundle holds it all: {games}");
    let bad = request(&server, "GET", "/api/accounts/me/games?cursor=nonsense", Some(&token), None);
    assert_eq!(bad.await.error(400), "bad_cursor");
    let anyone = http(&server, "GET", "/api/accounts/me/games", None).await;
    assert_eq!(anyone.error(401), "no_token");

    assert_eq!(delete(&server, None, Some(PASSWORD)).await.error(401), "no_token");
    assert_eq!(delete(&server, Some(&token), None).await.error(400), "bad_body");
    let stolen = delete(&server, Some(&token), Some("not her password")).await;
    assert_eq!(stolen.error(401), "bad_credentials");
    let guest = server.player("Cy").await;
    let as_guest = delete(&server, guest.token.as_deref(), Some(PASSWORD)).await;
    assert_eq!(as_guest.error(403), "not_an_account");

    let gone = delete(&server, Some(&token), Some(PASSWORD)).await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    let closed = tokio::time::timeout(Duration::from_secs(1), ann.close_code()).await;
    assert_eq!(closed.expect("Ann's connection closed within a second"), Some(4003));
    assert_eq!(log_in(&server, "Ann", PASSWORD).await.error(401), "bad_credentials");
    let again = Client::connect(&server.url()).await.try_hello("", Some(&token)).await;
    assert!(again.is_err(), "the session ended: {again:?}");
    assert_eq!(delete(&server, Some(&token), Some(PASSWORD)).await.status, 401);

    // Bob's match stays, whole, with Ann's seat renamed.
    let id = stored["id"].as_str().expect("a match id");
    let view = http(&server, "GET", &format!("/api/matches/{id}"), None).await;
    assert_eq!(view.status, 200, "{}", view.body);
    let view = view.json();
    let names: Vec<&str> = view["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names[..2], ["deleted player", "Bob"], "{view}");
    assert!(!view["hands"].as_array().expect("hands").is_empty());
    let egn = http(&server, "GET", &format!("/api/matches/{id}/egn"), None).await;
    assert_eq!(egn.status, 200, "{}", egn.body);
    let profile = http(&server, "GET", &format!("/api/players/{ann_id}"), None).await.json();
    assert_eq!(profile["name"], "deleted player", "{profile}");
    assert_eq!(profile["ratings"], json!([]), "{profile}");
    let bob_profile = http(&server, "GET", &format!("/api/players/{bob_id}"), None).await.json();
    assert_eq!(bob_profile["played"], 1, "{bob_profile}");
    server.stop().await;
}

/// A deleted account's name is held: no guest and no claim takes it while
/// the cooling-off lasts; once it is over, housekeeping frees it.
#[tokio::test]
async fn a_deleted_name_is_held_through_the_cooling_off_then_freed() {
    let held = TestServer::start().await;
    let ann = held.account("Ann").await;
    let gone = delete(&held, ann.token.as_deref(), Some(PASSWORD)).await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    let mut newcomer = Client::connect(&held.url()).await;
    let taken = newcomer.try_hello("ann", None).await;
    assert_eq!(taken.err().as_ref().and_then(|e| e.code()), Some("name_taken"));
    let guest = held.player("Annie").await;
    let body = json!({ "name": "Ann", "password": PASSWORD }).to_string();
    let claim =
        request(&held, "POST", "/api/accounts", guest.token.as_deref(), Some(body.as_bytes()));
    assert_eq!(claim.await.error(409), "name_taken");
    held.stop().await;

    let freed = TestServer::start_with(|settings| {
        settings.accounts.deleted_name_hold_days = 0;
        settings.accounts.purge_every_seconds = 1;
    })
    .await;
    let ann = freed.account("Ann").await;
    let gone = delete(&freed, ann.token.as_deref(), Some(PASSWORD)).await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    let newcomer = eventually("the name to be freed", PATIENCE, async || {
        let mut client = Client::connect(&freed.url()).await;
        client.try_hello("Ann", None).await.ok().map(|_| client)
    })
    .await;
    let token = newcomer.token.clone().expect("a guest token");
    let body = json!({ "name": "Ann", "password": "another horse" }).to_string();
    let claim = request(&freed, "POST", "/api/accounts", Some(&token), Some(body.as_bytes())).await;
    assert_eq!(claim.status, 201, "the name is an account's again: {}", claim.body);
    freed.stop().await;
}
