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
use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use euchre_engine::{MAX_TEAMS, Seat};
use sqlx::Row;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    Sqlite, SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool,
    SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::types::Json;

use crate::TableRecord;
use crate::write::{EndRow, Held};
use crate::{Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, Purged, Session};
use crate::{BoardEntry, FormRating, RateFn, RatedMatch, RatingChange, RatingPoint};
use crate::{FormAccuracy, SavedAnalysis};
use crate::{
    LiveTable, MatchDetail, MatchPage, MatchQuery, Millis, PlayerRow, PlayerStats, Store,
    StoreError, UnreadableTable, Write,
};
use crate::{accounts, analyses, plays, purge, ratings, read, write};

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/sqlite");

/// Takes the write lock when the transaction begins. A deferred transaction
/// would take it at its first write and, should another connection hold it,
/// fail at once instead of waiting out the busy timeout.
const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

/// Runs of a hand's actions per execution of [`APPEND_PLAYS`]: a batch
/// brings about one run for every table in play.
const PLAYS_ROWS: usize = 16;
/// Rows of hands per execution of [`INSERT_HANDS`], [`END_HANDS`] and
/// [`ADD_POINTS`]: a batch deals and ends about one hand for every twenty
/// of its actions.
const HAND_ROWS: usize = 8;

/// The writes [`Held`] holds back go in many rows a statement, each row
/// bound as parameters: one statement for many rows, since each statement
/// is a hop to sqlx's SQLite worker thread and back, and no JSON for SQLite
/// to take apart again (binding the rows as one JSON array for
/// `jsonb_each` cost more in SQLite's JSON functions than the inserts
/// themselves). A short chunk repeats its last row, which each statement
/// ignores (a conflict skipped, a row updated once), so one statement text
/// serves every chunk.
/// Writes runs of hands' actions at their places in `plays` (see
/// [`crate::plays`]): over what is there already, which is the same actions
/// again, and only where the hand's earlier actions are stored. Tells which
/// hands it wrote.
static APPEND_PLAYS: LazyLock<String> = LazyLock::new(|| {
    rows_sql(
        "UPDATE hands SET plays = CASE \
            WHEN length(hands.plays) >= v.column3 + length(v.column4) THEN hands.plays \
            ELSE substr(hands.plays, 1, v.column3) || v.column4 END, \
         last_seq = max(hands.last_seq, v.column5) FROM (VALUES",
        "(?, ?, ?, ?, ?)",
        PLAYS_ROWS,
        ") AS v WHERE hands.match_id = v.column1 AND hands.number = v.column2 \
         AND length(hands.plays) >= v.column3 RETURNING match_id, number",
    )
});

static INSERT_HANDS: LazyLock<String> = LazyLock::new(|| {
    rows_sql(
        "INSERT INTO hands (match_id, number, dealer, deal, seal) VALUES",
        "(?, ?, ?, ?, ?)",
        HAND_ROWS,
        "ON CONFLICT (match_id, number) DO NOTHING",
    )
});

/// Seats per execution of [`INSERT_SEATS`]: a game has two to four, so a
/// match's seats go in one.
const SEAT_ROWS: usize = 4;

/// A match's seats and the side each scores for (`Rules::team_of`).
static INSERT_SEATS: LazyLock<String> = LazyLock::new(|| {
    rows_sql(
        "INSERT INTO match_seats (match_id, seat, side, player_id, bot, name) VALUES",
        "(?, ?, ?, ?, ?, ?)",
        SEAT_ROWS,
        "ON CONFLICT (match_id, seat) DO NOTHING",
    )
});

/// Sets the outcome of hands still in progress, and tells which it set:
/// only those hands' points go to their matches ([`ADD_POINTS`]), so a
/// repeated `HandEnded` never counts twice.
static END_HANDS: LazyLock<String> = LazyLock::new(|| {
    rows_sql(
        "UPDATE hands SET outcome = v.column3, ended_at = v.column4 FROM (VALUES",
        "(?, ?, ?, ?)",
        HAND_ROWS,
        ") AS v WHERE hands.match_id = v.column1 AND hands.number = v.column2 \
         AND hands.outcome IS NULL RETURNING match_id, number",
    )
});

/// Keeps matches' running scores current, for listings of matches in
/// progress: each seat gains its side's points (one row a match, the sum of
/// its hands ended; sides 0, 1 and 2).
static ADD_POINTS: LazyLock<String> = LazyLock::new(|| {
    rows_sql(
        "UPDATE match_seats SET score = score + CASE side WHEN 0 THEN v.column2 \
         WHEN 1 THEN v.column3 WHEN 2 THEN v.column4 ELSE 0 END FROM (VALUES",
        "(?, ?, ?, ?)",
        HAND_ROWS,
        ") AS v WHERE match_seats.match_id = v.column1",
    )
});

/// `head`, `rows` copies of `row` separated by commas, then `tail`.
fn rows_sql(head: &str, row: &str, rows: usize, tail: &str) -> String {
    // Anonymous parameters: sqlx looks a named one up by its name, which
    // SQLite finds by walking every name before it.
    format!("{head} {} {tail}", vec![row; rows].join(", "))
}

