//! A hint at the table, for practice games: the expert bot's choice for the
//! seat to act, and one line of why, from the seat's own view alone.

use euchre_analysis::known::BID_MISS;
use euchre_bots::{BotKind, ViewWorlds, bid_out};
use euchre_engine::egn::describe;
use euchre_engine::sim::Solver;
use euchre_engine::{Action, GameView, NoEvents, Viewer};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::line::side_points;

/// Worlds the line of why values the options over: enough for a sentence,
/// a few milliseconds of a core.
pub const HINT_WORLDS: u32 = 64;

/// What the expert would do, and why in a line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    pub action: Action,
    pub why: String,
}

/// The expert bot's choice among `legal` for the seat whose `view` this is
/// (a seat's view, at its turn), and a line saying what it and the best
/// other option are worth over worlds dealt from the same view. `None`
/// for a spectator's view or when nothing can be chosen. Only the view is
/// read, so a hint never knows a card the seat does not.
pub fn hint(view: &GameView, legal: &[Action], seed: u64) -> Option<Hint> {
    if !matches!(view.viewer, Viewer::Seat(_)) {
        return None;
    }
    let mut expert = BotKind::Expert.create(seed);
    let action = expert.choose(view, legal)?;
    let options: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|option| !matches!(option, Action::Claim | Action::Concede) || *option == action)
        .collect();
    let Some(values) = values(view, &options, seed) else {
        return Some(Hint { action, why: format!("The expert bot would {}.", describe(action)) });
    };
    let worth = |wanted: Action| values.iter().find(|(a, _)| *a == wanted).map(|(_, v)| *v);
    let mine = worth(action).unwrap_or_default();
    let other = values
        .iter()
        .filter(|(option, _)| *option != action)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .copied();
    let why = match other {
        Some((other, value)) => format!(
            "The expert bot would {}: over {HINT_WORLDS} deals of the cards you cannot see it is \
             worth {mine:+.2} points on average, the best other choice ({}) {value:+.2}.",
            describe(action),
            describe(other),
        ),
        None => format!("The expert bot would {}: it is the only choice.", describe(action)),
    };
    Some(Hint { action, why })
}

/// Each of `options`' expected points for the seat's side over worlds dealt
/// from `view`, as the analysis values them (the bidding finished by the
/// basic bot's bids, the cards solved). `None` when no world fits.
fn values(view: &GameView, options: &[Action], seed: u64) -> Option<Vec<(Action, f64)>> {
    let Viewer::Seat(seat) = view.viewer else { return None };
    let worlds = ViewWorlds::new(view, BID_MISS)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut solver = Solver::new();
    let mut totals = vec![0.0; options.len()];
    let mut weights = 0.0;
    for _ in 0..HINT_WORLDS {
        let Some((hand, weight)) = worlds.sample(&mut rng) else { continue };
        let mut values = Vec::with_capacity(options.len());
        for option in options {
            let mut after = hand;
            if after.apply_with(seat, *option, &mut NoEvents).is_err() {
                break;
            }
            bid_out(&mut after);
            let Some(outcome) = solver.outcome(&after) else { break };
            values.push(side_points(after.rules(), seat, &outcome));
        }
        // A world where some option cannot be valued is left out whole.
        if values.len() != options.len() || weight <= 0.0 {
            continue;
        }
        for (total, value) in totals.iter_mut().zip(values) {
            *total += weight * value;
        }
        weights += weight;
    }
    (weights > 0.0).then(|| {
        options.iter().copied().zip(totals.into_iter().map(|total| total / weights)).collect()
    })
}
