//! The analysis checked against what it claims: the solver's value of each
//! position, a brute-force search of every small ending, and invariants
//! over random games, in every form of the game.

use std::collections::HashMap;

use euchre_analysis::{Decision, GameAnalysis, Mark, Settings, analyse};
use euchre_engine::sim::Solver;
use euchre_engine::{
    Action, Card, CardSet, Deal, Game, GameRecord, GameStart, Hand, HandOutcome, NoEvents, Preset,
    Rank, Rules, Seat, Suit, Team,
};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every form: each preset (partnership, cutthroat, three- and two-handed
/// with a dummy, two-handed plain, the joker, piquet, rubbers), no trump,
/// and loners with defence alone and call for best.
fn rule_sets() -> Vec<Rules> {
    let mut sets: Vec<Rules> = Preset::ALL.iter().map(|preset| preset.rules()).collect();
    let base = Rules::default();
    sets.push(Rules { allow_no_trump: true, ..base });
    sets.push(Rules { defend_alone: true, call_for_best: true, canadian_loner: true, ..base });
    sets.push(Rules { joker: true, defend_alone: true, ..base });
    // Short games: a few hands each.
    sets.into_iter().map(|rules| Rules { points_to_win: 3, ..rules }).collect()
}

/// A game of random legal actions (never a claim or a concession); with
/// no trump allowed, round one is mostly passed and no trump mostly called.
fn random_game(rules: Rules, seed: u64) -> GameRecord {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(rules, seed).expect("valid rules");
    while let Some(seat) = game.turn() {
        let legal: Vec<Action> = game
            .legal_actions(seat)
            .iter()
            .copied()
            .filter(|action| !matches!(action, Action::Claim | Action::Concede))
            .collect();
        let no_trump = legal.iter().find(|action| matches!(action, Action::CallNoTrump { .. }));
        let action = match no_trump {
            Some(call) if rng.random_range(0..2u32) == 0 => *call,
            _ if rules.allow_no_trump
                && legal.contains(&Action::Pass)
                && legal.iter().any(|a| matches!(a, Action::OrderUp { .. }))
                && rng.random_range(0..4u32) != 0 =>
            {
                Action::Pass
            }
            _ => legal[rng.random_range(0..legal.len())],
        };
        game.apply(seat, action).expect("legal");
    }
    game.record().clone()
}

/// The hand as it stood before each recorded action, by (hand, action).
fn positions(record: &GameRecord) -> HashMap<(u32, u32), Hand> {
    let deals = record.hands.iter().map(|hand| hand.deal).collect();
    let mut game = Game::with_deals(record.rules, record.seed, record.start.clone(), deals)
        .expect("a sound record");
    let mut positions = HashMap::new();
    for (number, hand) in record.hands.iter().enumerate() {
        for (index, step) in hand.actions.iter().enumerate() {
            positions.insert((number as u32, index as u32), *game.hand());
            game.apply(step.seat, step.action).expect("legal");
        }
    }
    positions
}

/// Every decision with the hand it was made in.
fn decisions<'a>(
    analysis: &'a GameAnalysis,
    positions: &'a HashMap<(u32, u32), Hand>,
) -> impl Iterator<Item = (&'a Decision, &'a Hand)> {
    analysis.hands.iter().flat_map(move |hand| {
        hand.decisions
            .iter()
            .map(move |decision| (decision, &positions[&(hand.number, decision.index)]))
    })
}

/// The tricks of `seat`'s side when the makers take `makers_tricks`.
fn side_tricks(hand: &Hand, seat: Seat, makers_tricks: u8) -> u8 {
    let makers = hand.rules().team_of(hand.maker().expect("trump is made"));
    if hand.rules().team_of(seat) == makers { makers_tricks } else { 5 - makers_tricks }
}

/// The points for `seat`'s side less the others' average when the makers
/// of `hand` take `taken` tricks, scored here from the rules.
fn side_points(hand: &Hand, seat: Seat, taken: u8) -> f64 {
    let rules = hand.rules();
    let scoring = rules.scoring;
    let makers = rules.team_of(hand.maker().expect("trump is made"));
    let mut points = vec![0.0; usize::from(rules.teams())];
    if taken >= 3 {
        points[makers.index()] = f64::from(match (taken, hand.alone()) {
            (5, true) => scoring.lone_march,
            (5, false) => scoring.march,
            _ => scoring.made,
        });
    } else {
        let euchre = match (hand.alone(), hand.lone_defender()) {
            (true, Some(_)) => scoring.defender_alone_euchre,
            (true, None) => scoring.lone_euchre,
            (false, _) => scoring.euchre,
        };
        for (team, points) in points.iter_mut().enumerate() {
            if team != makers.index() {
                *points = f64::from(euchre);
            }
        }
    }
    let mine = rules.team_of(seat).index();
    let others = f64::from(rules.teams() - 1);
    points.iter().enumerate().map(|(team, p)| if team == mine { *p } else { -p / others }).sum()
}

