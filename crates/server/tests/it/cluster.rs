//! A table whose writes go to its shard's log on NATS JetStream (the
//! cluster's `Durability`), taken over by another node mid-hand: every
//! acknowledged action is in what the new node rebuilds, the old node
//! stops at its next write without acknowledging it, and play goes on on
//! the new node. (The table actors run here side by side, as two nodes'
//! would; the whole nodes' tests follow further down.)

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use euchre_bots::BotKind;
use euchre_cluster::log::read_shard;
use euchre_cluster::testing::{Config as NatsConfig, Nats};
use euchre_cluster::{LogConfig, LogEntry, ShardLog, ShardLogs, shard_of, tables_in};
use euchre_engine::Action;
use euchre_protocol::{
    LobbyFilter, LobbyQuery, PlayerInfo, Reply, ServerMessage, TableSettings, TableStatus,
};
use euchre_server::frame::Frame;
use euchre_server::registry::Registry;
use euchre_server::table::{
    Outbox, Request, Table, TableCommand, TableConfig, TableMessage, TableSpec,
};
use euchre_store::Write;
use euchre_store::durable::Durability;
use euchre_testkit::eventually;
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

const SHARDS: u16 = 8;
const WAIT: Duration = Duration::from_secs(10);

fn config() -> TableConfig {
    TableConfig {
        event_ring: 1024,
        bot_delay: Duration::from_millis(5),
        reconnect_grace: Duration::from_secs(60),
        idle_close: Duration::from_secs(3600),
        metrics: Arc::default(),
        ratings: None,
        analyses: None,
        spectators: 0,
        social: None,
        rematch_wait: std::time::Duration::from_secs(60),
    }
}

/// A node's storage for one shard it has just taken over, and what the log held.
async fn take_over(nats: &Nats, shard: u16, node: &str, epoch: u64) -> (ShardLogs, Vec<LogEntry>) {
    let js = nats.jetstream().await;
    let (log, entries) = ShardLog::take_over(&js, &LogConfig::default(), shard, node, epoch)
        .await
        .expect("takes over");
    let logs = ShardLogs::new(SHARDS);
    logs.start(log);
    (logs, entries)
}

/// Ann's connection to a table, as a table sees it.
struct Ann {
    player: PlayerInfo,
    outbox: Outbox,
    rx: mpsc::Receiver<Frame>,
    next_id: u64,
}

impl Ann {
    fn new() -> Ann {
        let (tx, rx) = mpsc::channel(100_000);
        let player = PlayerInfo { id: "ann".into(), name: "Ann".into() };
        Ann { player, outbox: Outbox::new(tx, CancellationToken::new()), rx, next_id: 1 }
    }

    async fn ask(&mut self, table: &euchre_server::table::TableHandle, request: Request) -> u64 {
        self.try_ask(table, request).await.expect("the table is running")
    }

    /// Sends a command; `None` if the table has stopped.
    async fn try_ask(
        &mut self,
        table: &euchre_server::table::TableHandle,
        request: Request,
    ) -> Option<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let command = TableCommand {
            id,
            conn: 1,
            player: self.player.clone().into(),
            outbox: self.outbox.clone(),
            request,
            received: std::time::Instant::now(),
        };
        table.send(TableMessage::Command(command)).await.then_some(id)
    }

    async fn next(&mut self) -> Option<ServerMessage> {
        timeout(WAIT, self.rx.recv()).await.ok().flatten().and_then(Frame::into_message)
    }
}

/// Seat 0's actions in a table's rebuilt game, in order.
fn seat_zero_actions(writes: &[Write]) -> Vec<Action> {
    let live = euchre_store::live::live_table(writes)
        .expect("the writes fold")
        .expect("the table is open");
    let game = live.game.expect("a game in progress");
    game.record
        .hands
        .iter()
        .flat_map(|h| &h.actions)
        .filter(|a| a.seat.0 == 0)
        .map(|a| a.action)
        .collect()
}

#[tokio::test]
async fn a_table_taken_over_mid_hand_keeps_every_acknowledged_action_and_plays_on() {
    let Some(nats) = Nats::start() else { return };
    let table_id = "0193a8f2c4e07b3d9f1a2b3c4d5e6f70".to_owned();
    let shard = shard_of(&table_id, SHARDS);

    // Node a hosts the table: Ann in seat 0, bots in the others.
    let (a_logs, _) = take_over(&nats, shard, "a", 1).await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..Default::default() };
    let rules = settings.resolve_rules().expect("rules");
    let mut ann = Ann::new();
    let spec = TableSpec {
        id: table_id.clone(),
        host: ann.player.clone(),
        settings: settings.clone(),
        rules,
        bot_kind: BotKind::Basic,
        invite: None,
    };
    let (table, a_handle, mailbox) =
        Table::new(spec, config(), Registry::default(), Some(Arc::new(a_logs.clone())));
    // What creating a table records first (`AppState::create_table`).
    let opened = vec![
        Write::TableOpened {
            id: table_id.clone(),
            host_id: ann.player.id.clone(),
            settings: serde_json::to_value(&settings).expect("json"),
            invite: None,
            at: 0,
        },
        Write::TableSeats { id: table_id.clone(), seats: table.stored_seats() },
    ];
    let (kept, durable) = oneshot::channel();
    a_logs.keep(&table_id, opened, Box::new(move |result| drop(kept.send(result))));
    durable.await.expect("answered").expect("the opening is durable");
    let a_task = tokio::spawn(table.run(mailbox, CancellationToken::new()));

    // Ann sits (the game starts) and plays her first six turns, each acknowledged.
    ann.ask(&a_handle, Request::Sit { seat: Some(0), invite: None, avoid: Vec::new() }).await;
    let (mut pending, mut acknowledged, mut prompt) = (HashMap::new(), Vec::new(), None);
    while acknowledged.len() < 6 {
        match ann.next().await.expect("the table goes on") {
            ServerMessage::YourTurn { actions, .. } => prompt = actions.first().copied(),
            ServerMessage::Ack { id, reply: Reply::Done } => {
                if let Some(action) = pending.remove(&id) {
                    acknowledged.push(action);
                }
            }
            _ => {}
        }
        if let Some(action) = prompt.take() {
            pending.insert(ann.ask(&a_handle, Request::Act(action)).await, action);
        }
    }

    // Node b takes the shard over (node a, say, stopped renewing its lease).
    let (b_logs, entries) = take_over(&nats, shard, "b", 2).await;
    let mut tables = tables_in(shard, &entries).expect("readable");
    let writes = tables.remove(&table_id).expect("the table is in the log");
    let rebuilt = seat_zero_actions(&writes);
    assert!(
        rebuilt.starts_with(&acknowledged),
        "every acknowledged action is kept, in order: {acknowledged:?} against {rebuilt:?}"
    );

    // Node a does not know yet: its next write is refused, and it stops
    // without acknowledging anything that write caused.
    let (mut late, deadline) = (Vec::new(), tokio::time::Instant::now() + WAIT);
    while !a_task.is_finished() {
        assert!(tokio::time::Instant::now() < deadline, "node a's table never stopped");
        // Bots act on their own; Ann answers a prompt if she has one.
        if let Some(action) = prompt.take() {
            late.extend(ann.try_ask(&a_handle, Request::Act(action)).await);
        }
        match timeout(Duration::from_millis(20), ann.rx.recv())
            .await
            .map(|f| f.and_then(Frame::into_message))
        {
            Ok(Some(ServerMessage::YourTurn { actions, .. })) => prompt = actions.first().copied(),
            Ok(Some(ServerMessage::Ack { id, .. })) => {
                assert!(!late.contains(&id), "an action after the fence was acknowledged");
            }
            _ => {}
        }
    }
    a_task.await.expect("ran");
    // Whatever node a still sent came before the fence: nothing it sent is missing on b.
    // (Reading, not taking over: a take-over would fence node b out too.)
    let again = read_shard(&nats.jetstream().await, &LogConfig::default(), shard, 0)
        .await
        .expect("reads again");
    let mut after = tables_in(shard, &again).expect("readable");
    assert_eq!(
        after.remove(&table_id),
        Some(writes.clone()),
        "node a wrote nothing after the fence"
    );

    // Node b restores the table and Ann, reconnected there, plays on.
    let live = euchre_store::live::live_table(&writes).expect("folds").expect("open");
    let (table, b_handle, mailbox) =
        Table::restore(live, config(), Registry::default(), Some(Arc::new(b_logs.clone())))
            .expect("restores");
    tokio::spawn(table.run(mailbox, CancellationToken::new()));
    let mut ann = Ann::new();
    let resume = ann.ask(&b_handle, Request::Resume { last_seq: 0 }).await;
    let (mut resumed, mut pending) = (false, HashMap::new());
    let played = loop {
        match ann.next().await.expect("node b answers") {
            ServerMessage::Ack { id, reply: Reply::Resumed { snapshot, .. } } if id == resume => {
                assert!(
                    snapshot,
                    "a restored table's seq jumped: a snapshot, never a false replay"
                );
                resumed = true;
            }
            ServerMessage::YourTurn { actions, .. } if resumed => {
                let action = actions[0];
                let id = ann.ask(&b_handle, Request::Act(action)).await;
                pending.insert(id, action);
            }
            ServerMessage::Ack { id, reply: Reply::Done } if pending.contains_key(&id) => {
                break pending[&id];
            }
            _ => {}
        }
    };
    let finally =
        read_shard(&nats.jetstream().await, &LogConfig::default(), shard, 0).await.expect("reads");
    let on_b = seat_zero_actions(&tables_in(shard, &finally).expect("readable")[&table_id]);
    assert_eq!(on_b.last(), Some(&played), "node b's acknowledged action is in the log");
    assert!(on_b.starts_with(&rebuilt));
}

// ---------------------------------------------------------------------------
// Whole nodes: three servers in cluster mode on loopback ports, one NATS
// server and one PostgreSQL database of the test's own. Each node runs on a
// runtime of its own, so a test can kill it (its tasks dropped at once, its
// sockets closed, its leases left to expire) or pause it (its only worker
// blocked, as a stop-the-world pause would).

use crate::support::{Client, answer_id, cards_in, error_code, pick};
use euchre_engine::Event;
use euchre_engine::Preset;
use euchre_protocol::{ClientMessage, QuickPlayEndReason, QuickPlayRequest, TableEvent, close};
use euchre_server::Settings;
use euchre_server::config::{ClusterSettings, DatabaseUrl, NatsSettings, Secret};
use euchre_testkit::postgres;

/// One three-node cluster at a time: nine nodes at once on two cores miss
/// their heartbeats, and the shards keep moving. (The lease's 2 s is for the
/// same reason: 1 s was missed now and then on a loaded machine.)
static ONE_CLUSTER_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// What each cluster test starts from: its turn (one cluster at a time),
/// a nats-server and a PostgreSQL database of its own (`None`, and the test
/// passes as skipped, saying so, where nats-server or PostgreSQL is missing;
/// it fails instead where services are required).
struct Cluster {
    nats: Nats,
    database: String,
    db_url: String,
    // Last: released once the rest is gone.
    _serial: tokio::sync::MutexGuard<'static, ()>,
}

impl Cluster {
    async fn start(database: &str) -> Option<Cluster> {
        Cluster::start_on(database, None).await
    }

    /// [`Cluster::start`] on a NATS server with this configuration.
    async fn start_on(database: &str, config: Option<NatsConfig>) -> Option<Cluster> {
        let serial = ONE_CLUSTER_AT_A_TIME.lock().await;
        let nats = match config {
            Some(config) => Nats::start_with(config)?,
            None => Nats::start()?,
        };
        let database = postgres::fresh_database(database).await?;
        let db_url = postgres::database_url(&database);
        Some(Cluster { nats, database, db_url, _serial: serial })
    }

    /// Nodes of these names, once the shards are spread over them.
    async fn nodes(&self, names: &[&str]) -> Vec<Node> {
        self.nodes_with(names, |_| {}).await
    }

    /// [`Cluster::nodes`] for a test that plays a game through without
    /// losing a node: a lease of [`STEADY_LEASE_TTL_MS`]. With the failover
    /// tests' 2 s, a renewal late by a second on a busy machine lapses the
    /// lease mid-game; the node then closes the table's connections (1001),
    /// and the players and spectators resume elsewhere (as a real client
    /// does: [`play_to_the_end`], [`watch_to_the_end`]) but the game slows.
    async fn steady_nodes(&self, names: &[&str]) -> Vec<Node> {
        self.nodes_with(names, |settings| settings.cluster.lease_ttl_ms = STEADY_LEASE_TTL_MS).await
    }

    /// [`Cluster::nodes`], each with its settings changed by `tweak`.
    async fn nodes_with(&self, names: &[&str], tweak: fn(&mut Settings)) -> Vec<Node> {
        let nodes: Vec<Node> = names
            .iter()
            .map(|name| Node::start_with(name, &self.nats.url, &self.db_url, tweak))
            .collect();
        wait_for_balance(&self.nats, &nodes.iter().collect::<Vec<_>>()).await;
        nodes
    }

    /// Stops `nodes`, then drops the database.
    async fn finish(self, nodes: Vec<Node>) {
        drop(nodes);
        postgres::drop_database(&self.database).await;
    }
}

/// A node's `public_url` that becomes the node's own address once it has one.
const OWN_URL: &str = "own";

/// The shards of the test clusters, and their leases' time to live.
const NODE_SHARDS: u16 = 8;
const LEASE_TTL_MS: u64 = 2_000;
/// How long a roaming player waits for the next message: through an outage
/// of NATS (up to two lease lifetimes), the NATS client's reconnection
/// backoff and the shards' take-over, on a machine CI keeps busy beside
/// (10 s ran out there once).
const ROAMER_PATIENCE: Duration = Duration::from_secs(30);
/// The leases of the tests that lose no node (see [`Cluster::steady_nodes`]).
const STEADY_LEASE_TTL_MS: u64 = 6_000;

struct Node {
    name: String,
    url: String,
    /// Where its HTTP API answers.
    address: std::net::SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    _data: tempfile::TempDir,
}

impl Node {
    fn start(name: &str, nats: &str, database: &str) -> Node {
        Node::start_with(name, nats, database, |_| {})
    }

