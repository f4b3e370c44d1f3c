//! The cluster's durability: a table's writes go to its shard's log (the
//! truth) before anything they caused is sent, then through the local
//! journal to PostgreSQL (history, idempotent); once PostgreSQL has a closed
//! table's last write, its records are purged from the log. A tournament's
//! records are its versions, each whole: the earlier ones are purged as
//! each is appended, and the last once the tournament is over and in
//! PostgreSQL.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use euchre_cluster::{LogError, ShardLogs};
use euchre_protocol::TableId;
use euchre_store::Write;
use euchre_store::durable::{Durability, Then};
use euchre_store::journal::Lsn;
use euchre_store::writer::{Health, Recorder};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::lock;

/// How long a node waits before taking a shard over again.
pub(super) const RETAKE_PAUSE: Duration = Duration::from_millis(200);
/// The longest wait between tries of a closed table's purge.
const PURGE_PAUSE_MAX: Duration = Duration::from_secs(5);

/// The cluster's durability: the shard's log (the truth), then the local
/// journal on the way to PostgreSQL (history, idempotent).
#[derive(Debug)]
pub(super) struct Logged {
    logs: ShardLogs,
    history: History,
}

/// A table's writes on their way to PostgreSQL through the local journal,
/// and closed tables on their way out of the log once PostgreSQL has them.
#[derive(Clone, Debug)]
struct History {
    recorder: Recorder,
    /// A closed table, with the journal's LSN of its last write.
    closed: mpsc::UnboundedSender<(TableId, Lsn)>,
    /// Tables some of whose writes the journal refused here: when one
    /// closes, its records stay in the log (they are its only whole
    /// history), for its shard's next take-over to record again.
    unsure: Arc<Mutex<HashSet<TableId>>>,
}

impl Logged {
    /// The durability of the shards' `logs`, with history through
    /// `recorder`; and where closed tables come out, for [`purge_closed`].
    pub(super) fn new(
        logs: ShardLogs,
        recorder: Recorder,
    ) -> (Logged, mpsc::UnboundedReceiver<(TableId, Lsn)>) {
        let (closed, closed_rx) = mpsc::unbounded_channel();
        let history = History { recorder, closed, unsure: Arc::default() };
        (Logged { logs, history }, closed_rx)
    }

    /// A table's writes read back from its shard's log on a take-over, for
    /// history ([`History::record`]).
    pub(super) fn record_history(&self, table: &str, writes: Vec<Write>, whole: bool) {
        self.history.record(table, writes, whole);
    }
}

impl History {
    /// Journals `writes` of `table` for PostgreSQL; `whole` when they are
    /// all its writes (read back from the log). If they close the table,
    /// its purge waits for PostgreSQL to have them. Never waits itself.
    fn record(&self, table: &str, writes: Vec<Write>, whole: bool) {
        let closes = writes.iter().any(ends);
        let (table, closed, unsure) = (table.to_owned(), self.closed.clone(), self.unsure.clone());
        // On the journal's thread, in the order journaled: short.
        self.recorder.record_at(writes, move |journaled| match journaled {
            Ok(lsn) => {
                let missed = if whole {
                    // All its writes are journaled now, whatever missed before.
                    lock(&unsure).remove(&table);
                    false
                } else if closes {
                    // The table is done here either way.
                    lock(&unsure).remove(&table)
                } else {
                    false
                };
                if closes && missed {
                    tracing::warn!(%table, "a closed table's history missed the journal here: it stays in the log");
                } else if closes {
                    let _ = closed.send((table, lsn));
                }
            }
            Err(error) => {
                tracing::error!(%table, %error, "a table's history missed the journal");
                if !closes {
                    lock(&unsure).insert(table);
                }
            }
        });
    }
}

/// Whether `write` is the last of what it belongs to: a table's closing,
/// or the version of a tournament that says it is over.
fn ends(write: &Write) -> bool {
    match write {
        Write::TableClosed { .. } => true,
        Write::Tournament { tournament, .. } => {
            matches!(tournament.status.as_str(), "finished" | "cancelled")
        }
        _ => false,
    }
}

impl Durability for Logged {
    fn keep(&self, table: &str, writes: Vec<Write>, then: Then) {
        let history = self.history.clone();
        // Each version of a tournament is whole: once one is in the log,
        // the earlier ones go (all of them once one over is in PostgreSQL).
        let supersedes = writes.iter().any(|write| matches!(write, Write::Tournament { .. }))
            && !writes.iter().any(ends);
        let logs = self.logs.clone();
        let copy = writes.clone();
        let table_id = table.to_owned();
        self.logs.keep(
            table,
            writes,
            Box::new(move |result| {
                if result.is_ok() {
                    if supersedes {
                        let table = table_id.clone();
                        tokio::spawn(async move {
                            if let Err(error) = logs.purge_before_last(&table).await {
                                // The next version's purge, or the next take-over's, does it.
                                tracing::debug!(%table, %error, "a tournament's earlier versions stay in the log for now");
                            }
                        });
                    }
                    history.record(&table_id, copy, false);
                }
                then(result);
            }),
        );
    }
}

/// Purges each closed table from its shard's log once PostgreSQL has its
/// last write (`stored_through`: the journal is stored in order, so it has
/// all the table's writes then). Neither the table nor any acknowledgement
/// waits for this.
pub(super) async fn purge_closed(
    logs: ShardLogs,
    health: Arc<Health>,
    mut closed: mpsc::UnboundedReceiver<(TableId, Lsn)>,
    shutdown: CancellationToken,
) {
    loop {
        let (table, lsn) = tokio::select! {
            next = closed.recv() => match next {
                Some(next) => next,
                None => return,
            },
            () = shutdown.cancelled() => return,
        };
        let (logs, health, shutdown) = (logs.clone(), health.clone(), shutdown.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = health.stored_through(lsn) => {}
                () = shutdown.cancelled() => return,
            }
            purge_stored(&logs, &table, &shutdown).await;
        });
    }
}

/// Purges a closed table whose history PostgreSQL has, trying again while
/// it fails (NATS away, the lease not surely held for a moment) and the
/// shard is still this node's. A shard given up (or whose log stopped
/// here) leaves the table to the take-over that follows, which reads it,
/// records it again and purges it.
async fn purge_stored(logs: &ShardLogs, table: &str, shutdown: &CancellationToken) {
    let mut pause = RETAKE_PAUSE;
    loop {
        match logs.purge(table).await {
            Ok(purged) => {
                tracing::debug!(%table, purged, "a closed table left its shard's log");
                return;
            }
            Err(LogError::Fenced(shard)) => {
                tracing::debug!(%table, shard, "a closed table is left to its shard's next take-over");
                return;
            }
            Err(error @ (LogError::BadTable(_) | LogError::Corrupt(..))) => {
                tracing::error!(%table, %error, "a closed table cannot be purged");
                return;
            }
            Err(error @ (LogError::Nats(_) | LogError::LeaseExpired(_))) => {
                if pause == RETAKE_PAUSE {
                    tracing::warn!(%table, %error, "cannot purge a closed table yet; trying again");
                }
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = shutdown.cancelled() => return,
                }
                pause = (pause * 2).min(PURGE_PAUSE_MAX);
            }
        }
    }
}
