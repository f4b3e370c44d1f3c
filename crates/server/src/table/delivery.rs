//! Holding a table's messages until the writes that caused them are in the
//! journal: nobody is told of an action a crash could lose. Messages keep
//! their order; a step without writes waits behind any step still held.

use std::collections::VecDeque;
use std::sync::Arc;

use euchre_store::Write;
use euchre_store::durable::{Durability, NotDurable};
use tokio::sync::mpsc;

use super::{ConnId, Outbox};
use crate::frame::Frame;

/// A message on its way to one connection.
pub(super) type Outgoing = (ConnId, Outbox, Frame);

/// Work that must wait, like the messages, until the step's writes are in
/// the journal (handing a finished match to the analyses). It must not
/// block: it runs on the table's loop.
pub(super) struct AfterDurable(pub(super) Box<dyn FnOnce() + Send>);

impl std::fmt::Debug for AfterDurable {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("AfterDurable")
    }
}

/// A step's messages and work, held until its writes are durable.
#[derive(Debug)]
struct Held {
    ticket: u64,
    messages: Vec<Outgoing>,
    after: Vec<AfterDurable>,
}

/// Holds outgoing messages until the writes that caused them are in the
/// journal, so nobody is told of an action a crash could lose.
#[derive(Debug)]
pub(super) struct Delivery {
    durability: Option<Arc<dyn Durability>>,
    /// Produced while handling the current message.
    pub(super) staged: Vec<Outgoing>,
    /// The writes the current message caused.
    pub(super) writes: Vec<Write>,
    /// Work the current message caused, to run once its writes are durable.
    pub(super) after: Vec<AfterDurable>,
    /// Batches waiting for their writes to reach the journal, oldest first.
    held: VecDeque<Held>,
    next_ticket: u64,
    durable_tx: mpsc::UnboundedSender<Kept>,
    /// Taken by the table's loop, which waits on it.
    pub(super) durable_rx: Option<mpsc::UnboundedReceiver<Kept>>,
}

/// What became of a step's writes.
#[derive(Debug)]
pub(super) enum Kept {
    /// Durable (or failed for good): the step's messages may go, in their turn.
    Released(u64),
    /// Another node owns the table now: nothing held may go; the table stops.
    Fenced,
}

impl Delivery {
    pub(super) fn new(durability: Option<Arc<dyn Durability>>) -> Delivery {
        let (durable_tx, durable_rx) = mpsc::unbounded_channel();
        Delivery {
            durability,
            staged: Vec::new(),
            writes: Vec::new(),
            after: Vec::new(),
            held: VecDeque::new(),
            next_ticket: 1,
            durable_tx,
            durable_rx: Some(durable_rx),
        }
    }

    pub(super) fn stage(&mut self, conn: ConnId, outbox: &Outbox, message: impl Into<Frame>) {
        self.staged.push((conn, outbox.clone(), message.into()));
    }

    /// Ends the current step: its messages go out now, or once its writes
    /// (or an earlier step's) are durable. Returns what may be sent now.
    pub(super) fn finish_step(&mut self, table: &str) -> Vec<Outgoing> {
        let staged = std::mem::take(&mut self.staged);
        let writes = std::mem::take(&mut self.writes);
        let after = std::mem::take(&mut self.after);
        match (&self.durability, writes.is_empty()) {
            (Some(durability), false) => {
                let ticket = self.next_ticket;
                self.next_ticket += 1;
                self.held.push_back(Held { ticket, messages: staged, after });
                let durable = self.durable_tx.clone();
                let then = move |result| {
                    let kept = match result {
                        Ok(()) => Kept::Released(ticket),
                        Err(NotDurable::Fenced) => Kept::Fenced,
                        Err(NotDurable::Failed(error)) => {
                            // The disk failed: nothing can be promised; play goes on.
                            tracing::error!(%error, "the journal could not keep a table's writes");
                            Kept::Released(ticket)
                        }
                    };
                    let _ = durable.send(kept);
                };
                durability.keep(table, writes, Box::new(then));
                Vec::new()
            }
            _ => match self.held.back_mut() {
                // Keep order behind messages still waiting.
                Some(waiting) => {
                    waiting.messages.extend(staged);
                    waiting.after.extend(after);
                    Vec::new()
                }
                None => {
                    after.into_iter().for_each(|work| (work.0)());
                    staged
                }
            },
        }
    }

    /// Whether some step's writes are not kept yet.
    pub(super) fn writing(&self) -> bool {
        !self.held.is_empty()
    }

