//! One [`Store`] for both databases: [`SqlStore`], generic over sqlx's
//! database, and [`Backend`], what tells PostgreSQL ([`crate::postgres`])
//! and SQLite ([`crate::sqlite`]) apart: the pool, the migrations, how a
//! transaction begins and what it locks, and the statements of the writes
//! that come by the hundred, which each dialect writes in bulk its own way.
//! Everything else (the shared statements of [`crate::sql`], the reads, the
//! writes, accounts and ratings) runs on either connection through
//! [`Conn`].

use std::collections::HashSet;
use std::future::Future;

use async_trait::async_trait;
use euchre_engine::Rules;
use sqlx::migrate::{Migrate, Migrator};
use sqlx::{Database, Pool, Transaction};

use crate::conn::Conn;
use crate::write::{EndRow, HandRow, PlaysRow};
use crate::{
    Account, AccountClaim, AccountKey, AccountStanding, ClaimOutcome, NewSession, Purged, Session,
};
use crate::{BoardEntry, FormRating, RateFn, RatedMatch, RatingChange, RatingPoint};
use crate::{Dossier, LiveSanctions, Sanction, StoredTournament, Warning};
use crate::{FormAccuracy, SavedAnalysis, TableRecord};
use crate::{
    Glicko, NewPuzzle, PuzzleAttempt, PuzzleRateFn, PuzzleRated, PuzzleRating, StoredPuzzle,
};
use crate::{
    LiveTable, MatchDetail, MatchPage, MatchQuery, MatchSeat, Millis, PlayerRow, PlayerStats,
    Store, StoreError, UnreadableTable, Write,
};
use crate::{LogEntry, NewLogEntry, Role};
use crate::{NewReport, Relation, Report, ReportLimits, ReportOutcome, SocialLists};
use crate::{
    accounts, analyses, moderation, plays, purge, puzzles, ratings, read, sanctions, social,
    tournaments, write,
};

/// What one database does its own way. Implemented for sqlx's `Postgres`
/// and `Sqlite` only: its bound names the crate's own connection trait, and
/// its methods the crate's own rows, which no other crate can, so it is
/// sealed.
#[expect(private_bounds, reason = "sealed: implemented here, only used as a bound elsewhere")]
pub trait Backend: Database<Connection: Conn + Migrate> {
    /// The schema's migrations, in the dialect's own folder.
    const MIGRATOR: &'static Migrator;
    /// Begins a transaction that only reads: one snapshot across its
    /// several statements, so a match read while the writer adds to it is
    /// never half old, half new.
    const BEGIN_READ: &'static str;
    /// Begins a transaction that writes.
    const BEGIN_WRITE: &'static str;
    /// Run first in [`Store::rate_match`]'s transaction, where
    /// [`Backend::BEGIN_WRITE`] does not already keep other writers out:
    /// games ending together for one player must not both start from the
    /// same rating.
    const LOCK_RATINGS: Option<&'static str>;

    /// A pool on the database `url` names.
    fn connect(url: &str) -> impl Future<Output = Result<Pool<Self>, StoreError>> + Send;

