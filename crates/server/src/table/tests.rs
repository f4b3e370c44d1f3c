//! The actor on its own, with the clock paused: bots, grace periods,
//! turn timers and slow receivers, without a socket or a real sleep.

use std::sync::Arc;
use std::time::Duration;

use euchre_engine::{Action, Event, Seat};
use euchre_protocol::{Reply, ServerMessage, TableNotice};
use tokio::task::JoinHandle;

use super::bots::{Decision, position};
use super::*;
use crate::frame::Frame;

fn config() -> TableConfig {
    TableConfig {
        event_ring: 64,
        bot_delay: Duration::from_millis(500),
        reconnect_grace: Duration::from_secs(10),
        idle_close: Duration::from_secs(600),
        metrics: Arc::default(),
        ratings: None,
        analyses: None,
        spectators: 0,
        social: None,
        rematch_wait: std::time::Duration::from_secs(60),
    }
}

fn player(name: &str) -> PlayerInfo {
    PlayerInfo { id: format!("id-{name}"), name: name.to_owned() }
}

struct Harness {
    handle: TableHandle,
    _task: JoinHandle<()>,
}

fn table(settings: TableSettings) -> Harness {
    let (table, handle, rx) = unstarted(settings, BotKind::Basic);
    Harness { handle, _task: tokio::spawn(table.run(rx, CancellationToken::new())) }
}

/// A table, its handle and its mailbox, not yet running.
fn unstarted(
    settings: TableSettings,
    bot: BotKind,
) -> (Table, TableHandle, mpsc::Receiver<TableMessage>) {
    let rules = settings.resolve_rules().expect("rules");
    let spec = TableSpec {
        id: "t".into(),
        host: player("host"),
        settings,
        rules,
        bot_kind: bot,
        invite: None,
    };
    Table::new(spec, config(), Registry::default(), None)
}

struct Receiver {
    conn: ConnId,
    who: PlayerInfo,
    outbox: Outbox,
    rx: mpsc::Receiver<Frame>,
    too_slow: CancellationToken,
}

fn receiver(conn: ConnId, who: &str, capacity: usize) -> Receiver {
    let (tx, rx) = mpsc::channel(capacity);
    let too_slow = CancellationToken::new();
    Receiver { conn, who: player(who), outbox: Outbox::new(tx, too_slow.clone()), rx, too_slow }
}

impl Harness {
    async fn ask(&self, from: &Receiver, request: Request) {
        let command = TableCommand {
            id: 1,
            conn: from.conn,
            player: from.who.clone().into(),
            outbox: from.outbox.clone(),
            request,
            received: std::time::Instant::now(),
        };
        assert!(self.handle.send(TableMessage::Command(command)).await);
        settle().await;
    }
}

/// Lets the actor run everything it can at the current (paused) time.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

async fn pass_time(duration: Duration) {
    tokio::time::advance(duration).await;
    settle().await;
}

fn drain(rx: &mut mpsc::Receiver<Frame>) -> Vec<ServerMessage> {
    std::iter::from_fn(|| rx.try_recv().ok()).filter_map(Frame::into_message).collect()
}

fn game_events(messages: &[ServerMessage]) -> Vec<Event> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } => Some(*event),
            _ => None,
        })
        .collect()
}

/// The seat whose action an event records, if it records one.
fn actor(event: &Event) -> Option<Seat> {
    match *event {
        Event::Passed { seat }
        | Event::TrumpMade { seat, .. }
        | Event::Discarded { seat, .. }
        | Event::CardPlayed { seat, .. } => Some(seat),
        _ => None,
    }
}

#[tokio::test(start_paused = true)]
async fn bots_act_after_their_delay() {
    let harness = table(TableSettings { bot_seats: vec![0, 1, 2, 3], ..Default::default() });
    let mut host = receiver(1, "host", 1024);
    harness.ask(&host, Request::Watch { invite: None }).await;
    harness.ask(&host, Request::Start).await;
    let started = drain(&mut host.rx);
    assert!(game_events(&started).iter().any(|e| matches!(e, Event::HandDealt { .. })));
    assert!(game_events(&started).iter().all(|e| actor(e).is_none()), "nobody acted yet");
    pass_time(Duration::from_millis(490)).await;
    assert!(game_events(&drain(&mut host.rx)).is_empty(), "too early for a bot");
    pass_time(Duration::from_millis(20)).await;
    let acted = game_events(&drain(&mut host.rx));
    assert_eq!(acted.iter().filter(|e| actor(e).is_some()).count(), 1, "{acted:?}");
}

