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
use euchre_engine::{Action, Deal, HandOutcome, MAX_TEAMS, Seal, Seat};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions};
use sqlx::types::Json;

use crate::TableRecord;
use crate::sql::{self, to_db_u64};
use crate::{Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, Purged, Session};
use crate::{BoardEntry, FormRating, RateFn, RatedMatch, RatingChange, RatingPoint};
use crate::{FormAccuracy, SavedAnalysis};
use crate::{
    LiveTable, MatchDetail, MatchPage, MatchQuery, MatchSeat, Millis, PlayerRow, PlayerStats,
    Store, StoreError, Write,
};
use crate::{accounts, analyses, purge, ratings, read, write};

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

const INSERT_ACTIONS: &str = "\
    INSERT INTO actions (match_id, hand, idx, seat, action, seq, at) \
    SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::jsonb[], \
        $6::bigint[], $7::bigint[]) \
    ON CONFLICT (match_id, hand, idx) DO NOTHING";

/// [`sql::END_HAND`] and [`sql::ADD_HAND_POINTS`] for many hands at once: a
/// hand's points go to its match's seats only if this statement ended the
/// hand, so a repeated `HandEnded` never counts twice.
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

/// The hands dealt, actions and hands ended of a batch, column by column,
/// and its match ends, held back until [`Bulk::flush`].
#[derive(Default)]
struct Bulk<'w> {
    hands: HandColumns,
    actions: ActionColumns,
    ends: EndColumns,
    match_ends: Vec<&'w Write>,
}

#[derive(Default)]
struct HandColumns {
    match_ids: Vec<String>,
    numbers: Vec<i64>,
    dealers: Vec<i64>,
    deals: Vec<Json<Deal>>,
    seals: Vec<Option<Json<Seal>>>,
}

#[derive(Default)]
struct ActionColumns {
    match_ids: Vec<String>,
    hands: Vec<i64>,
    indexes: Vec<i64>,
    seats: Vec<i64>,
    actions: Vec<Json<Action>>,
    seqs: Vec<i64>,
    ats: Vec<i64>,
}

#[derive(Default)]
struct EndColumns {
    match_ids: Vec<String>,
    numbers: Vec<i64>,
    outcomes: Vec<Json<HandOutcome>>,
    ats: Vec<i64>,
    /// Each side's points, by side.
    points: [Vec<i64>; MAX_TEAMS],
}

impl<'w> Bulk<'w> {
    /// Holds `write` back if it is of a kind applied in bulk.
    fn hold(&mut self, write: &'w Write) -> bool {
        match write {
            Write::HandDealt { match_id, number, deal, seal } => {
                let hands = &mut self.hands;
                hands.match_ids.push(match_id.clone());
                hands.numbers.push(i64::from(*number));
                hands.dealers.push(i64::from(deal.dealer.0));
                hands.deals.push(Json(*deal));
                hands.seals.push(seal.map(Json));
            }
            Write::Action { match_id, hand, index, seat, action, seq, at } => {
                let actions = &mut self.actions;
                actions.match_ids.push(match_id.clone());
                actions.hands.push(i64::from(*hand));
                actions.indexes.push(i64::from(*index));
                actions.seats.push(i64::from(*seat));
                actions.actions.push(Json(*action));
                actions.seqs.push(to_db_u64(*seq));
                actions.ats.push(*at);
            }
            Write::HandEnded { match_id, number, outcome, at } => {
                let ends = &mut self.ends;
                ends.match_ids.push(match_id.clone());
                ends.numbers.push(i64::from(*number));
                ends.outcomes.push(Json(*outcome));
                ends.ats.push(*at);
                for (side, points) in ends.points.iter_mut().zip(sql::hand_points(outcome)) {
                    side.push(points);
                }
            }
            Write::MatchEnded { .. } => self.match_ends.push(write),
            _ => return false,
        }
        true
    }

    /// Applies what was held back. Kind by kind rather than in journal
    /// order, with the same result: hands before the actions and ends that
    /// belong to them, hand ends (which add to a match's score) before
    /// match ends (which set it), and every kind in its own order. Nothing
    /// held back depends on a later write of another kind, and the matches
    /// they all belong to were inserted in journal order before.
    async fn flush(self, conn: &mut PgConnection) -> Result<(), StoreError> {
        let Bulk { hands, actions, ends, match_ends } = self;
        if !hands.match_ids.is_empty() {
            sqlx::query(INSERT_HANDS)
                .bind(hands.match_ids)
                .bind(hands.numbers)
                .bind(hands.dealers)
                .bind(hands.deals)
                .bind(hands.seals)
                .execute(&mut *conn)
                .await?;
        }
        if !actions.match_ids.is_empty() {
            sqlx::query(INSERT_ACTIONS)
                .bind(actions.match_ids)
                .bind(actions.hands)
                .bind(actions.indexes)
                .bind(actions.seats)
                .bind(actions.actions)
                .bind(actions.seqs)
                .bind(actions.ats)
                .execute(&mut *conn)
                .await?;
        }
        if !ends.match_ids.is_empty() {
            let [points0, points1, points2] = ends.points;
            sqlx::query(END_HANDS)
                .bind(ends.match_ids)
                .bind(ends.numbers)
                .bind(ends.outcomes)
                .bind(ends.ats)
                .bind(points0)
                .bind(points1)
                .bind(points2)
                .execute(&mut *conn)
                .await?;
        }
        for write in match_ends {
            write::apply_shared(&mut *conn, write).await?;
        }
        Ok(())
    }
}

/// Applies one write, in journal order.
async fn apply_one(conn: &mut PgConnection, write: &Write) -> Result<(), StoreError> {
    if !write::apply_shared(&mut *conn, write).await? {
        // `apply` holds these back for `Bulk`; alone, each is a bulk of one.
        let mut bulk = Bulk::default();
        bulk.hold(write);
        return bulk.flush(conn).await;
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
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut bulk = Bulk::default();
        for write in writes {
            if !bulk.hold(write) {
                apply_one(&mut tx, write).await?;
            }
        }
        bulk.flush(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerRow>, StoreError> {
        read::player_by_token_hash(&mut *self.pool.acquire().await?, token_hash).await
    }

    async fn live_tables(&self) -> Result<Vec<LiveTable>, StoreError> {
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
