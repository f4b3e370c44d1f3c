//! Where a table's writes become durable before anything they caused is
//! sent: the local journal ([`Recorder`]) on one node, the shared log of the
//! table's shard in a cluster (`euchre-cluster`).

use std::fmt;

use crate::Write;
use crate::journal::JournalError;
use crate::writer::Recorder;

/// Why writes were not kept.
#[derive(Debug, thiserror::Error)]
pub enum NotDurable {
    /// This node may no longer write for the table: another owns it now.
    /// Nothing the writes caused may be sent, and the table must stop.
    #[error("another node owns the table now")]
    Fenced,
    /// The local journal failed (or stopped before answering), and nothing
    /// can be promised; play goes on.
    #[error(transparent)]
    Failed(#[from] JournalError),
}

/// Called once with the outcome, on the storage's own thread or task: keep it short.
pub type Then = Box<dyn FnOnce(Result<(), NotDurable>) + Send>;

/// Keeps a table's writes.
pub trait Durability: Send + Sync + fmt::Debug {
    /// Keeps `writes` of `table`, in the order given across calls for one
    /// table, then calls `then` once they would survive this process.
    fn keep(&self, table: &str, writes: Vec<Write>, then: Then);
}

impl dyn Durability {
    /// Keeps `writes` of `table` as [`Durability::keep`] does, and waits
    /// until they would survive this process (a new table's opening, before
    /// anyone hears of the table).
    pub async fn keep_and_wait(&self, table: &str, writes: Vec<Write>) -> Result<(), NotDurable> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.keep(
            table,
            writes,
            Box::new(move |result| {
                let _ = tx.send(result);
            }),
        );
        rx.await.unwrap_or(Err(NotDurable::Failed(JournalError::Stopped)))
    }
}

impl Durability for Recorder {
    fn keep(&self, _table: &str, writes: Vec<Write>, then: Then) {
        self.record(writes, move |result| then(result.map_err(NotDurable::Failed)));
    }
}
