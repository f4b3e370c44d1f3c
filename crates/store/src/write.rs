//! The writes both backends make alike, one statement or two each, written
//! once over [`Conn`]. Each backend writes the rest its own way: the hands,
//! actions and hand ends that come by the hundred, in bulk, and a match's
//! seats.

use euchre_engine::{Action, Deal, GameResult, HandOutcome, MAX_TEAMS, Seal};

use crate::conn::{Conn, Param};
use crate::sql::{self, to_db_u64};
use crate::{Millis, StoreError, Write};

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

/// A hand dealt, held back for [`Held`].
pub(crate) struct HandRow<'w> {
    pub match_id: &'w str,
    pub number: u32,
    pub deal: Deal,
    pub seal: Option<Seal>,
}

/// An action, held back for [`Held`].
pub(crate) struct ActionRow<'w> {
    pub match_id: &'w str,
    pub hand: u32,
    pub index: u32,
    pub seat: u8,
    pub action: Action,
    pub seq: i64,
    pub at: Millis,
}

/// A hand ended, held back for [`Held`], with each side's points as
/// [`sql::hand_points`] gives them.
pub(crate) struct EndRow<'w> {
    pub match_id: &'w str,
    pub number: u32,
    pub outcome: HandOutcome,
    pub at: Millis,
    pub points: [i64; MAX_TEAMS],
}

/// The writes of a batch that come by the hundred (hands dealt, actions,
/// hands ended), and its match ends, held back so that each backend applies
/// them kind by kind in bulk rather than one statement each.
///
/// Kind by kind rather than in journal order gives the same result when
/// applied in the order of the fields: hands before the actions and ends
/// that belong to them, hand ends (which add to a match's score) before
/// match ends (which set it), and every kind in its own order. Nothing held
/// back depends on a later write of another kind, and the matches they all
/// belong to are written, in journal order, before.
#[derive(Default)]
pub(crate) struct Held<'w> {
    pub hands: Vec<HandRow<'w>>,
    pub actions: Vec<ActionRow<'w>>,
    pub ends: Vec<EndRow<'w>>,
    pub match_ends: Vec<&'w Write>,
}

impl<'w> Held<'w> {
    /// Holds `write` back if it is of a kind applied in bulk.
    pub fn hold(&mut self, write: &'w Write) -> bool {
        match write {
            Write::HandDealt { match_id, number, deal, seal } => {
                self.hands.push(HandRow { match_id, number: *number, deal: *deal, seal: *seal });
            }
            Write::Action { match_id, hand, index, seat, action, seq, at } => {
                self.actions.push(ActionRow {
                    match_id,
                    hand: *hand,
                    index: *index,
                    seat: *seat,
                    action: *action,
                    seq: to_db_u64(*seq),
                    at: *at,
                });
            }
            Write::HandEnded { match_id, number, outcome, at } => {
                let points = sql::hand_points(outcome);
                self.ends.push(EndRow {
                    match_id,
                    number: *number,
                    outcome: *outcome,
                    at: *at,
                    points,
                });
            }
            Write::MatchEnded { .. } => self.match_ends.push(write),
            _ => return false,
        }
        true
    }
}
