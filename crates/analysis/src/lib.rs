//! The solver's analysis of finished Euchre hands: every choice a player
//! made, valued two ways, marked, and totalled per player.
//!
//! Pure: no I/O, no clock. The analysis is a function of the record and
//! the [`Settings`] (its seed included), so it is computed once and stored.
//!
//! ```
//! use euchre_analysis::{Settings, analyse};
//! use euchre_engine::{Action, Game, Rules};
//!
//! // A game played to the end, always making trump and playing the first legal card.
//! let mut game = Game::new(Rules::default(), 7).unwrap();
//! while let Some(seat) = game.turn() {
//!     let actions = game.legal_actions(seat);
//!     let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
//!     game.apply(seat, *action).unwrap();
//! }
//! let analysis = analyse(game.record(), &Settings { worlds: 4, seed: 1 }).unwrap();
//! assert_eq!(analysis.hands.len(), game.record().hands.len());
//! assert_eq!(analysis.players.len(), 4);
//! ```
//!
//! # With every card shown
//!
//! Each card played where the seat had a choice ([`shown`]): every legal
//! card is played and the rest of the hand solved double-dummy by the
//! engine's [`Solver`], giving the tricks and points of the seat's side.
//! The played card's loss is its distance from the best; a card that costs
//! a trick or changes the hand's points is a [`Mark::Mistake`]. Bids have
//! no value of this kind: what they are worth depends on bids to come.
//!
//! # With what the player knew
//!
//! Each decision ([`known`]: bids, going alone, defending alone, the
//! dealer's and the loner's discards, the card passed for best, each card)
//! is valued over worlds dealt from the seat's own view as the search bots
//! deal them ([`euchre_bots::ViewWorlds`]), each weighed by how well it
//! explains the others' bids ([`known::BID_MISS`]), so a player is not
//! blamed for cards nobody could see. In each world the option is taken,
//! the bidding finished by the basic bot for every seat, and the cards
//! solved: its expected points are the weighted average of the points it
//! brings the seat's side, less the others'.
//!
//! # Marks, and why these thresholds
//!
//! A choice's loss is the best option's expected points less its own.
//! Below [`grade::TOLERANCE`] (a quarter of a point) it is within
//! tolerance: [`Mark::Best`] when nothing is lost, [`Mark::Good`]
//! otherwise. From a quarter of a point it is an [`Mark::Inaccuracy`], from
//! half a point a [`Mark::Mistake`], from a whole point a
//! [`Mark::Blunder`]. lichess grades moves by the chance of winning lost
//! (10, 20 and 30 points of percentage); a Euchre hand's scale is its
//! points instead, and one point is the smallest a hand can change the
//! score by: a made hand. Losing a whole point in expectation is throwing
//! away a made hand, or half of a euchre; half a point is a coin flip
//! between those; a quarter, four times over, is a point. Below a quarter
//! the worlds cannot tell choices apart reliably: the values average
//! sampled worlds, and at the default 200 two seeds' losses for the same
//! decision differ by 0.016 on average and by 0.105 at the 95th percentile
//! (BENCHMARKS.md), so a quarter of a point is well above the noise.
//!
//! A player's accuracy is the share of their decisions within tolerance;
//! their points lost are the sum of the losses ([`PlayerSummary`]).

pub mod grade;
pub mod known;
pub mod shown;
mod value;

use euchre_engine::record::HandRecord;
use euchre_engine::sim::Solver;
use euchre_engine::{
    Action, Game, GameRecord, Hand, NoEvents, ReplayError, RuleError, Seat, Viewer,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

// The report's types are the HTTP API's, declared in the protocol crate
// for the server that serves them and the clients that read them.
pub use euchre_protocol::api::{
    Decision, GameAnalysis, HandAnalysis, Known, KnownOption, Mark, PlayerSummary, Shown,
    ShownOption,
};

/// Worlds dealt per decision by default: see BENCHMARKS.md for what a
/// match costs at this number and how much the marks move between seeds.
pub const DEFAULT_WORLDS: u32 = 200;

/// How an analysis is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Worlds dealt for each decision valued with what the player knew; 0
    /// values the cards with every card shown only.
    pub worlds: u32,
    /// Where the worlds are dealt from. Each decision draws from its own
    /// generator, seeded by this, the hand and the action.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { worlds: DEFAULT_WORLDS, seed: 0 }
    }
}

/// Why a record cannot be analysed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("the record does not replay: {0}")]
    Replay(#[from] ReplayError),
    #[error("hand {hand}, action {action}: {error}")]
    Illegal { hand: u32, action: u32, error: RuleError },
}

/// Analyses every finished hand of `record` (a hand still in progress is
/// left out). The record is replayed first, so a record that does not
/// replay is refused, never half analysed.
pub fn analyse(record: &GameRecord, settings: &Settings) -> Result<GameAnalysis, AnalysisError> {
    let mut game = replayable(record)?;
    // One table each for the whole match: a solver's entries are whole
    // positions, so they never go stale, and the memory is fixed.
    let mut solvers = (Solver::new(), Solver::new());
    let mut hands = Vec::with_capacity(record.hands.len());
    for (number, recorded) in record.hands.iter().enumerate() {
        if recorded.outcome.is_none() {
            break;
        }
        let number = number as u32;
        hands.push(analyse_actions(&mut game, recorded, number, None, settings, &mut solvers)?);
    }
    let players = grade::summaries(record.rules.players, &hands);
    Ok(GameAnalysis { worlds: settings.worlds, seed: settings.seed, hands, players })
}

