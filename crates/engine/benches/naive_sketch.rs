//! A naive bit-set sketch of one random hand of four-handed Euchre: deal,
//! bid, play and score, with every choice uniformly random. It is the kind
//! of straightforward first version one writes in an hour or two, and it is
//! used only as a reference for how fast the machine is, so that the
//! engine's own figures can be compared across machines. It is not the
//! engine (it uses nothing from `euchre_engine`) and it is not tested as a
//! rules implementation beyond the few checks below.
//!
//! Run with `cargo bench -p euchre-engine --bench naive_sketch`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

// A card is `suit * 6 + rank`, ranks 9, 10, J, Q, K, A as 0..6; suits 0 and
// 1 are black, 2 and 3 red, so `suit ^ 1` is the other suit of its colour.
// A hand is a set of cards, bit `card` of a `u32`.
const JACK: u8 = 2;
const ONE_SUIT: u32 = 0b11_1111;

fn suit(card: u8) -> u8 {
    card / 6
}

fn rank(card: u8) -> u8 {
    card % 6
}

fn right_bower(trump: u8) -> u8 {
    trump * 6 + JACK
}

fn left_bower(trump: u8) -> u8 {
    (trump ^ 1) * 6 + JACK
}

/// The suit a card counts as for following suit: the left bower is trump.
fn effective_suit(card: u8, trump: u8) -> u8 {
    if card == left_bower(trump) { trump } else { suit(card) }
}

/// The cards of `hand` that follow a lead of `led` (an effective suit).
fn cards_of_suit(hand: u32, led: u8, trump: u8) -> u32 {
    let left = 1u32 << left_bower(trump);
    let suit_cards = ONE_SUIT << (6 * led);
    let mask = if led == trump { suit_cards | left } else { suit_cards & !left };
    hand & mask
}

/// How strongly a card plays in a trick led with `led`: 0 if it cannot win.
fn power(card: u8, trump: u8, led: u8) -> u8 {
    if card == right_bower(trump) {
        100
    } else if card == left_bower(trump) {
        99
    } else if suit(card) == trump {
        50 + rank(card)
    } else if suit(card) == led {
        10 + rank(card)
    } else {
        0
    }
}

/// A uniformly random card of a non-empty set.
fn random_card(mut set: u32, rng: &mut SmallRng) -> u8 {
    let index = rng.random_range(0..set.count_ones());
    for _ in 0..index {
        set &= set - 1; // drop the lowest card
    }
    set.trailing_zeros() as u8
}

/// A hand that was played out (one that all passed is thrown in instead).
#[derive(Debug, Clone, Copy)]
struct Played {
    maker: usize,
    alone: bool,
    /// Tricks per team; team = seat % 2.
    tricks: [u8; 2],
    points: [u8; 2],
}

/// The bid: `(trump, maker, alone)`, or `None` if all pass both rounds.
/// The dealer picks up the up-card in round one, even if he then sits out.
fn bid(
    dealer: usize,
    up: u8,
    hands: &mut [u32; 4],
    rng: &mut SmallRng,
) -> Option<(u8, usize, bool)> {
    let order = (1..=4).map(|i| (dealer + i) % 4);
    for seat in order.clone() {
        let choice = rng.random_range(0..3u8); // pass, order up, order up alone
        if choice > 0 {
            hands[dealer] |= 1 << up;
            let discard = random_card(hands[dealer], rng);
            hands[dealer] &= !(1 << discard);
            return Some((suit(up), seat, choice == 2));
        }
    }
    for seat in order {
        let choice = rng.random_range(0..7u8); // pass, or one of 3 suits × alone or not
        if choice > 0 {
            let k = (choice - 1) / 2; // the k-th suit other than the up-card's
            let trump = if k < suit(up) { k } else { k + 1 };
            return Some((trump, seat, choice % 2 == 0));
        }
    }
    None
}

/// Deals, bids, plays and scores one random hand.
fn random_hand(dealer: usize, rng: &mut SmallRng) -> Option<Played> {
    let mut deck: [u8; 24] = std::array::from_fn(|i| i as u8);
    deck.shuffle(rng);
    let mut hands = [0u32; 4];
    for (i, &card) in deck[..20].iter().enumerate() {
        hands[i / 5] |= 1 << card;
    }
    let (trump, maker, alone) = bid(dealer, deck[20], &mut hands, rng)?;

    let out = alone.then_some((maker + 2) % 4);
    let next = |seat: usize| {
        let seat = (seat + 1) % 4;
        if Some(seat) == out { (seat + 1) % 4 } else { seat }
    };
    let players = if alone { 3 } else { 4 };
    let mut leader = next(dealer);
    let mut tricks = [0u8; 2];
    let mut played = 0u32;
    for trick in 0..5 {
        let mut seat = leader;
        let mut led = None;
        let (mut best, mut winner) = (0, leader);
        for _ in 0..players {
            debug_assert_eq!(hands[seat].count_ones(), 5 - trick, "seat {seat} out of turn");
            let legal = match led.map(|led| cards_of_suit(hands[seat], led, trump)) {
                Some(0) | None => hands[seat],
                Some(follow) => follow,
            };
            let card = random_card(legal, rng);
            debug_assert_eq!(played & (1 << card), 0, "card {card} played twice");
            played |= 1 << card;
            hands[seat] &= !(1 << card);
            let led = *led.get_or_insert(effective_suit(card, trump));
            let p = power(card, trump, led);
            if p > best {
                (best, winner) = (p, seat);
            }
            seat = next(seat);
        }
        debug_assert_eq!(seat, leader, "the trick went round once");
        tricks[winner % 2] += 1;
        leader = winner;
    }
    debug_assert_eq!(tricks[0] + tricks[1], 5);
    debug_assert_eq!(played.count_ones(), 5 * players);

    let makers = maker % 2;
    let mut points = [0u8; 2];
    match tricks[makers] {
        5 => points[makers] = if alone { 4 } else { 2 },
        3 | 4 => points[makers] = 1,
        _ => points[1 - makers] = 2,
    }
    Some(Played { maker, alone, tricks, points })
}

/// Plays `hands` hands and checks the tricks and points of each.
fn check(hands: usize) {
    let mut rng = SmallRng::seed_from_u64(1);
    let mut thrown_in = 0;
    for i in 0..hands {
        let Some(hand) = random_hand(i % 4, &mut rng) else {
            thrown_in += 1;
            continue;
        };
        let makers = hand.maker % 2;
        let (made, defended) = (hand.tricks[makers], hand.tricks[1 - makers]);
        assert_eq!(made + defended, 5, "{hand:?}");
        let expected = match made {
            5 if hand.alone => (4, 0),
            5 => (2, 0),
            3 | 4 => (1, 0),
            _ => (0, 2),
        };
        assert_eq!((hand.points[makers], hand.points[1 - makers]), expected, "{hand:?}");
    }
    assert!(thrown_in < hands / 100, "{thrown_in} of {hands} hands thrown in");
}

fn reference(c: &mut Criterion) {
    check(10_000);
    let mut group = c.benchmark_group("reference");
    group.throughput(Throughput::Elements(1));
    let mut rng = SmallRng::seed_from_u64(7);
    let mut dealer = 0;
    group.bench_function("naive_sketch", |b| {
        b.iter(|| {
            dealer = (dealer + 1) % 4;
            black_box(random_hand(dealer, &mut rng))
        });
    });
    group.finish();
}

criterion_group!(benches, reference);
criterion_main!(benches);
