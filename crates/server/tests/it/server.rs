//! The server over real sockets on an ephemeral port: whole games, seq
//! numbering, reconnection, errors, abuse, and a leak audit of every frame.

use std::collections::HashSet;
use std::time::Duration;

use crate::support::{
    Client, PATIENCE, Players, TestServer, answer_id, cards_in, error_code, last_seq, pending_turn,
    pick, play_to_the_end,
};
use euchre_engine::{Action, CardSet, Event, Preset, Seat, fairness};
use euchre_protocol::{
    ClientMessage, LOBBY_PAGE_MAX, LobbyFilter, LobbyQuery, Occupant, PROTOCOL_VERSION,
    QuickPlayEndReason, QuickPlayRequest, Reply, ServerMessage, TableEvent, TableNotice,
    TableSettings, TableStatus, close,
};
use euchre_server::testing::eventually;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The seqs of a client's table events, checked to run without a gap or a
/// repeat from its first snapshot on.
fn assert_gapless(client: &Client) {
    let mut expected = None;
    for message in &client.log {
        match message {
            ServerMessage::Snapshot { seq, .. } if expected.is_none() => expected = Some(seq + 1),
            ServerMessage::Event { seq, .. } => {
                if let Some(next) = expected {
                    assert_eq!(*seq, next, "event seqs must run on without a gap");
                }
                expected = Some(seq + 1);
            }
            _ => {}
        }
    }
    assert!(expected.is_some(), "the client saw the table");
}

fn settings(preset: Preset, bot_seats: Vec<u8>) -> TableSettings {
    TableSettings { preset, bot_seats, ..TableSettings::default() }
}

#[tokio::test]
async fn one_player_and_three_bots_play_a_whole_game() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    assert_eq!(ann.sit(&table, Some(0)).await, 0);
    let ann = play_to_the_end(ann, table, 1).await;
    assert_gapless(&ann);
    audit_leaks(&ann, Some(0));
    server.stop().await;
}

#[tokio::test]
async fn four_players_play_whole_games_under_several_presets() {
    let server = TestServer::start().await;
    let presets = [Preset::Standard, Preset::StickTheDealer, Preset::Tournament, Preset::Online];
    for (round, preset) in presets.into_iter().enumerate() {
        people_play_a_whole_game(&server, preset, round as u64 * 4).await;
    }
    server.stop().await;
}

/// The two- and three-handed forms: each seat a person, with a spectator,
/// and one person against bots; seats come from the rules.
const SMALL_FORMS: [Preset; 4] =
    [Preset::ThreeHanded, Preset::Cutthroat, Preset::TwoHanded, Preset::TwoHandedPlain];

#[tokio::test]
async fn every_small_form_plays_to_the_end_with_people_in_every_seat() {
    let server = TestServer::start().await;
    for (round, preset) in SMALL_FORMS.into_iter().enumerate() {
        people_play_a_whole_game(&server, preset, 50 + round as u64 * 4).await;
    }
    server.stop().await;
}

/// A table of `preset` with a person in every seat its rules have, and a
/// spectator: one more person finds it full; the game is played to the end;
/// every receiver's frames run without a gap and leak nothing, and every
/// score has one entry per side.
async fn people_play_a_whole_game(server: &TestServer, preset: Preset, seed: u64) {
    let players = usize::from(preset.rules().players);
    let mut host = server.player("Host").await;
    let table = host.create_table(settings(preset, vec![])).await;
    let mut spectator = server.player("Watcher").await;
    let id = spectator.next_id();
    let watch = ClientMessage::Watch { id, table: table.clone(), invite: None };
    assert!(matches!(spectator.command(watch).await, ServerMessage::Ack { .. }));
    let mut people = vec![host];
    for name in ["B", "C", "D"].into_iter().take(players - 1) {
        people.push(server.player(name).await);
    }
    for (seat, player) in people.iter_mut().enumerate() {
        assert_eq!(player.sit(&table, None).await, seat as u8);
    }
    let mut late = server.player("Late").await;
    let id = late.next_id();
    let sit = ClientMessage::Sit { id, table: table.clone(), seat: None, invite: None };
    assert_eq!(error_code(&late.command(sit).await), Some("table_full"), "{preset:?}");
    let tasks: Vec<_> = people
        .into_iter()
        .enumerate()
        .map(|(seat, p)| tokio::spawn(play_to_the_end(p, table.clone(), seed + seat as u64)))
        .collect();
    let spectator = tokio::spawn(watch_to_the_end(spectator));
    for (seat, task) in tasks.into_iter().enumerate() {
        let client = task.await.expect("the player finished");
        assert_gapless(&client);
        audit_leaks(&client, Some(seat as u8));
        assert_scores_per_side(&client, preset);
    }
    let spectator = spectator.await.expect("the spectator finished");
    assert_gapless(&spectator);
    audit_leaks(&spectator, None);
}

#[tokio::test]
async fn every_small_form_plays_to_the_end_against_bots() {
    let server = TestServer::start().await;
    for (round, preset) in SMALL_FORMS.into_iter().enumerate() {
        let mut ann = server.player("Ann").await;
        let bots = (1..preset.rules().players).collect();
        let table = ann.create_table(settings(preset, bots)).await;
        assert_eq!(ann.sit(&table, None).await, 0);
        let ann = play_to_the_end(ann, table, 100 + round as u64).await;
        assert_gapless(&ann);
        audit_leaks(&ann, Some(0));
        assert_scores_per_side(&ann, preset);
    }
    server.stop().await;
}

#[tokio::test]
async fn seats_beyond_the_form_are_refused() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let id = ann.next_id();
    let bad_bots =
        ClientMessage::CreateTable { id, settings: settings(Preset::Cutthroat, vec![3]) };
    let answer = ann.command(bad_bots).await;
    assert_eq!(error_code(&answer), Some("bad_settings"));
    let table = ann.create_table(settings(Preset::TwoHandedPlain, vec![])).await;
    let id = ann.next_id();
    let sit = ClientMessage::Sit { id, table: table.clone(), seat: Some(2), invite: None };
    assert_eq!(error_code(&ann.command(sit).await), Some("no_such_seat"));
    // Options that need partners are refused by name.
    let mut partnerless = settings(Preset::Cutthroat, vec![]);
    partnerless.rules = serde_json::json!({"defend_alone": true}).as_object().cloned();
    let id = ann.next_id();
    let answer = ann.command(ClientMessage::CreateTable { id, settings: partnerless }).await;
    assert_eq!(error_code(&answer), Some("bad_settings"));
    server.stop().await;
}

/// Every score a client was sent has one entry per side: two partnerships
/// in the four-handed game, one per player otherwise; the game's winner
/// reached the target.
fn assert_scores_per_side(client: &Client, preset: Preset) {
    let rules = preset.rules();
    let sides = usize::from(rules.teams());
    let mut won = false;
    for message in &client.log {
        if let ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } = message {
            match event {
                Event::HandEnded { scores, .. } => assert_eq!(scores.len(), sides),
                Event::GameWon { team, scores } => {
                    assert_eq!(scores.len(), sides);
                    assert!(scores[*team] >= u16::from(rules.points_to_win), "{scores:?}");
                    won = true;
                }
                _ => {}
            }
        }
    }
    assert!(won, "{preset:?}: the game was won");
}

async fn watch_to_the_end(mut client: Client) -> Client {
    loop {
        if let ServerMessage::Event {
            event: Some(TableEvent::Game(Event::GameWon { .. })), ..
        } = client.recv().await
        {
            return client;
        }
    }
}

