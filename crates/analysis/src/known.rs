//! With what the player knew: each option's expected points over worlds
//! dealt from the seat's own view, as the search bots deal them.

use euchre_bots::{ViewWorlds, bid_out};
use euchre_engine::sim::Solver;
use euchre_engine::{Action, GameView, Hand, NoEvents, Seat};
use rand::Rng;

use crate::grade::known_mark;
use crate::value::side_points;
use euchre_protocol::api::{Known, KnownOption};

/// How much less likely a world is for each bid of another seat that the
/// basic bot would not have made with that world's cards: the hard bot's
/// reading of the bidding, so that a player is valued on the hands the
/// bids pointed to, not on cards nobody could see.
pub const BID_MISS: f64 = 0.25;

/// Each of `options` for the seat of `view` valued over `worlds` worlds,
/// and how `chosen` compares with the best. `None` when no world fits.
pub(crate) fn analyse(
    view: &GameView,
    seat: Seat,
    chosen: Action,
    options: &[Action],
    worlds: u32,
    rng: &mut impl Rng,
    solver: &mut Solver,
) -> Option<Known> {
    let dealer = ViewWorlds::new(view, BID_MISS)?;
    let mut totals = vec![0.0; options.len()];
    let mut values = vec![0.0; options.len()];
    let (mut weights, mut dealt) = (0.0, 0);
    for _ in 0..worlds {
        let Some((hand, weight)) = dealer.sample(rng) else { continue };
        // A world where an option cannot be valued is left out whole, so
        // that every option averages over the same worlds.
        let valued = options.iter().zip(&mut values).all(|(action, value)| {
            world_value(&hand, seat, *action, solver).map(|v| *value = v).is_some()
        });
        if !valued || weight <= 0.0 {
            continue;
        }
        for (total, value) in totals.iter_mut().zip(&values) {
            *total += weight * value;
        }
        weights += weight;
        dealt += 1;
    }
    if weights <= 0.0 {
        return None;
    }
    let options: Vec<KnownOption> = options
        .iter()
        .zip(totals)
        .map(|(action, total)| KnownOption { action: *action, expected: total / weights })
        .collect();
    let mine = options.iter().find(|option| option.action == chosen)?.expected;
    let best = options.iter().map(|option| option.expected).fold(f64::NEG_INFINITY, f64::max);
    let points_lost = (best - mine).max(0.0);
    Some(Known { options, worlds: dealt, points_lost, mark: known_mark(points_lost) })
}

/// `action` taken in one world, the bidding finished by the basic bot for
/// every seat and the cards solved: the points it brings the seat's side.
fn world_value(hand: &Hand, seat: Seat, action: Action, solver: &mut Solver) -> Option<f64> {
    let mut after = *hand;
    after.apply_with(seat, action, &mut NoEvents).ok()?;
    bid_out(&mut after);
    let outcome = solver.outcome(&after)?;
    Some(side_points(hand.rules(), seat, &outcome))
}
