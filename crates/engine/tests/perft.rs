//! Perft: the number of distinct card-play sequences from fixed deals,
//! counted three ways that must agree with each other and with the counts
//! committed in `tests/data/perft.txt`:
//!
//! 1. through the full API, recursing over `Hand::legal_actions` and
//!    `Hand::apply` (only `Action::Play`: claims and concessions end a hand
//!    early and are not part of the card-play tree);
//! 2. with `sim::perft`, the simulation path's bulk counter;
//! 3. with a counter written here from first principles, over plain
//!    `Vec<Card>`s, with its own bidding outcome, follow-suit and trick-winner
//!    logic (nothing from the engine's `trump` or `hand` modules).
//!
//! Depths whose count is above a node limit are left to the ignored test
//! `full_depth` and to the benchmark, which asserts the deepest counts.

#[path = "perft/cases.rs"]
mod cases;

use cases::Case;
use euchre_engine::{Action, Card, Hand, Rank, Seat, Suit, sim};

/// The default run re-counts committed counts up to these sizes, so that
/// `cargo test` stays quick; `full_depth` does the rest.
const NODE_LIMIT: u64 = 200_000;
const SIM_NODE_LIMIT: u64 = 3_000_000;

/// Method 1: the full API.
fn count_full_api(hand: &Hand, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some(seat) = hand.turn() else { return 1 };
    let mut leaves = 0;
    for action in hand.legal_actions(seat).as_slice() {
        if let Action::Play { .. } = action {
            let mut next = *hand;
            let events = next.apply(seat, *action).expect("a legal action");
            assert!(!events.is_empty());
            leaves += count_full_api(&next, depth - 1);
        }
    }
    leaves
}

/// Method 3: a from-scratch model of card play.
mod scratch {
    use super::*;

    const fn black(suit: Suit) -> bool {
        matches!(suit, Suit::Spades | Suit::Clubs)
    }

    /// The suit a card follows as: the jack of trump's colour is a trump.
    fn follows_as(card: Card, trump: Suit) -> Suit {
        let left =
            card.rank() == Rank::Jack && card.suit() != trump && black(card.suit()) == black(trump);
        if left { trump } else { card.suit() }
    }

    fn rank_value(rank: Rank) -> u32 {
        match rank {
            Rank::Seven => 7,
            Rank::Eight => 8,
            Rank::Nine => 9,
            Rank::Ten => 10,
            Rank::Jack => 11,
            Rank::Queen => 12,
            Rank::King => 13,
            Rank::Ace => 14,
        }
    }

    /// Bigger wins; 0 cannot win (neither trump nor the led suit).
    fn strength(card: Card, led: Suit, trump: Suit) -> u32 {
        if card.rank() == Rank::Jack && card.suit() == trump {
            100
        } else if follows_as(card, trump) == trump {
            if card.rank() == Rank::Jack { 99 } else { 50 + rank_value(card.rank()) }
        } else if card.suit() == led {
            rank_value(card.rank())
        } else {
            0
        }
    }

    /// Card play after the bidding, as a table would see it.
    #[derive(Debug, PartialEq)]
    pub struct Table {
        pub hands: [Vec<Card>; 4],
        pub trump: Suit,
        pub sitting_out: Option<usize>,
        pub turn: usize,
        trick: Vec<(usize, Card)>,
    }

    impl Table {
        /// Works out trump, the loner and the first leader from the case's
        /// bidding, without the engine: whoever orders up or calls makes
        /// trump; the dealer picks up the up-card when it is ordered and
        /// discards; the player left of the dealer leads, or the next one if
        /// that player sits out.
        pub fn from_case(case: &Case) -> Table {
            let mut hands = case.hands.clone();
            let dealer = case.dealer.index();
            let mut made = None;
            for (seat, action) in &case.bids {
                match *action {
                    Action::OrderUp { alone } => {
                        made = Some((case.up_card.suit(), seat.index(), alone));
                        hands[dealer].push(case.up_card);
                    }
                    Action::Call { suit, alone } => made = Some((suit, seat.index(), alone)),
                    Action::Discard { card } => hands[dealer].retain(|c| *c != card),
                    _ => {}
                }
            }
            let (trump, maker, alone) = made.expect("somebody makes trump");
            let sitting_out = alone.then_some((maker + 2) % 4);
            let mut turn = (dealer + 1) % 4;
            if sitting_out == Some(turn) {
                turn = (turn + 1) % 4;
            }
            Table { hands, trump, sitting_out, turn, trick: Vec::new() }
        }

        fn next_seat(&self, seat: usize) -> usize {
            let next = (seat + 1) % 4;
            if self.sitting_out == Some(next) { (next + 1) % 4 } else { next }
        }

        fn legal(&self) -> Vec<Card> {
            let hand = &self.hands[self.turn];
            let Some((_, first)) = self.trick.first() else {
                return hand.clone();
            };
            let led = follows_as(*first, self.trump);
            let following: Vec<Card> =
                hand.iter().copied().filter(|c| follows_as(*c, self.trump) == led).collect();
            if following.is_empty() { hand.clone() } else { following }
        }

