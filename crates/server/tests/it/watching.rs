//! Watching has bounds: a table takes so many spectators, and a connection
//! follows so many tables at once; leaving makes room again.

use euchre_protocol::{ClientMessage, Reply, ServerMessage, TableSettings};

use euchre_server::testing::eventually;

use crate::support::{Client, PATIENCE, Players, TestServer, error_code};

/// A `watch` of `table`: `Ok` once watching, or the error code.
async fn watch(client: &mut Client, table: &str) -> Result<(), String> {
    let id = client.next_id();
    let watch = ClientMessage::Watch { id, table: table.to_owned(), invite: None };
    match client.command(watch).await {
        ServerMessage::Ack { reply: Reply::Watching { .. }, .. } => Ok(()),
        other => Err(error_code(&other).map_or_else(|| format!("{other:?}"), str::to_owned)),
    }
}

async fn leave(client: &mut Client, table: &str) {
    let id = client.next_id();
    let answer = client.command(ClientMessage::Leave { id, table: table.to_owned() }).await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn a_table_takes_so_many_spectators_and_its_players_are_not_counted() {
    let server = TestServer::start_with(|settings| settings.limits.spectators_per_table = 2).await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    let mut first = server.player("First").await;
    let mut second = server.player("Second").await;
    let mut third = server.player("Third").await;
    assert_eq!(watch(&mut first, &table).await, Ok(()));
    assert_eq!(watch(&mut second, &table).await, Ok(()));
    assert_eq!(watch(&mut third, &table).await, Err("watch_limit".to_owned()));
    // A watcher watching again, and a seated player, take no more room.
    assert_eq!(watch(&mut second, &table).await, Ok(()));
    assert_eq!(watch(&mut ann, &table).await, Ok(()));
    leave(&mut first, &table).await;
    assert_eq!(watch(&mut third, &table).await, Ok(()), "a spectator left: room again");
    server.stop().await;
}

#[tokio::test]
async fn a_connection_follows_so_many_tables_until_it_leaves_one() {
    let server = TestServer::start_with(|settings| settings.limits.tables_per_connection = 3).await;
    let mut ann = server.player("Ann").await;
    let mut tables = Vec::new();
    for _ in 0..4 {
        tables.push(ann.create_table(TableSettings::default()).await);
    }
    let mut bob = server.player("Bob").await;
    for table in &tables[..3] {
        assert_eq!(watch(&mut bob, table).await, Ok(()));
    }
    assert_eq!(watch(&mut bob, &tables[3]).await, Err("watch_limit".to_owned()));
    assert_eq!(watch(&mut bob, &tables[1]).await, Ok(()), "one it follows already");
    leave(&mut bob, &tables[0]).await;
    assert_eq!(watch(&mut bob, &tables[3]).await, Ok(()), "it left one: room again");
    // Another connection of the same player has its own.
    let mut bob_again = Client::connect(&server.url()).await;
    bob_again.try_hello("Bob", bob.token.as_deref()).await.expect("welcome back");
    assert_eq!(watch(&mut bob_again, &tables[0]).await, Ok(()));
    server.stop().await;
}

#[tokio::test]
async fn a_table_that_closed_is_followed_no_more() {
    let server = TestServer::start_with(|settings| {
        settings.limits.tables_per_connection = 1;
        settings.timing.reconnect_grace_ms = 200;
        settings.timing.table_close_ms = 200;
    })
    .await;
    let mut ann = server.player("Ann").await;
    let first = ann.create_table(TableSettings::default()).await;
    let second = ann.create_table(TableSettings::default()).await;
    // Ann keeps the second table open by watching it; nobody is at the first.
    assert_eq!(watch(&mut ann, &second).await, Ok(()));
    // Bob sits at the first table here, then leaves it from another
    // connection: this one follows it still, until it closes.
    let mut bob = server.player("Bob").await;
    bob.sit(&first, Some(0)).await;
    let mut elsewhere = Client::connect(&server.url()).await;
    elsewhere.try_hello("Bob", bob.token.as_deref()).await.expect("welcome back");
    leave(&mut elsewhere, &first).await;
    drop(elsewhere);
    eventually("the first table to close and free Bob's place", PATIENCE, async || {
        watch(&mut bob, &second).await
    })
    .await;
    drop(ann);
    server.stop().await;
}
