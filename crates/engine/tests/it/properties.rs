//! Property tests over random games under random rules and every preset:
//! consistent totals, `legal_actions` and `apply` agreeing on every possible
//! action, and no view or event ever showing a card its viewer may not see.

use euchre_engine::*;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules_strategy() -> impl Strategy<Value = Rules> {
    let presets = proptest::sample::select(Preset::ALL.to_vec()).prop_map(Preset::rules);
    let options = (
        proptest::sample::select(vec![Deck::NineToAce, Deck::EightToAce, Deck::SevenToAce]),
        1u8..=12,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        (2u8..=4, 1u8..=5, 2u8..=6),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        proptest::sample::select(vec![
            Preset::Standard,
            Preset::ThreeHanded,
            Preset::Cutthroat,
            Preset::TwoHanded,
            Preset::TwoHandedPlain,
        ]),
    )
        .prop_map(
            |(
                deck,
                points,
                stick,
                discard_up,
                pickup,
                as_pass,
                left_of_loner,
                farmers,
                draw,
                (lone_euchre, lone_march, defender_alone_euchre),
                (canadian_loner, defend_alone, call_for_best, joker, no_trump, rubber),
                form,
            )| {
                // The game form (seats, dummy) from a preset; options that
                // need partners only where there are partners.
                let form = form.rules();
                let partners = form.partnerships();
                Rules {
                    players: form.players,
                    dummy: form.dummy,
                    deck,
                    joker,
                    rubber: rubber && form.teams() == 2,
                    // The joker is a trump: the two do not go together.
                    allow_no_trump: no_trump && !joker,
                    points_to_win: points,
                    game_hands: None,
                    all_pass: if stick { AllPass::StickTheDealer } else { AllPass::Redeal },
                    scoring: Scoring {
                        lone_euchre,
                        lone_march,
                        defender_alone_euchre,
                        ..Scoring::default()
                    },
                    dealer_may_discard_up_card: discard_up,
                    dealer_picks_up_for_partner_loner: pickup,
                    turned_down_suit: if as_pass {
                        TurnedDownSuit::CountsAsPass
                    } else {
                        TurnedDownSuit::Rejected
                    },
                    loner_lead: if left_of_loner {
                        LonerLead::LeftOfLoner
                    } else {
                        LonerLead::LeftOfDealer
                    },
                    farmers_hand: farmers,
                    first_dealer: if draw { FirstDealer::Draw } else { FirstDealer::FirstJack },
                    canadian_loner: canadian_loner && partners,
                    defend_alone: defend_alone && partners,
                    call_for_best: call_for_best && partners,
                }
            },
        );
    prop_oneof![presets, options]
}

/// A random legal action, rarely conceding so most hands are played out.
fn choose(game: &Game, seat: Seat, rng: &mut ChaCha8Rng) -> Action {
    let mut actions = game.legal_actions(seat).to_vec();
    if actions.len() > 1 && rng.random_range(0..20) != 0 {
        actions.retain(|a| *a != Action::Concede);
    }
    actions[rng.random_range(0..actions.len())]
}

/// Plays a whole game (capped at `max_actions`) with random legal actions.
fn random_game(rules: Rules, seed: u64, max_actions: usize) -> Game {
    let mut game = Game::new(rules, seed).expect("valid rules");
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    for _ in 0..max_actions {
        let Some(seat) = game.turn() else { break };
        let action = choose(&game, seat, &mut rng);
        game.apply(seat, action).expect("a legal action is accepted");
    }
    game
}

