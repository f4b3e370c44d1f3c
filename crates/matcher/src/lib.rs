//! The quick-play matcher: one pure function that forms tables from one
//! pool's waiting requests in a wave. No I/O and no clock: the wave's `now`
//! is an argument, so every rule here is tested by passing times in.
//!
//! In a rated pool the requests are taken in rating order, and a table is a
//! run of neighbours whose ratings all lie within the narrowest acceptable
//! range among them. A request's range (see [`Policy::range`]) starts wider
//! the less certain its rating is (Glicko-2's deviation) and widens with its
//! wait, up to a cap: a new player (deviation 350) is matched broadly at
//! once, a settled one narrowly at first. A casual pool ignores ratings and
//! seats the longest waiting first. Requests that allowed bots and have
//! waited long enough are then seated together, bots filling the rest.
//!
//! The server's quick-play service runs a wave per pool on a timer; the
//! load generator reads the [`Policy`] to know how long its arrivals wait.
//!
//! ```
//! use euchre_matcher::{Entry, Policy, Shape, wave};
//!
//! // Four settled players 300 points apart: each accepts 75 points at once.
//! let entries: Vec<Entry> = [1400.0, 1500.0, 1600.0, 1700.0]
//!     .iter()
//!     .map(|&rating| Entry { rating, deviation: 50.0, size: 1, since: 0, bots_at: None })
//!     .collect();
//! let four = Shape { seats: 4, partnerships: true };
//! let policy = Policy::default();
//! assert!(wave(&entries, four, true, &policy, 0).is_empty());
//! // 23 seconds later their ranges have widened to 305: one table.
//! let formed = wave(&entries, four, true, &policy, 23_000);
//! assert_eq!(formed.len(), 1);
//! assert!(formed[0].seats.iter().all(Option::is_some));
//! ```

use std::cmp::Ordering;

/// Milliseconds on whatever clock the caller uses, the same for every entry.
pub type Millis = u64;

/// A request as the matcher sees it: a player alone or a team of two.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Glicko-2 rating (a team: its members' mean).
    pub rating: f64,
    /// Glicko-2 deviation (a team: the root mean square of its members').
    pub deviation: f64,
    /// Players in the request: 1, or 2 for a team, seated opposite.
    pub size: u8,
    /// When it started waiting (a team: when the partner joined).
    pub since: Millis,
    /// From when bots may take the seats still missing; `None`: never.
    pub bots_at: Option<Millis>,
}

/// The table a pool forms: its seats, and whether they sit in partnerships
/// (seats 0 and 2 against 1 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub seats: u8,
    pub partnerships: bool,
}

/// How far apart in rating the players at one table may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// The range of a perfectly certain rating, at once.
    pub base_range: f64,
    /// Range added per point of deviation.
    pub per_deviation: f64,
    /// Range added per second of waiting.
    pub per_second: f64,
    /// The widest range, however long the wait.
    pub max_range: f64,
}

impl Default for Policy {
    fn default() -> Policy {
        // A new player (deviation 350) accepts ±225 at once; a settled one
        // (deviation 50) ±75, widening by 10 a second to ±800 at most.
        Policy { base_range: 50.0, per_deviation: 0.5, per_second: 10.0, max_range: 800.0 }
    }
}

impl Policy {
    /// The rating distance `entry` accepts at `now`.
    pub fn range(&self, entry: &Entry, now: Millis) -> f64 {
        let waited = now.saturating_sub(entry.since) as f64 / 1000.0;
        let range =
            self.base_range + self.per_deviation * entry.deviation + self.per_second * waited;
        range.min(self.max_range)
    }
}

/// Who takes one seat: member `member` (0 or 1) of entry `entry` (an index
/// into the wave's slice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub entry: usize,
    pub member: u8,
}

/// One table formed in a wave: each seat's player, or `None` for a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formed {
    pub seats: Vec<Option<Placed>>,
}

/// How many unusable neighbours (teams that do not fit the seats left) a
/// table's search passes over before giving up: keeps a wave linear.
const LOOKAHEAD: usize = 8;

/// Forms what tables it can from `entries` at `now`; each entry is in at
/// most one of them. Entries left out wait for the next wave.
pub fn wave(
    entries: &[Entry],
    shape: Shape,
    rated: bool,
    policy: &Policy,
    now: Millis,
) -> Vec<Formed> {
    wave_apart(entries, shape, rated, policy, now, &|_, _| false)
}

