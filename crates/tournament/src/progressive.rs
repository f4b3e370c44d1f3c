//! Progressive nights: individuals seated four to a table with a partner
//! they have not had yet, and what each player scores.
//!
//! While the field is the one the night started with and a whist design
//! exists for its count (see [`crate::whist`]), the rounds follow the design,
//! its players labelled in an order drawn from the seed: nobody partners
//! anyone twice, and everyone opposes everyone twice over the full design.
//! Otherwise each round is built greedily (`docs/tournaments.md` gives the
//! steps).

use serde::{Deserialize, Serialize};

use crate::random::{Purpose, permutation, stream};
use crate::settings::{Leftover, PlayerId};
use crate::whist;

/// A player's place in a progressive night.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerStanding {
    /// From 1, shared by equal totals.
    pub rank: u32,
    pub player: PlayerId,
    pub points: u64,
    pub rounds_played: u32,
    pub rounds_rested: u32,
    /// Rounds a bot played in the player's seat (they scored nothing).
    pub rounds_absent: u32,
    pub removed: bool,
}

/// One round's seating, as player indices: seats 0 and 2 partners, `None`
/// a bot's seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seating {
    pub tables: Vec<[Option<usize>; 4]>,
    pub resting: Vec<usize>,
}

/// Who has met whom, and how each player has fared with the leftovers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Meetings {
    players: usize,
    /// `players × players`, row-major.
    partners: Vec<u8>,
    opponents: Vec<u8>,
    with_bots: Vec<u32>,
    bot_partner: Vec<u32>,
    pub rested: Vec<u32>,
    pub points: Vec<u64>,
    pub played: Vec<u32>,
    pub absent: Vec<u32>,
}

impl Meetings {
    pub(crate) fn new(players: usize) -> Self {
        let mut meetings = Self::default();
        meetings.grow(players);
        meetings
    }

    /// Room for late players.
    pub(crate) fn grow(&mut self, players: usize) {
        let old = self.players;
        let widen = |matrix: &[u8]| {
            let mut wider = vec![0u8; players * players];
            for row in 0..old {
                wider[row * players..row * players + old]
                    .copy_from_slice(&matrix[row * old..(row + 1) * old]);
            }
            wider
        };
        self.partners = widen(&self.partners);
        self.opponents = widen(&self.opponents);
        self.players = players;
        for list in [
            &mut self.with_bots,
            &mut self.bot_partner,
            &mut self.rested,
            &mut self.played,
            &mut self.absent,
        ] {
            list.resize(players, 0);
        }
        self.points.resize(players, 0);
    }

    pub(crate) fn partnered(&self, a: usize, b: usize) -> u8 {
        self.partners[a * self.players + b]
    }

    pub(crate) fn opposed(&self, a: usize, b: usize) -> u8 {
        self.opponents[a * self.players + b]
    }

    pub(crate) fn sat_with_bots(&self, player: usize) -> u32 {
        self.with_bots[player]
    }

    fn meet(matrix: &mut [u8], players: usize, a: usize, b: usize) {
        matrix[a * players + b] = matrix[a * players + b].saturating_add(1);
        matrix[b * players + a] = matrix[b * players + a].saturating_add(1);
    }

    /// A played table: meetings among the players present, the bot counts,
    /// and each present player's points (their side's).
    pub(crate) fn record_table(
        &mut self,
        seats: [Option<usize>; 4],
        present: [bool; 4],
        points: [u32; 2],
    ) {
        let here = |s: usize| seats[s].filter(|_| present[s]);
        let bots = seats.iter().filter(|seat| seat.is_none()).count();
        for seat in 0..4 {
            let Some(player) = here(seat) else {
                if let Some(player) = seats[seat] {
                    self.absent[player] += 1;
                }
                continue;
            };
            self.points[player] += u64::from(points[seat % 2]);
            self.played[player] += 1;
            if bots > 0 {
                self.with_bots[player] += 1;
            }
            if seats[(seat + 2) % 4].is_none() {
                self.bot_partner[player] += 1;
            }
        }
        let n = self.players;
        for (x, y) in [(0, 2), (1, 3)] {
            if let (Some(a), Some(b)) = (here(x), here(y)) {
                Self::meet(&mut self.partners, n, a, b);
            }
        }
        for (x, y) in [(0, 1), (0, 3), (2, 1), (2, 3)] {
            if let (Some(a), Some(b)) = (here(x), here(y)) {
                Self::meet(&mut self.opponents, n, a, b);
            }
        }
    }

    pub(crate) fn record_rest(&mut self, player: usize, points: u64) {
        self.rested[player] += 1;
        self.points[player] += points;
    }