/// The points a played hand is worth, from first principles.
fn expected_points(played: &PlayedHand, rules: &Rules) -> PerTeam<u8> {
    let scoring = &rules.scoring;
    let makers = rules.team_of(played.maker);
    let taken = played.tricks[makers];
    let mut points = PerTeam::new(rules.teams());
    let defenders = (0..rules.teams()).map(Team).filter(|team| *team != makers);
    match (taken, played.alone, played.lone_defender) {
        (5, true, _) => points[makers] = scoring.lone_march,
        (5, false, _) => points[makers] = scoring.march,
        (3 | 4, _, _) => points[makers] = scoring.made,
        (_, true, Some(_)) => {
            defenders.for_each(|team| points[team] = scoring.defender_alone_euchre)
        }
        (_, true, None) => defenders.for_each(|team| points[team] = scoring.lone_euchre),
        (_, false, _) => defenders.for_each(|team| points[team] = scoring.euchre),
    }
    points
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_games_add_up(rules in rules_strategy(), seed in any::<u64>()) {
        let game = random_game(rules, seed, 5_000);
        let record = game.record();
        let mut totals = PerTeam::<u16>::new(rules.teams());
        let mut games_won = 0;
        for (number, hand) in record.hands.iter().enumerate() {
            let mut seen = CardSet::EMPTY;
            let mut plays = 0;
            // Call for best: the card the loner's partner passed him, and to whom.
            let passed = hand.actions.iter().find_map(|step| match step.action {
                Action::PassCard { card } => Some((step.seat.partner(), card)),
                _ => None,
            });
            for step in &hand.actions {
                if let Action::Play { card } = step.action {
                    prop_assert!(!seen.contains(card), "{card} played twice");
                    let maker = match hand.outcome {
                        Some(HandOutcome::Played(played)) => Some(played.maker),
                        _ => None,
                    };
                    prop_assert!(hand.deal.hands[step.seat.index()].contains(card)
                        || (card == hand.deal.up_card && step.seat == hand.deal.dealer)
                        || passed == Some((step.seat, card))
                        || (hand.deal.dummy.contains(card) && maker == Some(step.seat)));
                    seen.insert(card);
                    plays += 1;
                }
            }
            match hand.outcome {
                Some(HandOutcome::Played(played)) => {
                    prop_assert_eq!(played.tricks.iter().sum::<u8>(), 5);
                    prop_assert_eq!(played.points, expected_points(&played, &rules));
                    let conceded_or_claimed = hand.actions.iter().any(|s| matches!(s.action, Action::Claim | Action::Concede));
                    if !conceded_or_claimed {
                        let sitting_out = u32::from(played.alone && rules.partnerships())
                            + u32::from(played.lone_defender.is_some());
                        let per_trick = u32::from(rules.players) - sitting_out;
                        prop_assert_eq!(plays, 5 * per_trick);
                    }
                }
                Some(HandOutcome::ThrownIn(_)) => prop_assert_eq!(plays, 0),
                None => prop_assert!(std::ptr::eq(hand, record.hands.last().expect("a hand"))),
            }
            if let Some(points) = hand.outcome.and_then(|o| o.points()) {
                for (team, points) in points.teams() {
                    totals[team] += u16::from(*points);
                }
            }
            // Playing rubbers, a game won before the last hand starts the next
            // one from zero; the record lists each game won.
            let best = totals.iter().max().copied().unwrap_or(0);
            let leaders = totals.iter().filter(|t| **t == best).count();
            if rules.rubber && number + 1 < record.hands.len() && best >= rules.points_to_win.into() && leaders == 1 {
                let result = record.games.get(games_won).copied();
                prop_assert_eq!(result.map(|g| g.scores), Some(totals));
                games_won += 1;
                totals = PerTeam::new(rules.teams());
            }
        }
        if rules.rubber {
            let finished = usize::from(game.winner().is_some());
            prop_assert_eq!(record.games.len(), games_won + finished);
            if let Some(team) = game.winner() {
                prop_assert_eq!(record.games.iter().filter(|g| g.winner == team).count(), 2);
            }
        }
        prop_assert_eq!(totals, game.scores());
        let target = u16::from(rules.points_to_win);
        if let Some(team) = game.winner() {
            // The winner reached the target and leads alone.
            prop_assert!(totals[team] >= target);
            prop_assert!(totals.teams().all(|(other, t)| other == team || *t < totals[team]));
        } else {
            // Nobody has won: below the target, or level at the top.
            let best = totals.iter().max().copied().unwrap_or(0);
            prop_assert!(best < target || totals.iter().filter(|t| **t == best).count() > 1);
        }
        // The record replays to the very same game.
        let replayed = Game::replay(record).expect("the record replays");
        prop_assert_eq!(replayed.record(), record);
    }

    #[test]
    fn legal_actions_are_exactly_the_accepted_ones(rules in rules_strategy(), seed in any::<u64>()) {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let universe = Action::every();
        // Two hands' worth of positions is plenty per case.
        for _ in 0..80 {
            let Some(turn) = game.turn() else { break };
            for seat in Seat::all(4).chain([Seat(4)]) {
                let legal = game.legal_actions(seat);
                for action in &universe {
                    let mut probe = game.clone();
                    let accepted = probe.apply(seat, *action);
                    prop_assert_eq!(accepted.is_ok(), legal.contains(action),
                        "{:?} by {}: {:?}", action, seat, accepted);
                    if accepted.is_err() {
                        // A refused action leaves no trace.
                        prop_assert_eq!(probe.record(), game.record());
                        prop_assert_eq!(probe.hand(), game.hand());
                    }
                }
            }
            let action = choose(&game, turn, &mut rng);
            game.apply(turn, action).expect("legal");
        }
    }

    #[test]
    fn nobody_sees_a_card_they_may_not(rules in rules_strategy(), seed in any::<u64>()) {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let viewers = [Viewer::Seat(Seat(0)), Viewer::Seat(Seat(1)), Viewer::Seat(Seat(2)), Viewer::Seat(Seat(3)), Viewer::Spectator];
        let mut public = public_cards(&game);
        for _ in 0..200 {
            let Some(turn) = game.turn() else { break };
            let action = choose(&game, turn, &mut rng);
            let events = game.apply(turn, action).expect("legal");
            if events.iter().any(|e| matches!(e, Event::HandDealt { .. })) {
                public = CardSet::EMPTY;
            }
            for event in &events {
                if let Event::Claimed { cards, .. } = event {
                    public = public.union(*cards);
                }
            }
            public = public.union(public_cards(&game));
            for viewer in viewers {
                let allowed = allowed_cards(&game, viewer, public);
                for event in &events {
                    let seen = event.for_viewer(viewer);
                    let leaked = seen.cards().difference(allowed_for_event(event, &game, viewer, allowed));
                    prop_assert!(leaked.is_empty(), "{:?} shows {:?} to {:?}", seen, leaked, viewer);
                }
                let view = game.view(viewer);
                let json = serde_json::to_string(&view).expect("serializable");
                let shown = cards_in_json(&json);
                let leaked = shown.difference(allowed);
                prop_assert!(leaked.is_empty(), "the view shows {:?} to {:?}: {}", leaked, viewer, json);
            }
        }
    }
}