/// [`wave`], never seating at one table two entries `apart` says must be
/// kept apart (by their indices: a block between their players). One such
/// entry waits for another table rather than holding up the rest.
pub fn wave_apart(
    entries: &[Entry],
    shape: Shape,
    rated: bool,
    policy: &Policy,
    now: Millis,
    apart: &dyn Fn(usize, usize) -> bool,
) -> Vec<Formed> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    if rated {
        order.sort_by(|&a, &b| {
            entries[a]
                .rating
                .total_cmp(&entries[b].rating)
                .then(entries[a].since.cmp(&entries[b].since))
        });
    } else {
        order.sort_by_key(|&i| entries[i].since);
    }
    let ranges: Vec<f64> = entries
        .iter()
        .map(|entry| if rated { policy.range(entry, now) } else { f64::INFINITY })
        .collect();
    let mut used = vec![false; entries.len()];
    let mut tables = Vec::new();
    for start in 0..order.len() {
        if used[order[start]] {
            continue;
        }
        let group = full_group(entries, &ranges, &order, &used, start, shape.seats, apart);
        if let Some(group) = group {
            for &i in &group {
                used[i] = true;
            }
            tables.push(seat(entries, &group, shape));
        }
    }
    // Those who allowed bots and waited long enough: together, bots in the rest.
    let ready = order.iter().copied().filter(|&i| {
        !used[i] && entries[i].bots_at.is_some_and(|at| at <= now) && entries[i].size <= shape.seats
    });
    let mut ready: Vec<usize> = ready.collect();
    ready.sort_by_key(|&i| entries[i].since);
    let mut group: Vec<usize> = Vec::new();
    let mut players = 0;
    for i in ready {
        if group.iter().any(|&j| apart(i, j)) {
            // Kept apart from someone at this table: the next wave's.
            continue;
        }
        if players + entries[i].size > shape.seats {
            tables.push(seat(entries, &group, shape));
            group.clear();
            players = 0;
        }
        group.push(i);
        players += entries[i].size;
    }
    if !group.is_empty() {
        tables.push(seat(entries, &group, shape));
    }
    tables
}

/// Entries that fill a table exactly, starting with `order[start]` and
/// taking its unused neighbours in order while every rating stays within
/// every member's range; `None` if no such run exists.
fn full_group(
    entries: &[Entry],
    ranges: &[f64],
    order: &[usize],
    used: &[bool],
    start: usize,
    seats: u8,
    apart: &dyn Fn(usize, usize) -> bool,
) -> Option<Vec<usize>> {
    let first = order[start];
    let mut group = vec![first];
    let mut players = entries[first].size;
    let (mut low, mut high) = (entries[first].rating, entries[first].rating);
    let mut narrowest = ranges[first];
    let mut passed = 0;
    for &next in &order[start + 1..] {
        if players == seats {
            break;
        }
        if used[next] {
            continue;
        }
        let entry = &entries[next];
        let (new_low, new_high) = (low.min(entry.rating), high.max(entry.rating));
        let new_narrowest = narrowest.min(ranges[next]);
        if new_high - new_low > new_narrowest {
            // In rating order, everyone further is further away still.
            break;
        }
        if players + entry.size > seats || group.iter().any(|&member| apart(member, next)) {
            passed += 1;
            if passed > LOOKAHEAD {
                break;
            }
            continue;
        }
        group.push(next);
        players += entry.size;
        (low, high, narrowest) = (new_low, new_high, new_narrowest);
    }
    (players == seats).then_some(group)
}

