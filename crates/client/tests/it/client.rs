//! The client against the real server, in process on an ephemeral port:
//! whole games, a connection cut mid-hand, and refusals as typed errors.

use std::time::Duration;

use euchre_client::{Backoff, Client, Config, Error, Update, Updates};
use euchre_engine::{Action, Card, Event, Preset};
use euchre_protocol::{
    LobbyFilter, LobbyQuery, QuickPlayEndReason, QuickPlayRequest, TableEvent, TableSettings,
    TableStatus,
};
use euchre_server::testing::TestServer;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a test waits for any one update.
const PATIENCE: Duration = Duration::from_secs(10);

/// A TCP relay in front of the server whose connections can all be cut at
/// once, as a dropped network would; it keeps accepting new ones.
struct Relay {
    url: String,
    cut: watch::Sender<u64>,
}

impl Relay {
    async fn start(server_url: &str) -> Relay {
        let upstream = server_url.trim_start_matches("ws://").trim_end_matches("/ws").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("ws://{}/ws", listener.local_addr().expect("address"));
        let (cut, _) = watch::channel(0u64);
        let cuts = cut.clone();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let Ok(mut server) = TcpStream::connect(&upstream).await else { continue };
                let mut cut = cuts.subscribe();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                    // Both sockets drop here, without a WebSocket close.
                });
            }
        });
        Relay { url, cut }
    }

    /// Drops every connection through the relay.
    fn cut(&self) {
        self.cut.send_modify(|cuts| *cuts += 1);
    }
}

fn config(url: &str, name: &str) -> Config {
    let mut config = Config::new(url, name);
    config.backoff = Backoff { first: Duration::from_millis(50), max: Duration::from_millis(200) };
    config
}

async fn next(updates: &mut Updates) -> Update {
    tokio::time::timeout(PATIENCE, updates.next())
        .await
        .expect("an update in time")
        .expect("the client is running")
}

fn against_bots() -> TableSettings {
    TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() }
}

fn game_won(update: &Update) -> bool {
    matches!(update, Update::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. })
}

/// Plays the first legal action at every prompt until the game is won, and
/// cuts the relay once, after `cut_after` actions, if given. Returns every
/// update received.
async fn play_to_the_end(
    client: &Client,
    updates: &mut Updates,
    relay: Option<(&Relay, usize)>,
) -> Vec<Update> {
    let mut seen = Vec::new();
    let mut acted = 0;
    loop {
        let update = next(updates).await;
        seen.push(update.clone());
        if game_won(&update) {
            return seen;
        }
        if let Update::YourTurn { table, actions, .. } = update {
            if let Some((relay, cut_after)) = relay
                && acted == cut_after
            {
                relay.cut();
            }
            match client.act(&table, actions[0]).await {
                Ok(()) => acted += 1,
                // Cut with the action in flight: the table's events say
                // whether it was taken; the next prompt comes after resuming.
                Err(Error::ConnectionLost) => acted += 1,
                Err(error) => panic!("a prompted action was refused: {error}"),
            }
        }
    }
}

/// The seqs of the table's events and snapshots, checked to run on from the
/// first snapshot without a gap or a repeat. Returns how many snapshots came.
fn assert_gap_free(updates: &[Update]) -> usize {
    let mut last = None;
    let mut snapshots = 0;
    for update in updates {
        match update {
            Update::Snapshot { seq, .. } => {
                snapshots += 1;
                last = Some(*seq);
            }
            Update::Event { seq, .. } => {
                let expected = last.map(|last| last + 1);
                assert_eq!(Some(*seq), expected, "events run on from the snapshot, once each");
                last = Some(*seq);
            }
            _ => {}
        }
    }
    assert!(last.is_some(), "the table was seen");
    snapshots
}

