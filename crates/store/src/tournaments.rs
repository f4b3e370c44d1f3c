//! Tournaments as stored (migration 0020), written once for both backends:
//! one row each, its whole state a JSON document that the server's director
//! alone writes, beside the columns the lists filter and sort on.

use serde::{Deserialize, Serialize};
use sqlx::types::Json;

use crate::conn::{Conn, Decodes, Param};
use crate::{Millis, StoreError};

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredTournament {
    pub id: String,
    /// `registering`, `running`, `finished` or `cancelled`.
    pub status: String,
    pub starts_at: Millis,
    /// In the public list (false: by invite).
    pub listed: bool,
    /// Grows with every save: an older one never replaces a newer one.
    pub version: i64,
    /// Everything else, as the server writes it.
    pub doc: serde_json::Value,
}

/// A row of the reads below.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TournamentRow {
    id: String,
    status: String,
    starts_at: i64,
    listed: bool,
    version: i64,
    doc: Json<serde_json::Value>,
}

impl From<TournamentRow> for StoredTournament {
    fn from(row: TournamentRow) -> StoredTournament {
        let TournamentRow { id, status, starts_at, listed, version, doc } = row;
        StoredTournament { id, status, starts_at, listed, version, doc: doc.0 }
    }
}

const SAVE: &str = "\
    INSERT INTO tournaments (id, status, starts_at, listed, version, doc, updated_at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7) \
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, starts_at = excluded.starts_at, \
        listed = excluded.listed, version = excluded.version, doc = excluded.doc, \
        updated_at = excluded.updated_at \
    WHERE tournaments.version < excluded.version";

const UNFINISHED: &str = "\
    SELECT id, status, starts_at, listed, version, doc FROM tournaments \
    WHERE status IN ('registering', 'running') ORDER BY starts_at, id";

const ONE: &str =
    "SELECT id, status, starts_at, listed, version, doc FROM tournaments WHERE id = $1";

const LISTED: &str = "\
    SELECT id, status, starts_at, listed, version, doc FROM tournaments \
    WHERE listed ORDER BY starts_at DESC, id DESC LIMIT $1";

/// Saves `tournament` unless a later version of it is stored already.
pub(crate) async fn save<C: Conn>(
    conn: &mut C,
    tournament: &StoredTournament,
    at: Millis,
) -> Result<(), StoreError> {
    let params = [
        Param::Text(Some(&tournament.id)),
        Param::Text(Some(&tournament.status)),
        Param::Int(Some(tournament.starts_at)),
        Param::Bool(Some(tournament.listed)),
        Param::Int(Some(tournament.version)),
        Param::Json(Some(&tournament.doc)),
        Param::Int(Some(at)),
    ];
    conn.execute(SAVE, &params).await
}

/// The tournaments not over: registering or running, soonest first.
pub(crate) async fn unfinished<C: Conn>(conn: &mut C) -> Result<Vec<StoredTournament>, StoreError> {
    read(conn, UNFINISHED, &[]).await
}

/// One tournament.
pub(crate) async fn one<C: Conn>(
    conn: &mut C,
    id: &str,
) -> Result<Option<StoredTournament>, StoreError> {
    Ok(read(conn, ONE, &[Param::Text(Some(id))]).await?.into_iter().next())
}

/// The listed tournaments, latest start first, at most `limit`.
pub(crate) async fn listed<C: Conn>(
    conn: &mut C,
    limit: u32,
) -> Result<Vec<StoredTournament>, StoreError> {
    read(conn, LISTED, &[Param::Int(Some(i64::from(limit)))]).await
}

async fn read<C: Conn>(
    conn: &mut C,
    query: &'static str,
    params: &[Param<'_>],
) -> Result<Vec<StoredTournament>, StoreError> {
    let rows = conn.fetch_all(query, params).await?;
    rows.iter()
        .map(|row| Decodes::<TournamentRow>::decode(row).map(StoredTournament::from))
        .collect()
}
