//! The cluster's place where tables' writes become durable: each table's
//! step goes to its shard's log, as one record (the step's writes as JSON),
//! through one task per owned shard that appends in order.
//!
//! Anything but a stored append stops the shard here: a refused append
//! means another node owns it, and a failed one may or may not be stored,
//! so nothing may be acknowledged after it either way. The node then takes
//! the shard over again (same epoch) or gives it up, and rebuilds its
//! tables from the log with [`tables_in`].
//!
//! The same task purges closed tables from the log ([`ShardLogs::purge`]),
//! in order with the appends and only while the lease holds.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use euchre_store::Write;
use euchre_store::durable::{Durability, NotDurable, Then};
use tokio::sync::{mpsc, oneshot};

use crate::{LogEntry, LogError, Shard, ShardLog, Validity, shard_of};

/// A table's step on its way to the log.
struct Step {
    table: String,
    writes: Vec<Write>,
    then: Then,
}

/// What a shard's writer does, in order.
enum Job {
    Append(Step),
    /// Purge a closed table's records (all, or all but the last); the
    /// answer is how many went.
    Purge {
        table: String,
        keep_last: bool,
        then: oneshot::Sender<Result<u64, LogError>>,
    },
}

/// Keeps each table's writes in its shard's log, for the shards this node owns.
#[derive(Clone, Debug)]
pub struct ShardLogs {
    shards: Shard,
    writers: Arc<Mutex<HashMap<Shard, mpsc::UnboundedSender<Job>>>>,
    /// With it, a shard's writer appends only while the lease loop says
    /// the shard's lease (at the log's epoch) is surely still this node's.
    validity: Option<Validity>,
}

impl ShardLogs {
    /// With the cluster's number of shards.
    pub fn new(shards: Shard) -> ShardLogs {
        ShardLogs { shards, writers: Arc::default(), validity: None }
    }

    /// Appends only while `validity` holds the shard's lease at the log's
    /// epoch: no write without a lease, whatever NATS would accept.
    pub fn with_validity(self, validity: Validity) -> ShardLogs {
        ShardLogs { validity: Some(validity), ..self }
    }

    /// Appends for `log`'s shard from now on (after its take-over). The
    /// answer comes if the writer stops on its own (an append refused or
    /// failed, or the lease no longer surely held): its tables have stopped,
    /// and the shard must be taken over again (or given up) to go on.
    pub fn start(&self, log: ShardLog) -> oneshot::Receiver<LogError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (stopped_tx, stopped) = oneshot::channel();
        self.lock().insert(log.shard(), tx);
        tokio::spawn(append_in_order(log, rx, self.validity.clone(), stopped_tx));
        stopped
    }

    /// Stops appending for `shard` (lost): what is queued is refused.
    pub fn stop(&self, shard: Shard) {
        self.lock().remove(&shard);
    }

    /// Purges `table`'s records from its shard's log, once the table has
    /// closed and its history is stored elsewhere (see
    /// [`ShardLog::purge_table`]). Done by the shard's writer, after the
    /// appends queued before it, and only while the shard is this node's:
    /// refused ([`LogError::Fenced`]) where it is not or its writer has
    /// stopped, and ([`LogError::LeaseExpired`]) where the lease is not
    /// surely held, sending nothing; the shard's next owner purges it then.
    pub async fn purge(&self, table: &str) -> Result<u64, LogError> {
        self.purge_records(table, false).await
    }

    /// Purges every record of `table` but its last, where each record is
    /// whole (a tournament's versions): after the appends queued before it,
    /// refused as [`ShardLogs::purge`] is.
    pub async fn purge_before_last(&self, table: &str) -> Result<u64, LogError> {
        self.purge_records(table, true).await
    }

    async fn purge_records(&self, table: &str, keep_last: bool) -> Result<u64, LogError> {
        let shard = shard_of(table, self.shards);
        let (then, answer) = oneshot::channel();
        let job = Job::Purge { table: table.to_owned(), keep_last, then };
        let writer = self.lock().get(&shard).cloned();
        match writer {
            Some(writer) if writer.send(job).is_ok() => {}
            _ => return Err(LogError::Fenced(shard)),
        }
        answer.await.unwrap_or(Err(LogError::Fenced(shard)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Shard, mpsc::UnboundedSender<Job>>> {
        self.writers.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Step({}, {} writes)", self.table, self.writes.len())
    }
}

impl Durability for ShardLogs {
    fn keep(&self, table: &str, writes: Vec<Write>, then: Then) {
        let step = Step { table: table.to_owned(), writes, then };
        let writer = self.lock().get(&shard_of(table, self.shards)).cloned();
        let refused = match writer {
            Some(writer) => writer.send(Job::Append(step)).err().map(|error| error.0),
            None => Some(Job::Append(step)),
        };
        if let Some(Job::Append(step)) = refused {
            (step.then)(Err(NotDurable::Fenced));
        }
    }
}

/// Appends each step in turn; after the first that is not stored, refuses
/// the rest, and says why on `stopped`. Purges go in the same order; one
/// that fails leaves the appends alone (it adds nothing to the log).
async fn append_in_order(
    mut log: ShardLog,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    validity: Option<Validity>,
    stopped: oneshot::Sender<LogError>,
) {
    let mut stopped = Some(stopped);
    while let Some(job) = jobs.recv().await {
        let leased = validity.as_ref().is_none_or(|v| v.holds(log.shard(), log.epoch()));
        let Step { table, writes, then } = match job {
            Job::Append(step) => step,
            Job::Purge { table, keep_last, then } => {
                let purged = if stopped.is_none() {
                    Err(LogError::Fenced(log.shard()))
                } else if !leased {
                    Err(LogError::LeaseExpired(log.shard()))
                } else if keep_last {
                    log.purge_before_last(&table).await
                } else {
                    log.purge_table(&table).await
                };
                let _ = then.send(purged);
                continue;
            }
        };
        let Some(tell) = stopped.take() else {
            then(Err(NotDurable::Fenced));
            continue;
        };
        let appended = if !leased {
            Err(LogError::LeaseExpired(log.shard()))
        } else {
            match serde_json::to_vec(&writes) {
                Ok(body) => log.append(&table, body.into()).await,
                Err(error) => Err(LogError::Corrupt(log.shard(), error.to_string())),
            }
        };
        match appended {
            Ok(_) => {
                stopped = Some(tell);
                then(Ok(()));
            }
            Err(error) => {
                tracing::warn!(shard = log.shard(), %error, "the shard's log stopped taking writes here");
                then(Err(NotDurable::Fenced));
                let _ = tell.send(error);
            }
        }
    }
}

/// Each table's writes in `shard`'s log entries, in order: what a new
/// owner rebuilds the tables from.
pub fn tables_in(
    shard: Shard,
    entries: &[LogEntry],
) -> Result<BTreeMap<String, Vec<Write>>, LogError> {
    let mut tables: BTreeMap<String, Vec<Write>> = BTreeMap::new();
    for entry in entries {
        if let LogEntry::Record { table, body, seq, .. } = entry {
            let writes: Vec<Write> = serde_json::from_slice(body)
                .map_err(|error| LogError::Corrupt(shard, format!("entry {seq}: {error}")))?;
            tables.entry(table.clone()).or_default().extend(writes);
        }
    }
    Ok(tables)
}