#[tokio::test]
async fn a_game_against_bots_is_played_to_the_end() {
    let server = TestServer::start().await;
    let (client, mut updates) =
        Client::connect(config(&server.url(), "Ann")).await.expect("connect");
    assert_eq!(client.identity().player.name, "Ann");
    client.ping().await.expect("pong");
    let created = client.create_table(against_bots()).await.expect("created");
    assert_eq!(created.invite, None);
    let lobby = client.list_tables(LobbyQuery::default()).await.expect("the lobby");
    assert!(lobby.tables.iter().any(|summary| summary.table == created.table));
    assert_eq!(client.sit(&created.table, Some(0), None).await, Ok(0));
    let seen = play_to_the_end(&client, &mut updates, None).await;
    assert_eq!(assert_gap_free(&seen), 1);
    client.close().await;
    loop {
        if let Update::Closed { .. } = next(&mut updates).await {
            break;
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_connection_cut_mid_hand_resumes_without_losing_or_repeating_an_event() {
    let server = TestServer::start().await;
    let relay = Relay::start(&server.url()).await;
    let (client, mut updates) = Client::connect(config(&relay.url, "Ann")).await.expect("connect");
    let table = client.create_table(against_bots()).await.expect("created").table;
    client.sit(&table, Some(0), None).await.expect("seated");
    let seen = play_to_the_end(&client, &mut updates, Some((&relay, 3))).await;
    let dropped = seen.iter().position(|u| matches!(u, Update::Disconnected { .. }));
    let back = seen.iter().position(|u| matches!(u, Update::Reconnected));
    assert!(matches!((dropped, back), (Some(d), Some(b)) if d < b), "dropped, then back");
    // The server still had the missed events: they came again, not a snapshot.
    assert_eq!(assert_gap_free(&seen), 1, "resumed from the last seq, not from a snapshot");
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_comes_a_page_at_a_time_and_is_listed_again_after_a_cut() {
    let server = TestServer::start().await;
    let (ann, _) = Client::connect(config(&server.url(), "Ann")).await.expect("connect");
    let mut tables = Vec::new();
    for _ in 0..2 {
        tables.push(ann.create_table(TableSettings::default()).await.expect("created").table);
    }
    tables.sort();
    // One in play, which the open tables' lobby leaves out.
    let playing = ann.create_table(against_bots()).await.expect("created").table;
    ann.sit(&playing, Some(0), None).await.expect("seated");

    let relay = Relay::start(&server.url()).await;
    let (bob, mut updates) = Client::connect(config(&relay.url, "Bob")).await.expect("connect");
    let filter = LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() };
    let first = LobbyQuery { filter, limit: Some(1), after: None };
    let page = bob.list_tables(first.clone()).await.expect("a page");
    assert_eq!((page.tables.len(), page.total), (1, 2));
    assert_eq!(page.tables[0].table, tables[0]);
    let second = LobbyQuery { after: page.next, ..first.clone() };
    let page = bob.list_tables(second).await.expect("the next page");
    assert_eq!((page.tables[0].table.as_str(), page.next), (tables[1].as_str(), None));
    let refused = bob.list_tables(LobbyQuery { limit: Some(0), ..first }).await;
    assert_eq!(refused.expect_err("limit 0").code(), Some("bad_query"));

    // Cut: back online, the first page of the same filter comes again
    // (the pages listed before were delivered as updates too: skip them).
    relay.cut();
    while !matches!(next(&mut updates).await, Update::Reconnected) {}
    let relisted = loop {
        if let Update::Lobby(page) = next(&mut updates).await {
            break page;
        }
    };
    assert_eq!((relisted.after, relisted.total, relisted.tables.len()), (None, 2, 1));
    assert_eq!(relisted.tables[0].table, tables[0]);
    server.stop().await;
}

#[tokio::test]
async fn refusals_come_back_as_typed_errors_and_change_nothing() {
    let server = TestServer::start().await;
    let (ann, mut updates) = Client::connect(config(&server.url(), "Ann")).await.expect("connect");
    let (bob, _bob_updates) = Client::connect(config(&server.url(), "Bob")).await.expect("connect");
    let code = |result: Result<(), Error>| result.expect_err("refused").code().map(str::to_owned);

    let bad = TableSettings { bot_seats: vec![7], ..TableSettings::default() };
    let refused = ann.create_table(bad).await.expect_err("bad bot seat");
    assert_eq!(refused.code(), Some("bad_settings"));
    let refused = ann.sit("no-such-table", None, None).await.expect_err("no table");
    assert_eq!(refused.code(), Some("no_such_table"));

    let table = ann.create_table(against_bots()).await.expect("created").table;
    assert_eq!(code(ann.act(&table, Action::Pass).await).as_deref(), Some("not_seated"));
    let refused = ann.sit(&table, Some(9), None).await.expect_err("no such seat");
    assert_eq!(refused.code(), Some("no_such_seat"));
    assert_eq!(code(bob.start(&table).await).as_deref(), Some("not_host"));
    let refused = bob.sit(&table, Some(1), None).await.expect_err("a bot's seat");
    assert_eq!(refused.code(), Some("seat_taken"));

    ann.sit(&table, Some(0), None).await.expect("seated");
    assert_eq!(code(ann.chat(&table, "   ").await).as_deref(), Some("bad_chat"));
    // At the first prompt: a card the prompt does not offer, refused by the
    // rules; then the prompt's own action is still accepted. (The first
    // prompt is usually a bid, but may be a play if a bot ordered up.)
    let actions = loop {
        if let Update::YourTurn { actions, .. } = next(&mut updates).await {
            break actions;
        }
    };
    let card = (0..24)
        .map(Card::from_index)
        .find(|&card| !actions.contains(&Action::Play { card }))
        .expect("a card not offered");
    let refused = ann.act(&table, Action::Play { card }).await.expect_err("not offered");
    assert!(refused.code().is_some_and(|code| !code.is_empty()), "{refused:?}");
    assert_eq!(ann.act(&table, actions[0]).await, Ok(()));

    // The token brings the same player back, to the same seat.
    let token = ann.identity().token.clone();
    let again = config(&server.url(), "ignored").with_token(token);
    let (ann_again, _) = Client::connect(again).await.expect("connect");
    assert_eq!(ann_again.identity().player, ann.identity().player);
    let refused = ann_again.sit(&table, None, None).await.expect_err("already seated");
    assert_eq!(refused.code(), Some("already_seated"));
    let forged = config(&server.url(), "x").with_token("not-a-token");
    let refused = Client::connect(forged).await.expect_err("a forged token");
    assert_eq!(refused.code(), Some("bad_token"));
    server.stop().await;
}

/// A scripted server: it welcomes the client, then answers its frames with
/// `script`, one list of server messages per client message received.
async fn scripted_server(
    script: Vec<Vec<euchre_protocol::ServerMessage>>,
) -> (String, JoinHandle<Vec<euchre_protocol::ClientMessage>>) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("ws://{}/ws", listener.local_addr().expect("address"));
    let task = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.expect("a client");
        let mut socket = tokio_tungstenite::accept_async(stream).await.expect("a websocket");
        let mut received = Vec::new();
        let mut script = script.into_iter();
        while let Some(Ok(Message::Text(text))) = socket.next().await {
            let message: euchre_protocol::ClientMessage =
                serde_json::from_str(&text).expect("a client message");
            received.push(message);
            let Some(answers) = script.next() else { break };
            for answer in answers {
                let text = serde_json::to_string(&answer).expect("json");
                socket.send(Message::Text(text.into())).await.expect("sent");
            }
        }
        received
    });
    (url, task)
}

