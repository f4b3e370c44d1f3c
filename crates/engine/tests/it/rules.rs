//! Table-driven tests of every rule, option and error: the four-handed game
//! first, then the two- and three-handed games.

use euchre_engine::card::parse_cards;
use euchre_engine::*;

/// The standard test deal. Dealer 3, so seat 0 bids and leads first.
/// Seat 0 holds the top clubs, seat 1 all spades but the jack, seat 2 hearts,
/// seat 3 diamonds; the 9 of clubs is turned up.
fn deal(rules: &Rules) -> Deal {
    deal_of(
        rules,
        3,
        ["Jc Js Ac Kc Qc", "9s Ts Qs Ks As", "9h Th Jh Qh Kh", "9d Td Jd Qd Kd"],
        "9c",
    )
}

fn deal_of(rules: &Rules, dealer: u8, hands: [&str; 4], up: &str) -> Deal {
    let hands = hands.map(|text| cards(text).into_iter().collect::<CardSet>());
    Deal::from_hands(rules, Seat(dealer), hands, card(up)).expect("a valid deal")
}

fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).expect("card codes")
}

fn card(text: &str) -> Card {
    text.parse().expect("a card code")
}

fn hand(rules: Rules) -> Hand {
    Hand::new(rules, deal(&rules))
}

/// Applies a script of (seat, action) and panics on the first error.
fn run(hand: &mut Hand, steps: &[(u8, Action)]) -> Vec<Event> {
    let mut events = Vec::new();
    for (seat, action) in steps {
        let mut more =
            hand.apply(Seat(*seat), *action).unwrap_or_else(|e| panic!("{action:?}: {e}"));
        events.append(&mut more);
    }
    events
}

/// Asserts the action fails with `code` and leaves the hand untouched.
fn rejects(hand: &mut Hand, seat: u8, action: Action, code: &str) -> RuleError {
    let before = *hand;
    let error = hand.apply(Seat(seat), action).expect_err("the action must be rejected");
    assert_eq!(error.code(), code, "{error}");
    assert_eq!(*hand, before, "a rejected action changed the hand");
    assert!(!hand.legal_actions(Seat(seat)).as_slice().contains(&action));
    error
}

const PASS: Action = Action::Pass;
const ORDER: Action = Action::OrderUp { alone: false };
const ORDER_ALONE: Action = Action::OrderUp { alone: true };

fn call(suit: Suit) -> Action {
    Action::Call { suit, alone: false }
}
fn play(code: &str) -> Action {
    Action::Play { card: card(code) }
}
fn discard(code: &str) -> Action {
    Action::Discard { card: card(code) }
}

fn played(hand: &Hand) -> PlayedHand {
    match hand.outcome() {
        Some(HandOutcome::Played(played)) => played,
        other => panic!("expected a played hand, got {other:?}"),
    }
}

// ---- Bidding ----------------------------------------------------------

#[test]
fn bidding_starts_left_of_the_dealer() {
    let mut h = hand(Rules::default());
    assert_eq!(h.turn(), Some(Seat(0)));
    assert_eq!(h.phase(), Phase::OrderingUp);
    let error = rejects(&mut h, 1, PASS, "not_your_turn");
    assert_eq!(error, RuleError::NotYourTurn { turn: Seat(0) });
    rejects(&mut h, 9, PASS, "no_such_seat");
}

#[test]
fn ordering_up_gives_the_dealer_the_up_card_to_discard() {
    let mut h = hand(Rules::default());
    let events = run(&mut h, &[(0, PASS), (1, ORDER)]);
    assert!(events.contains(&Event::TrumpMade { seat: Seat(1), suit: Suit::Clubs, alone: false }));
    assert!(events.contains(&Event::UpCardPickedUp { dealer: Seat(3), card: card("9c") }));
    assert_eq!(h.phase(), Phase::DealerDiscard);
    assert_eq!(h.turn(), Some(Seat(3)));
    assert_eq!(h.holding(Seat(3)).len(), 6);
    // Only discards are legal now, one for each of the six cards.
    let legal = h.legal_actions(Seat(3));
    assert_eq!(legal.len(), 6);
    assert!(legal.as_slice().iter().all(|a| matches!(a, Action::Discard { .. })));
    rejects(&mut h, 3, play("9d"), "not_now");
    rejects(&mut h, 3, discard("Ah"), "card_not_in_hand");
    run(&mut h, &[(3, discard("9d"))]);
    assert_eq!(h.discard(), Some(card("9d")));
    assert_eq!(h.phase(), Phase::Playing);
    assert_eq!(h.turn(), Some(Seat(0)), "left of the dealer leads");
}

#[test]
fn the_dealer_may_discard_the_up_card_unless_the_rules_forbid_it() {
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, ORDER), (3, discard("9c"))]);
    assert_eq!(h.holding(Seat(3)), deal(&Rules::default()).hands[3]);

    let mut h = hand(Preset::Tournament.rules());
    run(&mut h, &[(0, ORDER)]);
    let error = rejects(&mut h, 3, discard("9c"), "cannot_discard_up_card");
    assert_eq!(error, RuleError::CannotDiscardUpCard { card: card("9c") });
    assert_eq!(h.legal_actions(Seat(3)).len(), 5);
}

#[test]
fn round_one_offers_pass_and_order_up_alone_or_not() {
    let h = hand(Rules::default());
    assert_eq!(h.legal_actions(Seat(0)).as_slice(), &[PASS, ORDER, ORDER_ALONE]);
    assert!(h.legal_actions(Seat(1)).is_empty());
    let mut h = h;
    rejects(&mut h, 0, call(Suit::Hearts), "not_now");
}

#[test]
fn four_passes_turn_the_up_card_down() {
    let mut h = hand(Rules::default());
    let events = run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    assert!(events.contains(&Event::UpCardTurnedDown { card: card("9c") }));
    assert_eq!(h.phase(), Phase::Calling);
    assert_eq!(h.turn(), Some(Seat(0)));
    assert_eq!(h.turned_down(), Some(Suit::Clubs));
    rejects(&mut h, 0, ORDER, "not_now");
    let error = rejects(&mut h, 0, call(Suit::Clubs), "suit_turned_down");
    assert_eq!(error, RuleError::SuitTurnedDown { suit: Suit::Clubs });
    // Pass, then three suits each alone or not.
    assert_eq!(h.legal_actions(Seat(0)).len(), 7);
    run(&mut h, &[(0, call(Suit::Hearts))]);
    assert_eq!(h.trump(), Some(Suit::Hearts));
    assert_eq!(h.phase(), Phase::Playing);
    assert!(!h.up_card_picked_up());
    assert_eq!(h.turn(), Some(Seat(0)));
}

#[test]
fn naming_the_turned_down_suit_can_count_as_a_pass() {
    let mut h = hand(Preset::Tournament.rules());
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    assert!(h.legal_actions(Seat(0)).as_slice().contains(&call(Suit::Clubs)));
    let events = run(&mut h, &[(0, call(Suit::Clubs))]);
    assert_eq!(events, vec![Event::Passed { seat: Seat(0) }]);
    assert_eq!(h.turn(), Some(Seat(1)));
    assert_eq!(h.trump(), None);
}

