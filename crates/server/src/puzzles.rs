//! The server's side of puzzles (`euchre-puzzles`): mining a finished
//! match's puzzles once its analysis is stored, rating a solver's answer
//! and the puzzle together (Glicko-2, as lichess rates both), and the day's
//! puzzle. docs/puzzles.md says how they are stored, served and rated.

use euchre_analysis::GameAnalysis;
use euchre_engine::{GameRecord, Seat};
use euchre_puzzles::{Match, MineError, Puzzle, human_first, mine};
use euchre_store::{Glicko, Millis, NewPuzzle};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// Where every solver and every puzzle starts: Glicko-2's new rating.
pub const START: Glicko = Glicko { rating: 1500.0, deviation: 350.0, volatility: 0.06 };

/// A day in milliseconds: the daily puzzle changes at midnight UTC.
pub const DAY_MS: Millis = 24 * 3600 * 1000;

/// The puzzles of match `id` (its record and analysis), ready to store:
/// drawn from the seats people played (`humans`; every seat in a match of
/// bots only), people's first.
pub fn mine_match(
    id: &str,
    record: &GameRecord,
    analysis: &GameAnalysis,
    humans: &[Seat],
) -> Result<Vec<NewPuzzle>, MineError> {
    let mut puzzles = mine(&Match { id, record, analysis, humans })?;
    human_first(&mut puzzles);
    Ok(puzzles.iter().filter_map(to_new).collect())
}

/// A puzzle as the store keeps it; `None` only if it cannot be written as
/// JSON, which the crate's types never fail.
fn to_new(puzzle: &Puzzle) -> Option<NewPuzzle> {
    let json = serde_json::to_value(puzzle).ok()?;
    let name = |value: serde_json::Value| value.as_str().map(str::to_owned);
    Some(NewPuzzle {
        match_id: puzzle.source.match_id.clone(),
        hand: puzzle.source.hand,
        action: puzzle.source.action,
        kind: name(serde_json::to_value(puzzle.question.kind).ok()?)?,
        themes: puzzle
            .themes
            .iter()
            .filter_map(|theme| name(serde_json::to_value(theme).ok()?))
            .collect(),
        by_human: puzzle.source.by_human,
        rating: START,
        puzzle: json,
    })
}

/// One answer rated as one game between the solver and the puzzle: a
/// right answer beats the puzzle, a wrong one loses to it. The new ratings,
/// the solver's first.
pub fn rate(solver: Glicko, puzzle: Glicko, correct: bool) -> (Glicko, Glicko) {
    let glicko = |g: Glicko| Glicko2Rating {
        rating: g.rating,
        deviation: g.deviation,
        volatility: g.volatility,
    };
    let back = |g: Glicko2Rating| Glicko {
        rating: g.rating,
        deviation: g.deviation,
        volatility: g.volatility,
    };
    let outcome = if correct { Outcomes::WIN } else { Outcomes::LOSS };
    let (solver, puzzle) =
        glicko2(&glicko(solver), &glicko(puzzle), &outcome, &Glicko2Config::new());
    (back(solver), back(puzzle))
}

/// The UTC day `now` falls in, as the millisecond it began.
pub fn day_start(now: Millis) -> Millis {
    now - now.rem_euclid(DAY_MS)
}

/// Which of `count` puzzles is the daily one on the day starting at
/// `day`: a fixed mix of the day's number (SplitMix64's finaliser), so
/// the choice is the same all day on every node and jumps about from one
/// day to the next.
pub fn daily_index(day: Millis, count: u64) -> u64 {
    let mut mixed = (day / DAY_MS) as u64;
    mixed = mixed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    mixed ^= mixed >> 31;
    mixed % count.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_right_answer_raises_the_solver_and_lowers_the_puzzle() {
        let (solver, puzzle) = rate(START, START, true);
        assert!(solver.rating > START.rating && puzzle.rating < START.rating);
        assert!(solver.deviation < START.deviation);
        let (solver, puzzle) = rate(START, START, false);
        assert!(solver.rating < START.rating && puzzle.rating > START.rating);
    }

    #[test]
    fn the_daily_choice_holds_all_day_and_stays_in_range() {
        let day = day_start(1_765_000_000_000);
        assert_eq!(day % DAY_MS, 0);
        assert_eq!(day_start(day + DAY_MS - 1), day);
        assert_eq!(daily_index(day, 10), daily_index(day_start(day + 3_600_000), 10));
        let picks: Vec<u64> = (0..30).map(|d| daily_index(day + d * DAY_MS, 7)).collect();
        assert!(picks.iter().all(|&pick| pick < 7));
        assert!(picks.windows(2).any(|pair| pair[0] != pair[1]), "it changes from day to day");
        assert_eq!(daily_index(day, 0), 0);
    }
}