#[tokio::test]
async fn a_gap_in_a_tables_events_is_refilled_by_a_resume_and_repeats_are_dropped() {
    use euchre_protocol::{PlayerInfo, ServerMessage, TableNotice};
    let player = PlayerInfo { id: "p1".into(), name: "Ann".into() };
    let chat = |seq: u64| ServerMessage::Event {
        table: "t".into(),
        seq,
        event: Some(TableEvent::Table(TableNotice::Chat {
            from: "Bob".into(),
            text: seq.to_string(),
            from_id: None,
        })),
    };
    let ack = |id, reply| ServerMessage::Ack { id, reply };
    let script = vec![
        // hello (id 1)
        vec![ServerMessage::Welcome {
            id: 1,
            protocol_version: euchre_protocol::PROTOCOL_VERSION,
            player,
            token: "secret".into(),
        }],
        // watch (id 2): events 1 and 2, then 4 (3 went missing), and the ack.
        vec![
            chat(1),
            chat(2),
            chat(4),
            ack(2, euchre_protocol::Reply::Watching { table: "t".into() }),
        ],
        // resume (id 3) from 2: 3 and 4 again, the ack, then 4 repeated and 5.
        vec![
            chat(3),
            chat(4),
            ack(3, euchre_protocol::Reply::Resumed { table: "t".into(), snapshot: false }),
            chat(4),
            chat(5),
        ],
    ];
    let (url, server) = scripted_server(script).await;
    let (client, mut updates) = Client::connect(config(&url, "Ann")).await.expect("connect");
    client.watch("t", None).await.expect("watching");
    let mut seqs = Vec::new();
    while seqs.len() < 5 {
        if let Update::Event { seq, .. } = next(&mut updates).await {
            seqs.push(seq);
        }
    }
    assert_eq!(seqs, [1, 2, 3, 4, 5], "in order, each once");
    client.close().await;
    let received = tokio::time::timeout(PATIENCE, server).await.expect("done").expect("ran");
    assert!(
        matches!(received.get(2), Some(euchre_protocol::ClientMessage::Resume { last_seq: 2, .. })),
        "the client asked for the events after 2: {received:?}"
    );
}

