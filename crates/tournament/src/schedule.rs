//! The progressive schedule's quality for a player count: a whole night
//! played with dummy results, then how often anyone partnered or opposed
//! the same player again, and how evenly the bots' and rests' turns fell.
//! The schedule check (`tests/it/schedule.rs`) and `euchre-tools
//! tournament-schedule` read it.

use serde::{Deserialize, Serialize};

use crate::settings::{Format, Leftover, Player, PlayerId, ProgressiveSettings, Settings};
use crate::tournament::Tournament;
use crate::{TableResult, TournamentError, whist};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleReport {
    pub players: usize,
    pub rounds: u32,
    pub leftover: Leftover,
    /// Whether the rounds followed a whist design.
    pub whist_design: bool,
    /// Partnerships beyond each pair's first, summed over the pairs.
    pub partner_repeats: u32,
    /// Oppositions beyond each pair's first, summed over the pairs.
    pub opponent_repeats: u32,
    /// The most times any two players opposed each other.
    pub most_opposed: u8,
    /// Pairs of players who never met at a table.
    pub never_met: u32,
    /// Whether after every round the players' counts of rounds beside bots
    /// (or resting) differed by at most one: nobody had a second turn
    /// before everyone had a first.
    pub leftover_turns_even: bool,
}

/// As many rounds as a whist design allows for the count: `v - 1` for
/// `4n` players, `v` for `4n + 1` (one resting each round), and `v - 1`
/// (each player's count of possible partners) for the others.
pub fn full_night(players: usize) -> u32 {
    let rounds = whist::design_rounds(players).unwrap_or(players.saturating_sub(1));
    u32::try_from(rounds).unwrap_or(u32::MAX)
}

/// Plays a night of `rounds` for `players` with every table's result
/// `[1, 0]` (results do not steer progressive seating) and reports on it.
pub fn report(
    players: usize,
    rounds: u32,
    leftover: Leftover,
    seed: u64,
) -> Result<ScheduleReport, TournamentError> {
    let ids: Vec<PlayerId> = (0..players).map(|k| PlayerId(format!("p{k}"))).collect();
    let settings = Settings {
        seed,
        players: ids.iter().map(|id| Player { id: id.clone(), rating: 1500.0 }).collect(),
        format: Format::Progressive(ProgressiveSettings {
            leftover,
            ..ProgressiveSettings::new(rounds)
        }),
    };
    let mut night = Tournament::new(settings)?;
    let mut whist_design = whist::design_rounds(players).is_some_and(|r| r >= rounds as usize);
    whist_design &= match leftover {
        Leftover::Bots => players.is_multiple_of(4),
        Leftover::SitOut => players % 4 <= 1,
    };
    let mut leftover_turns_even = true;
    let mut rested = vec![0u32; players];
    while !night.is_finished() {
        let round = night.next_round()?;
        for id in &round.sitting_out {
            if let Some(k) = ids.iter().position(|p| p == id) {
                rested[k] += 1;
            }
        }
        night.record_round(vec![TableResult::one([1, 0]); round.tables.len()])?;
        let turns: Vec<u32> = match leftover {
            Leftover::SitOut => rested.clone(),
            Leftover::Bots => {
                ids.iter().map(|id| night.rounds_with_bots(id).unwrap_or(0)).collect()
            }
        };
        let (low, high) = (turns.iter().min(), turns.iter().max());
        leftover_turns_even &= high.zip(low).is_none_or(|(high, low)| high - low <= 1);
    }
    let mut report = ScheduleReport {
        players,
        rounds,
        leftover,
        whist_design,
        partner_repeats: 0,
        opponent_repeats: 0,
        most_opposed: 0,
        never_met: 0,
        leftover_turns_even,
    };
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            let (partnered, opposed) = night.meetings(a, b).unwrap_or_default();
            report.partner_repeats += u32::from(partnered.saturating_sub(1));
            report.opponent_repeats += u32::from(opposed.saturating_sub(1));
            report.most_opposed = report.most_opposed.max(opposed);
            report.never_met += u32::from(partnered == 0 && opposed == 0);
        }
    }
    Ok(report)
}