/// The makers' tricks from `hand` with best play, every card of every hand
/// tried: minimax by definition, on the engine's full `Hand`.
fn brute_force(hand: &Hand) -> u8 {
    let makers: Team = hand.rules().team_of(hand.maker().expect("trump is made"));
    let Some(seat) = hand.turn() else { return hand.tricks_won()[makers] };
    let values = hand.legal_plays().iter().map(|card| {
        let mut next = *hand;
        next.play_with(card, &mut NoEvents).expect("a legal card");
        brute_force(&next)
    });
    let best = if hand.rules().team_of(seat) == makers { values.max() } else { values.min() };
    best.expect("a legal card")
}

fn shown_only() -> Settings {
    Settings { worlds: 0, seed: 0 }
}

/// At every card played with a choice, in every form: the best option's
/// tricks are the solver's value of the position for the seat's side, and
/// the chosen option's are the solver's value of the position after it.
#[test]
fn the_best_card_is_worth_the_solvers_value_of_the_position() {
    let mut solver = Solver::new();
    let mut checked = 0;
    for (n, rules) in rule_sets().into_iter().enumerate() {
        for seed in 0..4 {
            let record = random_game(rules, 100 * n as u64 + seed);
            let analysis = analyse(&record, &shown_only()).expect("analysed");
            let positions = positions(&record);
            for (decision, hand) in decisions(&analysis, &positions) {
                let Some(shown) = &decision.shown else { continue };
                let Some(HandOutcome::Played(solved)) = solver.outcome(hand) else {
                    panic!("a hand in play has an outcome")
                };
                let makers_tricks = solved.tricks[solved.makers];
                let best = shown.options.iter().map(|option| option.tricks).max();
                assert_eq!(
                    best,
                    Some(side_tricks(hand, decision.seat, makers_tricks)),
                    "{rules:?}"
                );
                let chosen = shown.options.iter().find(|o| o.action == decision.chosen);
                let mut after = *hand;
                after.apply_with(decision.seat, decision.chosen, &mut NoEvents).expect("legal");
                let Some(HandOutcome::Played(then)) = solver.outcome(&after) else {
                    panic!("an outcome after the card")
                };
                let then = side_tricks(hand, decision.seat, then.tricks[then.makers]);
                assert_eq!(chosen.map(|o| o.tricks), Some(then));
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} cards");
}

/// At every card played with a choice in the last three tricks (three
/// cards or fewer in each hand), in every form: each option's tricks and
/// points, its loss and its mark are what a brute-force search of the
/// ending says.
#[test]
fn brute_force_agrees_on_every_play_of_small_endings() {
    let mut checked = 0;
    for (n, rules) in rule_sets().into_iter().enumerate() {
        let mut in_form = 0;
        for seed in 0..6 {
            let record = random_game(rules, 1000 + 100 * n as u64 + seed);
            let analysis = analyse(&record, &shown_only()).expect("analysed");
            let positions = positions(&record);
            for (decision, hand) in decisions(&analysis, &positions) {
                let Some(shown) = &decision.shown else { continue };
                if hand.tricks_played() < 2 {
                    continue;
                }
                let seat = decision.seat;
                let mut values = Vec::new();
                for option in &shown.options {
                    let Action::Play { card } = option.action else { panic!("only cards") };
                    let mut next = *hand;
                    next.play_with(card, &mut NoEvents).expect("legal");
                    let taken = brute_force(&next);
                    assert_eq!(option.tricks, side_tricks(hand, seat, taken), "{rules:?} {card}");
                    assert_eq!(option.points, side_points(hand, seat, taken), "{rules:?} {card}");
                    values.push(option.tricks);
                }
                let best = values.iter().max().copied().expect("options");
                let mine = shown.options.iter().find(|o| o.action == decision.chosen);
                let mine = mine.expect("the choice is an option");
                assert_eq!(shown.tricks_lost, best - mine.tricks);
                let expected = if best == mine.tricks { Mark::Best } else { Mark::Mistake };
                assert_eq!(shown.mark, expected);
                in_form += 1;
            }
        }
        assert!(in_form > 5, "{rules:?}: {in_form} plays");
        checked += in_form;
    }
    assert!(checked > 300, "{checked} plays");
}

/// A hand that cannot lose: seat 1, first to bid, holds the five highest
/// spades with a spade turned up. Passing it is a blunder with what the
/// player knew; ordering up alone, a certain march of 4, is the best.
#[test]
fn passing_a_certain_lone_march_is_a_blunder() {
    let rules = Rules::default();
    let s = |rank| Card::new(rank, Suit::Spades);
    let lone: CardSet = [
        Card::new(Rank::Jack, Suit::Spades),
        Card::new(Rank::Jack, Suit::Clubs),
        s(Rank::Ace),
        s(Rank::King),
        s(Rank::Queen),
    ]
    .into_iter()
    .collect();
    let mut rest: Vec<Card> =
        rules.pack().difference(lone).iter().filter(|card| *card != s(Rank::Nine)).collect();
    let mut hands = [CardSet::EMPTY; 4];
    hands[1] = lone;
    for seat in [0, 2, 3] {
        hands[seat] = rest.drain(..5).collect();
    }
    let deal = Deal::from_hands(&rules, Seat(0), hands, s(Rank::Nine)).expect("a deal");
    let start = GameStart { dealer: Seat(0), seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut game = Game::with_deals(rules, 1, start, vec![deal]).expect("a game");
    game.apply(Seat(1), Action::Pass).expect("legal");
    // The rest of the hand by whatever comes first, trump made somehow.
    while game.hand_number() == 0 {
        let seat = game.turn().expect("in progress");
        let legal = game.legal_actions(seat);
        let action = legal.iter().find(|a| **a != Action::Pass).unwrap_or(&legal[0]);
        game.apply(seat, *action).expect("legal");
    }
    let analysis = analyse(game.record(), &Settings { worlds: 20, seed: 3 }).expect("analysed");
    let first = &analysis.hands[0].decisions[0];
    assert_eq!((first.seat, first.chosen), (Seat(1), Action::Pass));
    let known = first.known.as_ref().expect("valued with what the player knew");
    assert_eq!(known.mark, Mark::Blunder, "{known:?}");
    let alone = known.options.iter().find(|o| o.action == Action::OrderUp { alone: true });
    assert!(alone.is_some_and(|o| (o.expected - 4.0).abs() < 1e-9), "{known:?}");
    let best = known.options.iter().map(|o| o.expected).fold(f64::NEG_INFINITY, f64::max);
    assert!((best - 4.0).abs() < 1e-9);
    assert!(analysis.players[1].accuracy.is_some_and(|a| a < 1.0));
    assert!(analysis.players[1].blunders >= 1);
}

/// The same record and settings give the same analysis, and it reads back
/// from JSON as written (it is stored).
#[test]
fn an_analysis_is_deterministic_and_round_trips() {
    let record = random_game(Rules::default(), 9);
    let settings = Settings { worlds: 6, seed: 42 };
    let first = analyse(&record, &settings).expect("analysed");
    assert_eq!(first, analyse(&record, &settings).expect("analysed"));
    let json = serde_json::to_string(&first).expect("serializes");
    let back: GameAnalysis = serde_json::from_str(&json).expect("parses");
    assert_eq!(back, first);
}

/// A record that does not replay is refused with a typed error.
#[test]
fn a_record_that_does_not_replay_is_refused() {
    let mut record = random_game(Rules::default(), 10);
    let step = record.hands[0].actions.iter_mut().find(|s| matches!(s.action, Action::Play { .. }));
    let step = step.expect("a card was played");
    step.seat = Seat((step.seat.0 + 1) % 4);
    let error = analyse(&record, &shown_only()).expect_err("refused");
    assert!(matches!(error, euchre_analysis::AnalysisError::Replay(_)), "{error}");
}

/// Records with claims and concessions, as live play and imports make
/// them (some concessions out of turn), in every form: they are analysed;
/// a claim, which takes every trick left, is the best choice both ways.
#[test]
fn claims_and_concessions_are_analysed() {
    let (mut claims, mut concessions) = (0, 0);
    for (n, rules) in rule_sets().into_iter().enumerate() {
        for seed in 0..3 {
            let mut rng = ChaCha8Rng::seed_from_u64(5000 + 100 * n as u64 + seed);
            let mut game = Game::new(rules, seed).expect("valid rules");
            while let Some(seat) = game.turn() {
                let legal = game.legal_actions(seat);
                let other = Seat(rng.random_range(0..rules.players));
                let action = if legal.contains(&Action::Claim) {
                    Action::Claim
                } else if rng.random_range(0..40u32) == 0
                    && game.legal_actions(other).contains(&Action::Concede)
                {
                    game.apply(other, Action::Concede).expect("legal");
                    continue;
                } else {
                    let choices: Vec<Action> =
                        legal.iter().copied().filter(|a| *a != Action::Concede).collect();
                    choices[rng.random_range(0..choices.len())]
                };
                game.apply(seat, action).expect("legal");
            }
            let record = game.record();
            concessions += record
                .hands
                .iter()
                .flat_map(|hand| &hand.actions)
                .filter(|step| step.action == Action::Concede)
                .count();
            let analysis = analyse(record, &Settings { worlds: 8, seed }).expect("analysed");
            for decision in analysis.hands.iter().flat_map(|hand| &hand.decisions) {
                if decision.chosen != Action::Claim {
                    continue;
                }
                claims += 1;
                let shown = decision.shown.as_ref().expect("a card-play decision");
                assert_eq!(shown.mark, Mark::Best, "{rules:?}: {shown:?}");
                let known = decision.known.as_ref().expect("valued over worlds");
                assert_eq!(known.mark, Mark::Best, "{rules:?}: {known:?}");
            }
        }
    }
    assert!(claims > 10, "{claims} claims");
    assert!(concessions > 5, "{concessions} concessions");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random games in every form: every decision had a choice and its
    /// choice among its options; losses are the distance to the best and
    /// never negative; marks follow the losses; each player's totals add
    /// up the decisions.
    #[test]
    fn analyses_of_random_games_hold_together(seed in any::<u64>(), form in 0usize..17) {
        let rules = rule_sets()[form % rule_sets().len()];
        let record = random_game(Rules { points_to_win: 2, ..rules }, seed);
        let analysis = analyse(&record, &Settings { worlds: 4, seed }).expect("analysed");
        let mut known_count = vec![0u32; usize::from(rules.players)];
        for decision in analysis.hands.iter().flat_map(|hand| &hand.decisions) {
            if let Some(shown) = &decision.shown {
                prop_assert!(shown.options.len() > 1);
                let mine = shown.options.iter().find(|o| o.action == decision.chosen);
                let mine = mine.expect("the choice is an option");
                let best = shown.options.iter().map(|o| o.tricks).max().unwrap_or(0);
                prop_assert_eq!(shown.tricks_lost, best - mine.tricks);
                prop_assert!(shown.points_lost >= 0.0);
                prop_assert_eq!(shown.mark == Mark::Best, shown.tricks_lost == 0);
            }
            if let Some(known) = &decision.known {
                known_count[decision.seat.index()] += 1;
                prop_assert!(known.options.len() > 1 && known.worlds > 0);
                let mine = known.options.iter().find(|o| o.action == decision.chosen);
                let mine = mine.expect("the choice is an option").expected;
                let best = known.options.iter().map(|o| o.expected).fold(f64::MIN, f64::max);
                prop_assert!((known.points_lost - (best - mine)).abs() < 1e-9);
                prop_assert_eq!(known.mark, euchre_analysis::grade::known_mark(known.points_lost));
            }
        }
        for player in &analysis.players {
            prop_assert_eq!(player.decisions, known_count[player.seat.index()]);
            let marked = player.within_tolerance + player.inaccuracies + player.mistakes + player.blunders;
            prop_assert_eq!(marked, player.decisions);
            if let Some(accuracy) = player.accuracy {
                prop_assert!((0.0..=1.0).contains(&accuracy));
            }
        }
    }
}

/// A hand's review is the match's analysis of that hand, for one seat: the
/// same decisions, valued the same (each decision's worlds come from its
/// own generator); its biggest mistake is the marked decision that lost most.
#[test]
fn one_hand_for_one_seat_is_the_matchs_analysis_of_it() {
    for seed in 0..3u64 {
        let record = random_game(Rules { points_to_win: 3, ..Rules::default() }, seed);
        let settings = Settings { worlds: 8, seed };
        let whole = analyse(&record, &settings).expect("analysed");
        for hand in &whole.hands {
            for seat in (0..4).map(Seat) {
                let alone = euchre_analysis::analyse_hand(&record, hand.number, seat, &settings)
                    .expect("analysed")
                    .expect("a finished hand");
                let mine: Vec<&Decision> =
                    hand.decisions.iter().filter(|decision| decision.seat == seat).collect();
                assert_eq!(alone.decisions.iter().collect::<Vec<_>>(), mine);
                let loss = |d: &Decision| d.known.as_ref().map_or(0.0, |known| known.points_lost);
                let worst = mine.iter().map(|d| loss(d)).fold(0.0, f64::max);
                match euchre_analysis::biggest_mistake(&alone) {
                    Some(decision) => {
                        assert_eq!(loss(decision), worst);
                        assert!(worst >= euchre_analysis::grade::TOLERANCE);
                    }
                    None => assert!(worst < euchre_analysis::grade::TOLERANCE),
                }
            }
        }
    }
    let record = random_game(Rules::default(), 1);
    let unfinished = record.hands.len() as u32 + 5;
    let none = euchre_analysis::analyse_hand(&record, unfinished, Seat(0), &Settings::default());
    assert!(none.expect("no error").is_none());
}
