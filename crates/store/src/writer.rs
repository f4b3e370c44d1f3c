//! From the journal to the database, in batches.
//!
//! [`Recorder::record`] puts writes in the journal and tells the caller once
//! they are on disk; then it hands them to the writer task through a bounded
//! queue. The writer applies whatever has queued up in one transaction
//! (group commit), retrying with backoff while the database is away, and
//! moves the journal's checkpoint forward. If the queue overflows, writes are
//! not lost: they are in the journal, and the writer reads them back from
//! there when it notices the gap.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::journal::{self, Journal, JournalError, Lsn};
use crate::{Store, StoreError, Write};

/// Writes per database transaction, at most.
const MAX_BATCH: usize = 2_000;
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How often an idle writer checks for writes that skipped the queue.
const CATCH_UP_EVERY: Duration = Duration::from_millis(500);
/// How long the writer lets writes gather after the first of a batch. The
/// journal has them already, so nobody waits on this; a transaction costs
/// the same few statements and page writes however many rows it holds, so
/// fewer, fuller transactions cost less a write (flat out, batches went
/// from about ten writes to hundreds).
const GATHER_FOR: Duration = Duration::from_millis(100);

/// Writes on their way to the database: (first LSN, last LSN, writes).
type Queued = (Lsn, Lsn, Vec<Write>);

/// How the path to the database is doing; shared with `/readyz`.
#[derive(Debug, Default)]
pub struct Health {
    connected: AtomicBool,
    journaled: AtomicU64,
    stored: AtomicU64,
    /// Wakes [`Health::stored_through`]'s waiters when `stored` moves.
    stored_moved: tokio::sync::Notify,
}

impl Health {
    /// Whether the last attempt to reach the database worked.
    pub fn connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed)
    }

    /// Records on disk that the database does not have yet.
    pub fn backlog(&self) -> u64 {
        let journaled = self.journaled.load(Ordering::Relaxed);
        journaled.saturating_sub(self.stored.load(Ordering::Relaxed))
    }

    /// The journal's last LSN on disk: what the database will have once
    /// [`Health::stored`] reaches it.
    pub fn journaled(&self) -> Lsn {
        self.journaled.load(Ordering::Relaxed)
    }

    /// The journal's last LSN the database has: every write journaled at or
    /// before it is stored (the writer stores the journal in order).
    pub fn stored(&self) -> Lsn {
        self.stored.load(Ordering::Acquire)
    }

    /// Waits until the database has every write journaled up to `lsn`
    /// (from [`Recorder::record_at`]). Waits for as long as that takes: a
    /// database away, or a writer stopped, keeps it waiting.
    pub async fn stored_through(&self, lsn: Lsn) {
        loop {
            // Made before the check, so a move between the two still wakes it.
            let moved = self.stored_moved.notified();
            if self.stored() >= lsn {
                return;
            }
            moved.await;
        }
    }

    fn set_stored(&self, lsn: Lsn) {
        self.stored.store(lsn, Ordering::Release);
        self.stored_moved.notify_waiters();
    }
}

/// Where tables send what they want kept. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Recorder {
    journal: Journal,
    queue: mpsc::Sender<Queued>,
    health: Arc<Health>,
}

impl Recorder {
    /// Journals `writes`, then calls `durable` (on the journal's thread: keep
    /// it short) once they would survive a crash, or with the error that
    /// stopped them.
    pub fn record(
        &self,
        writes: Vec<Write>,
        durable: impl FnOnce(Result<(), JournalError>) + Send + 'static,
    ) {
        self.record_at(writes, move |result| durable(result.map(drop)));
    }

