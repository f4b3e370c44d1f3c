//! Tournaments in the real `euchre-tui` in tmux, against the real server:
//! Tess lists a progressive night an account organises, registers, sees
//! is taken to her table as round one begins, then sees the standings and
//! opens that table again from the tournament's page.

use std::time::Duration;

use euchre_client::{Client, Config, HttpClient};
use euchre_server::testing::{TestServer, eventually};
use serde_json::json;

use crate::terminal::{Tmux, account, command_line, have_tmux};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_registers_and_follows_a_tournament_in_tmux() {
    if !have_tmux() {
        return;
    }
    let server = TestServer::start().await;
    let url = server.url();
    let (organiser, _) = account(&url, "Olive").await;
    let http = reqwest::Client::builder().no_proxy().build().expect("a client");
    let base = format!("http://{}", server.address);
    let spec = json!({
        "name": "Friday Night", "format": "progressive", "preset": "standard",
        "rounds": 1, "starts_in_seconds": 3600,
    });
    let created = http
        .post(format!("{base}/api/tournaments"))
        .bearer_auth(&organiser)
        .header("content-type", "application/json")
        .body(spec.to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(created.status(), 201);
    let created: serde_json::Value =
        serde_json::from_str(&created.text().await.expect("a body")).expect("JSON");
    let id = created["id"].as_str().expect("an id").to_owned();
    // Three others register through the client library, and stay
    // connected (a player not connected at the start is absent).
    let api = HttpClient::new(&url).expect("the API's address");
    let mut others = Vec::new();
    for name in ["Pat", "Sam", "Val"] {
        let (client, updates) = Client::connect(Config::new(url.clone(), name)).await.expect("in");
        api.register(&id, &client.identity().token).await.expect("registered");
        others.push((client, updates));
    }

    // The list is read from the database, which the journal feeds a moment later.
    eventually("the list to hold the three entries", Duration::from_secs(15), async || {
        let list = api.tournaments().await.map_err(|error| error.to_string())?;
        let listed = list.tournaments.iter().find(|listed| listed.id == id);
        if listed.is_some_and(|listed| listed.players == 3) {
            Ok(())
        } else {
            Err(format!("{list:?}"))
        }
    })
    .await;

    let config = tempfile::tempdir().expect("a config folder");
    let tmux = Tmux::new("tournament");
    let binary = env!("CARGO_BIN_EXE_euchre-tui");
    tmux.start("cup", &command_line(binary, &url, config.path()));
    tmux.wait_for("cup", "t tournaments").await;
    tmux.keys("cup", "t");
    let list = tmux.wait_for("cup", "Friday Night").await;
    println!("the list:\n{list}");
    assert!(list.contains("progressive"), "{list}");
    assert!(list.contains("registering"), "{list}");
    assert!(list.contains("3/64"), "{list}");
    tmux.keys("cup", "Enter");
    tmux.wait_for("cup", "You are not registered: e registers.").await;
    tmux.keys("cup", "e");
    let entered = tmux.wait_for("cup", "You are registered: w withdraws.").await;
    println!("registered:\n{entered}");
    assert!(entered.contains("Tess"), "among the entries: {entered}");
    assert!(entered.contains("4/64 players"), "{entered}");

    // The organiser starts it: the round's notice takes Tess to her table
    // at once, from the tournament's page.
    let started = http
        .post(format!("{base}/api/tournaments/{id}/start"))
        .bearer_auth(&organiser)
        .send()
        .await
        .expect("answered");
    assert_eq!(started.status(), 204);
    let table = tmux.wait_for("cup", "Tess (you)").await;
    println!("her table, opened by the round:\n{table}");
    assert!(!table.contains("h hint"), "no hint at a tournament's table: {table}");
    // She quits and comes back (as Tess: the client kept her token): the
    // tournament's page, fetched again every few seconds, shows the
    // standings and offers her table again.
    tmux.keys("cup", "q");
    eventually("the client to quit", Duration::from_secs(15), async || {
        if tmux.alive("cup") { Err("still running".to_owned()) } else { Ok(()) }
    })
    .await;
    tmux.start("cup", &command_line(binary, &url, config.path()));
    tmux.wait_for("cup", "t tournaments").await;
    tmux.keys("cup", "t");
    tmux.wait_for("cup", "Friday Night").await;
    tmux.keys("cup", "Enter");
    let page = tmux.wait_for("cup", "Round 1 seats you at table 1: o opens it.").await;
    println!("the tournament:\n{page}");
    assert!(page.contains("Standings"), "{page}");
    for name in ["Tess", "Pat", "Sam", "Val"] {
        assert!(page.contains(name), "{name} in the standings: {page}");
    }
    assert!(page.contains("Round 1 (in play)"), "{page}");
    tmux.keys("cup", "o");
    tmux.wait_for("cup", "Tess (you)").await;
    tmux.keys("cup", "q");

    for (client, _) in others {
        client.close().await;
    }
    drop(tmux);
    server.stop().await;
}