/// A prompt stands until an event moves the game: the table's notices that
/// follow it (here a rating, which comes a moment after `game_won`, after
/// the next game's first prompt) leave it standing, even when they have
/// arrived before it is read. The load generator's tables stopped on this.
#[tokio::test]
async fn a_rating_after_a_prompt_leaves_the_prompt_standing() {
    use euchre_engine::{PerTeam, Rules, Team};
    use euchre_protocol::{PlayerInfo, Reply, SeatRating, ServerMessage, TableNotice};
    let player = PlayerInfo { id: "p1".into(), name: "Ann".into() };
    let event = |seq: u64, event: Option<TableEvent>| ServerMessage::Event {
        table: "t".into(),
        seq,
        event,
    };
    let notice = |seq, notice| event(seq, Some(TableEvent::Table(notice)));
    let rating =
        |seat| SeatRating { seat, player_id: format!("p{seat}"), rating: 1620, change: 20 };
    let rated =
        TableNotice::Rated { form: "partnership".into(), ratings: (0..4).map(rating).collect() };
    let script = vec![
        // hello (id 1)
        vec![ServerMessage::Welcome {
            id: 1,
            protocol_version: euchre_protocol::PROTOCOL_VERSION,
            player,
            token: "secret".into(),
        }],
        // chat (id 2): before its answer, the end of a game, the next
        // one's first deal and prompt, and the first game's rating.
        vec![
            event(
                40,
                Some(TableEvent::Game(Event::GameWon { team: Team(0), scores: PerTeam::new(2) })),
            ),
            notice(41, TableNotice::GameStarted { game: 2, rules: Rules::default() }),
            event(42, None),
            ServerMessage::YourTurn {
                table: "t".into(),
                seq: 42,
                actions: vec![Action::Pass],
                deadline_ms: None,
            },
            notice(43, rated),
            ServerMessage::Ack { id: 2, reply: Reply::Done },
        ],
        // act (id 3)
        vec![ServerMessage::Ack { id: 3, reply: Reply::Done }],
    ];
    let (url, server) = scripted_server(script).await;
    let (client, mut updates) = Client::connect(config(&url, "Ann")).await.expect("connect");
    // Answered: everything sent before the answer has arrived, and nothing
    // has been read yet.
    client.chat("t", "gg").await.expect("answered");
    let mut read = Vec::new();
    let actions = loop {
        match next(&mut updates).await {
            Update::YourTurn { seq, actions, .. } => {
                assert_eq!(seq, 42);
                break actions;
            }
            other => read.push(other),
        }
    };
    client.act("t", actions[0]).await.expect("acted on the prompt");
    // The rating still comes, after the prompt.
    let Update::Event { seq: 43, .. } = next(&mut updates).await else { panic!("the rating") };
    assert_eq!(read.len(), 3, "the game's end, the new game and the deal: {read:?}");
    client.close().await;
    tokio::time::timeout(PATIENCE, server).await.expect("done").expect("ran");
}

