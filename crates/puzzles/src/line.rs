//! A hand played out from one option with every card shown: the bidding
//! finished as the analysis finishes it, the cards by the solver's best
//! play for each side.

use euchre_bots::bid_out;
use euchre_engine::sim::Solver;
use euchre_engine::{Action, Card, Hand, HandOutcome, NoEvents, Phase, Rules, Seat};

use crate::puzzle::{Line, Made};

/// `first` taken by `seat` in `hand`, then the rest of the hand. `None` if
/// `first` is not legal there.
pub(crate) fn play_out(
    hand: &Hand,
    seat: Seat,
    first: Action,
    solver: &mut Solver,
) -> Option<Line> {
    let mut hand = *hand;
    hand.apply_with(seat, first, &mut NoEvents).ok()?;
    let mut plays = Vec::new();
    if let Action::Play { card } = first {
        plays.push((seat, card));
    }
    bid_out(&mut hand);
    while hand.phase() == Phase::Playing {
        let mover = hand.turn()?;
        let card = best_card(&hand, mover, solver)?;
        hand.play_with(card, &mut NoEvents).ok()?;
        plays.push((mover, card));
    }
    let made = hand.maker().map(|maker| Made { maker, trump: hand.trump(), alone: hand.alone() });
    let outcome = hand.outcome();
    let rules = hand.rules();
    let (tricks, points) = outcome.as_ref().map_or((0, 0.0), |outcome| {
        (side_tricks(rules, seat, outcome), side_points(rules, seat, outcome))
    });
    Some(Line { first, made, plays, outcome, tricks, points })
}

/// The card `mover` plays with best play by both sides: the first of its
/// legal cards after which its side does best.
fn best_card(hand: &Hand, mover: Seat, solver: &mut Solver) -> Option<Card> {
    let maker = hand.maker()?;
    let rules = hand.rules();
    let makers_side = rules.team_of(mover) == rules.team_of(maker);
    let mut best: Option<(Card, u8)> = None;
    for card in hand.legal_plays() {
        let mut after = *hand;
        after.play_with(card, &mut NoEvents).ok()?;
        let Some(HandOutcome::Played(played)) = solver.outcome(&after) else { return None };
        let makers = played.makers_tricks();
        let better = match best {
            None => true,
            Some((_, so_far)) if makers_side => makers > so_far,
            Some((_, so_far)) => makers < so_far,
        };
        if better {
            best = Some((card, makers));
        }
    }
    best.map(|(card, _)| card)
}

/// The tricks `seat`'s side takes in `outcome`.
pub(crate) fn side_tricks(rules: &Rules, seat: Seat, outcome: &HandOutcome) -> u8 {
    let HandOutcome::Played(played) = outcome else { return 0 };
    let makers = played.makers_tricks();
    if rules.team_of(seat) == played.makers {
        makers
    } else {
        (rules.hand_size() as u8).saturating_sub(makers)
    }
}

/// The points `outcome` brings `seat`'s side less the others' (their
/// average, in the games without partners): the analysis's scale.
pub(crate) fn side_points(rules: &Rules, seat: Seat, outcome: &HandOutcome) -> f64 {
    let Some(points) = outcome.points() else { return 0.0 };
    let mine = rules.team_of(seat);
    let others = f64::from(rules.teams() - 1);
    points
        .teams()
        .map(
            |(team, points)| {
                if team == mine { f64::from(*points) } else { -f64::from(*points) / others }
            },
        )
        .sum()
}