/// Checks every frame a receiver got for cards it may not know. A receiver
/// learns its own dealt hand, the up-card, cards played or shown in a claim,
/// and (as dealer) its own discard; nothing else may ever appear until the
/// hand has ended, when the deal's reveal shows every card, and must open
/// the commitment the receiver was sent before the hand's first bid.
fn audit_leaks(client: &Client, seat: Option<u8>) {
    let mut known = CardSet::EMPTY;
    let (mut ended, mut commitment) = (false, None);
    for message in &client.log {
        let mut learns = CardSet::EMPTY;
        match message {
            ServerMessage::Event { event: Some(TableEvent::Table(notice)), .. } => match notice {
                TableNotice::DealCommitted { commitment: sent, .. } => commitment = Some(*sent),
                TableNotice::DealRevealed { deck, salt, .. } => {
                    assert!(ended, "a deal revealed to {seat:?} before its hand ended");
                    let sent = commitment.take().expect("a commitment before the reveal");
                    assert_eq!(fairness::commit(deck, salt), sent, "the reveal opens it");
                    learns = deck.iter().copied().collect();
                }
                _ => {}
            },
            ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } => match event {
                Event::HandDealt { .. } => (ended, commitment) = (false, None),
                Event::HandEnded { .. } => ended = true,
                Event::Passed { .. } | Event::TrumpMade { .. } | Event::CardPlayed { .. } => {
                    assert!(commitment.is_some(), "{event:?} before the deal's commitment");
                }
                _ => {}
            },
            ServerMessage::Snapshot { state, .. } => commitment = state.deal_commitment,
            _ => {}
        }
        if let ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } = message {
            match *event {
                Event::HandDealt { up_card, hands, .. } => {
                    known = CardSet::single(up_card);
                    if let Some(seat) = seat {
                        learns = hands.get(usize::from(seat)).unwrap_or_default();
                    }
                    for (index, hand) in hands.iter().enumerate() {
                        if Some(index as u8) != seat {
                            assert!(hand.is_none(), "seat {index}'s hand was sent to {seat:?}");
                        }
                    }
                }
                Event::CardPlayed { card, .. }
                | Event::UpCardPickedUp { card, .. }
                | Event::UpCardTurnedDown { card } => learns.insert(card),
                Event::Claimed { cards, .. } => learns = cards,
                Event::DummyTaken { seat: by, cards } => {
                    if Some(by.0) != seat {
                        assert!(cards.is_none(), "the dummy was shown to {seat:?}");
                    }
                    learns = cards.unwrap_or_default();
                }
                Event::Discarded { seat: by, card } => {
                    if Some(by.0) != seat {
                        assert!(card.is_none(), "a discard was shown to {seat:?}");
                    }
                    if let Some(card) = card {
                        learns.insert(card);
                    }
                }
                _ => {}
            }
        }
        if let ServerMessage::Snapshot { state, .. } = message
            && let Some(game) = &state.game
        {
            learns = learns.union(CardSet::single(game.up_card));
            learns = learns.union(game.hand.iter().flatten().copied().collect());
        }
        known = known.union(learns);
        for card in cards_in(message) {
            assert!(known.contains(card), "{card} reached {seat:?} in {message:?}");
        }
    }
}

#[tokio::test]
async fn a_player_who_reconnects_resumes_without_missing_or_repeating_an_event() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    ann.sit(&table, Some(0)).await;
    // Play a few turns, then drop the connection in the middle of the hand.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut last_seq = last_seq(&ann).unwrap_or_default();
    let mut turns = 0;
    if let Some((_, actions)) = pending_turn(&ann) {
        turns += 1;
        let id = ann.next_id();
        let action = pick(&actions, &mut rng);
        ann.send(&ClientMessage::Act { id, table: table.clone(), action }).await;
    }
    while turns < 3 {
        match ann.recv().await {
            ServerMessage::Event { seq, .. } | ServerMessage::Snapshot { seq, .. } => {
                last_seq = seq
            }
            ServerMessage::YourTurn { seq, actions, .. } if seq == last_seq => {
                turns += 1;
                let id = ann.next_id();
                let action = pick(&actions, &mut rng);
                ann.send(&ClientMessage::Act { id, table: table.clone(), action }).await;
            }
            _ => {}
        }
    }
    let token = ann.token.clone().expect("a token");
    let seen: Vec<u64> = event_seqs(&ann);
    drop(ann);

    let mut back = Client::connect(&server.url()).await;
    let id = back.next_id();
    let hello = ClientMessage::Hello {
        id,
        protocol_version: PROTOCOL_VERSION,
        token: Some(token),
        name: None,
    };
    assert!(matches!(back.command(hello).await, ServerMessage::Welcome { .. }));
    let last = *seen.last().expect("events were seen");
    let id = back.next_id();
    let resume = ClientMessage::Resume { id, table: table.clone(), last_seq: last };
    let answer = back.command(resume).await;
    assert!(
        matches!(answer, ServerMessage::Ack { reply: Reply::Resumed { snapshot: false, .. }, .. }),
        "{answer:?}"
    );
    let resumed = event_seqs(&back);
    assert!(resumed.first().is_none_or(|first| *first == last + 1), "{resumed:?} after {last}");
    // And the game plays on to the end from the new connection.
    let back = play_to_the_end(back, table, 9).await;
    let mut all: Vec<u64> = seen;
    all.extend(event_seqs(&back));
    let distinct: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(distinct.len(), all.len(), "no event twice");
    assert!(all.windows(2).all(|w| w[1] == w[0] + 1), "no event missed");
    server.stop().await;
}

fn event_seqs(client: &Client) -> Vec<u64> {
    client
        .log
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Event { seq, .. } => Some(*seq),
            _ => None,
        })
        .collect()
}

/// A fresh snapshot of the table as `client` sees it.
async fn snapshot(client: &mut Client, table: &str) -> ServerMessage {
    let id = client.next_id();
    client.send(&ClientMessage::Watch { id, table: table.to_owned(), invite: None }).await;
    let snapshot = client.recv_until(|m| matches!(m, ServerMessage::Snapshot { .. })).await;
    client.recv_until(|m| answer_id(m) == Some(id)).await;
    snapshot
}

