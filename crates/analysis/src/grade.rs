//! Marks from losses, and each seat's totals over a match (the thresholds
//! and why are in the crate's documentation).

use euchre_engine::Seat;

use euchre_protocol::api::{HandAnalysis, Mark, PlayerSummary};

/// Below this many expected points lost, a choice is within tolerance.
pub const TOLERANCE: f64 = 0.25;
/// From this many expected points lost, a mistake.
pub const MISTAKE: f64 = 0.5;
/// From this many expected points lost, a blunder.
pub const BLUNDER: f64 = 1.0;
/// Losses this small are rounding, not a worse choice.
const SAME: f64 = 1e-9;

/// The mark of a choice that gave up `loss` expected points.
pub fn known_mark(loss: f64) -> Mark {
    if loss <= SAME {
        Mark::Best
    } else if loss < TOLERANCE {
        Mark::Good
    } else if loss < MISTAKE {
        Mark::Inaccuracy
    } else if loss < BLUNDER {
        Mark::Mistake
    } else {
        Mark::Blunder
    }
}

/// The mark of a card that, with every card shown, gave up `tricks` and
/// `points`: any trick or point lost is a mistake.
pub fn shown_mark(tricks: u8, points: f64) -> Mark {
    if tricks > 0 || points > SAME { Mark::Mistake } else { Mark::Best }
}

/// Each of `players` seats' totals over `hands`.
pub(crate) fn summaries(players: u8, hands: &[HandAnalysis]) -> Vec<PlayerSummary> {
    let mut summaries: Vec<PlayerSummary> = Seat::all(players)
        .map(|seat| PlayerSummary {
            seat,
            decisions: 0,
            within_tolerance: 0,
            accuracy: None,
            points_lost: 0.0,
            inaccuracies: 0,
            mistakes: 0,
            blunders: 0,
            card_plays: 0,
            card_mistakes: 0,
            tricks_lost: 0,
            shown_points_lost: 0.0,
        })
        .collect();
    for decision in hands.iter().flat_map(|hand| &hand.decisions) {
        let Some(summary) = summaries.get_mut(decision.seat.index()) else { continue };
        if let Some(known) = &decision.known {
            summary.decisions += 1;
            summary.points_lost += known.points_lost;
            match known.mark {
                Mark::Best | Mark::Good => summary.within_tolerance += 1,
                Mark::Inaccuracy => summary.inaccuracies += 1,
                Mark::Mistake => summary.mistakes += 1,
                Mark::Blunder => summary.blunders += 1,
            }
        }
        if let Some(shown) = &decision.shown {
            summary.card_plays += 1;
            summary.card_mistakes += u32::from(shown.mark != Mark::Best);
            summary.tricks_lost += u32::from(shown.tricks_lost);
            summary.shown_points_lost += shown.points_lost;
        }
    }
    for summary in &mut summaries {
        summary.accuracy = (summary.decisions > 0)
            .then(|| f64::from(summary.within_tolerance) / f64::from(summary.decisions));
    }
    summaries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_thresholds() {
        assert_eq!(known_mark(0.0), Mark::Best);
        assert_eq!(known_mark(0.1), Mark::Good);
        assert_eq!(known_mark(TOLERANCE), Mark::Inaccuracy);
        assert_eq!(known_mark(MISTAKE), Mark::Mistake);
        assert_eq!(known_mark(BLUNDER), Mark::Blunder);
        assert_eq!(known_mark(3.0), Mark::Blunder);
        assert_eq!(shown_mark(0, 0.0), Mark::Best);
        assert_eq!(shown_mark(1, 0.0), Mark::Mistake);
        assert_eq!(shown_mark(0, 1.0), Mark::Mistake);
    }
}
