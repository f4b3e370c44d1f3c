//! The data folder holds everything by default: the journal and the SQLite
//! file. Two servers started in one folder with different `--data-dir`
//! keep separate databases; a data folder laid out by an older version
//! (its journal there, its database at `data/euchre.db`) goes on using
//! that database, with a warning, rather than starting on an empty one.

use std::path::Path;

use crate::support::Client;
use crate::support::binary::{Server, Stop};
use crate::support::http::request_at;

/// Claims `name` on `server` as an account: the HTTP status of the claim
/// (201 made), or 409 when the database already has the name (a guest may
/// not even say hello under it).
async fn claim(server: &Server, name: &str) -> u16 {
    let mut client = Client::connect(&server.url()).await;
    if client.try_hello(name, None).await.is_err() {
        return 409;
    }
    let token = client.token.clone().expect("a guest token");
    let body = serde_json::json!({ "name": name, "password": "correct horse" }).to_string();
    let answer =
        request_at(server.address, "POST", "/api/accounts", Some(&token), Some(body.as_bytes()))
            .await;
    answer.status
}

#[tokio::test]
async fn two_servers_with_their_own_data_folders_keep_separate_databases() {
    let working = tempfile::tempdir().expect("a working folder");
    let first = Server::start_in(working.path(), Path::new("first"), &[]);
    let second = Server::start_in(working.path(), Path::new("second"), &[]);
    // One name, claimed on each: a shared database would refuse the second.
    assert_eq!(claim(&first, "Ann").await, 201);
    assert_eq!(claim(&second, "Ann").await, 201, "the second server's database is its own");
    first.stop(Stop::Term);
    second.stop(Stop::Term);
    for folder in ["first", "second"] {
        let data = working.path().join(folder);
        assert!(data.join("euchre.db").is_file(), "{folder}/euchre.db");
        assert!(data.join("journal").is_dir(), "{folder}/journal");
    }
    assert!(!working.path().join("data").exists(), "nothing is kept in ./data");
}

#[tokio::test]
async fn an_older_layout_keeps_its_database_and_says_how_to_move_it() {
    let working = tempfile::tempdir().expect("a working folder");
    // As an older version ran with --data-dir old: the journal in old/,
    // the database in ./data/euchre.db.
    std::fs::create_dir(working.path().join("data")).expect("./data");
    let older = Server::start_in(
        working.path(),
        Path::new("old"),
        &[("DATABASE_URL", "sqlite://data/euchre.db")],
    );
    assert_eq!(claim(&older, "Bea").await, 201);
    older.stop(Stop::Term);
    // This version, with the same flag: the history is still there.
    let upgraded = Server::start_in(working.path(), Path::new("old"), &[]);
    assert_eq!(claim(&upgraded, "Bea").await, 409, "the older database is the one in use");
    let warned = upgraded.logged("WARN", "where older versions kept it");
    assert_eq!(warned.len(), 1, "one warning at the start");
    let message = warned[0]["fields"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("old/euchre.db"), "{message}");
    upgraded.stop(Stop::Term);
    assert!(!working.path().join("old/euchre.db").exists(), "no second, empty database");
    // A fresh data folder beside it gets a database of its own.
    let fresh = Server::start_in(working.path(), Path::new("fresh"), &[]);
    assert_eq!(claim(&fresh, "Bea").await, 201);
    assert!(fresh.logged("WARN", "where older versions kept it").is_empty());
    fresh.stop(Stop::Term);
}