/// Each bot seat plays at the level chosen for it, the others at the
/// table's; a level nobody knows, or a seat that is not a bot seat, is
/// refused.
/// Each seat's bot level, `None` where no bot sits.
fn bot_levels(state: &euchre_protocol::TableState) -> Vec<Option<String>> {
    state
        .seats
        .iter()
        .map(|seat| match seat {
            Some(euchre_protocol::Occupant::Bot { bot }) => Some(bot.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn bot_levels_are_chosen_seat_by_seat() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let seat_bot = |seat: u8, bot: &str| euchre_protocol::SeatBot { seat, bot: bot.to_owned() };
    let chosen = TableSettings {
        bot: "hard".to_owned(),
        seat_bots: vec![seat_bot(1, "easy"), seat_bot(3, "naive")],
        ..settings(Preset::Standard, vec![1, 2, 3])
    };
    let expert = TableSettings {
        bot: "expert".to_owned(),
        seat_bots: vec![seat_bot(2, "hard")],
        ..settings(Preset::Standard, vec![1, 2, 3])
    };
    let table = ann.create_table(chosen).await;
    let ServerMessage::Snapshot { state, .. } = snapshot(&mut ann, &table).await else {
        unreachable!()
    };
    let bots = bot_levels(&state);
    let expected = [None, Some("basic"), Some("hard"), Some("naive")];
    assert_eq!(bots, expected.map(|bot| bot.map(str::to_owned)));
    // The expert level, the table's and a seat's.
    let table = ann.create_table(expert).await;
    let ServerMessage::Snapshot { state, .. } = snapshot(&mut ann, &table).await else {
        unreachable!()
    };
    let bots = bot_levels(&state);
    let expected = [None, Some("expert"), Some("hard"), Some("expert")];
    assert_eq!(bots, expected.map(|bot| bot.map(str::to_owned)));
    for wrong in [
        vec![seat_bot(0, "hard")],
        vec![seat_bot(1, "genius")],
        vec![seat_bot(1, "hard"), seat_bot(1, "medium")],
    ] {
        let id = ann.next_id();
        let settings =
            TableSettings { seat_bots: wrong, ..settings(Preset::Standard, vec![1, 2, 3]) };
        let refused = ann.command(ClientMessage::CreateTable { id, settings }).await;
        assert_eq!(error_code(&refused), Some("bad_settings"));
    }
    server.stop().await;
}

#[tokio::test]
async fn rule_and_protocol_errors_leave_the_table_unchanged() {
    let mut config = euchre_server::Settings::default();
    config.timing.bot_delay_ms = 60_000; // bots wait: the table holds still
    let server = TestServer::with_settings(config).await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(settings(Preset::Standard, vec![])).await;
    let mut others = Vec::new();
    for (seat, name) in ["Bob", "Cy", "Di"].into_iter().enumerate() {
        let mut player = server.player(name).await;
        player.sit(&table, Some(seat as u8 + 1)).await;
        others.push(player);
    }
    ann.sit(&table, Some(0)).await;
    // A rated table of guests says, a moment after the game starts, that
    // it will not count: that notice first, so that it falls in no window.
    ann.recv_until(|m| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(euchre_protocol::TableEvent::Table(
                    euchre_protocol::TableNotice::Unrated { .. }
                )),
                ..
            }
        )
    })
    .await;
    let before = snapshot(&mut ann, &table).await;
    let ServerMessage::Snapshot { state, .. } = &before else { unreachable!() };
    let game = state.game.as_ref().expect("the game started when the table filled");
    let turn = game.turn.expect("someone is to act");
    let not_turn = Seat((turn.0 + 1) % 4);
    // Someone who is not at the table, to meet the seat and membership errors.
    let outsider = 4;
    let table_id = table.clone();
    let cases: Vec<(usize, ClientMessage, &str)> = vec![
        (not_turn.index(), act_message(&table_id, Action::Pass), "not_your_turn"),
        (
            turn.index(),
            act_message(&table_id, Action::Play { card: "Jc".parse().expect("card") }),
            "not_now",
        ),
        (
            turn.index(),
            act_message(&table_id, Action::Discard { card: "Jc".parse().expect("card") }),
            "not_now",
        ),
        (turn.index(), act_message(&table_id, Action::Claim), "not_now"),
        (turn.index(), act_message("nope", Action::Pass), "no_such_table"),
        // Seat 1 (Bob) is not the host, whoever is to act.
        (1, ClientMessage::Start { id: 0, table: table_id.clone() }, "not_host"),
        (
            turn.index(),
            ClientMessage::Sit { id: 0, table: table_id.clone(), seat: None, invite: None },
            "already_seated",
        ),
        (
            turn.index(),
            ClientMessage::Chat { id: 0, table: table_id.clone(), text: "  ".into() },
            "bad_chat",
        ),
        (
            turn.index(),
            ClientMessage::Hello {
                id: 0,
                protocol_version: 1,
                token: None,
                name: Some("x".into()),
            },
            "hello_first",
        ),
    ];
    let sit = |seat| ClientMessage::Sit { id: 0, table: table_id.clone(), seat, invite: None };
    let cases = cases.into_iter().chain([
        (outsider, sit(Some(1)), "seat_taken"),
        (outsider, sit(Some(9)), "no_such_seat"),
        (outsider, sit(None), "table_full"),
        (outsider, act_message(&table_id, Action::Pass), "not_seated"),
        (outsider, ClientMessage::Leave { id: 0, table: table_id.clone() }, "not_seated"),
        (
            outsider,
            ClientMessage::Chat { id: 0, table: table_id.clone(), text: "hi".into() },
            "not_seated",
        ),
        (0, ClientMessage::Rematch { id: 0, table: table_id.clone() }, "game_in_progress"),
        (0, ClientMessage::Start { id: 0, table: table_id.clone() }, "game_in_progress"),
    ]);
    let mut eve = server.player("Eve").await;
    let mut clients: Vec<&mut Client> = vec![&mut ann];
    clients.extend(others.iter_mut());
    clients.push(&mut eve);
    for (who, message, code) in cases {
        let client = &mut clients[who];
        let id = client.next_id();
        let message = with_id(message, id);
        let answer = client.command(message).await;
        assert_eq!(error_code(&answer), Some(code), "{answer:?}");
        assert_eq!(answer_id(&answer), Some(id));
    }
    let after = snapshot(&mut ann, &table).await;
    assert_eq!(before, after, "errors changed the table");
    server.stop().await;
}

fn act_message(table: &str, action: Action) -> ClientMessage {
    ClientMessage::Act { id: 0, table: table.to_owned(), action }
}

fn with_id(message: ClientMessage, id: u64) -> ClientMessage {
    let mut value = serde_json::to_value(&message).expect("serialize");
    value["id"] = id.into();
    serde_json::from_value(value).expect("still a message")
}