/// Cards everybody has seen this hand: the up-card and every card played.
fn public_cards(game: &Game) -> CardSet {
    let hand = game.record().hands.last().expect("a hand");
    let mut public = CardSet::single(hand.deal.up_card);
    for step in &hand.actions {
        if let Action::Play { card } = step.action {
            public.insert(card);
        }
    }
    public
}

/// What `viewer` may see now: public cards, plus a seat's own hand and, for
/// the dealer, his own discard; under call for best, the passed card for the
/// loner and his partner, and the loner's own discard.
fn allowed_cards(game: &Game, viewer: Viewer, public: CardSet) -> CardSet {
    let mut allowed = public;
    if let Viewer::Seat(seat) = viewer {
        let hand = game.hand();
        allowed = allowed.union(hand.holding(seat)).union(hand.deal().hands[seat.index()]);
        if seat == hand.dealer()
            && let Some(discard) = hand.discard()
        {
            allowed.insert(discard);
        }
        if let Some(maker) = hand.maker() {
            if seat == maker && hand.dummy_taken() {
                allowed = allowed.union(hand.deal().dummy);
            }
            if let Some(card) =
                hand.passed_card().filter(|_| seat == maker || seat == maker.partner())
            {
                allowed.insert(card);
            }
            if let Some(card) = hand.loner_discard().filter(|_| seat == maker) {
                allowed.insert(card);
            }
        }
    }
    allowed
}

/// Events of a hand that just ended may mention its cards although the game
/// has moved on to the next deal; a new deal shows the viewer's new hand.
fn allowed_for_event(event: &Event, game: &Game, viewer: Viewer, allowed: CardSet) -> CardSet {
    match (event, viewer) {
        (Event::HandDealt { up_card, .. }, Viewer::Seat(seat)) => {
            allowed.union(game.hand().deal().hands[seat.index()]).union(CardSet::single(*up_card))
        }
        (Event::HandDealt { up_card, .. }, Viewer::Spectator) => CardSet::single(*up_card),
        (Event::Discarded { seat: by, card: Some(card) }, Viewer::Seat(seat)) if *by == seat => {
            allowed.union(CardSet::single(*card))
        }
        (Event::CardPassed { from, to, card: Some(card) }, Viewer::Seat(seat))
            if *from == seat || *to == seat =>
        {
            allowed.union(CardSet::single(*card))
        }
        (_, _) => allowed.union(event_public(event)),
    }
}

/// Cards an event shows to everybody.
fn event_public(event: &Event) -> CardSet {
    match event {
        Event::CardPlayed { card, .. }
        | Event::UpCardPickedUp { card, .. }
        | Event::UpCardTurnedDown { card } => CardSet::single(*card),
        Event::Claimed { cards, .. } => *cards,
        _ => CardSet::EMPTY,
    }
}

/// Every card code appearing as a JSON string in `json`.
fn cards_in_json(json: &str) -> CardSet {
    json.split('"').filter_map(|piece| piece.parse::<Card>().ok()).collect()
}

