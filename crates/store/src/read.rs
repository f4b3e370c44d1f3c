//! The store's reads, written once for both backends over [`Conn`]. Each
//! backend opens the transaction (their isolation levels differ) and calls
//! these.

use crate::conn::{Conn, Decodes, Param};
use crate::rows::{LastMatchRow, MatchRow, TableRecordRow, TableRow};
use crate::sql;
use crate::{
    LiveMatch, LiveTable, MatchDetail, MatchPage, MatchQuery, PlayerRow, PlayerStats, StoreError,
    TableRecord, UnreadableTable,
};

/// Runs `statement` and decodes every row as `T`.
async fn fetch<C: Conn, T>(
    conn: &mut C,
    statement: &'static str,
    params: &[Param<'_>],
) -> Result<Vec<T>, StoreError>
where
    C::Row: Decodes<T>,
{
    conn.fetch_all(statement, params).await?.iter().map(Decodes::decode).collect()
}

pub(crate) async fn player_by_token_hash<C: Conn>(
    conn: &mut C,
    token_hash: &str,
) -> Result<Option<PlayerRow>, StoreError> {
    let rows: Vec<(String, String)> =
        fetch(conn, sql::PLAYER_BY_TOKEN_HASH, &[Param::Text(Some(token_hash))]).await?;
    Ok(rows.into_iter().next().map(sql::player_row))
}

/// A match in full, and the largest event seq among its actions.
pub(crate) async fn load_match<C: Conn>(
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
    let summary = sql::match_summary(&row, seats)?;
    let (record, last_seq) = sql::match_record(&row, hands)?;
    Ok(Some((MatchDetail { summary, record }, last_seq)))
}

/// Open tables, with their games in progress replayed to where they stopped;
/// a table that cannot be read is reported, and does not hide the others.
pub(crate) async fn live_tables<C: Conn>(
    conn: &mut C,
) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
    let rows = conn.fetch_all(sql::LIVE_TABLES, &[]).await?;
    let mut live = Vec::with_capacity(rows.len());
    for row in rows {
        let table: TableRow = match Decodes::decode(&row) {
            Ok(table) => table,
            Err(StoreError::Corrupt(error)) => {
                // Its first two columns, the id and the live match, are plain
                // text: they decode when its JSON does not.
                let (id, unfinished): (String, Option<String>) = Decodes::decode(&row)?;
                live.push(Err(UnreadableTable { id, unfinished, error }));
                continue;
            }
            Err(error) => return Err(error),
        };
        let (id, unfinished) = (table.id.clone(), table.live_match.clone());
        match live_table(conn, table).await {
            Ok(table) => live.push(Ok(table)),
            Err(StoreError::Corrupt(error)) => {
                live.push(Err(UnreadableTable { id, unfinished, error }));
            }
            Err(error) => return Err(error),
        }
    }
    Ok(live)
}

/// One open table, with its latest game replayed (in progress, or over and
/// awaiting a rematch).
async fn live_table<C: Conn>(conn: &mut C, table: TableRow) -> Result<LiveTable, StoreError> {
    let game = match &table.last_match {
        None => None,
        Some(id) => {
            let (detail, last_seq) = load_match(conn, id)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("live match {id} vanished")))?;
            let forfeits: Vec<(i64,)> =
                fetch(conn, sql::FORFEITS_OF_MATCH, &[Param::Text(Some(id))]).await?;
            let latest = LiveMatch {
                id: detail.summary.id,
                number: detail.summary.number,
                record: detail.record,
                last_seq,
                seats: detail.summary.seats,
                forfeits: forfeits.into_iter().map(|(seat,)| seat as u8).collect(),
            };
            sql::latest_game(latest, table.live_match.is_none())
        }
    };
    Ok(sql::live_table(table, game))
}

/// A table, open or closed, with its latest match.
pub(crate) async fn table_record<C: Conn>(
    conn: &mut C,
    id: &str,
) -> Result<Option<TableRecord>, StoreError> {
    let by_id = [Param::Text(Some(id))];
    let rows: Vec<TableRecordRow> = fetch(conn, sql::TABLE_BY_ID, &by_id).await?;
    let Some(row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let last: Vec<LastMatchRow> = fetch(conn, sql::LAST_MATCH_OF_TABLE, &by_id).await?;
    sql::table_record(row, last.into_iter().next()).map(Some)
}

/// Marks abandoned the unfinished matches of closed tables; how many.
pub(crate) async fn abandon_orphaned_matches<C: Conn>(conn: &mut C) -> Result<u64, StoreError> {
    let marked: Vec<(i64,)> = fetch(conn, sql::ABANDON_ORPHANED_MATCHES, &[]).await?;
    Ok(marked.len() as u64)
}

pub(crate) async fn list_matches<C: Conn>(
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
        Param::Bool(Some(query.hide_private_in_play)),
    ];
    let rows = fetch(conn, sql::LIST_MATCHES, &params).await?;
    sql::match_page(rows, limit)
}

pub(crate) async fn player_stats<C: Conn>(
    conn: &mut C,
    player_id: &str,
) -> Result<PlayerStats, StoreError> {
    let by_id = [Param::Text(Some(player_id))];
    let players: Vec<(String, String)> = fetch(conn, sql::PLAYER_BY_ID, &by_id).await?;
    let seats = fetch(conn, sql::STATS_SEATS, &by_id).await?;
    let hands = fetch(conn, sql::STATS_HANDS, &by_id).await?;
    let time: Vec<(i64,)> = fetch(conn, sql::TIME_PLAYED, &by_id).await?;
    let player = players.into_iter().next().map(sql::player_row);
    let mut stats = sql::player_stats(player_id, player, seats, hands)?;
    stats.time_played_ms = time.first().map_or(0, |(ms,)| *ms);
    Ok(stats)
}
