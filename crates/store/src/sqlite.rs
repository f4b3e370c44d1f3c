//! Match history in SQLite: one file (created with its folder if missing),
//! in WAL mode so reads go on while the writer writes, the migrations in
//! `migrations/sqlite`, and the statements of [`crate::sql`].
//!
//! `synchronous = FULL`: a commit is on disk when `apply` returns. The
//! writer moves the journal's checkpoint past a batch once it is applied, so
//! a commit that a power cut could still undo (as `NORMAL` allows in WAL
//! mode) would be lost for good. The writer's batches make the price one
//! fsync per few hundred writes.

use std::collections::HashSet;
use std::time::Duration;

use async_trait::async_trait;
use euchre_engine::{Action, Seat};
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::types::Json;

use crate::TableRecord;
use crate::sql::{self, to_db_u64};
use crate::{Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, Purged, Session};
use crate::{BoardEntry, FormRating, RateFn, RatedMatch, RatingChange, RatingPoint};
use crate::{FormAccuracy, SavedAnalysis};
use crate::{
    LiveTable, MatchDetail, MatchPage, MatchQuery, Millis, PlayerRow, PlayerStats, Store,
    StoreError, Write,
};
use crate::{accounts, analyses, purge, ratings, read, write};

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/sqlite");

/// Takes the write lock when the transaction begins. A deferred transaction
/// would take it at its first write and, should another connection hold it,
/// fail at once instead of waiting out the busy timeout.
const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

/// Rows of actions per execution of [`insert_actions_sql`].
const ACTION_ROWS: usize = 32;

/// The actions of a batch go in [`ACTION_ROWS`] at a time, each row bound
/// as seven parameters: one statement for many rows, since each statement
/// is a hop to sqlx's SQLite worker thread and back, and no JSON for
/// SQLite to take apart again (binding the rows as one JSON array for
/// `jsonb_each` cost more in SQLite's JSON functions than the inserts
/// themselves). A short chunk repeats its last row, which the conflict
/// clause skips, so one statement text serves every chunk.
fn insert_actions_sql() -> &'static str {
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        // Anonymous parameters: sqlx looks a named one up by its name,
        // which SQLite finds by walking every name before it.
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?)"; ACTION_ROWS];
        format!(
            "INSERT INTO actions (match_id, hand, idx, seat, action, seq, at) VALUES {} \
             ON CONFLICT (match_id, hand, idx) DO NOTHING",
            rows.join(", ")
        )
    });
    SQL.as_str()
}

/// A row of [`insert_actions_sql`].
type ActionRow<'w> = (&'w str, u32, u32, u8, Action, i64, Millis);

/// A [`Store`] in SQLite.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if needed) the database `url` names: `sqlite://path`,
    /// `sqlite:path`, or `sqlite::memory:` for a database that lives as long
    /// as the store.
    pub async fn connect(url: &str) -> Result<SqliteStore, StoreError> {
        let options: SqliteConnectOptions = url.parse()?;
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let memory = url.contains(":memory:") || url.contains("mode=memory");
        let pool = if memory {
            // An in-memory database dies with its last connection: keep
            // exactly one, forever.
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await?
        } else {
            if let Some(folder) = options.get_filename().parent()
                && !folder.as_os_str().is_empty()
            {
                std::fs::create_dir_all(folder)
                    .map_err(|error| StoreError::Database(sqlx::Error::Io(error)))?;
            }
            // Readers run side by side in WAL mode; writers take turns.
            SqlitePoolOptions::new().max_connections(4).connect_with(options).await?
        };
        Ok(SqliteStore { pool })
    }

    /// The pool, for callers that need the database directly (tests, tools).
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

