//! Match history in PostgreSQL: a connection pool, the migrations in
//! `migrations/postgres`, and the statements of [`crate::sql`].
//!
//! Each statement costs a round trip, so `apply` gathers the writes that
//! come by the hundred (hands dealt, actions, hands ended) into one
//! statement per kind for the whole batch: each column is bound as an array
//! and `UNNEST` turns the arrays into rows. A batch of a few hundred writes
//! then takes about a dozen round trips.

use std::collections::HashSet;
use std::time::Duration;

use async_trait::async_trait;
use euchre_engine::Seat;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions};
use sqlx::types::Json;

use crate::TableRecord;
use crate::write::Held;
use crate::{Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, Purged, Session};
use crate::{BoardEntry, FormRating, RateFn, RatedMatch, RatingChange, RatingPoint};
use crate::{FormAccuracy, SavedAnalysis};
use crate::{
    LiveTable, MatchDetail, MatchPage, MatchQuery, MatchSeat, Millis, PlayerRow, PlayerStats,
    Store, StoreError, UnreadableTable, Write,
};
use crate::{accounts, analyses, plays, purge, ratings, read, write};

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/postgres");

/// Reads see one snapshot across their several statements, so a match read
/// while the writer adds to it is never half old, half new.
const BEGIN_READ: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

const INSERT_SEATS: &str = "\
    INSERT INTO match_seats (match_id, seat, side, player_id, bot, name) \
    SELECT $1, * FROM UNNEST($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[]) \
    ON CONFLICT (match_id, seat) DO NOTHING";

const INSERT_HANDS: &str = "\
    INSERT INTO hands (match_id, number, dealer, deal, seal) \
    SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::jsonb[], $5::jsonb[]) \
    ON CONFLICT (match_id, number) DO NOTHING";

/// Writes runs of hands' actions at their places in `plays` (see
/// [`crate::plays`]): over what is there already, which is the same actions
/// again, and only where the hand's earlier actions are stored. Tells which
/// hands it wrote.
const APPEND_PLAYS: &str = "\
    UPDATE hands h SET plays = CASE \
        WHEN length(h.plays) >= v.start + length(v.plays) THEN h.plays \
        ELSE substr(h.plays, 1, v.start::integer) || v.plays END, \
        last_seq = GREATEST(h.last_seq, v.last_seq) \
    FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[]) \
        AS v (match_id, number, start, plays, last_seq) \
    WHERE h.match_id = v.match_id AND h.number = v.number AND length(h.plays) >= v.start \
    RETURNING h.match_id, h.number";

/// Sets the outcome of hands still in progress and adds each hand's points
/// to its match's seats by side, only if this statement ended the hand, so
/// a repeated `HandEnded` never counts twice.
const END_HANDS: &str = "\
    WITH ended AS ( \
        UPDATE hands h SET outcome = e.outcome, ended_at = e.at \
        FROM UNNEST($1::text[], $2::bigint[], $3::jsonb[], $4::bigint[], $5::bigint[], \
            $6::bigint[], $7::bigint[]) AS e (match_id, number, outcome, at, points0, points1, \
            points2) \
        WHERE h.match_id = e.match_id AND h.number = e.number AND h.outcome IS NULL \
        RETURNING h.match_id, e.points0, e.points1, e.points2) \
    UPDATE match_seats s SET score = s.score + CASE s.side WHEN 0 THEN t.points0 \
        WHEN 1 THEN t.points1 WHEN 2 THEN t.points2 ELSE 0 END \
    FROM (SELECT match_id, SUM(points0)::bigint AS points0, SUM(points1)::bigint AS points1, \
            SUM(points2)::bigint AS points2 \
        FROM ended GROUP BY match_id) t \
    WHERE s.match_id = t.match_id";

/// A [`Store`] in PostgreSQL.
#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    /// Connects a pool to the database `url` names (`postgres://…`).
    pub async fn connect(url: &str) -> Result<PgStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(8)
            // A database that is away should fail a request (and a health
            // check) promptly; the writer retries on its own schedule.
            .acquire_timeout(Duration::from_secs(5))
            .connect(url)
            .await?;
        Ok(PgStore { pool })
    }

    /// The pool, for callers that need the database directly (tests, tools).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