/// A session returns every message as the server sent it, in order, the
/// ones read while a request waited for its answer included, and judges
/// prompts by the client's rule: a rating after a prompt leaves it
/// standing, a card played makes it stale.
#[tokio::test]
async fn a_session_returns_every_message_in_order_and_judges_prompts_by_the_rule() {
    use euchre_client::Session;
    use euchre_engine::{PerTeam, Rules, Seat, Team};
    use euchre_protocol::{
        ClientMessage, PlayerInfo, Reply, SeatRating, ServerMessage, TableNotice,
    };
    let event = |seq: u64, event: Option<TableEvent>| ServerMessage::Event {
        table: "t".into(),
        seq,
        event,
    };
    let rating =
        |seat| SeatRating { seat, player_id: format!("p{seat}"), rating: 1620, change: 20 };
    let rated =
        TableNotice::Rated { form: "partnership".into(), ratings: (0..4).map(rating).collect() };
    let won = Event::GameWon { team: Team(0), scores: PerTeam::new(2) };
    let prompt = ServerMessage::YourTurn {
        table: "t".into(),
        seq: 42,
        actions: vec![Action::Pass],
        deadline_ms: None,
    };
    let before_the_answer = vec![
        event(40, Some(TableEvent::Game(won))),
        event(
            41,
            Some(TableEvent::Table(TableNotice::GameStarted { game: 2, rules: Rules::default() })),
        ),
        event(42, None),
        prompt.clone(),
        event(43, Some(TableEvent::Table(rated))),
    ];
    let played =
        event(44, Some(TableEvent::Game(Event::CardPlayed { seat: Seat(1), card: Card::JOKER })));
    let player = PlayerInfo { id: "p1".into(), name: "Ann".into() };
    let welcome = ServerMessage::Welcome {
        id: 1,
        protocol_version: euchre_protocol::PROTOCOL_VERSION,
        player,
        token: "secret".into(),
    };
    let mut chat_answer = before_the_answer.clone();
    chat_answer.push(ServerMessage::Ack { id: 2, reply: Reply::Done });
    let script = vec![vec![welcome], chat_answer, vec![played.clone()]];
    let (url, server) = scripted_server(script).await;

    let mut session = Session::connect(&url).await.expect("connect");
    let identity = session.hello("Ann", None).await.expect("welcome");
    assert_eq!(identity.token, "secret");
    let id = session.next_id();
    let chat = ClientMessage::Chat { id, table: "t".into(), text: "gg".into() };
    assert_eq!(session.request(&chat).await, Ok(Reply::Done));
    // Nothing read yet counts: the prompt is judged on what recv returned.
    assert_eq!(session.last_seq("t"), None);
    let mut arrivals = Vec::new();
    for expected in before_the_answer {
        let received = session.recv().await.expect("a message");
        assert_eq!(received.message, expected);
        arrivals.push(received.at);
    }
    assert!(arrivals.is_sorted(), "each frame stamped as it was read");
    assert_eq!(session.last_seq("t"), Some(43));
    assert!(session.prompt_stands("t", 42), "a rating leaves the prompt standing");
    let id = session.next_id();
    let sent = session.send(&ClientMessage::Ping { id }).await.expect("sent");
    let received = session.recv().await.expect("a message");
    assert_eq!(received.message, played);
    assert!(received.at >= sent);
    assert!(!session.prompt_stands("t", 42), "a card played makes it stale");
    drop(session);
    let sent = tokio::time::timeout(PATIENCE, server).await.expect("done").expect("ran");
    assert_eq!(sent.len(), 3, "hello, chat, ping: {sent:?}");
}

