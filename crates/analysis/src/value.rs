//! What a hand's outcome is worth to one seat's side: its tricks and its
//! points, the two scales every option is valued on.

use euchre_engine::{HandOutcome, Rules, Seat};

/// The points `outcome` brings `seat`'s side less the others' (their
/// average, in the games without partners): the search bots' scale,
/// without their small bonus per trick. A hand thrown in is worth nothing.
pub(crate) fn side_points(rules: &Rules, seat: Seat, outcome: &HandOutcome) -> f64 {
    let HandOutcome::Played(played) = outcome else { return 0.0 };
    let mine = rules.team_of(seat);
    let others = f64::from(rules.teams() - 1);
    played
        .points
        .teams()
        .map(
            |(team, points)| {
                if team == mine { f64::from(*points) } else { -f64::from(*points) / others }
            },
        )
        .sum()
}

/// The tricks `seat`'s side takes in `outcome`: the makers', or, for a
/// defender, every trick the makers did not take (in the three-handed games
/// the defenders are one side, as the solver plays them).
pub(crate) fn side_tricks(rules: &Rules, seat: Seat, outcome: &HandOutcome) -> u8 {
    let HandOutcome::Played(played) = outcome else { return 0 };
    let makers = played.tricks[played.makers];
    if rules.team_of(seat) == played.makers {
        makers
    } else {
        (rules.hand_size() as u8).saturating_sub(makers)
    }
}