/// Applies what [`Held`] held back, one statement per kind, each column
/// bound as an array, in the order `Held` says gives the journal's result.
async fn flush(held: Held<'_>, conn: &mut PgConnection) -> Result<(), StoreError> {
    let Held { hands, plays, ends, match_ends, .. } = held;
    if !hands.is_empty() {
        sqlx::query(INSERT_HANDS)
            .bind(column(&hands, |hand| hand.match_id))
            .bind(column(&hands, |hand| i64::from(hand.number)))
            .bind(column(&hands, |hand| i64::from(hand.deal.dealer.0)))
            .bind(column(&hands, |hand| Json(hand.deal)))
            .bind(column(&hands, |hand| hand.seal.map(Json)))
            .execute(&mut *conn)
            .await?;
    }
    for round in write::rounds(&plays) {
        let written: Vec<(String, i64)> = sqlx::query_as(APPEND_PLAYS)
            .bind(column(&round, |run| run.match_id))
            .bind(column(&round, |run| i64::from(run.hand)))
            .bind(column(&round, |run| run.offset()))
            .bind(column(&round, |run| run.plays.as_str()))
            .bind(column(&round, |run| run.last_seq))
            .fetch_all(&mut *conn)
            .await?;
        write::report_unwritten(&round, &written);
    }
    if !ends.is_empty() {
        sqlx::query(END_HANDS)
            .bind(column(&ends, |end| end.match_id))
            .bind(column(&ends, |end| i64::from(end.number)))
            .bind(column(&ends, |end| Json(end.outcome)))
            .bind(column(&ends, |end| end.at))
            .bind(column(&ends, |end| end.points[0]))
            .bind(column(&ends, |end| end.points[1]))
            .bind(column(&ends, |end| end.points[2]))
            .execute(&mut *conn)
            .await?;
    }
    for write in match_ends {
        write::apply_shared(&mut *conn, write).await?;
    }
    Ok(())
}

/// One column of held-back rows, to bind as an array.
fn column<R, T>(rows: &[R], value: impl Fn(&R) -> T) -> Vec<T> {
    rows.iter().map(value).collect()
}

/// Applies one write, in journal order.
async fn apply_one(conn: &mut PgConnection, write: &Write) -> Result<(), StoreError> {
    if !write::apply_shared(&mut *conn, write).await? {
        // `apply` holds these back; alone, each is a bulk of one.
        let mut held = Held::default();
        held.hold(write);
        return flush(held, conn).await;
    }
    if let Write::MatchStarted { id, rules, seats, .. } = write {
        let side = |seat: &MatchSeat| i64::from(rules.team_of(Seat(seat.seat)).0);
        sqlx::query(INSERT_SEATS)
            .bind(id)
            .bind(seats.iter().map(|seat| i64::from(seat.seat)).collect::<Vec<_>>())
            .bind(seats.iter().map(side).collect::<Vec<_>>())
            .bind(seats.iter().map(|seat| seat.player_id.clone()).collect::<Vec<_>>())
            .bind(seats.iter().map(|seat| seat.bot.clone()).collect::<Vec<_>>())
            .bind(seats.iter().map(|seat| seat.name.clone()).collect::<Vec<_>>())
            .execute(conn)
            .await?;
    }
    Ok(())
}

#[async_trait]
impl Store for PgStore {
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
        let mut tx = self.pool.begin().await?;
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

    async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_READ).await?;
        let live = read::live_tables(&mut *tx).await?;
        tx.commit().await?;
        Ok(live)
    }

    async fn list_matches(&self, query: &MatchQuery) -> Result<MatchPage, StoreError> {
        read::list_matches(&mut *self.pool.acquire().await?, query).await
    }

    async fn get_match(&self, id: &str) -> Result<Option<MatchDetail>, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_READ).await?;
        let detail = read::load_match(&mut *tx, id).await?;
        tx.commit().await?;
        Ok(detail.map(|(detail, _)| detail))
    }

    async fn table_record(&self, id: &str) -> Result<Option<TableRecord>, StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_READ).await?;
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
        let mut tx = self.pool.begin_with(BEGIN_READ).await?;
        let stats = read::player_stats(&mut *tx, player_id).await?;
        tx.commit().await?;
        Ok(stats)
    }

    async fn claim_account(&self, claim: &AccountClaim) -> Result<ClaimOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
        let purged = purge::purge(&mut *tx, now, guests_before, keep).await?;
        tx.commit().await?;
        Ok(purged)
    }

    async fn rate_match(
        &self,
        rated: &RatedMatch,
        rate: RateFn<'_>,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // One rating at a time: games ending together for one player must
        // not both start from the same rating. (SQLite's write lock does this.)
        sqlx::query("LOCK TABLE ratings IN SHARE ROW EXCLUSIVE MODE").execute(&mut *tx).await?;
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
        let mut tx = self.pool.begin().await?;
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