        pub fn count(&mut self, depth: u32) -> u64 {
            if depth == 0 || self.hands[self.turn].is_empty() {
                return 1;
            }
            let players = if self.sitting_out.is_some() { 3 } else { 4 };
            let mut leaves = 0;
            for card in self.legal() {
                let (turn, trick) = (self.turn, self.trick.clone());
                self.hands[turn].retain(|c| *c != card);
                self.trick.push((turn, card));
                if self.trick.len() == players {
                    let led = follows_as(self.trick[0].1, self.trump);
                    let winner = self
                        .trick
                        .iter()
                        .max_by_key(|(_, c)| strength(*c, led, self.trump))
                        .map(|(seat, _)| *seat)
                        .expect("a full trick");
                    self.trick.clear();
                    self.turn = winner;
                } else {
                    self.turn = self.next_seat(turn);
                }
                leaves += self.count(depth - 1);
                self.hands[turn].push(card);
                self.turn = turn;
                self.trick = trick;
            }
            leaves
        }
    }
}

/// The engine's hand after bidding is the one the scratch model works out.
#[test]
fn the_scratch_model_starts_where_the_engine_does() {
    for case in cases::load() {
        let hand = case.hand();
        let table = scratch::Table::from_case(&case);
        assert_eq!(hand.trump(), Some(table.trump), "{}", case.id);
        assert_eq!(hand.turn(), Some(Seat(table.turn as u8)), "{}", case.id);
        assert_eq!(hand.sitting_out().map(|s| s.index()), table.sitting_out, "{}", case.id);
        for seat in 0..4u8 {
            let held: euchre_engine::CardSet =
                table.hands[usize::from(seat)].iter().copied().collect();
            assert_eq!(hand.holding(Seat(seat)), held, "{} seat {seat}", case.id);
        }
    }
}

/// Checks the committed counts of every case up to the given limits: the
/// slow full-API and from-scratch counters to `limit`, the simulation path's
/// counter to `sim_limit`.
fn check_counts(limit: u64, sim_limit: u64) {
    let cases = cases::load();
    assert!(cases.len() >= 6, "the data file has its cases");
    for case in &cases {
        let hand = case.hand();
        let id = &case.id;
        assert!(!case.counts.is_empty(), "{id} has counts");
        for &(depth, expected) in &case.counts {
            if expected <= sim_limit {
                assert_eq!(sim::perft(&hand, depth), expected, "{id} sim depth {depth}");
            }
            if expected <= limit {
                let api = count_full_api(&hand, depth);
                assert_eq!(api, expected, "{id} api depth {depth}");
                let mut table = scratch::Table::from_case(case);
                assert_eq!(table.count(depth), expected, "{id} scratch depth {depth}");
            }
        }
    }
}

#[test]
fn committed_counts_agree_by_three_methods() {
    check_counts(NODE_LIMIT, SIM_NODE_LIMIT);
}

/// Every committed count by the simulation path, and all but `all_void`'s
/// beyond depth 12 (which its closed form checks) by the other two methods: `cargo test -p euchre-engine --release --test perft --
/// --ignored full_depth` (one to two minutes).
#[test]
#[ignore]
fn full_depth() {
    check_counts(20_000_000, u64::MAX);
}

/// In `all_void` every card held is always legal, so the count is a product
/// of hand sizes: a fourth method, by arithmetic alone.
#[test]
fn all_void_matches_its_closed_form() {
    let case =
        cases::load().into_iter().find(|case| case.id == "all_void").expect("the all_void case");
    for &(depth, expected) in &case.counts {
        // Play `n` (from 0) is by a player who has played `n / 4` cards.
        let product: u64 = (0..depth.min(20)).map(|n| u64::from(5 - n / 4)).product();
        assert_eq!(product, expected, "depth {depth}");
    }
    assert_eq!(case.deepest().1, 120u64.pow(4));
}

/// Prints every depth's count by the three methods, for writing new cases:
/// `cargo test -p euchre-engine --release --test perft -- --ignored --nocapture print_counts`.
#[test]
#[ignore]
fn print_counts() {
    const PRINT_LIMIT: u64 = 20_000_000;
    for case in cases::load() {
        let hand = case.hand();
        println!("id {}", case.id);
        let plays = if hand.alone() { 15 } else { 20 };
        for depth in 1..=plays {
            let fast = sim::perft(&hand, depth);
            if fast > PRINT_LIMIT {
                println!("perft {depth} {fast} (sim::perft only)");
                continue;
            }
            let api = count_full_api(&hand, depth);
            let scratch = scratch::Table::from_case(&case).count(depth);
            let agree = if fast == api && api == scratch { "" } else { "  DISAGREE" };
            println!("perft {depth} {fast}{agree} (api {api}, scratch {scratch})");
        }
    }
}