    /// The seating of round `round` (from 1) for the `active` players (in
    /// registration order). `design` says the field is still the starting one.
    pub(crate) fn seat(
        &self,
        active: &[usize],
        round: u32,
        leftover: Leftover,
        seed: u64,
        design: bool,
    ) -> Seating {
        let count = active.len();
        let fits = match leftover {
            Leftover::Bots => count.is_multiple_of(4),
            Leftover::SitOut => count % 4 <= 1,
        };
        if design
            && fits
            && let Some(found) = whist::design_round(count, round as usize - 1)
        {
            let labels = permutation(count, &mut stream(seed, Purpose::Seating, 0));
            let player = |point: usize| active[labels[point]];
            return Seating {
                tables: found.tables.iter().map(|t| t.map(|p| Some(player(p)))).collect(),
                resting: found.resting.map(player).into_iter().collect(),
            };
        }
        self.seat_greedily(active, round, leftover, seed)
    }

    /// The greedy seating, in four steps:
    /// 1. Leftovers. With bots, the tables are rounded up and the bots
    ///    spread one a table (two only with five players); the seats beside
    ///    them go to the players who have sat with bots least. Resting
    ///    instead, the players who have rested least rest. Ties go by an
    ///    order drawn from the seed for the round.
    /// 2. At each table with one bot, the player who has partnered a bot
    ///    least partners it.
    /// 3. The rest are paired into partnerships, each player (in the drawn
    ///    order) taking the free player they have partnered least, then
    ///    opposed least; then every partnership that repeats one is offered a
    ///    swap of partners with another that makes both new.
    /// 4. Partnerships are paired into tables the same way, by the times
    ///    their players have opposed each other.
    fn seat_greedily(
        &self,
        active: &[usize],
        round: u32,
        leftover: Leftover,
        seed: u64,
    ) -> Seating {
        let mut rng = stream(seed, Purpose::Seating, round);
        let drawn = permutation(active.len(), &mut rng);
        let mut rank = vec![usize::MAX; self.players];
        for (position, &k) in drawn.iter().enumerate() {
            rank[active[k]] = position;
        }
        let least = |key: &dyn Fn(usize) -> u32| {
            let mut players = active.to_vec();
            players.sort_by_key(|&p| (key(p), rank[p]));
            players
        };
        let count = active.len();
        let mut seating = Seating { tables: Vec::new(), resting: Vec::new() };
        let mut rest = match leftover {
            Leftover::SitOut => {
                let mut order = least(&|p| self.rested[p]);
                let playing = order.split_off(count % 4);
                seating.resting = order;
                playing
            }
            Leftover::Bots => {
                let tables = count.div_ceil(4);
                let bots = tables * 4 - count;
                // Bots per table, spread: only five players put two at one.
                let per_table: Vec<usize> = (0..tables)
                    .map(|t| bots / tables + usize::from(t < bots % tables))
                    .filter(|&b| b > 0)
                    .collect();
                let mut order = least(&|p| self.with_bots[p]);
                let rest = order.split_off(per_table.iter().map(|&b| 4 - b).sum());
                seating.tables.extend(self.bot_tables(&order, &per_table, &rank));
                rest
            }
        };
        rest.sort_by_key(|&p| rank[p]);
        let pairs = self.partnerships(&rest);
        seating.tables.extend(self.tables(pairs));
        self.improve(&mut seating.tables);
        seating
    }

    /// What a table costs: each repeated partnership far more than any
    /// number of repeated oppositions.
    fn table_cost(&self, seats: &[Option<usize>; 4]) -> u64 {
        let count = |matrix: fn(&Self, usize, usize) -> u8, x: usize, y: usize| {
            seats[x].zip(seats[y]).map_or(0, |(a, b)| u64::from(matrix(self, a, b)))
        };
        let partners = count(Self::partnered, 0, 2) + count(Self::partnered, 1, 3);
        let opponents = [(0, 1), (0, 3), (2, 1), (2, 3)]
            .iter()
            .map(|&(x, y)| count(Self::opposed, x, y))
            .sum::<u64>();
        partners * 1_000 + opponents
    }

