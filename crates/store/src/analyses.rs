//! Finished matches' analyses (`euchre-analysis`), written once for both
//! backends over [`Conn`]: computed once, kept as the JSON it was written
//! as, so a second read costs a lookup.

use crate::conn::{Conn, Decodes, Param};
use crate::{Millis, StoreError};

const ANALYSIS_OF_MATCH: &str = "SELECT match_id, analysis FROM match_analyses WHERE match_id = $1";

/// The first analysis saved stays: analyses of one record are alike, and
/// a reader must never see one change.
const INSERT_ANALYSIS: &str = "\
    INSERT INTO match_analyses (match_id, analysis, created_at) VALUES ($1, $2, $3) \
    ON CONFLICT (match_id) DO NOTHING";

pub(crate) async fn match_analysis<C: Conn>(
    conn: &mut C,
    match_id: &str,
) -> Result<Option<String>, StoreError> {
    let rows = conn.fetch_all(ANALYSIS_OF_MATCH, &[Param::Text(Some(match_id))]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let (_, analysis): (String, String) = row.decode()?;
    Ok(Some(analysis))
}

pub(crate) async fn save_match_analysis<C: Conn>(
    conn: &mut C,
    match_id: &str,
    analysis: &str,
    at: Millis,
) -> Result<(), StoreError> {
    let params = [Param::Text(Some(match_id)), Param::Text(Some(analysis)), Param::Int(Some(at))];
    conn.execute(INSERT_ANALYSIS, &params).await
}
