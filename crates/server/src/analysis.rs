//! The solver's analysis of finished matches (issue #29, `euchre-analysis`):
//! computed once, on the first request for a match's, then stored.
//!
//! An analysis takes seconds of one core, so it never runs on the async
//! workers: requests queue it on a bounded channel, and one worker task
//! hands each to the blocking pool in turn, stores the result and forgets
//! the match. A full queue is refused, never grown. A match asked for
//! again while queued is not queued twice.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use euchre_analysis::{Settings as AnalysisRun, analyse};
use euchre_engine::GameRecord;
use euchre_store::{Store, StoreError};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::clock::now_ms;
use crate::config::AnalysisSettings;

/// What a request for a match's analysis gets.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    /// The stored analysis, as JSON.
    Ready(String),
    /// Queued (now or before): ask again in a few seconds.
    Queued,
    /// The queue is full: ask again later.
    Busy,
}

/// The queue of analyses and its worker.
#[derive(Debug)]
pub struct Analyses {
    store: Arc<dyn Store>,
    settings: AnalysisSettings,
    /// Matches queued or being analysed. A std mutex: held for a lookup or
    /// an insert, never across an await.
    pending: Arc<Mutex<HashSet<String>>>,
    /// Started at the first request (inside the runtime), then kept.
    jobs: OnceLock<mpsc::Sender<(String, GameRecord)>>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

impl Analyses {
    pub fn new(
        store: Arc<dyn Store>,
        settings: AnalysisSettings,
        tracker: TaskTracker,
        shutdown: CancellationToken,
    ) -> Analyses {
        Analyses {
            store,
            settings,
            pending: Arc::default(),
            jobs: OnceLock::new(),
            tracker,
            shutdown,
        }
    }

    /// The stored analysis of match `id`, if there is one.
    pub async fn stored(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.store.match_analysis(id).await
    }

    /// The analysis of the finished match `id` (whose record is `record`):
    /// stored, or queued now.
    pub async fn lookup(&self, id: &str, record: GameRecord) -> Result<Lookup, StoreError> {
        if let Some(analysis) = self.stored(id).await? {
            return Ok(Lookup::Ready(analysis));
        }
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if pending.contains(id) {
            return Ok(Lookup::Queued);
        }
        match self.jobs().try_send((id.to_owned(), record)) {
            Ok(()) => {
                pending.insert(id.to_owned());
                Ok(Lookup::Queued)
            }
            Err(_) => Ok(Lookup::Busy),
        }
    }

    fn jobs(&self) -> &mpsc::Sender<(String, GameRecord)> {
        self.jobs.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(self.settings.queue.max(1));
            let worker = Worker {
                store: self.store.clone(),
                worlds: self.settings.worlds,
                pending: self.pending.clone(),
            };
            self.tracker.spawn(worker.run(receiver, self.shutdown.clone()));
            sender
        })
    }
}

/// Takes the queue's analyses one at a time to the blocking pool.
struct Worker {
    store: Arc<dyn Store>,
    worlds: u32,
    pending: Arc<Mutex<HashSet<String>>>,
}

impl Worker {
    async fn run(
        self,
        mut jobs: mpsc::Receiver<(String, GameRecord)>,
        shutdown: CancellationToken,
    ) {
        loop {
            let job = tokio::select! {
                _ = shutdown.cancelled() => break,
                job = jobs.recv() => job,
            };
            let Some((id, record)) = job else { break };
            self.analyse_and_store(&id, record).await;
            self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).remove(&id);
        }
    }

    async fn analyse_and_store(&self, id: &str, record: GameRecord) {
        // The record's own seed deals the worlds: the same record, the same analysis.
        let run = AnalysisRun { worlds: self.worlds, seed: record.seed };
        let computed = tokio::task::spawn_blocking(move || {
            analyse(&record, &run).map_err(|error| error.to_string()).and_then(|analysis| {
                serde_json::to_string(&analysis).map_err(|error| error.to_string())
            })
        })
        .await;
        let json = match computed {
            Ok(Ok(json)) => json,
            Ok(Err(problem)) => {
                tracing::error!(match_id = id, %problem, "analysis: the match cannot be analysed");
                return;
            }
            Err(error) => {
                tracing::error!(match_id = id, %error, "analysis: the analysis failed");
                return;
            }
        };
        if let Err(error) = self.store.save_match_analysis(id, &json, now_ms()).await {
            tracing::error!(match_id = id, %error, "analysis: the store failed");
        }
    }
}