#[tokio::test]
async fn bad_frames_are_answered_and_other_tables_carry_on() {
    let server = TestServer::start().await;
    // A healthy table, playing throughout.
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    ann.sit(&table, Some(0)).await;
    let game = tokio::spawn(play_to_the_end(ann, table, 5));

    let mut rude = Client::connect(&server.url()).await;
    let id = rude.next_id();
    let early = rude.command(ClientMessage::ListTables { id, query: LobbyQuery::default() }).await;
    assert_eq!(error_code(&early), Some("hello_first"));
    let id = rude.next_id();
    let old =
        ClientMessage::Hello { id, protocol_version: 99, token: None, name: Some("R".into()) };
    assert_eq!(error_code(&rude.command(old).await), Some("unsupported_version"));
    let id = rude.next_id();
    let stolen =
        ClientMessage::Hello { id, protocol_version: 1, token: Some("guess".into()), name: None };
    assert_eq!(error_code(&rude.command(stolen).await), Some("bad_token"));
    rude.hello("Rude").await;

    for (frame, code) in [
        ("{oops".to_owned(), "bad_json"),
        (r#"{"type":"dance","id":4}"#.to_owned(), "unknown_type"),
        (r#"{"type":"act","id":5,"table":"x","action":"play","card":"Zz"}"#.to_owned(), "bad_json"),
        (
            format!(r#"{{"type":"chat","id":6,"table":"x","text":"{}"}}"#, "a".repeat(5000)),
            "too_large",
        ),
    ] {
        rude.send_text(frame).await;
        let answer = rude.recv_until(|m| matches!(m, ServerMessage::Error { .. })).await;
        assert_eq!(error_code(&answer), Some(code));
    }
    // A flood gets rate limited (pings have a bucket of their own).
    for _ in 0..100 {
        let id = rude.next_id();
        rude.send(&ClientMessage::ListTables { id, query: LobbyQuery::default() }).await;
    }
    let limited = rude.recv_until(|m| error_code(m) == Some("rate_limited")).await;
    assert!(answer_id(&limited).is_some());
    // A huge frame closes the connection (1009, when the client reads the
    // close frame before the reset that closing mid-frame brings).
    rude.send_text("x".repeat(200_000)).await;
    let ended = rude.ended_by_server().await;
    assert!(matches!(ended, Some(close::TOO_LARGE) | None), "closed with {ended:?}");

    let ann = game.await.expect("the other table finished its game");
    assert_gapless(&ann);
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_lists_public_tables_and_hides_private_ones() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let public = ann.create_table(settings(Preset::Standard, vec![])).await;
    let id = ann.next_id();
    let private = TableSettings { private: true, ..TableSettings::default() };
    let ServerMessage::Ack { reply: Reply::TableCreated { table: secret, invite }, .. } =
        ann.command(ClientMessage::CreateTable { id, settings: private }).await
    else {
        panic!("expected table_created")
    };
    let invite = invite.expect("a private table has an invite code");
    let mut bob = server.player("Bob").await;
    let tables = bob.list_tables(LobbyQuery::default()).await.expect("a page").tables;
    let listed: Vec<&str> = tables.iter().map(|t| t.table.as_str()).collect();
    assert_eq!(listed, vec![public.as_str()]);
    // The private table needs its invite.
    let id = bob.next_id();
    let sit = ClientMessage::Sit { id, table: secret.clone(), seat: None, invite: None };
    assert_eq!(error_code(&bob.command(sit).await), Some("no_such_table"));
    let id = bob.next_id();
    let sit = ClientMessage::Sit { id, table: secret.clone(), seat: None, invite: Some(invite) };
    assert!(matches!(bob.command(sit).await, ServerMessage::Ack { .. }));
    // Seated, it is his own: listed as his on a new connection (never in
    // anyone else's lobby), and he watches it there without the invite.
    let mut again = Client::connect(&server.url()).await;
    again.try_hello("Bob", bob.token.as_deref()).await.expect("welcome back");
    let page = again.list_tables(LobbyQuery::default()).await.expect("a page");
    let yours: Vec<&str> = page.yours.iter().map(|t| t.table.as_str()).collect();
    assert_eq!(yours, vec![secret.as_str()]);
    let id = again.next_id();
    let watch = ClientMessage::Watch { id, table: secret.clone(), invite: None };
    assert!(matches!(again.command(watch).await, ServerMessage::Ack { .. }));
    let mut cy = server.player("Cy").await;
    assert!(cy.list_tables(LobbyQuery::default()).await.expect("a page").yours.is_empty());
    let id = cy.next_id();
    let watch = ClientMessage::Watch { id, table: secret, invite: None };
    assert_eq!(error_code(&cy.command(watch).await), Some("no_such_table"));
    // Sitting at the public table shows up as a lobby update (which may come
    // before the sit's ack, while waiting for it).
    let _ = bob.sit(&public, None).await;
    let seated_one =
        |m: &ServerMessage| matches!(m, ServerMessage::LobbyUpdate { table } if table.seated == 1);
    if !bob.log.iter().any(seated_one) {
        bob.recv_until(seated_one).await;
    }
    server.stop().await;
}

/// The ids of the lobby messages in `log` after its last page.
fn lobby_changes(log: &[ServerMessage]) -> Vec<(String, Option<TableStatus>)> {
    let page = log.iter().rposition(|m| matches!(m, ServerMessage::Lobby(_))).expect("a page");
    log[page..]
        .iter()
        .filter_map(|m| match m {
            ServerMessage::LobbyUpdate { table } => Some((table.table.clone(), Some(table.status))),
            ServerMessage::LobbyRemoved { table } => Some((table.clone(), None)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_lobby_pages_by_id_filters_and_refuses_bad_queries() {
    let server = TestServer::start_with(|s| s.limits.tables_per_player = 10).await;
    let mut ann = server.player("Ann").await;
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(ann.create_table(settings(Preset::Standard, vec![])).await);
    }
    // One in play (bots in the other seats, so it starts when Ann sits)…
    let playing = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    ann.sit(&playing, Some(0)).await;
    // …and one of another preset, open.
    let cutthroat = ann.create_table(settings(Preset::Cutthroat, vec![])).await;
    let mut every = [open.clone(), vec![playing.clone(), cutthroat.clone()]].concat();
    every.sort();

    // Every public table, two at a time, in the order of the ids.
    let mut bob = server.player("Bob").await;
    let (mut listed, mut after, mut pages) = (Vec::new(), None, 0);
    loop {
        let query = LobbyQuery { limit: Some(2), after: after.clone(), ..LobbyQuery::default() };
        let page = bob.list_tables(query).await.expect("a page");
        assert_eq!((page.total, page.after.clone()), (6, after));
        assert!(page.tables.len() <= 2);
        listed.extend(page.tables.into_iter().map(|t| t.table));
        pages += 1;
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!((listed, pages), (every, 3));

    // Filters: the open ones; the open ones of a preset.
    let status = LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() };
    let query = LobbyQuery { filter: status.clone(), ..LobbyQuery::default() };
    let page = bob.list_tables(query).await.expect("a page");
    let ids: Vec<&str> = page.tables.iter().map(|t| t.table.as_str()).collect();
    assert!(!ids.contains(&playing.as_str()) && ids.len() == 5 && page.total == 5, "{ids:?}");
    assert_eq!(page.next, None);
    let filter = LobbyFilter { preset: Some(Preset::Cutthroat), ..status };
    let page = bob.list_tables(LobbyQuery { filter, ..LobbyQuery::default() }).await;
    let page = page.expect("a page");
    assert_eq!((page.tables.len(), page.total), (1, 1));
    assert_eq!(page.tables[0].table, cutthroat);

    // Bad queries: a typed error each, and the connection carries on.
    for limit in [0, LOBBY_PAGE_MAX + 1] {
        let query = LobbyQuery { limit: Some(limit), ..LobbyQuery::default() };
        let refused = bob.list_tables(query).await.expect_err("refused");
        assert_eq!(error_code(&refused), Some("bad_query"), "{refused:?}");
    }
    bob.send_text(r#"{"type":"list_tables","id":900,"preset":"deluxe"}"#.to_owned()).await;
    let refused = bob.recv_until(|m| answer_id(m) == Some(900)).await;
    assert_eq!(error_code(&refused), Some("bad_json"));
    let id = bob.next_id();
    assert!(matches!(bob.command(ClientMessage::Ping { id }).await, ServerMessage::Ack { .. }));
    server.stop().await;
}

#[tokio::test]
async fn a_lobby_subscriber_gets_only_the_changes_its_filter_lets_through() {
    let server = TestServer::start_with(|s| s.limits.tables_per_player = 10).await;
    let mut ann = server.player("Ann").await;
    let waiting = ann.create_table(settings(Preset::Standard, vec![])).await;
    let playing = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    ann.sit(&playing, Some(0)).await;

    // Carol lists the open tables with a seat free; Bob everything.
    let mut carol = server.player("Carol").await;
    let filter =
        LobbyFilter { status: Some(TableStatus::Open), free_seat: true, ..LobbyFilter::default() };
    let page = carol.list_tables(LobbyQuery { filter, ..LobbyQuery::default() }).await;
    let ids: Vec<String> = page.expect("a page").tables.into_iter().map(|t| t.table).collect();
    assert_eq!(ids, vec![waiting.clone()]);
    let mut bob = server.player("Bob").await;
    assert_eq!(bob.list_tables(LobbyQuery::default()).await.expect("a page").total, 2);

    // A table that opens with three bots, then fills and plays: Carol sees
    // it come and go; the table already in play changes nothing for her.
    let newcomer = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
    ann.sit(&newcomer, Some(0)).await;
    // A last open table: once Carol has it, she has had every change before it.
    let last = ann.create_table(settings(Preset::Standard, vec![])).await;
    let is_last = |m: &ServerMessage| matches!(m, ServerMessage::LobbyUpdate { table } if table.table == last);
    carol.recv_until(is_last).await;
    assert_eq!(
        lobby_changes(&carol.log),
        vec![
            (newcomer.clone(), Some(TableStatus::Open)),
            (newcomer.clone(), None),
            (last.clone(), Some(TableStatus::Open)),
        ]
    );
    // Bob, unfiltered, saw the newcomer in play.
    bob.recv_until(is_last).await;
    let bobs = lobby_changes(&bob.log);
    assert!(bobs.contains(&(newcomer.clone(), Some(TableStatus::Playing))), "{bobs:?}");
    assert!(!bobs.iter().any(|(_, status)| status.is_none()), "nothing left Bob's lobby");
    server.stop().await;
}

#[tokio::test]
async fn shutdown_tells_clients_when_to_come_back() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let stopping = tokio::spawn(server.stop());
    let notice = ann.recv_until(|m| matches!(m, ServerMessage::Shutdown { .. })).await;
    assert!(
        matches!(notice, ServerMessage::Shutdown { reconnect_after_ms } if reconnect_after_ms > 0)
    );
    assert_eq!(ann.close_code().await, Some(close::GOING_AWAY));
    stopping.await.expect("the server stopped");
}

/// A plain HTTP GET on the test server: (status line, body).
async fn http_get(server: &TestServer, path: &str) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.address).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.lines().next().unwrap_or_default().to_owned(), body.to_owned())
}

#[tokio::test]
async fn health_and_metrics_are_served() {
    let server = TestServer::start().await;
    let (status, body) = http_get(&server, "/healthz").await;
    assert!(status.contains("200"), "{status}");
    assert_eq!(body, "ok");
    let mut ann = server.player("Ann").await;
    ann.create_table(settings(Preset::Standard, vec![])).await;
    let (status, body) = http_get(&server, "/metrics").await;
    assert!(status.contains("200"), "{status}");
    for metric in [
        "euchre_connections_open",
        "euchre_tables_open",
        "euchre_messages_received_total",
        "euchre_action_latency_seconds_bucket",
    ] {
        assert!(body.contains(metric), "{metric} missing from {body}");
    }
    assert!(body.contains("euchre_tables_open 1"), "{body}");
    server.stop().await;
}

#[tokio::test]
async fn a_disallowed_origin_cannot_open_a_socket() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let server = TestServer::start().await;
    let mut request = server.url().into_client_request().expect("request");
    request.headers_mut().insert("Origin", "https://elsewhere.example".parse().expect("header"));
    let refused = tokio_tungstenite::connect_async(request).await;
    assert!(refused.is_err(), "the upgrade must be refused");
    server.stop().await;
}

#[tokio::test]
async fn chat_start_leave_and_rematch() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(settings(Preset::Standard, vec![])).await;
    ann.sit(&table, Some(0)).await;
    let mut bob = server.player("Bob").await;
    bob.sit(&table, Some(2)).await;

    // Chat reaches everyone at the table.
    let id = ann.next_id();
    let chat = ClientMessage::Chat { id, table: table.clone(), text: " hello ".into() };
    assert!(matches!(ann.command(chat).await, ServerMessage::Ack { .. }));
    let heard = bob
        .recv_until(|m| matches!(m, ServerMessage::Event { event: Some(TableEvent::Table(_)), .. } if format!("{m:?}").contains("Chat")))
        .await;
    assert!(format!("{heard:?}").contains("\"hello\""), "{heard:?}");

    // Only the host starts; empty seats go to bots.
    let id = bob.next_id();
    let start = ClientMessage::Start { id, table: table.clone() };
    assert_eq!(error_code(&bob.command(start).await), Some("not_host"));
    let id = ann.next_id();
    let rematch = ClientMessage::Rematch { id, table: table.clone() };
    assert_eq!(error_code(&ann.command(rematch).await), Some("not_started"));
    let id = ann.next_id();
    assert!(matches!(
        ann.command(ClientMessage::Start { id, table: table.clone() }).await,
        ServerMessage::Ack { .. }
    ));
    let id = ann.next_id();
    let again = ClientMessage::Start { id, table: table.clone() };
    assert_eq!(error_code(&ann.command(again).await), Some("game_in_progress"));

    // Bob leaves mid-game: a bot takes his seat and the game goes on.
    let id = bob.next_id();
    assert!(matches!(
        bob.command(ClientMessage::Leave { id, table: table.clone() }).await,
        ServerMessage::Ack { .. }
    ));
    let ann = play_to_the_end(ann, table.clone(), 11).await;
    let replaced = ann.log.iter().any(|m| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(TableEvent::Table(euchre_protocol::TableNotice::SeatTaken {
                    seat: 2,
                    occupant: euchre_protocol::Occupant::Bot { .. }
                })),
                ..
            }
        )
    });
    assert!(replaced, "a bot took the seat Bob left");
    let mut ann = ann;
    let id = ann.next_id();
    assert!(matches!(
        ann.command(ClientMessage::Rematch { id, table: table.clone() }).await,
        ServerMessage::Ack { .. }
    ));
    // The new game's events came before the rematch's ack.
    let second_game = ann.log.iter().any(|m| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(TableEvent::Table(euchre_protocol::TableNotice::GameStarted {
                    game: 2,
                    ..
                })),
                ..
            }
        )
    });
    assert!(second_game, "the rematch started game 2");
    server.stop().await;
}

