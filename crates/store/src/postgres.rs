//! Match history in PostgreSQL: the [`Backend`] of [`PgStore`]. A
//! connection pool, the migrations in `migrations/postgres`, and the bulk
//! statements; the rest is `crate::sql`'s.
//!
//! Each statement costs a round trip, so `apply` gathers the writes that
//! come by the hundred (hands dealt, actions, hands ended) into one
//! statement per kind for the whole batch: each column is bound as an array
//! and `UNNEST` turns the arrays into rows. A batch of a few hundred writes
//! then takes about a dozen round trips.

use std::time::Duration;

use euchre_engine::{Rules, Seat};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions, Postgres};
use sqlx::types::Json;

use crate::backend::{Backend, SqlStore};
use crate::write::{EndRow, HandRow, PlaysRow};
use crate::{MatchSeat, StoreError};

static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/postgres");

const INSERT_SEATS: &str = "\
    INSERT INTO match_seats (match_id, seat, side, player_id, bot, name) \
    SELECT $1, * FROM UNNEST($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[]) \
    ON CONFLICT (match_id, seat) DO NOTHING";

const INSERT_HANDS: &str = "\
    INSERT INTO hands (match_id, number, dealer, deal, seal) \
    SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::jsonb[], $5::jsonb[]) \
    ON CONFLICT (match_id, number) DO NOTHING";

/// [`Backend::append_plays`], each column an array.
const APPEND_PLAYS: &str = "\
    UPDATE hands h SET plays = CASE \
        WHEN length(h.plays) >= v.start + length(v.plays) THEN h.plays \
        ELSE substr(h.plays, 1, v.start::integer) || v.plays END, \
        last_seq = GREATEST(h.last_seq, v.last_seq) \
    FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[]) \
        AS v (match_id, number, start, plays, last_seq) \
    WHERE h.match_id = v.match_id AND h.number = v.number AND length(h.plays) >= v.start \
    RETURNING h.match_id, h.number";

/// [`Backend::end_hands`] in one statement: the points go to the seats of
/// the hands the first part ended.
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

/// A [`crate::Store`] in PostgreSQL.
pub type PgStore = SqlStore<Postgres>;

impl Backend for Postgres {
    const MIGRATOR: &'static Migrator = &MIGRATOR;
    const BEGIN_READ: &'static str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
    const BEGIN_WRITE: &'static str = "BEGIN";
    const LOCK_RATINGS: Option<&'static str> =
        Some("LOCK TABLE ratings IN SHARE ROW EXCLUSIVE MODE");

    /// `postgres://…`.
    async fn connect(url: &str) -> Result<PgPool, StoreError> {
        Ok(PgPoolOptions::new()
            .max_connections(8)
            // A database that is away should fail a request (and a health
            // check) promptly; the writer retries on its own schedule.
            .acquire_timeout(Duration::from_secs(5))
            .connect(url)
            .await?)
    }

    async fn insert_hands(
        conn: &mut PgConnection,
        hands: &[HandRow<'_>],
    ) -> Result<(), StoreError> {
        if !hands.is_empty() {
            sqlx::query(INSERT_HANDS)
                .bind(column(hands, |hand| hand.match_id))
                .bind(column(hands, |hand| i64::from(hand.number)))
                .bind(column(hands, |hand| i64::from(hand.deal.dealer.0)))
                .bind(column(hands, |hand| Json(hand.deal)))
                .bind(column(hands, |hand| hand.seal.map(Json)))
                .execute(conn)
                .await?;
        }
        Ok(())
    }

    async fn append_plays(
        conn: &mut PgConnection,
        runs: &[&PlaysRow<'_>],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(sqlx::query_as(APPEND_PLAYS)
            .bind(column(runs, |run| run.match_id))
            .bind(column(runs, |run| i64::from(run.hand)))
            .bind(column(runs, |run| run.offset()))
            .bind(column(runs, |run| run.plays.as_str()))
            .bind(column(runs, |run| run.last_seq))
            .fetch_all(conn)
            .await?)
    }

    async fn end_hands(conn: &mut PgConnection, ends: &[EndRow<'_>]) -> Result<(), StoreError> {
        if !ends.is_empty() {
            sqlx::query(END_HANDS)
                .bind(column(ends, |end| end.match_id))
                .bind(column(ends, |end| i64::from(end.number)))
                .bind(column(ends, |end| Json(end.outcome)))
                .bind(column(ends, |end| end.at))
                .bind(column(ends, |end| end.points[0]))
                .bind(column(ends, |end| end.points[1]))
                .bind(column(ends, |end| end.points[2]))
                .execute(conn)
                .await?;
        }
        Ok(())
    }

    async fn insert_seats(
        conn: &mut PgConnection,
        match_id: &str,
        rules: &Rules,
        seats: &[MatchSeat],
    ) -> Result<(), StoreError> {
        let side = |seat: &MatchSeat| i64::from(rules.team_of(Seat(seat.seat)).0);
        sqlx::query(INSERT_SEATS)
            .bind(match_id)
            .bind(column(seats, |seat| i64::from(seat.seat)))
            .bind(column(seats, side))
            .bind(column(seats, |seat| seat.player_id.as_deref()))
            .bind(column(seats, |seat| seat.bot.as_deref()))
            .bind(column(seats, |seat| seat.name.as_str()))
            .execute(conn)
            .await?;
        Ok(())
    }
}

/// One column of rows, to bind as an array.
fn column<'r, R, T>(rows: &'r [R], value: impl Fn(&'r R) -> T) -> Vec<T> {
    rows.iter().map(value).collect()
}
