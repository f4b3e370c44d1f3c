//! The bots' integration tests, in one binary to keep link time down.

mod legality;
mod scenarios;
mod search;
mod strength;

use euchre_bots::Bot;
use euchre_engine::{Action, Game, Viewer};

/// Actions one game may take at most: a game to ten points takes a few
/// hundred, so a game that runs this long is stuck.
const MAX_ACTIONS: usize = 20_000;

/// Plays `game` to the end, `bots[seat]` choosing for each seat from that
/// seat's view. Panics if a bot returns nothing, concedes, picks an action
/// the engine refuses, or the game does not end.
fn play_out(game: &mut Game, bots: &mut [Box<dyn Bot>; 4]) {
    for _ in 0..MAX_ACTIONS {
        let Some(seat) = game.turn() else { return };
        let view = game.view(Viewer::Seat(seat));
        let legal = game.legal_actions(seat);
        let action = bots[seat.index()]
            .choose(&view, &legal)
            .unwrap_or_else(|| panic!("{seat} chose nothing from {legal:?}"));
        assert!(legal.contains(&action), "{seat} chose {action:?}, not in {legal:?}");
        assert_ne!(action, Action::Concede, "{seat} conceded");
        if let Err(error) = game.apply(seat, action) {
            panic!("{seat}: {action:?} refused: {error}");
        }
    }
    panic!("the game did not end within {MAX_ACTIONS} actions");
}