#[tokio::test]
async fn limits_on_tables_and_connections() {
    let mut config = euchre_server::Settings::default();
    config.limits.tables_per_player = 2;
    config.limits.connections_per_address = 3;
    let server = TestServer::with_settings(config).await;
    let mut ann = server.player("Ann").await;
    ann.create_table(TableSettings::default()).await;
    ann.create_table(TableSettings::default()).await;
    let id = ann.next_id();
    let third = ClientMessage::CreateTable { id, settings: TableSettings::default() };
    assert_eq!(error_code(&ann.command(third).await), Some("too_many_tables"));
    let id = ann.next_id();
    let bad = TableSettings { bot: "genius".into(), ..TableSettings::default() };
    assert_eq!(
        error_code(&ann.command(ClientMessage::CreateTable { id, settings: bad }).await),
        Some("bad_settings")
    );
    let _two = Client::connect(&server.url()).await;
    let _three = Client::connect(&server.url()).await;
    let fourth = Client::connect_from(&server, [127, 0, 0, 1]).await.err().expect("refused");
    assert_eq!(fourth.status, 429, "a fourth connection from one address is refused");
    assert_eq!(fourth.code(), Some("too_many_connections"), "{fourth:?}");
    server.stop().await;
}

/// A flood (1008) or a frame past the hard cap (1009) boxes the address it
/// came from: its new upgrades and requests get `429 abuse_penalty` with a
/// `Retry-After` (its health checks still answer), while its connection
/// already open carries on and other addresses are not touched.
#[tokio::test]
async fn an_address_closed_for_abuse_is_refused_for_a_while_and_no_other() {
    let mut config = euchre_server::Settings::default();
    config.limits.abuse_penalty_ms = 60_000;
    let server = TestServer::with_settings(config).await;
    let (flooder, oversized, neighbour) = ([127, 4, 0, 1], [127, 4, 0, 2], [127, 4, 0, 3]);

    // A connection the flooder's address opened before it flooded.
    let mut earlier = Client::connect_from(&server, flooder).await.expect("admitted");
    earlier.hello("Earlier").await;
    let mut rude = Client::connect_from(&server, flooder).await.expect("admitted");
    rude.hello("Rude").await;
    for _ in 0..300 {
        rude.send_text("{oops".to_owned()).await;
    }
    assert_eq!(rude.close_code().await, Some(close::POLICY));
    let mut huge = Client::connect_from(&server, oversized).await.expect("admitted");
    huge.send_text("x".repeat(200_000)).await;
    assert_eq!(huge.close_code().await, Some(close::TOO_LARGE));

    for address in [flooder, oversized] {
        let refused = Client::connect_from(&server, address).await.err().expect("refused");
        assert_eq!(refused.status, 429, "{refused:?}");
        assert_eq!(refused.code(), Some("abuse_penalty"), "{refused:?}");
        let wait = refused.retry_after().expect("Retry-After");
        assert!((50..=60).contains(&wait), "Retry-After {wait}");
        assert_eq!(Client::http_status_from(&server, address, "/api/leaderboard").await, 429);
        assert_eq!(Client::http_status_from(&server, address, "/").await, 429);
        assert_eq!(Client::http_status_from(&server, address, "/healthz").await, 200);
    }
    // The flooder's earlier connection is not the one that flooded.
    let id = earlier.next_id();
    let pong = earlier.command(ClientMessage::Ping { id }).await;
    assert!(matches!(pong, ServerMessage::Ack { reply: Reply::Pong, .. }), "{pong:?}");
    // Another address is let in as ever.
    let mut neighbour = Client::connect_from(&server, neighbour).await.expect("admitted");
    neighbour.hello("Neighbour").await;
    assert_eq!(Client::http_status_from(&server, [127, 4, 0, 3], "/api/leaderboard").await, 200);
    server.stop().await;
}

/// Behind a reverse proxy the settings trust, each client counts by the
/// address the proxy forwarded for: a flooder's address is boxed, while the
/// proxy itself and the other clients behind it are let in; a peer that is
/// not a trusted proxy cannot name another address (its header is ignored).
#[tokio::test]
async fn a_trusted_proxys_clients_count_by_the_address_it_forwarded_for() {
    let mut config = euchre_server::Settings::default();
    config.limits.abuse_penalty_ms = 60_000;
    config.trusted_proxies = vec!["127.5.0.0/16".parse().expect("a network")];
    let server = TestServer::with_settings(config).await;
    let (proxy, stranger) = ([127, 5, 0, 1], [127, 6, 0, 1]);
    let (flooder, other) = ("203.0.113.9", "203.0.113.10");

    let mut rude =
        Client::connect_forwarded(&server, proxy, Some(flooder)).await.expect("admitted");
    rude.hello("Rude").await;
    for _ in 0..300 {
        rude.send_text("{oops".to_owned()).await;
    }
    assert_eq!(rude.close_code().await, Some(close::POLICY));

    let refused = Client::connect_forwarded(&server, proxy, Some(flooder)).await.err();
    assert_eq!(refused.and_then(|r| r.code().map(str::to_owned)).as_deref(), Some("abuse_penalty"));
    let status = |source, forwarded| {
        Client::http_status_forwarded(&server, source, "/api/leaderboard", forwarded)
    };
    assert_eq!(status(proxy, Some(flooder)).await, 429, "the flooder, through the proxy");
    let (untrusted_hop, written_by_client) =
        (format!("{flooder}, 10.0.0.1"), format!("192.0.2.1, {flooder}"));
    assert_eq!(status(proxy, Some(&untrusted_hop)).await, 200, "10.0.0.1 is not trusted");
    assert_eq!(status(proxy, Some(&written_by_client)).await, 429, "the left is the client's");
    assert_eq!(status(proxy, Some(other)).await, 200, "another client behind the proxy");
    assert_eq!(status(proxy, None).await, 200, "the proxy itself");
    assert_eq!(status(stranger, Some(flooder)).await, 200, "an untrusted peer's header is ignored");
    let mut neighbour =
        Client::connect_forwarded(&server, proxy, Some(other)).await.expect("admitted");
    neighbour.hello("Neighbour").await;
    server.stop().await;
}