    fn start_with(
        name: &str,
        nats: &str,
        database: &str,
        tweak: impl FnOnce(&mut Settings),
    ) -> Node {
        // Quiet unless RUST_LOG asks.
        if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
            let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
        }
        let data = tempfile::tempdir().expect("a data folder");
        let mut settings = Settings {
            data_dir: data.path().to_owned(),
            database_url: DatabaseUrl(database.to_owned()),
            ..Settings::default()
        };
        settings.timing.bot_delay_ms = 0;
        settings.timing.reconnect_grace_ms = 60_000;
        settings.limits.messages_per_second = 1_000;
        settings.limits.message_burst = 1_000;
        settings.cluster = ClusterSettings {
            enabled: true,
            nats_url: nats.to_owned(),
            node_id: name.to_owned(),
            lease_ttl_ms: LEASE_TTL_MS,
            replicas: 1,
            shards: NODE_SHARDS,
            ..ClusterSettings::default()
        };
        tweak(&mut settings);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        // Bound before the spawn: clients never wait for the node to listen.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("non-blocking");
        let address = listener.local_addr().expect("address");
        let url = format!("ws://{address}/ws");
        if settings.cluster.public_url == OWN_URL {
            settings.cluster.public_url = url.clone();
        }
        let label = name.to_owned();
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            let served = euchre_server::run(listener, settings, std::future::pending()).await;
            if let Err(error) = served {
                eprintln!("node {label} failed: {error:#}");
            }
        });
        Node { name: name.to_owned(), url, address, runtime: Some(runtime), _data: data }
    }

    /// kill -9, as near as one process can: every task dropped at once.
    fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    /// Blocks the node's only worker for `pause`: nothing of it runs meanwhile.
    fn pause(&self, pause: Duration) {
        if let Some(runtime) = &self.runtime {
            // Blocking the worker is the point: a node that stalls.
            #[expect(
                clippy::disallowed_methods,
                reason = "stalls the node's only worker on purpose"
            )]
            runtime.spawn(async move { std::thread::sleep(pause) });
        }
    }

    async fn player(&self, name: &str) -> Client {
        let mut client = Client::connect(&self.url).await;
        client.hello(name).await;
        client
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Who holds each shard's lease now.
async fn shard_holders(nats: &Nats) -> Vec<Option<String>> {
    let js = nats.jetstream().await;
    let ttl = Duration::from_millis(LEASE_TTL_MS);
    let owners = euchre_cluster::Leases::open(&js, "euchre_owners", ttl, 1).await.expect("opens");
    let mut holders = Vec::new();
    for shard in 0..NODE_SHARDS {
        let holder = owners.holder(&format!("shard-{shard}")).await.expect("reads");
        holders.push(holder.map(|holder| holder.node));
    }
    holders
}

/// Waits until every shard is held, each of `nodes` holding its share.
async fn wait_for_balance(nats: &Nats, nodes: &[&Node]) {
    eventually("the shards to settle", Duration::from_secs(30), async || {
        let holders = shard_holders(nats).await;
        // Each node between its fair share and one less: nobody gives one up later.
        let fair = usize::from(NODE_SHARDS).div_ceil(nodes.len());
        let balanced = holders.iter().all(Option::is_some)
            && nodes.iter().all(|node| {
                let held = holders.iter().filter(|h| h.as_deref() == Some(node.name.as_str()));
                (fair - 1..=fair).contains(&held.count())
            });
        if balanced { Ok(()) } else { Err(format!("held by {holders:?}")) }
    })
    .await;
    // Held is not yet taken over (the log fenced and read): a moment more.
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// Creates a table, retrying while the node owns no shard yet.
async fn create_table(client: &mut Client, settings: TableSettings) -> String {
    eventually("the node to own a shard", Duration::from_secs(20), async || {
        let id = client.next_id();
        let create = ClientMessage::CreateTable { id, settings: settings.clone() };
        match client.command(create).await {
            ServerMessage::Ack { reply: Reply::TableCreated { table, .. }, .. } => Some(table),
            answer if error_code(&answer) == Some("unavailable") => None,
            other => panic!("expected table_created, got {other:?}"),
        }
    })
    .await
}

/// A seat's audit: see [`audit_viewer`].
fn audit(log: &[ServerMessage], seat: u8) {
    audit_viewer(log, Some(seat));
}

/// The cross-node leak audit of one viewer (a seat, or a spectator with
/// `None`), over every message it was sent, of every kind: seqs run on
/// without a gap (a snapshot starts a new run), and every card anywhere in
/// any message is one this viewer may know by then: the up-card, its own
/// hand, dummy and discards, a card it passed or was passed (call for
/// best), the cards played and claimed, and a hand's
/// whole deck only once that hand has ended (the deal's reveal). Another
/// seat's hand, dummy or discard is never sent to it, not even as an empty
/// list.
fn audit_viewer(log: &[ServerMessage], seat: Option<u8>) {
    use euchre_engine::CardSet;
    let own = |index: u8| Some(index) == seat;
    let (mut expected, mut known, mut ended) = (None, CardSet::default(), false);
    for message in log {
        match message {
            ServerMessage::Snapshot { seq, state, .. } => {
                expected = Some(seq + 1);
                assert_eq!(state.your_seat, seat, "a snapshot for another viewer");
                if let Some(game) = &state.game {
                    known.insert(game.up_card);
                    for trick in &game.tricks {
                        known = known.union(trick.cards.iter().map(|(_, c)| *c).collect());
                    }
                    if seat.is_some() {
                        known = known.union(game.hand.iter().flatten().copied().collect());
                        known = known.union(game.discard.into_iter().collect());
                        let dummy_discards = game.dummy_discards.iter().flatten().copied();
                        known = known.union(dummy_discards.collect());
                    }
                }
            }
            ServerMessage::Event { seq, event, .. } => {
                if let Some(next) = expected {
                    assert_eq!(*seq, next, "{seat:?}: event seqs run on without a gap");
                }
                expected = Some(seq + 1);
                match event {
                    Some(TableEvent::Game(event)) => match event {
                        Event::HandDealt { up_card, hands, .. } => {
                            (known, ended) = (CardSet::single(*up_card), false);
                            for (index, hand) in hands.iter().enumerate() {
                                if own(index as u8) {
                                    known = known.union(hand.unwrap_or_default());
                                } else {
                                    assert!(hand.is_none(), "hand {index} sent to {seat:?}");
                                }
                            }
                        }
                        Event::CardPlayed { card, .. }
                        | Event::UpCardPickedUp { card, .. }
                        | Event::UpCardTurnedDown { card } => known.insert(*card),
                        Event::Claimed { cards, .. } => known = known.union(*cards),
                        Event::DummyTaken { seat: taker, cards } => {
                            if own(taker.0) {
                                known = known.union(cards.unwrap_or_default());
                            } else {
                                assert_eq!(*cards, None, "the dummy shown to {seat:?}");
                            }
                        }
                        Event::Discarded { seat: by, card } => {
                            if own(by.0) {
                                known = known.union(card.iter().copied().collect());
                            } else {
                                assert_eq!(*card, None, "a discard shown to {seat:?}");
                            }
                        }
                        Event::CardPassed { from, to, card } => {
                            if own(from.0) || own(to.0) {
                                known = known.union(card.iter().copied().collect());
                            } else {
                                assert_eq!(*card, None, "a passed card shown to {seat:?}");
                            }
                        }
                        Event::HandEnded { .. } => ended = true,
                        _ => {}
                    },
                    Some(TableEvent::Table(euchre_protocol::TableNotice::DealRevealed {
                        deck,
                        ..
                    })) => {
                        assert!(ended, "a deal revealed to {seat:?} before its hand ended");
                        known = known.union(deck.iter().copied().collect());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        for card in cards_in(message) {
            assert!(known.contains(card), "{card} reached {seat:?}: {message:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_on_three_nodes_play_a_game_to_the_end() {
    let Some(cluster) = Cluster::start("cluster_game").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;

    // Ann on n1 opens the table; Cy, on n3, finds it among his lobby's
    // open tables (the filter applies to other nodes' tables too).
    let mut ann = nodes[0].player("Ann").await;
    let table = create_table(&mut ann, TableSettings::default()).await;
    let mut cy = nodes[2].player("Cy").await;
    let id = cy.next_id();
    let filter = LobbyFilter { status: Some(TableStatus::Open), free_seat: true, preset: None };
    let query = LobbyQuery { filter, ..LobbyQuery::default() };
    cy.send(&ClientMessage::ListTables { id, query }).await;
    let listed = |m: &ServerMessage| match m {
        ServerMessage::Lobby(page) => page.tables.iter().any(|t| t.table == table),
        ServerMessage::LobbyUpdate { table: t } => t.table == table,
        _ => false,
    };
    cy.recv_until(listed).await;

    // Four players on three nodes: seats 0 and 3 on n1 and n2, 1 on n2, 2 on n3.
    let mut people = vec![ann, nodes[1].player("Bob").await, cy, nodes[1].player("Dee").await];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    // Bob, on n2, finds the game (owned by n1) first in his lobby as his own,
    // whatever its filter: the seated players travel with the lobby entry.
    let bob = &mut people[1];
    eventually("Bob's lobby to list the table as his", Duration::from_secs(20), async || {
        let page = bob.list_tables(LobbyQuery::default()).await.ok()?;
        page.yours.iter().any(|t| t.table == table).then_some(())
    })
    .await;
    // Spectators on every node: Eve on n1 (the owner), Fay on n2, Gus on n3.
    let mut spectators = Vec::new();
    for (index, (node, name)) in nodes.iter().zip(["Eve", "Fay", "Gus"]).enumerate() {
        let spectator = node.player(name).await;
        spectators.push(watch_to_the_end(spectator, index as u8, &table, urls(&nodes)).await);
    }
    let players = play_to_the_end(people, &table, urls(&nodes), |seat| seat);
    let (players, spectators) = (finished(players).await, finished(spectators).await);
    audit_all(&players, &spectators);
    for spectator in &spectators {
        assert!(spectator.whole_log().len() > 50, "the spectator was sent the game");
    }
    cluster.finish(nodes).await;
}

/// Every node's address: where a roamer may reconnect.
fn urls(nodes: &[Node]) -> Vec<String> {
    nodes.iter().map(|node| node.url.clone()).collect()
}

/// Plays for each of `people` (seat by seat, each drawing its actions
/// from `seed(seat)`) until the game is won, following the table through
/// any close as a real client does (a lease that lapses on a loaded
/// machine moves the table; see [`Cluster::steady_nodes`]).
fn play_to_the_end(
    people: Vec<Client>,
    table: &str,
    urls: Vec<String>,
    seed: fn(u64) -> u64,
) -> Vec<tokio::task::JoinHandle<Roamer>> {
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    people
        .into_iter()
        .enumerate()
        .map(|(seat, client)| {
            let roamer = Roamer::new(client, seat as u8, table, urls.clone());
            tokio::spawn(roamer.seeded(seed(seat as u64)).play(acks.clone()))
        })
        .collect()
}

/// `people` (by seat) play `table` as roamers, each in a task of its own,
/// thinking `think` before each action; with the count of actions acked
/// across them.
fn roam(
    people: Vec<Client>,
    table: &str,
    urls: &[String],
    think: Duration,
) -> (Vec<tokio::task::JoinHandle<Roamer>>, Arc<std::sync::atomic::AtomicUsize>) {
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks = people
        .into_iter()
        .enumerate()
        .map(|(seat, client)| {
            let roamer = Roamer { think, ..Roamer::new(client, seat as u8, table, urls.to_vec()) };
            tokio::spawn(roamer.play(acks.clone()))
        })
        .collect();
    (tasks, acks)
}

/// Until `acks` has counted `count` actions (play goes on).
async fn until_acked(acks: &std::sync::atomic::AtomicUsize, count: usize) {
    eventually(&format!("{count} actions acknowledged"), Duration::from_secs(60), async || {
        let acked = acks.load(std::sync::atomic::Ordering::Relaxed);
        if acked >= count { Ok(()) } else { Err(format!("{acked} so far")) }
    })
    .await;
}

/// `eve` watches `table`, then follows it in a task of its own until the
/// game is won, through any close (the `index`th spectator: where it
/// reconnects first).
async fn watch_to_the_end(
    mut eve: Client,
    index: u8,
    table: &str,
    urls: Vec<String>,
) -> tokio::task::JoinHandle<Roamer> {
    let id = eve.next_id();
    let watch = ClientMessage::Watch { id, table: table.to_owned(), invite: None };
    let answer = eve.command(watch).await;
    assert!(error_code(&answer).is_none(), "a spectator watches: {answer:?}");
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    tokio::spawn(Roamer::watching(eve, index, table, urls).play(acks))
}

/// Each task's roamer, once it has seen the game won.
async fn finished(tasks: Vec<tokio::task::JoinHandle<Roamer>>) -> Vec<Roamer> {
    let mut roamers = Vec::new();
    for task in tasks {
        roamers.push(task.await.expect("followed the game to its end"));
    }
    roamers
}

/// The leak audit of every player and spectator, each over all it was
/// sent on all its connections; and the audit has teeth: a player's
/// frames fail it as the next seat's.
fn audit_all(players: &[Roamer], spectators: &[Roamer]) {
    for player in players {
        let log = player.whole_log();
        audit_viewer(&log, player.viewer());
        let other = Some((player.seat + 1) % players.len() as u8);
        let as_other =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| audit_viewer(&log, other)));
        assert!(as_other.is_err(), "seat {}'s frames pass as seat {other:?}'s", player.seat);
    }
    for spectator in spectators {
        assert_eq!(spectator.viewer(), None);
        audit_viewer(&spectator.whole_log(), None);
    }
    let reconnections: usize =
        players.iter().chain(spectators).map(|roamer| roamer.reconnections).sum();
    eprintln!("the audit covered {reconnections} reconnections");
}

/// A player (or a spectator) who follows its table through failovers, as
/// a careful client does: when its connection closes it reconnects (to the
/// next node that answers) with its token and resumes; while the table's
/// shard has no owner it is told `unavailable`, and tries again.
struct Roamer {
    client: Client,
    token: String,
    seat: u8,
    /// A spectator: it never acts (`seat` only picks its first node).
    watching: bool,
    table: String,
    /// Nodes to reconnect to, tried in turn.
    urls: Vec<String>,
    turn: usize,
    rng: rand_chacha::ChaCha8Rng,
    /// Every action the server acknowledged, in order.
    acked: Vec<Action>,
    in_flight: Option<(u64, Action)>,
    resuming: Option<u64>,
    last_seq: Option<u64>,
    /// When the first action after a reconnection was acknowledged.
    resumed_at: Option<std::time::Instant>,
    /// How many times its connection closed and it reconnected.
    reconnections: usize,
    /// Actions in flight when a connection closed: never answered, so
    /// stored or not (the log says).
    unanswered: usize,
    /// Commands a connection was answered twice (an ack and a refusal, say).
    answered_twice: Vec<u64>,
    /// A pause before each action (none: flat out).
    think: Duration,
    /// What the connections before this one were sent, in order.
    earlier: Vec<ServerMessage>,
}

impl Roamer {
    fn new(client: Client, seat: u8, table: &str, urls: Vec<String>) -> Roamer {
        use rand::SeedableRng;
        // What sitting down already read.
        let last_seq = crate::support::last_seq(&client);
        Roamer {
            token: client.token.clone().expect("welcomed"),
            client,
            seat,
            watching: false,
            table: table.to_owned(),
            urls,
            turn: usize::from(seat),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seat)),
            acked: Vec::new(),
            in_flight: None,
            resuming: None,
            last_seq,
            resumed_at: None,
            reconnections: 0,
            unanswered: 0,
            answered_twice: Vec::new(),
            think: Duration::ZERO,
            earlier: Vec::new(),
        }
    }

    /// A spectator of `table` (it has watched it on `client`), following it
    /// the same way; the `index`th of them, for the node it tries first.
    fn watching(client: Client, index: u8, table: &str, urls: Vec<String>) -> Roamer {
        Roamer { watching: true, ..Roamer::new(client, index, table, urls) }
    }

    /// Its actions drawn from `seed`'s stream rather than its seat's.
    fn seeded(mut self, seed: u64) -> Roamer {
        use rand::SeedableRng;
        self.rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        self
    }

    /// Whose eyes it sees the table with: its seat, or a spectator's.
    fn viewer(&self) -> Option<u8> {
        (!self.watching).then_some(self.seat)
    }

    /// Every message of every connection, in order: what the seat was sent
    /// over the whole game (a replayed resume carries on from the earlier
    /// connection's cards).
    fn whole_log(&self) -> Vec<ServerMessage> {
        self.earlier.iter().chain(&self.client.log).cloned().collect()
    }

    async fn act(&mut self, actions: &[Action]) {
        if self.watching
            || self.in_flight.is_some()
            || self.resuming.is_some()
            || actions.is_empty()
        {
            return;
        }
        let action = pick(actions, &mut self.rng);
        if !self.think.is_zero() {
            tokio::time::sleep(self.think).await;
        }
        let id = self.client.next_id();
        let table = self.table.clone();
        self.client.send(&ClientMessage::Act { id, table, action }).await;
        self.in_flight = Some((id, action));
    }

    async fn resume(&mut self) {
        let id = self.client.next_id();
        let last_seq = self.last_seq.unwrap_or(0);
        let table = self.table.clone();
        self.client.send(&ClientMessage::Resume { id, table, last_seq }).await;
        self.resuming = Some(id);
    }

    /// Connects to the next node that answers, says hello with the token, resumes.
    async fn reconnect(&mut self) {
        for _ in 0..200 {
            self.turn += 1;
            let url = &self.urls[self.turn % self.urls.len()];
            let Some(mut client) = Client::try_connect(url).await else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            if client.try_hello("", Some(&self.token)).await.is_err() {
                continue;
            }
            let earlier = std::mem::replace(&mut self.client, client);
            self.answered_twice.extend(answered_twice(&earlier.log));
            self.earlier.extend(earlier.log);
            self.unanswered += usize::from(self.in_flight.take().is_some());
            self.reconnections += 1;
            self.resume().await;
            return;
        }
        panic!("seat {} found no node to reconnect to", self.seat);
    }

    /// Plays until the game is won.
    async fn play(self, acks: Arc<std::sync::atomic::AtomicUsize>) -> Roamer {
        self.play_until(acks, false).await
    }

    /// Plays until the game is won or, with `resumed`, until the first
    /// action after a reconnection is acknowledged.
    async fn play_until(
        mut self,
        acks: Arc<std::sync::atomic::AtomicUsize>,
        resumed: bool,
    ) -> Roamer {
        if let Some((_, actions)) = crate::support::pending_turn(&self.client) {
            self.act(&actions).await;
        }
        loop {
            let Some(message) = self.client.try_recv_within(ROAMER_PATIENCE).await else {
                tracing::info!(viewer = ?self.viewer(), "connection closed; reconnecting");
                self.reconnect().await;
                continue;
            };
            let answers = answer_id(&message);
            if answers.is_some() && answers == self.in_flight.map(|(id, _)| id) {
                let (_, action) = self.in_flight.take().expect("in flight");
                if matches!(message, ServerMessage::Ack { reply: Reply::Done, .. }) {
                    self.acked.push(action);
                    acks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if self.reconnections > 0 && self.resumed_at.is_none() {
                        self.resumed_at = Some(std::time::Instant::now());
                        if resumed {
                            return self;
                        }
                    }
                }
                // Refused (a prompt gone stale, the shard failing over): the
                // next prompt or snapshot says what to do; told to slow
                // down (no pause in tests), it waits and acts again.
                if error_code(&message) == Some("rate_limited") {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if let Some((_, actions)) = crate::support::pending_turn(&self.client) {
                        self.act(&actions).await;
                    }
                }
                continue;
            }
            if answers.is_some() && answers == self.resuming {
                tracing::info!(viewer = ?self.viewer(), ?message, "resume answered");
                self.resuming = None;
                if error_code(&message).is_some() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    self.resume().await;
                }
                continue;
            }
            match message {
                ServerMessage::Event { seq, event, .. } => {
                    self.last_seq = Some(seq);
                    if let Some(TableEvent::Game(Event::GameWon { .. })) = event {
                        return self;
                    }
                }
                ServerMessage::Snapshot { seq, state, .. } => {
                    self.last_seq = Some(seq);
                    self.act(&state.actions).await;
                }
                ServerMessage::YourTurn { seq, actions, .. }
                    if self.client.prompt_stands(&self.table, seq) =>
                {
                    self.act(&actions).await;
                }
                _ => {}
            }
        }
    }
}

/// The commands of one connection answered more than once.
fn answered_twice(log: &[ServerMessage]) -> Vec<u64> {
    let mut answered = std::collections::HashSet::new();
    log.iter().filter_map(answer_id).filter(|&id| !answered.insert(id)).collect()
}

/// Each seat's actions in the table's log, in order.
async fn logged_actions(nats: &Nats, table: &str) -> (HashMap<u8, Vec<Action>>, bool) {
    let writes = logged_writes(nats, table).await;
    let mut actions: HashMap<u8, Vec<Action>> = HashMap::new();
    let mut ended = false;
    for write in writes {
        match write {
            Write::Action { seat, action, .. } => actions.entry(seat).or_default().push(action),
            Write::MatchEnded { .. } => ended = true,
            _ => {}
        }
    }
    (actions, ended)
}

/// Whether `part` appears in `whole` in order (not necessarily together).
fn in_order(part: &[Action], whole: &[Action]) -> bool {
    let mut whole = whole.iter();
    part.iter().all(|wanted| whole.any(|action| action == wanted))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_mid_hand_loses_no_acknowledged_action_and_the_game_ends_on_the_others() {
    let Some(cluster) = Cluster::start("cluster_kill").await else { return };
    let nodes = cluster.nodes(&["n1", "n2", "n3"]).await;

    // The table lives on n1, where Ann and Dee are; Bob is on n2, Cy on n3.
    let mut ann = nodes[0].player("Ann").await;
    let table = create_table(&mut ann, TableSettings::default()).await;
    let mut people = vec![
        ann,
        nodes[1].player("Bob").await,
        nodes[2].player("Cy").await,
        nodes[0].player("Dee").await,
    ];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    kill_its_owner_mid_hand(cluster, nodes, &table, people, Listed::Kept).await;
}

/// Whether a dead owner's table stays in the cluster's lobby.
#[derive(Clone, Copy, PartialEq)]
enum Listed {
    /// As a killed node leaves it: the other nodes still list it.
    Kept,
    /// Deleted from the lobby's bucket as soon as its owner is dead (as
    /// if its owner had died before its listing was written): the new
    /// owner has only the shard's log to rebuild the table from.
    Lost,
}

/// `people` (by seat) play `table` some way into its first hand; then
/// the node that owns the table's shard is killed. They reconnect to the
/// other nodes and play the game to its end there: every action
/// acknowledged, before the kill or after, is in the log, in order, and
/// nobody was sent a card they may not know.
async fn kill_its_owner_mid_hand(
    cluster: Cluster,
    mut nodes: Vec<Node>,
    table: &str,
    people: Vec<Client>,
    listed: Listed,
) {
    let shard = shard_of(table, NODE_SHARDS);
    let holder = shard_holders(&cluster.nats).await[usize::from(shard)].clone();
    let owner = nodes.iter().position(|node| Some(&node.name) == holder.as_ref());
    let owner = owner.expect("a node owns the table's shard");
    let survivors: Vec<String> =
        nodes.iter().filter(|node| node.name != nodes[owner].name).map(|n| n.url.clone()).collect();
    let (tasks, acks) = roam(people, table, &survivors, Duration::ZERO);

    // Some way into the first hand (a hand is five tricks: 20 cards at least), the owner dies.
    until_acked(&acks, 10).await;
    nodes[owner].kill();
    let killed = std::time::Instant::now();
    tracing::info!(%table, shard, owner = %nodes[owner].name, "the table's owner killed");
    if listed == Listed::Lost {
        let js = cluster.nats.jetstream().await;
        let lobby = js.get_key_value("euchre_lobby").await.expect("the lobby's bucket");
        lobby.delete(table).await.expect("deletes the listing");
    }

    // A bound, so that a table never restored fails the test rather than hang it.
    let roamers = timeout(Duration::from_secs(120), finished(tasks)).await;
    let roamers = roamers.expect("the players finished the game on the other nodes in time");
    let first_resumed = roamers.iter().filter_map(|r| r.resumed_at).min().expect("play resumed");
    eprintln!(
        "lease TTL {LEASE_TTL_MS} ms: the first action after the kill acknowledged {:?} after it",
        first_resumed - killed
    );
    let (logged, ended) = logged_actions(&cluster.nats, table).await;
    assert!(ended, "the game's end is in the log");
    for roamer in &roamers {
        audit(&roamer.whole_log(), roamer.seat);
        let logged = logged.get(&roamer.seat).cloned().unwrap_or_default();
        assert!(
            in_order(&roamer.acked, &logged),
            "seat {}: every acknowledged action is in the log, in order",
            roamer.seat
        );
        let unknown = roamer.client.log.iter().filter(|m| error_code(m) == Some("no_such_table"));
        assert_eq!(unknown.count(), 0, "a table failing over is unavailable, never unknown");
    }
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_paused_past_its_lease_is_refused_and_acknowledges_nothing_more() {
    let Some(cluster) = Cluster::start("cluster_stale").await else { return };
    let nodes = cluster.nodes(&["n1", "n2", "n3"]).await;

    // Ann plays against three bots at a table on n1, until it is her turn again.
    let mut ann = nodes[0].player("Ann").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = create_table(&mut ann, settings).await;
    let shard = usize::from(shard_of(&table, NODE_SHARDS));
    assert_eq!(ann.sit(&table, Some(0)).await, 0);
    let mut roamer = Roamer::new(ann, 0, &table, vec![nodes[1].url.clone(), nodes[2].url.clone()]);
    if let Some((_, actions)) = crate::support::pending_turn(&roamer.client) {
        roamer.act(&actions).await;
    }
    let prompt = loop {
        match roamer.client.recv().await {
            ServerMessage::Event { seq, .. } => roamer.last_seq = Some(seq),
            ServerMessage::YourTurn { seq, actions, .. }
                if roamer.client.prompt_stands(&table, seq) =>
            {
                if roamer.acked.len() >= 3 {
                    break actions;
                }
                roamer.act(&actions).await;
            }
            message if answer_id(&message).is_some() => {
                if let Some((_, action)) = roamer.in_flight.take() {
                    assert!(matches!(message, ServerMessage::Ack { reply: Reply::Done, .. }));
                    roamer.acked.push(action);
                }
            }
            _ => {}
        }
    };

    // n1 stalls for three lease lifetimes; another node takes the shard over.
    let pause = Duration::from_millis(3 * LEASE_TTL_MS);
    nodes[0].pause(pause);
    let paused = tokio::time::Instant::now();
    // Ann acts meanwhile: n1 reads it only when it wakes, no longer the owner.
    roamer.act(&prompt).await;
    let (stale_id, _) = roamer.in_flight.expect("sent");
    let within = pause.saturating_sub(paused.elapsed());
    let new_owner =
        eventually("another node to take the shard over in n1's pause", within, async || {
            let holder = shard_holders(&cluster.nats).await[shard].clone();
            holder.filter(|holder| holder != "n1")
        })
        .await;
    eprintln!("{new_owner} took the shard over {:?} into n1's pause", paused.elapsed());
    // n1 wakes: the action is never acknowledged, and the connection closes.
    while let Some(message) = roamer.client.try_recv().await {
        assert_ne!(answer_id(&message), Some(stale_id), "the stale owner answered: {message:?}");
    }
    // The log has one writer at a time: every record is written by the owner
    // of the fence before it, and a fence by another node than n1 followed n1's.
    let js = cluster.nats.jetstream().await;
    let entries = read_shard(&js, &LogConfig::default(), shard as u16, 0).await.expect("reads");
    let mut fenced_by = None;
    let mut owners = Vec::new();
    for entry in &entries {
        match entry {
            LogEntry::Fence { epoch, node, .. } => {
                fenced_by = Some(*epoch);
                owners.push(node.clone());
            }
            LogEntry::Record { epoch, .. } => {
                assert_eq!(Some(*epoch), fenced_by, "a record of an owner fenced out");
            }
        }
    }
    let n1 = owners.iter().position(|node| node == "n1").expect("n1 owned the shard");
    assert!(
        owners[n1 + 1..].iter().any(|node| node != "n1"),
        "another node ({new_owner} holds the lease) fenced n1 out: {owners:?}"
    );

    eprintln!("n1 closed Ann's connection {:?} after its pause began", paused.elapsed());
    // Ann carries on at the new owner: her stale action never happened, so
    // she is asked again, and this time it counts.
    roamer.in_flight = None;
    let before = roamer.acked.len();
    roamer.reconnect().await;
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let roamer = tokio::spawn(roamer.play(acks)).await.expect("Ann finished the game");
    assert!(roamer.acked.len() > before);
    let (logged, ended) = logged_actions(&cluster.nats, &table).await;
    assert!(ended);
    assert!(in_order(&roamer.acked, &logged[&0]), "every acknowledged action is in the log");
    cluster.finish(nodes).await;
}

/// Failover time, kill to the first action acknowledged after it, over 20
/// kills (BENCHMARKS.md): each round a table is opened on a node, its
/// player plays a few actions, the node is killed, the player reconnects to
/// another node and resumes; a fresh node then takes the dead one's place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: about a minute; cargo test -p euchre-server --test it cluster::failover_times -- --ignored --nocapture"]
async fn failover_times() {
    let Some(cluster) = Cluster::start("cluster_failover").await else { return };
    let mut nodes = cluster.nodes(&["n0", "n1", "n2"]).await;
    let mut times = Vec::new();
    for round in 0..20 {
        wait_for_balance(&cluster.nats, &nodes.iter().collect::<Vec<_>>()).await;
        let mut ann = nodes[0].player("Ann").await;
        let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
        let table = create_table(&mut ann, settings).await;
        assert_eq!(ann.sit(&table, Some(0)).await, 0);
        let survivors = vec![nodes[1].url.clone(), nodes[2].url.clone()];
        let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let roamer = Roamer::new(ann, 0, &table, survivors);
        let task = tokio::spawn(roamer.play_until(acks.clone(), true));
        until_acked(&acks, 2).await;
        nodes[0].kill();
        let killed = std::time::Instant::now();
        let roamer = task.await.expect("Ann played on");
        let took = roamer.resumed_at.expect("resumed") - killed;
        eprintln!("round {round}: {took:?}");
        times.push(took);
        // The dead node's place goes to a new one (a new name: a node's
        // heartbeat key outlives it by the lease's time to live).
        nodes.remove(0);
        nodes.push(Node::start(&format!("n{}", round + 3), &cluster.nats.url, &cluster.db_url));
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    eprintln!(
        "failover over {} kills, lease TTL {LEASE_TTL_MS} ms: p50 {:?}, p99 {:?}, min {:?}, max {:?}",
        times.len(),
        at(0.5),
        at(0.99),
        times[0],
        times[times.len() - 1]
    );
    cluster.finish(nodes).await;
}

/// Every record of the shard's log was written by the owner of the fence
/// before it: one writer at a time, and none without the shard.
async fn one_writer_at_a_time(nats: &Nats, shard: u16) -> Vec<String> {
    let js = nats.jetstream().await;
    let entries = read_shard(&js, &LogConfig::default(), shard, 0).await.expect("reads");
    let (mut fenced_by, mut owners) = (None, Vec::new());
    for entry in &entries {
        match entry {
            LogEntry::Fence { epoch, node, .. } => {
                fenced_by = Some(*epoch);
                owners.push(node.clone());
            }
            LogEntry::Record { epoch, .. } => {
                assert_eq!(Some(*epoch), fenced_by, "a record of an owner fenced out");
            }
        }
    }
    owners
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nodes_ride_out_nats_outages_without_a_restart_and_lose_no_acknowledged_action() {
    let Some(mut cluster) = Cluster::start("cluster_outage").await else { return };
    let nodes = cluster.nodes(&["n1", "n2", "n3"]).await;

    let mut ann = nodes[0].player("Ann").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = create_table(&mut ann, settings).await;
    assert_eq!(ann.sit(&table, Some(0)).await, 0);
    let urls = nodes.iter().map(|node| node.url.clone()).collect();
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let task = tokio::spawn(Roamer::new(ann, 0, &table, urls).play(acks.clone()));
    until_acked(&acks, 3).await;

    // A blip well within the lease's lifetime: appends in flight fail, the
    // leases hold, and each node takes its stalled shards over again.
    tokio::task::block_in_place(|| cluster.nats.outage(Duration::from_millis(LEASE_TTL_MS / 4)));
    let before = acks.load(std::sync::atomic::Ordering::Relaxed);
    until_acked(&acks, before + 3).await;
    // An outage past it: every lease runs out; the nodes take them again
    // once NATS is back, the same processes, without a restart.
    tokio::task::block_in_place(|| cluster.nats.outage(Duration::from_millis(2 * LEASE_TTL_MS)));
    let roamer = task.await.expect("Ann finished the game through both outages");
    wait_for_balance(&cluster.nats, &nodes.iter().collect::<Vec<_>>()).await;

    let (logged, ended) = logged_actions(&cluster.nats, &table).await;
    assert!(ended, "the game's end is in the log");
    assert!(in_order(&roamer.acked, &logged[&0]), "every acknowledged action is in the log");
    audit(&roamer.whole_log(), 0);
    for shard in 0..NODE_SHARDS {
        one_writer_at_a_time(&cluster.nats, shard).await;
    }
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_nodes_connections_are_let_go_by_the_tables_they_sat_at() {
    let Some(cluster) = Cluster::start("cluster_dead_remote").await else { return };
    let mut nodes = cluster.nodes(&["n1", "n2", "n3"]).await;

    // Ann's table is on n1; Bob sits at it from n2, and Cy watches from n3.
    let mut ann = nodes[0].player("Ann").await;
    let settings = TableSettings { bot_seats: vec![2, 3], ..TableSettings::default() };
    let table = create_table(&mut ann, settings).await;
    assert_eq!(ann.sit(&table, Some(0)).await, 0);
    let mut bob = nodes[1].player("Bob").await;
    assert_eq!(bob.sit(&table, Some(1)).await, 1);

    // n2 dies. Nothing says so to n1 but its heartbeat stopping: within
    // about two lease lifetimes n1's table counts Bob away.
    nodes[1].kill();
    let killed = std::time::Instant::now();
    let away = |m: &ServerMessage| {
        matches!(
            m,
            ServerMessage::Event {
                event: Some(TableEvent::Table(euchre_protocol::TableNotice::Presence {
                    seat: 1,
                    connected: false,
                    ..
                })),
                ..
            }
        )
    };
    let deadline = std::time::Instant::now() + Duration::from_millis(4 * LEASE_TTL_MS);
    loop {
        let message = ann.recv().await;
        if away(&message) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "Bob's seat was never counted away");
    }
    eprintln!("Bob's seat counted away {:?} after n2 died", killed.elapsed());
    drop(bob);
    cluster.finish(nodes).await;
}

/// Nodes that say where clients reach them, on a steady lease.
fn telling_nodes(settings: &mut Settings) {
    settings.cluster.lease_ttl_ms = STEADY_LEASE_TTL_MS;
    settings.cluster.public_url = OWN_URL.to_owned();
}

/// A counter or gauge of a node's `/metrics`.
async fn metric(node: &Node, name: &str) -> u64 {
    crate::support::http::metric(node.address, name).await
}

const RELAYED: &str = "euchre_cluster_frames_relayed_total";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_told_where_its_table_lives_goes_there_and_its_tables_messages_stop_crossing_nats()
{
    use euchre_client::{Client as Player, Config, Update};
    use rand::SeedableRng;
    let Some(cluster) = Cluster::start("cluster_elsewhere").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2"], telling_nodes).await;
    let mut ann = nodes[0].player("Ann").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };

    // Bob (the client library) connects to n2 and sits at Ann's table on
    // n1: the game starts, through n2, and n1 tells him where it lives.
    let table = create_table(&mut ann, settings.clone()).await;
    let config = Config::new(nodes[1].url.clone(), "Bob");
    let (bob, mut updates) = Player::connect(config).await.expect("Bob connects to n2");
    bob.sit(&table, Some(0), None).await.expect("Bob sits through n2");
    // He goes to n1 by himself: n2 is left with no connection.
    eventually("Bob to leave n2 for n1", WAIT, async || {
        match metric(&nodes[1], "euchre_connections_open").await {
            0 => Ok(()),
            open => Err(format!("{open} connections still on n2")),
        }
    })
    .await;
    // Whatever n1 relayed to n2 before, it relays nothing from now on…
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = metric(&nodes[0], RELAYED).await;
    assert!(before > 0, "Bob's first messages came through n2");
    // …while Bob plays two hands, with every event once and in order.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (mut hands, mut acted, mut last_seq) = (0, 0, 0);
    while hands < 2 {
        let update = timeout(WAIT, updates.next()).await.expect("play goes on").expect("open");
        match update {
            Update::YourTurn { table: at, actions, .. } if at == table => {
                bob.act(&table, pick(&actions, &mut rng)).await.expect("acknowledged");
                acted += 1;
            }
            Update::Event { seq, event, .. } => {
                assert!(last_seq == 0 || seq == last_seq + 1, "seq {seq} after {last_seq}");
                last_seq = seq;
                if let Some(TableEvent::Game(Event::HandEnded { .. })) = event {
                    hands += 1;
                }
            }
            Update::Snapshot { seq, .. } => last_seq = seq,
            Update::Disconnected { reason } => panic!("Bob's connection dropped: {reason}"),
            _ => {}
        }
    }
    assert!(acted > 0, "Bob played");
    assert_eq!(metric(&nodes[0], RELAYED).await, before, "nothing of the table crossed NATS");

    // Cy, whose client ignores the hint, plays a hand through n2 all the
    // same: n1 relays his table's messages.
    let other = create_table(&mut ann, settings).await;
    let mut cy = nodes[1].player("Cy").await;
    let id = cy.next_id();
    cy.send(&ClientMessage::Sit { id, table: other.clone(), seat: Some(0), invite: None }).await;
    let told = cy.recv_until(|m| matches!(m, ServerMessage::TableElsewhere { .. })).await;
    let ServerMessage::TableElsewhere { table: named, url } = told else { unreachable!() };
    assert_eq!((named.as_str(), url.as_str()), (other.as_str(), nodes[0].url.as_str()));
    let done = |event: &Event| matches!(event, Event::HandEnded { .. });
    let cy = crate::support::play_until(cy, other, 11, done).await;
    assert!(metric(&nodes[0], RELAYED).await > before, "Cy's table went through n2");
    drop((cy, ann));
    bob.close().await;
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_handed_over_to_a_joining_node_answers_every_command_or_closes_the_connection() {
    let Some(cluster) = Cluster::start("cluster_handover").await else { return };
    let mut nodes = cluster.nodes(&["n1", "n2"]).await;

    // A table in the shard n1 gives up first when a third node joins (its
    // highest: the lease loop gives the excess up from the top).
    let holders = shard_holders(&cluster.nats).await;
    let given_up = (0..NODE_SHARDS)
        .rev()
        .find(|&shard| holders[usize::from(shard)].as_deref() == Some("n1"))
        .expect("n1 holds shards");
    // (A new host for each try: a player may host only so many tables.)
    let (ann, table) = loop {
        let mut ann = nodes[0].player("Ann").await;
        let table = create_table(&mut ann, TableSettings::default()).await;
        if shard_of(&table, NODE_SHARDS) == given_up {
            break (ann, table);
        }
    };
    let mut people = vec![
        ann,
        nodes[1].player("Bob").await,
        nodes[0].player("Cy").await,
        nodes[1].player("Dee").await,
    ];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    let urls = urls(&nodes);
    // A spectator on each node follows the table through the handover too.
    let mut spectators = Vec::new();
    for (index, (node, name)) in nodes.iter().zip(["Eve", "Fay"]).enumerate() {
        let spectator = node.player(name).await;
        spectators.push(watch_to_the_end(spectator, index as u8, &table, urls.clone()).await);
    }
    // A game of some seconds: the handover comes mid-game.
    let (tasks, acks) = roam(people, &table, &urls, Duration::from_millis(30));
    until_acked(&acks, 10).await;
    // n3 joins mid-hand: n1 hands the table's shard over while four people
    // play. A command is answered (acked or refused) or its connection is
    // closed and the player resumes: a player left waiting fails the test
    // (the client's patience runs out).
    nodes.push(Node::start("n3", &cluster.nats.url, &cluster.db_url));
    let mut roamers = Vec::new();
    for task in tasks {
        roamers.push(task.await.expect("the player finished the game through the handover"));
    }
    let holders = shard_holders(&cluster.nats).await;
    assert_ne!(holders[usize::from(given_up)].as_deref(), Some("n1"), "the shard moved");
    let (logged, ended) = logged_actions(&cluster.nats, &table).await;
    assert!(ended, "the game's end is in the log");
    for roamer in &roamers {
        audit(&roamer.whole_log(), roamer.seat);
        assert!(in_order(&roamer.acked, &logged[&roamer.seat]), "seat {}", roamer.seat);
        let unknown = roamer.client.log.iter().filter(|m| error_code(m) == Some("no_such_table"));
        assert_eq!(unknown.count(), 0, "a table failing over is unavailable, never unknown");
    }
    for spectator in finished(spectators).await {
        audit_viewer(&spectator.whole_log(), None);
        assert!(spectator.reconnections > 0, "the handover closed a spectator's connection");
    }
    let owners = one_writer_at_a_time(&cluster.nats, given_up).await;
    assert!(owners.iter().any(|node| node != "n1"), "another node fenced the log: {owners:?}");
    cluster.finish(nodes).await;
}

/// Takes `shard`'s lease from `owner`, a node still running and serving the
/// shard's tables: its key is deleted under it (as if NATS had lost it or
/// expired it early), so the owner still believes it holds the shard until
/// its next renewal is refused. Nodes below their fair share race for the
/// key, the owner among them (it holds one shard less now); deleted again
/// while the owner wins it back, until another node has it. Returns that
/// node's name and how many times the key was taken.
async fn take_the_lease_from(nats: &Nats, shard: u16, owner: &str) -> (String, usize) {
    let js = nats.jetstream().await;
    let bucket = js.get_key_value("euchre_owners").await.expect("the owners' bucket");
    let ttl = Duration::from_millis(LEASE_TTL_MS);
    let owners = euchre_cluster::Leases::open(&js, "euchre_owners", ttl, 1).await.expect("opens");
    let key = format!("shard-{shard}");
    let mut taken = 0;
    // Each look: another node holds it (done), the owner does (deleted
    // again), or nobody does yet (look again).
    let holder = eventually(
        "another node to take the shard",
        Duration::from_secs(60),
        async || match owners.holder(&key).await.expect("reads") {
            Some(holder) if holder.node != owner => Some(holder.node),
            Some(_) => {
                bucket.delete(&key).await.expect("deletes the key");
                taken += 1;
                None
            }
            None => None,
        },
    )
    .await;
    (holder, taken)
}

/// Each hand's actions in the table's log: every (match, hand, index) once
/// and none missing, so no step was stored twice, by two owners or one.
async fn each_action_once(nats: &Nats, table: &str) {
    let writes = logged_writes(nats, table).await;
    let mut next: HashMap<(String, u32), u32> = HashMap::new();
    for write in writes {
        if let Write::Action { match_id, hand, index, .. } = write {
            let expected = next.entry((match_id.clone(), hand)).or_default();
            assert_eq!(
                index, *expected,
                "match {match_id}, hand {hand}: an action stored twice or lost"
            );
            *expected += 1;
        }
    }
    assert!(!next.is_empty(), "the log holds the game's actions");
}

/// The forced handover: a shard's lease taken from its owner while it runs
/// and four people on three nodes play, so that for a moment two nodes
/// believe they own the shard. Every acknowledged action is in the log,
/// none is stored twice or without its player being answered (but the
/// unanswered), no command is answered twice, no seat sees a gap, and the
/// log has one writer at a time. (Before the owner gave a shard up on
/// hearing that another node took it over, its tables went on answering
/// what writes nothing, resumes, beside the new owner's, until its next
/// renewal: the same resume answered twice and seqs of two tables
/// interleaved, in every run.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_taken_from_a_running_owner_loses_no_acknowledged_action_and_stores_none_twice() {
    let Some(cluster) = Cluster::start("cluster_forced").await else { return };
    let nodes = cluster.nodes(&["n1", "n2", "n3"]).await;

    // Eight shards on three nodes are held 3, 3 and 2. The table goes to a
    // node with three: when its lease goes, the node with two (below its
    // fair share) races the owner (below it too, now) for the shard.
    let holders = shard_holders(&cluster.nats).await;
    let held = |node: &Node| holders.iter().filter(|h| h.as_deref() == Some(&node.name)).count();
    let owner = (0..3).find(|&i| held(&nodes[i]) == 3).expect("a node holds three shards");
    let (left, right) = ((owner + 1) % 3, (owner + 2) % 3);
    let mut ann = nodes[owner].player("Ann").await;
    let table = create_table(&mut ann, TableSettings::default()).await;
    let shard = shard_of(&table, NODE_SHARDS);
    let mut people = vec![
        ann,
        nodes[left].player("Bob").await,
        nodes[right].player("Cy").await,
        nodes[owner].player("Dee").await,
    ];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    let urls = urls(&nodes);
    // A game of some seconds: the race comes mid-game. (At 30 ms a pause,
    // on a loaded box, the game once ended before another node had taken
    // the shard, and nothing was left to play after it.)
    let (tasks, acks) = roam(people, &table, &urls, Duration::from_millis(60));

    // Mid-hand, four people playing, the owner's lease goes.
    until_acked(&acks, 10).await;
    let owner_name = nodes[owner].name.clone();
    let (thief, taken) = take_the_lease_from(&cluster.nats, shard, &owner_name).await;
    let at_theft = acks.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{thief} took shard {shard} from {owner_name} (its key taken {taken} times)");

    let mut roamers = Vec::new();
    for task in tasks {
        roamers.push(task.await.expect("the player finished the game through the race"));
    }
    let (logged, ended) = logged_actions(&cluster.nats, &table).await;
    assert!(ended, "the game's end is in the log");
    for roamer in &roamers {
        audit(&roamer.whole_log(), roamer.seat);
        let seat = roamer.seat;
        let logged = &logged[&seat];
        // Nothing acknowledged is lost; nothing is stored that was not
        // acknowledged, but for actions whose connection closed first (and
        // the game's last, whose ack comes after the end it caused).
        assert!(in_order(&roamer.acked, logged), "seat {seat}: an acknowledged action is lost");
        let unanswered = roamer.unanswered + usize::from(roamer.in_flight.is_some());
        assert!(
            logged.len() <= roamer.acked.len() + unanswered,
            "seat {seat}: {} actions stored, {} acknowledged, {} unanswered",
            logged.len(),
            roamer.acked.len(),
            unanswered
        );
        let mut twice = roamer.answered_twice.clone();
        twice.extend(answered_twice(&roamer.client.log));
        assert!(twice.is_empty(), "seat {seat}: commands {twice:?} answered twice");
    }
    each_action_once(&cluster.nats, &table).await;
    // One writer at a time (nothing the owner tried after the thief's fence
    // was stored), the thief fenced the owner out, and play went on after.
    let owners = one_writer_at_a_time(&cluster.nats, shard).await;
    assert!(
        owners.windows(2).any(|w| w[0] == owner_name && w[1] == thief),
        "{thief} fenced {owner_name} out: {owners:?}"
    );
    assert!(acks.load(std::sync::atomic::Ordering::Relaxed) > at_theft, "play went on after");
    cluster.finish(nodes).await;
}

/// The leak audit across nodes where a hand has private cards beyond the
/// deal: the three-handed game's dummy (taken by the maker alone) and the
/// maker's discards, three players on three nodes and a spectator.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_handed_game_with_the_dummy_on_three_nodes_leaks_nothing() {
    let Some(cluster) = Cluster::start("cluster_dummy").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;

    let mut ann = nodes[0].player("Ann").await;
    // A long game (to 25): enough hands that some maker is not alone (a
    // lone maker plays without the dummy, and the random players go alone
    // often).
    let rules = serde_json::json!({ "points_to_win": 25 });
    let settings = TableSettings {
        preset: euchre_engine::Preset::ThreeHanded,
        rules: rules.as_object().cloned(),
        ..TableSettings::default()
    };
    let table = create_table(&mut ann, settings).await;
    let mut people = vec![ann, nodes[1].player("Bob").await, nodes[2].player("Cy").await];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    let spectator = watch_to_the_end(nodes[1].player("Eve").await, 1, &table, urls(&nodes)).await;
    let players = play_to_the_end(people, &table, urls(&nodes), |seat| seat);
    let (players, spectators) = (finished(players).await, finished(vec![spectator]).await);
    audit_all(&players, &spectators);
    let dummies = players
        .iter()
        .flat_map(Roamer::whole_log)
        .filter(|m| {
            matches!(
                m,
                ServerMessage::Event {
                    event: Some(TableEvent::Game(Event::DummyTaken { cards: Some(_), .. })),
                    ..
                }
            )
        })
        .count();
    eprintln!("the dummy was taken and seen by its taker {dummies} times");
    assert!(dummies > 0, "some maker took the dummy and saw it");
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_joker_game_with_call_for_best_on_three_nodes_leaks_nothing() {
    let Some(cluster) = Cluster::start("cluster_best").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;

    // The joker's pack, and a loner's partner passing him its best card:
    // the one card that goes from one hidden hand to another. A long game,
    // so the random players go alone often enough.
    let rules = serde_json::json!({ "points_to_win": 25, "call_for_best": true });
    let settings = TableSettings {
        preset: euchre_engine::Preset::ClassicJoker,
        rules: rules.as_object().cloned(),
        ..TableSettings::default()
    };
    let mut ann = nodes[0].player("Ann").await;
    let table = create_table(&mut ann, settings).await;
    let mut people = vec![
        ann,
        nodes[1].player("Bob").await,
        nodes[2].player("Cy").await,
        nodes[0].player("Di").await,
    ];
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    let spectator = watch_to_the_end(nodes[2].player("Eve").await, 2, &table, urls(&nodes)).await;
    let players = play_to_the_end(people, &table, urls(&nodes), |seat| 40 + seat);
    let (players, spectators) = (finished(players).await, finished(vec![spectator]).await);
    audit_all(&players, &spectators);
    let (mut passes_seen, mut joker_seen) = (0, false);
    for message in players.iter().flat_map(Roamer::whole_log) {
        if let ServerMessage::Event { event: Some(TableEvent::Game(event)), .. } = message {
            match event {
                Event::CardPassed { card: Some(_), .. } => passes_seen += 1,
                Event::CardPlayed { card, .. } => joker_seen |= card.is_joker(),
                _ => {}
            }
        }
    }
    eprintln!("a passed card was seen by its giver or its loner {passes_seen} times");
    assert!(passes_seen > 0, "some partner passed a loner its best card");
    assert!(joker_seen, "the joker was played");
    cluster.finish(nodes).await;
}

// ---------------------------------------------------------------------------
// Closed tables leave the shards' logs once PostgreSQL has their history.

/// How many records of `table` its shard's log holds.
async fn records_of(nats: &Nats, table: &str) -> usize {
    try_records_of(nats, table).await.expect("reads")
}

/// [`records_of`]; a read that a purge overtakes falls short of the count
/// it expected and fails (it never returns part of a table).
async fn try_records_of(nats: &Nats, table: &str) -> Result<usize, euchre_cluster::LogError> {
    Ok(log_entries(nats, table).await?.len())
}

/// `table`'s entries in its shard's log.
async fn log_entries(nats: &Nats, table: &str) -> Result<Vec<LogEntry>, euchre_cluster::LogError> {
    let js = nats.jetstream().await;
    let shard = shard_of(table, NODE_SHARDS);
    euchre_cluster::log::read_table(&js, &LogConfig::default(), shard, table).await
}

/// `table`'s writes in its shard's log, in order.
async fn logged_writes(nats: &Nats, table: &str) -> Vec<Write> {
    let entries = log_entries(nats, table).await.expect("reads");
    let shard = shard_of(table, NODE_SHARDS);
    tables_in(shard, &entries).expect("readable").remove(table).unwrap_or_default()
}

/// What PostgreSQL holds of `table`: whether it is closed, and its ended
/// matches' finished hands.
async fn stored_history(db_url: &str, table: &str) -> (bool, i64) {
    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(db_url).await.expect("connects");
    let closed: Option<Option<i64>> =
        sqlx::query_scalar("SELECT closed_at FROM game_tables WHERE id = $1")
            .bind(table)
            .fetch_optional(&mut db)
            .await
            .expect("reads game_tables");
    let hands: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM hands h JOIN matches m ON m.id = h.match_id \
         WHERE m.table_id = $1 AND m.ended_at IS NOT NULL AND h.outcome IS NOT NULL",
    )
    .bind(table)
    .fetch_one(&mut db)
    .await
    .expect("reads hands");
    (closed.flatten().is_some(), hands)
}

/// Waits until the table has left its shard's log and PostgreSQL has it
/// closed with `hands` finished hands.
async fn wait_purged_and_stored(cluster: &Cluster, table: &str, hands: i64) {
    let what = format!("the table purged from the log and stored closed with {hands} hands");
    eventually(&what, Duration::from_secs(20), async || {
        // While the purge happens a read may fail: read again.
        let left = try_records_of(&cluster.nats, table).await.map_err(|e| e.to_string());
        let stored = stored_history(&cluster.db_url, table).await;
        if left == Ok(0) && stored == (true, hands) {
            return Ok(());
        }
        Err(format!("the log holds {left:?} records; PostgreSQL has (closed, hands) {stored:?}"))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_and_closed_table_leaves_its_shards_log_once_postgresql_has_its_hands() {
    let Some(cluster) = Cluster::start("cluster_purge").await else { return };
    // A table nobody is connected to closes half a second later.
    let nodes = cluster
        .nodes_with(&["n1", "n2"], |settings| {
            settings.timing.reconnect_grace_ms = 500;
            settings.timing.table_close_ms = 500;
        })
        .await;
    let mut ann = nodes[0].player("Ann").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() };
    let table = create_table(&mut ann, settings).await;
    assert_eq!(ann.sit(&table, Some(0)).await, 0);
    let ann = crate::support::play_to_the_end(ann, table.clone(), 11).await;
    let hands = ann
        .log
        .iter()
        .filter(|m| {
            matches!(
                m,
                ServerMessage::Event { event: Some(TableEvent::Game(Event::HandEnded { .. })), .. }
            )
        })
        .count();
    assert!(hands >= 3, "a game is several hands: {hands}");
    // Open, the table keeps its records in the log, finished game and all.
    assert!(records_of(&cluster.nats, &table).await > 0);

    // PostgreSQL cannot take the table's close for now: a transaction
    // holds game_tables, so the node's history writer waits.
    use sqlx::Connection;
    let mut blocker = sqlx::PgConnection::connect(&cluster.db_url).await.expect("connects");
    let mut hold = blocker.begin().await.expect("begins");
    sqlx::query("LOCK TABLE game_tables IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *hold)
        .await
        .expect("locks");
    // Ann goes: nobody is connected, and the table closes.
    drop(ann);
    let shard = shard_of(&table, NODE_SHARDS);
    eventually("the table to close in its log", WAIT, async || {
        let entries = log_entries(&cluster.nats, &table).await.expect("reads");
        assert!(!entries.is_empty(), "the table left the log before PostgreSQL had it");
        let writes = tables_in(shard, &entries).expect("readable").remove(&table);
        writes
            .unwrap_or_default()
            .iter()
            .any(|w| matches!(w, Write::TableClosed { .. }))
            .then_some(())
    })
    .await;
    // Closed, but not in PostgreSQL yet: it stays in the log.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(records_of(&cluster.nats, &table).await > 0, "purged before PostgreSQL had it");
    hold.commit().await.expect("lets go");
    wait_purged_and_stored(&cluster, &table, hands as i64).await;
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_table_its_owner_died_before_purging_is_stored_and_purged_at_the_take_over() {
    let Some(cluster) = Cluster::start("cluster_orphan").await else { return };
    // A finished game at a closed table, in its shard's log as an owner
    // that died before its journal reached PostgreSQL left it.
    let table = "0193a8f2c4e07b3d9f1a2b3c4d5e6f70";
    let rules = euchre_engine::Preset::Standard.rules();
    let mut game = euchre_engine::Game::new(rules, 5).expect("valid rules");
    let mut bots: Vec<_> = (0..4).map(|seat| BotKind::Basic.create(seat)).collect();
    while let Some(seat) = game.turn() {
        let legal = game.legal_actions(seat);
        let view = game.view(euchre_engine::Viewer::Seat(seat));
        let action = bots[usize::from(seat.0)].choose(&view, &legal).expect("a move");
        game.apply(seat, action).expect("a legal move");
    }
    let names: Vec<String> = (0..4).map(|seat| format!("Bot {seat}")).collect();
    let mut played = euchre_server::api::import_writes("m-orphan", game.record(), &names, 1_000);
    if let Some(Write::MatchStarted { table_id, .. }) = played.first_mut() {
        *table_id = table.to_owned();
    }
    let opened = vec![Write::TableOpened {
        id: table.to_owned(),
        host_id: "p-gone".to_owned(),
        settings: serde_json::json!({}),
        invite: None,
        at: 1_000,
    }];
    let closed = vec![Write::TableClosed { id: table.to_owned(), at: 2_000 }];
    let shard = shard_of(table, NODE_SHARDS);
    {
        let js = cluster.nats.jetstream().await;
        let (mut dead, _) = ShardLog::take_over(&js, &LogConfig::default(), shard, "dead", 0)
            .await
            .expect("takes over");
        for writes in [opened, played, closed] {
            let body = serde_json::to_vec(&writes).expect("encodes");
            dead.append(table, body.into()).await.expect("appends");
        }
    }
    // (PostgreSQL has nothing yet: the database is new, not even migrated.)
    assert_eq!(records_of(&cluster.nats, table).await, 3);

    // The nodes start and share the shards: the shard's new owner records
    // the table's history and purges it.
    let nodes = cluster.nodes(&["n1", "n2"]).await;
    wait_purged_and_stored(&cluster, table, game.record().hands.len() as i64).await;
    cluster.finish(nodes).await;
}

// ---------------------------------------------------------------------------
// Sessions end on every node: a log-out, a password change or a
// claim on one node reaches the others over `euchre.revoked`.

const PASSWORD: &str = "correct horse";

/// Claims `name` for the guest holding `token`, on `node`: the session's token.
async fn claim_on(node: &Node, token: &str, name: &str) -> String {
    let body = serde_json::json!({ "name": name, "password": PASSWORD }).to_string();
    let answer = crate::support::http::request_at(
        node.address,
        "POST",
        "/api/accounts",
        Some(token),
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.json()["token"].as_str().expect("a session token").to_owned()
}

/// An account's mute made through one node holds at once for its
/// connection to another: Bob's chat stops reaching Dee there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mute_made_on_one_node_hides_chat_from_the_accounts_connection_on_another() {
    let Some(cluster) = Cluster::start("cluster_mute").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2"]).await;
    let mut bob = nodes[0].player("Bob").await;
    let guest = nodes[1].player("Dee").await;
    let session = claim_on(&nodes[1], guest.token.as_deref().expect("a token"), "Dee").await;
    let mut dee_here = Client::connect(&nodes[0].url).await;
    dee_here.try_hello("", Some(&session)).await.expect("welcome");
    let mut dee_there = Client::connect(&nodes[1].url).await;
    dee_there.try_hello("", Some(&session)).await.expect("welcome");
    let table = create_table(&mut bob, TableSettings::default()).await;
    bob.sit(&table, Some(0)).await;
    dee_there.sit(&table, Some(1)).await;

    let id = dee_here.next_id();
    let player = bob.player_id.clone().expect("welcomed");
    let muted = dee_here.command(ClientMessage::Mute { id, player }).await;
    assert!(matches!(muted, ServerMessage::Ack { reply: Reply::Done, .. }), "{muted:?}");
    // Each line Bob says reaches Dee's other connection empty, or (before
    // the news arrives, within moments) whole: soon every line is empty.
    let mut said = 0;
    eventually("Bob's chat hidden on the other node", Duration::from_secs(5), async || {
        said += 1;
        let (id, table, text) = (bob.next_id(), table.clone(), format!("line {said}"));
        bob.command(ClientMessage::Chat { id, table, text }).await;
        let heard = dee_there.recv_until(|m| match m {
            ServerMessage::Event { event: None, .. } => true,
            ServerMessage::Event { event: Some(TableEvent::Table(notice)), .. } => {
                matches!(notice, euchre_protocol::TableNotice::Chat { .. })
            }
            _ => false,
        });
        matches!(heard.await, ServerMessage::Event { event: None, .. }).then_some(())
    })
    .await;
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_out_on_one_node_closes_the_sessions_connection_on_another_within_a_second() {
    let Some(cluster) = Cluster::start("cluster_log_out").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;
    let guest = nodes[0].player("Ann").await;
    let session = claim_on(&nodes[0], guest.token.as_deref().expect("a token"), "Ann").await;
    // On n2 the session is looked up and kept in n2's memory.
    let mut on_n2 = Client::connect(&nodes[1].url).await;
    on_n2.try_hello("", Some(&session)).await.expect("welcomed on n2");
    assert!(on_n2.list_tables(LobbyQuery::default()).await.is_ok());

    let answer = crate::support::http::request_at(
        nodes[0].address,
        "DELETE",
        "/api/sessions/current",
        Some(&session),
        None,
    )
    .await;
    assert_eq!(answer.status, 204, "{}", answer.body);
    let code = timeout(Duration::from_secs(1), on_n2.close_code()).await;
    assert_eq!(code.expect("closed within a second"), Some(close::SESSION_ENDED));
    // And n2 no longer lets the token in.
    let mut again = Client::connect(&nodes[1].url).await;
    let refused = again.try_hello("", Some(&session)).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("bad_token"));
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_on_one_node_closes_the_accounts_other_sessions_on_another_within_a_second()
 {
    let Some(cluster) = Cluster::start("cluster_password").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;
    let guest = nodes[0].player("Cal").await;
    let laptop = claim_on(&nodes[0], guest.token.as_deref().expect("a token"), "Cal").await;
    // The laptop's session plays on n3 and is kept in n3's memory.
    let mut on_n3 = Client::connect(&nodes[2].url).await;
    on_n3.try_hello("", Some(&laptop)).await.expect("welcomed on n3");
    assert!(on_n3.list_tables(LobbyQuery::default()).await.is_ok());

    // The phone logs in on n2 and changes the password there.
    let body = serde_json::json!({ "name": "Cal", "password": PASSWORD }).to_string();
    let answer = crate::support::http::request_at(
        nodes[1].address,
        "POST",
        "/api/sessions",
        None,
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let phone = answer.json()["token"].as_str().expect("a session token").to_owned();
    let body = serde_json::json!({ "current_password": PASSWORD, "new_password": "a new horse" })
        .to_string();
    let answer = crate::support::http::request_at(
        nodes[1].address,
        "PUT",
        "/api/accounts/password",
        Some(&phone),
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let renewed = answer.json()["token"].as_str().expect("a new session").to_owned();

    let code = timeout(Duration::from_secs(1), on_n3.close_code()).await;
    assert_eq!(code.expect("closed within a second"), Some(close::SESSION_ENDED));
    // Neither old session gets in on n3 now; the new one does.
    for old in [&laptop, &phone] {
        let mut again = Client::connect(&nodes[2].url).await;
        let refused = again.try_hello("", Some(old)).await.err();
        assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("bad_token"));
    }
    let mut renewed_on_n3 = Client::connect(&nodes[2].url).await;
    renewed_on_n3.try_hello("", Some(&renewed)).await.expect("the new session is welcome");
    cluster.finish(nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_claimed_on_one_node_is_refused_to_new_guests_on_the_others_within_a_second() {
    let Some(cluster) = Cluster::start("cluster_claim").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;
    let guest = nodes[0].player("Bea").await;
    claim_on(&nodes[0], guest.token.as_deref().expect("a token"), "Bea").await;
    for node in &nodes[1..] {
        eventually("the claim to reach every node", Duration::from_secs(1), async || {
            let mut newcomer = Client::connect(&node.url).await;
            match newcomer.try_hello("bea", None).await {
                Err(refused) if refused.code() == Some("name_taken") => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;
    }
    cluster.finish(nodes).await;
}

// ---------------------------------------------------------------------------
// NATS that lets in only the nodes: docker/nats.conf, the example the
// cluster's compose file mounts, with its users and their permissions.

const NATS_PASSWORD: &str = "a-password-for-the-nodes";

fn nats_conf() -> NatsConfig {
    NatsConfig {
        file: concat!(env!("CARGO_MANIFEST_DIR"), "/../../docker/nats.conf").into(),
        env: vec![("EUCHRE_NATS_PASSWORD".to_owned(), NATS_PASSWORD.to_owned())],
        login: Some(("euchre".to_owned(), NATS_PASSWORD.to_owned())),
    }
}

fn with_the_password(settings: &mut Settings) {
    settings.cluster.lease_ttl_ms = STEADY_LEASE_TTL_MS;
    settings.cluster.nats.user = "euchre".to_owned();
    settings.cluster.nats.password = Secret(NATS_PASSWORD.to_owned());
}

/// Why a node with these NATS settings failed to start; it must fail, and
/// promptly (not retry for ever).
async fn refused_start(cluster: &Cluster, nats: NatsSettings) -> String {
    let data = tempfile::tempdir().expect("a data folder");
    let mut settings = Settings {
        data_dir: data.path().to_owned(),
        database_url: DatabaseUrl(cluster.db_url.clone()),
        ..Settings::default()
    };
    settings.cluster = ClusterSettings {
        enabled: true,
        nats_url: cluster.nats.url.clone(),
        node_id: "intruder".to_owned(),
        shards: NODE_SHARDS,
        nats,
        ..ClusterSettings::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let started = euchre_server::run(listener, settings, std::future::pending());
    match timeout(Duration::from_secs(20), started).await {
        Ok(Err(error)) => format!("{error:#}"),
        Ok(Ok(())) => panic!("the node served and stopped"),
        Err(_) => panic!("the node neither started nor failed in 20 s"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_with_the_nats_password_serve_a_game_and_a_node_without_it_fails_to_start() {
    let Some(cluster) = Cluster::start_on("cluster_nats_auth", Some(nats_conf())).await else {
        return;
    };
    let nodes = cluster.nodes_with(&["n1", "n2"], with_the_password).await;

    // A game across both nodes: commands forwarded to the table's owner,
    // its messages sent back, a spectator on the other node.
    let mut ann = nodes[0].player("Ann").await;
    let table = create_table(&mut ann, TableSettings::default()).await;
    let mut people = vec![ann, nodes[1].player("Bob").await];
    people.push(nodes[0].player("Cy").await);
    people.push(nodes[1].player("Dee").await);
    for (seat, person) in people.iter_mut().enumerate() {
        assert_eq!(person.sit(&table, Some(seat as u8)).await, seat as u8);
    }
    let spectator = watch_to_the_end(nodes[1].player("Eve").await, 1, &table, urls(&nodes)).await;
    let players = play_to_the_end(people, &table, urls(&nodes), |seat| seat);
    let (players, spectators) = (finished(players).await, finished(vec![spectator]).await);
    audit_all(&players, &spectators);
    // Everything the nodes did is within docker/nats.conf's permissions.
    assert_eq!(cluster.nats.refusals(), Vec::<String>::new(), "NATS refused the nodes something");

    let wrong = NatsSettings {
        user: "euchre".to_owned(),
        password: Secret("not-the-password".to_owned()),
        ..NatsSettings::default()
    };
    let said = refused_start(&cluster, wrong).await;
    assert!(said.contains("refused this node's credentials"), "{said}");
    assert!(!said.contains("not-the-password"), "the password printed: {said}");
    let said = refused_start(&cluster, NatsSettings::default()).await;
    assert!(said.contains("refused this node's credentials"), "{said}");
    // nats-server writes its log on its own time: on a loaded machine the
    // refusal's line may come a moment after the node gave up.
    eventually("NATS to log a refusal", Duration::from_secs(10), async || {
        (!cluster.nats.refusals().is_empty()).then_some(())
    })
    .await;
    cluster.finish(nodes).await;
}

/// A certificate authority of the test's own, and the certificates it
/// signed for NATS (127.0.0.1) and for a node, as PEM files in `folder`.
struct Pki {
    folder: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        use rcgen::{
            BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
        };
        let folder = tempfile::tempdir().expect("a folder");
        let write = |name: &str, pem: String| {
            std::fs::write(folder.path().join(name), pem).expect("written");
        };
        let ca_key = KeyPair::generate().expect("a key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("the CA's");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        write("ca.pem", ca.self_signed(&ca_key).expect("the CA").pem());
        let issuer = Issuer::new(ca, ca_key);
        for (name, purpose) in [
            ("nats", ExtendedKeyUsagePurpose::ServerAuth),
            ("node", ExtendedKeyUsagePurpose::ClientAuth),
        ] {
            let key = KeyPair::generate().expect("a key");
            let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).expect("params");
            params.extended_key_usages = vec![purpose];
            write(&format!("{name}.pem"), params.signed_by(&key, &issuer).expect("signed").pem());
            write(&format!("{name}-key.pem"), key.serialize_pem());
        }
        Pki { folder }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.folder.path().join(name)
    }

    /// A NATS configuration that takes only TLS clients with a certificate of this CA.
    fn nats_conf(&self) -> NatsConfig {
        let conf = format!(
            "tls {{\n  cert_file: {:?}\n  key_file: {:?}\n  ca_file: {:?}\n  verify: true\n}}\n",
            self.path("nats.pem"),
            self.path("nats-key.pem"),
            self.path("ca.pem"),
        );
        let file = self.path("nats.conf");
        std::fs::write(&file, conf).expect("written");
        NatsConfig { file, ..NatsConfig::default() }
    }

    fn node_settings(&self) -> NatsSettings {
        NatsSettings {
            tls_ca_file: self.path("ca.pem"),
            tls_cert_file: self.path("node.pem"),
            tls_key_file: self.path("node-key.pem"),
            tls_required: true,
            ..NatsSettings::default()
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_with_the_cas_certificates_serves_over_tls_to_nats_and_one_without_fails_to_start() {
    let pki = Pki::new();
    let Some(cluster) = Cluster::start_on("cluster_nats_tls", Some(pki.nats_conf())).await else {
        return;
    };
    let tls = pki.node_settings();
    let node = Node::start_with("n1", &cluster.nats.url, &cluster.db_url, |settings| {
        settings.cluster.nats = tls.clone();
    });
    // It joined: it owns shards and hosts a table.
    let mut ann = node.player("Ann").await;
    let table = create_table(&mut ann, TableSettings::default()).await;
    assert_eq!(ann.sit(&table, Some(0)).await, 0);

    // No client certificate: NATS (verify) refuses the handshake.
    let no_certificate = NatsSettings {
        tls_cert_file: Default::default(),
        tls_key_file: Default::default(),
        ..tls.clone()
    };
    let said = refused_start(&cluster, no_certificate).await;
    assert!(said.contains("NATS at"), "{said}");
    // Not this CA: the node refuses NATS's certificate.
    let stranger = Pki::new();
    let said = refused_start(&cluster, stranger.node_settings()).await;
    assert!(said.contains("invalid peer certificate"), "{said}");
    cluster.finish(vec![node]).await;
}

fn quick_nodes(settings: &mut Settings) {
    settings.cluster.lease_ttl_ms = STEADY_LEASE_TTL_MS;
    settings.quick_play.wave_ms = 100;
}

/// Asks for a casual game of the standard preset; the answer (ack or error).
async fn quick_play(client: &mut Client) -> ServerMessage {
    quick_play_as(client, QuickPlayRequest::new(Preset::Standard, false)).await
}

async fn quick_play_as(client: &mut Client, request: QuickPlayRequest) -> ServerMessage {
    let id = client.next_id();
    client.command(ClientMessage::QuickPlay { id, request }).await
}

/// The node holding the lease of the standard casual pool's shard.
async fn pool_owner(nats: &Nats) -> String {
    let pool = euchre_server::quick_play::pool_name(Preset::Standard, false);
    let shard = usize::from(shard_of(&pool, NODE_SHARDS));
    shard_holders(nats).await[shard].clone().expect("the pool's shard has an owner")
}

#[tokio::test]
async fn four_players_on_two_nodes_asking_for_quick_play_sit_at_one_table_and_play() {
    let Some(cluster) = Cluster::start("cluster_quick_play").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2"], quick_nodes).await;
    let owner = pool_owner(&cluster.nats).await;
    // Two players on each node: two of them ask a pool another node owns.
    // Ann on n1 asks with a partner, Bob on n2 joins her with her code.
    let casual = || QuickPlayRequest::new(Preset::Standard, false);
    let mut team: Option<String> = None;
    let mut players = Vec::new();
    for (name, node) in [("Ann", 0), ("Bob", 1), ("Cid", 0), ("Dee", 1)] {
        let mut player = nodes[node].player(name).await;
        let request = match (name, &team) {
            ("Ann", _) => QuickPlayRequest { invite_partner: true, ..casual() },
            ("Bob", Some(code)) => QuickPlayRequest { team: Some(code.clone()), ..casual() },
            ("Bob", None) => panic!("Ann's ack carries her team code"),
            _ => casual(),
        };
        let answer = quick_play_as(&mut player, request).await;
        if let ServerMessage::Ack { reply: Reply::Queued { team: Some(code), .. }, .. } = &answer {
            team = Some(code.clone());
        }
        assert!(
            matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }),
            "{name} on {} (the pool is {owner}'s) is queued: {answer:?}",
            nodes[node].name
        );
        players.push(player);
    }
    let mut tables = std::collections::HashSet::new();
    let mut seats = Vec::new();
    for player in &mut players {
        let matched = player.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
        let ServerMessage::QuickPlayMatched { table, seat, .. } = matched.await else {
            unreachable!()
        };
        let ServerMessage::Snapshot { table: shown, state, .. } = player.recv().await else {
            panic!("the snapshot follows quick_play_matched")
        };
        assert_eq!((shown.as_str(), state.your_seat), (table.as_str(), Some(seat)));
        tables.insert(table);
        seats.push(seat);
    }
    assert_eq!(tables.len(), 1, "one table");
    assert_eq!((seats[0] + 2) % 4, seats[1], "the partners from two nodes sit opposite");
    seats.sort();
    assert_eq!(seats, vec![0, 1, 2, 3]);
    let table = tables.into_iter().next().expect("a table");

    // The player whose turn it is, on whichever node, plays the first action.
    let (acted, mut first) = mpsc::channel(4);
    let mut waiting = Vec::new();
    for mut player in players {
        let (table, acted) = (table.clone(), acted.clone());
        waiting.push(tokio::spawn(async move {
            let actions = loop {
                if let ServerMessage::YourTurn { table: at, seq, actions, .. } = player.recv().await
                    && at == table
                    && player.prompt_stands(&table, seq)
                {
                    break actions;
                }
            };
            let action = actions.first().copied().expect("a legal action");
            let id = crate::support::act(&mut player, &table, action).await;
            let answer = player.recv_until(|m| answer_id(m) == Some(id)).await;
            let _ = acted.send(answer).await;
        }));
    }
    let answer = timeout(WAIT, first.recv()).await.expect("a first action in time");
    assert!(
        matches!(answer, Some(ServerMessage::Ack { reply: Reply::Done, .. })),
        "the first action is accepted: {answer:?}"
    );
    for task in waiting {
        task.abort();
    }
    cluster.finish(nodes).await;
}

/// A block made by a guest on one node (kept in that node's memory alone)
/// is honoured by the pool's owner on the other: the blocked list travels
/// with the request. Four wait, two of them blocked, and nobody is seated
/// over many waves; a fifth makes a table without the pair.
#[tokio::test]
async fn a_block_made_on_one_node_keeps_the_pair_apart_in_a_pool_another_node_owns() {
    let Some(cluster) = Cluster::start("cluster_quick_play_block").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2"], quick_nodes).await;
    let owner = pool_owner(&cluster.nats).await;
    let (away, home) = if nodes[0].name == owner { (1, 0) } else { (0, 1) };
    let mut ann = nodes[away].player("Ann").await;
    let mut bob = nodes[home].player("Bob").await;
    let id = ann.next_id();
    let player = bob.player_id.clone().expect("welcomed");
    let blocked = ann.command(ClientMessage::Block { id, player }).await;
    assert!(matches!(blocked, ServerMessage::Ack { reply: Reply::Done, .. }), "{blocked:?}");
    let mut others = Vec::new();
    for (name, node) in [("Cid", away), ("Dee", home)] {
        others.push(nodes[node].player(name).await);
    }
    for player in std::iter::once(&mut ann).chain(std::iter::once(&mut bob)).chain(&mut others) {
        assert!(queued(&quick_play(player).await));
    }
    // Some ten waves with a table's worth waiting: nobody is seated.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let id = ann.next_id();
    ann.command(ClientMessage::Ping { id }).await;
    let matched =
        |c: &Client| c.log.iter().any(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
    assert!(!matched(&ann) && !matched(&bob), "matched across the block");
    let mut eve = nodes[home].player("Eve").await;
    assert!(queued(&quick_play(&mut eve).await));
    let table_of = async |client: &mut Client| match client
        .recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }))
        .await
    {
        ServerMessage::QuickPlayMatched { table, .. } => table,
        _ => unreachable!(),
    };
    let anns = table_of(&mut ann).await;
    for player in others.iter_mut().chain(std::iter::once(&mut eve)) {
        assert_eq!(table_of(player).await, anns);
    }
    assert!(!matched(&bob), "Bob waits on");
    cluster.finish(nodes).await;
}

#[tokio::test]
async fn a_guests_block_on_one_node_refuses_the_other_a_seat_at_her_table_from_another() {
    let Some(cluster) = Cluster::start("cluster_guest_block_sit").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2"]).await;
    let mut ann = nodes[0].player("Ann").await;
    let mut bob = nodes[1].player("Bob").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    let id = ann.next_id();
    let player = bob.player_id.clone().expect("welcomed");
    let blocked = ann.command(ClientMessage::Block { id, player }).await;
    assert!(matches!(blocked, ServerMessage::Ack { reply: Reply::Done, .. }), "{blocked:?}");
    // Bob, a guest on the other node, asks for a seat at her table.
    let id = bob.next_id();
    let sit = ClientMessage::Sit { id, table: table.clone(), seat: Some(1), invite: None };
    let refused = bob.command(sit).await;
    assert_eq!(error_code(&refused), Some("blocked"), "{refused:?}");
    // Lifted, he sits.
    let id = ann.next_id();
    let player = bob.player_id.clone().expect("welcomed");
    let lifted = ann.command(ClientMessage::Unblock { id, player }).await;
    assert!(matches!(lifted, ServerMessage::Ack { reply: Reply::Done, .. }), "{lifted:?}");
    assert_eq!(bob.sit(&table, Some(1)).await, 1);
    cluster.finish(nodes).await;
}

#[tokio::test]
async fn a_quick_play_request_ends_owner_lost_when_its_pools_owner_dies_and_may_be_made_again() {
    let Some(cluster) = Cluster::start("cluster_quick_play_owner_lost").await else { return };
    let mut nodes = cluster.nodes(&["n1", "n2"]).await;
    let owner = pool_owner(&cluster.nats).await;
    let (dies, lives) = if nodes[0].name == owner { (0, 1) } else { (1, 0) };
    let mut ann = nodes[lives].player("Ann").await;
    let answer = quick_play(&mut ann).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }), "{answer:?}");
    nodes[dies].kill();
    let ended = ann.recv_until(|m| matches!(m, ServerMessage::QuickPlayEnded { .. })).await;
    let ServerMessage::QuickPlayEnded { reason, .. } = ended else { unreachable!() };
    assert_eq!(reason, QuickPlayEndReason::OwnerLost);
    // She asks again, at the pool's new owner.
    let again = quick_play(&mut ann).await;
    assert!(matches!(again, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }), "{again:?}");
    cluster.finish(nodes).await;
}

/// The owner of each casual pool: (preset, owner node).
async fn casual_pool_owners(nats: &Nats) -> Vec<(Preset, String)> {
    let holders = shard_holders(nats).await;
    Preset::ALL
        .iter()
        .map(|&preset| {
            let pool = euchre_server::quick_play::pool_name(preset, false);
            let holder = holders[usize::from(shard_of(&pool, NODE_SHARDS))].clone();
            (preset, holder.expect("every pool's shard has an owner"))
        })
        .collect()
}

/// Two casual pools with different owners: each with its owner.
async fn pools_on_two_owners(nats: &Nats) -> [(Preset, String); 2] {
    let owners = casual_pool_owners(nats).await;
    let first = owners[0].clone();
    let second = owners.iter().find(|(_, owner)| *owner != first.1).expect("a pool on each node");
    [first, second.clone()]
}

fn node_named<'a>(nodes: &'a [Node], name: &str) -> &'a Node {
    nodes.iter().find(|node| node.name == name).expect("a node of that name")
}

/// Another connection of `client`'s player, to `node`.
async fn again_on(node: &Node, client: &Client) -> Client {
    let mut again = Client::connect(&node.url).await;
    again.try_hello("", client.token.as_deref()).await.expect("welcome back");
    again
}

fn queued(answer: &ServerMessage) -> bool {
    matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. })
}

#[tokio::test]
async fn a_player_waits_in_one_pool_of_the_cluster_and_may_ask_elsewhere_once_they_cancel() {
    let Some(cluster) = Cluster::start("cluster_quick_play_one_request").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2"], quick_nodes).await;
    let [(first, first_owner), (second, second_owner)] = pools_on_two_owners(&cluster.nats).await;
    // Ann asks each pool at its own owner, from two connections: only the
    // cluster-wide claim can tell the second owner she waits already.
    let mut here = node_named(&nodes, &first_owner).player("Ann").await;
    let mut there = again_on(node_named(&nodes, &second_owner), &here).await;
    let answer = quick_play_as(&mut here, QuickPlayRequest::new(first, false)).await;
    assert!(queued(&answer), "{answer:?}");
    let answer = quick_play_as(&mut there, QuickPlayRequest::new(second, false)).await;
    assert_eq!(error_code(&answer), Some("already_queued"), "{answer:?}");

    let id = here.next_id();
    let cancelled = here.command(ClientMessage::CancelQuickPlay { id }).await;
    assert!(matches!(cancelled, ServerMessage::Ack { reply: Reply::Done, .. }), "{cancelled:?}");
    let answer = quick_play_as(&mut there, QuickPlayRequest::new(second, false)).await;
    assert!(queued(&answer), "after the cancel she may ask elsewhere: {answer:?}");
    // And now the first pool refuses her.
    let answer = quick_play_as(&mut here, QuickPlayRequest::new(first, false)).await;
    assert_eq!(error_code(&answer), Some("already_queued"), "{answer:?}");
    cluster.finish(nodes).await;
}

#[tokio::test]
async fn a_dead_nodes_quick_play_claims_lapse_with_its_leases() {
    let Some(cluster) = Cluster::start("cluster_quick_play_dead_claim").await else { return };
    // Leases of 6 s: the refusal right after the kill is checked well
    // within the dead node's last lease.
    let mut nodes = cluster.nodes_with(&["n1", "n2"], quick_nodes).await;
    let [(first, first_owner), (second, _)] = pools_on_two_owners(&cluster.nats).await;
    let (dies, lives) = if nodes[0].name == first_owner { (0, 1) } else { (1, 0) };
    let mut ann = nodes[lives].player("Ann").await;
    let answer = quick_play_as(&mut ann, QuickPlayRequest::new(first, false)).await;
    assert!(queued(&answer), "queued at {first_owner}: {answer:?}");
    nodes[dies].kill();
    let answer = quick_play_as(&mut ann, QuickPlayRequest::new(second, false)).await;
    assert_eq!(error_code(&answer), Some("already_queued"), "the claim holds at first: {answer:?}");
    // Once the dead node's leases expire, its claim no longer counts.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let answer = quick_play_as(&mut ann, QuickPlayRequest::new(second, false)).await;
        if queued(&answer) {
            break;
        }
        assert!(
            matches!(error_code(&answer), Some("already_queued" | "unavailable")),
            "{answer:?}"
        );
        assert!(tokio::time::Instant::now() < deadline, "the dead node's claim never lapsed");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    cluster.finish(nodes).await;
}

#[tokio::test]
async fn a_quick_play_request_follows_its_player_who_reconnects_to_another_node() {
    let Some(cluster) = Cluster::start("cluster_quick_play_follows").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2"], quick_nodes).await;
    let owner = pool_owner(&cluster.nats).await;
    let elsewhere = nodes.iter().find(|node| node.name != owner).expect("another node");
    // Ann asks at the pool's owner, and her connection drops.
    let mut ann = node_named(&nodes, &owner).player("Ann").await;
    let answer = quick_play(&mut ann).await;
    assert!(queued(&answer), "{answer:?}");
    let token = ann.token.clone();
    drop(ann);
    let mut ann_again = Client::connect(&elsewhere.url).await;
    ann_again.try_hello("", token.as_deref()).await.expect("welcome back");
    // Three more ask, on both nodes: Ann, now on the other node, is told.
    let mut others = Vec::new();
    for (name, node) in [("Bob", &nodes[0]), ("Cid", &nodes[1]), ("Dee", elsewhere)] {
        let mut player = node.player(name).await;
        let answer = quick_play(&mut player).await;
        assert!(queued(&answer), "{name}: {answer:?}");
        others.push(player);
    }
    let matched = ann_again.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
    let ServerMessage::QuickPlayMatched { table, seat, .. } = matched.await else { unreachable!() };
    let ServerMessage::Snapshot { table: shown, state, .. } = ann_again.recv().await else {
        panic!("the snapshot follows quick_play_matched")
    };
    assert_eq!((shown.as_str(), state.your_seat), (table.as_str(), Some(seat)));
    for mut player in others {
        let matched = player.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
        let ServerMessage::QuickPlayMatched { table: theirs, .. } = matched.await else {
            unreachable!()
        };
        assert_eq!(theirs, table, "one table");
    }
    cluster.finish(nodes).await;
}

/// A table quick play formed fails over like any other, though nobody
/// hosts it: four players on three nodes meet through quick play, and the
/// node owning the table's shard is killed mid-hand. Its lobby listing
/// goes with it, so the new owner has only the shard's log, where the host
/// is stored as `quick-play`, no player's id; it rebuilds the table from
/// that all the same, and the game is played to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_play_tables_owner_killed_mid_hand_hands_it_to_a_node_that_plays_it_to_the_end() {
    let Some(cluster) = Cluster::start("cluster_quick_play_kill").await else { return };
    let nodes = cluster.nodes_with(&["n1", "n2", "n3"], |s| s.quick_play.wave_ms = 100).await;
    let mut people = Vec::new();
    for (name, node) in [("Ann", 0), ("Bob", 1), ("Cid", 2), ("Dee", 0)] {
        let mut player = nodes[node].player(name).await;
        let answer = quick_play(&mut player).await;
        assert!(queued(&answer), "{name}: {answer:?}");
        people.push(player);
    }
    let mut seated = Vec::new();
    for mut player in people {
        let matched = player.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }));
        let ServerMessage::QuickPlayMatched { table, seat, .. } = matched.await else {
            unreachable!()
        };
        seated.push((seat, table, player));
    }
    seated.sort_by_key(|(seat, ..)| *seat);
    let table = seated[0].1.clone();
    assert!(seated.iter().all(|(_, at, _)| *at == table), "one table");
    let people = seated.into_iter().map(|(_, _, player)| player).collect();
    kill_its_owner_mid_hand(cluster, nodes, &table, people, Listed::Lost).await;
}

// ---------------------------------------------------------------------------
// Moderators' bans hold on every node: an account's ban closes the
// player's connections wherever they are (on `euchre.revoked`), an
// address's is refused at every node's door (on `euchre.sanctions`).

/// `euchre-server admin ARGS` on the cluster's database.
fn admin_on(cluster: &Cluster, args: &[&str]) {
    let data = tempfile::tempdir().expect("a data folder");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_euchre-server"))
        .arg("--data-dir")
        .arg(data.path())
        .arg("--database-url")
        .arg(&cluster.db_url)
        .arg("admin")
        .args(args)
        .output()
        .expect("the server's binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_on_one_node_closes_the_players_socket_on_another_within_a_second() {
    use crate::support::http::{Source, request_to};
    let Some(cluster) = Cluster::start("cluster_ban").await else { return };
    let nodes = cluster.steady_nodes(&["n1", "n2", "n3"]).await;
    let mo = nodes[0].player("Mo").await;
    let mo = claim_on(&nodes[0], mo.token.as_deref().expect("a token"), "Mo").await;
    admin_on(&cluster, &["grant", "Mo", "moderator"]);
    let eve = nodes[1].player("Eve").await;
    let eve = claim_on(&nodes[1], eve.token.as_deref().expect("a token"), "Eve").await;
    let mut on_n2 = Client::connect(&nodes[1].url).await;
    on_n2.try_hello("", Some(&eve)).await.expect("welcomed on n2");
    assert!(on_n2.list_tables(LobbyQuery::default()).await.is_ok());

    let body = serde_json::json!({ "minutes": 60, "reason": "abuse in chat" }).to_string();
    let path = "/api/admin/players/Eve/ban";
    let banned = crate::support::http::request_at(
        nodes[0].address,
        "POST",
        path,
        Some(&mo),
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(banned.status, 200, "{}", banned.body);
    let code = timeout(Duration::from_secs(1), on_n2.close_code()).await;
    assert_eq!(code.expect("closed within a second"), Some(close::BANNED));
    // No node lets her back: not her session, not a log-in.
    for node in &nodes {
        let mut again = Client::connect(&node.url).await;
        let refused = again.try_hello("", Some(&eve)).await.err();
        assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("banned"));
        let body = serde_json::json!({ "name": "Eve", "password": PASSWORD }).to_string();
        let answer = crate::support::http::request_at(
            node.address,
            "POST",
            "/api/sessions",
            None,
            Some(body.as_bytes()),
        )
        .await;
        assert_eq!(answer.error(403), "banned");
        assert!(answer.json()["message"].as_str().unwrap_or_default().contains(" until 20"));
    }

    // An address banned on n1 closes n3's open connection from it within a
    // second, and is refused at n3's door, HTTP and WebSocket.
    let mut open_on_n3 = Client::connect_at(nodes[2].address, [127, 0, 0, 77], None)
        .await
        .expect("connected before the ban");
    open_on_n3.hello("Zed").await;
    let source = Source { address: [127, 0, 0, 77], forwarded_for: None };
    let body = serde_json::json!({ "address": "127.0.0.77", "minutes": 10 }).to_string();
    let path = "/api/admin/address-bans";
    let answer = crate::support::http::request_at(
        nodes[0].address,
        "POST",
        path,
        Some(&mo),
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let closed = timeout(Duration::from_secs(1), open_on_n3.close_frame()).await;
    let (code, reason) = closed.expect("closed within a second").expect("a close frame");
    assert_eq!(code, close::BANNED, "{reason}");
    assert!(reason.contains(" until 20"), "{reason}");
    eventually("the address ban to reach n3", Duration::from_secs(1), async || {
        let answer =
            request_to(nodes[2].address, source, "GET", "/api/leaderboard", None, None).await;
        if answer.status == 403 && answer.error(403) == "address_banned" {
            Ok(())
        } else {
            Err(answer.body)
        }
    })
    .await;
    let refused = Client::connect_at(nodes[2].address, [127, 0, 0, 77], None).await.err();
    let refused = refused.expect("the upgrade is refused");
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.body.as_ref().map(|body| body["code"].clone()),
        Some("address_banned".into())
    );
    // Others still come in; lifting the ban lets the address back.
    let other = Source { address: [127, 0, 0, 78], forwarded_for: None };
    let answer = request_to(nodes[2].address, other, "GET", "/api/leaderboard", None, None).await;
    assert_eq!(answer.status, 200);
    let path = "/api/admin/address-bans/lift";
    let answer = crate::support::http::request_at(
        nodes[1].address,
        "POST",
        path,
        Some(&mo),
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    eventually("the lift to reach n3", Duration::from_secs(1), async || {
        let answer =
            request_to(nodes[2].address, source, "GET", "/api/leaderboard", None, None).await;
        if answer.status == 200 { Ok(()) } else { Err(answer.body) }
    })
    .await;
    cluster.finish(nodes).await;
}

/// A request to `node`'s HTTP API, with a session's `token` if given.
async fn api_at(
    node: &Node,
    method: &str,
    path: &str,
    token: Option<&str>,
) -> crate::support::http::Answer {
    crate::support::http::request_at(node.address, method, path, token, None).await
}

/// `spec` made a tournament through `node` by the organiser holding `token`.
async fn make_tournament(
    node: &Node,
    token: &str,
    spec: &serde_json::Value,
) -> crate::support::http::Answer {
    let body = spec.to_string();
    let path = "/api/tournaments";
    crate::support::http::request_at(node.address, "POST", path, Some(token), Some(body.as_bytes()))
        .await
}

/// A tournament made through one node runs there, with its round's tables
/// in its shard; entries, the start and reads through the other nodes reach
/// it, and a player connected to another node is present at each round's
/// start, and told where it seats her. Its node is killed while she plays
/// her round-one game: she follows her table to another node, which took
/// the shard over with the round's tables and finishes the tournament,
/// every round paired once, every result its game's, every action
/// acknowledged to her kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_node_killed_mid_round_leaves_it_to_another_which_finishes_it() {
    let Some(cluster) = Cluster::start("cluster_tournament").await else { return };
    let mut nodes = cluster
        .nodes_with(&["n1", "n2", "n3"], |settings| {
            // Bots take their time at a table a player follows; a player
            // away is played for at once (the others, and she at round two).
            settings.timing.bot_delay_ms = 100;
            settings.timing.reconnect_grace_ms = 50;
        })
        .await;
    let organiser = nodes[0].player("Organiser").await;
    let guest = organiser.token.clone().expect("a token");
    let token = claim_on(&nodes[0], &guest, "Organiser").await;
    let spec = serde_json::json!({
        "name": "Cluster night", "format": "progressive", "preset": "standard",
        "rounds": 2, "round_hands": 2, "starts_in_seconds": 3600,
    });
    let created = make_tournament(&nodes[0], &token, &spec).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    let shard = shard_of(&id, NODE_SHARDS);
    let holder = shard_holders(&cluster.nats).await[usize::from(shard)].clone();
    assert_eq!(holder.as_deref(), Some("n1"), "a tournament runs where it was made");

    // Eight enter, through every node: n2's and n3's go to n1.
    let mut players = Vec::new();
    for index in 0..8 {
        let node = &nodes[index % 3];
        let player = node.player(&format!("Player {index}")).await;
        let path = format!("/api/tournaments/{id}/entries");
        let entered = api_at(node, "POST", &path, player.token.as_deref()).await;
        assert_eq!(entered.status, 204, "through {}: {}", node.name, entered.body);
        players.push(player);
    }
    // Only Player 1 stays, connected to n2: present at each round's start,
    // since n1 asks every node; a bot stands in for each of the others.
    let present = players.remove(1);
    let present_id = present.player_id.clone().expect("an id");
    drop(players);
    let start = format!("/api/tournaments/{id}/start");
    let started = api_at(&nodes[2], "POST", &start, Some(&token)).await;
    assert_eq!(started.status, 204, "started through n3: {}", started.body);
    let n2 = nodes[1].address;
    let view_at = async || {
        let path = format!("/api/tournaments/{id}");
        crate::support::http::request_at(n2, "GET", &path, None, None).await
    };
    let round_one = eventually("round one seated, read through n2", WAIT, async || {
        let view = view_at().await.json();
        view["round_list"][0]["tables"].as_array().filter(|t| !t.is_empty()).cloned()
    })
    .await;
    let tables: Vec<String> =
        round_one.iter().map(|t| t["table"].as_str().expect("a table").to_owned()).collect();
    assert_eq!(tables.len(), 2, "{round_one:?}");
    for table in &tables {
        assert_eq!(
            shard_of(table, NODE_SHARDS),
            shard,
            "a round's table lives with its tournament"
        );
    }
    let seats: Vec<&serde_json::Value> =
        round_one.iter().flat_map(|t| t["seats"].as_array().expect("seats")).collect();
    let people: Vec<&str> = (seats.iter())
        .filter(|seat| seat["bot"] == serde_json::Value::Bool(false))
        .filter_map(|seat| seat["player_id"].as_str())
        .collect();
    assert_eq!(people, [present_id.as_str()], "only the player connected (to n2) sits as herself");
    let mut present = present;
    let told = present.recv_until(|m| matches!(m, ServerMessage::TournamentSeated { .. })).await;
    let ServerMessage::TournamentSeated { round: 1, table: hers, seat, .. } = told else {
        panic!("round one's notice first: {told:?}")
    };
    assert!(tables.contains(&hers), "n1's round reached her on n2: {hers}");
    // Every save is whole: the log keeps the last one only.
    eventually("the tournament's earlier versions purged", WAIT, async || {
        try_records_of(&cluster.nats, &id).await.ok().filter(|records| *records == 1)
    })
    .await;

    // She opens her table and plays it (watched, its bots take their
    // time), following it to n2 or n3 when n1 dies mid-hand.
    let resume = ClientMessage::Resume { id: present.next_id(), table: hers.clone(), last_seq: 0 };
    let resumed = present.command(resume).await;
    assert!(matches!(resumed, ServerMessage::Ack { .. }), "{resumed:?}");
    let survivors: Vec<String> = nodes[1..].iter().map(|node| node.url.clone()).collect();
    let acks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let playing = tokio::spawn(Roamer::new(present, seat, &hers, survivors).play(acks.clone()));
    until_acked(&acks, 3).await;
    let (_, ended) = logged_actions(&cluster.nats, &hers).await;
    assert!(!ended, "her game is in play at the kill");
    nodes[0].kill();
    let played = timeout(Duration::from_secs(120), playing).await;
    let mut roamer = played.expect("her game ended in time").expect("followed to its end");
    assert!(roamer.reconnections > 0, "she followed her table to another node");
    audit(&roamer.whole_log(), seat);
    let (logged, ended) = logged_actions(&cluster.nats, &hers).await;
    assert!(ended, "her game's end is in the log");
    let logged = logged.get(&seat).cloned().unwrap_or_default();
    assert!(in_order(&roamer.acked, &logged), "every action acknowledged to her is in the log");

    let view = eventually(
        "the tournament finished on the other nodes",
        Duration::from_secs(120),
        async || {
            let view = view_at().await.json();
            (view["status"] == "finished").then_some(view)
        },
    )
    .await;
    let rounds = view["round_list"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 2, "{view:#}");
    let kept: Vec<&str> = rounds[0]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter_map(|t| t["table"].as_str())
        .collect();
    assert_eq!(kept, tables, "round one was not paired again: its tables played on");
    for round in rounds {
        for table in round["tables"].as_array().expect("tables") {
            let table_id = table["table"].as_str().expect("a table");
            let record = view_at_path(&nodes[2], &format!("/api/tables/{table_id}")).await;
            let game = record["last_match"]["id"].as_str().expect("its game").to_owned();
            let stored = view_at_path(&nodes[2], &format!("/api/matches/{game}")).await;
            assert_eq!(stored["finished"], serde_json::Value::Bool(true), "{stored}");
            assert_eq!(
                table["games"],
                serde_json::json!([stored["scores"]]),
                "round {}",
                round["number"]
            );
        }
    }
    let present_again = (rounds[1]["tables"].as_array().expect("tables").iter())
        .flat_map(|t| t["seats"].as_array().expect("seats"))
        .any(|seat| {
            seat["player_id"] == present_id.as_str()
                && seat["bot"] == serde_json::Value::Bool(false)
        });
    assert!(present_again, "present at round two's start too, asked by the new owner");
    let told = (roamer.client)
        .recv_until(|m| matches!(m, ServerMessage::TournamentSeated { round: 2, .. }))
        .await;
    assert!(matches!(told, ServerMessage::TournamentSeated { .. }), "{told:?}");
    // Over and in PostgreSQL: out of the log altogether.
    eventually("the tournament purged from the log", WAIT, async || {
        try_records_of(&cluster.nats, &id).await.ok().filter(|records| *records == 0)
    })
    .await;
    drop((roamer, organiser));
    cluster.finish(nodes).await;
}

/// A JSON read of `path` through `node`.
async fn view_at_path(node: &Node, path: &str) -> serde_json::Value {
    api_at(node, "GET", path, None).await.json()
}

/// A measurement: a progressive night of 512 on one node of three, its
/// first round seated (paired, its 128 tables made in the tournament's
/// shard, each durable in that shard's log, the tournament saved) as the
/// API of another node shows it. Debug build unless run in release:
/// `cargo test --release -p euchre-server --test it
/// cluster::seating_512_players_in_a_cluster -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn seating_512_players_in_a_cluster() {
    let Some(cluster) = Cluster::start("cluster_seating").await else { return };
    let nodes = cluster
        .nodes_with(&["n1", "n2", "n3"], |settings| {
            settings.limits.guests_per_minute = 0;
            settings.limits.max_tables = 1_000;
            settings.api.requests_per_second = 0;
            settings.timing.reconnect_grace_ms = 600_000;
        })
        .await;
    let organiser = nodes[0].player("Organiser").await;
    let token =
        claim_on(&nodes[0], organiser.token.as_deref().expect("a token"), "Organiser").await;
    let spec = serde_json::json!({
        "name": "Big night", "format": "progressive", "preset": "standard", "rounds": 3,
        "starts_in_seconds": 3600, "max_players": 512,
    });
    let created = make_tournament(&nodes[0], &token, &spec).await;
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    // One stays connected (to n2) and plays her table; a bot plays for
    // each of the others, absent, at once at tables nobody watches.
    let mut ann = None;
    for index in 0..512 {
        let node = &nodes[index % 3];
        let player = node.player(&format!("Player {index}")).await;
        let path = format!("/api/tournaments/{id}/entries");
        assert_eq!(api_at(node, "POST", &path, player.token.as_deref()).await.status, 204);
        if index == 1 {
            ann = Some(player);
        }
    }
    let mut ann = ann.expect("Player 1");
    let started = std::time::Instant::now();
    let start = format!("/api/tournaments/{id}/start");
    assert_eq!(api_at(&nodes[0], "POST", &start, Some(&token)).await.status, 204);
    let answered = started.elapsed();
    eventually("round one seated", Duration::from_secs(60), async || {
        let view = view_at_path(&nodes[1], &format!("/api/tournaments/{id}")).await;
        let tables = view["round_list"][0]["tables"].as_array().cloned().unwrap_or_default();
        (tables.len() == 128 && tables.iter().all(|t| t["table"].is_string())).then_some(())
    })
    .await;
    let seated = started.elapsed();
    // Her acknowledgements while the 127 tables of bots play in the same
    // shard's log as hers.
    let told = ann.recv_until(|m| matches!(m, ServerMessage::TournamentSeated { .. })).await;
    let ServerMessage::TournamentSeated { table, .. } = told else { unreachable!("waited for") };
    let resume = ClientMessage::Resume { id: ann.next_id(), table: table.clone(), last_seq: 0 };
    assert!(matches!(ann.command(resume).await, ServerMessage::Ack { .. }));
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
    let mut acks = Vec::new();
    while acks.len() < 20 {
        let Some((_, actions)) = crate::support::pending_turn(&ann) else {
            let message = ann.recv().await;
            if matches!(
                &message,
                ServerMessage::Event { event: Some(TableEvent::Game(Event::GameWon { .. })), .. }
            ) {
                break;
            }
            continue;
        };
        let sent = std::time::Instant::now();
        let id = crate::support::act(&mut ann, &table, pick(&actions, &mut rng)).await;
        let answer = ann.recv_until(|m| answer_id(m) == Some(id)).await;
        if matches!(answer, ServerMessage::Ack { .. }) {
            acks.push(sent.elapsed());
        }
    }
    acks.sort();
    println!(
        "512 players on a cluster of 3: start answered in {answered:?}, round one seated and \
         shown through another node in {seated:?}; her acks beside the bots' tables in her \
         shard: {} of them, median {:?}, worst {:?}",
        acks.len(),
        acks.get(acks.len() / 2),
        acks.last()
    );
    drop((organiser, ann));
    cluster.finish(nodes).await;
}

/// An organiser's cap of tournaments not over counts those every node
/// runs: five made through n1, a sixth through n2 is refused once the
/// database has the five (it follows each node's saves within a moment).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organisers_cap_counts_the_tournaments_every_node_runs() {
    let Some(cluster) = Cluster::start("cluster_tournament_cap").await else { return };
    let nodes = cluster.nodes(&["n1", "n2"]).await;
    let organiser = nodes[0].player("Organiser").await;
    let token =
        claim_on(&nodes[0], organiser.token.as_deref().expect("a token"), "Organiser").await;
    let spec = serde_json::json!({
        "name": "Capped", "format": "swiss", "preset": "standard", "starts_in_seconds": 3600,
    });
    let create = async |node: &Node| make_tournament(node, &token, &spec).await;
    for _ in 0..5 {
        let created = create(&nodes[0]).await;
        assert_eq!(created.status, 201, "{}", created.body);
    }
    eventually("the database to list the five", WAIT, async || {
        let list = view_at_path(&nodes[1], "/api/tournaments").await;
        let listed = list["tournaments"].as_array().map_or(0, Vec::len);
        (listed == 5).then_some(())
    })
    .await;
    assert_eq!(create(&nodes[1]).await.error(409), "too_many_tournaments");
    assert_eq!(create(&nodes[0]).await.error(409), "too_many_tournaments");
    drop(organiser);
    cluster.finish(nodes).await;
}