#[test]
fn everybody_passing_twice_throws_the_hand_in() {
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    assert_eq!(h.outcome(), Some(HandOutcome::ThrownIn(ThrowIn::AllPassed)));
    assert_eq!(h.turn(), None);
    rejects(&mut h, 0, PASS, "not_now");
}

#[test]
fn stick_the_dealer_makes_the_dealer_name_a_suit() {
    let mut h = hand(Preset::StickTheDealer.rules());
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS)]);
    rejects(&mut h, 3, PASS, "dealer_must_call");
    rejects(&mut h, 3, call(Suit::Clubs), "suit_turned_down");
    let legal = h.legal_actions(Seat(3));
    assert_eq!(legal.len(), 6, "three suits, alone or not, and no pass");
    run(&mut h, &[(3, call(Suit::Diamonds))]);
    assert_eq!(h.maker(), Some(Seat(3)));
}

#[test]
fn stuck_dealer_naming_the_turned_down_suit_is_refused_even_where_it_counts_as_a_pass() {
    let rules = Rules {
        all_pass: AllPass::StickTheDealer,
        turned_down_suit: TurnedDownSuit::CountsAsPass,
        ..Rules::default()
    };
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, PASS), (1, PASS), (2, PASS)]);
    rejects(&mut h, 3, call(Suit::Clubs), "suit_turned_down");
}

// ---- Going alone --------------------------------------------------------

#[test]
fn a_loner_s_partner_sits_out_and_tricks_have_three_cards() {
    let mut h = hand(Rules::default());
    let events = run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d"))]);
    assert!(events.contains(&Event::SitsOut { seat: Seat(2) }));
    assert_eq!(h.sitting_out(), Some(Seat(2)));
    assert_eq!(h.turn(), Some(Seat(0)));
    run(&mut h, &[(0, play("Jc")), (1, play("9s"))]);
    // Seat 2 is skipped: seat 3 plays the third and last card.
    assert_eq!(h.turn(), Some(Seat(3)));
    rejects(&mut h, 2, play("9h"), "sitting_out");
    rejects(&mut h, 2, Action::Concede, "sitting_out");
    assert!(h.legal_actions(Seat(2)).is_empty());
    // The dealer holds the up-card, a club, and must follow with it.
    rejects(&mut h, 3, play("Td"), "must_follow_suit");
    let events = run(&mut h, &[(3, play("9c"))]);
    assert!(events.contains(&Event::TrickWon { seat: Seat(0), number: 1 }));
    assert_eq!(h.tricks_won(), [1, 0]);
}

#[test]
fn against_a_loner_the_lead_skips_the_sitting_out_seat() {
    // Seat 1 orders alone; its partner seat 3 (the dealer) sits out after
    // discarding; seat 0 leads as usual. Then seat 2 orders alone: seat 0
    // sits out, and the lead passes to seat 1.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!(h.sitting_out(), Some(Seat(3)));
    assert_eq!(h.turn(), Some(Seat(0)));

    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, PASS), (2, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!(h.sitting_out(), Some(Seat(0)));
    assert_eq!(h.turn(), Some(Seat(1)));
}

#[test]
fn left_of_the_loner_leads_where_the_rules_say_so() {
    let rules = Rules { loner_lead: LonerLead::LeftOfLoner, ..Rules::default() };
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, PASS), (2, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!(h.turn(), Some(Seat(3)));
    // Without a loner the usual lead stands.
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, PASS), (2, ORDER), (3, discard("9d"))]);
    assert_eq!(h.turn(), Some(Seat(0)));
}

#[test]
fn the_dealer_picks_up_for_a_partner_going_alone_unless_the_rules_skip_it() {
    // Seat 1 is the dealer's partner when seat 3 deals.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, ORDER_ALONE)]);
    assert_eq!(h.phase(), Phase::DealerDiscard);

    let rules = Rules { dealer_picks_up_for_partner_loner: false, ..Rules::default() };
    let mut h = hand(rules);
    let events = run(&mut h, &[(0, PASS), (1, ORDER_ALONE)]);
    assert!(!events.iter().any(|e| matches!(e, Event::UpCardPickedUp { .. })));
    assert_eq!(h.phase(), Phase::Playing);
    assert_eq!(h.holding(Seat(3)).len(), 5);
    // An opponent ordering alone still gives the dealer the card.
    let mut h = hand(rules);
    run(&mut h, &[(0, ORDER_ALONE)]);
    assert_eq!(h.phase(), Phase::DealerDiscard);
}

// ---- Canadian loner ------------------------------------------------------------

#[test]
fn a_canadian_loner_lets_the_dealer_s_partner_order_up_only_alone() {
    // Dealer 3: seat 1 is the dealer's partner.
    let rules = Rules { canadian_loner: true, ..Rules::default() };
    let mut h = hand(rules);
    assert_eq!(h.legal_actions(Seat(0)).as_slice(), &[PASS, ORDER, ORDER_ALONE]);
    run(&mut h, &[(0, PASS)]);
    assert_eq!(h.legal_actions(Seat(1)).as_slice(), &[PASS, ORDER_ALONE]);
    let error = rejects(&mut h, 1, ORDER, "must_go_alone");
    assert_eq!(error, RuleError::MustGoAlone);
    run(&mut h, &[(1, ORDER_ALONE)]);
    assert_eq!((h.maker(), h.alone()), (Some(Seat(1)), true));

    // Round two is unaffected: the dealer's partner may call with help.
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, PASS)]);
    run(&mut h, &[(1, call(Suit::Spades))]);
    assert_eq!((h.maker(), h.alone()), (Some(Seat(1)), false));
}

// ---- Defending alone -------------------------------------------------------------

const DEFEND: Action = Action::DefendAlone;

fn defend_rules() -> Rules {
    Rules { defend_alone: true, ..Rules::default() }
}

#[test]
fn against_a_loner_each_defender_from_the_loner_s_left_may_defend_alone() {
    let mut h = hand(defend_rules());
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!(h.phase(), Phase::DefendingAlone);
    assert_eq!(h.sitting_out(), Some(Seat(2)));
    assert_eq!(h.turn(), Some(Seat(1)), "the loner's left answers first");
    assert_eq!(h.legal_actions(Seat(1)).as_slice(), &[PASS, DEFEND]);
    rejects(&mut h, 3, DEFEND, "not_your_turn");
    rejects(&mut h, 1, play("9s"), "not_now");
    rejects(&mut h, 1, Action::Concede, "not_now");
    run(&mut h, &[(1, PASS)]);
    assert_eq!(h.turn(), Some(Seat(3)));
    let events = run(&mut h, &[(3, DEFEND)]);
    assert_eq!(
        events,
        vec![Event::DefendsAlone { seat: Seat(3) }, Event::SitsOut { seat: Seat(1) }]
    );
    assert_eq!(h.lone_defender(), Some(Seat(3)));
    assert!(h.sits_out(Seat(1)) && h.sits_out(Seat(2)));
    assert_eq!(h.phase(), Phase::Playing);
    // Left of the dealer leads: seat 0. Tricks are two cards.
    assert_eq!(h.turn(), Some(Seat(0)));
    rejects(&mut h, 1, Action::Concede, "sitting_out");
    run(&mut h, &[(0, play("Jc"))]);
    assert_eq!(h.turn(), Some(Seat(3)));
    rejects(&mut h, 1, play("9s"), "sitting_out");
    let events = run(&mut h, &[(3, play("9c"))]);
    assert!(events.contains(&Event::TrickWon { seat: Seat(0), number: 1 }));
    assert_eq!(h.turn(), Some(Seat(0)));
}