/// A header a client filled with bytes past ASCII still names the client
/// (the proxy appended its address after them): the request never counts
/// as the proxy's. A header that names nobody is refused, `400
/// bad_forwarded_for`. And the proxy's own address is never boxed, even
/// when a connection of its own floods.
#[tokio::test]
async fn a_trusted_proxys_address_is_never_shared_or_boxed() {
    let mut config = euchre_server::Settings::default();
    config.limits.abuse_penalty_ms = 60_000;
    config.trusted_proxies = vec!["127.5.0.0/16".parse().expect("a network")];
    let server = TestServer::with_settings(config).await;
    let proxy = [127, 5, 0, 1];
    let (flooder, other) = ("203.0.113.9", "203.0.113.10");
    let garbled = format!("\u{e9}\u{ff}, {flooder}");

    let mut rude =
        Client::connect_forwarded(&server, proxy, Some(&garbled)).await.expect("admitted");
    rude.hello("Rude").await;
    for _ in 0..300 {
        rude.send_text("{oops".to_owned()).await;
    }
    assert_eq!(rude.close_code().await, Some(close::POLICY));
    let status =
        |forwarded| Client::http_status_forwarded(&server, proxy, "/api/leaderboard", forwarded);
    assert_eq!(status(Some(flooder)).await, 429, "the flooder was boxed by its own address");
    assert_eq!(status(None).await, 200, "not the proxy");
    assert_eq!(status(Some(other)).await, 200, "nor another client behind it");
    assert_eq!(status(Some("\u{e9}")).await, 400, "a header naming nobody");
    let refused = Client::connect_forwarded(&server, proxy, Some("\u{e9}")).await.err();
    let code = refused.and_then(|r| r.code().map(str::to_owned));
    assert_eq!(code.as_deref(), Some("bad_forwarded_for"));

    // The proxy's own connection floods: it is closed, the proxy not boxed.
    let mut own = Client::connect_forwarded(&server, proxy, None).await.expect("admitted");
    own.hello("Proxy").await;
    for _ in 0..300 {
        own.send_text("{oops".to_owned()).await;
    }
    assert_eq!(own.close_code().await, Some(close::POLICY));
    assert_eq!(status(None).await, 200, "the proxy's own requests");
    let mut again = Client::connect_forwarded(&server, proxy, Some(other)).await.expect("admitted");
    again.hello("Other").await;
    server.stop().await;
}

/// A `hello` without a token registers a guest: an address may do that
/// `guests_per_minute` times a minute, then gets `rate_limited`; a player
/// coming back with a token is not counted, and other addresses have their own.
#[tokio::test]
async fn new_guests_are_limited_per_address() {
    let mut config = euchre_server::Settings::default();
    config.limits.guests_per_minute = 2;
    let server = TestServer::with_settings(config).await;
    let (here, there) = ([127, 4, 1, 1], [127, 4, 1, 2]);
    let mut first = Client::connect_from(&server, here).await.expect("admitted");
    first.hello("One").await;
    let mut second = Client::connect_from(&server, here).await.expect("admitted");
    second.hello("Two").await;

    let mut third = Client::connect_from(&server, here).await.expect("admitted");
    let id = third.next_id();
    let hello = |id, token| ClientMessage::Hello {
        id,
        protocol_version: PROTOCOL_VERSION,
        token,
        name: Some("Three".to_owned()),
    };
    third.send(&hello(id, None)).await;
    let refused = third.recv_until(|m| answer_id(m) == Some(id)).await;
    assert_eq!(error_code(&refused), Some("rate_limited"), "{refused:?}");
    // The same connection may still come back as a known player.
    let id = third.next_id();
    let welcome = third.command(hello(id, first.token.clone())).await;
    assert!(matches!(welcome, ServerMessage::Welcome { .. }), "{welcome:?}");

    let mut elsewhere = Client::connect_from(&server, there).await.expect("admitted");
    elsewhere.hello("Elsewhere").await;
    server.stop().await;
}

/// Past `max_connections` in all the upgrade is refused, `503 server_full`
/// with a `Retry-After`, whatever the address; a closed connection frees
/// its place.
#[tokio::test]
async fn the_server_refuses_connections_past_its_cap() {
    let mut config = euchre_server::Settings::default();
    config.limits.max_connections = 2;
    let server = TestServer::with_settings(config).await;
    let one = Client::connect_from(&server, [127, 4, 2, 1]).await.expect("admitted");
    let _two = Client::connect_from(&server, [127, 4, 2, 2]).await.expect("admitted");
    let refused = Client::connect_from(&server, [127, 4, 2, 3]).await.err().expect("refused");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.code(), Some("server_full"), "{refused:?}");
    assert!(refused.retry_after().is_some_and(|wait| wait > 0), "{refused:?}");
    // Plain HTTP is not counted.
    assert_eq!(Client::http_status_from(&server, [127, 4, 2, 3], "/api/leaderboard").await, 200);
    drop(one);
    // The place comes free once the server has seen the connection end.
    let mut admitted =
        eventually(
            "admitted once a place came free",
            PATIENCE,
            async || match Client::connect_from(&server, [127, 4, 2, 3]).await {
                Ok(client) => Some(client),
                Err(refused) => {
                    assert_eq!(refused.code(), Some("server_full"), "{refused:?}");
                    None
                }
            },
        )
        .await;
    admitted.hello("Third").await;
    server.stop().await;
}

