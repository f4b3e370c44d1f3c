//! The chance of winning a two-sided game from any score, for valuing a
//! hand by what it does to the game rather than by its points alone.
//!
//! A simple model of the hands to come: each side scores 1, 2 or 4 points
//! in a hand with the same chances (roughly those of two sound sides in the
//! standard game), and the game is won by the first side to reach the
//! target. The model need not be exact: what matters is its shape, that a
//! point is worth most when it decides the game and a fourth point nothing
//! when one point wins.

/// A side's chances of scoring 1, 2 and 4 points in one hand; the rest of
/// the time the other side scores the same way, or nobody scores.
const SCORES: [(u32, f64); 3] = [(1, 0.33), (2, 0.14), (4, 0.015)];

/// `win[mine][theirs]`: the chance that the side needing `mine` more points
/// beats the side needing `theirs`, both at least 1.
#[derive(Clone, Debug)]
pub(super) struct GameOdds {
    target: u32,
    win: Vec<Vec<f64>>,
}

impl GameOdds {
    pub(super) fn new(target: u32) -> GameOdds {
        let target = target.max(1) as usize;
        let scoring: f64 = 2.0 * SCORES.iter().map(|(_, chance)| chance).sum::<f64>();
        let mut win = vec![vec![0.0; target + 1]; target + 1];
        for mine in 1..=target {
            for theirs in 1..=target {
                let at = |mine: usize, theirs: usize, win: &Vec<Vec<f64>>| {
                    win.get(mine).and_then(|row| row.get(theirs)).copied().unwrap_or(0.0)
                };
                let mut total = 0.0;
                for (points, chance) in SCORES {
                    let points = points as usize;
                    total +=
                        chance * if points >= mine { 1.0 } else { at(mine - points, theirs, &win) };
                    total += chance
                        * if points >= theirs { 0.0 } else { at(mine, theirs - points, &win) };
                }
                // Hands where nobody scores only pass the time.
                win[mine][theirs] = total / scoring;
            }
        }
        GameOdds { target: target as u32, win }
    }

    /// The points to win that the table is for.
    pub(super) fn target(&self) -> u32 {
        self.target
    }

    /// The chance of winning for a side with `mine` points against `theirs`
    /// (1 once it has reached the target, 0 once they have).
    pub(super) fn chance(&self, mine: u32, theirs: u32) -> f64 {
        if mine >= self.target {
            return 1.0;
        }
        if theirs >= self.target {
            return 0.0;
        }
        self.win[(self.target - mine) as usize][(self.target - theirs) as usize]
    }

    /// What the first point of the game is worth in chance of winning: the
    /// unit that makes a chance comparable with a point.
    pub(super) fn first_point(&self) -> f64 {
        self.chance(1, 0) - self.chance(0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_at_even_scores_and_certain_at_the_target() {
        let odds = GameOdds::new(10);
        assert!((odds.chance(0, 0) - 0.5).abs() < 1e-9);
        assert!((odds.chance(7, 7) - 0.5).abs() < 1e-9);
        assert_eq!(odds.chance(10, 3), 1.0);
        assert_eq!(odds.chance(3, 10), 0.0);
        assert!((odds.chance(6, 2) + odds.chance(2, 6) - 1.0).abs() < 1e-9);
        assert!(odds.first_point() > 0.0);
    }

    #[test]
    fn a_point_counts_most_when_it_decides_the_game() {
        let odds = GameOdds::new(10);
        let point_at_nine = 1.0 - odds.chance(9, 9);
        let point_at_start = odds.first_point();
        assert!(point_at_nine > 5.0 * point_at_start, "{point_at_nine} {point_at_start}");
        // At 9, a march wins no more than a single point.
        assert_eq!(odds.chance(9 + 1, 4), odds.chance(9 + 2, 4));
        // Further from the end, more points are worth more.
        assert!(odds.chance(4, 4) > odds.chance(2, 4));
        assert!(odds.chance(6, 4) > odds.chance(4, 4));
    }
}