#[test]
fn when_both_defenders_pass_the_loner_plays_against_two() {
    let mut h = hand(defend_rules());
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d")), (1, PASS)]);
    let events = run(&mut h, &[(3, PASS)]);
    assert_eq!(events, vec![Event::Passed { seat: Seat(3) }]);
    assert_eq!((h.phase(), h.turn(), h.lone_defender()), (Phase::Playing, Some(Seat(0)), None));
    run(&mut h, &[(0, play("Jc")), (1, play("9s"))]);
    assert_eq!(h.turn(), Some(Seat(3)));
}

#[test]
fn defending_alone_is_offered_only_against_a_loner_under_the_option() {
    // A maker with a partner: no question, straight to play.
    let mut h = hand(defend_rules());
    run(&mut h, &[(0, ORDER), (3, discard("9d"))]);
    assert_eq!(h.phase(), Phase::Playing);
    rejects(&mut h, 0, DEFEND, "not_now");
    // The option off: a loner plays against both.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!(h.phase(), Phase::Playing);
    rejects(&mut h, 0, DEFEND, "not_now");
    // Never during bidding; in round two the question comes right after the call.
    let mut h = hand(defend_rules());
    rejects(&mut h, 0, DEFEND, "not_now");
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    run(&mut h, &[(0, PASS), (1, Action::Call { suit: Suit::Spades, alone: true })]);
    assert_eq!((h.phase(), h.turn()), (Phase::DefendingAlone, Some(Seat(2))));
}

#[test]
fn the_loner_lead_rule_skips_every_seat_that_sits_out() {
    // Seat 0 alone, seat 1 defends alone (seat 3, the dealer, sits out).
    let script = [(0, ORDER_ALONE), (3, discard("9d")), (1, DEFEND)];
    let mut h = hand(defend_rules());
    run(&mut h, &script);
    assert_eq!(h.turn(), Some(Seat(0)), "left of the dealer");
    let rules = Rules { loner_lead: LonerLead::LeftOfLoner, ..defend_rules() };
    let mut h = hand(rules);
    run(&mut h, &script);
    assert_eq!(h.turn(), Some(Seat(1)), "left of the loner");
    // Seat 2 alone (seat 0 out), seat 1 defends alone (seat 3 out): seat 1
    // leads either way.
    let script = [(0, PASS), (1, PASS), (2, ORDER_ALONE), (3, discard("9d")), (3, PASS)];
    for rules in [defend_rules(), rules] {
        let mut h = hand(rules);
        run(&mut h, &script);
        run(&mut h, &[(1, DEFEND)]);
        assert_eq!(h.turn(), Some(Seat(1)));
    }
}

#[test]
fn a_loner_euchred_by_a_lone_defender_gives_four() {
    let mut h = hand(defend_rules());
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d")), (1, DEFEND), (0, Action::Concede)]);
    let p = played(&h);
    assert_eq!(
        (p.tricks.as_slice(), p.points.as_slice(), p.lone_defender),
        (&[0, 5][..], &[0, 4][..], Some(Seat(1)))
    );
    // A march against a lone defender is an ordinary lone march.
    let mut h = hand(defend_rules());
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d")), (1, DEFEND), (0, Action::Claim)]);
    assert_eq!(played(&h).points, [4, 0]);
    // The value is an option; without a lone defender the loner's euchre stands.
    let rules = Rules {
        scoring: Scoring { defender_alone_euchre: 6, ..Scoring::default() },
        ..defend_rules()
    };
    let mut h = hand(rules);
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d")), (1, DEFEND), (0, Action::Concede)]);
    assert_eq!(played(&h).points, [0, 6]);
    let mut h = hand(rules);
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d")), (1, PASS), (3, PASS)]);
    run(&mut h, &[(0, Action::Concede)]);
    assert_eq!(played(&h).points, [0, 2]);
}

