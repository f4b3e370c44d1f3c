//! Nothing acknowledged is lost: the real server binary is killed with
//! SIGKILL in the middle of a hand, started again on the same data, and the
//! player takes back the seat with every acknowledged action in place; a
//! rated game's forfeit made before the kill still counts at its end.

use crate::support::binary::{Server, Stop};
use crate::support::http::request_at;
use crate::support::{Client, answer_id, play_to_the_end};
use euchre_engine::{Action, Card, Event};
use euchre_protocol::{
    ClientMessage, Reply, ServerMessage, TableEvent, TableNotice, TableSettings,
};

/// The server binary on `data`, with SQLite there.
fn start_server(data: &std::path::Path) -> Server {
    Server::start(data, &format!("sqlite://{}/euchre.db", data.display()), &[])
}

#[tokio::test]
async fn a_killed_server_resumes_its_tables_with_every_acknowledged_action() {
    let data = tempfile::tempdir().expect("a data folder");
    let server = start_server(data.path());
    let url = server.url();
    let mut ann = Client::connect(&url).await;
    ann.hello("Ann").await;
    let token = ann.token.clone().expect("a token");
    let table = ann
        .create_table(TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() })
        .await;
    ann.sit(&table, Some(0)).await;

    // Play (as the first legal card, making trump when asked) until Ann has
    // had at least one card acknowledged in the current hand.
    let mut acknowledged: Vec<Action> = Vec::new();
    let mut in_flight: Option<(u64, Action)> = None;
    let mut hand_cards: Vec<Card> = Vec::new();
    loop {
        let message = ann.recv().await;
        if let Some((id, action)) = in_flight
            && answer_id(&message) == Some(id)
        {
            assert!(matches!(message, ServerMessage::Ack { .. }), "{message:?}");
            acknowledged.push(action);
            in_flight = None;
            // Stop once a card of Ann's is acknowledged in a hand still going on.
            if let Action::Play { card } = action
                && hand_cards.contains(&card)
            {
                break;
            }
        }
        match message {
            ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } => match event {
                Event::HandDealt { .. } => hand_cards.clear(),
                Event::CardPlayed { card, .. } => hand_cards.push(card),
                _ => {}
            },
            ServerMessage::YourTurn { seq, actions, .. }
                if in_flight.is_none() && ann.prompt_stands(&table, seq) =>
            {
                let action = actions
                    .iter()
                    .find(|a| !matches!(a, Action::Pass | Action::Concede))
                    .copied()
                    .unwrap_or(actions[0]);
                let id = ann.next_id();
                ann.send(&ClientMessage::Act { id, table: table.clone(), action }).await;
                in_flight = Some((id, action));
            }
            _ => {}
        }
    }
    let Some(Action::Play { card: last_card }) = acknowledged.last().copied() else {
        unreachable!()
    };
    assert!(hand_cards.contains(&last_card));
    let last_seq = crate::support::last_seq(&ann).expect("Ann saw the table");

    // Kill it outright: no shutdown, no flush.
    let troubles_before = server.troubles();
    server.stop(Stop::Kill);
    drop(ann);

    let server = start_server(data.path());
    let url = server.url();
    let mut back = Client::connect(&url).await;
    back.try_hello("", Some(&token)).await.expect("the token survived");
    let id = back.next_id();
    let resume = ClientMessage::Resume { id, table: table.clone(), last_seq };
    let answer = back.command(resume).await;
    assert!(
        matches!(answer, ServerMessage::Ack { reply: Reply::Resumed { snapshot: true, .. }, .. }),
        "a restarted table resumes from a snapshot: {answer:?}"
    );
    let snapshot = back
        .log
        .iter()
        .find_map(|m| match m {
            ServerMessage::Snapshot { state, .. } => Some(state.clone()),
            _ => None,
        })
        .expect("a snapshot");
    assert_eq!(snapshot.your_seat, Some(0), "Ann has her seat back");
    let game = snapshot.game.expect("the game is back");
    let restored: Vec<Card> =
        game.tricks.iter().flat_map(|t| t.cards.iter().map(|(_, card)| *card)).collect();
    assert!(
        restored.starts_with(&hand_cards),
        "every card played before the crash is there: {hand_cards:?} vs {restored:?}; \
         acknowledged {acknowledged:?}; the restored game {game:?}; \
         warnings and errors before the kill {troubles_before:#?} and after {:#?}",
        server.troubles()
    );
    assert!(restored.contains(&last_card), "the acknowledged play survived");
    server.stop(Stop::Kill);
}

