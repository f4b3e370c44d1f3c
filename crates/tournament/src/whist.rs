//! Whist tournament designs: schedules of individual play in which every
//! two players partner exactly once and oppose exactly twice. A design for
//! `v = 4n` players has `v - 1` rounds of `n` tables; one for `v = 4n + 1`
//! has `v` rounds of `n` tables, one player resting each round.
//!
//! Each design here is developed from one round over an abelian group `G`:
//! round `g` is the first round with `g` added to every point. For `4n`
//! players `G` has order `v - 1` and the last player is a fixed point that
//! no addition moves; for `4n + 1` players `G` has order `v` and the player
//! at `0 + g` rests in round `g`. A pair of points `{x, y}` in the first
//! round stands for every pair with the difference `±(x - y)`, once each,
//! so the first round must show each difference class once among partners
//! and twice among opponents (the fixed point meets everyone through its own
//! partner and opponents). The first rounds were found by a search over
//! small cases and are checked, fully developed, by the tests.

/// The fixed point of a `4n` design.
const FIXED: u8 = u8::MAX;

/// A first round over `Z_a × Z_b` (a point `x·b + y` is `(x, y)`).
struct Design {
    players: usize,
    moduli: [u8; 2],
    first_round: &'static [[u8; 4]],
}

const DESIGNS: &[Design] = &[
    Design { players: 4, moduli: [3, 1], first_round: &[[0, 1, 2, FIXED]] },
    Design { players: 5, moduli: [5, 1], first_round: &[[1, 2, 4, 3]] },
    Design { players: 8, moduli: [7, 1], first_round: &[[0, 1, 2, 4], [3, 5, FIXED, 6]] },
    // No first round over Z_9 works; Z_3 × Z_3 does.
    Design { players: 9, moduli: [3, 3], first_round: &[[1, 3, 2, 6], [4, 5, 8, 7]] },
    Design {
        players: 12,
        moduli: [11, 1],
        first_round: &[[0, 1, 3, 8], [2, 4, 7, 6], [5, 9, FIXED, 10]],
    },
    Design {
        players: 13,
        moduli: [13, 1],
        first_round: &[[1, 2, 4, 7], [3, 6, 12, 8], [5, 9, 11, 10]],
    },
    Design {
        players: 16,
        moduli: [15, 1],
        first_round: &[[0, 1, 2, 6], [3, 10, 7, 13], [4, 8, 11, 9], [5, 12, 14, FIXED]],
    },
    Design {
        players: 17,
        moduli: [17, 1],
        first_round: &[[1, 2, 4, 8], [3, 6, 10, 11], [5, 14, 9, 16], [7, 12, 15, 13]],
    },
    Design {
        players: 20,
        moduli: [19, 1],
        first_round: &[
            [0, 1, 2, 5],
            [3, 10, 12, FIXED],
            [4, 11, 15, 17],
            [6, 9, 18, 14],
            [7, 13, 8, 16],
        ],
    },
    Design {
        players: 21,
        moduli: [21, 1],
        first_round: &[
            [1, 2, 3, 7],
            [4, 11, 19, 15],
            [5, 13, 8, 14],
            [6, 9, 16, 18],
            [10, 12, 17, 20],
        ],
    },
];

/// One round of a design: its tables (seats 0 and 2 partners) as players
/// `0..v`, and the player resting, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesignRound {
    pub tables: Vec<[usize; 4]>,
    pub resting: Option<usize>,
}

/// The player counts a whist design is known here for.
pub fn design_counts() -> impl Iterator<Item = usize> {
    DESIGNS.iter().map(|design| design.players)
}

/// How many rounds the design for `players` has, if there is one.
pub fn design_rounds(players: usize) -> Option<usize> {
    find(players).map(group_order)
}

/// Round `round` (from 0) of the whist design for `players`, if there is one
/// and it has that many rounds.
pub fn design_round(players: usize, round: usize) -> Option<DesignRound> {
    let design = find(players)?;
    let order = group_order(design);
    if round >= order {
        return None;
    }
    let [a, b] = design.moduli.map(usize::from);
    let shift = (round / b, round % b);
    let moved = |point: u8| -> usize {
        if point == FIXED {
            return order;
        }
        let point = usize::from(point);
        ((point / b + shift.0) % a) * b + (point % b + shift.1) % b
    };
    let tables = design.first_round.iter().map(|table| table.map(moved)).collect();
    let resting = (players == order).then(|| moved(0));
    Some(DesignRound { tables, resting })
}

fn find(players: usize) -> Option<&'static Design> {
    DESIGNS.iter().find(|design| design.players == players)
}

fn group_order(design: &Design) -> usize {
    usize::from(design.moduli[0]) * usize::from(design.moduli[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every design, fully developed, is a whist tournament: each pair
    /// partners once and opposes twice, every round seats everyone once
    /// (bar the one resting), and each player rests at most once.
    #[test]
    fn every_design_is_a_whist_tournament() {
        for players in design_counts() {
            let rounds = design_rounds(players).expect("listed");
            assert_eq!(rounds, if players % 4 == 0 { players - 1 } else { players });
            let mut partners = vec![vec![0; players]; players];
            let mut opponents = vec![vec![0; players]; players];
            let mut rested = vec![0; players];
            for round in 0..rounds {
                let DesignRound { tables, resting } =
                    design_round(players, round).expect("in range");
                let mut seated = vec![false; players];
                for table in &tables {
                    for &player in table {
                        assert!(!seated[player], "{players}: seated twice in round {round}");
                        seated[player] = true;
                    }
                    for (x, y) in [(0, 2), (1, 3)] {
                        partners[table[x]][table[y]] += 1;
                        partners[table[y]][table[x]] += 1;
                    }
                    for (x, y) in [(0, 1), (0, 3), (2, 1), (2, 3)] {
                        opponents[table[x]][table[y]] += 1;
                        opponents[table[y]][table[x]] += 1;
                    }
                }
                if let Some(player) = resting {
                    assert!(!seated[player]);
                    rested[player] += 1;
                }
                assert_eq!(seated.iter().filter(|&&s| s).count(), 4 * (players / 4));
            }
            for x in 0..players {
                for y in 0..players {
                    if x != y {
                        assert_eq!(partners[x][y], 1, "{players}: {x} and {y} as partners");
                        assert_eq!(opponents[x][y], 2, "{players}: {x} and {y} as opponents");
                    }
                }
                assert!(rested[x] <= 1);
            }
        }
    }
}
