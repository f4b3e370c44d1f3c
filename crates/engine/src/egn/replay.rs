//! One deal rebuilt from its record and replayed through [`Hand`]: the
//! bidding, who played each card, the hands as dealt, then every step, with
//! reneges reported and played on.
//!
//! Most files do not give the hands, so [`verify`](super::verify) rebuilds each deal from
//! its play. The bidding is first run through the engine (it does not depend
//! on the cards), which gives trump, the maker, who sits out and who leads;
//! each trick's winner then says who led the next, so every card has a
//! player. A player was dealt the cards he played (and any the file
//! names); the dealer who picked up the up-card was dealt what he played,
//! less the up-card, plus his discard. An unknown discard is the up-card when
//! he never played it, otherwise the first unseen card. Hands still short of
//! five (the sitting-out partner's, or everybody's in an unfinished deal) are
//! filled from the unseen cards in a fixed order, avoiding suits a player has
//! shown out of; the rest is the kitty. The deal is then replayed for real,
//! and every call, the discard and every card must be accepted.
//!
//! The last deal of a file may stop early (EGN allows partial games); any
//! other deal must be played out.

use super::{Call, EgnDeal, HAND_SIZE, Location, PLAYERS, Step, VerifyError};
use crate::action::{Action, NoEvents, Seat};
use crate::card::{Card, CardSet};
use crate::deal::Deal;
use crate::error::RuleError;
use crate::hand::{Hand, Phase};
use crate::record::SeatAction;
use crate::rules::Rules;
use crate::trump::{self, Mode};

/// Applies one step, naming it in the error.
fn step(hand: &mut Hand, at: Location, seat: Seat, action: Action) -> Result<(), VerifyError> {
    hand.apply_with(seat, action, &mut NoEvents).map_err(|error| VerifyError::Illegal {
        at,
        seat,
        action,
        error,
    })
}

/// Applies the calls, each by the seat whose turn it is in the file's order
/// (from the dealer's left); the alone flag goes on the maker's call. Returns
/// the calls as applied.
fn bid(hand: &mut Hand, index: usize, deal: &EgnDeal) -> Result<Vec<SeatAction>, VerifyError> {
    let maker_call = deal.calls.iter().position(|call| *call != Call::Pass);
    let mut seat = deal.dealer.next(PLAYERS);
    let mut applied = Vec::with_capacity(deal.calls.len());
    for (call, kind) in deal.calls.iter().enumerate() {
        let alone = deal.alone && Some(call) == maker_call;
        let action = match kind {
            Call::Pass => Action::Pass,
            Call::Order => Action::OrderUp { alone },
            Call::Name(suit) => Action::Call { suit: *suit, alone },
            Call::NoTrump => Action::CallNoTrump { alone },
        };
        step(hand, Location::new(index, Step::Call { index: call }), seat, action)?;
        applied.push(SeatAction { seat, action });
        seat = seat.next(PLAYERS);
    }
    if deal.alone && maker_call.is_none() {
        let at = Location::new(index, Step::Setup);
        return Err(VerifyError::inconsistent(at, "isAlone is set, but nobody made trump"));
    }
    Ok(applied)
}

/// Once trump is made alone (and the dealer has discarded), the defenders'
/// answers where the rules let one defend alone: each defender from the
/// loner's left passes until the recorded `aloneDefender`, if any, accepts.
fn answer_loner(
    hand: &mut Hand,
    index: usize,
    deal: &EgnDeal,
    applied: &mut Vec<SeatAction>,
) -> Result<(), VerifyError> {
    let at = Location::new(index, Step::Setup);
    if hand.phase() != Phase::DefendingAlone {
        return match deal.alone_defender {
            Some(_) => Err(VerifyError::inconsistent(
                at,
                "aloneDefender is set, but nobody could defend alone",
            )),
            None => Ok(()),
        };
    }
    while hand.phase() == Phase::DefendingAlone {
        let Some(seat) = hand.turn() else { break };
        let action =
            if deal.alone_defender == Some(seat) { Action::DefendAlone } else { Action::Pass };
        step(hand, at, seat, action)?;
        applied.push(SeatAction { seat, action });
    }
    if let Some(defender) = deal.alone_defender.filter(|d| hand.lone_defender() != Some(*d)) {
        let reason = format!("aloneDefender {defender} is not a defender against the loner");
        return Err(VerifyError::inconsistent(at, reason));
    }
    Ok(())
}