/// A bot that says when it starts to think, and thinks until released:
/// a search bot's slow decision, made as slow as the test needs.
#[derive(Debug)]
struct GatedBot {
    seat: Seat,
    started: std::sync::mpsc::Sender<Seat>,
    release: std::sync::mpsc::Receiver<()>,
}

impl Bot for GatedBot {
    fn choose(&mut self, view: &euchre_engine::GameView, legal: &[Action]) -> Option<Action> {
        let _ = self.started.send(self.seat);
        let _ = self.release.recv();
        euchre_bots::BasicBot::new().choose(view, legal)
    }
}

/// A hard bot decides on the blocking pool: while it thinks, the table
/// takes a spectator and passes on chat, and the bot's action still
/// comes when it is done.
#[tokio::test(start_paused = true)]
async fn a_table_answers_while_its_search_bot_thinks() {
    let settings = TableSettings { bot_seats: vec![0, 1, 2, 3], ..Default::default() };
    let (mut table, handle, rx) = unstarted(settings, BotKind::Hard);
    let (started_tx, started) = std::sync::mpsc::channel();
    let mut releases = Vec::new();
    for (index, state) in table.seats.iter_mut().enumerate() {
        assert!(matches!(state.sitter, Some(Sitter::Bot(BotKind::Hard))));
        let (release_tx, release) = std::sync::mpsc::channel();
        let seat = Seat(index as u8);
        state.bot = Some(Box::new(GatedBot { seat, started: started_tx.clone(), release }));
        releases.push(release_tx);
    }
    let harness = Harness { handle, _task: tokio::spawn(table.run(rx, CancellationToken::new())) };
    let mut host = receiver(1, "host", 1024);
    harness.ask(&host, Request::Watch { invite: None }).await;
    harness.ask(&host, Request::Start).await;
    drain(&mut host.rx);
    pass_time(Duration::from_millis(510)).await;
    // The actor handed the decision over and went back to its mailbox.
    let thinking = started.recv_timeout(Duration::from_secs(30)).expect("a bot starts thinking");

    let mut watcher = receiver(2, "watcher", 1024);
    harness.ask(&watcher, Request::Watch { invite: None }).await;
    harness.ask(&host, Request::Chat("still there?".into())).await;
    let seen = drain(&mut watcher.rx);
    assert!(seen.iter().any(|m| matches!(m, ServerMessage::Snapshot { .. })), "{seen:?}");
    let chat = |m: &ServerMessage| {
        matches!(
            m,
            ServerMessage::Event { event: Some(TableEvent::Table(TableNotice::Chat { .. })), .. }
        )
    };
    assert!(seen.iter().any(chat), "{seen:?}");
    assert!(
        game_events(&drain(&mut host.rx)).iter().all(|e| actor(e).is_none()),
        "nobody acted yet"
    );

    releases[thinking.index()].send(()).expect("the bot waits");
    let mut acted = Vec::new();
    for _ in 0..10_000 {
        settle().await;
        acted.extend(game_events(&drain(&mut host.rx)).into_iter().filter_map(|e| actor(&e)));
        if !acted.is_empty() {
            break;
        }
        // The decision comes from another thread: give it a moment. This
        // test's loop is synchronous, not a task on a runtime.
        #[expect(clippy::disallowed_methods, reason = "a plain test loop, no runtime to block")]
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(acted, vec![thinking], "the thinking bot's seat acted, once");
}

/// A decision that comes back is applied only at the position it was
/// made for, and only while the seat's move is due: one that a player's
/// move, or the same decision applied before, has overtaken is dropped.
#[tokio::test(start_paused = true)]
async fn a_bot_decision_is_applied_only_where_it_was_made() {
    let settings = TableSettings { bot_seats: vec![0, 1, 2, 3], ..Default::default() };
    let (mut table, _handle, _rx) = unstarted(settings, BotKind::Hard);
    let host = receiver(1, "host", 1024);
    for request in [Request::Watch { invite: None }, Request::Start] {
        table.handle(TableMessage::Command(TableCommand {
            id: 1,
            conn: host.conn,
            player: host.who.clone().into(),
            outbox: host.outbox.clone(),
            request,
            received: std::time::Instant::now(),
        }));
    }
    let game = table.game.as_ref().expect("the game started");
    let seat = game.turn().expect("a seat to act");
    let action = game.legal_actions(seat).into_iter().find(|a| *a != Action::Concede);
    let here = position(table.games_started, game);
    let decision = |position| Decision { seat, position, bot: None, action };
    let taken = |table: &Table| table.game.as_ref().map(|game| position(0, game).2);
    assert_eq!(taken(&table), Some(0));

    table.thinking = true;
    table.decided(decision(here));
    assert_eq!(taken(&table), Some(0), "not applied before the bot's delay is up");
    assert!(!table.thinking, "but the table may ask again");
    tokio::time::advance(config().bot_delay).await;
    table.decided(decision((here.0, here.1, here.2 + 1)));
    assert_eq!(taken(&table), Some(0), "not applied at another position");
    table.decided(decision(here));
    assert_eq!(taken(&table), Some(1), "applied where it was made, once due");
    table.decided(decision(here));
    assert_eq!(taken(&table), Some(1), "not applied twice");
}

/// Runs bots until it is seat 0's turn, returning what seat 0 was sent.
async fn until_seat_zero_turn(rx: &mut mpsc::Receiver<Frame>) -> Vec<ServerMessage> {
    let mut seen = Vec::new();
    for _ in 0..20 {
        seen.extend(drain(rx));
        if seen.iter().any(|m| matches!(m, ServerMessage::YourTurn { .. })) {
            return seen;
        }
        pass_time(Duration::from_millis(500)).await;
    }
    panic!("seat 0 never got a turn: {seen:?}");
}

#[tokio::test(start_paused = true)]
async fn an_absent_player_is_played_by_a_bot_after_the_grace_period() {
    let harness = table(TableSettings { bot_seats: vec![1, 2, 3], ..Default::default() });
    let mut ann = receiver(1, "ann", 1024);
    let mut watcher = receiver(2, "watcher", 1024);
    harness.ask(&watcher, Request::Watch { invite: None }).await;
    harness.ask(&ann, Request::Sit { seat: Some(0), invite: None, avoid: Vec::new() }).await;
    until_seat_zero_turn(&mut ann.rx).await;
    drain(&mut watcher.rx);
    assert!(harness.handle.send(TableMessage::Disconnected { conn: ann.conn }).await);
    settle().await;
    let told = drain(&mut watcher.rx);
    let presence = told.iter().find_map(|m| match m {
        ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Presence { seat, connected, grace_ms })),
            ..
        } => Some((*seat, *connected, *grace_ms)),
        _ => None,
    });
    assert_eq!(presence, Some((0, false, Some(10_000))));
    pass_time(Duration::from_millis(9_990)).await;
    assert!(game_events(&drain(&mut watcher.rx)).is_empty(), "the seat waits for its player");
    pass_time(Duration::from_millis(20)).await;
    let played = game_events(&drain(&mut watcher.rx));
    assert_eq!(played.iter().find_map(actor), Some(Seat(0)), "a bot played for seat 0");
}

