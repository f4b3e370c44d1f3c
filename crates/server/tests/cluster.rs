//! A table whose writes go to its shard's log on NATS JetStream (the
//! cluster's `Durability`), taken over by another node mid-hand: every
//! acknowledged action is in what the new node rebuilds, the old node
//! stops at its next write without acknowledging it, and play goes on on
//! the new node. (The table actors run here side by side, as two nodes'
//! would; the nodes' wiring is issue #16's next step.)

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use euchre_bots::BotKind;
use euchre_cluster::log::read_shard;
use euchre_cluster::testing::Nats;
use euchre_cluster::{LogConfig, LogEntry, ShardLog, ShardLogs, shard_of, tables_in};
use euchre_engine::Action;
use euchre_protocol::{PlayerInfo, Reply, ServerMessage, TableSettings};
use euchre_server::frame::Frame;
use euchre_server::registry::Registry;
use euchre_server::table::{Outbox, Request, Table, TableCommand, TableConfig, TableMessage};
use euchre_store::Write;
use euchre_store::durable::Durability;
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
            player: self.player.clone(),
            outbox: self.outbox.clone(),
            request,
            received: std::time::Instant::now(),
        };
        table.send(TableMessage::Command(command)).await.then_some(id)
    }

    async fn next(&mut self) -> Option<ServerMessage> {
        timeout(WAIT, self.rx.recv()).await.ok().flatten().map(Frame::into_message)
    }
}

/// Seat 0's actions in a table's rebuilt game, in order.
fn seat_zero_actions(writes: &[Write]) -> Vec<Action> {
    let live = euchre_store::live::live_table(writes, |_| Some("Ann".into()))
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
    let (table, a_handle, mailbox) = Table::new(
        table_id.clone(),
        ann.player.clone(),
        settings.clone(),
        rules,
        BotKind::Basic,
        None,
        config(),
        Registry::default(),
        Some(Arc::new(a_logs.clone())),
    );
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
    ann.ask(&a_handle, Request::Sit { seat: Some(0), invite: None }).await;
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
            .map(|f| f.map(Frame::into_message))
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
    let live = euchre_store::live::live_table(&writes, |_| Some("Ann".into()))
        .expect("folds")
        .expect("open");
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
