//! A batch of writes, applied in one transaction: most kinds one statement
//! or two each, written once over [`Conn`]; the hands, actions and hand
//! ends that come by the hundred, and a match's seats, by the
//! [`Backend`]'s bulk statements.

use std::collections::HashMap;

use euchre_engine::{Action, Deal, GameResult, HandOutcome, MAX_TEAMS, Seal};

use crate::backend::Backend;
use crate::conn::{Conn, Param};
use crate::plays;
use crate::sql::{self, to_db_u64};
use crate::tournaments;
use crate::{Millis, StoreError, Write};

/// Applies `writes` in order, with the same result as one at a time: the
/// kinds [`Held`] holds back go in bulk at the end.
pub(crate) async fn apply<DB: Backend>(
    conn: &mut DB::Connection,
    writes: &[Write],
) -> Result<(), StoreError> {
    let mut held = Held::default();
    for write in writes {
        if !held.hold(write) {
            apply_one::<DB>(conn, write).await?;
        }
    }
    flush::<DB>(conn, held).await
}

/// Applies one write not held back, in journal order.
async fn apply_one<DB: Backend>(
    conn: &mut DB::Connection,
    write: &Write,
) -> Result<(), StoreError> {
    if !apply_shared(&mut *conn, write).await? {
        // `apply` holds these back; alone, each is a bulk of one.
        let mut held = Held::default();
        held.hold(write);
        return flush::<DB>(conn, held).await;
    }
    if let Write::MatchStarted { id, rules, seats, .. } = write {
        DB::insert_seats(conn, id, rules, seats).await?;
    }
    Ok(())
}

/// Applies what [`Held`] held back, in the order `Held` says gives the
/// journal's result.
async fn flush<DB: Backend>(conn: &mut DB::Connection, held: Held<'_>) -> Result<(), StoreError> {
    let Held { hands, plays, ends, match_ends, .. } = held;
    DB::insert_hands(conn, &hands).await?;
    for round in rounds(&plays) {
        let written = DB::append_plays(conn, &round).await?;
        report_unwritten(&round, &written);
    }
    DB::end_hands(conn, &ends).await?;
    for write in match_ends {
        apply_shared(&mut *conn, write).await?;
    }
    Ok(())
}

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

/// Applies `write` if it is one of the shared kinds (for `MatchStarted`, the
/// match's row: the caller adds its seats); returns whether it was.
async fn apply_shared<C: Conn>(conn: &mut C, write: &Write) -> Result<bool, StoreError> {
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
        Write::Tournament { tournament, at } => {
            tournaments::save(conn, tournament, *at).await?;
        }
        Write::MatchRules { match_id, rules } => {
            let rules = serde_json::to_value(rules)?;
            conn.execute(sql::MATCH_RULES, &[text(match_id), Param::Json(Some(&rules))]).await?;
        }
        Write::StandIn { match_id, seat, bot, from_hand } => {
            let (seat, from_hand) = (int(i64::from(*seat)), int(i64::from(*from_hand)));
            conn.execute(sql::STAND_IN, &[text(match_id), seat, text(bot), from_hand]).await?;
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
#[derive(Debug)]
pub struct HandRow<'w> {
    pub match_id: &'w str,
    pub number: u32,
    pub deal: Deal,
    pub seal: Option<Seal>,
}

/// A run of one hand's actions, in order from its `start`th, held back for
/// [`Held`]: written into the hand's `plays` with one statement.
#[derive(Debug)]
pub struct PlaysRow<'w> {
    pub match_id: &'w str,
    pub hand: u32,
    /// The index of the run's first action.
    pub start: u32,
    /// The run's actions, as [`plays`] writes them.
    pub plays: String,
    /// The largest event seq among them.
    pub last_seq: i64,
    /// Which of the batch's statements for runs it goes in: a hand's second
    /// run in a batch (an action repeated, as a replayed journal may bring
    /// it) goes in a later one, after the first, since one statement
    /// updates a row at most once.
    pub round: usize,
}

impl PlaysRow<'_> {
    /// Where the run starts in `plays`, in characters.
    pub fn offset(&self) -> i64 {
        i64::from(self.start) * plays::WIDTH as i64
    }

    /// Whether the run's next action would be `index`.
    fn continues_at(&self, index: u32) -> bool {
        (self.plays.len() / plays::WIDTH) as u64 + u64::from(self.start) == u64::from(index)
    }
}