#[tokio::test(start_paused = true)]
async fn a_turn_timer_lets_a_bot_act_for_a_slow_player() {
    let settings =
        TableSettings { bot_seats: vec![1, 2, 3], turn_seconds: Some(5), ..Default::default() };
    let harness = table(settings);
    let mut ann = receiver(1, "ann", 1024);
    harness.ask(&ann, Request::Sit { seat: Some(0), invite: None, avoid: Vec::new() }).await;
    let seen = until_seat_zero_turn(&mut ann.rx).await;
    let deadline = seen.iter().find_map(|m| match m {
        ServerMessage::YourTurn { deadline_ms, .. } => *deadline_ms,
        _ => None,
    });
    assert_eq!(deadline, Some(5_000));
    pass_time(Duration::from_millis(4_990)).await;
    assert!(game_events(&drain(&mut ann.rx)).is_empty());
    pass_time(Duration::from_millis(20)).await;
    let played = game_events(&drain(&mut ann.rx));
    assert_eq!(played.iter().find_map(actor), Some(Seat(0)));
}

/// Found by fuzzing the connection: a resume whose missed events (still
/// in the ring) outnumber the connection's queue filled it, the
/// connection was dropped as too slow, and its next resume the same.
#[tokio::test(start_paused = true)]
async fn a_resume_longer_than_the_queue_gets_a_snapshot_instead() {
    let harness = table(TableSettings { bot_seats: vec![0, 1, 2, 3], ..Default::default() });
    let mut host = receiver(1, "host", 4096);
    harness.ask(&host, Request::Watch { invite: None }).await;
    harness.ask(&host, Request::Start).await;
    for _ in 0..200 {
        pass_time(Duration::from_millis(500)).await;
    }
    let seen = drain(&mut host.rx);
    let newest = seen.iter().filter_map(|m| match m {
        ServerMessage::Event { seq, .. } => Some(*seq),
        _ => None,
    });
    let newest = newest.max().expect("events");
    assert!(newest > 100, "the table has a long history");
    // A small queue, resuming from an event the ring (of 64) still has.
    let mut small = receiver(2, "small", 32);
    harness.ask(&small, Request::Resume { last_seq: newest - 60 }).await;
    let answers = drain(&mut small.rx);
    assert!(!small.too_slow.is_cancelled(), "the resume did not overflow the queue");
    assert!(matches!(answers.first(), Some(ServerMessage::Snapshot { .. })), "{answers:?}");
    let resumed = answers.iter().find_map(|m| match m {
        ServerMessage::Ack { reply: Reply::Resumed { snapshot, .. }, .. } => Some(*snapshot),
        _ => None,
    });
    assert_eq!(resumed, Some(true));
    // A short tail is still replayed event by event.
    let mut caught_up = receiver(3, "caught-up", 32);
    let now = answers.iter().find_map(|m| match m {
        ServerMessage::Snapshot { seq, .. } => Some(*seq),
        _ => None,
    });
    harness.ask(&caught_up, Request::Resume { last_seq: now.expect("a snapshot") - 2 }).await;
    let replayed = drain(&mut caught_up.rx);
    assert!(replayed.iter().all(|m| !matches!(m, ServerMessage::Snapshot { .. })));
    assert!(replayed.iter().filter(|m| matches!(m, ServerMessage::Event { .. })).count() >= 2);
}

