//! One connection type for the code both backends share: [`Conn`] runs one
//! of [`crate::sql`]'s statements with bound [`Param`]s, and its rows decode
//! into the row types of [`crate::rows`]. One blanket impl gives it to every sqlx
//! connection whose database can do that, so sqlx's bounds are spelt out
//! once, here, and the shared reads ([`crate::read`]) and writes
//! ([`crate::write`]) say only `C: Conn`.

use std::future::Future;
use std::pin::Pin;

use sqlx::types::Json;
use sqlx::{Connection, Database, Encode, Executor, FromRow, IntoArguments, Type};

use crate::StoreError;
use crate::rows::{
    AccountKeyRow, AccountRow, AccuracyRow, ActionRow, BoardRow, FormRow, HandRow, HistoryRow,
    LastMatchRow, ListedRow, MatchRow, ModerationRow, PageRow, PointRow, RatingRow, ReportRow,
    RoleRow, SeatRow, SessionRow, StatsHandRow, StatsSeatRow, TableRecordRow, TableRow,
};

/// A failure to read: a column that does not decode means the stored data is
/// not what this code wrote, which is corruption, not a database outage.
fn read_error(error: sqlx::Error) -> StoreError {
    match error {
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) => {
            StoreError::Corrupt(error.to_string())
        }
        other => StoreError::Database(other),
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A value bound to a statement's placeholder: the few kinds the shared
/// statements bind.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    Text(Option<&'a str>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(Option<bool>),
    /// JSON (`JSONB` in PostgreSQL, text in SQLite).
    Json(Option<&'a serde_json::Value>),
}

/// A row that decodes into `T`: `T: FromRow` turned around, so that a bound
/// on the row type (see [`Conn::Row`]) can name every row type at once.
pub(crate) trait Decodes<T> {
    fn decode(&self) -> Result<T, StoreError>;
}

impl<R: sqlx::Row, T: for<'r> FromRow<'r, R>> Decodes<T> for R {
    fn decode(&self) -> Result<T, StoreError> {
        T::from_row(self).map_err(read_error)
    }
}

/// A row of either backend: it decodes into every row type the shared reads
/// use. Said once here; each backend's row type states it (below), and the
/// compiler checks it has every one.
pub(crate) trait StoreRow:
    Decodes<MatchRow>
    + Decodes<SeatRow>
    + Decodes<HandRow>
    + Decodes<ActionRow>
    + Decodes<TableRow>
    + Decodes<TableRecordRow>
    + Decodes<LastMatchRow>
    + Decodes<PageRow>
    + Decodes<StatsSeatRow>
    + Decodes<StatsHandRow>
    + Decodes<AccountRow>
    + Decodes<AccountKeyRow>
    + Decodes<SessionRow>
    + Decodes<RatingRow>
    + Decodes<HistoryRow>
    + Decodes<BoardRow>
    + Decodes<FormRow>
    + Decodes<PointRow>
    + Decodes<AccuracyRow>
    + Decodes<RoleRow>
    + Decodes<ModerationRow>
    + Decodes<ListedRow>
    + Decodes<ReportRow>
    + Decodes<crate::tournaments::TournamentRow>
    + Decodes<crate::puzzles::PuzzleRow>
    + Decodes<crate::puzzles::PuzzleRatingRow>
    + Decodes<crate::puzzles::AttemptRow>
    + Decodes<(f64, f64, f64)>
    + Decodes<(String,)>
    + Decodes<(i64,)>
    + Decodes<(String,)>
    + Decodes<(String, String)>
    + Decodes<(String, Option<String>)>
    + Decodes<(String,)>
    + Decodes<(String, i64)>
    + Decodes<(String, Option<i64>)>
    + Decodes<(i64, i64, String, String)>
{
}

impl StoreRow for sqlx::postgres::PgRow {}
impl StoreRow for sqlx::sqlite::SqliteRow {}

/// A connection the shared statements run on: PostgreSQL's or SQLite's.
pub(crate) trait Conn: Send {
    /// A row as fetched, which decodes into any of the reads' row types.
    type Row: Send + StoreRow;

    fn fetch_all<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<Vec<Self::Row>, StoreError>>;

    fn execute<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<(), StoreError>>;
}

impl<C, DB> Conn for C
where
    C: Connection<Database = DB>,
    DB: Database,
    for<'c> &'c mut C: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'t> Option<&'t str>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<i64>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<f64>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<bool>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<Json<&'t serde_json::Value>>: Encode<'t, DB> + Type<DB>,
    DB::Row: StoreRow,
{
    type Row = DB::Row;

    fn fetch_all<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<Vec<DB::Row>, StoreError>> {
        let rows = bind(sqlx::query::<DB>(statement), params).fetch_all(self);
        Box::pin(async move { rows.await.map_err(read_error) })
    }

    fn execute<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<(), StoreError>> {
        let done = bind(sqlx::query::<DB>(statement), params).execute(self);
        Box::pin(async move {
            done.await?;
            Ok(())
        })
    }
}

fn bind<'q, DB>(
    mut query: sqlx::query::Query<'q, DB, DB::Arguments>,
    params: &[Param<'_>],
) -> sqlx::query::Query<'q, DB, DB::Arguments>
where
    DB: Database,
    for<'t> Option<&'t str>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<i64>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<f64>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<bool>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<Json<&'t serde_json::Value>>: Encode<'t, DB> + Type<DB>,
{
    for param in params {
        query = match *param {
            Param::Text(value) => query.bind(value),
            Param::Int(value) => query.bind(value),
            Param::Float(value) => query.bind(value),
            Param::Bool(value) => query.bind(value),
            Param::Json(value) => query.bind(value.map(Json)),
        };
    }
    query
}
