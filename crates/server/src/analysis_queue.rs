//! The solver's analysis of finished matches (`euchre-analysis`):
//! computed once, when the match ends (unless `analysis.at_match_end` is
//! off) or on the first request for it, then stored.
//!
//! An analysis takes seconds of one core, so it never runs on the async
//! workers: requests queue it on a bounded channel, and one worker task
//! hands each in turn to a thread of its own at the lowest priority (nice
//! 19 on Linux: the tables' threads come first), stores the result and
//! forgets the match. A match that ends is queued on a second bounded
//! channel, which the worker takes from only when no request waits: a
//! request never waits behind the matches that merely ended, and a request
//! for one of those queues it again in front. Matches that only bots
//! finished, and imports, which anyone can make many of, wait on a third,
//! taken from last: they can fill only their own. A full queue is
//! refused, never grown: a request is answered busy, and a match ending
//! is skipped (and counted), to be analysed when someone asks. A match
//! asked for again while queued is not queued twice. A match whose analysis fails is
//! remembered with the reason, which every later request gets as the answer
//! instead of a queue that never ends. Once an analysis is stored, the
//! match's puzzles are mined from it and stored too ([`crate::puzzles`]).
//!
//! What the queue knows (pending, failed) is this node's memory only. A
//! restart forgets a failure, so the match is analysed once more on the
//! next request and fails again: one wasted run. Two nodes of a cluster
//! asked for the same match at once both analyse it: wasted work, never a
//! wrong answer, as the analysis is a function of the record and the store
//! keeps the first one saved (with its players' figures, written only with
//! it). Neither is worth a shared ledger.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use euchre_analysis::{GameAnalysis, Settings as AnalysisRun, analyse};
use euchre_engine::{GameRecord, Seat};
use euchre_store::journal::Lsn;
use euchre_store::writer::Health;
use euchre_store::{SavedAnalysis, SeatAccuracy, Store, StoreError};
use lru::LruCache;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::clock::now_ms;
use crate::config::AnalysisSettings;
use crate::metrics::Metrics;

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

/// Who played a match that ended, which decides the queue it waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// People held seats to the end: analysed before the rest.
    ByPeople,
    /// Bots alone at the end, or an imported record: anyone can make these
    /// by the hundred, so they queue apart and never crowd out the others.
    InBulk,
}

/// Which queue a match waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    /// Someone asked for it: first.
    Asked,
    /// It ended (or was imported): when nobody waits for another.
    Ended,
}

/// A match to analyse, with its record and the journal's LSN by which the
/// database has it (0 for a request, which read it from the database).
type Job = (String, GameRecord, Lsn);

/// How long the worker waits for the database to have a match that just
/// ended before storing its analysis; past it, the analysis is dropped
/// (a request computes it again).
const STORE_PATIENCE: Duration = Duration::from_secs(30);

/// The worker's queues, in the order it takes from them.
#[derive(Debug)]
struct Queues {
    asked: mpsc::Sender<Job>,
    by_people: mpsc::Sender<Job>,
    in_bulk: mpsc::Sender<Job>,
}

/// What the queue knows of the matches it was asked for. Behind a std
/// mutex: held for a lookup or an insert, never across an await.
#[derive(Debug)]
struct Ledger {
    /// Matches queued or being analysed, and the first queue they are in.
    pending: HashMap<String, Queue>,
    /// Matches whose analysis failed, and why.
    failed: LruCache<String, String>,
}

/// The ledger, shared by the requests and the worker.
#[derive(Clone, Debug)]
struct SharedLedger(Arc<Mutex<Ledger>>);

impl SharedLedger {
    fn new() -> SharedLedger {
        let remembered = NonZeroUsize::new(FAILURES_REMEMBERED).unwrap_or(NonZeroUsize::MIN);
        let ledger = Ledger { pending: HashMap::new(), failed: LruCache::new(remembered) };
        SharedLedger(Arc::new(Mutex::new(ledger)))
    }

    fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// An analysis as the worker runs it: the record's, or why not. A
/// function, so that the tests can put one that fails in its place.
type Analyse = fn(&GameRecord, &AnalysisRun) -> Result<Analysed, Unanalysable>;

/// Why a match cannot be analysed: remembered, and the answer to every
/// later request for it ([`Lookup::Failed`], in words).
#[derive(Debug, thiserror::Error)]
enum Unanalysable {
    /// The solver refused the record.
    #[error(transparent)]
    Analysis(#[from] euchre_analysis::AnalysisError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The analysis panicked, or no thread could be started for it.
    #[error("the analysis stopped on an internal error")]
    Stopped,
    /// A failure the tests make up.
    #[cfg(test)]
    #[error("{0}")]
    Made(&'static str),
}

/// An analysis ready to store: the JSON served, and each seat's figures
/// for the players' profiles.
#[derive(Debug)]
struct Analysed {
    json: String,
    seats: Vec<SeatAccuracy>,
    /// The analysis itself, to mine for puzzles once it is stored.
    analysis: GameAnalysis,
}

fn analyse_to_json(record: &GameRecord, run: &AnalysisRun) -> Result<Analysed, Unanalysable> {
    let analysis = analyse(record, run)?;
    let json = serde_json::to_string(&analysis)?;
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
    Ok(Analysed { json, seats, analysis })
}

/// The queue of analyses and its worker.
#[derive(Debug)]
pub struct Analyses {
    store: Arc<dyn Store>,
    settings: AnalysisSettings,
    analyse: Analyse,
    ledger: SharedLedger,
    /// Started at the first job (inside the runtime), then kept.
    queues: OnceLock<Queues>,
    metrics: Arc<Metrics>,
    /// The journal's writer: a match queued as it ends is stored only
    /// once the database has it. `None`: not waited for.
    journal: Option<Arc<Health>>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

impl Analyses {
    pub fn new(
        store: Arc<dyn Store>,
        settings: AnalysisSettings,
        metrics: Arc<Metrics>,
        tracker: TaskTracker,
        shutdown: CancellationToken,
    ) -> Analyses {
        Analyses {
            store,
            settings,
            analyse: analyse_to_json,
            ledger: SharedLedger::new(),
            queues: OnceLock::new(),
            metrics,
            journal: None,
            tracker,
            shutdown,
        }
    }

    /// This queue, waiting for the database to have what `journal` has
    /// journaled before storing the analysis of a match that just ended.
    pub fn waiting_for(self, journal: Arc<Health>) -> Analyses {
        Analyses { journal: Some(journal), ..self }
    }

    /// Queues the analysis of match `id`, which just ended (or was
    /// imported) with `record`, behind every request, in the queue of those
    /// `played` the same way; skipped (and counted) when that queue is full
    /// or the setting is off. Never waits: a table calls it as its game ends.
    pub fn match_ended(&self, id: &str, record: GameRecord, played: Played) {
        if !self.settings.at_match_end {
            return;
        }
        let mut ledger = self.ledger.lock();
        if ledger.pending.contains_key(id) || ledger.failed.contains(id) {
            return;
        }
        let journaled = self.journal.as_ref().map_or(0, |journal| journal.journaled());
        let queues = self.queues();
        let queue = match played {
            Played::ByPeople => &queues.by_people,
            Played::InBulk => &queues.in_bulk,
        };
        match queue.try_send((id.to_owned(), record, journaled)) {
            Ok(()) => {
                ledger.pending.insert(id.to_owned(), Queue::Ended);
                self.metrics.analyses_at_end.inc();
            }
            Err(_) => {
                self.metrics.analyses_skipped.inc();
            }
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
        let queued = ledger.pending.get(id).copied();
        if queued == Some(Queue::Asked) {
            return Ok(Lookup::Queued);
        }
        // One that only ended goes in front too: whichever copy the worker
        // takes first is analysed, the other skipped.
        match self.queues().asked.try_send((id.to_owned(), record, 0)) {
            Ok(()) => {
                ledger.pending.insert(id.to_owned(), Queue::Asked);
                Ok(Lookup::Queued)
            }
            Err(_) if queued.is_some() => Ok(Lookup::Queued),
            Err(_) => Ok(Lookup::Busy),
        }
    }

    fn queues(&self) -> &Queues {
        self.queues.get_or_init(|| {
            let capacity = self.settings.queue.max(1);
            let (asked, asked_rx) = mpsc::channel(capacity);
            let (by_people, by_people_rx) = mpsc::channel(capacity);
            let (in_bulk, in_bulk_rx) = mpsc::channel(capacity);
            let worker = Worker {
                store: self.store.clone(),
                worlds: self.settings.worlds,
                analyse: self.analyse,
                ledger: self.ledger.clone(),
                journal: self.journal.clone(),
            };
            let queues = [asked_rx, by_people_rx, in_bulk_rx];
            self.tracker.spawn(worker.run(queues, self.shutdown.clone()));
            Queues { asked, by_people, in_bulk }
        })
    }
}

/// Takes the queue's analyses one at a time to a thread of low priority.
struct Worker {
    store: Arc<dyn Store>,
    worlds: u32,
    analyse: Analyse,
    ledger: SharedLedger,
    journal: Option<Arc<Health>>,
}

impl Worker {
    /// Takes from `queues` (asked, by people, in bulk) in that order.
    async fn run(self, queues: [mpsc::Receiver<Job>; 3], shutdown: CancellationToken) {
        let [mut asked, mut by_people, mut in_bulk] = queues;
        loop {
            let job = tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                job = asked.recv() => job,
                job = by_people.recv() => job,
                job = in_bulk.recv() => job,
            };
            let Some((id, record, journaled)) = job else { break };
            if !self.ledger.lock().pending.contains_key(&id) {
                continue; // done already, from its other queue
            }
            let failure = self.analyse_and_store(&id, record, journaled).await.err();
            // One lock for both, so that no request finds the match neither
            // pending nor failed and queues it again.
            let mut ledger = self.ledger.lock();
            if let Some(reason) = failure {
                ledger.failed.put(id.clone(), reason.to_string());
            }
            ledger.pending.remove(&id);
        }
    }

    /// Analyses and stores `record`; `Err` is why it cannot be analysed. A
    /// store that fails is not the match's fault: the next request queues
    /// it again.
    async fn analyse_and_store(
        &self,
        id: &str,
        record: GameRecord,
        journaled: Lsn,
    ) -> Result<(), Unanalysable> {
        // The record's own seed deals the worlds: the same record, the same
        // analysis. Its first eight bytes are plenty for sampling.
        let [a, b, c, d, e, f, g, h, ..] = record.seed.0;
        let run =
            AnalysisRun { worlds: self.worlds, seed: u64::from_le_bytes([a, b, c, d, e, f, g, h]) };
        let analyse = self.analyse;
        let form = record.rules.form().name();
        let record = Arc::new(record);
        let analysed_record = record.clone();
        let computed = in_background(move || analyse(&analysed_record, &run)).await;
        let analysed = match computed {
            Some(Ok(analysed)) => analysed,
            Some(Err(problem)) => {
                tracing::error!(match_id = id, %problem, "analysis: the match cannot be analysed");
                return Err(problem);
            }
            None => {
                tracing::error!(
                    match_id = id,
                    "analysis: the analysis failed (a panic, or no thread)"
                );
                return Err(Unanalysable::Stopped);
            }
        };
        // A match that just ended may not be in the database yet (its
        // analysis refers to its row).
        if let Some(journal) = &self.journal
            && tokio::time::timeout(STORE_PATIENCE, journal.stored_through(journaled))
                .await
                .is_err()
        {
            tracing::warn!(match_id = id, "analysis: the database is behind; dropped");
            return Ok(());
        }
        let saved = SavedAnalysis {
            match_id: id,
            analysis: &analysed.json,
            form,
            seats: &analysed.seats,
            at: now_ms(),
        };
        if let Err(error) = self.store.save_match_analysis(&saved).await {
            tracing::error!(match_id = id, %error, "analysis: the store failed");
            return Ok(());
        }
        self.mine_puzzles(id, record, analysed.analysis).await;
        Ok(())
    }

    /// Stores the puzzles of match `id`, whose analysis is stored, drawn
    /// from the seats people played to the end (a seat a bot took over
    /// partway is left out: its later decisions are the bot's). Puzzles
    /// are extras: a failure is logged, and the match's analysis stands.
    async fn mine_puzzles(&self, id: &str, record: Arc<GameRecord>, analysis: GameAnalysis) {
        let detail = match self.store.get_match(id).await {
            Ok(Some(detail)) => detail,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(match_id = id, %error, "puzzles: the match cannot be read");
                return;
            }
        };
        let humans: Vec<Seat> = detail
            .summary
            .seats
            .iter()
            .filter(|seat| seat.player_id.is_some() && seat.stand_in.is_none())
            .map(|seat| Seat(seat.seat))
            .collect();
        let owned_id = id.to_owned();
        // Cheap (milliseconds a match), but a solver's work all the same:
        // off the async workers.
        let mined = in_background(move || {
            crate::puzzles::mine_match(&owned_id, &record, &analysis, &humans)
        })
        .await;
        let puzzles = match mined {
            Some(Ok(puzzles)) => puzzles,
            Some(Err(problem)) => {
                tracing::warn!(match_id = id, %problem, "puzzles: the match cannot be mined");
                return;
            }
            None => return,
        };
        if let Err(error) = self.store.save_puzzles(&puzzles, now_ms()).await {
            tracing::error!(match_id = id, %error, "puzzles: the store failed");
        }
    }
}

/// Runs `work` on a thread of its own at the lowest priority the system
/// gives without privileges, and hands back its result; `None` if it
/// panicked or no thread could be started. Its own thread rather than
/// tokio's blocking pool, which the store's reads and the log-ins share:
/// a thread's priority, once lowered, cannot be raised again. Starting one
/// thread per analysis costs nothing next to the seconds it takes.
async fn in_background<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (done, result) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("analysis".to_owned()).spawn(move || {
        use thread_priority::{ThreadPriority, set_current_thread_priority};
        if let Err(error) = set_current_thread_priority(ThreadPriority::Min) {
            tracing::warn!(?error, "analysis: cannot lower the thread's priority");
        }
        let _ = done.send(work());
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "analysis: cannot start a thread");
        return None;
    }
    result.await.ok()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use euchre_engine::{Game, Rules};
    use euchre_store::sqlite::SqliteStore;
    use euchre_testkit::eventually;

    use super::*;

    /// An analysis of nothing, for the made-up analyses below.
    fn no_analysis() -> GameAnalysis {
        GameAnalysis { worlds: 0, seed: 0, hands: Vec::new(), players: Vec::new() }
    }

    /// A queue over an empty database, analysing with `analyse`.
    async fn queue(analyse: Analyse) -> Analyses {
        queue_with(analyse, AnalysisSettings::default()).await
    }

    async fn queue_with(analyse: Analyse, settings: AnalysisSettings) -> Analyses {
        let store = SqliteStore::connect("sqlite::memory:").await.expect("a database");
        store.migrate().await.expect("the tables");
        let (tracker, shutdown) = (TaskTracker::new(), CancellationToken::new());
        let metrics = Arc::default();
        Analyses { analyse, ..Analyses::new(Arc::new(store), settings, metrics, tracker, shutdown) }
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
            Err(Unanalysable::Made("hand 2 does not replay"))
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

    /// The record of a new game dealt from `seed`.
    fn record(seed: u64) -> GameRecord {
        Game::new(Rules::default(), seed).expect("the rules are valid").record().clone()
    }

    #[tokio::test]
    async fn matches_that_end_wait_behind_requests_and_are_skipped_when_full() {
        // The analysis notes each record it starts, then waits at the gate.
        static GATE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        static STARTED: Mutex<Vec<euchre_engine::Seed>> = Mutex::new(Vec::new());
        fn started() -> MutexGuard<'static, Vec<euchre_engine::Seed>> {
            STARTED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
        }
        fn gated(record: &GameRecord, _: &AnalysisRun) -> Result<Analysed, Unanalysable> {
            started().push(record.seed);
            drop(GATE.blocking_lock());
            Ok(Analysed { json: "{}".to_owned(), seats: Vec::new(), analysis: no_analysis() })
        }
        let gate = GATE.lock().await;
        let settings = AnalysisSettings { queue: 1, ..AnalysisSettings::default() };
        let analyses = queue_with(gated, settings).await;
        analyses.match_ended("a", record(1), Played::ByPeople);
        eventually("the worker to start on the first", Duration::from_secs(10), async || {
            (started().len() == 1).then_some(())
        })
        .await;
        analyses.match_ended("b", record(2), Played::ByPeople); // waits
        analyses.match_ended("c", record(3), Played::ByPeople); // finds the queue full: skipped
        analyses.match_ended("b", record(2), Played::ByPeople); // queued already
        assert_eq!(analyses.metrics.analyses_at_end.get(), 2);
        assert_eq!(analyses.metrics.analyses_skipped.get(), 1);
        let asked = analyses.lookup("c", record(3)).await.expect("the store answers");
        assert_eq!(asked, Lookup::Queued);
        drop(gate);
        eventually("every analysis to start", Duration::from_secs(10), async || {
            (started().len() == 3).then_some(())
        })
        .await;
        let order = [record(1).seed, record(3).seed, record(2).seed];
        assert_eq!(*started(), order, "the request before the match that only ended");
    }

    #[tokio::test]
    async fn matches_in_bulk_never_crowd_out_a_match_people_played() {
        static GATE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        static STARTED: Mutex<Vec<euchre_engine::Seed>> = Mutex::new(Vec::new());
        fn started() -> MutexGuard<'static, Vec<euchre_engine::Seed>> {
            STARTED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
        }
        fn gated(record: &GameRecord, _: &AnalysisRun) -> Result<Analysed, Unanalysable> {
            started().push(record.seed);
            drop(GATE.blocking_lock());
            Ok(Analysed { json: "{}".to_owned(), seats: Vec::new(), analysis: no_analysis() })
        }
        let gate = GATE.lock().await;
        let settings = AnalysisSettings { queue: 1, ..AnalysisSettings::default() };
        let analyses = queue_with(gated, settings).await;
        analyses.match_ended("bots-1", record(1), Played::InBulk);
        eventually("the worker to start on the first", Duration::from_secs(10), async || {
            (started().len() == 1).then_some(())
        })
        .await;
        // Imports and bot games by the dozen: one waits, the rest are skipped.
        for seed in 2..20 {
            analyses.match_ended(&format!("bots-{seed}"), record(seed), Played::InBulk);
        }
        assert_eq!(analyses.metrics.analyses_skipped.get(), 17);
        // A game people played still finds room, and goes first.
        analyses.match_ended("people", record(100), Played::ByPeople);
        assert_eq!(analyses.metrics.analyses_at_end.get(), 3);
        drop(gate);
        eventually("every queued analysis to start", Duration::from_secs(10), async || {
            (started().len() == 3).then_some(())
        })
        .await;
        assert_eq!(*started(), [record(1).seed, record(100).seed, record(2).seed]);
    }

    #[tokio::test]
    async fn with_the_setting_off_a_match_that_ends_is_not_queued() {
        let settings = AnalysisSettings { at_match_end: false, ..AnalysisSettings::default() };
        let analyses = queue_with(|_, _| panic!("nothing is analysed"), settings).await;
        analyses.match_ended("a", record(1), Played::ByPeople);
        assert_eq!(analyses.metrics.analyses_at_end.get(), 0);
        assert!(analyses.ledger.lock().pending.is_empty());
    }

    /// The analyses' thread runs below the tables' threads, and a panic in
    /// it is a failure, not a crash.
    #[tokio::test]
    async fn analyses_run_on_a_thread_of_the_lowest_priority() {
        let nice = in_background(|| {
            // Field 19 of the thread's stat (after the parenthesised name).
            let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
            let nice = stat.rsplit_once(')')?.1.split_whitespace().nth(16)?.to_owned();
            nice.parse::<i32>().ok()
        })
        .await
        .expect("the work ran");
        if cfg!(target_os = "linux") {
            assert_eq!(nice, Some(19), "the analysis thread's nice value");
        }
        let panicked = in_background(|| -> u8 { panic!("a bug in the solver") }).await;
        assert_eq!(panicked, None);
    }
}