/// Analyses `seat`'s decisions in finished hand `number` of `record` alone
/// (the hands before are replayed, not analysed): what a review after the
/// hand needs. `None` for a hand not in the record or not finished.
pub fn analyse_hand(
    record: &GameRecord,
    number: u32,
    seat: Seat,
    settings: &Settings,
) -> Result<Option<HandAnalysis>, AnalysisError> {
    let finished = record.hands.get(number as usize).is_some_and(|hand| hand.outcome.is_some());
    if !finished {
        return Ok(None);
    }
    let mut game = replayable(record)?;
    for (earlier, recorded) in record.hands.iter().take(number as usize).enumerate() {
        for (index, step) in recorded.actions.iter().enumerate() {
            game.apply_with(step.seat, step.action, &mut NoEvents).map_err(|error| {
                AnalysisError::Illegal { hand: earlier as u32, action: index as u32, error }
            })?;
        }
    }
    let recorded = &record.hands[number as usize];
    let mut solvers = (Solver::new(), Solver::new());
    analyse_actions(&mut game, recorded, number, Some(seat), settings, &mut solvers).map(Some)
}

/// The decision of `hand` that lost the most (with what the player knew
/// where that was valued, else with every card shown), if it lost enough
/// to be marked: an inaccuracy or worse.
pub fn biggest_mistake(hand: &HandAnalysis) -> Option<&Decision> {
    let loss = |decision: &Decision| match (&decision.known, &decision.shown) {
        (Some(known), _) => known.points_lost,
        (None, Some(shown)) if shown.mark != Mark::Best => shown.points_lost.max(grade::TOLERANCE),
        _ => 0.0,
    };
    (hand.decisions.iter())
        .filter(|decision| loss(decision) >= grade::TOLERANCE)
        .max_by(|a, b| loss(a).total_cmp(&loss(b)))
}

/// The game `record` is played in, ready for its first action: the record
/// is replayed first, so one that does not replay is refused, never half
/// analysed.
fn replayable(record: &GameRecord) -> Result<Game, AnalysisError> {
    Game::replay(record)?;
    let deals = record.hands.iter().map(|hand| hand.deal).collect();
    Ok(Game::with_deals(record.rules, record.seed, record.start.clone(), deals)?)
}

/// Plays `recorded`'s actions on `game`, analysing each decision with a
/// choice (only `only`'s, if given).
fn analyse_actions(
    game: &mut Game,
    recorded: &HandRecord,
    number: u32,
    only: Option<Seat>,
    settings: &Settings,
    (shown_solver, known_solver): &mut (Solver, Solver),
) -> Result<HandAnalysis, AnalysisError> {
    let mut decisions = Vec::new();
    for (index, step) in recorded.actions.iter().enumerate() {
        let (seat, chosen) = (step.seat, step.action);
        let hand = game.hand();
        let options = options(hand, seat, chosen);
        if options.len() > 1 && only.is_none_or(|only| only == seat) {
            let shown = shown::analyse(hand, seat, chosen, &options, shown_solver);
            let known = (settings.worlds > 0)
                .then(|| {
                    let view = game.view(Viewer::Seat(seat));
                    let mut rng = decision_rng(settings.seed, number, index as u32);
                    let worlds = settings.worlds;
                    known::analyse(&view, seat, chosen, &options, worlds, &mut rng, known_solver)
                })
                .flatten();
            decisions.push(Decision { index: index as u32, seat, chosen, shown, known });
        }
        game.apply_with(seat, chosen, &mut NoEvents).map_err(|error| AnalysisError::Illegal {
            hand: number,
            action: index as u32,
            error,
        })?;
    }
    Ok(HandAnalysis { number, decisions })
}

/// What `seat` could have done instead of `chosen`: every legal action,
/// less a claim or a concession unless that was the choice (a claim is
/// offered only when it takes every trick, which the best card does too;
/// conceding is never better than playing on).
pub fn options(hand: &Hand, seat: Seat, chosen: Action) -> Vec<Action> {
    let mut options: Vec<Action> = hand
        .legal_actions(seat)
        .iter()
        .copied()
        .filter(|action| !matches!(action, Action::Claim | Action::Concede) || *action == chosen)
        .collect();
    if !options.contains(&chosen) {
        options.push(chosen);
    }
    options
}

/// The generator of one decision's worlds: its own, so that a decision's
/// analysis does not depend on the others'.
fn decision_rng(seed: u64, hand: u32, action: u32) -> ChaCha8Rng {
    let place = u64::from(hand) << 32 | u64::from(action);
    ChaCha8Rng::seed_from_u64(splitmix(seed ^ splitmix(place)))
}

/// SplitMix64's finalizer: nearby inputs, unrelated outputs.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