#[tokio::test(start_paused = true)]
async fn a_receiver_that_falls_behind_is_dropped_and_the_table_plays_on() {
    let harness = table(TableSettings { bot_seats: vec![0, 1, 2, 3], ..Default::default() });
    let mut host = receiver(1, "host", 4096);
    let slow = receiver(2, "slow", 2);
    harness.ask(&host, Request::Watch { invite: None }).await;
    harness.ask(&slow, Request::Watch { invite: None }).await;
    harness.ask(&host, Request::Start).await;
    for _ in 0..10 {
        pass_time(Duration::from_millis(500)).await;
    }
    assert!(slow.too_slow.is_cancelled(), "the slow receiver was told to go");
    let seen = game_events(&drain(&mut host.rx));
    assert!(seen.iter().filter(|e| actor(e).is_some()).count() >= 10, "the table went on");
}

/// A table quick play formed (no host), casual, to one point, with a turn
/// timer, `people` in their seats (the others bots), running.
fn pool_table(people: &[Option<&str>], rated: bool) -> Harness {
    let settings = TableSettings {
        rules: serde_json::json!({ "points_to_win": 1 }).as_object().cloned(),
        bot_seats: (0u8..).zip(people).filter(|(_, p)| p.is_none()).map(|(s, _)| s).collect(),
        turn_seconds: Some(5),
        private: true,
        rated,
        ..Default::default()
    };
    let rules = settings.resolve_rules().expect("rules");
    let spec = TableSpec {
        id: "t".into(),
        host: quick_play_host(),
        settings,
        rules,
        bot_kind: BotKind::Basic,
        invite: None,
    };
    let (mut table, handle, rx) = Table::new(spec, config(), Registry::default(), None);
    let seats: Vec<Option<PlayerInfo>> = people.iter().map(|p| p.map(player)).collect();
    table.seat_matched(&seats);
    Harness { handle, _task: tokio::spawn(table.run(rx, CancellationToken::new())) }
}

/// Lets time pass (the turn timer and the bots play) until `rx` sees the
/// game won; what it saw.
async fn play_out(rx: &mut mpsc::Receiver<Frame>) -> Vec<ServerMessage> {
    let mut seen = Vec::new();
    for _ in 0..5_000 {
        pass_time(Duration::from_secs(1)).await;
        seen.extend(drain(rx));
        if game_events(&seen).iter().any(|e| matches!(e, Event::GameWon { .. })) {
            return seen;
        }
    }
    panic!("the game did not end")
}

