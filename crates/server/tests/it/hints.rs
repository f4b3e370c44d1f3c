//! Hints and reviews: the expert bot's choice for the player's seat at a
//! practice table (every other seat a bot), and a finished hand's biggest
//! mistake; both refused wherever another person plays.

use euchre_analysis::Mark;
use euchre_engine::Event;
use euchre_protocol::{ClientMessage, Reply, ServerMessage, TableSettings};

use crate::support::{Client, Players, TestServer, error_code, pending_turn, play_until};

/// Ann alone with three bots, at her first turn: her client and the table.
async fn at_practice_table(server: &TestServer) -> (Client, String) {
    let mut ann = server.player("Ann").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..Default::default() };
    let table = ann.create_table(settings).await;
    ann.sit(&table, Some(0)).await;
    ann.recv_until(|m| matches!(m, ServerMessage::YourTurn { .. })).await;
    (ann, table)
}

async fn ask_hint(client: &mut Client, table: &str) -> ServerMessage {
    let id = client.next_id();
    client.command(ClientMessage::Hint { id, table: table.to_owned() }).await
}

#[tokio::test]
async fn a_practice_table_answers_a_hint_with_a_legal_action_and_leaves_the_turn_standing() {
    let server = TestServer::start().await;
    let (mut ann, table) = at_practice_table(&server).await;
    let (seq, actions) = pending_turn(&ann).expect("Ann's turn");

    let answer = ask_hint(&mut ann, &table).await;
    let ServerMessage::Ack { reply: Reply::Hint { table: hinted, action, why }, .. } = answer
    else {
        panic!("expected a hint, got {answer:?}");
    };
    assert_eq!(hinted, table);
    assert!(actions.contains(&action), "{action:?} is not among {actions:?}");
    assert!(why.starts_with("The expert bot would"), "{why}");
    // A hint takes nothing: the same prompt still stands.
    assert_eq!(pending_turn(&ann).map(|(seq, _)| seq), Some(seq));
    // One hint a decision.
    assert_eq!(error_code(&ask_hint(&mut ann, &table).await), Some("bad_request"));

    server.stop().await;
}

#[tokio::test]
async fn a_hint_is_refused_where_another_person_plays() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let mut bob = server.player("Bob").await;
    // Casual, two bots: a practice table but for Bob.
    let settings = TableSettings { bot_seats: vec![2, 3], rated: false, ..Default::default() };
    let table = ann.create_table(settings).await;
    ann.sit(&table, Some(0)).await;
    // The table is full: the game starts.
    bob.sit(&table, Some(1)).await;
    ann.recv_until(|m| format!("{m:?}").contains("GameStarted")).await;

    for player in [&mut ann, &mut bob] {
        let answer = ask_hint(player, &table).await;
        assert_eq!(error_code(&answer), Some("hint_not_allowed"), "{answer:?}");
        let answer = ask_review(player, &table, 0).await;
        assert_eq!(error_code(&answer), Some("hint_not_allowed"), "{answer:?}");
    }
    // Nobody seated here: not a hint either.
    let mut cat = server.player("Cat").await;
    assert_eq!(error_code(&ask_hint(&mut cat, &table).await), Some("not_seated"));

    server.stop().await;
}

async fn ask_review(client: &mut Client, table: &str, hand: u32) -> ServerMessage {
    let id = client.next_id();
    client.command(ClientMessage::Review { id, table: table.to_owned(), hand }).await
}

#[tokio::test]
async fn a_practice_table_reviews_a_finished_hand_once() {
    let server = TestServer::start().await;
    let (mut ann, table) = at_practice_table(&server).await;
    // Not over yet: nothing to review.
    assert_eq!(error_code(&ask_review(&mut ann, &table, 0).await), Some("bad_request"));
    // Ann plays the first hand at random (a careless player).
    let mut ann =
        play_until(ann, table.clone(), 7, |event| matches!(event, Event::HandEnded { .. })).await;

    let answer = ask_review(&mut ann, &table, 0).await;
    let ServerMessage::Ack { reply: Reply::Review { table: reviewed, hand, mistake }, .. } = answer
    else {
        panic!("expected a review, got {answer:?}");
    };
    assert_eq!((reviewed.as_str(), hand), (table.as_str(), 0));
    if let Some(mistake) = mistake {
        assert_ne!(mistake.chosen, mistake.better);
        assert!(mistake.points_lost >= 0.25, "{mistake:?}");
        assert!(!matches!(mistake.mark, Mark::Best | Mark::Good), "{mistake:?}");
    }
    // One review a hand.
    assert_eq!(error_code(&ask_review(&mut ann, &table, 0).await), Some("bad_request"));
    server.stop().await;
}
