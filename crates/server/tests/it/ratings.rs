//! Ratings against a real server, on SQLite and on PostgreSQL: four
//! accounts play a whole rated game over WebSockets, every seat is told its
//! new rating, and the next game starts from it; tables with a bot, or set
//! up unrated, rate nothing. What keeps ratings honest (guests, forfeits,
//! timeouts, the daily cap) is in `rating_integrity`.

use crate::support::http::http;
use crate::support::{Client, PATIENCE, Players, TestServer, play_to_the_end};
use euchre_engine::Event;
use euchre_protocol::{
    ClientMessage, SeatRating, ServerMessage, TableEvent, TableNotice, TableSettings,
};
use euchre_server::config::DatabaseUrl;
use euchre_server::testing::eventually;

fn rated_notice(message: &ServerMessage) -> Option<Vec<SeatRating>> {
    match message {
        ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Rated { form, ratings })),
            ..
        } => {
            assert_eq!(form, "partnership");
            Some(ratings.clone())
        }
        _ => None,
    }
}

/// Four people play one game at `table` to its end; their clients, with
/// every message each received.
pub async fn play(clients: Vec<Client>, table: &str, seed: u64) -> Vec<Client> {
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(index, client)| {
            let table = table.to_owned();
            tokio::spawn(play_to_the_end(client, table, seed * 10 + index as u64))
        })
        .collect();
    let mut done = Vec::new();
    for task in tasks {
        done.push(task.await.expect("a player finished"));
    }
    done
}

/// The game's winning side, from a client's log.
pub fn winner(client: &Client) -> u8 {
    client
        .log
        .iter()
        .rev()
        .find_map(|message| match message {
            ServerMessage::Event {
                event: Some(TableEvent::Game(Event::GameWon { team, .. })),
                ..
            } => Some(team.0),
            _ => None,
        })
        .expect("the game was won")
}

/// A player's profile once the writer has stored their finished match.
pub async fn profile_when_played(server: &TestServer, id: &str) -> serde_json::Value {
    eventually("the match to be stored", PATIENCE, async || {
        let profile = http(server, "GET", &format!("/api/players/{id}"), None).await.json();
        (profile["played"] == 1).then_some(profile)
    })
    .await
}

