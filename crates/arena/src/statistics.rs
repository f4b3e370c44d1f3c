//! The statistics of a match: A's win rate's Wilson interval, and two runs
//! over the same deals compared game by game (paired by deal).

use std::collections::BTreeMap;

use anyhow::bail;
use serde::Serialize;

use crate::rows::GameRow;

/// Two runs over the same deals compared game by game: X's win rate less
/// Y's, with a 95% interval from the spread of the per-deal differences
/// (each deal's games share their cards, so the deal is the unit).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Deals and games both runs played.
    pub deals: u64,
    pub games: u64,
    pub x_won: u64,
    pub y_won: u64,
    /// Games X won and Y lost, and the other way round.
    pub x_only: u64,
    pub y_only: u64,
    /// X's win rate less Y's, and its 95% interval (normal approximation).
    pub difference: f64,
    pub interval: [f64; 2],
}

/// Compares runs `x` and `y` over the games both played (matched by deal
/// seed and A's side).
pub fn paired(x: &[GameRow], y: &[GameRow]) -> anyhow::Result<Paired> {
    let key = |row: &GameRow| (row.seed, row.a_team);
    let y_games: BTreeMap<(u64, u8), bool> = y.iter().map(|row| (key(row), row.a_won)).collect();
    // Per deal: X's wins less Y's, and the games.
    let mut deals: BTreeMap<u64, (i64, u64)> = BTreeMap::new();
    let (mut x_won, mut y_won, mut x_only, mut y_only) = (0, 0, 0, 0);
    for row in x {
        let Some(&other) = y_games.get(&key(row)) else { continue };
        let deal = deals.entry(row.seed).or_default();
        deal.0 += i64::from(row.a_won) - i64::from(other);
        deal.1 += 1;
        x_won += u64::from(row.a_won);
        y_won += u64::from(other);
        x_only += u64::from(row.a_won && !other);
        y_only += u64::from(!row.a_won && other);
    }
    if deals.len() < 2 {
        bail!("the runs share {} deals; at least two are needed", deals.len());
    }
    Ok(compare(&deals, [x_won, y_won, x_only, y_only]))
}

/// Run `x` against B (A's opponent) in a partnership form compared with B
/// playing itself on the same deals, without playing it: the arena seeds
/// each bot by its seat, not its side, so the two games of a deal between
/// equal bots are one game seen from both sides, and Y wins exactly one of
/// them. `x_only` counts the deals X won both games of, `y_only` those it
/// lost both of.
pub fn against_self_play(x: &[GameRow]) -> anyhow::Result<Paired> {
    let mut deals: BTreeMap<u64, (i64, u64)> = BTreeMap::new();
    for row in x {
        let deal = deals.entry(row.seed).or_default();
        deal.0 += i64::from(row.a_won);
        deal.1 += 1;
    }
    if let Some((seed, (_, games))) = deals.iter().find(|(_, (_, games))| *games != 2) {
        bail!("deal {seed} has {games} games, not the two of a partnership form");
    }
    if deals.len() < 2 {
        bail!("{} deals; at least two are needed", deals.len());
    }
    let x_won = deals.values().map(|(won, _)| *won as u64).sum();
    let swept = |wins: i64| deals.values().filter(|(won, _)| *won == wins).count() as u64;
    let (x_only, y_only) = (swept(2), swept(0));
    for (won, _) in deals.values_mut() {
        *won -= 1;
    }
    Ok(compare(&deals, [x_won, deals.len() as u64, x_only, y_only]))
}

/// The comparison from each deal's wins of X less Y's and its games, and
/// the totals (X's and Y's wins, X's alone and Y's alone).
fn compare(deals: &BTreeMap<u64, (i64, u64)>, totals: [u64; 4]) -> Paired {
    let [x_won, y_won, x_only, y_only] = totals;
    let games: u64 = deals.values().map(|(_, games)| games).sum();
    // The difference in rate is the ratio of the wins' differences to the
    // games; its variance, by the delta method, from each deal's residual.
    let n = deals.len() as f64;
    let mean = deals.values().map(|(d, _)| *d as f64).sum::<f64>() / games as f64;
    let residuals: f64 = deals.values().map(|(d, g)| (*d as f64 - mean * *g as f64).powi(2)).sum();
    let variance = n / (n - 1.0) * residuals / (games as f64).powi(2);
    let spread = 1.959_963_984_540_054 * variance.sqrt();
    Paired {
        deals: deals.len() as u64,
        games,
        x_won,
        y_won,
        x_only,
        y_only,
        difference: mean,
        interval: [mean - spread, mean + spread],
    }
}

