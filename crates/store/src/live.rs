//! A table's writes folded into what restoring it needs: the same
//! [`LiveTable`] the database gives ([`Store::live_tables`](crate::Store)),
//! from the writes alone. A cluster node rebuilds the tables of a shard it
//! takes over this way, from the shard's log.

use euchre_engine::{GameRecord, HandRecord, PerTeam, Seat, SeatAction};

use crate::{LiveMatch, LiveTable, StoreError, TableHost, Write, sql};

/// The table `writes` describe, in the order they were made, if it is still
/// open. The writes keep only a host's id: a player host's name is `None`
/// here, for the caller to find.
pub fn live_table(writes: &[Write]) -> Result<Option<LiveTable>, StoreError> {
    let mut table: Option<LiveTable> = None;
    // The latest match: its id, number, record, last seq, and whether it ended.
    let mut current: Option<(LiveMatch, bool)> = None;
    let corrupt = |what: String| StoreError::Corrupt(what);
    for write in writes {
        match write {
            Write::TableOpened { id, host_id, settings, invite, .. } => {
                table = Some(LiveTable {
                    id: id.clone(),
                    host: TableHost::stored(host_id.clone(), None),
                    settings: settings.clone(),
                    invite: invite.clone(),
                    seats: serde_json::Value::Null,
                    game: None,
                });
            }
            Write::TableSeats { seats, .. } => {
                let table =
                    table.as_mut().ok_or_else(|| corrupt("seats before the table".into()))?;
                table.seats = seats.clone();
            }
            Write::TableClosed { .. } => return Ok(None),
            Write::MatchStarted { id, number, rules, seed, start, seats, .. } => {
                let record = GameRecord {
                    rules: *rules,
                    seed: *seed,
                    start: start.clone(),
                    hands: Vec::new(),
                    scores: PerTeam::new(rules.teams()),
                    winner: None,
                    games: Vec::new(),
                };
                let live = LiveMatch {
                    id: id.clone(),
                    number: *number,
                    record,
                    last_seq: 0,
                    seats: seats.clone(),
                    forfeits: Vec::new(),
                };
                current = Some((live, false));
            }
            Write::HandDealt { match_id, number, deal, seal } => {
                let live = this_match(&mut current, match_id)?;
                if *number as usize != live.record.hands.len() {
                    return Err(corrupt(format!("match {match_id}: hand {number} out of order")));
                }
                live.record.hands.push(HandRecord {
                    deal: *deal,
                    actions: Vec::new(),
                    outcome: None,
                    seal: *seal,
                });
            }
            Write::Action { match_id, hand, index, seat, action, seq, .. } => {
                let live = this_match(&mut current, match_id)?;
                let record = live.record.hands.get_mut(*hand as usize);
                let record = record.filter(|record| record.actions.len() == *index as usize);
                let record = record.ok_or_else(|| {
                    corrupt(format!("match {match_id}: action {hand}/{index} out of order"))
                })?;
                record.actions.push(SeatAction { seat: Seat(*seat), action: *action });
                live.last_seq = live.last_seq.max(*seq);
            }
            Write::HandEnded { match_id, number, outcome, .. } => {
                let live = this_match(&mut current, match_id)?;
                if let Some(hand) = live.record.hands.get_mut(*number as usize) {
                    hand.outcome = Some(*outcome);
                }
            }
            Write::MatchEnded { match_id, .. } => {
                this_match(&mut current, match_id)?;
                if let Some((_, ended)) = &mut current {
                    *ended = true;
                }
            }
            Write::MatchRules { match_id, rules } => {
                this_match(&mut current, match_id)?.record.rules = *rules;
            }
            Write::Forfeited { match_id, seat, .. } => {
                let live = this_match(&mut current, match_id)?;
                if !live.forfeits.contains(seat) {
                    live.forfeits.push(*seat);
                    live.forfeits.sort_unstable();
                }
            }
            Write::Player { .. }
            | Write::TableAbandoned { .. }
            | Write::StandIn { .. }
            | Write::Tournament { .. } => {}
        }
    }
    let Some(mut table) = table else { return Ok(None) };
    // The latest game, in progress or over (the table awaits a rematch).
    if let Some((mut live, ended)) = current {
        sql::settle(&mut live.record, &live.id)?;
        table.game = sql::latest_game(live, ended);
    }
    Ok(Some(table))
}

/// The current match, which `match_id` must be.
fn this_match<'a>(
    current: &'a mut Option<(LiveMatch, bool)>,
    match_id: &str,
) -> Result<&'a mut LiveMatch, StoreError> {
    match current {
        Some((live, _)) if live.id == match_id => Ok(live),
        _ => Err(StoreError::Corrupt(format!(
            "a write of match {match_id}, which is not the table's current match"
        ))),
    }
}