/// `Hand::with_holdings` deals the cards in hand otherwise in card play, and
/// refuses a deal that could not be: a card played, a card twice, a hand of
/// another size, or a hand not yet in card play.
#[test]
fn a_hand_takes_other_holdings_only_where_they_could_be() {
    let rules = Preset::Standard.rules();
    let mut checked = 0;
    for seed in 0..40 {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let bidding = *game.hand();
        assert_eq!(bidding.with_holdings([CardSet::EMPTY; 4]), None, "not in card play");
        let mut played = CardSet::EMPTY;
        while game.hand().tricks_played() < 2 && game.hand().phase() != Phase::Finished {
            let Some(seat) = game.turn() else { break };
            let action = choose(&game, seat, &mut rng);
            if let Action::Play { card } = action {
                played.insert(card);
            }
            game.apply(seat, action).expect("legal");
        }
        let hand = *game.hand();
        if hand.phase() != Phase::Playing
            || hand.holding(Seat(0)).len() != hand.holding(Seat(2)).len()
        {
            continue;
        }
        let mut holdings = [0, 1, 2, 3].map(|i| hand.holding(Seat(i)));
        holdings.swap(0, 2);
        let swapped = hand.with_holdings(holdings).expect("the same cards, swapped");
        assert_eq!(swapped.holding(Seat(0)), hand.holding(Seat(2)));
        assert_eq!(swapped.holding(Seat(2)), hand.holding(Seat(0)));
        assert_eq!(swapped.turn(), hand.turn());
        if let Some(card) = played.first() {
            let mut stale = holdings;
            let mine = stale[0].first().expect("cards in hand");
            stale[0].remove(mine);
            stale[0].insert(card);
            assert_eq!(hand.with_holdings(stale), None, "{card} was played");
        }
        let mut twice = holdings;
        twice[1] = twice[1].union(twice[0]);
        assert_eq!(hand.with_holdings(twice), None, "another size, cards twice");
        checked += 1;
    }
    assert!(checked > 10, "{checked} hands");
}

/// A game of a fixed number of hands ends after its last scored hand with
/// the side ahead the winner; level then, it goes on one hand at a time
/// until a side leads, and never ends at a target.
#[test]
fn a_game_of_a_fixed_number_of_hands_ends_after_them_with_a_leader() {
    for hands in [1u8, 2, 4, 8] {
        for seed in 0..40u64 {
            let rules = Rules { game_hands: Some(hands), points_to_win: 1, ..Rules::default() };
            let game = random_game(rules, seed, 10_000);
            assert!(game.is_over(), "{hands} hands, seed {seed}: not over");
            let mut scores = [0u16; 2];
            let mut scored = 0u32;
            for (index, hand) in game.record().hands.iter().enumerate() {
                let Some(points) = hand.outcome.and_then(|outcome| outcome.points()) else {
                    continue;
                };
                // Every scored hand after the last of the set began level.
                if scored >= u32::from(hands) {
                    assert_eq!(
                        scores[0], scores[1],
                        "{hands} hands, seed {seed}: hand {index} played past the end"
                    );
                }
                scored += 1;
                scores[0] += u16::from(points[0]);
                scores[1] += u16::from(points[1]);
            }
            assert!(scored >= u32::from(hands));
            assert_eq!(game.scores().as_slice(), scores);
            let winner = game.winner().expect("a winner");
            assert!(scores[usize::from(winner.0)] > scores[1 - usize::from(winner.0)]);
        }
    }
    let rubber = Rules { game_hands: Some(8), rubber: true, ..Rules::default() };
    assert_eq!(rubber.validate(), Err(rules::RulesError::RubberOfHands));
    assert_eq!(
        Rules { game_hands: Some(0), ..Rules::default() }.validate(),
        Err(rules::RulesError::NoHands)
    );
}

/// The round clock's end: the hand in play is the game's last (played on
/// while level), and the record, which now says so, replays to that end.
#[test]
fn a_game_told_to_end_after_the_hand_in_play_ends_there_and_replays_so() {
    for seed in 0..40u64 {
        let mut game =
            Game::new(Rules { points_to_win: 15, ..Rules::default() }, seed).expect("valid");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Some actions into the game (a few hands), then the clock.
        for _ in 0..(40 + seed as usize * 3) {
            let Some(seat) = game.turn() else { break };
            let action = choose(&game, seat, &mut rng);
            game.apply(seat, action).expect("legal");
        }
        if game.is_over() {
            continue;
        }
        let scored_before = scored_hands(&game);
        assert!(game.end_after_hand_in_play());
        assert!(!game.end_after_hand_in_play(), "once is enough");
        while let Some(seat) = game.turn() {
            let action = choose(&game, seat, &mut rng);
            game.apply(seat, action).expect("legal");
        }
        let winner = game.winner().expect("ended with a winner");
        let scores = game.scores();
        assert!(scores[winner] > scores[Team(1 - winner.0)]);
        // The hand in play and, only while level, more.
        let extra = scored_hands(&game) - scored_before;
        assert!(extra >= 1, "seed {seed}");
        let replayed = Game::replay(game.record()).expect("replays");
        assert_eq!((replayed.winner(), replayed.scores()), (Some(winner), scores));
    }
}

fn scored_hands(game: &Game) -> usize {
    let record = game.record();
    record.hands.iter().filter(|hand| hand.outcome.and_then(|o| o.points()).is_some()).count()
}
