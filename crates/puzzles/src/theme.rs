//! A puzzle's themes, named from the position and its answers alone.

use euchre_engine::trump::effective_suit;
use euchre_engine::view::TrickView;
use euchre_engine::{Action, Card, GameView, Hand, Phase, Seat};

use crate::puzzle::{Kind, Theme};

/// The themes of `seat`'s decision in `hand` (which `view` shows it) with
/// `answers`.
pub(crate) fn themes(
    hand: &Hand,
    view: &GameView,
    seat: Seat,
    kind: Kind,
    answers: &[Action],
) -> Vec<Theme> {
    let mut themes = Vec::new();
    let every = |test: &dyn Fn(&Action) -> bool| !answers.is_empty() && answers.iter().all(test);
    match kind {
        Kind::Bid => {
            if hand.phase() == Phase::OrderingUp
                && every(&|action| matches!(action, Action::OrderUp { .. }))
            {
                themes.push(Theme::OrderingUp);
            }
            let alone = |action: &Action| {
                matches!(
                    action,
                    Action::OrderUp { alone: true }
                        | Action::Call { alone: true, .. }
                        | Action::CallNoTrump { alone: true }
                )
            };
            if every(&alone) {
                themes.push(Theme::GoingAlone);
            }
        }
        Kind::Discard => {
            if hand.phase() == Phase::DealerDiscard {
                themes.push(Theme::DealersDiscard);
            }
        }
        Kind::Card => card_themes(hand, view, seat, answers, &mut themes),
    }
    themes
}

fn card_themes(
    hand: &Hand,
    view: &GameView,
    seat: Seat,
    answers: &[Action],
    themes: &mut Vec<Theme>,
) {
    let (Some(trump), Some(maker)) = (hand.trump(), hand.maker()) else { return };
    let is_trump = |card: Card| effective_suit(card, trump) == trump;
    let cards: Vec<Card> = answers
        .iter()
        .filter_map(|action| match action {
            Action::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    let all_trump = !cards.is_empty() && cards.iter().all(|card| is_trump(*card));
    let led = hand.trick().cards().first().map(|card| effective_suit(*card, trump));
    match led {
        None if all_trump => themes.push(Theme::LeadingTrump),
        Some(led) if led != trump && all_trump => {
            let follows = hand.holding(seat).iter().any(|card| effective_suit(card, trump) == led);
            if !follows {
                themes.push(Theme::Ruffing);
            }
        }
        _ => {}
    }
    let done: Vec<&TrickView> = view.tricks.iter().filter(|trick| trick.winner.is_some()).collect();
    let fallen = done.iter().flat_map(|trick| &trick.cards).any(|(_, card)| is_trump(*card));
    let holds_trump = hand.holding(seat).iter().any(is_trump);
    if done.len() >= 2 && fallen && holds_trump {
        themes.push(Theme::CountingTrump);
    }
    let rules = hand.rules();
    if hand.alone() && rules.team_of(seat) != rules.team_of(maker) {
        themes.push(Theme::SavingTheLoner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_engine::{CardSet, Deal, Game, GameStart, Rules, Viewer};

    fn cards(codes: &str) -> CardSet {
        codes.split(' ').map(|code| code.parse::<Card>().expect("a card")).collect()
    }

    fn play(code: &str) -> Action {
        Action::Play { card: code.parse().expect("a card") }
    }

    /// Seat 0 deals, the nine of hearts turned up; seat 2 holds no spade
    /// and one heart.
    fn dealt() -> Game {
        let rules = Rules::default();
        let hands = [
            cards("9s Ts Qs Ks As"),
            cards("Jh Jd Ah Kh Js"),
            cards("Th 9c Tc Jc Qc"),
            cards("Qh 9d Td Qd Kd"),
        ];
        let up = "9h".parse().expect("a card");
        let deal = Deal::from_hands(&rules, Seat(0), hands, up).expect("a sound deal");
        let start = GameStart { dealer: Seat(0), seating: [0, 1, 2, 3], shown: Vec::new() };
        Game::with_deals(rules, 1, start, vec![deal]).expect("a game")
    }

    /// Seat 1 orders hearts up, the dealer discards, and seat 1 is to lead.
    fn hearts_ordered_up() -> Game {
        let mut game = dealt();
        game.apply(Seat(1), Action::OrderUp { alone: false }).expect("ordered up");
        game.apply(Seat(0), Action::Discard { card: "9s".parse().expect("a card") })
            .expect("discarded");
        game
    }

    fn card_themes_of(game: &Game, seat: Seat, answers: &[Action]) -> Vec<Theme> {
        let view = game.view(Viewer::Seat(seat));
        themes(game.hand(), &view, seat, Kind::Card, answers)
    }

    #[test]
    fn leading_trump_and_ruffing_are_named_from_the_cards() {
        let mut game = hearts_ordered_up();
        assert_eq!(card_themes_of(&game, Seat(1), &[play("Jh")]), vec![Theme::LeadingTrump]);
        assert_eq!(card_themes_of(&game, Seat(1), &[play("Js")]), vec![]);
        game.apply(Seat(1), play("Js")).expect("led");
        assert_eq!(card_themes_of(&game, Seat(2), &[play("Th")]), vec![Theme::Ruffing]);
        assert_eq!(card_themes_of(&game, Seat(2), &[play("9c")]), vec![]);
    }

    #[test]
    fn ordering_up_and_going_alone_are_named_from_the_answers() {
        let game = dealt();
        let view = game.view(Viewer::Seat(Seat(1)));
        let bid_themes =
            |answers: &[Action]| themes(game.hand(), &view, Seat(1), Kind::Bid, answers);
        let alone = [Action::OrderUp { alone: true }];
        assert_eq!(bid_themes(&alone), vec![Theme::OrderingUp, Theme::GoingAlone]);
        assert_eq!(bid_themes(&[Action::OrderUp { alone: false }]), vec![Theme::OrderingUp]);
        assert_eq!(bid_themes(&[Action::Pass]), vec![]);
    }
}
