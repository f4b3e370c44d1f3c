//! Finished matches' analyses (`euchre-analysis`), written once for both
//! backends over [`Conn`]: computed once, kept as the JSON it was written
//! as, so a second read costs a lookup; and each player's figures from it,
//! for the profile's recent averages by form.

use crate::conn::{Conn, Decodes, Param};
use crate::rows::AccuracyRow;
use crate::{FormAccuracy, SavedAnalysis, StoreError};

const ANALYSIS_OF_MATCH: &str = "SELECT match_id, analysis FROM match_analyses WHERE match_id = $1";

/// The first analysis saved stays: analyses of one record are alike, and
/// a reader must never see one change. A row back when this one is new.
const INSERT_ANALYSIS: &str = "\
    INSERT INTO match_analyses (match_id, analysis, created_at) VALUES ($1, $2, $3) \
    ON CONFLICT (match_id) DO NOTHING RETURNING match_id";

/// One seat's figures, for the player who sat there (none for a bot or an
/// imported name), dated by the match's end.
const INSERT_SEAT_ACCURACY: &str = "\
    INSERT INTO seat_accuracy \
        (match_id, seat, player_id, form, decisions, within_tolerance, points_lost, ended_at) \
    SELECT s.match_id, s.seat, s.player_id, $3, $4, $5, $6, COALESCE(m.ended_at, $7) \
    FROM match_seats s JOIN matches m ON m.id = s.match_id \
    WHERE s.match_id = $1 AND s.seat = $2 AND s.player_id IS NOT NULL \
    ON CONFLICT (match_id, seat) DO NOTHING";

/// The player's latest `$2` analysed matches in each form (with at least
/// one decision), averaged: accuracy over all their decisions together,
/// points lost per match. (PostgreSQL sums BIGINTs as NUMERIC: cast back.)
const RECENT_ACCURACY: &str = "\
    SELECT form, COUNT(*) AS matches, CAST(SUM(decisions) AS BIGINT) AS decisions, \
        CAST(SUM(within_tolerance) AS BIGINT) AS within_tolerance, AVG(points_lost) AS points_lost \
    FROM (SELECT form, decisions, within_tolerance, points_lost, \
            ROW_NUMBER() OVER (PARTITION BY form ORDER BY ended_at DESC, match_id DESC) AS recent \
          FROM seat_accuracy WHERE player_id = $1 AND decisions > 0) latest \
    WHERE recent <= $2 GROUP BY form ORDER BY form";

pub(crate) async fn match_analysis<C: Conn>(
    conn: &mut C,
    match_id: &str,
) -> Result<Option<String>, StoreError> {
    let rows = conn.fetch_all(ANALYSIS_OF_MATCH, &[Param::Text(Some(match_id))]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let (_, analysis): (String, String) = row.decode()?;
    Ok(Some(analysis))
}

/// Saves the analysis and its seats' figures, or nothing if it was saved
/// before; the backend opens the transaction, so a profile never counts an
/// analysis that is not stored.
pub(crate) async fn save_match_analysis<C: Conn>(
    conn: &mut C,
    saved: &SavedAnalysis<'_>,
) -> Result<(), StoreError> {
    let id = Param::Text(Some(saved.match_id));
    let params = [id, Param::Text(Some(saved.analysis)), Param::Int(Some(saved.at))];
    if conn.fetch_all(INSERT_ANALYSIS, &params).await?.is_empty() {
        return Ok(()); // saved before, with its figures
    }
    for seat in saved.seats {
        let params = [
            id,
            Param::Int(Some(i64::from(seat.seat))),
            Param::Text(Some(saved.form)),
            Param::Int(Some(i64::from(seat.decisions))),
            Param::Int(Some(i64::from(seat.within_tolerance))),
            Param::Float(Some(seat.points_lost)),
            Param::Int(Some(saved.at)),
        ];
        conn.execute(INSERT_SEAT_ACCURACY, &params).await?;
    }
    Ok(())
}

pub(crate) async fn recent_accuracy<C: Conn>(
    conn: &mut C,
    player_id: &str,
    matches: u32,
) -> Result<Vec<FormAccuracy>, StoreError> {
    let params = [Param::Text(Some(player_id)), Param::Int(Some(i64::from(matches)))];
    let rows = conn.fetch_all(RECENT_ACCURACY, &params).await?;
    rows.iter()
        .map(|row| {
            let row: AccuracyRow = row.decode()?;
            let count = |value: i64| u32::try_from(value).unwrap_or(u32::MAX);
            Ok(FormAccuracy {
                form: row.form,
                matches: count(row.matches),
                decisions: count(row.decisions),
                accuracy: row.within_tolerance as f64 / row.decisions.max(1) as f64,
                points_lost: row.points_lost,
            })
        })
        .collect()
}