/// The server's connection handling fed arbitrary frames: corpus commands
/// edited and reshaped (aimed at a real table the client sits at), any
/// text, binary frames and pings, after a `hello` or without one. Every
/// answer is a well-formed message, a connection ends only with a close
/// frame and a documented code, a final `ping` is always answered unless it
/// was closed, and afterwards the server and its table carry on.
#[test]
fn arbitrary_frames_never_break_a_connection_or_the_server() {
    use euchre_fuzz::{client_frames, fuzz, mutated_json, mutated_text};
    use proptest::prelude::*;
    use tokio_tungstenite::tungstenite::Message;

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    // Every case connects from the same address; a case that ends in 1009
    // must not keep the next ones out, nor may the guests that edited hellos
    // register keep Bob out at the end (the penalty and the guest limit have
    // tests of their own).
    let server = runtime.block_on(TestServer::start_with(|config| {
        config.limits.abuse_penalty_ms = 0;
        config.limits.guests_per_minute = 0;
    }));
    let (token, table) = runtime.block_on(async {
        let mut ann = server.player("Ann").await;
        let table = ann.create_table(settings(Preset::Standard, vec![1, 2, 3])).await;
        ann.sit(&table, Some(0)).await;
        (ann.token.clone().expect("a token"), table)
    });
    let frames = client_frames();
    let text = prop_oneof![mutated_text(frames.clone()), mutated_json(frames)];
    let frame = prop_oneof![
        6 => text.prop_map(|text| Message::Text(text.into())),
        1 => proptest::collection::vec(any::<u8>(), 0..64).prop_map(|b| Message::Binary(b.into())),
        1 => proptest::collection::vec(any::<u8>(), 0..16).prop_map(|b| Message::Ping(b.into())),
    ];
    let case = (any::<bool>(), proptest::collection::vec(frame, 1..16));
    const LAST: u64 = 9_999_999;
    fuzz("connection frames", 1_000, case, |(hello, frames)| {
        runtime.block_on(async {
            let mut client = Client::connect(&server.url()).await;
            if hello {
                let id = client.next_id();
                let token = Some(token.clone());
                let hello = ClientMessage::Hello { id, protocol_version: 1, token, name: None };
                let welcome = client.command(hello).await;
                prop_assert!(matches!(welcome, ServerMessage::Welcome { .. }), "{:?}", welcome);
            }
            let mut open = true;
            for frame in frames {
                let frame = match frame {
                    Message::Text(text) => Message::Text(
                        text.as_str().replace("$TABLE", &table).replace("$TOKEN", &token).into(),
                    ),
                    other => other,
                };
                open = open && client.send_frame(frame).await;
            }
            let ping = format!(r#"{{"type":"ping","id":{LAST}}}"#);
            open = open && client.send_frame(Message::Text(ping.into())).await;
            loop {
                match client.next_frame().await {
                    Some(Message::Text(text)) => {
                        let message = serde_json::from_str::<ServerMessage>(text.as_str());
                        prop_assert!(message.is_ok(), "not a server message: {text}");
                        if message.ok().and_then(|m| answer_id(&m)) == Some(LAST) {
                            break;
                        }
                    }
                    Some(Message::Close(Some(frame))) => {
                        let code = u16::from(frame.code);
                        let documented = [close::NORMAL, close::POLICY, close::TOO_LARGE];
                        prop_assert!(documented.contains(&code), "closed with {code}");
                        break;
                    }
                    Some(Message::Close(None)) | None => {
                        prop_assert!(!open, "the connection ended without a close frame");
                        break;
                    }
                    Some(_) => {}
                }
            }
            Ok(())
        })
    });
    runtime.block_on(async {
        // The server, and the table the fuzzing went at, carry on.
        let mut bob = server.player("Bob").await;
        let id = bob.next_id();
        let pong = bob.command(ClientMessage::Ping { id }).await;
        assert!(matches!(pong, ServerMessage::Ack { reply: Reply::Pong, .. }), "{pong:?}");
        let id = bob.next_id();
        let watch = bob.command(ClientMessage::Watch { id, table: table.clone(), invite: None });
        assert!(matches!(watch.await, ServerMessage::Ack { .. }));
        server.stop().await;
    });
}

/// Asks for quick play; the answer (ack or error).
async fn quick_play(client: &mut Client, request: QuickPlayRequest) -> ServerMessage {
    let id = client.next_id();
    client.command(ClientMessage::QuickPlay { id, request }).await
}

/// The team code of a `queued` ack, or panics.
fn queued_team(answer: &ServerMessage) -> Option<String> {
    match answer {
        ServerMessage::Ack { reply: Reply::Queued { team, .. }, .. } => team.clone(),
        other => panic!("expected queued, got {other:?}"),
    }
}

/// Waits for `quick_play_matched` and the snapshot that follows it:
/// the table and seat, checked against the snapshot's.
async fn matched(client: &mut Client) -> (String, u8) {
    let (table, seat) =
        match client.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. })).await {
            ServerMessage::QuickPlayMatched { table, seat, .. } => (table, seat),
            _ => unreachable!(),
        };
    let ServerMessage::Snapshot { table: shown, state, .. } = client.recv().await else {
        panic!("the snapshot follows quick_play_matched")
    };
    assert_eq!((shown.as_str(), state.your_seat), (table.as_str(), Some(seat)));
    assert!(state.summary.private, "a pool's table is not in the lobby");
    assert!(state.summary.turn_seconds.is_some(), "a pool's table has a turn timer");
    (table, seat)
}

fn quick_settings(settings: &mut euchre_server::Settings) {
    settings.quick_play.wave_ms = 100;
}

#[tokio::test]
async fn four_players_asking_for_quick_play_sit_at_one_table_and_not_again() {
    let server = TestServer::start_with(quick_settings).await;
    let mut players = Vec::new();
    for name in ["Ann", "Bob", "Cid", "Dee"] {
        let mut player = server.account(name).await;
        let answer = quick_play(&mut player, QuickPlayRequest::new(Preset::Standard, true)).await;
        assert_eq!(queued_team(&answer), None);
        players.push(player);
    }
    let mut seats = Vec::new();
    let mut tables = HashSet::new();
    for player in &mut players {
        let (table, seat) = matched(player).await;
        tables.insert(table);
        seats.push(seat);
    }
    assert_eq!(tables.len(), 1, "one table");
    seats.sort();
    assert_eq!(seats, vec![0, 1, 2, 3]);
    let table = tables.into_iter().next().expect("a table");
    // The game began: every seat a person's, and the lobby does not list it.
    players[0]
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Event {
                    event: Some(TableEvent::Table(TableNotice::GameStarted { .. })),
                    ..
                }
            )
        })
        .await;
    let page = players[1].list_tables(LobbyQuery::default()).await.expect("a page");
    assert!(page.tables.iter().all(|t| t.table != table));
    // Nobody is in two games from the pools.
    let again = quick_play(&mut players[2], QuickPlayRequest::new(Preset::Standard, false)).await;
    assert_eq!(error_code(&again), Some("in_quick_play_game"));
    server.stop().await;
}