async fn insert_actions(
    conn: &mut SqliteConnection,
    rows: &[ActionRow<'_>],
) -> Result<(), StoreError> {
    for chunk in rows.chunks(ACTION_ROWS) {
        let Some(last) = chunk.last() else { continue };
        let padded = chunk.iter().chain(std::iter::repeat(last)).take(ACTION_ROWS);
        let mut query = sqlx::query(insert_actions_sql());
        for &(match_id, hand, index, seat, action, seq, at) in padded {
            query = query
                .bind(match_id)
                .bind(i64::from(hand))
                .bind(i64::from(index))
                .bind(i64::from(seat))
                .bind(Json(action))
                .bind(seq)
                .bind(at);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Applies one write, in journal order.
async fn apply_one(conn: &mut SqliteConnection, write: &Write) -> Result<(), StoreError> {
    if write::apply_shared(&mut *conn, write).await? {
        if let Write::MatchStarted { id, rules, seats, .. } = write {
            for seat in seats {
                sqlx::query(sql::INSERT_SEAT)
                    .bind(id)
                    .bind(i64::from(seat.seat))
                    .bind(i64::from(rules.team_of(Seat(seat.seat)).0))
                    .bind(&seat.player_id)
                    .bind(&seat.bot)
                    .bind(&seat.name)
                    .execute(&mut *conn)
                    .await?;
            }
        }
        return Ok(());
    }
    match write {
        Write::HandDealt { match_id, number, deal, seal } => {
            sqlx::query(sql::INSERT_HAND)
                .bind(match_id)
                .bind(i64::from(*number))
                .bind(i64::from(deal.dealer.0))
                .bind(Json(deal))
                .bind(seal.map(Json))
                .execute(conn)
                .await?;
        }
        Write::Action { match_id, hand, index, seat, action, seq, at } => {
            let row: ActionRow = (match_id, *hand, *index, *seat, *action, to_db_u64(*seq), *at);
            insert_actions(conn, &[row]).await?;
        }
        Write::HandEnded { match_id, number, outcome, at } => {
            let ended = sqlx::query(sql::END_HAND)
                .bind(match_id)
                .bind(i64::from(*number))
                .bind(Json(outcome))
                .bind(at)
                .execute(&mut *conn)
                .await?;
            if ended.rows_affected() > 0 {
                let [points0, points1, points2] = sql::hand_points(outcome);
                sqlx::query(sql::ADD_HAND_POINTS)
                    .bind(match_id)
                    .bind(points0)
                    .bind(points1)
                    .bind(points2)
                    .execute(conn)
                    .await?;
            }
        }
        // Shared, above.
        _ => {}
    }
    Ok(())
}

#[async_trait]
impl Store for SqliteStore {
    async fn migrate(&self) -> Result<(), StoreError> {
        MIGRATOR.run(&self.pool).await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        let mut actions: Vec<ActionRow> = Vec::new();
        for write in writes {
            match write {
                Write::Action { match_id, hand, index, seat, action, seq, at } => {
                    actions.push((match_id, *hand, *index, *seat, *action, to_db_u64(*seq), *at));
                }
                other => apply_one(&mut tx, other).await?,
            }
        }
        // The actions go in last, all at once. The result is the same as in
        // order: no other write reads or changes actions, and the only thing
        // an action needs, its match's row, comes earlier in the journal.
        insert_actions(&mut tx, &actions).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerRow>, StoreError> {
        read::player_by_token_hash(&mut *self.pool.acquire().await?, token_hash).await
    }

    // In WAL mode a transaction reads one snapshot from its first read on.

    async fn live_tables(&self) -> Result<Vec<LiveTable>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let live = read::live_tables(&mut *tx).await?;
        tx.commit().await?;
        Ok(live)
    }

    async fn list_matches(&self, query: &MatchQuery) -> Result<MatchPage, StoreError> {
        read::list_matches(&mut *self.pool.acquire().await?, query).await
    }

    async fn get_match(&self, id: &str) -> Result<Option<MatchDetail>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let detail = read::load_match(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(detail.map(|(detail, _)| detail))
    }

    async fn table_record(&self, id: &str) -> Result<Option<TableRecord>, StoreError> {
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
        let stats = read::player_stats(&mut *tx, player_id).await?;
        tx.commit().await?;
        Ok(stats)
    }

    async fn claim_account(&self, claim: &AccountClaim) -> Result<ClaimOutcome, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
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
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
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

    async fn change_password(
        &self,
        password_hash: &str,
        session: &NewSession,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        accounts::change_password(&mut *tx, password_hash, session).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn purge(
        &self,
        now: Millis,
        guests_before: Millis,
        keep: &HashSet<String>,
    ) -> Result<Purged, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        let purged = purge::purge(&mut *tx, now, guests_before, keep).await?;
        tx.commit().await?;
        Ok(purged)
    }

    async fn rate_match(
        &self,
        rated: &RatedMatch,
        rate: RateFn<'_>,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        let changes = ratings::rate_match(&mut *tx, rated, rate).await?;
        tx.commit().await?;
        Ok(changes)
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
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
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
}
