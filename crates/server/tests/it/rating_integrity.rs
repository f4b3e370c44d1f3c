//! What keeps ratings honest, against a real server: guests are never
//! rated (a main cannot farm points off free guest alts), nor accounts
//! before the minimum; a partner who stays when the other forfeits loses
//! with the side (no throwaway partner shields a loss); a player who lets
//! turns run out forfeits (no rated game is held hostage); and two accounts
//! stop being rated against each other past the day's cap.

use crate::ratings::{play, profile_when_played};
use crate::support::http::http;
use crate::support::{Client, Players, TestServer, error_code, play_to_the_end};
use euchre_engine::{Event, Preset};
use euchre_protocol::{
    ClientMessage, LobbyQuery, Occupant, QuickPlayRequest, ServerMessage, TableEvent, TableNotice,
    TableSettings, UnratedReason,
};

/// The notice that ends a game at a rated table: `rated` or `unrated`.
fn end_notice(message: &ServerMessage) -> Option<TableNotice> {
    match message {
        ServerMessage::Event { event: Some(TableEvent::Table(notice)), .. }
            if matches!(notice, TableNotice::Rated { .. } | TableNotice::Unrated { .. }) =>
        {
            Some(notice.clone())
        }
        _ => None,
    }
}

async fn next_end_notice(client: &mut Client) -> TableNotice {
    let message = client.recv_until(|m| end_notice(m).is_some()).await;
    end_notice(&message).expect("a rated or unrated notice")
}

fn unrated_reason(notice: &TableNotice) -> Option<UnratedReason> {
    match notice {
        TableNotice::Unrated { reason, .. } => Some(*reason),
        _ => None,
    }
}

fn two_handed() -> TableSettings {
    TableSettings { preset: Preset::TwoHanded, ..TableSettings::default() }
}

async fn leave(client: &mut Client, table: &str) {
    let id = client.next_id();
    let left = client.command(ClientMessage::Leave { id, table: table.to_owned() }).await;
    assert!(matches!(left, ServerMessage::Ack { .. }), "{left:?}");
}

async fn quick_play(client: &mut Client, rated: bool) -> ServerMessage {
    let id = client.next_id();
    let request = QuickPlayRequest::new(Preset::TwoHanded, rated);
    client.command(ClientMessage::QuickPlay { id, request }).await
}

/// A main account hosts a rated table; a fresh guest alt sits and leaves
/// at once, a sure win by forfeit: the game is casual, and the main's
/// rating does not move. A guest's rated quick play is refused.
#[tokio::test]
async fn farming_with_guests_changes_no_rating() {
    let server = TestServer::start().await;
    let mut main = server.account("Main").await;
    let mut alt = server.player("Alt").await;
    let table = main.create_table(two_handed()).await;
    main.sit(&table, Some(0)).await;
    alt.sit(&table, Some(1)).await;
    leave(&mut alt, &table).await;
    let mut main = play_to_the_end(main, table, 1).await;
    let notice = next_end_notice(&mut main).await;
    assert_eq!(unrated_reason(&notice), Some(UnratedReason::Guest), "{notice:?}");
    let id = main.player_id.clone().expect("an id");
    let profile = profile_when_played(&server, &id).await;
    assert_eq!(profile["ratings"], serde_json::json!([]), "{profile}");

    let refused = quick_play(&mut alt, true).await;
    assert_eq!(error_code(&refused), Some("account_needed"), "{refused:?}");
    let casual = quick_play(&mut alt, false).await;
    assert!(matches!(casual, ServerMessage::Ack { .. }), "casual play is open: {casual:?}");
    server.stop().await;
}

/// Accounts play casual until the minimum: a fresh account's rated quick
/// play is refused, its first game at a rated table is not rated, and once
/// it has finished the games asked for, its games count.
#[tokio::test]
async fn new_accounts_are_rated_only_past_the_minimum() {
    let server = TestServer::start_with(|settings| settings.ratings.min_games = 1).await;
    let mut ann = server.account("Ann").await;
    let mut bob = server.account("Bob").await;
    let refused = quick_play(&mut ann, true).await;
    assert_eq!(error_code(&refused), Some("rated_play_locked"), "{refused:?}");

    let table = ann.create_table(two_handed()).await;
    ann.sit(&table, Some(0)).await;
    bob.sit(&table, Some(1)).await;
    let mut both = play(vec![ann, bob], &table, 2).await;
    let notice = next_end_notice(&mut both[0]).await;
    assert_eq!(unrated_reason(&notice), Some(UnratedReason::NewAccount), "{notice:?}");
    for client in &both {
        profile_when_played(&server, client.player_id.as_deref().expect("an id")).await;
    }
    let id = both[0].next_id();
    let rematch = both[0].command(ClientMessage::Rematch { id, table: table.clone() }).await;
    assert!(matches!(rematch, ServerMessage::Ack { .. }), "{rematch:?}");
    let mut both = play(both, &table, 3).await;
    let notice = next_end_notice(&mut both[0]).await;
    assert!(matches!(notice, TableNotice::Rated { .. }), "one game finished: rated {notice:?}");
    server.stop().await;
}

