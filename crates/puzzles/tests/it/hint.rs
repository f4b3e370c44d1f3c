//! Hints read the seat's view alone: the same view gives the same hint
//! whatever the hidden cards, and the hint is one of the legal actions.

use euchre_engine::{Deal, Game, Rules, Viewer};
use euchre_puzzles::hint;

#[test]
fn a_hint_is_legal_and_the_same_for_every_deal_the_seat_cannot_tell_apart() {
    let rules = Rules::default();
    for seed in 0..4u64 {
        let game = Game::new(rules, seed).expect("valid rules");
        let seat = game.turn().expect("a seat to bid");
        // The two seats after the one to act swap their cards: the seat
        // to act cannot tell the deals apart.
        let (a, b) = (seat.next(4), seat.next(4).next(4));
        let mut deal: Deal = *game.hand().deal();
        deal.hands.swap(a.index(), b.index());
        let start = game.start().clone();
        let other = Game::with_deals(rules, seed, start, vec![deal]).expect("a sound deal");
        let (view, other_view) = (game.view(Viewer::Seat(seat)), other.view(Viewer::Seat(seat)));
        assert_eq!(view, other_view);

        let legal = game.legal_actions(seat).to_vec();
        let given = hint(&view, &legal, 9).expect("a hint");
        assert!(legal.contains(&given.action));
        assert!(given.why.starts_with("The expert bot would"), "{}", given.why);
        assert_eq!(hint(&other_view, &legal, 9), Some(given));
        assert_eq!(hint(&game.view(Viewer::Spectator), &legal, 9), None);
    }
}
