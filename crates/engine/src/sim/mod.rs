//! The lean simulation path: random hands and playouts for search bots, and
//! perft-style exhaustive counts of the card-play tree.
//!
//! Bids and discards are checked and made by [`Hand`] without events: the
//! rule code that [`Hand::apply`] and [`crate::Game::apply`] run. Cards are
//! played by [`CardPlay`], which renumbers them once trump is known and is
//! checked card by card against [`Hand`] in every game form, so a
//! simulation cannot play by rules the server does not. What the simulation
//! path saves is the rest: events, vectors of actions, the game record.
//!
//! ```
//! use euchre_engine::{HandOutcome, Rules, Seat, sim};
//! use rand::SeedableRng;
//! use rand::rngs::SmallRng;
//!
//! // A fast generator is fine for playouts; deals that must replay use ChaCha.
//! let mut rng = SmallRng::seed_from_u64(1);
//! let outcome = sim::random_hand(&Rules::default(), Seat(3), &mut rng);
//! if let HandOutcome::Played(played) = outcome {
//!     assert_eq!(played.tricks[0] + played.tricks[1], 5);
//! }
//! ```

mod card_play;
mod solve;

pub use card_play::CardPlay;
pub use solve::Solver;

use rand::{Rng, RngExt};

use crate::action::{Action, HandOutcome, Seat};
use crate::card::{Card, CardSet, Suit};
use crate::deal::Deal;
use crate::hand::{Hand, Phase};
use crate::rules::Rules;

/// Deals, bids, plays and scores one hand with every choice uniformly random
/// among the legal ones (see [`random_action`]).
pub fn random_hand(rules: &Rules, dealer: Seat, rng: &mut impl Rng) -> HandOutcome {
    let mut hand = Hand::new(*rules, Deal::shuffled(rules, dealer, rng));
    playout(&mut hand, rng)
}

/// Finishes `hand` with random legal actions (see [`random_action`]) and
/// returns how it ended: the playout of a Monte-Carlo search. Bids and
/// discards go through [`Hand`]; the cards are played by [`CardPlay`], and
/// the hand scores the tricks.
pub fn playout(hand: &mut Hand, rng: &mut impl Rng) -> HandOutcome {
    loop {
        match (hand.phase(), hand.turn()) {
            (Phase::Playing, _) => {
                let tricks = CardPlay::in_play(hand).random_playout(rng);
                return hand.finish_play(tricks);
            }
            (_, Some(seat)) => make_random_bid(hand, seat, rng),
            (_, None) => {
                let Some(outcome) = hand.outcome() else {
                    unreachable!("a finished hand has an outcome");
                };
                return outcome;
            }
        }
    }
}

/// A uniformly random legal action for the seat to act, leaving out the
/// actions that cut a hand short: farmer's hand, claims and concessions.
/// Bidding is thus uniform over pass and the legal bids, so most hands are
/// played and a few are thrown in when everybody passes.
///
/// # Panics
///
/// If the hand is finished.
pub fn random_action(hand: &Hand, rng: &mut impl Rng) -> Action {
    if let Some(card) = random_play(hand, rng) {
        return Action::Play { card };
    }
    let Some(seat) = hand.turn() else {
        panic!("random_action on a finished hand");
    };
    random_bid(hand, seat, rng)
}

/// A uniformly random legal card for the seat to play, if cards are being
/// played: one mask and at most one random number.
#[inline]
pub fn random_play(hand: &Hand, rng: &mut impl Rng) -> Option<Card> {
    let plays = hand.legal_plays();
    if plays.is_empty() {
        return None;
    }
    // Drawing even when one card is legal, and picking the card without a
    // loop, keeps the branches predictable: a mispredicted branch costs
    // more than a random number.
    let pick = below(plays.len(), rng);
    nth_card(plays, pick)
}

/// A uniformly random number below `n` (`n > 0`) from a 64-bit draw:
/// Lemire's multiply-and-reject, exactly uniform, the division that decides
/// a rejection made about once in 2^61 draws of a small `n`.
#[inline]
fn below(n: u32, rng: &mut impl Rng) -> u32 {
    let n = u64::from(n);
    loop {
        let wide = u128::from(rng.next_u64()) * u128::from(n);
        let low = wide as u64;
        if low >= n || low >= n.wrapping_neg() % n {
            return (wide >> 64) as u32;
        }
    }
}

