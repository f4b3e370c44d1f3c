//! Swiss for partnerships: who plays whom next, and the standings with
//! their tie-breaks.
//!
//! Round one pairs the top half of the seeding against the bottom half
//! (seed 1 against seed n/2 + 1, and so on). Later rounds pair in standings
//! order, each team taking the highest-placed team below it that it has not
//! met (the Monrad way), backtracking when that leaves the rest unpairable;
//! only when no pairing without a rematch exists (or the search gives up,
//! see [`SEARCH_STEPS`]) are rematches allowed, the fewest the greedy pass
//! finds. With an odd count the lowest-placed team that has not had a bye
//! sits out and scores a win.

use serde::{Deserialize, Serialize};

use crate::round::{Score, TeamId};

/// Match points in halves: a win is 2, a draw 1.
const WIN: u32 = 2;
const DRAW: u32 = 1;

/// How many placements the no-rematch search tries before it gives up and
/// allows rematches: far more than any real field needs, and a bound on the
/// time a pathological one takes.
pub const SEARCH_STEPS: usize = 200_000;

/// A team's place in a Swiss, with each tie-break as it counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeamStanding {
    /// From 1; never shared (the seed breaks the last tie).
    pub rank: u32,
    pub team: TeamId,
    /// A win (or the bye) 1, a draw ½, a loss 0.
    pub match_points: f64,
    /// The match points of every opponent met (byes add nothing).
    pub buchholz: f64,
    /// Match points in games against the teams tied with it on match
    /// points and Buchholz.
    pub head_to_head: f64,
    pub points_for: u32,
    pub points_against: u32,
    pub played: u32,
    pub byes: u32,
    /// Withdrawn teams keep their results and are no longer paired.
    pub withdrawn: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct SwissState {
    halves: Vec<u32>,
    points: Vec<Score>,
    byes: Vec<u32>,
    /// Every game played: the two teams and the halves each earned.
    games: Vec<([usize; 2], [u32; 2])>,
    met: Vec<Vec<u8>>,
}

impl SwissState {
    pub(crate) fn add_team(&mut self) {
        self.halves.push(0);
        self.points.push([0, 0]);
        self.byes.push(0);
        for row in &mut self.met {
            row.push(0);
        }
        self.met.push(vec![0; self.halves.len()]);
    }

    pub(crate) fn record_game(&mut self, teams: [usize; 2], score: Score) {
        let halves = match score[0].cmp(&score[1]) {
            std::cmp::Ordering::Greater => [WIN, 0],
            std::cmp::Ordering::Less => [0, WIN],
            std::cmp::Ordering::Equal => [DRAW, DRAW],
        };
        for side in 0..2 {
            let team = teams[side];
            self.halves[team] += halves[side];
            self.points[team][0] += score[side];
            self.points[team][1] += score[1 - side];
        }
        self.met[teams[0]][teams[1]] += 1;
        self.met[teams[1]][teams[0]] += 1;
        self.games.push((teams, halves));
    }

    pub(crate) fn record_bye(&mut self, team: usize) {
        self.halves[team] += WIN;
        self.byes[team] += 1;
    }

    /// The pairs (higher-placed team first) and the bye of the next round.
    /// `order` is the active teams by seed in round one, else by standing.
    pub(crate) fn pair(
        &self,
        order: &[usize],
        first_round: bool,
    ) -> (Vec<[usize; 2]>, Option<usize>) {
        if first_round {
            let (order, bye) = match order.len() % 2 {
                1 => (&order[..order.len() - 1], order.last().copied()),
                _ => (order, None),
            };
            let half = order.len() / 2;
            return ((0..half).map(|k| [order[k], order[k + half]]).collect(), bye);
        }
        if order.len().is_multiple_of(2) {
            return (self.pair_all(order), None);
        }
        // The bye: from the bottom, the first team without one whose absence
        // leaves the rest pairable without a rematch.
        let mut candidates: Vec<usize> =
            order.iter().rev().copied().filter(|&t| self.byes[t] == 0).collect();
        if candidates.is_empty() {
            candidates = order.iter().rev().copied().collect();
        }
        for &bye in &candidates {
            let rest: Vec<usize> = order.iter().copied().filter(|&t| t != bye).collect();
            if let Some(pairs) = self.pair_without_rematch(&rest) {
                return (pairs, Some(bye));
            }
        }
        let bye = candidates[0];
        let rest: Vec<usize> = order.iter().copied().filter(|&t| t != bye).collect();
        (self.pair_fewest_rematches(&rest), Some(bye))
    }