    /// As [`Recorder::record`], and tells the journal's LSN of the last of
    /// `writes`: once [`Health::stored`] reaches it, the database has them
    /// all ([`Health::stored_through`] waits for that).
    pub fn record_at(
        &self,
        writes: Vec<Write>,
        durable: impl FnOnce(Result<Lsn, JournalError>) + Send + 'static,
    ) {
        let count = writes.len() as u64;
        let queue = self.queue.clone();
        let health = self.health.clone();
        // The journal thread needs the writes back for the queue: keep a copy.
        let copy = writes.clone();
        let sent = self.journal.append_then(writes, move |result| match result {
            Ok(last) => {
                health.journaled.fetch_max(last, Ordering::Relaxed);
                // A full queue is fine: the writer finds the gap and reads the journal.
                let _ = queue.try_send((last + 1 - count, last, copy));
                durable(Ok(last));
            }
            Err(error) => durable(Err(error)),
        });
        if let Err(error) = sent {
            tracing::error!(%error, "the journal is not running");
        }
    }

    /// Journals `writes` and waits until they are on disk.
    pub async fn record_and_wait(&self, writes: Vec<Write>) -> Result<(), JournalError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.record(writes, move |result| {
            let _ = tx.send(result);
        });
        rx.await.unwrap_or(Err(JournalError::Stopped))
    }

    pub fn health(&self) -> &Arc<Health> {
        &self.health
    }
}

/// The writer task's state.
#[derive(Debug)]
pub struct Writer {
    store: Arc<dyn Store>,
    journal: Journal,
    journal_dir: PathBuf,
    queue: mpsc::Receiver<Queued>,
    health: Arc<Health>,
    /// The last LSN the database has.
    stored: Lsn,
}

