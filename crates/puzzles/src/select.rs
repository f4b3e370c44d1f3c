//! Which analysed decisions make puzzles: the rule, on the analysis's
//! numbers alone (the crate's documentation says it in words).

use euchre_analysis::{Decision, KnownOption};
use euchre_engine::Action;

/// Options whose expected points over the seat's worlds lie this close are
/// equally good: about the 95th percentile of how far two seeds' values of
/// one decision lie apart at the analysis's default 200 worlds.
pub const EQUAL: f64 = 0.1;
/// A bid, pass or discard makes a puzzle when its best options beat every
/// other by at least this many expected points: half a point, the
/// analysis's threshold of a mistake.
pub const BID_GAP: f64 = 0.5;
/// A card makes a puzzle when, besides taking a trick more with every card
/// shown, its best options beat every other by at least this many expected
/// points over the seat's worlds: the analysis's tolerance.
pub const PLAY_GAP: f64 = 0.25;
/// With every card shown, the card played took at least this many tricks
/// fewer than the best.
pub const TRICKS_LOST: u8 = 1;

/// The answers `decision` makes a puzzle with, or `None` if it makes none.
/// Both views must name the same answers: for a card, the options that take
/// the most tricks with every card shown are exactly the options within
/// [`EQUAL`] of the best over the seat's worlds, and every other option is
/// at least [`PLAY_GAP`] below the worst of them; for any other decision,
/// the options within [`EQUAL`] of the best are at least [`BID_GAP`] above
/// every other.
pub fn answers(decision: &Decision) -> Option<Vec<Action>> {
    let known = decision.known.as_ref()?;
    let (answers, gap) = match &decision.shown {
        Some(shown) => {
            if shown.tricks_lost < TRICKS_LOST {
                return None;
            }
            let most = shown.options.iter().map(|option| option.tricks).max()?;
            let best: Vec<Action> = shown
                .options
                .iter()
                .filter(|option| option.tricks == most)
                .map(|option| option.action)
                .collect();
            (best, PLAY_GAP)
        }
        None => (within_equal(&known.options), BID_GAP),
    };
    let expected = |action: &Action| {
        known.options.iter().find(|option| option.action == *action).map(|option| option.expected)
    };
    let values: Vec<f64> = answers.iter().map(expected).collect::<Option<_>>()?;
    let worst = values.iter().copied().fold(f64::INFINITY, f64::min);
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let others = known.options.iter().filter(|option| !answers.contains(&option.action));
    let best_other = others.map(|option| option.expected).fold(f64::NEG_INFINITY, f64::max);
    let clear = best - worst <= EQUAL && worst - best_other >= gap;
    // Every option an answer says nothing: there must be a wrong one.
    (clear && best_other.is_finite()).then_some(answers)
}

/// The options within [`EQUAL`] of the best.
fn within_equal(options: &[KnownOption]) -> Vec<Action> {
    let best = options.iter().map(|option| option.expected).fold(f64::NEG_INFINITY, f64::max);
    options
        .iter()
        .filter(|option| option.expected >= best - EQUAL)
        .map(|option| option.action)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_analysis::{Known, Mark, Shown, ShownOption};
    use euchre_engine::{Card, Seat};

    fn card(code: &str) -> Action {
        Action::Play { card: code.parse::<Card>().expect("a card") }
    }

    fn known(values: &[(Action, f64)]) -> Known {
        let options = values
            .iter()
            .map(|(action, expected)| KnownOption { action: *action, expected: *expected });
        Known { options: options.collect(), worlds: 200, points_lost: 0.0, mark: Mark::Best }
    }

    fn play(values: &[(Action, u8, f64)], chosen: Action) -> Decision {
        let most = values.iter().map(|value| value.1).max().unwrap_or(0);
        let mine = values.iter().find(|value| value.0 == chosen).map_or(0, |value| value.1);
        let shown = Shown {
            options: values
                .iter()
                .map(|(action, tricks, _)| ShownOption {
                    action: *action,
                    tricks: *tricks,
                    points: 0.0,
                })
                .collect(),
            tricks_lost: most - mine,
            points_lost: 0.0,
            mark: Mark::Best,
        };
        let pairs: Vec<(Action, f64)> = values.iter().map(|v| (v.0, v.2)).collect();
        Decision { index: 0, seat: Seat(0), chosen, shown: Some(shown), known: Some(known(&pairs)) }
    }

    #[test]
    fn a_card_is_a_puzzle_when_both_views_agree_clearly() {
        let (ace, nine) = (card("As"), card("9s"));
        let clear = play(&[(ace, 4, 1.0), (nine, 3, 0.5)], nine);
        assert_eq!(answers(&clear), Some(vec![ace]));
        // Best with every card shown, but not with what the seat knew.
        let unclear = play(&[(ace, 4, 0.6), (nine, 3, 0.5)], nine);
        assert_eq!(answers(&unclear), None);
        let contrary = play(&[(ace, 4, 0.0), (nine, 3, 0.5)], nine);
        assert_eq!(answers(&contrary), None);
        // The card played was best: nothing to find.
        assert_eq!(answers(&play(&[(ace, 4, 1.0), (nine, 3, 0.5)], ace)), None);
    }

    #[test]
    fn equally_good_cards_are_answers_together_only_if_both_views_say_so() {
        let (king, queen, nine) = (card("Ks"), card("Qs"), card("9s"));
        let both = play(&[(king, 4, 1.0), (queen, 4, 0.95), (nine, 3, 0.2)], nine);
        assert_eq!(answers(&both), Some(vec![king, queen]));
        let apart = play(&[(king, 4, 1.0), (queen, 4, 0.7), (nine, 3, 0.2)], nine);
        assert_eq!(answers(&apart), None);
    }

    #[test]
    fn a_bid_is_a_puzzle_when_its_best_is_clear_of_the_next() {
        let (pass, order) = (Action::Pass, Action::OrderUp { alone: false });
        let alone = Action::OrderUp { alone: true };
        let bid = |values: &[(Action, f64)]| Decision {
            index: 0,
            seat: Seat(1),
            chosen: pass,
            shown: None,
            known: Some(known(values)),
        };
        assert_eq!(answers(&bid(&[(pass, -0.4), (order, 0.3), (alone, -1.0)])), Some(vec![order]));
        assert_eq!(answers(&bid(&[(pass, -0.1), (order, 0.3)])), None);
        assert_eq!(
            answers(&bid(&[(pass, -0.5), (order, 0.3), (alone, 0.25)])),
            Some(vec![order, alone])
        );
        assert_eq!(answers(&bid(&[(pass, 0.3), (order, 0.3)])), None);
    }
}