async fn rated_game(server: &TestServer) {
    let names = ["Ann", "Bob", "Cy", "Dee"];
    let mut clients = Vec::new();
    // Accounts: only they are rated.
    for name in names {
        clients.push(server.account(name).await);
    }
    let table = clients[0].create_table(TableSettings::default()).await;
    for (seat, client) in clients.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    let mut clients = play(clients, &table, 1).await;
    let won = winner(&clients[0]);
    let mut first = Vec::new();
    for client in &mut clients {
        let message = client.recv_until(|m| rated_notice(m).is_some()).await;
        first.push(rated_notice(&message).expect("a rating notice"));
    }
    assert!(first.windows(2).all(|pair| pair[0] == pair[1]), "everyone hears the same");
    let ratings = &first[0];
    assert_eq!(ratings.len(), 4);
    for (seat, rating) in ratings.iter().enumerate() {
        assert_eq!(usize::from(rating.seat), seat);
        assert_eq!(Some(&rating.player_id), clients[seat].player_id.as_ref());
        // Four newcomers: the winners gain, the losers lose, by the same.
        let won_it = seat as u8 % 2 == won;
        assert_eq!(rating.change > 0, won_it, "{rating:?}");
        assert_eq!(rating.rating, 1500 + rating.change);
    }
    assert_eq!(ratings[0].change, -ratings[1].change);

    // The board: the four, the winners first; the profile: the record,
    // the rating and its history.
    let board = http(server, "GET", "/api/leaderboard?form=partnership&limit=10", None).await;
    assert_eq!(board.status, 200, "{}", board.body);
    let board = board.json();
    let places = board["places"].as_array().expect("places");
    let ranked: Vec<(&str, i64)> = places
        .iter()
        .map(|p| {
            (p["player"]["name"].as_str().expect("a name"), p["rating"].as_i64().expect("a rating"))
        })
        .collect();
    let winners: Vec<&str> =
        (0..4usize).filter(|&seat| seat as u8 % 2 == won).map(|seat| names[seat]).collect();
    let mut top: Vec<&str> = ranked.iter().take(2).map(|(name, _)| *name).collect();
    top.sort_unstable();
    assert_eq!((ranked.len(), top), (4, winners), "{ranked:?}");
    let ann_place = ranked.iter().find(|(name, _)| *name == "Ann").expect("Ann ranked");
    assert_eq!(ann_place.1, i64::from(ratings[0].rating));
    assert_eq!((places[0]["rank"].as_i64(), board["next_offset"].as_i64()), (Some(1), None));
    let page = http(server, "GET", "/api/leaderboard?limit=1", None).await.json();
    assert_eq!(
        (page["places"].as_array().map(Vec::len), page["next_offset"].as_i64()),
        (Some(1), Some(1))
    );
    let refused = http(server, "GET", "/api/leaderboard?form=poker", None).await;
    assert_eq!(refused.error(400), "bad_form");
    let ann_id = clients[0].player_id.clone().expect("an id");
    let profile = profile_when_played(server, &ann_id).await;
    assert_eq!(profile["win_rate"].as_f64(), Some(if won == 0 { 1.0 } else { 0.0 }));
    assert!(profile["time_played_ms"].as_i64().is_some_and(|ms| ms > 0), "{profile}");
    assert!(profile["hands_called"].as_u64() >= profile["hands_made"].as_u64());
    assert_eq!(profile["ratings"][0]["form"], "partnership");
    assert_eq!(profile["ratings"][0]["rating"], ratings[0].rating);
    assert_eq!(profile["rating_history"][0]["change"], ratings[0].change);

    // A rematch starts from those ratings.
    let id = clients[0].next_id();
    let rematch = clients[0].command(ClientMessage::Rematch { id, table: table.clone() }).await;
    assert!(matches!(rematch, ServerMessage::Ack { .. }), "{rematch:?}");
    let mut clients = play(clients, &table, 2).await;
    let message = clients[0].recv_until(|m| rated_notice(m).is_some()).await;
    let second = rated_notice(&message).expect("a rating notice");
    for (before, after) in ratings.iter().zip(&second) {
        assert_eq!(after.rating - after.change, before.rating, "{before:?} then {after:?}");
    }

    // With a bot, or set up unrated: a game, and no rating.
    let mut solo = server.player("Eve").await;
    let with_bot = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = solo.create_table(with_bot).await;
    solo.sit(&table, Some(0)).await;
    let solo = play_to_the_end(solo, table, 3).await;
    let mut unrated = Vec::new();
    // Other guests: Ann and Bob's names are claimed now.
    for name in names {
        unrated.push(server.player(&format!("{name} 2")).await);
    }
    let settings = TableSettings { rated: false, ..TableSettings::default() };
    let table = unrated[0].create_table(settings).await;
    for (seat, client) in unrated.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    let mut unrated = play(unrated, &table, 4).await;
    // A chat after the end: everything the table sends before it has arrived.
    for client in std::iter::once(solo).chain(unrated.drain(..1)) {
        let mut client = client;
        let table = client.log.iter().rev().find_map(|m| match m {
            ServerMessage::Event { table, .. } => Some(table.clone()),
            _ => None,
        });
        let id = client.next_id();
        let chat = ClientMessage::Chat { id, table: table.expect("a table"), text: "gg".into() };
        client.command(chat).await;
        assert!(!client.log.iter().any(|m| rated_notice(m).is_some()), "an unrated game was rated");
    }
}

#[tokio::test]
async fn a_rated_game_between_four_people_on_sqlite() {
    let server = TestServer::start().await;
    rated_game(&server).await;
    server.stop().await;
}

#[tokio::test]
async fn a_rated_game_between_four_people_on_postgres() {
    let Some(database) = euchre_testkit::postgres::fresh_database("ratings").await else { return };
    let server = TestServer::start_with(|settings| {
        settings.database_url = DatabaseUrl(euchre_testkit::postgres::database_url(&database));
    })
    .await;
    rated_game(&server).await;
    server.stop().await;
    euchre_testkit::postgres::drop_database(&database).await;
}
