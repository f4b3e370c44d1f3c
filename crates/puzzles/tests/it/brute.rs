//! An independent check of a puzzle, sharing nothing with the miner but the
//! engine's rules: a plain alpha-beta search over every card (no table, no
//! grouping of touching cards, the engine's `Hand` played card by card),
//! the score counted here from the rules' table, and worlds dealt by
//! rejection from the puzzle's question alone.

use euchre_engine::trump::effective_suit;
use euchre_engine::{Action, Card, CardSet, Deal, GameView, Hand, NoEvents, Phase, Seat};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// The makers' tricks at the end of `hand` (in card play) with best play
/// by both sides, searched card by card.
pub fn makers_tricks(hand: &Hand) -> u8 {
    let makers = hand.rules().team_of(hand.maker().expect("a maker in card play"));
    search(hand, makers, 0, u8::MAX)
}

fn search(hand: &Hand, makers: euchre_engine::Team, mut alpha: u8, mut beta: u8) -> u8 {
    if hand.phase() != Phase::Playing {
        return hand.tricks_won()[makers];
    }
    let mover = hand.turn().expect("a seat to play");
    let maximising = hand.rules().team_of(mover) == makers;
    let mut best = if maximising { 0 } else { u8::MAX };
    for card in hand.legal_plays().iter() {
        let mut after = *hand;
        after.play_with(card, &mut NoEvents).expect("a legal card");
        let value = search(&after, makers, alpha, beta);
        if maximising {
            best = best.max(value);
            alpha = alpha.max(value);
        } else {
            best = best.min(value);
            beta = beta.min(value);
        }
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The points a hand brings `seat`'s side less the other side's, from the
/// makers' tricks and the rules' scoring table.
pub fn side_points(hand: &Hand, seat: Seat, makers_tricks: u8) -> f64 {
    let rules = hand.rules();
    let scoring = rules.scoring;
    let maker = hand.maker().expect("a maker");
    let (makers_points, defenders_points) = match (makers_tricks, hand.alone()) {
        (5, true) => (scoring.lone_march, 0),
        (5, false) => (scoring.march, 0),
        (3 | 4, _) => (scoring.made, 0),
        (_, true) if hand.lone_defender().is_some() => (0, scoring.defender_alone_euchre),
        (_, true) => (0, scoring.lone_euchre),
        (_, false) => (0, scoring.euchre),
    };
    let points = f64::from(makers_points) - f64::from(defenders_points);
    if rules.team_of(seat) == rules.team_of(maker) { points } else { -points }
}

/// The tricks `seat`'s side ends with, given the makers' tricks.
pub fn side_tricks(hand: &Hand, seat: Seat, makers_tricks: u8) -> u8 {
    let rules = hand.rules();
    if rules.team_of(seat) == rules.team_of(hand.maker().expect("a maker")) {
        makers_tricks
    } else {
        5 - makers_tricks
    }
}

/// Every card the question shows anywhere: each string in its JSON that
/// reads as a card.
pub fn cards_in(value: &serde_json::Value, found: &mut CardSet) {
    match value {
        serde_json::Value::String(text) => {
            if let Ok(card) = text.parse::<Card>() {
                found.insert(card);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|item| cards_in(item, found)),
        serde_json::Value::Object(fields) => fields.values().for_each(|item| cards_in(item, found)),
        _ => {}
    }
}

/// One world the seat's `view` allows, uniformly among those dealt by
/// shuffling the cards it cannot place: each other seat's cards in hand
/// (the up-card in the dealer's once picked up and not played, the dealer
/// keeping it as a rule), none of a suit it has shown out of. `None` if no
/// world fits in many tries.
pub fn world(view: &GameView, seat: Seat, rng: &mut ChaCha8Rng) -> Option<[CardSet; 4]> {
    let mine: CardSet = view.hand.clone().expect("a seat's view").into_iter().collect();
    let mut unseen = view.rules.deck.cards().difference(mine);
    let mut fixed = [CardSet::EMPTY; 4];
    for trick in &view.tricks {
        for (_, card) in &trick.cards {
            unseen.remove(*card);
        }
    }
    unseen.remove(view.up_card);
    for card in [view.discard, view.loner_discard].into_iter().flatten() {
        unseen.remove(card);
    }
    let played = |card: Card| view.tricks.iter().any(|t| t.cards.iter().any(|(_, c)| *c == card));
    // The dealer holds six cards while he chooses his discard.
    let taken = view.up_card_picked_up || view.hand_sizes[view.dealer.index()] > 5;
    if taken && view.dealer != seat && !played(view.up_card) {
        fixed[view.dealer.index()].insert(view.up_card);
    }
    if let (Some(passed), Some(maker)) = (view.passed_card, view.maker) {
        unseen.remove(passed);
        if maker != seat && !played(passed) {
            fixed[maker.index()].insert(passed);
        }
    }
    let voids = voids(view);
    for _ in 0..100_000 {
        let mut pool: Vec<Card> = unseen.iter().collect();
        let mut holdings = fixed;
        holdings[seat.index()] = mine;
        let mut fits = true;
        for other in Seat::all(4).filter(|other| *other != seat) {
            let wanted = usize::from(view.hand_sizes[other.index()]);
            while (holdings[other.index()].len() as usize) < wanted {
                if pool.is_empty() {
                    return None;
                }
                let card = pool.swap_remove(rng.random_range(0..pool.len()));
                holdings[other.index()].insert(card);
            }
            let trump = view.trump;
            let shown_out = |card: Card| {
                trump.is_some_and(|trump| {
                    voids[other.index()].contains(&effective_suit(card, trump))
                })
            };
            fits &= !holdings[other.index()].iter().any(shown_out);
        }
        if fits {
            return Some(holdings);
        }
    }
    None
}

/// The suits each seat has shown out of: it did not follow the suit led.
fn voids(view: &GameView) -> [Vec<euchre_engine::Suit>; 4] {
    let mut voids: [Vec<euchre_engine::Suit>; 4] = Default::default();
    let Some(trump) = view.trump else { return voids };
    for trick in &view.tricks {
        let Some((_, lead)) = trick.cards.first() else { continue };
        let led = effective_suit(*lead, trump);
        for (by, card) in &trick.cards {
            if effective_suit(*card, trump) != led {
                voids[by.index()].push(led);
            }
        }
    }
    voids
}

/// The hand at a bid or discard in a world: dealt with `holdings` (the
/// dealer's as dealt, without the up-card he has taken) and the bids of
/// the view replayed.
pub fn bidding_world(view: &GameView, seat: Seat, mut holdings: [CardSet; 4]) -> Hand {
    holdings[view.dealer.index()].remove(view.up_card);
    let deal = Deal::from_hands(&view.rules, view.dealer, holdings, view.up_card)
        .unwrap_or_else(|e| panic!("{e}: {holdings:?} {:?} {seat:?} {view:?}", view.up_card));
    let mut hand = Hand::new(view.rules, deal);
    for (by, bid) in &view.bids {
        hand.apply_with(*by, *bid, &mut NoEvents).expect("the view's bids replay");
    }
    assert_eq!(hand.turn(), Some(seat), "the world stands at the seat's decision");
    hand
}

/// The points `option` brings `seat`'s side in `hand`: the bidding finished
/// by the analysis's model of the others (the basic bot's bids), the cards
/// searched here.
pub fn option_points(hand: &Hand, seat: Seat, option: Action) -> f64 {
    let mut after = *hand;
    after.apply_with(seat, option, &mut NoEvents).expect("an option is legal");
    euchre_bots::bid_out(&mut after);
    match after.phase() {
        Phase::Playing => side_points(&after, seat, makers_tricks(&after)),
        Phase::Finished if after.maker().is_none() => 0.0,
        Phase::Finished => side_points(
            &after,
            seat,
            after.tricks_won()[after.rules().team_of(after.maker().expect("a maker"))],
        ),
        phase => panic!("the bidding stopped at {phase:?}"),
    }
}