#[test]
fn a_lone_defender_s_game_replays_and_its_view_shows_two_card_tricks() {
    let rules = defend_rules();
    let start = GameStart { dealer: Seat(3), seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut game = Game::with_deals(rules, 1, start, vec![deal(&rules)]).expect("a valid script");
    for (seat, action) in [(0, ORDER_ALONE), (3, discard("9d")), (1, PASS), (3, DEFEND)] {
        game.apply(Seat(seat), action).expect("legal");
    }
    game.apply(Seat(0), play("Jc")).expect("legal");
    game.apply(Seat(3), play("9c")).expect("legal");
    let view = game.view(Viewer::Seat(Seat(1)));
    assert_eq!(view.lone_defender, Some(Seat(3)));
    assert_eq!(view.tricks.len(), 1);
    assert_eq!(view.tricks[0].winner, Some(Seat(0)));
    assert!(view.bids.contains(&(Seat(3), DEFEND)));
    let replayed = Game::replay(game.record()).expect("replays");
    assert_eq!(replayed.hand(), game.hand());
}

// ---- Call for best --------------------------------------------------------------

fn pass_card(code: &str) -> Action {
    Action::PassCard { card: card(code) }
}

#[test]
fn call_for_best_has_the_partner_pass_a_card_and_the_loner_discard() {
    let rules = Rules { call_for_best: true, ..Rules::default() };
    let mut h = hand(rules);
    run(&mut h, &[(0, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!((h.phase(), h.turn()), (Phase::PassingBest, Some(Seat(2))));
    assert_eq!(h.legal_actions(Seat(2)).len(), 5);
    rejects(&mut h, 0, pass_card("Jc"), "not_your_turn");
    rejects(&mut h, 2, pass_card("Ah"), "card_not_in_hand");
    rejects(&mut h, 2, discard("9h"), "not_now");
    let events = run(&mut h, &[(2, pass_card("Kh"))]);
    let passed = Event::CardPassed { from: Seat(2), to: Seat(0), card: Some(card("Kh")) };
    assert_eq!(events, vec![passed]);
    // Only the two partners see the card.
    assert_eq!(passed.for_viewer(Viewer::Seat(Seat(0))), passed);
    assert_eq!(passed.for_viewer(Viewer::Seat(Seat(2))), passed);
    for viewer in [Viewer::Seat(Seat(1)), Viewer::Seat(Seat(3)), Viewer::Spectator] {
        let hidden = Event::CardPassed { from: Seat(2), to: Seat(0), card: None };
        assert_eq!(passed.for_viewer(viewer), hidden);
    }
    assert_eq!((h.phase(), h.turn()), (Phase::LonerDiscard, Some(Seat(0))));
    assert_eq!(h.holding(Seat(0)).len(), 6);
    assert_eq!(h.legal_actions(Seat(0)).len(), 6);
    rejects(&mut h, 0, discard("9h"), "card_not_in_hand");
    rejects(&mut h, 0, play("Jc"), "not_now");
    let events = run(&mut h, &[(0, discard("Qc"))]);
    assert_eq!(events[0], Event::Discarded { seat: Seat(0), card: Some(card("Qc")) });
    assert_eq!(events[0].for_viewer(Viewer::Seat(Seat(2))).cards(), CardSet::EMPTY);
    assert!(events.contains(&Event::SitsOut { seat: Seat(2) }));
    assert_eq!((h.passed_card(), h.loner_discard()), (Some(card("Kh")), Some(card("Qc"))));
    assert_eq!(h.discard(), Some(card("9d")), "the dealer's discard is his own");
    assert_eq!((h.phase(), h.turn()), (Phase::Playing, Some(Seat(0))));
    // The loner may play the card he was passed.
    run(&mut h, &[(0, play("Kh"))]);
}

#[test]
fn call_for_best_comes_before_defending_alone_and_without_a_pick_up() {
    let rules = Rules { call_for_best: true, defend_alone: true, ..Rules::default() };
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    run(&mut h, &[(0, Action::Call { suit: Suit::Hearts, alone: true })]);
    assert_eq!((h.phase(), h.turn()), (Phase::PassingBest, Some(Seat(2))));
    run(&mut h, &[(2, pass_card("Jh")), (0, discard("Qc"))]);
    assert_eq!((h.phase(), h.turn()), (Phase::DefendingAlone, Some(Seat(1))));
    // Without a loner there is no exchange.
    let mut h = hand(rules);
    run(&mut h, &[(0, ORDER), (3, discard("9d"))]);
    assert_eq!(h.phase(), Phase::Playing);
    rejects(&mut h, 2, pass_card("Kh"), "not_your_turn");
    // The dealer's partner alone: the dealer picks up, discards, then passes.
    let mut h = hand(rules);
    run(&mut h, &[(0, PASS), (1, ORDER_ALONE), (3, discard("9d"))]);
    assert_eq!((h.phase(), h.turn()), (Phase::PassingBest, Some(Seat(3))));
    run(&mut h, &[(3, pass_card("9c")), (1, discard("9s"))]);
    assert_eq!(h.holding(Seat(1)).len(), 5);
    assert!(h.holding(Seat(1)).contains(card("9c")));
}

// ---- Play -------------------------------------------------------------------

#[test]
fn players_must_follow_suit_and_the_left_bower_is_trump() {
    // Clubs are trump; seat 0 leads the left bower (Js), a club for every
    // purpose: seat 1 holds spades but no clubs, so may play anything.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, ORDER), (3, discard("9d")), (0, play("Js"))]);
    assert_eq!(h.led_suit(), Some(Suit::Clubs));
    assert_eq!(h.legal_plays(), h.holding(Seat(1)));
    run(&mut h, &[(1, play("As")), (2, play("9h")), (3, play("9c"))]);
    // The dealer's 9c (trump) loses to the left bower.
    assert_eq!(h.turn(), Some(Seat(0)));
    assert_eq!(h.tricks_won(), [1, 0]);
    // Seat 0 leads the ace of clubs; seat 3 must not play a diamond... he has
    // no clubs left, so anything goes; seat 1 plays a spade.
    run(&mut h, &[(0, play("Ac")), (1, play("9s")), (2, play("Th")), (3, play("Td"))]);
    assert_eq!(h.tricks_won(), [2, 0]);
}

#[test]
fn reneging_is_refused_with_the_led_suit_named() {
    // Hearts trump (called in round two by seat 0); seat 0 leads a club,
    // seat 1 has no club; then seat 1 leads spades and seat 2 must... hold none.
    // Use a deal where following matters: seat 1 holds a spade and a heart.
    let rules = Rules::default();
    let d = deal_of(
        &rules,
        3,
        ["Jc Js Ac Kc Qc", "9s Ts Qs Ks Ah", "9h Th Jh Qh As", "9d Td Jd Qd Kd"],
        "9c",
    );
    let mut h = Hand::new(rules, d);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, call(Suit::Spades))]);
    // Spades trump: Jc is the left bower. Seat 0 leads Ac (a club).
    run(&mut h, &[(0, play("Ac")), (1, play("9s")), (2, play("As"))]);
    // Seat 3 holds no clubs: anything goes.
    run(&mut h, &[(3, play("9d"))]);
    // Seat 2 won with the ace of trump and leads hearts.
    assert_eq!(h.turn(), Some(Seat(2)));
    run(&mut h, &[(2, play("9h"))]);
    // Seat 3 has no hearts; seat 0 neither; seat 1 holds the Ah and must play it.
    run(&mut h, &[(3, play("Td")), (0, play("Kc"))]);
    let error = rejects(&mut h, 1, play("Ts"), "must_follow_suit");
    assert_eq!(error, RuleError::MustFollowSuit { led: Suit::Hearts });
    rejects(&mut h, 1, play("Kh"), "card_not_in_hand");
    assert_eq!(h.legal_plays().to_vec(), cards("Ah"));
}

#[test]
fn the_left_bower_does_not_follow_its_printed_suit() {
    // Spades trump: the Jc is the left bower, and a club lead does not force it.
    let rules = Rules::default();
    let d = deal_of(
        &rules,
        3,
        ["Ac Ts Qs 9h Th", "Jc 9s Kh Qh Ah", "9c Tc Qc Kc As", "Js Jh Jd 9d Td"],
        "Ks",
    );
    let mut h = Hand::new(rules, d);
    run(&mut h, &[(0, ORDER), (3, discard("9d")), (0, play("Ac"))]);
    // Seat 1's only "club" is the left bower, which is a spade now: free choice.
    assert_eq!(h.legal_plays(), h.holding(Seat(1)));
    run(&mut h, &[(1, play("Kh"))]);
    // Seat 2 must follow clubs.
    assert_eq!(h.legal_plays().to_vec(), cards("9c Tc Qc Kc"));
}

#[test]
fn actions_outside_their_phase_are_refused() {
    let mut h = hand(Rules::default());
    rejects(&mut h, 0, play("Jc"), "not_now");
    rejects(&mut h, 0, discard("Jc"), "not_now");
    rejects(&mut h, 0, Action::Claim, "not_now");
    rejects(&mut h, 0, Action::Concede, "not_now");
    run(&mut h, &[(0, ORDER), (3, discard("9d"))]);
    rejects(&mut h, 0, PASS, "not_now");
    rejects(&mut h, 0, ORDER, "not_now");
}

// ---- Scoring -----------------------------------------------------------------

/// Plays the standard deal with clubs ordered by seat 0 (alone or not), then
/// the given tricks' worth of play, then `finish`.
fn scored(rules: Rules, alone: bool, finish: (u8, Action)) -> PlayedHand {
    let mut h = hand(rules);
    run(&mut h, &[(0, Action::OrderUp { alone }), (3, discard("9d")), finish]);
    played(&h)
}

#[test]
fn a_march_scores_two_and_a_lone_march_four() {
    let h = scored(Rules::default(), false, (0, Action::Claim));
    assert_eq!((h.tricks.as_slice(), h.points.as_slice()), (&[5, 0][..], &[2, 0][..]));
    assert!(h.march());
    let h = scored(Rules::default(), true, (0, Action::Claim));
    assert_eq!((h.tricks.as_slice(), h.points.as_slice()), (&[5, 0][..], &[4, 0][..]));
}

#[test]
fn a_euchre_scores_two_and_a_lone_euchre_two_or_four() {
    let h = scored(Rules::default(), false, (0, Action::Concede));
    assert_eq!((h.tricks.as_slice(), h.points.as_slice()), (&[0, 5][..], &[0, 2][..]));
    assert!(h.euchred());
    let h = scored(Rules::default(), true, (0, Action::Concede));
    assert_eq!(h.points, [0, 2]);
    let h = scored(Preset::StickTheDealer.rules(), true, (0, Action::Concede));
    assert_eq!(h.points, [0, 4]);
}

#[test]
fn three_or_four_tricks_score_one_alone_or_not() {
    // Seat 0 takes three tricks with its top trumps, then concedes the rest.
    let with_partner: &[(u8, Action)] = &[
        (0, play("Jc")),
        (1, play("9s")),
        (2, play("9h")),
        (3, play("9c")),
        (0, play("Js")),
        (1, play("Ts")),
        (2, play("Th")),
        (3, play("Td")),
        (0, play("Ac")),
        (1, play("Qs")),
        (2, play("Jh")),
        (3, play("Jd")),
    ];
    let alone: &[(u8, Action)] = &[
        (0, play("Jc")),
        (1, play("9s")),
        (3, play("9c")),
        (0, play("Js")),
        (1, play("Ts")),
        (3, play("Td")),
        (0, play("Ac")),
        (1, play("Qs")),
        (3, play("Jd")),
    ];
    for (is_alone, script) in [(false, with_partner), (true, alone)] {
        let mut h = hand(Rules::default());
        run(&mut h, &[(0, Action::OrderUp { alone: is_alone }), (3, discard("9d"))]);
        run(&mut h, script);
        assert_eq!(h.tricks_won(), [3, 0]);
        run(&mut h, &[(0, Action::Concede)]);
        let p = played(&h);
        assert_eq!(
            (p.tricks.as_slice(), p.points.as_slice()),
            (&[3, 2][..], &[1, 0][..]),
            "alone: {is_alone}"
        );
    }
}

#[test]
fn scoring_values_are_options() {
    let rules = Rules {
        scoring: Scoring {
            made: 1,
            march: 3,
            lone_march: 5,
            euchre: 2,
            lone_euchre: 4,
            defender_alone_euchre: 6,
        },
        ..Rules::default()
    };
    assert_eq!(scored(rules, false, (0, Action::Claim)).points, [3, 0]);
    assert_eq!(scored(rules, true, (0, Action::Claim)).points, [5, 0]);
}

// ---- Claims and concessions ---------------------------------------------------

#[test]
fn a_claim_is_accepted_only_when_it_cannot_fail() {
    // Seat 0 holds the five best clubs: a certain claim, on lead.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, ORDER), (3, discard("9d"))]);
    assert!(h.legal_actions(Seat(0)).as_slice().contains(&Action::Claim));
    // Seat 1 cannot claim: not its turn.
    rejects(&mut h, 1, Action::Claim, "not_your_turn");
    let events = run(&mut h, &[(0, Action::Claim)]);
    let shown: CardSet = cards("Jc Js Ac Kc Qc").into_iter().collect();
    assert!(events.contains(&Event::Claimed { seat: Seat(0), cards: shown }));
}

#[test]
fn an_uncertain_claim_is_refused() {
    // Diamonds trump (seat 3's suit, called in round two): seat 0 leads
    // and holds top clubs, but clubs could be trumped.
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, call(Suit::Diamonds))]);
    rejects(&mut h, 0, Action::Claim, "claim_not_certain");
    // Not on lead: refused for that reason.
    run(&mut h, &[(0, play("Ac"))]);
    assert_eq!(h.led_suit(), Some(Suit::Clubs));
    rejects(&mut h, 1, Action::Claim, "claim_not_on_lead");
}

