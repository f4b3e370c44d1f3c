//! The tournament core's integration tests, in one binary: whole events
//! played with their results given as data.

mod knockout;
mod progressive;
mod record;
mod schedule;
mod swiss;

use euchre_tournament::{Player, PlayerId, Round, TableResult, Tournament};

/// Players `prefix0..`, rated from 2000 down in steps of 10.
pub fn players(prefix: &str, count: usize) -> Vec<Player> {
    (0..count).map(|k| Player::new(format!("{prefix}{k}"), 2000.0 - 10.0 * k as f64)).collect()
}

pub fn id(name: &str) -> PlayerId {
    PlayerId::new(name)
}

/// Pairs the next round, hands it to `score` for each table's result, and
/// records them; returns the round.
pub fn play(
    tournament: &mut Tournament,
    mut score: impl FnMut(usize, &euchre_tournament::Table) -> TableResult,
) -> Round {
    let round = tournament.next_round().expect("a round to pair");
    let results = round.tables.iter().enumerate().map(|(k, t)| score(k, t)).collect();
    tournament.record_round(results).expect("the results are accepted")
}