/// Opens the journal in `journal_dir`, applies whatever it holds that the
/// database lacks (waiting for the database if it must), and returns the
/// recorder for tables and the writer to run.
pub async fn start(
    store: Arc<dyn Store>,
    journal_dir: PathBuf,
    queue_capacity: usize,
) -> Result<(Recorder, Writer), StoreError> {
    let journal::Recovered { journal, pending } = Journal::open(&journal_dir)
        .map_err(|error| StoreError::Corrupt(format!("journal: {error}")))?;
    let health = Arc::new(Health::default());
    health.connected.store(store.ping().await.is_ok(), Ordering::Relaxed);
    let stored = pending.first().map_or(0, |(lsn, _)| lsn - 1);
    let last = pending.last().map_or(stored, |(lsn, _)| *lsn);
    health.set_stored(stored);
    health.journaled.store(last, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel(queue_capacity.max(1));
    let mut writer = Writer {
        store,
        journal: journal.clone(),
        journal_dir,
        queue: rx,
        health: health.clone(),
        stored,
    };
    if !pending.is_empty() {
        tracing::info!(records = pending.len(), "replaying the journal into the database");
        for chunk in pending.chunks(MAX_BATCH) {
            let first = chunk[0].0;
            let last = chunk[chunk.len() - 1].0;
            let writes = chunk.iter().map(|(_, write)| write.clone()).collect();
            writer.store_batch(first, last, writes, &CancellationToken::new()).await;
        }
    }
    Ok((Recorder { journal, queue: tx, health }, writer))
}

impl Writer {
    /// Stores batches until `stop` is set and the queue is drained (or the
    /// database cannot take the rest).
    pub async fn run(mut self, stop: CancellationToken) {
        loop {
            // Writes that overflowed the queue are only in the journal: while
            // the queue has nothing, catch up from there.
            if self.queue.is_empty() && self.health.journaled.load(Ordering::Relaxed) > self.stored
            {
                self.catch_up(&stop).await;
                if stop.is_cancelled() {
                    break;
                }
                continue;
            }
            let first = tokio::select! {
                item = self.queue.recv() => item,
                () = tokio::time::sleep(CATCH_UP_EVERY) => {
                    // Idle: still notice the database going away (for /readyz).
                    let up = self.store.ping().await.is_ok();
                    self.health.connected.store(up, Ordering::Relaxed);
                    continue;
                }
                () = stop.cancelled() => None,
            };
            let Some(first) = first else { break };
            let items = self.gather(first, &stop).await;
            self.store_items(items, &stop).await;
        }
        // Shutting down: take what is already queued, if the database is there.
        let mut rest = Vec::new();
        while let Ok(item) = self.queue.try_recv() {
            rest.push(item);
        }
        if !rest.is_empty() && self.health.connected() {
            let deadline = CancellationToken::new();
            let timer = deadline.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(5)).await;
                timer.cancel();
            });
            self.store_items(rest, &deadline).await;
        }
        self.journal.stop();
    }

    /// `first` and what queues behind it for [`GATHER_FOR`], up to
    /// [`MAX_BATCH`] writes; at once when stopping.
    async fn gather(&mut self, first: Queued, stop: &CancellationToken) -> Vec<Queued> {
        let deadline = tokio::time::Instant::now() + GATHER_FOR;
        let mut count = first.2.len();
        let mut items = vec![first];
        while count < MAX_BATCH {
            let item = match self.queue.try_recv() {
                Ok(item) => item,
                Err(_) if stop.is_cancelled() => break,
                Err(_) => tokio::select! {
                    item = self.queue.recv() => match item {
                        Some(item) => item,
                        None => break,
                    },
                    () = tokio::time::sleep_until(deadline) => break,
                    () = stop.cancelled() => break,
                },
            };
            count += item.2.len();
            items.push(item);
        }
        items
    }

    /// Stores the next journaled records the database lacks, read from the journal.
    async fn catch_up(&mut self, stop: &CancellationToken) {
        let journaled = self.health.journaled.load(Ordering::Relaxed);
        let records = match read_journal(&self.journal_dir, self.stored, journaled + 1) {
            Ok(records) => records,
            Err(error) => {
                tracing::error!(%error, "cannot read the journal back");
                tokio::time::sleep(CATCH_UP_EVERY).await;
                return;
            }
        };
        let Some(chunk) = records.chunks(MAX_BATCH).next() else { return };
        let first = chunk[0].0;
        let last = chunk[chunk.len() - 1].0;
        let writes = chunk.iter().map(|(_, write)| write.clone()).collect();
        self.store_batch(first, last, writes, stop).await;
    }

    /// Stores queued items in order, filling any gap from the journal.
    async fn store_items(&mut self, items: Vec<Queued>, stop: &CancellationToken) {
        let mut writes = Vec::new();
        let mut first = None;
        let mut last = self.stored;
        for (from, to, batch) in items {
            if to <= last {
                continue; // already stored (read from the journal earlier)
            }
            if from > last + 1 {
                // Some writes never made it into the queue: read them back.
                match read_journal(&self.journal_dir, last, from) {
                    Ok(missing) => {
                        for (lsn, write) in missing {
                            first.get_or_insert(lsn);
                            writes.push(write);
                        }
                    }
                    Err(error) => {
                        // Storing past the gap would move the checkpoint over it;
                        // the next batch finds the same gap and tries again.
                        tracing::error!(%error, "cannot read the journal back");
                        return;
                    }
                }
            }
            first.get_or_insert(from);
            writes.extend(batch);
            last = to;
        }
        if let Some(first) = first {
            self.store_batch(first, last, writes, stop).await;
        }
    }

    /// Applies one batch, retrying with backoff until it is stored or `stop`.
    async fn store_batch(
        &mut self,
        first: Lsn,
        last: Lsn,
        writes: Vec<Write>,
        stop: &CancellationToken,
    ) {
        let mut backoff = Duration::from_millis(50);
        loop {
            match self.store.apply(&writes).await {
                Ok(()) => {
                    self.health.connected.store(true, Ordering::Relaxed);
                    self.stored = last;
                    self.health.set_stored(last);
                    self.journal.checkpoint(last);
                    return;
                }
                Err(error) => {
                    if self.health.connected.swap(false, Ordering::Relaxed) {
                        tracing::warn!(%error, first, last, "the database refused a batch; retrying");
                    }
                    if stop.is_cancelled() {
                        tracing::warn!(first, last, "stopping with writes only in the journal");
                        return;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = stop.cancelled() => {}
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }
}

/// Reads journal records with `after < lsn < before`.
fn read_journal(
    dir: &std::path::Path,
    after: Lsn,
    before: Lsn,
) -> Result<Vec<(Lsn, Write)>, JournalError> {
    Ok(journal::read_all(dir)?
        .into_iter()
        .filter(|(lsn, _)| *lsn > after && *lsn < before)
        .collect())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;

    use super::*;
    use crate::{
        Account, AccountClaim, AccountKey, AccountStanding, BoardEntry, ClaimOutcome, FormAccuracy,
        FormRating, LiveTable, MatchDetail, MatchPage, MatchQuery, Millis, NewSession, PlayerRow,
        PlayerStats, RateFn, RatedMatch, RatingChange, RatingPoint, SavedAnalysis, Session,
        TableRecord, UnreadableTable,
    };

    /// A store that keeps writes in memory and can be switched off.
    #[derive(Debug, Default)]
    struct MemoryStore {
        writes: Mutex<Vec<Write>>,
        down: AtomicBool,
    }

    impl MemoryStore {
        fn stored(&self) -> Vec<Write> {
            self.writes.lock().map(|w| w.clone()).unwrap_or_default()
        }
    }

    #[async_trait]
    impl Store for MemoryStore {
        async fn migrate(&self) -> Result<(), StoreError> {
            Ok(())
        }
        async fn ping(&self) -> Result<(), StoreError> {
            Ok(())
        }
        async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
            if self.down.load(Ordering::Relaxed) {
                return Err(StoreError::Corrupt("down".into()));
            }
            let mut stored = self.writes.lock().map_err(|_| StoreError::Corrupt("lock".into()))?;
            // Idempotent, like the real stores: a write seen before changes nothing.
            for write in writes {
                if !stored.contains(write) {
                    stored.push(write.clone());
                }
            }
            Ok(())
        }
        async fn player_by_token_hash(&self, _: &str) -> Result<Option<PlayerRow>, StoreError> {
            Ok(None)
        }
        async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
            Ok(Vec::new())
        }
        async fn list_matches(&self, _: &MatchQuery) -> Result<MatchPage, StoreError> {
            Ok(MatchPage { matches: Vec::new(), next: None })
        }
        async fn get_match(&self, _: &str) -> Result<Option<MatchDetail>, StoreError> {
            Ok(None)
        }
        async fn table_record(&self, _: &str) -> Result<Option<TableRecord>, StoreError> {
            Ok(None)
        }
        async fn abandon_orphaned_matches(&self) -> Result<u64, StoreError> {
            Ok(0)
        }
        async fn player_stats(&self, _: &str) -> Result<PlayerStats, StoreError> {
            Ok(PlayerStats::default())
        }
        // The writer never touches accounts.
        async fn claim_account(&self, _: &AccountClaim) -> Result<ClaimOutcome, StoreError> {
            Err(StoreError::Corrupt("no accounts here".into()))
        }
        async fn account_by_name(&self, _: &str) -> Result<Option<Account>, StoreError> {
            Ok(None)
        }
        async fn account_by_player(&self, _: &str) -> Result<Option<Account>, StoreError> {
            Ok(None)
        }
        async fn account_keys(&self) -> Result<Vec<AccountKey>, StoreError> {
            Ok(Vec::new())
        }
        async fn set_account_keys(&self, _: &[AccountKey]) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no accounts here".into()))
        }
        async fn create_session(&self, _: &NewSession) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no accounts here".into()))
        }
        async fn session_by_token_hash(&self, _: &str) -> Result<Option<Session>, StoreError> {
            Ok(None)
        }
        async fn revoke_session(&self, _: &str, _: Millis) -> Result<(), StoreError> {
            Ok(())
        }
        async fn revoke_sessions_beyond(
            &self,
            _: &str,
            _: u32,
            _: Millis,
        ) -> Result<Vec<String>, StoreError> {
            Ok(Vec::new())
        }
        async fn change_password(&self, _: &str, _: &NewSession) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no accounts here".into()))
        }
        async fn delete_account(&self, _: &str, _: Millis) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn held_names(&self) -> Result<Vec<String>, StoreError> {
            Ok(Vec::new())
        }
        async fn release_held_names(&self, _: Millis) -> Result<Vec<String>, StoreError> {
            Ok(Vec::new())
        }
        async fn purge(
            &self,
            _: Millis,
            _: Millis,
            _: &std::collections::HashSet<String>,
        ) -> Result<crate::Purged, StoreError> {
            Ok(crate::Purged::default())
        }
        async fn rate_match(
            &self,
            _: &RatedMatch,
            _: RateFn<'_>,
        ) -> Result<Vec<RatingChange>, StoreError> {
            Err(StoreError::Corrupt("no ratings here".into()))
        }
        async fn account_standing(
            &self,
            _: &str,
            _: &str,
        ) -> Result<Option<AccountStanding>, StoreError> {
            Ok(None)
        }
        async fn rated_together(&self, _: &str, _: &str, _: Millis) -> Result<u32, StoreError> {
            Ok(0)
        }
        async fn leaderboard(
            &self,
            _: &str,
            _: u32,
            _: u32,
        ) -> Result<Vec<BoardEntry>, StoreError> {
            Ok(Vec::new())
        }
        async fn player_ratings(&self, _: &str) -> Result<Vec<FormRating>, StoreError> {
            Ok(Vec::new())
        }
        async fn rating_history(&self, _: &str, _: u32) -> Result<Vec<RatingPoint>, StoreError> {
            Ok(Vec::new())
        }
        async fn match_analysis(&self, _: &str) -> Result<Option<String>, StoreError> {
            Ok(None)
        }
        async fn save_match_analysis(&self, _: &SavedAnalysis<'_>) -> Result<(), StoreError> {
            Ok(())
        }
        async fn recent_accuracy(&self, _: &str, _: u32) -> Result<Vec<FormAccuracy>, StoreError> {
            Ok(Vec::new())
        }
        async fn role_of(&self, _: &str) -> Result<Option<crate::Role>, StoreError> {
            Ok(None)
        }
        async fn set_role(
            &self,
            _: &str,
            _: Option<crate::Role>,
            _: &crate::NewLogEntry,
        ) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no roles here".into()))
        }
        async fn moderation_log(
            &self,
            _: Option<i64>,
            _: u32,
        ) -> Result<Vec<crate::LogEntry>, StoreError> {
            Ok(Vec::new())
        }
        async fn social_lists(&self, _: &str) -> Result<crate::SocialLists, StoreError> {
            Ok(crate::SocialLists::default())
        }
        async fn set_relation(
            &self,
            _: &str,
            _: crate::Relation,
            _: &str,
            _: Option<Millis>,
        ) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no accounts here".into()))
        }
        async fn set_guest_block(
            &self,
            _: &str,
            _: &str,
            _: Option<Millis>,
        ) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no blocks here".into()))
        }
        async fn guest_blocks(&self, _: &str) -> Result<Vec<String>, StoreError> {
            Ok(Vec::new())
        }
        async fn blocked_either_way(&self, _: &str) -> Result<Vec<String>, StoreError> {
            Ok(Vec::new())
        }
        async fn file_report(
            &self,
            _: &crate::NewReport,
            _: crate::ReportLimits,
        ) -> Result<crate::ReportOutcome, StoreError> {
            Err(StoreError::Corrupt("no reports here".into()))
        }
        async fn open_reports(&self, _: u32) -> Result<Vec<crate::Report>, StoreError> {
            Ok(Vec::new())
        }
        async fn close_report(&self, _: i64, _: &crate::NewLogEntry) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn sanction(
            &self,
            _: &crate::Sanction,
            _: &crate::NewLogEntry,
        ) -> Result<(), StoreError> {
            Err(StoreError::Corrupt("no sanctions here".into()))
        }
        async fn live_sanctions(&self, _: Millis) -> Result<crate::LiveSanctions, StoreError> {
            Ok(Default::default())
        }
        async fn warnings(&self, _: &str) -> Result<Vec<crate::Warning>, StoreError> {
            Ok(Vec::new())
        }
        async fn unfinished_tournaments(&self) -> Result<Vec<crate::StoredTournament>, StoreError> {
            Ok(Vec::new())
        }
        async fn tournament(&self, _: &str) -> Result<Option<crate::StoredTournament>, StoreError> {
            Ok(None)
        }
        async fn listed_tournaments(
            &self,
            _: u32,
        ) -> Result<Vec<crate::StoredTournament>, StoreError> {
            Ok(Vec::new())
        }
        async fn save_puzzles(&self, _: &[crate::NewPuzzle], _: Millis) -> Result<u32, StoreError> {
            Ok(0)
        }
        async fn puzzle(&self, _: i64) -> Result<Option<crate::StoredPuzzle>, StoreError> {
            Ok(None)
        }
        async fn next_puzzle(
            &self,
            _: Option<&str>,
            _: f64,
        ) -> Result<Option<crate::StoredPuzzle>, StoreError> {
            Ok(None)
        }
        async fn random_puzzle(&self, _: f64) -> Result<Option<crate::StoredPuzzle>, StoreError> {
            Ok(None)
        }
        async fn puzzles_before(&self, _: Millis) -> Result<u64, StoreError> {
            Ok(0)
        }
        async fn nth_puzzle_before(
            &self,
            _: Millis,
            _: u64,
        ) -> Result<Option<crate::StoredPuzzle>, StoreError> {
            Ok(None)
        }
        async fn answer_puzzle(
            &self,
            _: &crate::PuzzleAttempt,
            _: crate::Glicko,
            _: crate::PuzzleRateFn<'_>,
        ) -> Result<Option<crate::PuzzleRated>, StoreError> {
            Ok(None)
        }
        async fn puzzle_rating(&self, _: &str) -> Result<Option<crate::PuzzleRating>, StoreError> {
            Ok(None)
        }
        async fn puzzle_attempts(
            &self,
            _: &str,
            _: u32,
        ) -> Result<Vec<crate::PuzzleAttempt>, StoreError> {
            Ok(Vec::new())
        }
        async fn acknowledge_warning(&self, _: &str, _: i64, _: Millis) -> Result<(), StoreError> {
            Ok(())
        }
        async fn record_sighting(&self, _: &str, _: &str, _: Millis) -> Result<(), StoreError> {
            Ok(())
        }
        async fn dossier(&self, _: &str, _: Millis) -> Result<crate::Dossier, StoreError> {
            Ok(Default::default())
        }
        async fn pick_name(
            &self,
            _: &str,
            _: &str,
            _: &str,
            _: &crate::NewLogEntry,
        ) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn moderation_key(&self, _: &str, fresh: &str) -> Result<String, StoreError> {
            Ok(fresh.to_owned())
        }
    }

    fn closed(id: u32) -> Write {
        Write::TableClosed { id: format!("t{id}"), at: i64::from(id) }
    }

    async fn until(condition: impl Fn() -> bool) {
        for _ in 0..500 {
            if condition() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the condition never held");
    }

    #[tokio::test]
    async fn writes_reach_the_store_in_order_and_the_journal_moves_on() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Arc::new(MemoryStore::default());
        let (recorder, writer) = start(store.clone(), dir.path().into(), 64).await.expect("starts");
        let stop = CancellationToken::new();
        let task = tokio::spawn(writer.run(stop.clone()));
        for n in 0..100 {
            recorder.record_and_wait(vec![closed(n)]).await.expect("durable");
        }
        until(|| store.stored().len() == 100).await;
        assert_eq!(store.stored(), (0..100).map(closed).collect::<Vec<_>>());
        until(|| recorder.health().backlog() == 0).await;
        stop.cancel();
        task.await.expect("the writer stopped");
        // Everything is in the store: a restart has nothing to replay.
        let journal::Recovered { pending, .. } = Journal::open(dir.path()).expect("reopens");
        assert!(pending.is_empty(), "{} records were not checkpointed", pending.len());
    }

    #[tokio::test]
    async fn while_the_store_is_down_writes_are_durable_and_wait() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Arc::new(MemoryStore::default());
        store.down.store(true, Ordering::Relaxed);
        // A queue of one: most writes overflow and must come back from the journal.
        let (recorder, writer) = start(store.clone(), dir.path().into(), 1).await.expect("starts");
        let stop = CancellationToken::new();
        let task = tokio::spawn(writer.run(stop.clone()));
        for n in 0..50 {
            recorder.record_and_wait(vec![closed(n)]).await.expect("durable despite the outage");
        }
        until(|| !recorder.health().connected()).await;
        until(|| recorder.health().backlog() == 50).await;
        assert!(store.stored().is_empty());
        store.down.store(false, Ordering::Relaxed);
        recorder.record_and_wait(vec![closed(50)]).await.expect("durable");
        until(|| store.stored().len() == 51).await;
        assert_eq!(store.stored(), (0..51).map(closed).collect::<Vec<_>>());
        until(|| recorder.health().connected() && recorder.health().backlog() == 0).await;
        stop.cancel();
        task.await.expect("the writer stopped");
    }

    #[tokio::test]
    async fn a_write_is_known_stored_once_the_database_has_it() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Arc::new(MemoryStore::default());
        store.down.store(true, Ordering::Relaxed);
        let (recorder, writer) = start(store.clone(), dir.path().into(), 8).await.expect("starts");
        let stop = CancellationToken::new();
        let task = tokio::spawn(writer.run(stop.clone()));
        let mut lsns = Vec::new();
        for n in 0..3 {
            let (tx, rx) = tokio::sync::oneshot::channel();
            recorder.record_at(vec![closed(2 * n), closed(2 * n + 1)], move |lsn| {
                let _ = tx.send(lsn);
            });
            lsns.push(rx.await.expect("answered").expect("journaled"));
        }
        assert!(lsns.windows(2).all(|w| w[1] == w[0] + 2), "the last write's LSN: {lsns:?}");
        // Journaled, not stored: whoever waits for the database still waits.
        let health = recorder.health().clone();
        let last = lsns[2];
        let waiting = tokio::spawn(async move { health.stored_through(last).await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!waiting.is_finished(), "the database is away");
        assert!(recorder.health().stored() < lsns[0]);
        store.down.store(false, Ordering::Relaxed);
        tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("told once stored")
            .expect("the waiter ran");
        assert_eq!(store.stored(), (0..6).map(closed).collect::<Vec<_>>());
        stop.cancel();
        task.await.expect("the writer stopped");
    }

    #[tokio::test]
    async fn a_restart_applies_what_only_the_journal_had() {
        let dir = tempfile::tempdir().expect("a folder");
        let down = Arc::new(MemoryStore::default());
        down.down.store(true, Ordering::Relaxed);
        let (recorder, writer) = start(down.clone(), dir.path().into(), 8).await.expect("starts");
        let stop = CancellationToken::new();
        let task = tokio::spawn(writer.run(stop.clone()));
        for n in 0..10 {
            recorder.record_and_wait(vec![closed(n)]).await.expect("durable");
        }
        // The process "dies" with the database still away.
        stop.cancel();
        task.await.expect("the writer stopped");
        drop(recorder);
        let store = Arc::new(MemoryStore::default());
        let (_recorder, _writer) =
            start(store.clone(), dir.path().into(), 8).await.expect("starts");
        assert_eq!(store.stored(), (0..10).map(closed).collect::<Vec<_>>());
    }
}