/// The `n`th card of a set in index order, as [`CardSet::nth`], but for a
/// set of at most eight (a hand, the dealer's six) in straight-line code:
/// list the cards, then index, with no loop to mispredict on `n`.
#[inline]
fn nth_card(cards: CardSet, n: u32) -> Option<Card> {
    if cards.len() > 8 || n >= cards.len() {
        return cards.nth(n);
    }
    let mut list = [0u8; 8];
    let mut bits = cards.0;
    for slot in &mut list {
        *slot = bits.trailing_zeros() as u8;
        bits &= bits.wrapping_sub(1);
    }
    Some(Card::from_index(list[n as usize & 7]))
}

/// A uniformly random legal action outside card play (a bid or the
/// discard), without farmer's hand. Drawn by rejection: a random action of
/// the right kind for the phase, kept if [`Hand::check`] accepts it, which
/// is uniform over the accepted ones and cheaper than listing them. Kept out
/// of line so that the card-play loop stays small.
#[inline(never)]
fn random_bid(hand: &Hand, seat: Seat, rng: &mut impl Rng) -> Action {
    // At least one candidate in eleven is legal in every phase, so running
    // out of attempts means the engine has lost its way.
    for _ in 0..1000 {
        let action = bid_candidate(hand, seat, rng);
        if hand.check(seat, action).is_ok() {
            return action;
        }
    }
    panic!("no legal bid found for {seat} in {:?}", hand.phase());
}

/// Makes the bid [`random_bid`] would choose: each candidate goes straight
/// to the hand (`Hand::bid`, [`Hand::apply_with`] less the questions whose
/// answers the caller knows), which refuses an illegal one and changes
/// nothing, so the rules are asked once per candidate instead of twice.
#[inline(never)]
fn make_random_bid(hand: &mut Hand, seat: Seat, rng: &mut impl Rng) {
    for _ in 0..1000 {
        let action = bid_candidate(hand, seat, rng);
        if hand.bid(action).is_ok() {
            return;
        }
    }
    panic!("no legal bid found for {seat} in {:?}", hand.phase());
}

/// A random action of the kind the phase calls for, legal or not: a
/// candidate for [`random_bid`].
#[inline]
fn bid_candidate(hand: &Hand, seat: Seat, rng: &mut impl Rng) -> Action {
    match hand.phase() {
        Phase::NamingJokerSuit => {
            Action::NameSuit { suit: Suit::from_index(rng.random_range(0..4u32) as u8) }
        }
        Phase::OrderingUp => match rng.random_range(0..3u32) {
            0 => Action::Pass,
            n => Action::OrderUp { alone: n == 2 },
        },
        Phase::Calling => match rng.random_range(0..11u32) {
            0 => Action::Pass,
            n @ 9..=10 => Action::CallNoTrump { alone: n == 10 },
            n => Action::Call { suit: Suit::from_index((n >> 1) as u8), alone: n & 1 == 1 },
        },
        Phase::DefendingAlone => {
            if rng.random_range(0..2u32) == 0 {
                Action::Pass
            } else {
                Action::DefendAlone
            }
        }
        Phase::DealerDiscard | Phase::LonerDiscard | Phase::DummyDiscard | Phase::PassingBest => {
            let held = hand.holding(seat);
            let n = rng.random_range(0..held.len().max(1));
            let Some(card) = nth_card(held, n) else {
                panic!("{seat} holds no card to discard or pass");
            };
            if hand.phase() == Phase::PassingBest {
                Action::PassCard { card }
            } else {
                Action::Discard { card }
            }
        }
        Phase::Playing | Phase::Finished => panic!("no bid to make in {:?}", hand.phase()),
    }
}