    /// Inserts hands dealt; a hand stored already stays as it is.
    fn insert_hands(
        conn: &mut Self::Connection,
        hands: &[HandRow<'_>],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Writes runs of hands' actions at their places in `plays` (see
    /// `crate::plays`): over what is there already, which is the same
    /// actions again, and only where the hand's earlier actions are stored.
    /// At most one run a hand. Tells which hands (match id, number) it wrote.
    fn append_plays(
        conn: &mut Self::Connection,
        runs: &[&PlaysRow<'_>],
    ) -> impl Future<Output = Result<Vec<(String, i64)>, StoreError>> + Send;

    /// Sets the outcome of hands still in progress, and adds the points of
    /// those it ended (not those ended before) to their matches' seats by
    /// side, so a repeated `HandEnded` never counts twice.
    fn end_hands(
        conn: &mut Self::Connection,
        ends: &[EndRow<'_>],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// A match's seats, each with the side it scores for (`Rules::team_of`).
    fn insert_seats(
        conn: &mut Self::Connection,
        match_id: &str,
        rules: &Rules,
        seats: &[MatchSeat],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// A [`Store`] in the database `DB`: [`crate::postgres::PgStore`] or
/// [`crate::sqlite::SqliteStore`].
#[derive(Debug)]
pub struct SqlStore<DB: Backend> {
    pool: Pool<DB>,
}

impl<DB: Backend> Clone for SqlStore<DB> {
    fn clone(&self) -> SqlStore<DB> {
        SqlStore { pool: self.pool.clone() }
    }
}

impl<DB: Backend> SqlStore<DB> {
    /// Connects a pool to the database `url` names (see each backend for
    /// the URLs it takes).
    pub async fn connect(url: &str) -> Result<SqlStore<DB>, StoreError> {
        Ok(SqlStore { pool: DB::connect(url).await? })
    }

    /// The pool, for callers that need the database directly (tests, tools).
    pub fn pool(&self) -> &Pool<DB> {
        &self.pool
    }

    async fn read(&self) -> Result<Transaction<'static, DB>, StoreError> {
        Ok(self.pool.begin_with(DB::BEGIN_READ).await?)
    }

    async fn write(&self) -> Result<Transaction<'static, DB>, StoreError> {
        Ok(self.pool.begin_with(DB::BEGIN_WRITE).await?)
    }
}

#[async_trait]
impl<DB: Backend> Store for SqlStore<DB> {
    async fn migrate(&self) -> Result<(), StoreError> {
        DB::MIGRATOR.run(&self.pool).await?;
        let mut tx = self.pool.begin().await?;
        let moved = plays::adopt_legacy_actions(&mut *tx).await?;
        tx.commit().await?;
        if moved > 0 {
            tracing::info!(moved, "actions stored a row each moved into their hands");
        }
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.pool.acquire().await?.execute("SELECT 1", &[]).await
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        write::apply::<DB>(&mut *tx, writes).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerRow>, StoreError> {
        read::player_by_token_hash(&mut *self.pool.acquire().await?, token_hash).await
    }

    async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
        let mut tx = self.read().await?;
        let live = read::live_tables(&mut *tx).await?;
        tx.commit().await?;
        Ok(live)
    }

    async fn list_matches(&self, query: &MatchQuery) -> Result<MatchPage, StoreError> {
        read::list_matches(&mut *self.pool.acquire().await?, query).await
    }

    async fn get_match(&self, id: &str) -> Result<Option<MatchDetail>, StoreError> {
        let mut tx = self.read().await?;
        let detail = read::load_match(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(detail.map(|(detail, _)| detail))
    }

    async fn table_record(&self, id: &str) -> Result<Option<TableRecord>, StoreError> {
        let mut tx = self.read().await?;
        let record = read::table_record(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn abandon_orphaned_matches(&self) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let marked = read::abandon_orphaned_matches(&mut *tx).await?;
        tx.commit().await?;
        Ok(marked)
    }

    async fn player_stats(&self, player_id: &str) -> Result<PlayerStats, StoreError> {
        let mut tx = self.read().await?;
        let stats = read::player_stats(&mut *tx, player_id).await?;
        tx.commit().await?;
        Ok(stats)
    }

    async fn claim_account(&self, claim: &AccountClaim) -> Result<ClaimOutcome, StoreError> {
        let mut tx = self.write().await?;
        let outcome = accounts::claim(&mut *tx, claim).await?;
        // A refused claim wrote at most the guest's row, which the journal brings anyway.
        tx.commit().await?;
        Ok(outcome)
    }

    async fn account_by_name(&self, name_key: &str) -> Result<Option<Account>, StoreError> {
        accounts::account_by_name(&mut *self.pool.acquire().await?, name_key).await
    }

    async fn account_by_player(&self, player_id: &str) -> Result<Option<Account>, StoreError> {
        accounts::account_by_player(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn account_keys(&self) -> Result<Vec<AccountKey>, StoreError> {
        accounts::account_keys(&mut *self.pool.acquire().await?).await
    }

    async fn set_account_keys(&self, keys: &[AccountKey]) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        accounts::set_account_keys(&mut *tx, keys).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn create_session(&self, session: &NewSession) -> Result<(), StoreError> {
        accounts::insert_session(&mut *self.pool.acquire().await?, session).await
    }

    async fn session_by_token_hash(&self, token_hash: &str) -> Result<Option<Session>, StoreError> {
        accounts::session(&mut *self.pool.acquire().await?, token_hash).await
    }

    async fn revoke_session(&self, token_hash: &str, at: Millis) -> Result<(), StoreError> {
        accounts::revoke_session(&mut *self.pool.acquire().await?, token_hash, at).await
    }

    async fn revoke_sessions_beyond(
        &self,
        player_id: &str,
        keep: u32,
        now: Millis,
    ) -> Result<Vec<String>, StoreError> {
        let mut tx = self.write().await?;
        let revoked = accounts::revoke_sessions_beyond(&mut *tx, player_id, keep, now).await?;
        tx.commit().await?;
        Ok(revoked)
    }

    async fn change_password(
        &self,
        password_hash: &str,
        session: &NewSession,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        accounts::change_password(&mut *tx, password_hash, session).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete_account(&self, player_id: &str, at: Millis) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let deleted = accounts::delete_account(&mut *tx, player_id, at).await?;
        tx.commit().await?;
        Ok(deleted)
    }

    async fn held_names(&self) -> Result<Vec<String>, StoreError> {
        accounts::held_names(&mut *self.pool.acquire().await?).await
    }

    async fn release_held_names(&self, before: Millis) -> Result<Vec<String>, StoreError> {
        let mut tx = self.write().await?;
        let released = accounts::release_held_names(&mut *tx, before).await?;
        tx.commit().await?;
        Ok(released)
    }

    async fn purge(
        &self,
        now: Millis,
        guests_before: Millis,
        keep: &HashSet<String>,
    ) -> Result<Purged, StoreError> {
        let mut tx = self.write().await?;
        let purged = purge::purge(&mut *tx, now, guests_before, keep).await?;
        tx.commit().await?;
        Ok(purged)
    }

    async fn rate_match(
        &self,
        rated: &RatedMatch,
        rate: RateFn<'_>,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut tx = self.write().await?;
        if let Some(lock) = DB::LOCK_RATINGS {
            tx.execute(lock, &[]).await?;
        }
        let changes = ratings::rate_match(&mut *tx, rated, rate).await?;
        tx.commit().await?;
        Ok(changes)
    }

    async fn account_standing(
        &self,
        player_id: &str,
        except_match: &str,
    ) -> Result<Option<AccountStanding>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        ratings::account_standing(&mut *conn, player_id, except_match).await
    }

    async fn rated_together(
        &self,
        player: &str,
        other: &str,
        since: Millis,
    ) -> Result<u32, StoreError> {
        ratings::rated_together(&mut *self.pool.acquire().await?, player, other, since).await
    }

    async fn leaderboard(
        &self,
        form: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<BoardEntry>, StoreError> {
        ratings::leaderboard(&mut *self.pool.acquire().await?, form, limit, offset).await
    }

    async fn player_ratings(&self, player_id: &str) -> Result<Vec<FormRating>, StoreError> {
        ratings::player_ratings(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn rating_history(
        &self,
        player_id: &str,
        limit: u32,
    ) -> Result<Vec<RatingPoint>, StoreError> {
        ratings::rating_history(&mut *self.pool.acquire().await?, player_id, limit).await
    }

    async fn match_analysis(&self, match_id: &str) -> Result<Option<String>, StoreError> {
        analyses::match_analysis(&mut *self.pool.acquire().await?, match_id).await
    }

    async fn save_match_analysis(&self, saved: &SavedAnalysis<'_>) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        analyses::save_match_analysis(&mut *tx, saved).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn recent_accuracy(
        &self,
        player_id: &str,
        matches: u32,
    ) -> Result<Vec<FormAccuracy>, StoreError> {
        analyses::recent_accuracy(&mut *self.pool.acquire().await?, player_id, matches).await
    }

    async fn role_of(&self, player_id: &str) -> Result<Option<Role>, StoreError> {
        moderation::role_of(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn set_role(
        &self,
        player_id: &str,
        role: Option<Role>,
        entry: &NewLogEntry,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        moderation::set_role(&mut *tx, player_id, role, entry).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn moderation_log(
        &self,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<LogEntry>, StoreError> {
        moderation::log_page(&mut *self.pool.acquire().await?, before, limit).await
    }

    async fn social_lists(&self, player_id: &str) -> Result<SocialLists, StoreError> {
        social::lists(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn set_relation(
        &self,
        player_id: &str,
        relation: Relation,
        other: &str,
        on: Option<Millis>,
    ) -> Result<(), StoreError> {
        social::set(&mut *self.pool.acquire().await?, player_id, relation, other, on).await
    }

    async fn set_guest_block(
        &self,
        player_id: &str,
        other: &str,
        on: Option<Millis>,
    ) -> Result<(), StoreError> {
        social::set_guest_block(&mut *self.pool.acquire().await?, player_id, other, on).await
    }

    async fn guest_blocks(&self, player_id: &str) -> Result<Vec<String>, StoreError> {
        social::guest_blocks(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn blocked_either_way(&self, player_id: &str) -> Result<Vec<String>, StoreError> {
        social::blocked_either_way(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn file_report(
        &self,
        report: &NewReport,
        limits: ReportLimits,
    ) -> Result<ReportOutcome, StoreError> {
        let mut tx = self.write().await?;
        let outcome = social::file(&mut *tx, report, limits).await?;
        tx.commit().await?;
        Ok(outcome)
    }

    async fn open_reports(&self, limit: u32) -> Result<Vec<Report>, StoreError> {
        social::open(&mut *self.pool.acquire().await?, limit).await
    }

    async fn close_report(&self, id: i64, entry: &NewLogEntry) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let closed = social::close(&mut *tx, id, entry).await?;
        tx.commit().await?;
        Ok(closed)
    }

    async fn sanction(&self, sanction: &Sanction, entry: &NewLogEntry) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sanctions::apply(&mut *tx, sanction, entry).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn live_sanctions(&self, now: Millis) -> Result<LiveSanctions, StoreError> {
        sanctions::live(&mut *self.pool.acquire().await?, now).await
    }

    async fn warnings(&self, player_id: &str) -> Result<Vec<Warning>, StoreError> {
        sanctions::warnings(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn unfinished_tournaments(&self) -> Result<Vec<StoredTournament>, StoreError> {
        tournaments::unfinished(&mut *self.pool.acquire().await?).await
    }

    async fn tournament(&self, id: &str) -> Result<Option<StoredTournament>, StoreError> {
        tournaments::one(&mut *self.pool.acquire().await?, id).await
    }

    async fn listed_tournaments(&self, limit: u32) -> Result<Vec<StoredTournament>, StoreError> {
        tournaments::listed(&mut *self.pool.acquire().await?, limit).await
    }

    async fn save_puzzles(&self, new: &[NewPuzzle], at: Millis) -> Result<u32, StoreError> {
        let mut tx = self.write().await?;
        let added = puzzles::save(&mut *tx, new, at).await?;
        tx.commit().await?;
        Ok(added)
    }

    async fn puzzle(&self, id: i64) -> Result<Option<StoredPuzzle>, StoreError> {
        puzzles::one(&mut *self.pool.acquire().await?, id).await
    }

    async fn next_puzzle(
        &self,
        player: Option<&str>,
        near: f64,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        puzzles::next(&mut *self.pool.acquire().await?, player, near).await
    }

    async fn random_puzzle(&self, fraction: f64) -> Result<Option<StoredPuzzle>, StoreError> {
        puzzles::random(&mut *self.pool.acquire().await?, fraction).await
    }

    async fn puzzles_before(&self, before: Millis) -> Result<u64, StoreError> {
        puzzles::count_before(&mut *self.pool.acquire().await?, before).await
    }

    async fn nth_puzzle_before(
        &self,
        before: Millis,
        nth: u64,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        puzzles::nth_before(&mut *self.pool.acquire().await?, before, nth).await
    }

    async fn answer_puzzle(
        &self,
        attempt: &PuzzleAttempt,
        start: Glicko,
        rate: PuzzleRateFn<'_>,
    ) -> Result<Option<PuzzleRated>, StoreError> {
        let mut tx = self.write().await?;
        let rated = puzzles::answer(&mut *tx, attempt, start, rate).await?;
        tx.commit().await?;
        Ok(rated)
    }

    async fn puzzle_rating(&self, player_id: &str) -> Result<Option<PuzzleRating>, StoreError> {
        puzzles::rating(&mut *self.pool.acquire().await?, player_id).await
    }

    async fn puzzle_attempts(
        &self,
        player_id: &str,
        limit: u32,
    ) -> Result<Vec<PuzzleAttempt>, StoreError> {
        puzzles::attempts(&mut *self.pool.acquire().await?, player_id, limit).await
    }

    async fn acknowledge_warning(
        &self,
        player_id: &str,
        id: i64,
        at: Millis,
    ) -> Result<(), StoreError> {
        sanctions::acknowledge(&mut *self.pool.acquire().await?, player_id, id, at).await
    }

    async fn record_sighting(
        &self,
        player_id: &str,
        address_hash: &str,
        at: Millis,
    ) -> Result<(), StoreError> {
        sanctions::sighting(&mut *self.pool.acquire().await?, player_id, address_hash, at).await
    }

    async fn dossier(&self, player_id: &str, now: Millis) -> Result<Dossier, StoreError> {
        sanctions::dossier(&mut *self.pool.acquire().await?, player_id, now).await
    }

    async fn pick_name(
        &self,
        player_id: &str,
        name: &str,
        name_key: &str,
        entry: &NewLogEntry,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let picked = sanctions::pick_name(&mut *tx, player_id, name, name_key, entry).await?;
        tx.commit().await?;
        Ok(picked)
    }

    async fn moderation_key(&self, name: &str, fresh: &str) -> Result<String, StoreError> {
        sanctions::key(&mut *self.pool.acquire().await?, name, fresh).await
    }
}