/// A losing player's partner (an alt, say) leaves: the partner's forfeit
/// is a loss for the whole side, the player who stayed included, as whole
/// as the leaver's; both opponents win.
#[tokio::test]
async fn a_partner_who_stays_when_the_other_forfeits_takes_the_loss() {
    let server = TestServer::start().await;
    let mut clients = Vec::new();
    for name in ["Ann", "Bob", "Cy", "Dee"] {
        clients.push(server.account(name).await);
    }
    let table = clients[0].create_table(TableSettings::default()).await;
    for (seat, client) in clients.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    let mut ann = clients.remove(0);
    leave(&mut ann, &table).await;
    let mut stayed = play(clients, &table, 5).await;
    let notice = next_end_notice(&mut stayed[0]).await;
    let TableNotice::Rated { ratings, .. } = notice else { panic!("not rated: {notice:?}") };
    let seats: Vec<u8> = ratings.iter().map(|r| r.seat).collect();
    assert_eq!(seats, vec![0, 1, 2, 3], "{ratings:?}");
    assert_eq!(Some(&ratings[0].player_id), ann.player_id.as_ref());
    assert!(ratings[0].change < 0, "the leaver loses: {ratings:?}");
    assert_eq!(ratings[2].change, ratings[0].change, "Cy, who stayed, loses as much: {ratings:?}");
    assert!(ratings[1].change > 0 && ratings[3].change > 0, "the opponents win: {ratings:?}");
    server.stop().await;
}

/// A rated table set up without a timer gets the rated one; a player who
/// never acts lets the turns run out, and the second time forfeits: a bot
/// takes the seat, the game ends, the staller loses.
#[tokio::test]
async fn a_player_who_lets_turns_run_out_forfeits_a_rated_game() {
    let server = TestServer::start_with(|settings| {
        settings.ratings.turn_seconds = 5;
        settings.ratings.timeouts_to_forfeit = 2;
    })
    .await;
    let mut ann = server.account("Ann").await;
    let mut bob = server.account("Bob").await;
    let table = ann.create_table(two_handed()).await;
    let page = ann.list_tables(LobbyQuery::default()).await.expect("a lobby page");
    let listed = page.tables.iter().find(|t| t.table == table).expect("the table is listed");
    assert_eq!(listed.turn_seconds, Some(5), "every rated table has a turn timer");
    ann.sit(&table, Some(0)).await;
    bob.sit(&table, Some(1)).await;
    // Bob never acts. Without the forfeit, Ann would wait on him turn after
    // turn; with it, a bot takes his seat after his second timeout.
    let mut ann = play_to_the_end(ann, table, 7).await;
    let bot_took_bob = ann.log.iter().any(|m| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(TableEvent::Table(TableNotice::SeatTaken {
                    seat: 1,
                    occupant: Occupant::Bot { .. }
                })),
                ..
            }
        )
    });
    assert!(bot_took_bob, "a bot took the staller's seat");
    let notice = next_end_notice(&mut ann).await;
    let TableNotice::Rated { ratings, .. } = notice else { panic!("not rated: {notice:?}") };
    assert!(ratings[1].change < 0 && ratings[0].change > 0, "the staller lost: {ratings:?}");
    drop(bob);
    server.stop().await;
}

/// Past the day's cap of rated games between the same two accounts, their
/// games are played and told they were not rated; nobody's rating moves.
#[tokio::test]
async fn the_same_two_accounts_stop_being_rated_after_the_daily_cap() {
    let server =
        TestServer::start_with(|settings| settings.ratings.daily_games_per_opponent = 1).await;
    let mut ann = server.account("Ann").await;
    let mut bob = server.account("Bob").await;
    let table = ann.create_table(two_handed()).await;
    ann.sit(&table, Some(0)).await;
    bob.sit(&table, Some(1)).await;
    let mut both = play(vec![ann, bob], &table, 11).await;
    let first = next_end_notice(&mut both[0]).await;
    let TableNotice::Rated { ratings, .. } = first else { panic!("not rated: {first:?}") };
    let id = both[0].next_id();
    let rematch = both[0].command(ClientMessage::Rematch { id, table: table.clone() }).await;
    assert!(matches!(rematch, ServerMessage::Ack { .. }), "{rematch:?}");
    let mut both = play(both, &table, 12).await;
    // Told while the game was played, not only at its end.
    let log = &both[0].log;
    let started = log.iter().rposition(|m| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(TableEvent::Table(TableNotice::GameStarted { .. })),
                ..
            }
        )
    });
    let won = log.iter().rposition(|m| {
        matches!(
            m,
            ServerMessage::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. }
        )
    });
    let (Some(started), Some(won)) = (started, won) else { panic!("a second game played") };
    let told = log[started..won].iter().filter_map(end_notice).next();
    let told = told.expect("the unrated notice while the game was played");
    assert_eq!(unrated_reason(&told), Some(UnratedReason::DailyCap), "{told:?}");
    let second = next_end_notice(&mut both[0]).await;
    assert_eq!(unrated_reason(&second), Some(UnratedReason::DailyCap), "{second:?}");
    let ann_id = both[0].player_id.clone().expect("an id");
    let profile = http(&server, "GET", &format!("/api/players/{ann_id}"), None).await.json();
    assert_eq!(profile["ratings"][0]["games"], 1, "{profile}");
    assert_eq!(profile["ratings"][0]["rating"], ratings[0].rating, "{profile}");
    server.stop().await;
}
