//! With every card shown: each option of a card-play decision solved
//! double-dummy by the engine's [`Solver`].

use euchre_engine::sim::Solver;
use euchre_engine::{Action, Hand, NoEvents, Phase, Seat};

use crate::grade::shown_mark;
use crate::value::{side_points, side_tricks};
use euchre_protocol::api::{Shown, ShownOption};

/// Each of `options` for `seat` in `hand` (in card play) solved, and how
/// `chosen` compares with the best. `None` outside card play.
pub(crate) fn analyse(
    hand: &Hand,
    seat: Seat,
    chosen: Action,
    options: &[Action],
    solver: &mut Solver,
) -> Option<Shown> {
    if hand.phase() != Phase::Playing {
        return None;
    }
    let rules = hand.rules();
    let mut solved = Vec::with_capacity(options.len());
    for &action in options {
        let mut after = *hand;
        after.apply_with(seat, action, &mut NoEvents).ok()?;
        let outcome = solver.outcome(&after)?;
        solved.push(ShownOption {
            action,
            tricks: side_tricks(rules, seat, &outcome),
            points: side_points(rules, seat, &outcome),
        });
    }
    let mine = solved.iter().find(|option| option.action == chosen)?;
    // Points rise with the side's tricks, so the option with the most
    // tricks also has the most points.
    let best_tricks = solved.iter().map(|option| option.tricks).max()?;
    let best_points = solved.iter().map(|option| option.points).fold(f64::NEG_INFINITY, f64::max);
    let tricks_lost = best_tricks - mine.tricks;
    let points_lost = best_points - mine.points;
    Some(Shown {
        mark: shown_mark(tricks_lost, points_lost),
        tricks_lost,
        points_lost,
        options: solved,
    })
}