#[test]
fn a_claim_needs_every_trump_out_or_outranked() {
    // Hearts trump. Seat 0 holds Jh Jd Ah and two plain aces; nothing
    // outside beats its trumps, but Kh is out, so the plain aces could be
    // trumped: refused. Once only trumps that are all top trumps remain, fine.
    let rules = Rules::default();
    let d = deal_of(
        &rules,
        3,
        ["Jh Jd Ah Ac As", "9s Ts Qs Ks Kh", "9h Th Js Qh Tc", "9d Td Qd Kd Ad"],
        "Qc",
    );
    let mut h = Hand::new(rules, d);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS), (0, call(Suit::Hearts))]);
    rejects(&mut h, 0, Action::Claim, "claim_not_certain");
    // Lead the right bower: seat 1 must play Kh, seat 2 a heart, seat 3 anything.
    run(&mut h, &[(0, play("Jh")), (1, play("Kh")), (2, play("9h")), (3, play("9d"))]);
    // Outstanding trumps: Th, Qh (seat 2). Seat 0's Jd and Ah outrank them,
    // but its plain aces could still be trumped by seat 2.
    rejects(&mut h, 0, Action::Claim, "claim_not_certain");
    run(&mut h, &[(0, play("Jd")), (1, play("9s")), (2, play("Th")), (3, play("Td"))]);
    run(&mut h, &[(0, play("Ah")), (1, play("Ts")), (2, play("Qh")), (3, play("Qd"))]);
    // No trump left outside: the aces of clubs and spades are certain.
    run(&mut h, &[(0, Action::Claim)]);
    assert_eq!(played(&h).tricks, [5, 0]);
}

#[test]
fn any_player_in_the_hand_may_concede_at_any_time() {
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, ORDER), (3, discard("9d")), (0, play("Jc"))]);
    // Seat 2 is not to play, but may concede for its side.
    assert!(h.legal_actions(Seat(2)).as_slice().contains(&Action::Concede));
    run(&mut h, &[(2, Action::Concede)]);
    let p = played(&h);
    assert_eq!(p.tricks, [0, 5]);
    assert_eq!(p.points, [0, 2]);
}

// ---- Farmer's hand ----------------------------------------------------------------

fn farmers_deal(rules: &Rules) -> Deal {
    deal_of(
        rules,
        3,
        ["9s Ts 9h Th 9c", "Js Qs Ks As Ah", "Jh Qh Kh Tc Jc", "9d Td Jd Qd Kd"],
        "Qc",
    )
}

#[test]
fn a_farmer_s_hand_may_be_thrown_in_when_the_rules_allow() {
    let rules = Preset::Farmers.rules();
    let mut h = Hand::new(rules, farmers_deal(&rules));
    assert!(h.legal_actions(Seat(0)).as_slice().contains(&Action::FarmersHand));
    run(&mut h, &[(0, Action::FarmersHand)]);
    assert_eq!(h.outcome(), Some(HandOutcome::ThrownIn(ThrowIn::FarmersHand { seat: Seat(0) })));

    let rules = Rules::default();
    let mut h = Hand::new(rules, farmers_deal(&rules));
    rejects(&mut h, 0, Action::FarmersHand, "farmers_hand_off");

    let rules = Preset::Farmers.rules();
    let mut h = Hand::new(rules, farmers_deal(&rules));
    run(&mut h, &[(0, PASS)]);
    rejects(&mut h, 1, Action::FarmersHand, "not_farmers_hand");
}

// ---- Whole games ---------------------------------------------------------------