fn notices(messages: &[ServerMessage]) -> Vec<TableNotice> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Event { event: Some(TableEvent::Table(notice)), .. } => {
                Some(notice.clone())
            }
            _ => None,
        })
        .collect()
}

fn games_started(messages: &[ServerMessage]) -> Vec<u32> {
    notices(messages)
        .into_iter()
        .filter_map(|n| match n {
            TableNotice::GameStarted { game, .. } => Some(game),
            _ => None,
        })
        .collect()
}

fn answers(messages: &[ServerMessage]) -> Vec<Result<Reply, String>> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Ack { reply, .. } => Some(Ok(reply.clone())),
            ServerMessage::Error { code, .. } => Some(Err(code.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn alone_with_bots_a_rematch_at_a_pool_table_starts_at_once() {
    let harness = pool_table(&[Some("Ann"), None, None, None], false);
    let mut ann = receiver(1, "Ann", 4096);
    harness.ask(&ann, Request::Matched).await;
    let first = play_out(&mut ann.rx).await;
    assert_eq!(games_started(&first), vec![1]);
    harness.ask(&ann, Request::Rematch).await;
    let after = drain(&mut ann.rx);
    assert_eq!(answers(&after), vec![Ok(Reply::Done)], "no host needed");
    assert_eq!(games_started(&after), vec![2], "the next game, at once");
}

#[tokio::test(start_paused = true)]
async fn a_pool_rematch_starts_when_everyone_seated_asks_or_bots_take_the_silent_seats() {
    let harness = pool_table(&[Some("Ann"), None, Some("Bob"), None], false);
    let mut ann = receiver(1, "Ann", 8192);
    let mut bob = receiver(2, "Bob", 8192);
    harness.ask(&ann, Request::Matched).await;
    harness.ask(&bob, Request::Matched).await;
    play_out(&mut ann.rx).await;
    drain(&mut bob.rx);
    // Ann asks: Bob is told, and has the wait to answer.
    harness.ask(&ann, Request::Rematch).await;
    let seen = drain(&mut bob.rx);
    let vote = notices(&seen).into_iter().find(|n| matches!(n, TableNotice::RematchVote { .. }));
    assert_eq!(
        vote,
        Some(TableNotice::RematchVote { asked: vec![0], deadline_ms: Some(60_000) }),
        "{seen:?}"
    );
    assert!(games_started(&seen).is_empty(), "not before Bob asks");
    harness.ask(&bob, Request::Rematch).await;
    let seen = drain(&mut bob.rx);
    assert_eq!(answers(&seen), vec![Ok(Reply::Done)]);
    assert_eq!(games_started(&seen), vec![2], "both asked: the same seats play again");
    // The second game: Ann asks, Bob says nothing; when the wait is over a
    // bot takes his seat and the third game starts.
    play_out(&mut ann.rx).await;
    harness.ask(&ann, Request::Rematch).await;
    pass_time(Duration::from_secs(59)).await;
    assert!(games_started(&drain(&mut ann.rx)).is_empty(), "Bob still has a second");
    pass_time(Duration::from_secs(2)).await;
    let seen = drain(&mut ann.rx);
    assert_eq!(games_started(&seen), vec![3]);
    let bot_in_bobs_seat = notices(&seen)
        .into_iter()
        .any(|n| matches!(n, TableNotice::SeatTaken { seat: 2, occupant: Occupant::Bot { .. } }));
    assert!(bot_in_bobs_seat, "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn a_rated_pool_game_has_no_rematch_once_a_player_left() {
    let harness = pool_table(&[Some("Ann"), Some("Bob"), Some("Cid"), Some("Dee")], true);
    let mut people: Vec<Receiver> =
        ["Ann", "Bob", "Cid", "Dee"].iter().zip(1..).map(|(n, c)| receiver(c, n, 8192)).collect();
    for person in &people {
        harness.ask(person, Request::Matched).await;
    }
    play_out(&mut people[0].rx).await;
    harness.ask(&people[3], Request::Leave).await;
    harness.ask(&people[0], Request::Rematch).await;
    let seen = drain(&mut people[0].rx);
    assert_eq!(answers(&seen), vec![Err("no_rematch".to_owned())]);
    assert!(games_started(&seen).is_empty());
}
