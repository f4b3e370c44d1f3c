//! Knockout for partnerships: the bracket and who goes through.
//!
//! The bracket has the next power of two at or above the number of teams,
//! seeds placed the usual way (1 and 2 can meet only in the final, 1 to 4
//! only in the semi-finals, ...), and the missing seeds are byes, which so
//! fall to the top seeds. A withdrawn team's next opponent goes through by
//! walkover.

use serde::{Deserialize, Serialize};

use crate::round::TeamId;

/// A team's place in a knockout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnockoutStanding {
    /// From 1, shared by the teams out in the same round.
    pub rank: u32,
    pub team: TeamId,
    /// From 1.
    pub seed: u32,
    /// The round it lost or withdrew before; `None` while still in (or the
    /// champion, once the bracket is done).
    pub out_in: Option<u32>,
}

/// Bracket positions of the seeds 0..size: for 8, seeds 1 8 4 5 2 7 3 6
/// (counting from 1).
pub(crate) fn positions(size: usize) -> Vec<usize> {
    let mut order = vec![0];
    while order.len() < size {
        let next = order.len() * 2;
        order = order.iter().flat_map(|&seed| [seed, next - 1 - seed]).collect();
    }
    order
}

/// The first round's slots: the active teams by seed, a bye as `None`.
pub(crate) fn first_slots(by_seed: &[usize]) -> Vec<Option<usize>> {
    let size = by_seed.len().next_power_of_two().max(2);
    positions(size).into_iter().map(|seed| by_seed.get(seed).copied()).collect()
}

/// How one pair of slots goes: a match, a team through without one, or an
/// empty slot for the next round.
pub(crate) enum Pairing {
    Match([usize; 2]),
    Through(usize),
    Empty,
}

pub(crate) fn pairings(slots: &[Option<usize>]) -> Vec<Pairing> {
    slots
        .chunks(2)
        .map(|pair| match (pair[0], pair.get(1).copied().flatten()) {
            (Some(a), Some(b)) => Pairing::Match([a, b]),
            (Some(team), None) | (None, Some(team)) => Pairing::Through(team),
            (None, None) => Pairing::Empty,
        })
        .collect()
}

/// Ranks: the champion, then by the round the team went out in, latest
/// first; teams out in the same round share a rank.
pub(crate) fn standings(
    seed_of: &[usize],
    out_in: &[Option<u32>],
    rounds_played: u32,
) -> Vec<KnockoutStanding> {
    let reached = |t: usize| out_in[t].unwrap_or(rounds_played + 1);
    let mut order: Vec<usize> = (0..seed_of.len()).collect();
    order.sort_by(|&a, &b| reached(b).cmp(&reached(a)).then(seed_of[a].cmp(&seed_of[b])));
    let mut standings = Vec::with_capacity(order.len());
    for (index, &team) in order.iter().enumerate() {
        let rank = match standings.last() {
            Some(KnockoutStanding { rank, team: previous, .. })
                if reached(previous.0 as usize) == reached(team) =>
            {
                *rank
            }
            _ => index as u32 + 1,
        };
        standings.push(KnockoutStanding {
            rank,
            team: TeamId(team as u32),
            seed: seed_of[team] as u32 + 1,
            out_in: out_in[team],
        });
    }
    standings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_meet_late() {
        assert_eq!(positions(8), vec![0, 7, 3, 4, 1, 6, 2, 5]);
        assert_eq!(positions(4), vec![0, 3, 1, 2]);
        // Six teams: byes (seeds 7 and 8) go to seeds 1 and 2.
        let slots = first_slots(&[10, 11, 12, 13, 14, 15]);
        assert_eq!(
            slots,
            vec![Some(10), None, Some(13), Some(14), Some(11), None, Some(12), Some(15)]
        );
    }
}