/// A game whose every hand is the standard deal, rotated to the right dealer.
fn scripted_game(rules: Rules, hands: usize) -> Game {
    let deals = (0..hands)
        .map(|i| {
            let dealer = Seat(((3 + i) % 4) as u8);
            let d = deal(&rules);
            let mut rotated = d.hands;
            rotated.rotate_right(usize::from(dealer.0 + 1) % 4);
            Deal { dealer, hands: rotated, ..d }
        })
        .collect();
    let start = GameStart { dealer: Seat(3), seating: [0, 1, 2, 3], shown: Vec::new() };
    Game::with_deals(rules, 1, start, deals).expect("a valid script")
}

#[test]
fn the_deal_passes_left_and_the_game_ends_at_the_target() {
    let rules = Rules { points_to_win: 5, ..Rules::default() };
    let mut game = scripted_game(rules, 3);
    let mut dealers = Vec::new();
    let mut all_events = Vec::new();
    while game.hand_number() < 3 {
        let seat = game.turn().expect("the game goes on");
        if game.hand().phase() == Phase::OrderingUp {
            dealers.push(game.hand().dealer());
        }
        // The seat left of the dealer holds the top clubs: it orders and claims.
        let action = match game.hand().phase() {
            Phase::OrderingUp => ORDER,
            Phase::DealerDiscard => game.legal_actions(seat)[0],
            _ => Action::Claim,
        };
        all_events.extend(game.apply(seat, action).expect("legal"));
    }
    assert_eq!(dealers, vec![Seat(3), Seat(0), Seat(1)]);
    // Marches by the seat left of each dealer: team 0, team 1, team 0.
    let won = all_events.iter().find_map(|e| match e {
        Event::GameWon { team, scores } => Some((*team, *scores)),
        _ => None,
    });
    assert_eq!(game.scores(), [4, 2]);
    assert_eq!(won, None, "nobody has 5 yet");
}

#[test]
fn the_game_is_won_at_the_target_and_then_refuses_actions() {
    let rules = Rules { points_to_win: 5, ..Rules::default() };
    let mut game = scripted_game(rules, 3);
    let mut last = Vec::new();
    while let Some(seat) = game.turn() {
        let action = match game.hand().phase() {
            Phase::OrderingUp => ORDER_ALONE,
            Phase::DealerDiscard => game.legal_actions(seat)[0],
            _ => Action::Claim,
        };
        last = game.apply(seat, action).expect("legal").to_vec();
    }
    // Lone marches: 4 for team 0, 4 for team 1, then team 0 reaches 8.
    assert_eq!(game.scores(), [8, 4]);
    assert_eq!(game.winner(), Some(Team(0)));
    assert!(last.contains(&Event::GameWon {
        team: Team(0),
        scores: PerTeam::from_slice(&[8, 4]).expect("two teams")
    }));
    assert_eq!(game.apply(Seat(0), PASS), Err(RuleError::GameOver));
    assert!(game.legal_actions(Seat(0)).is_empty());
    // The record replays to the same end.
    let replayed = Game::replay(game.record()).expect("the record replays");
    assert_eq!(replayed.scores(), [8, 4]);
    assert_eq!(replayed.winner(), Some(Team(0)));
}

