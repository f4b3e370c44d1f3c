//! Match history in SQLite: the [`Backend`] of [`SqliteStore`]. One file
//! (created with its folder if missing), in WAL mode so reads go on while
//! the writer writes, the migrations in `migrations/sqlite`, and the bulk
//! statements; the rest is `crate::sql`'s.
//!
//! `synchronous = FULL`: a commit is on disk when `apply` returns. The
//! writer moves the journal's checkpoint past a batch once it is applied, so
//! a commit that a power cut could still undo (as `NORMAL` allows in WAL
//! mode) would be lost for good. The writer's batches make the price one
//! fsync per few hundred writes.
//!
//! The writes that come in bulk go in many rows a statement, each row
//! bound as parameters: one statement for many rows, since each statement
//! is a hop to sqlx's SQLite worker thread and back, and no JSON for SQLite
//! to take apart again (binding the rows as one JSON array for
//! `jsonb_each` cost more in SQLite's JSON functions than the inserts
//! themselves). A short chunk repeats its last row, which each statement
//! ignores (a conflict skipped, a row updated once), so one statement text
//! serves every chunk.

use std::collections::HashSet;
use std::sync::LazyLock;
use std::time::Duration;

use euchre_engine::{MAX_TEAMS, Rules, Seat};
use sqlx::Row;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    Sqlite, SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool,
    SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::types::Json;

use crate::backend::{Backend, SqlStore};
use crate::write::{EndRow, HandRow, PlaysRow};
use crate::{MatchSeat, StoreError};

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/sqlite");

/// Runs of a hand's actions per execution of [`APPEND_PLAYS`]: a batch
/// brings about one run for every table in play.
const PLAYS_ROWS: usize = 16;
/// Rows of hands per execution of [`INSERT_HANDS`], [`END_HANDS`] and
/// [`ADD_POINTS`]: a batch deals and ends about one hand for every twenty
/// of its actions.
const HAND_ROWS: usize = 8;

/// [`Backend::append_plays`], [`PLAYS_ROWS`] runs at a time.
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

/// The hands (match id, number) `rows` name in their first two columns.
fn hands_named(rows: &[SqliteRow]) -> Result<Vec<(String, i64)>, StoreError> {
    let named = rows.iter().map(|row| Ok((row.try_get(0)?, row.try_get(1)?)));
    Ok(named.collect::<Result<_, sqlx::Error>>()?)
}

/// A [`crate::Store`] in SQLite.
pub type SqliteStore = SqlStore<Sqlite>;

impl Backend for Sqlite {
    const MIGRATOR: &'static Migrator = &MIGRATOR;
    // In WAL mode a transaction reads one snapshot from its first read on.
    const BEGIN_READ: &'static str = "BEGIN";
    /// Takes the write lock when the transaction begins. A deferred
    /// transaction would take it at its first write and, should another
    /// connection hold it, fail at once instead of waiting out the busy
    /// timeout.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    // The write lock keeps other writers out already.
    const LOCK_RATINGS: Option<&'static str> = None;

    /// `sqlite://path`, `sqlite:path`, or `sqlite::memory:` for a database
    /// that lives as long as the store; the file, and its folder, are
    /// created if missing.
    async fn connect(url: &str) -> Result<SqlitePool, StoreError> {
        let options: SqliteConnectOptions = url.parse()?;
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let memory = url.contains(":memory:") || url.contains("mode=memory");
        if memory {
            // An in-memory database dies with its last connection: keep
            // exactly one, forever.
            return Ok(SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await?);
        }
        if let Some(folder) = options.get_filename().parent()
            && !folder.as_os_str().is_empty()
        {
            std::fs::create_dir_all(folder)
                .map_err(|error| StoreError::Database(sqlx::Error::Io(error)))?;
        }
        // Readers run side by side in WAL mode; writers take turns.
        Ok(SqlitePoolOptions::new().max_connections(4).connect_with(options).await?)
    }

    async fn insert_hands(
        conn: &mut SqliteConnection,
        hands: &[HandRow<'_>],
    ) -> Result<(), StoreError> {
        in_chunks(conn, &INSERT_HANDS, HAND_ROWS, hands, |query, hand| {
            query
                .bind(hand.match_id)
                .bind(i64::from(hand.number))
                .bind(i64::from(hand.deal.dealer.0))
                .bind(Json(hand.deal))
                .bind(hand.seal.map(Json))
        })
        .await?;
        Ok(())
    }

    async fn append_plays(
        conn: &mut SqliteConnection,
        runs: &[&PlaysRow<'_>],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let written = in_chunks(conn, &APPEND_PLAYS, PLAYS_ROWS, runs, |query, run| {
            query
                .bind(run.match_id)
                .bind(i64::from(run.hand))
                .bind(run.offset())
                .bind(run.plays.as_str())
                .bind(run.last_seq)
        })
        .await?;
        hands_named(&written)
    }

    async fn end_hands(conn: &mut SqliteConnection, ends: &[EndRow<'_>]) -> Result<(), StoreError> {
        let ended = in_chunks(conn, &END_HANDS, HAND_ROWS, ends, |query, end| {
            query
                .bind(end.match_id)
                .bind(i64::from(end.number))
                .bind(Json(end.outcome))
                .bind(end.at)
        })
        .await?;
        let mut ended: HashSet<(String, i64)> = hands_named(&ended)?.into_iter().collect();
        // Each match's points summed over its hands ended, in the order first seen.
        let mut points: Vec<(&str, [i64; MAX_TEAMS])> = Vec::new();
        for end in ends {
            // Taken out as counted: a hand ended twice in one batch counts once.
            if !ended.remove(&(end.match_id.to_owned(), i64::from(end.number))) {
                continue;
            }
            match points.iter_mut().find(|(match_id, _)| *match_id == end.match_id) {
                Some((_, sum)) => {
                    sum.iter_mut().zip(end.points).for_each(|(sum, add)| *sum += add);
                }
                None => points.push((end.match_id, end.points)),
            }
        }
        in_chunks(conn, &ADD_POINTS, HAND_ROWS, &points, |query, (match_id, [p0, p1, p2])| {
            query.bind(*match_id).bind(p0).bind(p1).bind(p2)
        })
        .await?;
        Ok(())
    }

    async fn insert_seats(
        conn: &mut SqliteConnection,
        match_id: &str,
        rules: &Rules,
        seats: &[MatchSeat],
    ) -> Result<(), StoreError> {
        in_chunks(conn, &INSERT_SEATS, SEAT_ROWS, seats, |query, seat| {
            query
                .bind(match_id)
                .bind(i64::from(seat.seat))
                .bind(i64::from(rules.team_of(Seat(seat.seat)).0))
                .bind(seat.player_id.as_deref())
                .bind(seat.bot.as_deref())
                .bind(seat.name.as_str())
        })
        .await?;
        Ok(())
    }
}