type SqliteQuery<'q> = sqlx::query::Query<'q, Sqlite, SqliteArguments>;

/// Runs `sql` (made by [`rows_sql`] for `per` rows) over `rows`, `per` at a
/// time, each row bound by `bind`; returns the rows it returned.
async fn in_chunks<R>(
    conn: &mut SqliteConnection,
    sql: &'static str,
    per: usize,
    rows: &[R],
    bind: impl for<'q> Fn(SqliteQuery<'q>, &'q R) -> SqliteQuery<'q>,
) -> Result<Vec<SqliteRow>, StoreError> {
    let mut returned = Vec::new();
    for chunk in rows.chunks(per) {
        let Some(last) = chunk.last() else { continue };
        let padded = chunk.iter().chain(std::iter::repeat(last)).take(per);
        let query = padded.fold(sqlx::query(sql), &bind);
        returned.extend(query.fetch_all(&mut *conn).await?);
    }
    Ok(returned)
}

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

/// Applies what [`Held`] held back, in the order `Held` says gives the
/// journal's result.
async fn flush(held: Held<'_>, conn: &mut SqliteConnection) -> Result<(), StoreError> {
    let Held { hands, plays, ends, match_ends, .. } = held;
    in_chunks(conn, &INSERT_HANDS, HAND_ROWS, &hands, |query, hand| {
        query
            .bind(hand.match_id)
            .bind(i64::from(hand.number))
            .bind(i64::from(hand.deal.dealer.0))
            .bind(Json(hand.deal))
            .bind(hand.seal.map(Json))
    })
    .await?;
    for round in write::rounds(&plays) {
        let written = in_chunks(conn, &APPEND_PLAYS, PLAYS_ROWS, &round, |query, run| {
            query
                .bind(run.match_id)
                .bind(i64::from(run.hand))
                .bind(run.offset())
                .bind(run.plays.as_str())
                .bind(run.last_seq)
        })
        .await?;
        let written: Vec<(String, i64)> = written
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()?;
        write::report_unwritten(&round, &written);
    }
    end_hands(conn, &ends).await?;
    for write in match_ends {
        write::apply_shared(&mut *conn, write).await?;
    }
    Ok(())
}

/// Ends `ends`' hands and adds the points of those it ended (not those
/// ended before) to their matches.
async fn end_hands(conn: &mut SqliteConnection, ends: &[EndRow<'_>]) -> Result<(), StoreError> {
    let ended = in_chunks(conn, &END_HANDS, HAND_ROWS, ends, |query, end| {
        query.bind(end.match_id).bind(i64::from(end.number)).bind(Json(end.outcome)).bind(end.at)
    })
    .await?;
    let mut ended: HashSet<(String, i64)> = ended
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<_, sqlx::Error>>()?;
    // Each match's points summed over its hands ended, in the order first seen.
    let mut points: Vec<(&str, [i64; MAX_TEAMS])> = Vec::new();
    for end in ends {
        // Taken out as counted: a hand ended twice in one batch counts once.
        if !ended.remove(&(end.match_id.to_owned(), i64::from(end.number))) {
            continue;
        }
        match points.iter_mut().find(|(match_id, _)| *match_id == end.match_id) {
            Some((_, sum)) => sum.iter_mut().zip(end.points).for_each(|(sum, add)| *sum += add),
            None => points.push((end.match_id, end.points)),
        }
    }
    in_chunks(conn, &ADD_POINTS, HAND_ROWS, &points, |query, (match_id, [p0, p1, p2])| {
        query.bind(*match_id).bind(p0).bind(p1).bind(p2)
    })
    .await?;
    Ok(())
}

/// Applies one write not held back, in journal order.
async fn apply_one(conn: &mut SqliteConnection, write: &Write) -> Result<(), StoreError> {
    if !write::apply_shared(&mut *conn, write).await? {
        // `apply` holds these back; alone, each is a bulk of one.
        let mut held = Held::default();
        held.hold(write);
        return flush(held, conn).await;
    }
    if let Write::MatchStarted { id, rules, seats, .. } = write {
        in_chunks(conn, &INSERT_SEATS, SEAT_ROWS, seats, |query, seat| {
            query
                .bind(id.as_str())
                .bind(i64::from(seat.seat))
                .bind(i64::from(rules.team_of(Seat(seat.seat)).0))
                .bind(seat.player_id.as_deref())
                .bind(seat.bot.as_deref())
                .bind(seat.name.as_str())
        })
        .await?;
    }
    Ok(())
}

#[async_trait]
impl Store for SqliteStore {
    async fn migrate(&self) -> Result<(), StoreError> {
        MIGRATOR.run(&self.pool).await?;
        let mut tx = self.pool.begin().await?;
        let moved = plays::adopt_legacy_actions(&mut *tx).await?;
        tx.commit().await?;
        if moved > 0 {
            tracing::info!(moved, "actions stored a row each moved into their hands");
        }
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        let mut held = Held::default();
        for write in writes {
            if !held.hold(write) {
                apply_one(&mut tx, write).await?;
            }
        }
        flush(held, &mut tx).await?;
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

    async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
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