#[test]
fn a_thrown_in_hand_passes_the_deal_and_a_farmer_s_hand_does_not() {
    let rules = Preset::Farmers.rules();
    let start = GameStart { dealer: Seat(3), seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut game =
        Game::with_deals(rules, 1, start, vec![farmers_deal(&rules)]).expect("a valid script");
    let events = game.apply(Seat(0), Action::FarmersHand).expect("a farmer's hand");
    assert!(matches!(events.last(), Some(Event::HandDealt { dealer: Seat(3), number: 1, .. })));
    for seat in [0, 1, 2, 3, 0, 1, 2, 3] {
        game.apply(Seat(seat), PASS).expect("a pass");
    }
    assert_eq!(game.hand().dealer(), Seat(0));
    assert_eq!(game.scores(), [0, 0]);
}

#[test]
fn new_games_are_deterministic_from_the_seed() {
    let play = |seed| {
        let mut game = Game::new(Rules::default(), seed).expect("valid rules");
        for _ in 0..40 {
            let Some(seat) = game.turn() else { break };
            let actions = game.legal_actions(seat);
            let action = actions.iter().find(|a| **a != PASS).copied().unwrap_or(actions[0]);
            game.apply(seat, action).expect("legal");
        }
        game.record().clone()
    };
    assert_eq!(play(11), play(11));
    assert_ne!(play(11).hands[0].deal, play(12).hands[0].deal);
}

#[test]
fn unsupported_rules_are_refused() {
    let rules = Rules { players: 5, ..Rules::default() };
    assert!(Game::new(rules, 0).is_err());
    let rules = Rules { defend_alone: true, ..Preset::Cutthroat.rules() };
    assert!(Game::new(rules, 0).is_err());
    let rules = Rules { points_to_win: 0, ..Rules::default() };
    assert!(Game::new(rules, 0).is_err());
}

// ---- The two- and three-handed games ------------------------------------------

/// Sheet 000's three-handed deal: dealer 2, so seat 0 bids and leads first.
/// Seat 0 holds the top clubs, seat 1 spades, seat 2 hearts; the dummy three
/// diamonds; the 9 of clubs is turned up.
fn three_handed(rules: Rules) -> Hand {
    let hands = ["Jc Js Ac Kc Qc", "9s Ts Qs Ks As", "9h Th Jh Qh Kh", ""];
    let hands = hands.map(|text| cards(text).into_iter().collect::<CardSet>());
    let dummy = cards("9d Td Jd").into_iter().collect();
    let deal = Deal::with_dummy(&rules, Seat(2), hands, dummy, card("9c")).expect("a valid deal");
    Hand::new(rules, deal)
}

/// The same hands without a dummy, for cutthroat.
fn cutthroat(rules: Rules) -> Hand {
    let deal = deal_of(&rules, 2, ["Jc Js Ac Kc Qc", "9s Ts Qs Ks As", "9h Th Jh Qh Kh", ""], "9c");
    Hand::new(rules, deal)
}

/// Seat 0 leads the top clubs, seat 1 spades, seat 2 hearts (or its last club).
fn clubs_run(hand: &mut Hand, seat_two: [&str; 5]) {
    let leads = ["Jc", "Js", "Ac", "Kc", "Qc"];
    let ones = ["9s", "Ts", "Qs", "Ks", "As"];
    for trick in 0..5 {
        run(hand, &[(0, play(leads[trick])), (1, play(ones[trick])), (2, play(seat_two[trick]))]);
    }
}

#[test]
fn three_handed_maker_takes_the_dummy_and_discards_three() {
    let mut h = three_handed(Preset::ThreeHanded.rules());
    let events = run(&mut h, &[(0, ORDER), (2, discard("9h"))]);
    // The dealer picked up and discarded first; then the maker took the dummy.
    assert!(events.contains(&Event::DummyTaken {
        seat: Seat(0),
        cards: Some(cards("9d Td Jd").into_iter().collect())
    }));
    assert_eq!(h.phase(), Phase::DummyDiscard);
    assert_eq!(h.holding(Seat(0)).len(), 8);
    // Only the maker sees the dummy.
    for (viewer, sees) in [(Viewer::Seat(Seat(0)), true), (Viewer::Seat(Seat(1)), false)] {
        let seen = events
            .iter()
            .map(|e| e.for_viewer(viewer).cards())
            .fold(CardSet::EMPTY, CardSet::union);
        assert_eq!(seen.contains(card("Jd")), sees);
    }
    rejects(&mut h, 0, play("Jc"), "not_now");
    rejects(&mut h, 0, discard("Ah"), "card_not_in_hand");
    run(&mut h, &[(0, discard("9d")), (0, discard("Td"))]);
    assert_eq!(h.phase(), Phase::DummyDiscard);
    run(&mut h, &[(0, discard("Jd"))]);
    assert_eq!((h.phase(), h.turn()), (Phase::Playing, Some(Seat(0))));
    assert_eq!(h.dummy_discards().len(), 3);
    // Seat 2 holds the up-card, the only trump he has: he must follow with it.
    run(&mut h, &[(0, play("Jc")), (1, play("9s"))]);
    rejects(&mut h, 2, play("Th"), "must_follow_suit");
    run(&mut h, &[(2, play("9c"))]);
    for (lead, one, two) in
        [("Js", "Ts", "Th"), ("Ac", "Qs", "Jh"), ("Kc", "Ks", "Qh"), ("Qc", "As", "Kh")]
    {
        run(&mut h, &[(0, play(lead)), (1, play(one)), (2, play(two))]);
    }
    let p = played(&h);
    assert_eq!((p.tricks.as_slice(), p.points.as_slice()), (&[5, 0, 0][..], &[2, 0, 0][..]));
}

#[test]
fn three_handed_euchre_scores_each_defender_and_alone_skips_the_dummy() {
    // Seat 1 makes clubs holding none: both defenders score the euchre.
    let mut h = three_handed(Preset::ThreeHanded.rules());
    run(&mut h, &[(0, PASS), (1, ORDER), (2, discard("9h"))]);
    run(&mut h, &[(1, discard("9d")), (1, discard("Td")), (1, discard("Jd"))]);
    clubs_run(&mut h, ["9c", "Th", "Jh", "Qh", "Kh"]);
    let p = played(&h);
    assert_eq!((p.tricks.as_slice(), p.points.as_slice()), (&[5, 0, 0][..], &[2, 0, 2][..]));
    assert!(p.euchred());

    // Alone: no dummy, nobody sits out, three cards to a trick, a lone march scores 4.
    let mut h = three_handed(Preset::ThreeHanded.rules());
    let events = run(&mut h, &[(0, ORDER_ALONE), (2, discard("9h"))]);
    assert!(!events.iter().any(|e| matches!(e, Event::DummyTaken { .. })));
    assert_eq!((h.phase(), h.sitting_out()), (Phase::Playing, None));
    clubs_run(&mut h, ["9c", "Th", "Jh", "Qh", "Kh"]);
    assert_eq!(played(&h).points, [4, 0, 0]);
}

#[test]
fn the_dealer_maker_discards_for_the_up_card_before_the_dummy() {
    let mut h = three_handed(Preset::ThreeHanded.rules());
    run(&mut h, &[(0, PASS), (1, PASS), (2, ORDER)]);
    assert_eq!((h.phase(), h.holding(Seat(2)).len()), (Phase::DealerDiscard, 6));
    run(&mut h, &[(2, discard("9h"))]);
    assert_eq!((h.phase(), h.holding(Seat(2)).len()), (Phase::DummyDiscard, 8));
    run(&mut h, &[(2, discard("Th")), (2, discard("9d")), (2, discard("Td"))]);
    assert_eq!((h.phase(), h.holding(Seat(2)).len()), (Phase::Playing, 5));
}

#[test]
fn cutthroat_maker_plays_alone_a_march_scores_three() {
    let rules = Preset::Cutthroat.rules();
    let mut h = cutthroat(rules);
    rejects(&mut h, 0, ORDER_ALONE, "no_going_alone");
    assert!(!h.legal_actions(Seat(0)).as_slice().contains(&ORDER_ALONE));
    run(&mut h, &[(0, ORDER), (2, discard("9h"))]);
    assert_eq!(h.phase(), Phase::Playing);
    clubs_run(&mut h, ["9c", "Th", "Jh", "Qh", "Kh"]);
    assert_eq!(played(&h).points, [3, 0, 0]);
}

#[test]
fn cutthroat_euchre_and_concessions() {
    let rules = Preset::Cutthroat.rules();
    let mut h = cutthroat(rules);
    run(&mut h, &[(0, PASS), (1, ORDER), (2, discard("9h"))]);
    // A defender may not concede for both defenders; the maker may.
    rejects(&mut h, 2, Action::Concede, "only_maker_concedes");
    assert!(h.legal_actions(Seat(1)).as_slice().contains(&Action::Concede));
    run(&mut h, &[(1, Action::Concede)]);
    let p = played(&h);
    assert_eq!(p.points, [2, 0, 2]);
    assert!(p.euchred());
}

#[test]
fn level_at_the_top_past_the_target_plays_on() {
    // Cutthroat to 2: one euchre gives both defenders 2, level, so nobody has won.
    let rules = Rules { points_to_win: 2, ..Preset::Cutthroat.rules() };
    let first = *cutthroat(rules).deal();
    let start = GameStart { dealer: Seat(2), seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut game = Game::with_deals(rules, 9, start, vec![first]).expect("valid");
    for (seat, action) in [(0, PASS), (1, ORDER), (2, discard("9h")), (1, Action::Concede)] {
        game.apply(Seat(seat), action).expect("legal");
    }
    assert_eq!(game.scores(), [2, 0, 2]);
    assert_eq!(game.winner(), None);
    assert_eq!(game.hand_number(), 1);
    assert!(game.turn().is_some());
}

#[test]
fn two_handed_games_play_two_cards_to_a_trick() {
    // Sheet 000: nines out, a dummy, a seven-card kitty (six and the up-card).
    let rules = Preset::TwoHanded.rules();
    let hands = ["Jc Js Ac Kc Qc", "Th Jh Qh Kh Ah", "", ""]
        .map(|text| cards(text).into_iter().collect::<CardSet>());
    let dummy = cards("Td Jd Qd").into_iter().collect();
    let deal = Deal::with_dummy(&rules, Seat(1), hands, dummy, card("Tc")).expect("valid");
    assert_eq!(deal.kitty.len() + 1, 7);
    let mut h = Hand::new(rules, deal);
    run(&mut h, &[(0, ORDER), (1, discard("Th"))]);
    run(&mut h, &[(0, discard("Td")), (0, discard("Jd")), (0, discard("Qd"))]);
    for (lead, answer) in [("Jc", "Tc"), ("Js", "Jh"), ("Ac", "Qh"), ("Kc", "Kh"), ("Qc", "Ah")] {
        run(&mut h, &[(0, play(lead)), (1, play(answer))]);
    }
    assert_eq!(played(&h).points, [2, 0]);

    // Sheet 004: the plain pack, five cards each, nobody to go alone without.
    let rules = Preset::TwoHandedPlain.rules();
    let mut h =
        Hand::new(rules, deal_of(&rules, 1, ["Jc Js Ac Kc Qc", "9h Th Jh Qh Kh", "", ""], "9c"));
    rejects(&mut h, 0, ORDER_ALONE, "no_going_alone");
    run(&mut h, &[(0, ORDER), (1, discard("9h"))]);
    for (lead, answer) in [("Jc", "9c"), ("Js", "Th"), ("Ac", "Jh"), ("Kc", "Qh"), ("Qc", "Kh")] {
        run(&mut h, &[(0, play(lead)), (1, play(answer))]);
    }
    assert_eq!(played(&h).points, [2, 0]);
}

// ---- The joker ------------------------------------------------------------------

#[test]
fn a_turned_up_joker_stands_for_the_suit_the_dealer_names() {
    let rules = Rules { joker: true, ..Rules::default() };
    let hands = ["Jc Js Ac Kc Qc", "9s Ts Qs Ks As", "9h Th Jh Qh Kh", "9d Td Jd Qd Kd"];
    let mut h = Hand::new(rules, deal_of(&rules, 3, hands, "JK"));
    assert_eq!((h.phase(), h.turn(), h.up_suit()), (Phase::NamingJokerSuit, Some(Seat(3)), None));
    rejects(&mut h, 0, PASS, "not_your_turn");
    rejects(&mut h, 3, PASS, "not_now");
    assert_eq!(h.legal_actions(Seat(3)).len(), 4);
    let events = run(&mut h, &[(3, Action::NameSuit { suit: Suit::Hearts })]);
    assert_eq!(events, vec![Event::JokerSuitNamed { dealer: Seat(3), suit: Suit::Hearts }]);
    assert_eq!(
        (h.phase(), h.turn(), h.up_suit()),
        (Phase::OrderingUp, Some(Seat(0)), Some(Suit::Hearts))
    );
    // Ordering up makes the named suit trump; the dealer takes the joker.
    run(&mut h, &[(0, PASS), (1, PASS), (2, ORDER)]);
    assert_eq!(h.trump(), Some(Suit::Hearts));
    assert!(h.holding(Seat(3)).contains(Card::JOKER));
    run(&mut h, &[(3, discard("9d"))]);
    // Seat 0 leads a heart-less hand; the dealer's joker beats seat 2's right bower.
    run(&mut h, &[(0, play("Ac")), (1, play("9s")), (2, play("Jh"))]);
    run(&mut h, &[(3, play("JK"))]);
    assert_eq!(h.trick().leader, Seat(3));
}

#[test]
fn a_joker_turned_down_turns_its_named_suit_down() {
    let rules = Rules { joker: true, ..Rules::default() };
    let hands = ["Jc Js Ac Kc Qc", "9s Ts Qs Ks As", "9h Th Jh Qh Kh", "9d Td Jd Qd Kd"];
    let mut h = Hand::new(rules, deal_of(&rules, 3, hands, "JK"));
    run(&mut h, &[(3, Action::NameSuit { suit: Suit::Spades })]);
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    assert_eq!(h.turned_down(), Some(Suit::Spades));
    rejects(&mut h, 0, call(Suit::Spades), "suit_turned_down");
    run(&mut h, &[(0, call(Suit::Clubs))]);
    // The joker was never picked up: it is out of play, and the rest of the
    // pack is with the players.
    assert!((0..4).all(|seat| !h.holding(Seat(seat)).contains(Card::JOKER)));
}

// ---- No trump -------------------------------------------------------------------

#[test]
fn no_trump_is_called_in_round_two_where_allowed() {
    let mut h = hand(Rules::default());
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    rejects(&mut h, 0, Action::CallNoTrump { alone: false }, "no_trump_off");

    let rules = Rules { allow_no_trump: true, ..Rules::default() };
    let mut h = hand(rules);
    rejects(&mut h, 0, Action::CallNoTrump { alone: false }, "not_now");
    run(&mut h, &[(0, PASS), (1, PASS), (2, PASS), (3, PASS)]);
    assert!(h.legal_actions(Seat(0)).as_slice().contains(&Action::CallNoTrump { alone: true }));
    let events = run(&mut h, &[(0, Action::CallNoTrump { alone: false })]);
    assert!(events.contains(&Event::NoTrumpCalled { seat: Seat(0), alone: false }));
    assert_eq!((h.phase(), h.trump(), h.no_trump()), (Phase::Playing, None, true));
    // The ace of clubs takes a trick nobody can follow: nothing trumps.
    run(&mut h, &[(0, play("Ac")), (1, play("9s")), (2, play("9h")), (3, play("9d"))]);
    assert_eq!(h.trick().leader, Seat(0));
    // The jack of spades is a plain spade: seat 1 must follow and wins with the ace.
    run(&mut h, &[(0, play("Js"))]);
    rejects(&mut h, 1, play("9s"), "card_not_in_hand");
    rejects(&mut h, 1, play("9h"), "card_not_in_hand");
    run(&mut h, &[(1, play("As")), (2, play("Th")), (3, play("Td"))]);
    assert_eq!(h.trick().leader, Seat(1));
    assert_eq!(h.tricks_won(), [1, 1]);
}

#[test]
fn the_joker_and_no_trump_do_not_go_together() {
    let rules = Rules { allow_no_trump: true, joker: true, ..Rules::default() };
    assert!(Game::new(rules, 1).is_err());
}

// ---- Rubbers --------------------------------------------------------------------

#[test]
fn a_rubber_is_two_games_won_scored_in_rubber_points() {
    let rules = Rules { rubber: true, points_to_win: 5, ..Preset::Classic.rules() };
    for seed in 0..20 {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut events = Vec::new();
        while let Some(seat) = game.turn() {
            let actions = game.legal_actions(seat);
            let action = actions.iter().find(|a| **a != PASS).copied().unwrap_or(actions[0]);
            events.extend(game.apply(seat, action).expect("legal"));
        }
        let winner = game.winner().expect("the rubber is decided");
        let games = game.games();
        assert!((2..=3).contains(&games.len()), "seed {seed}: {} games", games.len());
        assert_eq!(games.iter().filter(|g| g.winner == winner).count(), 2);
        assert_eq!(games.last().map(|g| g.winner), Some(winner));
        // Each game: 3 rubber points if the losers scored 0, 2 for 1 or 2, 1 for more.
        let mut points = [0u8; 2];
        for result in games {
            let losers = result.scores[1 - result.winner.index()];
            let expected = match losers {
                0 => 3,
                1 | 2 => 2,
                _ => 1,
            };
            assert_eq!(result.rubber_points, expected, "{result:?}");
            assert!(result.scores[result.winner.index()] >= 5);
            points[result.winner.index()] += expected;
        }
        let margin = 2 + points[winner.index()] - points[1 - winner.index()];
        let won: Vec<&Event> =
            events.iter().filter(|e| matches!(e, Event::GameWon { .. })).collect();
        assert_eq!(won.len(), games.len());
        let Some(Event::RubberWon { team, result }) = events.last() else {
            panic!("the last event is the rubber's");
        };
        assert_eq!((*team, result.margin), (winner, margin));
        assert_eq!(result.rubber_points, points);
        // The record replays to the same rubber.
        assert_eq!(Game::replay(game.record()).expect("replays").games(), games);
    }
    let three = Rules { rubber: true, ..Preset::Cutthroat.rules() };
    assert!(Game::new(three, 0).is_err());
}