/// A hand ended, held back for [`Held`], with each side's points as
/// [`sql::hand_points`] gives them.
#[derive(Debug)]
pub struct EndRow<'w> {
    pub match_id: &'w str,
    pub number: u32,
    pub outcome: HandOutcome,
    pub at: Millis,
    pub points: [i64; MAX_TEAMS],
}

/// The writes of a batch that come by the hundred (hands dealt, actions,
/// hands ended), and its match ends, held back to go in kind by kind, in
/// bulk (the [`Backend`]'s statements), rather than one statement each.
///
/// Kind by kind rather than in journal order gives the same result when
/// applied in the order of the fields: hands before the actions and ends
/// that belong to them, hand ends (which add to a match's score) before
/// match ends (which set it), and every kind in its own order. Nothing held
/// back depends on a later write of another kind, and the matches they all
/// belong to are written, in journal order, before.
#[derive(Default)]
struct Held<'w> {
    hands: Vec<HandRow<'w>>,
    plays: Vec<PlaysRow<'w>>,
    ends: Vec<EndRow<'w>>,
    match_ends: Vec<&'w Write>,
    /// Each hand's latest run in `plays`, by match and hand.
    latest_run: HashMap<(&'w str, u32), usize>,
}

impl<'w> Held<'w> {
    /// Holds `write` back if it is of a kind applied in bulk.
    fn hold(&mut self, write: &'w Write) -> bool {
        match write {
            Write::HandDealt { match_id, number, deal, seal } => {
                self.hands.push(HandRow { match_id, number: *number, deal: *deal, seal: *seal });
            }
            Write::Action { match_id, hand, index, seat, action, seq, .. } => {
                self.hold_action(match_id, *hand, *index, *seat, *action, to_db_u64(*seq));
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

    /// Adds an action to its hand's run, or starts a run with it if it does
    /// not follow the run (the first of its hand in the batch, or one
    /// repeated).
    fn hold_action(
        &mut self,
        match_id: &'w str,
        hand: u32,
        index: u32,
        seat: u8,
        action: Action,
        seq: i64,
    ) {
        let latest = self.latest_run.get(&(match_id, hand)).copied();
        let run = match latest {
            Some(at) if self.plays[at].continues_at(index) => &mut self.plays[at],
            _ => {
                let round = latest.map_or(0, |at| self.plays[at].round + 1);
                self.latest_run.insert((match_id, hand), self.plays.len());
                self.plays.push(PlaysRow {
                    match_id,
                    hand,
                    start: index,
                    plays: String::new(),
                    last_seq: 0,
                    round,
                });
                let Some(run) = self.plays.last_mut() else { return };
                run
            }
        };
        if plays::push(&mut run.plays, seat, action) {
            run.last_seq = run.last_seq.max(seq);
        } else {
            tracing::error!(
                match_id,
                hand,
                index,
                seat,
                "an action of a seat no form has: not stored"
            );
        }
    }
}

/// `runs` in the statements they go in, in order: each hand at most once a
/// statement.
fn rounds<'r, 'w>(runs: &'r [PlaysRow<'w>]) -> Vec<Vec<&'r PlaysRow<'w>>> {
    let count = runs.iter().map(|run| run.round + 1).max().unwrap_or(0);
    (0..count).map(|round| runs.iter().filter(|run| run.round == round).collect()).collect()
}

/// Logs each run of `round` that its statement did not write (`written`
/// names the hands it did): its hand is not stored, or is missing actions
/// before the run. Neither happens while the journal is applied in order;
/// the writer goes on rather than retry a batch that can never apply, and
/// reading the match then reports it corrupt.
fn report_unwritten(round: &[&PlaysRow<'_>], written: &[(String, i64)]) {
    for run in round {
        let hand = i64::from(run.hand);
        if !written.iter().any(|(match_id, number)| match_id == run.match_id && *number == hand) {
            tracing::error!(
                match_id = run.match_id,
                hand = run.hand,
                start = run.start,
                "actions that do not follow their hand's stored actions: not stored"
            );
        }
    }
}