/// A rated player who leaves forfeits; the server is killed before the game
/// ends and started again; the three who stayed play it to its end, and the
/// leaver is still rated a loss (the game still rated though a bot now
/// holds the seat), and so is the partner who stayed.
#[tokio::test]
async fn a_forfeit_survives_a_killed_server() {
    let data = tempfile::tempdir().expect("a data folder");
    let server = start_server(data.path());
    let url = server.url();
    let mut players = Vec::new();
    for name in ["Ann", "Bob", "Cy", "Dee"] {
        let mut client = Client::connect(&url).await;
        client.hello(name).await;
        // An account: only accounts are rated.
        let token = client.token.clone().expect("a guest token");
        let body = serde_json::json!({ "name": name, "password": "correct horse" }).to_string();
        let claimed = request_at(
            server.address,
            "POST",
            "/api/accounts",
            Some(&token),
            Some(body.as_bytes()),
        );
        let claimed = claimed.await;
        assert_eq!(claimed.status, 201, "{}", claimed.body);
        client.token = claimed.json()["token"].as_str().map(str::to_owned);
        players.push(client);
    }
    let table = players[0].create_table(TableSettings::default()).await;
    for (seat, client) in players.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    let ann = players[0].player_id.clone().expect("an id");
    let id = players[0].next_id();
    let left = players[0].command(ClientMessage::Leave { id, table: table.clone() }).await;
    assert!(matches!(left, ServerMessage::Ack { .. }), "{left:?}");
    let tokens: Vec<String> =
        players.iter().skip(1).map(|client| client.token.clone().expect("a token")).collect();

    // Kill it outright: the forfeit was acknowledged, so it is on disk.
    server.stop(Stop::Kill);
    drop(players);

    let server = start_server(data.path());
    let url = server.url();
    let mut tasks = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        let mut client = Client::connect(&url).await;
        client.try_hello("", Some(token)).await.expect("the token survived");
        let id = client.next_id();
        let resume = ClientMessage::Resume { id, table: table.clone(), last_seq: 0 };
        let answer = client.command(resume).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
        tasks.push(tokio::spawn(play_to_the_end(client, table.clone(), 70 + index as u64)));
    }
    let mut stayed = Vec::new();
    for task in tasks {
        stayed.push(task.await.expect("a player finished"));
    }
    let rated = |message: &ServerMessage| match message {
        ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Rated { ratings, .. })),
            ..
        } => Some(ratings.clone()),
        _ => None,
    };
    let unrated = |message: &ServerMessage| {
        matches!(
            message,
            ServerMessage::Event {
                event: Some(TableEvent::Table(TableNotice::Unrated { .. })),
                ..
            }
        )
    };
    let message = stayed[0].recv_until(|m| rated(m).is_some() || unrated(m)).await;
    let ratings = rated(&message).unwrap_or_else(|| panic!("not rated: {message:?}"));
    let seats: Vec<u8> = ratings.iter().map(|r| r.seat).collect();
    assert_eq!(seats, vec![0, 1, 2, 3], "{ratings:?}");
    assert_eq!(ratings[0].player_id, ann);
    assert!(ratings[0].change < 0, "the leaver still loses: {ratings:?}");
    assert_eq!(ratings[2].change, ratings[0].change, "and so does Cy, the partner: {ratings:?}");
    assert!(ratings[1].change > 0 && ratings[3].change > 0, "the opponents win: {ratings:?}");
    server.stop(Stop::Kill);
}
