//! The solver's analysis of finished matches (issue #29, `euchre-analysis`):
//! computed once, on the first request for a match's, then stored.
//!
//! An analysis takes seconds of one core, so it never runs on the async
//! workers: requests queue it on a bounded channel, and one worker task
//! hands each to the blocking pool in turn, stores the result and forgets
//! the match. A full queue is refused, never grown. A match asked for
//! again while queued is not queued twice. A match whose analysis fails is
//! remembered with the reason, which every later request gets as the answer
//! instead of a queue that never ends.
//!
//! What the queue knows (pending, failed) is this node's memory only. A
//! restart forgets a failure, so the match is analysed once more on the
//! next request and fails again: one wasted run. Two nodes of a cluster
//! asked for the same match at once both analyse it: wasted work, never a
//! wrong answer, as the analysis is a function of the record and the store
//! keeps the first one saved (with its players' figures, written only with
//! it). Neither is worth a shared ledger.

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use euchre_analysis::{Settings as AnalysisRun, analyse};
use euchre_engine::GameRecord;
use euchre_store::{SavedAnalysis, SeatAccuracy, Store, StoreError};
use lru::LruCache;
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
    /// The analysis failed, for this reason (for people).
    Failed(String),
}

/// Failures remembered. A failure forgotten is only computed again, so a
/// bound costs nothing but that; and they are rare: the store holds only
/// records that replay, so a failure is mostly a bug in the solver.
const FAILURES_REMEMBERED: usize = 1024;

/// What the queue knows of the matches it was asked for. Behind a std
/// mutex: held for a lookup or an insert, never across an await.
#[derive(Debug)]
struct Ledger {
    /// Matches queued or being analysed.
    pending: HashSet<String>,
    /// Matches whose analysis failed, and why.
    failed: LruCache<String, String>,
}

/// The ledger, shared by the requests and the worker.
#[derive(Clone, Debug)]
struct SharedLedger(Arc<Mutex<Ledger>>);

impl SharedLedger {
    fn new() -> SharedLedger {
        let remembered = NonZeroUsize::new(FAILURES_REMEMBERED).unwrap_or(NonZeroUsize::MIN);
        let ledger = Ledger { pending: HashSet::new(), failed: LruCache::new(remembered) };
        SharedLedger(Arc::new(Mutex::new(ledger)))
    }

    fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// An analysis as the worker runs it: the record's, or why not. A
/// function, so that the tests can put one that fails in its place.
type Analyse = fn(&GameRecord, &AnalysisRun) -> Result<Analysed, String>;

/// An analysis ready to store: the JSON served, and each seat's figures
/// for the players' profiles.
#[derive(Debug)]
struct Analysed {
    json: String,
    seats: Vec<SeatAccuracy>,
}

fn analyse_to_json(record: &GameRecord, run: &AnalysisRun) -> Result<Analysed, String> {
    let analysis = analyse(record, run).map_err(|error| error.to_string())?;
    let json = serde_json::to_string(&analysis).map_err(|error| error.to_string())?;
    let seats = analysis
        .players
        .iter()
        .map(|player| SeatAccuracy {
            seat: player.seat.index() as u8,
            decisions: player.decisions,
            within_tolerance: player.within_tolerance,
            points_lost: player.points_lost,
        })
        .collect();
    Ok(Analysed { json, seats })
}

/// The queue of analyses and its worker.
#[derive(Debug)]
pub struct Analyses {
    store: Arc<dyn Store>,
    settings: AnalysisSettings,
    analyse: Analyse,
    ledger: SharedLedger,
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
            analyse: analyse_to_json,
            ledger: SharedLedger::new(),
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
    /// stored, queued now, or failed before.
    pub async fn lookup(&self, id: &str, record: GameRecord) -> Result<Lookup, StoreError> {
        if let Some(analysis) = self.stored(id).await? {
            return Ok(Lookup::Ready(analysis));
        }
        let mut ledger = self.ledger.lock();
        if let Some(reason) = ledger.failed.get(id) {
            return Ok(Lookup::Failed(reason.clone()));
        }
        if ledger.pending.contains(id) {
            return Ok(Lookup::Queued);
        }
        match self.jobs().try_send((id.to_owned(), record)) {
            Ok(()) => {
                ledger.pending.insert(id.to_owned());
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
                analyse: self.analyse,
                ledger: self.ledger.clone(),
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
    analyse: Analyse,
    ledger: SharedLedger,
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
            let failure = self.analyse_and_store(&id, record).await.err();
            // One lock for both, so that no request finds the match neither
            // pending nor failed and queues it again.
            let mut ledger = self.ledger.lock();
            if let Some(reason) = failure {
                ledger.failed.put(id.clone(), reason);
            }
            ledger.pending.remove(&id);
        }
    }

    /// Analyses and stores `record`; `Err` is why it cannot be analysed. A
    /// store that fails is not the match's fault: the next request queues
    /// it again.
    async fn analyse_and_store(&self, id: &str, record: GameRecord) -> Result<(), String> {
        // The record's own seed deals the worlds: the same record, the same
        // analysis. Its first eight bytes are plenty for sampling.
        let [a, b, c, d, e, f, g, h, ..] = record.seed.0;
        let run =
            AnalysisRun { worlds: self.worlds, seed: u64::from_le_bytes([a, b, c, d, e, f, g, h]) };
        let analyse = self.analyse;
        let form = record.rules.form().name();
        let computed = tokio::task::spawn_blocking(move || analyse(&record, &run)).await;
        let analysed = match computed {
            Ok(Ok(analysed)) => analysed,
            Ok(Err(problem)) => {
                tracing::error!(match_id = id, %problem, "analysis: the match cannot be analysed");
                return Err(problem);
            }
            Err(error) => {
                tracing::error!(match_id = id, %error, "analysis: the analysis failed");
                return Err("the analysis stopped on an internal error".to_owned());
            }
        };
        let saved = SavedAnalysis {
            match_id: id,
            analysis: &analysed.json,
            form,
            seats: &analysed.seats,
            at: now_ms(),
        };
        if let Err(error) = self.store.save_match_analysis(&saved).await {
            tracing::error!(match_id = id, %error, "analysis: the store failed");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use euchre_engine::{Game, Rules};
    use euchre_store::sqlite::SqliteStore;
    use euchre_testkit::eventually;

    use super::*;

    /// A queue over an empty database, analysing with `analyse`.
    async fn queue(analyse: Analyse) -> Analyses {
        let store = SqliteStore::connect("sqlite::memory:").await.expect("a database");
        store.migrate().await.expect("the tables");
        let (tracker, shutdown) = (TaskTracker::new(), CancellationToken::new());
        let settings = AnalysisSettings::default();
        Analyses { analyse, ..Analyses::new(Arc::new(store), settings, tracker, shutdown) }
    }

    /// The answer for `id` once the worker is done with it.
    async fn settled(analyses: &Analyses, id: &str) -> Lookup {
        let record = Game::new(Rules::default(), 1).expect("the rules are valid").record().clone();
        eventually("the analysis to be done", Duration::from_secs(10), async || {
            match analyses.lookup(id, record.clone()).await.expect("the store answers") {
                Lookup::Queued => None,
                done => Some(done),
            }
        })
        .await
    }

    #[tokio::test]
    async fn a_failed_analysis_is_the_answer_from_then_on() {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let analyses = queue(|_, _| {
            RUNS.fetch_add(1, Ordering::SeqCst);
            Err("hand 2 does not replay".to_owned())
        })
        .await;
        let failed = Lookup::Failed("hand 2 does not replay".to_owned());
        assert_eq!(settled(&analyses, "m-1").await, failed);
        assert_eq!(settled(&analyses, "m-1").await, failed, "remembered");
        assert_eq!(RUNS.load(Ordering::SeqCst), 1, "not queued again");
    }

    #[tokio::test]
    async fn an_analysis_that_panics_is_answered_too() {
        let analyses = queue(|_, _| panic!("a solver bug")).await;
        let failed = Lookup::Failed("the analysis stopped on an internal error".to_owned());
        assert_eq!(settled(&analyses, "m-1").await, failed);
    }
}