    /// Everything held up to `ticket`, now durable: its work is done now,
    /// its messages returned to send.
    pub(super) fn release(&mut self, ticket: u64) -> Vec<Outgoing> {
        let mut ready = Vec::new();
        while self.held.front().is_some_and(|held| held.ticket <= ticket) {
            if let Some(held) = self.held.pop_front() {
                ready.extend(held.messages);
                held.after.into_iter().for_each(|work| (work.0)());
            }
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    //! Messages wait for the journal: nobody hears of a write a crash could lose.

    use std::time::Duration;

    use euchre_bots::BotKind;
    use euchre_protocol::{PlayerInfo, Reply, ServerMessage, TableSettings};
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::registry::Registry;
    use crate::table::{Request, Table, TableCommand, TableConfig, TableMessage, TableSpec};

    #[tokio::test]
    async fn messages_wait_until_their_writes_are_durable_and_keep_their_order() {
        let data = tempfile::tempdir().expect("a folder");
        let store: std::sync::Arc<dyn euchre_store::Store> = std::sync::Arc::from(
            euchre_store::connect(&format!("sqlite://{}/t.db", data.path().display()))
                .await
                .expect("a store"),
        );
        store.migrate().await.expect("migrated");
        let (recorder, _writer) =
            euchre_store::writer::start(store, data.path().join("journal"), 16)
                .await
                .expect("starts");
        let mut delivery = Delivery::new(Some(Arc::new(recorder)));
        let Some(mut durable) = delivery.durable_rx.take() else { unreachable!() };
        let (tx, _rx) = mpsc::channel(16);
        let outbox = Outbox::new(tx, CancellationToken::new());
        let message = |id| ServerMessage::Ack { id, reply: Reply::Done };

        // A step with writes is held...
        delivery.stage(1, &outbox, message(1));
        delivery.writes.push(Write::TableClosed { id: "t".into(), at: 0 });
        assert!(delivery.finish_step("t").is_empty());
        // ...and so is a later step without writes, behind it.
        delivery.stage(1, &outbox, message(2));
        assert!(delivery.finish_step("t").is_empty());
        // Once the journal has the writes, both go, in order.
        let Some(Kept::Released(ticket)) = durable.recv().await else {
            panic!("the journal answers")
        };
        let released: Vec<u64> = delivery
            .release(ticket)
            .into_iter()
            .filter_map(|(_, _, frame)| match frame.into_message() {
                Some(ServerMessage::Ack { id, .. }) => Some(id),
                _ => None,
            })
            .collect();
        assert_eq!(released, vec![1, 2]);
        // With nothing held, a step without writes goes at once.
        delivery.stage(1, &outbox, message(3));
        assert_eq!(delivery.finish_step("t").len(), 1);
    }

    /// Storage that says another node owns every table now.
    #[derive(Debug)]
    struct Fenced;

    impl Durability for Fenced {
        fn keep(&self, _: &str, _: Vec<Write>, then: euchre_store::durable::Then) {
            then(Err(NotDurable::Fenced));
        }
    }

    #[tokio::test]
    async fn a_fenced_table_stops_and_sends_nothing_its_writes_caused() {
        let settings = TableSettings::default();
        let rules = settings.resolve_rules().expect("rules");
        let host = PlayerInfo { id: "host".into(), name: "host".into() };
        let config = TableConfig {
            event_ring: 64,
            bot_delay: Duration::from_millis(500),
            reconnect_grace: Duration::from_secs(10),
            idle_close: Duration::from_secs(3600),
            metrics: Arc::default(),
            ratings: None,
            analyses: None,
            spectators: 0,
            social: None,
            rematch_wait: std::time::Duration::from_secs(60),
        };
        let registry = Registry::default();
        let spec = TableSpec {
            id: "t".into(),
            host: host.clone(),
            settings,
            rules,
            bot_kind: BotKind::Basic,
            invite: None,
        };
        let (table, handle, mailbox) =
            Table::new(spec, config, registry.clone(), Some(Arc::new(Fenced)));
        registry.insert(handle.clone(), table.summary(), &host.id, Vec::new());
        let task = tokio::spawn(table.run(mailbox, CancellationToken::new()));
        let (tx, mut rx) = mpsc::channel(16);
        let outbox = Outbox::new(tx, CancellationToken::new());
        // Watching writes nothing: answered at once.
        let ask = |id, request| {
            TableMessage::Command(TableCommand {
                id,
                conn: 1,
                player: host.clone().into(),
                outbox: outbox.clone(),
                request,
                received: std::time::Instant::now(),
            })
        };
        assert!(handle.send(ask(1, Request::Watch { invite: None })).await);
        let watched = drain_until_ack(&mut rx, 1).await;
        assert!(watched.iter().any(|m| matches!(m, ServerMessage::Snapshot { .. })));
        // Sitting writes the seats: refused storage, so no ack, no seat taken, and the table ends.
        assert!(
            handle
                .send(ask(2, Request::Sit { seat: Some(0), invite: None, avoid: Vec::new() }))
                .await
        );
        tokio::time::timeout(Duration::from_secs(5), task).await.expect("stops").expect("ran");
        let after: Vec<ServerMessage> =
            std::iter::from_fn(|| rx.try_recv().ok()).filter_map(Frame::into_message).collect();
        assert!(after.is_empty(), "nothing the refused writes caused was sent: {after:?}");
        assert!(registry.get("t").is_none(), "the table left this node's registry");
    }

    async fn drain_until_ack(rx: &mut mpsc::Receiver<Frame>, id: u64) -> Vec<ServerMessage> {
        let mut seen = Vec::new();
        while let Ok(Some(frame)) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            let message = frame.into_message().expect("the table's own message");
            let done = matches!(message, ServerMessage::Ack { id: acked, .. } if acked == id);
            seen.push(message);
            if done {
                return seen;
            }
        }
        panic!("no ack for {id}: {seen:?}");
    }
}