#[tokio::test]
async fn two_asking_as_a_team_sit_opposite() {
    let server = TestServer::start_with(quick_settings).await;
    let mut ann = server.account("Ann").await;
    let mut bob = server.account("Bob").await;
    let invite =
        QuickPlayRequest { invite_partner: true, ..QuickPlayRequest::new(Preset::Standard, true) };
    let code = queued_team(&quick_play(&mut ann, invite).await).expect("a team code");
    // Her own code, another pool's code, and a guess are refused.
    let own = QuickPlayRequest {
        team: Some(code.clone()),
        ..QuickPlayRequest::new(Preset::Standard, true)
    };
    assert_eq!(error_code(&quick_play(&mut ann, own).await), Some("already_queued"));
    let casual = QuickPlayRequest {
        team: Some(code.clone()),
        ..QuickPlayRequest::new(Preset::Standard, false)
    };
    assert_eq!(error_code(&quick_play(&mut bob, casual).await), Some("bad_team"));
    let guess = QuickPlayRequest {
        team: Some("aaaaaaaaaa".into()),
        ..QuickPlayRequest::new(Preset::Standard, true)
    };
    assert_eq!(error_code(&quick_play(&mut bob, guess).await), Some("bad_team"));
    // Typed as the browser shows it: in capitals, with a stray space.
    let join = QuickPlayRequest {
        team: Some(format!(" {} ", code.to_uppercase())),
        ..QuickPlayRequest::new(Preset::Standard, true)
    };
    assert_eq!(queued_team(&quick_play(&mut bob, join).await), None);
    for (player, partner) in [(&mut ann, "Bob"), (&mut bob, "Ann")] {
        let told = player
            .recv_until(|m| matches!(m, ServerMessage::QuickPlayWaiting { partner: Some(_), .. }))
            .await;
        let ServerMessage::QuickPlayWaiting { partner: Some(info), .. } = told else {
            unreachable!()
        };
        assert_eq!(info.name, partner);
    }
    // The code is used up.
    let mut eve = server.account("Eve").await;
    let late =
        QuickPlayRequest { team: Some(code), ..QuickPlayRequest::new(Preset::Standard, true) };
    assert_eq!(error_code(&quick_play(&mut eve, late).await), Some("bad_team"));
    let mut others = Vec::new();
    for name in ["Cid", "Dee"] {
        let mut player = server.account(name).await;
        quick_play(&mut player, QuickPlayRequest::new(Preset::Standard, true)).await;
        others.push(player);
    }
    let (table, ann_seat) = matched(&mut ann).await;
    let (bob_table, bob_seat) = matched(&mut bob).await;
    assert_eq!(table, bob_table);
    assert_eq!((ann_seat + 2) % 4, bob_seat, "partners sit opposite");
    for player in &mut others {
        assert_eq!(matched(player).await.0, table);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_cancelled_request_is_not_seated_and_a_team_ends_together() {
    let server = TestServer::start_with(quick_settings).await;
    let mut ann = server.account("Ann").await;
    quick_play(&mut ann, QuickPlayRequest::new(Preset::Cutthroat, true)).await;
    let id = ann.next_id();
    assert!(matches!(
        ann.command(ClientMessage::CancelQuickPlay { id }).await,
        ServerMessage::Ack { reply: Reply::Done, .. }
    ));
    let id = ann.next_id();
    assert_eq!(
        error_code(&ann.command(ClientMessage::CancelQuickPlay { id }).await),
        Some("not_queued")
    );
    let mut three = Vec::new();
    for name in ["Bob", "Cid", "Dee"] {
        let mut player = server.account(name).await;
        quick_play(&mut player, QuickPlayRequest::new(Preset::Cutthroat, true)).await;
        three.push(player);
    }
    let mut tables = HashSet::new();
    for player in &mut three {
        tables.insert(matched(player).await.0);
    }
    assert_eq!(tables.len(), 1);
    // Ann was told nothing of it: the next thing she hears answers her ping.
    let id = ann.next_id();
    let pong = ann.command(ClientMessage::Ping { id }).await;
    assert!(
        ann.log.iter().all(|m| !matches!(m, ServerMessage::QuickPlayMatched { .. })),
        "{pong:?}"
    );

    // A team: one cancels, the other is told.
    let invite =
        QuickPlayRequest { invite_partner: true, ..QuickPlayRequest::new(Preset::Standard, false) };
    let code = queued_team(&quick_play(&mut ann, invite).await);
    let mut eve = server.account("Eve").await;
    let join = QuickPlayRequest { team: code, ..QuickPlayRequest::new(Preset::Standard, false) };
    quick_play(&mut eve, join).await;
    let id = eve.next_id();
    eve.command(ClientMessage::CancelQuickPlay { id }).await;
    let ended = ann.recv_until(|m| matches!(m, ServerMessage::QuickPlayEnded { .. })).await;
    let ServerMessage::QuickPlayEnded { reason, .. } = ended else { unreachable!() };
    assert_eq!(reason, QuickPlayEndReason::PartnerCancelled);
    let id = ann.next_id();
    assert_eq!(
        error_code(&ann.command(ClientMessage::CancelQuickPlay { id }).await),
        Some("not_queued")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_casual_request_with_bots_starts_with_bots_after_its_wait() {
    let server = TestServer::start_with(quick_settings).await;
    let mut ann = server.account("Ann").await;
    let asked = std::time::Instant::now();
    let request = QuickPlayRequest {
        bots_after_seconds: Some(5),
        ..QuickPlayRequest::new(Preset::TwoHanded, false)
    };
    quick_play(&mut ann, request).await;
    let (_, seat) = matched(&mut ann).await;
    assert!(asked.elapsed() >= Duration::from_secs(5), "not before its wait");
    let ServerMessage::Snapshot { state, .. } = ann.log.last().cloned().expect("the snapshot")
    else {
        panic!("a snapshot")
    };
    let bots = state.seats.iter().filter(|s| matches!(s, Some(Occupant::Bot { .. }))).count();
    assert_eq!((seat, bots), (0, 1), "Ann and one bot");
    server.stop().await;
}

#[tokio::test]
async fn bad_quick_play_requests_are_refused_with_their_codes() {
    let server = TestServer::start().await;
    let mut ann = server.account("Ann").await;
    let refused = |request: QuickPlayRequest| request;
    let cases = [
        (
            refused(QuickPlayRequest {
                bots_after_seconds: Some(30),
                ..QuickPlayRequest::new(Preset::Standard, true)
            }),
            "bad_request",
        ),
        (
            refused(QuickPlayRequest {
                bots_after_seconds: Some(1),
                ..QuickPlayRequest::new(Preset::Standard, false)
            }),
            "bad_request",
        ),
        (
            refused(QuickPlayRequest {
                invite_partner: true,
                ..QuickPlayRequest::new(Preset::Cutthroat, true)
            }),
            "bad_request",
        ),
        (
            refused(QuickPlayRequest {
                team: Some(String::new()),
                ..QuickPlayRequest::new(Preset::Standard, true)
            }),
            "bad_team",
        ),
        (
            refused(QuickPlayRequest {
                team: Some("no-such-code".into()),
                ..QuickPlayRequest::new(Preset::Standard, true)
            }),
            "bad_team",
        ),
    ];
    for (request, code) in cases {
        assert_eq!(
            error_code(&quick_play(&mut ann, request.clone()).await),
            Some(code),
            "{request:?}"
        );
    }
    for (text, id) in [
        (r#"{"type":"quick_play","id":900,"rated":true}"#, 900),
        (
            r#"{"type":"quick_play","id":901,"preset":"standard","rated":true,"bots_after_seconds":"x"}"#,
            901,
        ),
        (r#"{"type":"quick_play","id":902,"preset":"no_such_preset","rated":true}"#, 902),
    ] {
        ann.send_text(text.to_owned()).await;
        let answer = ann.recv_until(|m| answer_id(m) == Some(id)).await;
        assert_eq!(error_code(&answer), Some("bad_json"), "{text}");
    }
    // Nothing was queued by any of those; one request, then no second.
    quick_play(&mut ann, QuickPlayRequest::new(Preset::Standard, true)).await;
    assert_eq!(
        error_code(&quick_play(&mut ann, QuickPlayRequest::new(Preset::Online, false)).await),
        Some("already_queued")
    );
    // The same player on another connection holds the same request.
    let mut again = Client::connect(&server.url()).await;
    let token = ann.token.clone();
    again.try_hello("Ann", token.as_deref()).await.expect("welcome");
    assert_eq!(
        error_code(&quick_play(&mut again, QuickPlayRequest::new(Preset::Standard, true)).await),
        Some("already_queued")
    );
    let id = again.next_id();
    again.command(ClientMessage::CancelQuickPlay { id }).await;
    let ended = ann.recv_until(|m| matches!(m, ServerMessage::QuickPlayEnded { .. })).await;
    assert!(matches!(
        ended,
        ServerMessage::QuickPlayEnded { reason: QuickPlayEndReason::Cancelled, .. }
    ));
    server.stop().await;
}

#[tokio::test]
async fn a_players_own_tables_are_sent_again_when_they_sit_and_leave() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let id = ann.next_id();
    let private = TableSettings { private: true, ..TableSettings::default() };
    let ServerMessage::Ack { reply: Reply::TableCreated { table, invite }, .. } =
        ann.command(ClientMessage::CreateTable { id, settings: private }).await
    else {
        panic!("expected table_created")
    };
    let mut bob = server.player("Bob").await;
    // Bob's lobby, on another connection of his.
    let mut lobby = Client::connect(&server.url()).await;
    lobby.try_hello("Bob", bob.token.as_deref()).await.expect("welcome back");
    assert!(lobby.list_tables(LobbyQuery::default()).await.expect("a page").yours.is_empty());
    let yours = |message: &ServerMessage| match message {
        ServerMessage::LobbyYours { tables } => {
            Some(tables.iter().map(|t| t.table.clone()).collect::<Vec<_>>())
        }
        _ => None,
    };

    let id = bob.next_id();
    let sit = ClientMessage::Sit { id, table: table.clone(), seat: None, invite };
    assert!(matches!(bob.command(sit).await, ServerMessage::Ack { .. }));
    let sent = lobby.recv_until(|m| yours(m).is_some()).await;
    assert_eq!(yours(&sent), Some(vec![table.clone()]), "he sat: the private table is his");

    let id = bob.next_id();
    let leave = ClientMessage::Leave { id, table: table.clone() };
    assert!(matches!(bob.command(leave).await, ServerMessage::Ack { .. }));
    let sent = lobby.recv_until(|m| yours(m).is_some()).await;
    assert_eq!(yours(&sent), Some(vec![]), "he left");
    // Ann's lobby hears nothing of Bob's tables.
    assert!(ann.log.iter().all(|m| yours(m).is_none()), "{:?}", ann.log);
    server.stop().await;
}