    fn pair_all(&self, order: &[usize]) -> Vec<[usize; 2]> {
        self.pair_without_rematch(order).unwrap_or_else(|| self.pair_fewest_rematches(order))
    }

    /// Depth-first: the top unpaired team takes the first team below it it
    /// has not met; on a dead end, the next one.
    fn pair_without_rematch(&self, order: &[usize]) -> Option<Vec<[usize; 2]>> {
        fn search(
            state: &SwissState,
            order: &[usize],
            used: &mut [bool],
            pairs: &mut Vec<[usize; 2]>,
            steps: &mut usize,
        ) -> bool {
            let Some(first) = used.iter().position(|&u| !u) else {
                return true;
            };
            used[first] = true;
            for second in first + 1..order.len() {
                if used[second] || state.met[order[first]][order[second]] > 0 {
                    continue;
                }
                *steps += 1;
                if *steps > SEARCH_STEPS {
                    break;
                }
                used[second] = true;
                pairs.push([order[first], order[second]]);
                if search(state, order, used, pairs, steps) {
                    return true;
                }
                pairs.pop();
                used[second] = false;
            }
            used[first] = false;
            false
        }
        let mut used = vec![false; order.len()];
        let mut pairs = Vec::with_capacity(order.len() / 2);
        let mut steps = 0;
        search(self, order, &mut used, &mut pairs, &mut steps).then_some(pairs)
    }

    /// The top unpaired team takes the team below it it has met least.
    fn pair_fewest_rematches(&self, order: &[usize]) -> Vec<[usize; 2]> {
        let mut used = vec![false; order.len()];
        let mut pairs = Vec::with_capacity(order.len() / 2);
        while let Some(first) = used.iter().position(|&u| !u) {
            used[first] = true;
            let Some(second) = (first + 1..order.len())
                .filter(|&k| !used[k])
                .min_by_key(|&k| self.met[order[first]][order[k]])
            else {
                break;
            };
            used[second] = true;
            pairs.push([order[first], order[second]]);
        }
        pairs
    }

    /// Every team ranked: match points, Buchholz, head-to-head among those
    /// tied on both, points difference, points for, then seed.
    pub(crate) fn standings(&self, seed_of: &[usize], withdrawn: &[bool]) -> Vec<TeamStanding> {
        let teams = self.halves.len();
        let mut buchholz = vec![0u32; teams];
        let mut played = vec![0u32; teams];
        for (pair, _) in &self.games {
            buchholz[pair[0]] += self.halves[pair[1]];
            buchholz[pair[1]] += self.halves[pair[0]];
            played[pair[0]] += 1;
            played[pair[1]] += 1;
        }
        let mut order: Vec<usize> = (0..teams).collect();
        order.sort_by(|&a, &b| (self.halves[b], buchholz[b]).cmp(&(self.halves[a], buchholz[a])));
        // Head-to-head within each group tied on match points and Buchholz.
        let mut head_to_head = vec![0u32; teams];
        let mut start = 0;
        while start < order.len() {
            let key = |t: usize| (self.halves[t], buchholz[t]);
            let end =
                start + order[start..].iter().take_while(|&&t| key(t) == key(order[start])).count();
            let group = &order[start..end];
            if group.len() > 1 {
                for (pair, halves) in &self.games {
                    if group.contains(&pair[0]) && group.contains(&pair[1]) {
                        head_to_head[pair[0]] += halves[0];
                        head_to_head[pair[1]] += halves[1];
                    }
                }
            }
            start = end;
        }
        let difference = |t: usize| i64::from(self.points[t][0]) - i64::from(self.points[t][1]);
        order.sort_by(|&a, &b| {
            (self.halves[b], buchholz[b], head_to_head[b], difference(b), self.points[b][0])
                .cmp(&(
                    self.halves[a],
                    buchholz[a],
                    head_to_head[a],
                    difference(a),
                    self.points[a][0],
                ))
                .then(seed_of[a].cmp(&seed_of[b]))
        });
        order
            .iter()
            .enumerate()
            .map(|(rank, &t)| TeamStanding {
                rank: rank as u32 + 1,
                team: TeamId(t as u32),
                match_points: f64::from(self.halves[t]) / 2.0,
                buchholz: f64::from(buchholz[t]) / 2.0,
                head_to_head: f64::from(head_to_head[t]) / 2.0,
                points_for: self.points[t][0],
                points_against: self.points[t][1],
                played: played[t],
                byes: self.byes[t],
                withdrawn: withdrawn[t],
            })
            .collect()
    }
}