/// The seat after `seat` that takes part in play.
fn next_in_play(seat: Seat, out: [bool; 4]) -> Seat {
    let mut next = seat.next(PLAYERS);
    while out[next.index()] {
        next = next.next(PLAYERS);
    }
    next
}

/// What the play of a deal says about the hands.
struct Attribution {
    /// The seat that played each card, trick by trick.
    seats: Vec<Vec<Seat>>,
    played: [CardSet; 4],
    /// `void[seat][suit]`: the seat failed to follow `suit`, so held none.
    void: [[bool; 4]; 4],
}

/// Gives every card its player: each trick is led by the last one's winner.
/// On a contradiction, also the attribution of the tricks before it.
fn attribute(
    index: usize,
    deal: &EgnDeal,
    first_leader: Seat,
    mode: Mode,
    out: [bool; 4],
) -> (Attribution, Option<VerifyError>) {
    let in_play = usize::from(PLAYERS) - out.iter().filter(|o| **o).count();
    let mut found =
        Attribution { seats: Vec::new(), played: [CardSet::EMPTY; 4], void: [[false; 4]; 4] };
    let mut seen = CardSet::EMPTY;
    let mut leader = first_leader;
    let count = deal.tricks.len();
    for (trick, cards) in deal.tricks.iter().enumerate() {
        let at = |card| Location::new(index, Step::Card { trick, card });
        if trick >= HAND_SIZE {
            return (found, Some(VerifyError::inconsistent(at(0), "a hand has only five tricks")));
        }
        if cards.len() > in_play || (cards.len() < in_play && trick + 1 < count) {
            let reason =
                format!("{} cards in a trick, with {in_play} players in play", cards.len());
            let error = VerifyError::inconsistent(at(cards.len().min(in_play)), reason);
            return (found, Some(error));
        }
        let Some(first) = cards.first() else { continue };
        let led = trump::effective_suit_in(*first, mode);
        let mut seat = leader;
        let mut seats = Vec::with_capacity(cards.len());
        for (position, card) in cards.iter().enumerate() {
            if seen.contains(*card) {
                let error =
                    VerifyError::inconsistent(at(position), format!("{card} was already played"));
                return (found, Some(error));
            }
            seen.insert(*card);
            found.played[seat.index()].insert(*card);
            if trump::effective_suit_in(*card, mode) != led {
                found.void[seat.index()][led.index()] = true;
            }
            seats.push(seat);
            seat = next_in_play(seat, out);
        }
        if cards.len() == in_play {
            leader = seats[trump::trick_winner_in(cards, mode)];
        }
        found.seats.push(seats);
    }
    (found, None)
}

/// A deal with the right dealer and up-card and arbitrary hands: enough to
/// run the bidding, which does not depend on the cards.
fn provisional_deal(rules: &Rules, index: usize, deal: &EgnDeal) -> Result<Deal, VerifyError> {
    let mut rest = rules.pack();
    rest.remove(deal.up_card);
    let mut cards = rest.iter();
    let mut hands = [CardSet::EMPTY; 4];
    for hand in &mut hands {
        *hand = cards.by_ref().take(HAND_SIZE).collect();
    }
    Deal::from_hands(rules, deal.dealer, hands, deal.up_card).map_err(|error| {
        VerifyError::inconsistent(Location::new(index, Step::Setup), error.to_string())
    })
}

/// Replays one deal, reporting its faults in `faults`: the hand as it ended,
/// the cards as dealt and every step, or `None` when a fault stopped the
/// replay. The rest of such a deal is still read for reneges (see
/// [`scan_reneges`]); a renege the engine refuses is reported and played
/// anyway, so the deal goes on and is scored.
pub(super) fn replay_deal(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    faults: &mut Vec<VerifyError>,
) -> Option<(Hand, Deal, Vec<SeatAction>)> {
    match replay_deal_strictly(rules, index, deal, faults) {
        Ok(replayed) => Some(replayed),
        Err(error) => {
            let at = error.location();
            faults.push(error);
            scan_reneges(rules, index, deal, at.step, faults);
            None
        }
    }
}