/// The 95% Wilson score interval for `successes` out of `trials`.
pub fn wilson_interval(successes: u64, trials: u64) -> [f64; 2] {
    if trials == 0 {
        return [0.0, 1.0];
    }
    let z = 1.959_963_984_540_054_f64;
    let n = trials as f64;
    let p = successes as f64 / n;
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    [((centre - spread) / scale).max(0.0), ((centre + spread) / scale).min(1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{read_games, write_games};

    #[test]
    fn wilson_interval_matches_known_values() {
        // 70 of 100: 60.4% to 78.1% (the textbook figures).
        let [low, high] = wilson_interval(70, 100);
        assert!((low - 0.6041).abs() < 1e-3 && (high - 0.7810).abs() < 1e-3, "{low} {high}");
        assert_eq!(wilson_interval(0, 0), [0.0, 1.0]);
        let [low, high] = wilson_interval(10, 10);
        // All successes: n / (n + z^2) to 1.
        assert!(
            (low - 10.0 / (10.0 + 1.96f64.powi(2))).abs() < 1e-3 && high > 0.9999,
            "{low} {high}"
        );
    }

    /// A game of nine hands, won 10 to 4 by whoever won it.
    fn row(seed: u64, a_team: u8, a_won: bool) -> GameRow {
        GameRow { seed, a_team, a_won, hands: 9, a_points: 10, b_points: 4 }
    }

    #[test]
    fn games_round_trip_and_pair_by_deal() {
        // Y wins one game of each deal; X the same one, and both on deal 3.
        let y: Vec<GameRow> =
            (1..=4).flat_map(|seed| [row(seed, 0, true), row(seed, 1, false)]).collect();
        let mut x = y.clone();
        x[5].a_won = true;
        let mut csv = Vec::new();
        write_games(&x, &mut csv).expect("written");
        let text = String::from_utf8(csv).expect("text");
        assert!(text.starts_with("seed,a_team,a_won,hands,a_points,b_points\n1,0,1,9,10,4\n"));
        assert_eq!(read_games(&text).expect("read back"), x);
        assert!(read_games("seed,won\n1,1\n").is_err());
        let compared = paired(&x, &y).expect("four deals in common");
        assert_eq!((compared.deals, compared.games), (4, 8));
        assert_eq!(
            (compared.x_won, compared.y_won, compared.x_only, compared.y_only),
            (5, 4, 1, 0)
        );
        assert!((compared.difference - 0.125).abs() < 1e-12);
        // Per-deal differences 0, 0, 1, 0 (of 2 games): sd 0.5, so
        // 0.125 +- 1.96 * 0.5 / 2 / 2.
        let [low, high] = compared.interval;
        assert!((high - low - 2.0 * 1.959_964 * 0.125).abs() < 1e-5, "{low} {high}");
        // Only deals both played count.
        assert_eq!(paired(&x[..4], &y).expect("two deals").games, 4);
        assert!(paired(&x[..2], &y).is_err());
    }

    #[test]
    fn a_run_compares_with_the_opponents_self_play() {
        // X sweeps deal 1, splits deals 2 and 3, loses both of deal 4.
        let x = [(1, true, true), (2, true, false), (3, false, true), (4, false, false)]
            .into_iter()
            .flat_map(|(seed, first, second)| [row(seed, 0, first), row(seed, 1, second)])
            .collect::<Vec<_>>();
        let compared = against_self_play(&x).expect("four deals");
        assert_eq!((compared.deals, compared.games), (4, 8));
        assert_eq!(
            (compared.x_won, compared.y_won, compared.x_only, compared.y_only),
            (4, 4, 1, 1)
        );
        // Per deal +1, 0, 0, -1 of 2 games: the same as pairing with a run
        // that wins one game of each deal.
        let even: Vec<GameRow> =
            (1..=4).flat_map(|seed| [row(seed, 0, true), row(seed, 1, false)]).collect();
        let played = paired(&x, &even).expect("the same deals");
        assert_eq!((compared.difference, compared.interval), (played.difference, played.interval));
        assert!(against_self_play(&x[..7]).is_err(), "a deal with one game");
        assert!(against_self_play(&x[..2]).is_err(), "one deal");
    }
}