/// Gives the group's players their seats: a team on one side (0 and 2, or
/// 1 and 3), and four players alone split so that the sides' ratings are
/// as even as the order allows (lowest and highest against the middle two).
fn seat(entries: &[Entry], group: &[usize], shape: Shape) -> Formed {
    let mut seats: Vec<Option<Placed>> = vec![None; usize::from(shape.seats)];
    let mut singles: Vec<usize> = Vec::new();
    for &i in group {
        if entries[i].size == 2 && shape.partnerships {
            let side = if seats[0].is_none() { 0 } else { 1 };
            seats[side] = Some(Placed { entry: i, member: 0 });
            seats[side + 2] = Some(Placed { entry: i, member: 1 });
        } else {
            singles.extend(std::iter::repeat_n(i, usize::from(entries[i].size)));
        }
    }
    singles.sort_by(|&a, &b| {
        entries[a].rating.partial_cmp(&entries[b].rating).unwrap_or(Ordering::Equal)
    });
    let preference: Vec<usize> = if shape.partnerships && singles.len() == 4 {
        vec![0, 1, 3, 2]
    } else {
        (0..seats.len()).collect()
    };
    let mut members_seated = std::collections::HashMap::<usize, u8>::new();
    let mut free =
        preference.into_iter().filter(|&s| seats[s].is_none()).collect::<Vec<_>>().into_iter();
    for i in singles {
        let Some(s) = free.next() else { break };
        let member = members_seated.entry(i).or_insert(0);
        seats[s] = Some(Placed { entry: i, member: *member });
        *member += 1;
    }
    Formed { seats }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOUR: Shape = Shape { seats: 4, partnerships: true };
    const THREE: Shape = Shape { seats: 3, partnerships: false };

    fn alone(rating: f64, deviation: f64, since: Millis) -> Entry {
        Entry { rating, deviation, size: 1, since, bots_at: None }
    }

    fn team(rating: f64, since: Millis) -> Entry {
        Entry { rating, deviation: 50.0, size: 2, since, bots_at: None }
    }

    /// Each table's entries, sorted, and the tables sorted.
    fn tables_of(formed: &[Formed]) -> Vec<Vec<usize>> {
        let mut tables: Vec<Vec<usize>> = formed
            .iter()
            .map(|table| {
                let mut entries: Vec<usize> =
                    table.seats.iter().flatten().map(|p| p.entry).collect();
                entries.sort();
                entries.dedup();
                entries
            })
            .collect();
        tables.sort();
        tables
    }

    #[test]
    fn a_range_widens_with_the_wait_and_with_uncertainty() {
        let policy = Policy::default();
        let settled = alone(1500.0, 50.0, 0);
        let new = alone(1500.0, 350.0, 0);
        assert_eq!(policy.range(&settled, 0), 75.0);
        assert_eq!(policy.range(&settled, 10_000), 175.0);
        assert!(policy.range(&new, 0) > policy.range(&settled, 0));
        assert_eq!(policy.range(&settled, 10_000_000), policy.max_range);
    }

    #[test]
    fn settled_players_far_apart_match_only_once_their_ranges_have_widened() {
        let policy = Policy::default();
        // 300 points from lowest to highest; each accepts 75 at first.
        let entries: Vec<Entry> =
            [1400.0, 1500.0, 1600.0, 1700.0].iter().map(|&r| alone(r, 50.0, 0)).collect();
        assert!(wave(&entries, FOUR, true, &policy, 0).is_empty());
        assert!(wave(&entries, FOUR, true, &policy, 20_000).is_empty(), "275 < 300");
        let later = wave(&entries, FOUR, true, &policy, 23_000);
        assert_eq!(tables_of(&later), vec![vec![0, 1, 2, 3]]);
    }

    #[test]
    fn uncertain_players_match_wider_at_once() {
        let policy = Policy::default();
        let spread = [1400.0, 1500.0, 1550.0, 1600.0];
        let settled: Vec<Entry> = spread.iter().map(|&r| alone(r, 50.0, 0)).collect();
        let new: Vec<Entry> = spread.iter().map(|&r| alone(r, 350.0, 0)).collect();
        assert!(wave(&settled, FOUR, true, &policy, 0).is_empty());
        assert_eq!(wave(&new, FOUR, true, &policy, 0).len(), 1);
        // One settled player among new ones narrows the whole table.
        let mut mixed = new.clone();
        mixed[0].deviation = 50.0;
        assert!(wave(&mixed, FOUR, true, &policy, 0).is_empty());
    }

    #[test]
    fn neighbours_in_rating_sit_together() {
        let policy = Policy::default();
        let ratings = [1000.0, 2000.0, 1010.0, 2010.0, 1020.0, 2020.0];
        let entries: Vec<Entry> = ratings.iter().map(|&r| alone(r, 50.0, 0)).collect();
        let formed = wave(&entries, THREE, true, &policy, 0);
        assert_eq!(tables_of(&formed), vec![vec![0, 2, 4], vec![1, 3, 5]]);
    }

    #[test]
    fn a_casual_pool_seats_the_longest_waiting_first_whatever_their_ratings() {
        let policy = Policy::default();
        let entries: Vec<Entry> = [(900.0, 5), (2400.0, 1), (1500.0, 3), (1800.0, 2)]
            .iter()
            .map(|&(r, t)| alone(r, 50.0, t))
            .collect();
        let formed = wave(&entries, THREE, false, &policy, 10);
        assert_eq!(tables_of(&formed), vec![vec![1, 2, 3]]);
    }

    #[test]
    fn teams_sit_opposite() {
        let policy = Policy::default();
        let entries = vec![alone(1500.0, 50.0, 0), team(1500.0, 0), alone(1510.0, 50.0, 0)];
        let formed = wave(&entries, FOUR, true, &policy, 0);
        assert_eq!(formed.len(), 1);
        let seats = &formed[0].seats;
        let at = |seat: usize| seats[seat].expect("seated");
        assert_eq!((at(0).entry, at(2).entry), (1, 1));
        assert_ne!(at(0).member, at(2).member);
        assert_ne!(at(1).entry, at(3).entry);
        // Two teams: one a side.
        let two = vec![team(1500.0, 0), team(1520.0, 0)];
        let formed = wave(&two, FOUR, true, &policy, 0);
        let seats = &formed[0].seats;
        assert_eq!(seats[0].map(|p| p.entry), seats[2].map(|p| p.entry));
        assert_eq!(seats[1].map(|p| p.entry), seats[3].map(|p| p.entry));
        assert_ne!(seats[0].map(|p| p.entry), seats[1].map(|p| p.entry));
    }

    #[test]
    fn four_players_alone_are_split_evenly() {
        let policy = Policy::default();
        let entries: Vec<Entry> =
            [1500.0, 1530.0, 1510.0, 1520.0].iter().map(|&r| alone(r, 50.0, 0)).collect();
        let formed = wave(&entries, FOUR, true, &policy, 0);
        let by_seat: Vec<usize> =
            formed[0].seats.iter().map(|p| p.expect("seated").entry).collect();
        // 1500 and 1530 against 1510 and 1520.
        assert_eq!(by_seat, vec![0, 2, 1, 3]);
    }

    #[test]
    fn bots_fill_the_seats_of_those_who_allowed_them_once_their_wait_is_over() {
        let policy = Policy::default();
        let mut entries = vec![alone(1500.0, 50.0, 0), alone(1500.0, 50.0, 0)];
        entries[0].bots_at = Some(5_000);
        assert!(wave(&entries, FOUR, false, &policy, 4_999).is_empty());
        let formed = wave(&entries, FOUR, false, &policy, 5_000);
        assert_eq!(formed.len(), 1);
        let people: Vec<Placed> = formed[0].seats.iter().flatten().copied().collect();
        // Only the one who allowed bots sits with them.
        assert_eq!(people, vec![Placed { entry: 0, member: 0 }]);
        // A team with bots: opposite, bots on the other side.
        let with_team = vec![Entry { bots_at: Some(0), ..team(1500.0, 0) }];
        let formed = wave(&with_team, FOUR, false, &policy, 0);
        let seats = &formed[0].seats;
        assert!(
            seats[0].is_some() && seats[2].is_some() && seats[1].is_none() && seats[3].is_none()
        );
    }

    #[test]
    fn a_wave_of_eight_thousand_is_fast_and_seats_nobody_twice() {
        let policy = Policy::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let entries: Vec<Entry> = (0..8_000)
            .map(|i| {
                let rating = 1000.0 + (next() % 1000) as f64;
                let deviation = 40.0 + (next() % 310) as f64;
                let size = if i % 10 == 0 { 2 } else { 1 };
                Entry { rating, deviation, size, since: next() % 60_000, bots_at: None }
            })
            .collect();
        let started = std::time::Instant::now();
        let formed = wave(&entries, FOUR, true, &policy, 60_000);
        let took = started.elapsed();
        let mut seen = vec![0u8; entries.len()];
        for table in &formed {
            assert_eq!(table.seats.len(), 4);
            assert!(table.seats.iter().all(Option::is_some), "no bots in a rated pool");
            for placed in table.seats.iter().flatten() {
                seen[placed.entry] += 1;
            }
        }
        for (i, count) in seen.iter().enumerate() {
            assert!(*count == 0 || *count == entries[i].size, "entry {i} seated {count} times");
        }
        let seated: usize = seen.iter().map(|&c| usize::from(c)).sum();
        assert!(seated > 7_000, "most of a dense pool is seated: {seated}");
        // Generous for an unoptimised build on a shared machine; the bench
        // measures the real figure.
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    }

    /// Pairs kept apart (a block) are never seated together, by the pool's
    /// search or with bots, while everyone else is seated as before.
    #[test]
    fn entries_kept_apart_never_share_a_table() {
        let policy = Policy::default();
        let mut entries: Vec<Entry> = (0..40).map(|i| alone(1500.0, 350.0, i)).collect();
        for entry in entries.iter_mut().skip(30) {
            entry.bots_at = Some(0);
        }
        let apart = |a: usize, b: usize| {
            (a.is_multiple_of(3) && b.is_multiple_of(3)) || (a, b) == (1, 2) || (a, b) == (2, 1)
        };
        for rated in [true, false] {
            let formed = wave_apart(&entries, FOUR, rated, &policy, 1_000, &apart);
            let tables = tables_of(&formed);
            assert!(tables.len() >= 6, "{tables:?}");
            for table in &tables {
                for &a in table {
                    for &b in table {
                        assert!(a == b || !apart(a, b), "{a} and {b} together: {tables:?}");
                    }
                }
            }
        }
    }
}