    /// Hill-climbing over swaps of two players: a swap is taken when it
    /// lowers the cost of the tables it touches. Two players swap only if
    /// they stand alike towards the leftovers (both beside a bot or not, both
    /// partnering one or not) or have had the same turns with bots so far,
    /// so the bots' turns stay as even as steps 1 and 2 made them. A few
    /// passes: each is quadratic in the players.
    fn improve(&self, tables: &mut [[Option<usize>; 4]]) {
        const PASSES: usize = 3;
        let places: Vec<(usize, usize)> = tables
            .iter()
            .enumerate()
            .flat_map(|(t, seats)| (0..4).filter(|&s| seats[s].is_some()).map(move |s| (t, s)))
            .collect();
        let standing = |tables: &[[Option<usize>; 4]], (t, s): (usize, usize)| {
            (tables[t].contains(&None), tables[t][(s + 2) % 4].is_none())
        };
        let turns =
            |player: Option<usize>| player.map(|p| (self.with_bots[p], self.bot_partner[p]));
        for _ in 0..PASSES {
            let mut improved = false;
            for i in 0..places.len() {
                for j in i + 1..places.len() {
                    let ((t1, s1), (t2, s2)) = (places[i], places[j]);
                    let alike = standing(tables, places[i]) == standing(tables, places[j])
                        || turns(tables[t1][s1]) == turns(tables[t2][s2]);
                    if !alike {
                        continue;
                    }
                    if t1 == t2 {
                        let before = self.table_cost(&tables[t1]);
                        let mut table = tables[t1];
                        table.swap(s1, s2);
                        if self.table_cost(&table) < before {
                            tables[t1] = table;
                            improved = true;
                        }
                        continue;
                    }
                    let before = self.table_cost(&tables[t1]) + self.table_cost(&tables[t2]);
                    let (mut a, mut b) = (tables[t1], tables[t2]);
                    std::mem::swap(&mut a[s1], &mut b[s2]);
                    if self.table_cost(&a) + self.table_cost(&b) < before {
                        tables[t1] = a;
                        tables[t2] = b;
                        improved = true;
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }

    /// The tables with bots (`bots` of them at each) for the players
    /// `beside` them.
    fn bot_tables(
        &self,
        beside: &[usize],
        bots: &[usize],
        rank: &[usize],
    ) -> Vec<[Option<usize>; 4]> {
        let singles = bots.iter().filter(|&&b| b == 1).count();
        let mut by_bot_partner = beside.to_vec();
        by_bot_partner.sort_by_key(|&p| (self.bot_partner[p], rank[p]));
        let solos = &by_bot_partner[..singles];
        let mut paired: Vec<usize> =
            beside.iter().copied().filter(|p| !solos.contains(p)).collect();
        paired.sort_by_key(|&p| rank[p]);
        let mut pairs = self.partnerships(&paired);
        let mut tables = Vec::with_capacity(bots.len());
        for &solo in solos {
            let opposed = |[a, b]: [usize; 2]| {
                u32::from(self.opposed(solo, a)) + u32::from(self.opposed(solo, b))
            };
            let Some(best) = (0..pairs.len()).min_by_key(|&k| opposed(pairs[k])) else {
                break;
            };
            let [a, b] = pairs.swap_remove(best);
            tables.push([Some(a), Some(solo), Some(b), None]);
        }
        // Two bots at a table partner each other.
        for [a, b] in pairs {
            tables.push([Some(a), None, Some(b), None]);
        }
        tables
    }

    /// Partnerships for `players` (an even count, in the drawn order).
    fn partnerships(&self, players: &[usize]) -> Vec<[usize; 2]> {
        let mut free = players.to_vec();
        let mut pairs = Vec::with_capacity(players.len() / 2);
        while !free.is_empty() {
            let first = free.remove(0);
            let Some(best) = (0..free.len())
                .min_by_key(|&k| (self.partnered(first, free[k]), self.opposed(first, free[k])))
            else {
                break;
            };
            pairs.push([first, free.remove(best)]);
        }
        // Repair: a repeated partnership swaps partners with another pair
        // when both new partnerships are new.
        for i in 0..pairs.len() {
            let [a, b] = pairs[i];
            if self.partnered(a, b) == 0 {
                continue;
            }
            for j in 0..pairs.len() {
                let [c, d] = pairs[j];
                if j == i {
                    continue;
                }
                if self.partnered(a, c) == 0 && self.partnered(b, d) == 0 {
                    pairs[i] = [a, c];
                    pairs[j] = [b, d];
                    break;
                }
                if self.partnered(a, d) == 0 && self.partnered(b, c) == 0 {
                    pairs[i] = [a, d];
                    pairs[j] = [b, c];
                    break;
                }
            }
        }
        pairs
    }

    /// Partnerships paired into tables, fewest repeated opponents first.
    fn tables(&self, mut pairs: Vec<[usize; 2]>) -> Vec<[Option<usize>; 4]> {
        let cost = |[a, b]: [usize; 2], [c, d]: [usize; 2]| {
            u32::from(self.opposed(a, c))
                + u32::from(self.opposed(a, d))
                + u32::from(self.opposed(b, c))
                + u32::from(self.opposed(b, d))
        };
        let mut tables = Vec::with_capacity(pairs.len() / 2);
        while !pairs.is_empty() {
            let first = pairs.remove(0);
            let Some(best) = (0..pairs.len()).min_by_key(|&k| cost(first, pairs[k])) else {
                break;
            };
            let [c, d] = pairs.remove(best);
            tables.push([Some(first[0]), Some(c), Some(first[1]), Some(d)]);
        }
        tables
    }
}
