//! The store's reads, written once for both backends.
//!
//! Each read is a function over [`Reader`], a connection that runs one of
//! [`crate::sql`]'s statements with bound [`Param`]s and hands back rows that
//! decode into [`crate::sql`]'s row types. One blanket impl gives every sqlx
//! connection whose database can do that the trait, so sqlx's bounds are
//! spelt out once, there, and a read says only `C: Reader`. Each backend
//! opens the transaction (their isolation levels differ) and calls these.

use std::future::Future;
use std::pin::Pin;

use sqlx::{Connection, Database, Encode, Executor, FromRow, IntoArguments, Type};

use crate::sql::{
    self, ActionRow, HandRow, MatchRow, PageRow, SeatRow, StatsHandRow, StatsSeatRow, TableRow,
    read_error,
};
use crate::{
    LiveMatch, LiveTable, MatchDetail, MatchPage, MatchQuery, PlayerRow, PlayerStats, StoreError,
};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A value bound to a statement's placeholder: the few kinds the reads bind.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    Text(Option<&'a str>),
    Int(Option<i64>),
    Bool(Option<bool>),
}

/// A row that decodes into `T`: `T: FromRow` turned around, so that a bound
/// on the row type (see [`Reader::Row`]) can name every row type at once.
pub(crate) trait Decodes<T> {
    fn decode(&self) -> Result<T, StoreError>;
}

impl<R: sqlx::Row, T: for<'r> FromRow<'r, R>> Decodes<T> for R {
    fn decode(&self) -> Result<T, StoreError> {
        T::from_row(self).map_err(read_error)
    }
}

/// A connection the reads run on: PostgreSQL's or SQLite's.
pub(crate) trait Reader: Send {
    /// A row as fetched, which decodes into any of the reads' row types.
    type Row: Send
        + Decodes<MatchRow>
        + Decodes<SeatRow>
        + Decodes<HandRow>
        + Decodes<ActionRow>
        + Decodes<TableRow>
        + Decodes<PageRow>
        + Decodes<StatsSeatRow>
        + Decodes<StatsHandRow>
        + Decodes<(String, String)>;

    fn fetch_all<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<Vec<Self::Row>, StoreError>>;
}

impl<C, DB> Reader for C
where
    C: Connection<Database = DB>,
    DB: Database,
    for<'c> &'c mut C: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'t> Option<&'t str>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<i64>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<bool>: Encode<'t, DB> + Type<DB>,
    DB::Row: Decodes<MatchRow>
        + Decodes<SeatRow>
        + Decodes<HandRow>
        + Decodes<ActionRow>
        + Decodes<TableRow>
        + Decodes<PageRow>
        + Decodes<StatsSeatRow>
        + Decodes<StatsHandRow>
        + Decodes<(String, String)>,
{
    type Row = DB::Row;

    fn fetch_all<'e>(
        &'e mut self,
        statement: &'static str,
        params: &'e [Param<'e>],
    ) -> BoxFuture<'e, Result<Vec<DB::Row>, StoreError>> {
        let mut query = sqlx::query::<DB>(statement);
        for param in params {
            query = match *param {
                Param::Text(value) => query.bind(value),
                Param::Int(value) => query.bind(value),
                Param::Bool(value) => query.bind(value),
            };
        }
        let rows = query.fetch_all(self);
        Box::pin(async move { rows.await.map_err(read_error) })
    }
}

/// Runs `statement` and decodes every row as `T`.
async fn fetch<C: Reader, T>(
    conn: &mut C,
    statement: &'static str,
    params: &[Param<'_>],
) -> Result<Vec<T>, StoreError>
where
    C::Row: Decodes<T>,
{
    conn.fetch_all(statement, params).await?.iter().map(Decodes::decode).collect()
}

pub(crate) async fn player_by_token_hash<C: Reader>(
    conn: &mut C,
    token_hash: &str,
) -> Result<Option<PlayerRow>, StoreError> {
    let rows: Vec<(String, String)> =
        fetch(conn, sql::PLAYER_BY_TOKEN_HASH, &[Param::Text(Some(token_hash))]).await?;
    Ok(rows.into_iter().next().map(sql::player_row))
}

/// A match in full, and the largest event seq among its actions.
pub(crate) async fn load_match<C: Reader>(
    conn: &mut C,
    id: &str,
) -> Result<Option<(MatchDetail, u64)>, StoreError> {
    let by_id = [Param::Text(Some(id))];
    let rows: Vec<MatchRow> = fetch(conn, sql::MATCH_BY_ID, &by_id).await?;
    let Some(row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let seats = fetch(conn, sql::SEATS_OF_MATCH, &by_id).await?;
    let hands = fetch(conn, sql::HANDS_OF_MATCH, &by_id).await?;
    let actions = fetch(conn, sql::ACTIONS_OF_MATCH, &by_id).await?;
    let summary = sql::match_summary(&row, seats)?;
    let (record, last_seq) = sql::match_record(&row, hands, actions)?;
    Ok(Some((MatchDetail { summary, record }, last_seq)))
}

/// Open tables, with their games in progress replayed to where they stopped.
pub(crate) async fn live_tables<C: Reader>(conn: &mut C) -> Result<Vec<LiveTable>, StoreError> {
    let tables: Vec<TableRow> = fetch(conn, sql::LIVE_TABLES, &[]).await?;
    let mut live = Vec::with_capacity(tables.len());
    for table in tables {
        let game = match &table.live_match {
            None => None,
            Some(id) => {
                let (detail, last_seq) = load_match(conn, id)
                    .await?
                    .ok_or_else(|| StoreError::Corrupt(format!("live match {id} vanished")))?;
                Some(LiveMatch {
                    id: detail.summary.id,
                    number: detail.summary.number,
                    record: detail.record,
                    last_seq,
                })
            }
        };
        live.push(sql::live_table(table, game)?);
    }
    Ok(live)
}

pub(crate) async fn list_matches<C: Reader>(
    conn: &mut C,
    query: &MatchQuery,
) -> Result<MatchPage, StoreError> {
    let limit = sql::page_limit(query);
    let params = [
        Param::Text(query.player.as_deref()),
        Param::Bool(query.won),
        Param::Int(query.since),
        Param::Int(query.until),
        Param::Bool(Some(query.finished)),
        Param::Int(query.after.as_ref().map(|cursor| cursor.started_at)),
        Param::Text(query.after.as_ref().map(|cursor| cursor.id.as_str())),
        // One more than asked, to know whether another page follows.
        Param::Int(Some(limit as i64 + 1)),
    ];
    let rows = fetch(conn, sql::LIST_MATCHES, &params).await?;
    sql::match_page(rows, limit)
}

pub(crate) async fn player_stats<C: Reader>(
    conn: &mut C,
    player_id: &str,
) -> Result<PlayerStats, StoreError> {
    let by_id = [Param::Text(Some(player_id))];
    let players: Vec<(String, String)> = fetch(conn, sql::PLAYER_BY_ID, &by_id).await?;
    let seats = fetch(conn, sql::STATS_SEATS, &by_id).await?;
    let hands = fetch(conn, sql::STATS_HANDS, &by_id).await?;
    let player = players.into_iter().next().map(sql::player_row);
    sql::player_stats(player_id, player, seats, hands)
}