/// The bidding (with the discard and the defenders' answers to a loner) on
/// any cards: it does not depend on them, and gives trump, the maker, who
/// sits out and who leads.
fn bidding_trial(rules: &Rules, index: usize, deal: &EgnDeal) -> Result<Hand, VerifyError> {
    let mut trial = Hand::new(*rules, provisional_deal(rules, index, deal)?);
    bid(&mut trial, index, deal)?;
    if trial.phase() == Phase::DealerDiscard
        && let Some(discard) = trial.legal_actions(deal.dealer).as_slice().first()
    {
        step(&mut trial, Location::new(index, Step::Discard), deal.dealer, *discard)?;
    }
    answer_loner(&mut trial, index, deal, &mut Vec::new())?;
    Ok(trial)
}

/// Rebuilds one deal from its record and replays it through the engine.
/// Returns the hand as it ended, the cards as dealt, and every step taken;
/// reneges go to `faults` and are played on, any other fault is the error.
fn replay_deal_strictly(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    faults: &mut Vec<VerifyError>,
) -> Result<(Hand, Deal, Vec<SeatAction>), VerifyError> {
    let setup = Location::new(index, Step::Setup);
    let dealer = deal.dealer;
    let up = deal.up_card;

    // The bidding, on any cards: trump, maker, who sits out, who leads.
    let mut trial = bidding_trial(rules, index, deal)?;
    let picked_up = trial.up_card_picked_up();
    if deal.discard.is_some() && !picked_up {
        let at = Location::new(index, Step::Discard);
        return Err(VerifyError::inconsistent(
            at,
            "a discard is recorded, but the dealer never picked up the up-card",
        ));
    }
    let mode = trial.maker().map(|_| Mode::of(trial.trump()));
    let attribution = match (trial.phase(), mode, trial.turn()) {
        (Phase::Playing, Some(mode), Some(leader)) => {
            if let Some(lead) = deal.initial_lead.filter(|lead| *lead != leader) {
                let at = Location::new(index, Step::Card { trick: 0, card: 0 });
                let reason = format!("initialLead is {lead}, but {leader} leads under these rules");
                return Err(VerifyError::inconsistent(at, reason));
            }
            let out = [0, 1, 2, 3].map(|seat| trial.sits_out(Seat(seat)));
            match attribute(index, deal, leader, mode, out) {
                (attribution, None) => attribution,
                (_, Some(error)) => return Err(error),
            }
        }
        _ => {
            // No play began: any recorded card is the engine's to refuse.
            if let Some(card) = deal.tricks.iter().flatten().next() {
                let seat = trial.turn().unwrap_or(dealer.next(PLAYERS));
                let at = Location::new(index, Step::Card { trick: 0, card: 0 });
                step(&mut trial, at, seat, Action::Play { card: *card })?;
                return Err(VerifyError::inconsistent(
                    at,
                    "cards are played before the bidding ends",
                ));
            }
            Attribution { seats: Vec::new(), played: [CardSet::EMPTY; 4], void: [[false; 4]; 4] }
        }
    };

    // Each seat was dealt what it played and what the file says it held.
    let mut hands = [CardSet::EMPTY; 4];
    for seat in Seat::all(PLAYERS) {
        let mut mine = attribution.played[seat.index()];
        if picked_up && seat == dealer {
            mine.remove(up);
        }
        if mine.contains(up) {
            let reason = format!("{seat} played the up-card {up}, which it never held");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        let given = deal.dealt[seat.index()];
        if given.len() as usize == HAND_SIZE
            && let Some(card) = mine.difference(given).first()
        {
            let reason = format!("{seat} played {card}, which is not in its playerCards");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        hands[seat.index()] = mine.union(given);
    }

    // The dealer who picked up was dealt his cards less the up-card plus his discard.
    let mut discard = None;
    if picked_up {
        let played = attribution.played[dealer.index()];
        let held = hands[dealer.index()];
        discard = match deal.discard {
            Some(card) if played.contains(card) => {
                let at = Location::new(index, Step::Discard);
                return Err(VerifyError::inconsistent(
                    at,
                    format!("the dealer discarded {card}, then played it"),
                ));
            }
            Some(card) => Some(card),
            None if !played.contains(up) => Some(up),
            // His whole hand is known: the discard is the card he did not play.
            None if held.len() as usize == HAND_SIZE => held.difference(played).first(),
            None => None,
        };
        if let Some(card) = discard.filter(|card| *card != up) {
            hands[dealer.index()].insert(card);
        }
    }

    // No card in two places, no hand too big.
    let mut used = CardSet::single(up);
    for seat in Seat::all(PLAYERS) {
        let hand = hands[seat.index()];
        if hand.len() as usize > HAND_SIZE {
            let reason = format!("{seat} would hold {} cards: {hand:?}", hand.len());
            return Err(VerifyError::inconsistent(setup, reason));
        }
        if let Some(card) = hand.intersection(used).first() {
            let reason = format!("{card} is dealt to {seat} and held or played elsewhere");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        used = used.union(hand);
    }
    if let Some(card) = deal.kitty.intersection(used).first() {
        let reason = format!("{card} is in the kitty and also held or played");
        return Err(VerifyError::inconsistent(setup, reason));
    }

    // The unknown cards, in a fixed order.
    let mut unseen = rules.pack().difference(used).difference(deal.kitty);
    if picked_up && discard.is_none() {
        let card = unseen.first().ok_or_else(|| {
            VerifyError::inconsistent(setup, "no card is left for the dealer's discard")
        })?;
        unseen.remove(card);
        hands[dealer.index()].insert(card);
        discard = Some(card);
    }
    fill(&mut hands, unseen, &attribution.void, mode, setup)?;
    let cards = Deal::from_hands(rules, dealer, hands, up)
        .map_err(|error| VerifyError::inconsistent(setup, error.to_string()))?;

    // The replay proper.
    let mut hand = Hand::new(*rules, cards);
    let mut actions = bid(&mut hand, index, deal)?;
    if hand.phase() == Phase::DealerDiscard {
        let action = Action::Discard { card: discard.unwrap_or(up) };
        step(&mut hand, Location::new(index, Step::Discard), dealer, action)?;
        actions.push(SeatAction { seat: dealer, action });
    }
    answer_loner(&mut hand, index, deal, &mut actions)?;
    for (trick, (cards, seats)) in deal.tricks.iter().zip(&attribution.seats).enumerate() {
        for (position, (card, seat)) in cards.iter().zip(seats).enumerate() {
            let at = Location::new(index, Step::Card { trick, card: position });
            if let Some(engine) = hand.turn().filter(|turn| turn != seat) {
                return Err(VerifyError::TurnMismatch { at, record: *seat, engine });
            }
            let action = Action::Play { card: *card };
            match hand.apply_with(*seat, action, &mut NoEvents) {
                Ok(()) => {}
                Err(RuleError::MustFollowSuit { led }) => {
                    let suit = trump::suit_cards_in(led, Mode::of(hand.trump()));
                    let held = hand.holding(*seat).intersection(suit);
                    let proof = proof(held, *seat, trick, deal, &attribution, picked_up);
                    faults.push(VerifyError::Renege {
                        at,
                        seat: *seat,
                        card: *card,
                        led,
                        held,
                        proof,
                    });
                    // Read on as the cards fell: the trick goes to whoever took it.
                    hand.play_renege(*seat, *card).map_err(|error| VerifyError::Illegal {
                        at,
                        seat: *seat,
                        action,
                        error,
                    })?;
                }
                Err(error) => return Err(VerifyError::Illegal { at, seat: *seat, action, error }),
            }
            actions.push(SeatAction { seat: *seat, action });
        }
    }
    Ok((hand, cards, actions))
}

/// How each card of `held` is known to be in `seat`'s hand at `trick`: it
/// plays it later, `playerCards` lists it, or it is the up-card he picked up.
fn proof(
    held: CardSet,
    seat: Seat,
    trick: usize,
    deal: &EgnDeal,
    attribution: &Attribution,
    picked_up: bool,
) -> String {
    let played_in = |card: Card| {
        (trick + 1..deal.tricks.len()).find(|later| {
            let seats = attribution.seats.get(*later).map_or(&[][..], Vec::as_slice);
            deal.tricks[*later].iter().zip(seats).any(|(c, s)| *c == card && *s == seat)
        })
    };
    let known: Vec<String> = held
        .iter()
        .map(|card| match played_in(card) {
            Some(later) => format!("{card} (played in trick {later})"),
            None if deal.dealt[seat.index()].contains(card) => {
                format!("{card} (dealt to it in playerCards)")
            }
            None if picked_up && seat == deal.dealer && card == deal.up_card => {
                format!("{card} (the up-card it picked up)")
            }
            None => card.to_string(),
        })
        .collect();
    known.join(", ")
}

/// Reads the plays of a deal whose replay stopped at `stopped` for reneges
/// the holdings prove: a seat that does not follow suit while holding a card
/// of the suit led, known because it plays that card later in the deal or
/// because `playerCards` lists it. Only cards after `stopped` are read (the
/// replay judged those before it). Needs the bidding to have gone through:
/// without trump and a leader no card has a known player.
fn scan_reneges(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    stopped: Step,
    faults: &mut Vec<VerifyError>,
) {
    let after = match stopped {
        Step::Header | Step::Setup | Step::Call { .. } | Step::Discard => None,
        Step::Card { trick, card } => Some((trick, card)),
        Step::End => return,
    };
    let Ok(trial) = bidding_trial(rules, index, deal) else { return };
    let (Phase::Playing, Some(leader)) = (trial.phase(), trial.turn()) else { return };
    let mode = Mode::of(trial.trump());
    let out = [0, 1, 2, 3].map(|seat| trial.sits_out(Seat(seat)));
    let (attribution, _) = attribute(index, deal, leader, mode, out);
    let picked_up = trial.up_card_picked_up();
    for (trick, seats) in attribution.seats.iter().enumerate() {
        let cards = &deal.tricks[trick];
        let Some(first) = cards.first() else { continue };
        let led = trump::effective_suit_in(*first, mode);
        let suit = trump::suit_cards_in(led, mode);
        for (position, (card, seat)) in cards.iter().zip(seats).enumerate() {
            if after.is_some_and(|after| (trick, position) <= after)
                || trump::effective_suit_in(*card, mode) == led
            {
                continue;
            }
            // What the seat is known to hold now: cards it plays later, and
            // the cards it was dealt that it has not played (the dealer's
            // only when his discard is known, as it may be one of them).
            let mut known = CardSet::EMPTY;
            for (later, later_seats) in attribution.seats.iter().enumerate().skip(trick + 1) {
                for (c, s) in deal.tricks[later].iter().zip(later_seats) {
                    if s == seat {
                        known.insert(*c);
                    }
                }
            }
            let dealt_known = !(picked_up && *seat == deal.dealer) || deal.discard.is_some();
            if dealt_known {
                let mut dealt = deal.dealt[seat.index()];
                if let Some(discard) = deal.discard.filter(|_| *seat == deal.dealer) {
                    dealt.remove(discard);
                }
                for (earlier, earlier_seats) in attribution.seats.iter().enumerate().take(trick + 1)
                {
                    for (c, s) in deal.tricks[earlier].iter().zip(earlier_seats) {
                        if s == seat {
                            dealt.remove(*c);
                        }
                    }
                }
                known = known.union(dealt);
            }
            let held = known.intersection(suit);
            if held.is_empty() {
                continue;
            }
            let at = Location::new(index, Step::Card { trick, card: position });
            let proof = proof(held, *seat, trick, deal, &attribution, picked_up);
            faults.push(VerifyError::Renege { at, seat: *seat, card: *card, led, held, proof });
        }
    }
}

/// Completes hands short of five cards from `unseen`, in card order, giving
/// no seat a card of a suit it has shown out of (so a made-up card never
/// turns a legal play into a renege). Seats with the most voids pick first.
fn fill(
    hands: &mut [CardSet; 4],
    mut unseen: CardSet,
    void: &[[bool; 4]; 4],
    mode: Option<Mode>,
    setup: Location,
) -> Result<(), VerifyError> {
    let mut seats: Vec<usize> = (0..hands.len()).collect();
    seats.sort_by_key(|seat| std::cmp::Reverse(void[*seat].iter().filter(|v| **v).count()));
    for seat in seats {
        let missing = HAND_SIZE.saturating_sub(hands[seat].len() as usize);
        let fits = |card: &Card| {
            mode.is_none_or(|mode| !void[seat][trump::effective_suit_in(*card, mode).index()])
        };
        let choice: Vec<Card> = unseen
            .iter()
            .filter(fits)
            .chain(unseen.iter().filter(|card| !fits(card)))
            .take(missing)
            .collect();
        if choice.len() < missing {
            return Err(VerifyError::inconsistent(
                setup,
                "too few cards are left to complete the hands",
            ));
        }
        for card in choice {
            unseen.remove(card);
            hands[seat].insert(card);
        }
    }
    Ok(())
}