/// The number of distinct sequences of `depth` card plays from `hand`: the
/// leaves of the card-play tree cut at that depth, as chess engines count
/// "perft". Every line of a hand has the same length, so a depth beyond the
/// end of the hand counts the complete lines. Only [`Action::Play`] makes the
/// tree: claims and concessions end a hand early and are not counted. A hand
/// still in bidding has no plays and counts 0 at any positive depth. The
/// tree is walked on [`CardPlay`].
pub fn perft(hand: &Hand, depth: u32) -> u64 {
    if depth == 0 || hand.is_finished() {
        return 1;
    }
    CardPlay::new(hand).map_or(0, |play| play.perft(depth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::PlayedHand;
    use crate::rules::{AllPass, Deck, LonerLead, Preset};
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn check_played(rules: &Rules, played: &PlayedHand) {
        let tricks = played.tricks;
        assert_eq!(tricks.len(), usize::from(rules.teams()));
        assert_eq!(tricks.iter().sum::<u8>(), 5, "{played:?}");
        let makers = rules.team_of(played.maker);
        assert_eq!(played.makers, makers);
        let scoring = rules.scoring;
        let (to_makers, points) = match (tricks[makers], played.alone, played.lone_defender) {
            (5, true, _) => (true, scoring.lone_march),
            (5, false, _) => (true, scoring.march),
            (3 | 4, _, _) => (true, scoring.made),
            (_, true, Some(_)) => (false, scoring.defender_alone_euchre),
            (_, true, None) => (false, scoring.lone_euchre),
            (_, false, _) => (false, scoring.euchre),
        };
        // The makers score, or else every other team does.
        for (team, scored) in played.points.teams() {
            let expected = if (team == makers) == to_makers { points } else { 0 };
            assert_eq!(*scored, expected, "{played:?}");
        }
    }

    #[test]
    fn random_hands_end_with_five_tricks_and_consistent_points() {
        let mut rng = SmallRng::seed_from_u64(11);
        for preset in Preset::ALL {
            let rules = preset.rules();
            let (mut played, mut alone) = (0, 0);
            for n in 0..2000u32 {
                let dealer = Seat((n % u32::from(rules.players)) as u8);
                match random_hand(&rules, dealer, &mut rng) {
                    HandOutcome::Played(hand) => {
                        check_played(&rules, &hand);
                        played += 1;
                        alone += u32::from(hand.alone);
                    }
                    HandOutcome::ThrownIn(_) => {}
                }
            }
            // Uniform bidding makes trump almost every hand, alone about half
            // the time where going alone exists.
            assert!(played > 1900, "{preset:?}: {played} played");
            if rules.may_go_alone() {
                assert!(alone > 500 && alone < played - 500, "{preset:?}: {alone}");
            } else {
                assert_eq!(alone, 0, "{preset:?}");
            }
        }
    }

    #[test]
    fn random_hands_reach_the_loner_options() {
        // Canadian loner, defend alone and call for best: the random bids
        // reach every new phase and the hands score as the rules say.
        let rules = Rules {
            canadian_loner: true,
            defend_alone: true,
            call_for_best: true,
            ..Rules::default()
        };
        let mut rng = SmallRng::seed_from_u64(12);
        let mut defended = 0;
        for n in 0..2000u32 {
            let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat((n % 4) as u8), &mut rng));
            let mut phases = Vec::new();
            while let Some(seat) = hand.turn() {
                phases.push(hand.phase());
                let action = random_action(&hand, &mut rng);
                assert!(hand.legal_actions(seat).as_slice().contains(&action), "{action:?}");
                hand.apply(seat, action).expect("a legal action");
            }
            if let Some(HandOutcome::Played(played)) = hand.outcome() {
                check_played(&rules, &played);
                let asked = phases.contains(&Phase::PassingBest);
                assert_eq!(asked, played.alone);
                assert_eq!(phases.contains(&Phase::LonerDiscard), played.alone);
                assert_eq!(phases.contains(&Phase::DefendingAlone), played.alone);
                defended += usize::from(played.lone_defender.is_some());
            }
        }
        assert!(defended > 200, "{defended} hands defended alone");
    }

    #[test]
    fn playouts_follow_the_rules_step_by_step() {
        // Replaying each random action through the full API must be accepted,
        // and a loner's partner never plays.
        let mut rng = SmallRng::seed_from_u64(5);
        let rules = Rules {
            deck: Deck::SevenToAce,
            loner_lead: LonerLead::LeftOfLoner,
            all_pass: AllPass::StickTheDealer,
            ..Rules::default()
        };
        for n in 0..500u32 {
            let deal = Deal::shuffled(&rules, Seat((n % 4) as u8), &mut rng);
            deal.validate(&rules).expect("a valid deal");
            let mut hand = Hand::new(rules, deal);
            let mut plays = 0;
            while let Some(seat) = hand.turn() {
                let action = random_action(&hand, &mut rng);
                assert!(hand.legal_actions(seat).as_slice().contains(&action));
                if let Action::Play { .. } = action {
                    plays += 1;
                    assert_ne!(hand.sitting_out(), Some(seat));
                }
                hand.apply(seat, action).expect("a legal action");
            }
            let expected = if hand.alone() { 15 } else { 20 };
            assert_eq!(plays, expected);
            assert!(matches!(hand.outcome(), Some(HandOutcome::Played(_))));
        }
    }

    #[test]
    fn play_with_is_apply_with_for_the_seat_to_play() {
        // Every card of the pack, at every step of random hands, in every
        // phase: the same result, the same events, the same hand after.
        let mut rng = SmallRng::seed_from_u64(8);
        for preset in Preset::ALL {
            let rules = preset.rules();
            for n in 0..60u32 {
                let deal =
                    Deal::shuffled(&rules, Seat((n % u32::from(rules.players)) as u8), &mut rng);
                let mut hand = Hand::new(rules, deal);
                loop {
                    let seat = hand.turn().unwrap_or(Seat(0));
                    for card in rules.pack() {
                        let (mut fast, mut full) = (hand, hand);
                        let (mut fast_events, mut full_events) = (Vec::new(), Vec::new());
                        let played = fast.play_with(card, &mut fast_events);
                        let applied =
                            full.apply_with(seat, Action::Play { card }, &mut full_events);
                        assert_eq!(played, applied, "{card} in {hand:?}");
                        assert_eq!(fast, full);
                        assert_eq!(fast_events, full_events);
                    }
                    if hand.is_finished() {
                        break;
                    }
                    let action = random_action(&hand, &mut rng);
                    hand.apply(seat, action).expect("a legal action");
                }
            }
        }
    }

    #[test]
    fn random_bids_reach_every_legal_bid() {
        // Rejection sampling against `check` must cover what `legal_actions`
        // lists (less farmer's hand), in every bidding phase and rule set.
        let mut rng = SmallRng::seed_from_u64(6);
        for preset in Preset::ALL {
            let rules = preset.rules();
            let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(1), &mut rng));
            let mut positions = vec![hand];
            // Everybody passes round one and all but the last of round two.
            for _ in 0..2 * rules.players - 1 {
                let seat = hand.turn().expect("bidding");
                hand.apply(seat, Action::Pass).expect("a pass");
                positions.push(hand);
            }
            let mut ordered = positions[0];
            let first = ordered.turn().expect("bidding");
            ordered.apply(first, Action::OrderUp { alone: false }).expect("order up");
            positions.push(ordered);
            // The dealer's discard done, the maker's dummy discards follow.
            let mut after = ordered;
            while after.phase() == Phase::DealerDiscard || after.phase() == Phase::DummyDiscard {
                let seat = after.turn().expect("discarding");
                let discard = after.legal_actions(seat).as_slice()[0];
                after.apply(seat, discard).expect("a discard");
                positions.push(after);
            }
            // Bidding and discarding positions only: card play is drawn elsewhere.
            positions.retain(|position| position.phase() != Phase::Playing);
            for position in positions {
                let seat = position.turn().expect("a seat to act");
                let mut legal: Vec<Action> = position.legal_actions(seat).as_slice().to_vec();
                legal.retain(|a| *a != Action::FarmersHand);
                let mut drawn: Vec<Action> = Vec::new();
                for _ in 0..400 {
                    let action = random_action(&position, &mut rng);
                    if !drawn.contains(&action) {
                        drawn.push(action);
                    }
                }
                let key = |a: &Action| format!("{a:?}");
                legal.sort_by_key(key);
                drawn.sort_by_key(key);
                assert_eq!(drawn, legal, "{preset:?} {:?}", position.phase());
            }
        }
    }

    #[test]
    fn nth_card_agrees_with_nth() {
        let mut rng = SmallRng::seed_from_u64(4);
        for _ in 0..200 {
            let deal = Deal::shuffled(&Rules::default(), Seat(0), &mut rng);
            let cards = deal.hands[0].union(deal.hands[1]).to_vec();
            // Every non-empty subset of eight cards.
            for subset in 1..256u32 {
                let set: CardSet =
                    (0..8).filter(|i| subset & (1 << i) != 0).map(|i| cards[i]).collect();
                for n in 0..=set.len() {
                    assert_eq!(nth_card(set, n), set.nth(n));
                }
            }
            // Past eight cards (the three-handed maker with the dummy).
            let ten = deal.hands[0].union(deal.hands[1]);
            for n in 0..=ten.len() {
                assert_eq!(nth_card(ten, n), ten.nth(n));
            }
        }
    }

    #[test]
    fn playout_continues_a_hand_in_progress() {
        let mut rng = SmallRng::seed_from_u64(9);
        let rules = Rules::default();
        let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(0), &mut rng));
        hand.apply(Seat(1), Action::OrderUp { alone: false }).expect("order up");
        let before = hand;
        for _ in 0..100 {
            let mut copy = before;
            let HandOutcome::Played(played) = playout(&mut copy, &mut rng) else {
                panic!("an ordered-up hand is played");
            };
            assert_eq!(played.maker, Seat(1));
            assert_eq!(played.trump, Some(rules_up_suit(&before)));
            check_played(&rules, &played);
        }
    }

    fn rules_up_suit(hand: &Hand) -> crate::card::Suit {
        hand.up_card().suit()
    }

    #[test]
    fn a_dealer_who_may_pass_sometimes_does() {
        // Seven passes, then the dealer's random choice: pass (and throw the
        // hand in) or name one of three suits, alone or not.
        let mut rng = SmallRng::seed_from_u64(2);
        for (rules, may_pass) in [(Rules::default(), true), (Preset::StickTheDealer.rules(), false)]
        {
            let mut thrown = 0;
            for _ in 0..700 {
                let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(0), &mut rng));
                for seat in [1, 2, 3, 0, 1, 2, 3] {
                    hand.apply(Seat(seat), Action::Pass).expect("a pass");
                }
                if let HandOutcome::ThrownIn(_) = playout(&mut hand, &mut rng) {
                    thrown += 1;
                }
            }
            // One in seven: about 100 of 700.
            if may_pass {
                assert!((50..150).contains(&thrown), "{thrown} thrown in");
            } else {
                assert_eq!(thrown, 0);
            }
        }
    }

    #[test]
    fn perft_counts_small_trees() {
        let mut rng = SmallRng::seed_from_u64(3);
        let rules = Rules::default();
        let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(3), &mut rng));
        assert_eq!(perft(&hand, 1), 0, "no plays during bidding");
        hand.apply(Seat(0), Action::OrderUp { alone: false }).expect("order up");
        let discard = hand.holding(Seat(3)).first().expect("a card");
        hand.apply(Seat(3), Action::Discard { card: discard }).expect("discard");
        assert_eq!(perft(&hand, 0), 1);
        assert_eq!(perft(&hand, 1), 5, "the leader may lead anything");
        // Two plies by hand: each lead, then each reply.
        let mut two = 0;
        for card in hand.legal_plays() {
            let mut next = hand;
            next.apply(Seat(0), Action::Play { card }).expect("play");
            two += u64::from(next.legal_plays().len());
        }
        assert_eq!(perft(&hand, 2), two);
        // The last trick is forced, so the full tree equals its 16-ply cut.
        assert_eq!(perft(&hand, 16), perft(&hand, 20));
        assert_eq!(perft(&hand, 20), perft(&hand, 25));
    }
}