#[tokio::test]
async fn a_session_ended_by_the_server_stops_the_client_instead_of_retrying() {
    use euchre_protocol::{ClientMessage, PlayerInfo, ServerMessage, close};
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;

    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("ws://{}/ws", listener.local_addr().expect("address"));
    // The server: welcomes, then ends the session (4003); every later hello
    // with that token is refused as expired. It counts the hellos it refused.
    let server = tokio::spawn(async move {
        let mut refused = 0;
        for connection in 0.. {
            let Ok(Ok((stream, _))) =
                tokio::time::timeout(Duration::from_secs(2), listener.accept()).await
            else {
                break;
            };
            let mut socket = tokio_tungstenite::accept_async(stream).await.expect("a websocket");
            let Some(Ok(Message::Text(text))) = socket.next().await else { continue };
            let hello: ClientMessage = serde_json::from_str(&text).expect("a client message");
            let ClientMessage::Hello { id, .. } = hello else { panic!("not a hello: {hello:?}") };
            let answer = if connection == 0 {
                ServerMessage::Welcome {
                    id,
                    protocol_version: euchre_protocol::PROTOCOL_VERSION,
                    player: PlayerInfo { id: "p1".into(), name: "Ann".into() },
                    token: "a-session".into(),
                }
            } else {
                refused += 1;
                ServerMessage::Error {
                    id: Some(id),
                    code: "session_expired".into(),
                    message: "your session has expired; log in again".into(),
                }
            };
            let text = serde_json::to_string(&answer).expect("json");
            socket.send(Message::Text(text.into())).await.expect("sent");
            if connection == 0 {
                let frame = CloseFrame { code: close::SESSION_ENDED.into(), reason: "".into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
            }
        }
        refused
    });

    let (_client, mut updates) = Client::connect(config(&url, "Ann")).await.expect("connect");
    let reason = loop {
        if let Update::Closed { reason } = next(&mut updates).await {
            break reason;
        }
    };
    assert!(reason.starts_with("session_expired"), "{reason}");
    assert_eq!(server.await.expect("the server ran"), 1, "one refused hello, then no retries");
}

/// The first quick-play notice on `updates`, skipping the rest.
async fn quick_play_news(updates: &mut Updates) -> Update {
    loop {
        let update = next(updates).await;
        if matches!(update, Update::QuickPlayMatched { .. } | Update::QuickPlayEnded { .. }) {
            return update;
        }
    }
}

#[tokio::test]
async fn quick_play_seats_two_strangers_and_cancel_tells_the_other_tab() {
    let server = TestServer::start_with(|settings| settings.quick_play.wave_ms = 100).await;
    let (ann, mut ann_updates) =
        Client::connect(config(&server.url(), "Ann")).await.expect("connect");
    let (bob, mut bob_updates) =
        Client::connect(config(&server.url(), "Bob")).await.expect("connect");
    let two_handed = QuickPlayRequest::new(Preset::TwoHandedPlain, false);
    assert_eq!(ann.quick_play(two_handed.clone()).await, Ok(None));
    let again = ann.quick_play(two_handed.clone()).await.expect_err("one request at a time");
    assert_eq!(again.code(), Some("already_queued"));
    assert_eq!(bob.quick_play(two_handed).await, Ok(None));
    let mut tables = Vec::new();
    for updates in [&mut ann_updates, &mut bob_updates] {
        let Update::QuickPlayMatched { table, seat } = quick_play_news(updates).await else {
            panic!("matched")
        };
        // The snapshot follows, for the seat the pool gave.
        let Update::Snapshot { table: shown, state, .. } = next(updates).await else {
            panic!("the snapshot")
        };
        assert_eq!((shown, state.your_seat), (table.clone(), Some(seat)));
        tables.push(table);
    }
    assert_eq!(tables[0], tables[1]);

    // A request held by two connections of one player: cancelling on one
    // tells the other.
    let (cid, mut cid_updates) =
        Client::connect(config(&server.url(), "Cid")).await.expect("connect");
    let mut same = config(&server.url(), "Cid");
    same.token = Some(cid.identity().token.clone());
    let (cid_again, _) = Client::connect(same).await.expect("connect");
    let invite =
        QuickPlayRequest { invite_partner: true, ..QuickPlayRequest::new(Preset::Standard, false) };
    let code = cid.quick_play(invite).await.expect("queued");
    assert_eq!(code.as_ref().map(String::len), Some(10), "a team code");
    assert_eq!(cid_again.cancel_quick_play().await, Ok(()));
    let Update::QuickPlayEnded { reason, .. } = quick_play_news(&mut cid_updates).await else {
        panic!("ended")
    };
    assert_eq!(reason, QuickPlayEndReason::Cancelled);
    let nothing = cid.cancel_quick_play().await.expect_err("nothing to cancel");
    assert_eq!(nothing.code(), Some("not_queued"));
    server.stop().await;
}
