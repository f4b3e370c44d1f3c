//! The writes both backends make alike, one statement or two each, written
//! once over [`Conn`]. Each backend writes the rest its own way: the hands,
//! actions and hand ends that come by the hundred, in bulk, and a match's
//! seats.

use euchre_engine::GameResult;

use crate::conn::{Conn, Param};
use crate::sql;
use crate::{StoreError, Write};

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

/// Applies `write` if it is one of the shared kinds (for `MatchStarted`, the
/// match's row: the caller adds its seats); returns whether it was.
pub(crate) async fn apply_shared<C: Conn>(conn: &mut C, write: &Write) -> Result<bool, StoreError> {
    let int = |value: i64| Param::Int(Some(value));
    match write {
        Write::Player { id, name, token_hash, at } => {
            let params = [text(id), text(name), text(token_hash), int(*at)];
            conn.execute(sql::UPSERT_PLAYER, &params).await?;
        }
        Write::TableOpened { id, host_id, settings, invite, at } => {
            let params = [
                text(id),
                text(host_id),
                Param::Json(Some(settings)),
                Param::Text(invite.as_deref()),
                int(*at),
            ];
            conn.execute(sql::INSERT_TABLE, &params).await?;
        }
        Write::TableSeats { id, seats } => {
            conn.execute(sql::UPDATE_TABLE_SEATS, &[text(id), Param::Json(Some(seats))]).await?;
        }
        Write::TableClosed { id, at } => {
            conn.execute(sql::CLOSE_TABLE, &[text(id), int(*at)]).await?;
        }
        Write::TableAbandoned { id, reason, unfinished, at } => {
            conn.execute(sql::CLOSE_REASON, &[text(id), text(reason.as_str())]).await?;
            if let Some(match_id) = unfinished {
                let params = [text(match_id), int(*at), text(reason.as_str())];
                conn.execute(sql::ABANDON_MATCH, &params).await?;
            }
        }
        Write::MatchStarted { id, table_id, number, rules, seed, start, at, .. } => {
            let (rules, start) = (serde_json::to_value(rules)?, serde_json::to_value(start)?);
            let seed = seed.to_string();
            let params = [
                text(id),
                text(table_id),
                int(i64::from(*number)),
                Param::Json(Some(&rules)),
                text(&seed),
                Param::Json(Some(&start)),
                int(*at),
            ];
            conn.execute(sql::INSERT_MATCH, &params).await?;
        }
        Write::MatchEnded { match_id, scores, winner, at, games } => {
            end_match(conn, match_id, scores, *winner, *at, games).await?;
        }
        Write::Forfeited { match_id, seat, at } => {
            let params = [text(match_id), int(i64::from(*seat)), int(*at)];
            conn.execute(sql::FORFEIT_SEAT, &params).await?;
        }
        Write::HandDealt { .. } | Write::Action { .. } | Write::HandEnded { .. } => {
            return Ok(false);
        }
    }
    Ok(true)
}

async fn end_match<C: Conn>(
    conn: &mut C,
    match_id: &str,
    scores: &[u16],
    winner: Option<u8>,
    at: i64,
    games: &[GameResult],
) -> Result<(), StoreError> {
    let games = (!games.is_empty()).then(|| serde_json::to_value(games)).transpose()?;
    let params = [Param::Text(Some(match_id)), Param::Int(Some(at)), Param::Json(games.as_ref())];
    conn.execute(sql::END_MATCH, &params).await?;
    let [score0, score1, score2] = sql::final_scores(scores);
    let params = [
        Param::Text(Some(match_id)),
        Param::Int(score0),
        Param::Int(score1),
        Param::Int(score2),
        Param::Int(winner.map(i64::from)),
    ];
    conn.execute(sql::END_MATCH_SEATS, &params).await
}
