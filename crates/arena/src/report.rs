//! How a match went: the report's figures (JSON with `--json`) and the same
//! as a few lines of text.

use serde::Serialize;

use crate::rows::GameRow;

/// How a match went.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    pub games: u64,
    pub a_won: u64,
    /// A's share of the games won, and its 95% Wilson interval.
    pub a_win_rate: f64,
    pub a_win_interval: [f64; 2],
    /// A's fair share: a half, or a third when A sits alone against two.
    pub fair_share: f64,
    pub hands: u64,
    /// Points each bot's seats scored per hand (per seat in the games
    /// without partners).
    pub a_points_per_hand: f64,
    pub b_points_per_hand: f64,
    pub a_times: Times,
    pub b_times: Times,
    /// Each game, in deal order (not in the JSON report: see
    /// [`write_games`](crate::write_games)).
    #[serde(skip)]
    pub per_game: Vec<GameRow>,
}

/// Decision times in milliseconds, over every decision with a choice.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Times {
    pub decisions: usize,
    pub wall: Percentiles,
    /// The thread's own running time; `None` where unknown.
    pub cpu: Option<Percentiles>,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Percentiles {
    pub(crate) fn of(mut millis: Vec<f64>) -> Percentiles {
        if millis.is_empty() {
            return Percentiles::default();
        }
        millis.sort_by(f64::total_cmp);
        // Nearest rank.
        let at =
            |q: f64| millis[((q * millis.len() as f64).ceil() as usize).clamp(1, millis.len()) - 1];
        Percentiles { p50: at(0.5), p99: at(0.99), max: at(1.0) }
    }
}

/// The report as a few lines of text.
pub fn describe(report: &Report) -> String {
    let [low, high] = report.a_win_interval;
    let times = |name: &str, times: &Times| {
        let wall = times.wall;
        let cpu = times.cpu.map_or(String::new(), |cpu| {
            format!(", thread time p50 {:.2} p99 {:.2} max {:.2}", cpu.p50, cpu.p99, cpu.max)
        });
        format!(
            "{name}: {} decisions, wall p50 {:.2} p99 {:.2} max {:.2} ms{cpu}",
            times.decisions, wall.p50, wall.p99, wall.max
        )
    };
    format!(
        "{a} against {b}: {a} won {won} of {games} games, {rate:.1}% (95% interval {low:.1}% to {high:.1}%; fair share {fair:.1}%)\n\
         points per hand over {hands} hands: {a} {ap:.3}, {b} {bp:.3}\n{}\n{}",
        times(&report.a, &report.a_times),
        times(&report.b, &report.b_times),
        a = report.a,
        b = report.b,
        won = report.a_won,
        games = report.games,
        rate = report.a_win_rate * 100.0,
        low = low * 100.0,
        high = high * 100.0,
        fair = report.fair_share * 100.0,
        hands = report.hands,
        ap = report.a_points_per_hand,
        bp = report.b_points_per_hand,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let p = Percentiles::of((1..=100).map(f64::from).collect());
        assert_eq!((p.p50, p.p99, p.max), (50.0, 99.0, 100.0));
    }
}
