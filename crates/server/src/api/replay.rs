//! One match in full, replayed through the engine: every hand, its actions
//! and tricks, and the hidden cards only once the match is over.

use euchre_engine::{Event, Hand, HandRecord, RuleError, Rules, fairness};
use euchre_protocol::api::{ActionView, HandView, MatchView, PlayView, TrickView};
use euchre_store::MatchDetail;

use super::views::summary_view;

/// A stored action the engine refuses on replay: the stored record is
/// corrupt (never the client's fault).
#[derive(Debug, thiserror::Error)]
#[error("hand {hand}, action {action}: {error}")]
pub struct CorruptRecord {
    pub hand: u32,
    pub action: usize,
    #[source]
    pub error: RuleError,
}

/// Whether a match is over, so its hidden cards may be shown. The replayed
/// winner counts too: the last action and `MatchEnded` may be stored a
/// moment apart, and a won game hides nothing.
pub(super) fn is_over(detail: &MatchDetail) -> bool {
    detail.summary.ended_at.is_some() || detail.record.winner.is_some()
}

/// Whether every card of the match may be shown: over, or abandoned (it
/// can never go on, so no seat still plays with its cards hidden).
pub(super) fn cards_public(detail: &MatchDetail) -> bool {
    is_over(detail) || detail.summary.abandoned.is_some()
}

/// The match as anyone may see it: everything once it is over, and until
/// then what a spectator at the table saw.
pub fn match_view(detail: &MatchDetail) -> Result<MatchView, CorruptRecord> {
    let revealed = cards_public(detail);
    let record = &detail.record;
    let mut scores = vec![0u16; usize::from(record.rules.teams())];
    // A rubber's games, in order: when the running score reaches a game's
    // final score (it only grows within a game), the next game starts at 0.
    let mut games = record.games.iter().map(|game| game.scores.as_slice());
    let mut game_end = games.next();
    let mut hands = Vec::with_capacity(record.hands.len());
    for (number, hand) in record.hands.iter().enumerate() {
        hands.push(hand_view(&record.rules, number as u32, hand, revealed, &mut scores)?);
        if game_end == Some(&scores[..]) && number + 1 < record.hands.len() {
            scores.fill(0);
            game_end = games.next();
        }
    }
    Ok(MatchView {
        summary: summary_view(&detail.summary),
        cards_revealed: revealed,
        first_dealer: record.start.dealer.0,
        hands,
    })
}

/// One hand, replayed through the engine for its tricks; adds its points to `scores`.
fn hand_view(
    rules: &Rules,
    number: u32,
    hand: &HandRecord,
    revealed: bool,
    scores: &mut [u16],
) -> Result<HandView, CorruptRecord> {
    let deal = &hand.deal;
    let mut replay = Hand::new(*rules, *deal);
    let mut tricks: Vec<TrickView> = Vec::new();
    let mut plays = Vec::new();
    let mut events = Vec::new();
    for (index, step) in hand.actions.iter().enumerate() {
        events.clear();
        replay.apply_with(step.seat, step.action, &mut events).map_err(|error| CorruptRecord {
            hand: number,
            action: index,
            error,
        })?;
        for event in &events {
            match *event {
                Event::CardPlayed { seat, card } => plays.push(PlayView { seat: seat.0, card }),
                Event::TrickWon { seat, .. } => {
                    let plays = std::mem::take(&mut plays);
                    tricks.push(TrickView { plays, winner: Some(seat.0) });
                }
                _ => {}
            }
        }
    }
    if !plays.is_empty() {
        tricks.push(TrickView { plays, winner: None });
    }
    if let Some(outcome) = hand.outcome {
        for (score, points) in scores.iter_mut().zip(outcome.points().iter().flatten()) {
            *score = score.saturating_add(u16::from(*points));
        }
    }
    let actions = hand
        .actions
        .iter()
        .map(|step| ActionView::new(step.seat.0, step.action, revealed))
        .collect();
    Ok(HandView {
        number,
        dealer: deal.dealer.0,
        up_card: deal.up_card,
        hands: revealed
            .then(|| deal.hands.iter().take(usize::from(rules.players)).copied().collect()),
        dummy: (revealed && rules.dummy).then_some(deal.dummy),
        kitty: revealed.then_some(deal.kitty),
        actions,
        tricks,
        outcome: hand.outcome,
        scores: scores.to_vec(),
        commitment: hand.seal.map(|seal| seal.commitment),
        salt: hand.seal.filter(|_| revealed).map(|seal| seal.salt),
        deal_check: revealed.then(|| fairness::check(deal, hand.seal.as_ref())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::testing::{detail, game_in_progress};
    use euchre_engine::{Action, Card, CardSet, DealCheck, Game, HandOutcome, Salt};

    #[test]
    fn each_hand_reports_whether_its_deal_opens_its_commitment() {
        // A game sealed hand by hand, as a table seals it.
        let mut game = Game::new(Rules::default(), 5).expect("default rules");
        let salt = |hand: u32| Salt([hand as u8 + 1; 32]);
        game.seal_hand(salt(0));
        while let Some(seat) = game.turn() {
            let hand = game.hand_number();
            let legal = game.legal_actions(seat);
            let action = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
            game.apply(seat, *action.unwrap_or(&Action::Pass)).expect("legal");
            if game.hand_number() != hand {
                game.seal_hand(salt(game.hand_number()));
            }
        }
        let finished = detail(&game, true);
        let view = match_view(&finished).expect("replays");
        for (shown, hand) in view.hands.iter().zip(&finished.record.hands) {
            assert_eq!(shown.deal_check, Some(DealCheck::Verified));
            assert_eq!(shown.commitment, hand.seal.map(|seal| seal.commitment));
            assert_eq!(shown.salt, hand.seal.map(|seal| seal.salt));
        }
        // In progress: the commitments (everybody was sent them), no salt, no check.
        let mut running = detail(&game, false);
        running.record.winner = None;
        for shown in match_view(&running).expect("replays").hands {
            assert!(shown.commitment.is_some());
            assert_eq!((shown.salt, shown.deal_check), (None, None));
        }
        // A stored salt altered after the fact: that hand no longer checks.
        let mut tampered = finished.clone();
        if let Some(seal) = &mut tampered.record.hands[1].seal {
            seal.salt.0[0] ^= 1;
        }
        let checks: Vec<_> = match_view(&tampered)
            .expect("replays")
            .hands
            .iter()
            .map(|hand| hand.deal_check)
            .collect();
        assert_eq!(checks[1], Some(DealCheck::Mismatch));
        assert!(checks.iter().enumerate().all(|(n, c)| n == 1 || *c == Some(DealCheck::Verified)));
        // Hands dealt before deals were sealed say so.
        let mut old = finished;
        old.record.hands.iter_mut().for_each(|hand| hand.seal = None);
        let old = match_view(&old).expect("replays");
        assert!(old.hands.iter().all(|h| h.deal_check == Some(DealCheck::Unsealed)));
    }

    /// Every card code in a JSON value.
    fn cards_in(value: &serde_json::Value) -> CardSet {
        match value {
            serde_json::Value::String(text) => {
                text.parse::<Card>().map(CardSet::single).unwrap_or_default()
            }
            serde_json::Value::Array(items) => {
                items.iter().fold(CardSet::EMPTY, |set, item| set.union(cards_in(item)))
            }
            serde_json::Value::Object(map) => {
                map.values().fold(CardSet::EMPTY, |set, item| set.union(cards_in(item)))
            }
            _ => CardSet::EMPTY,
        }
    }

    #[test]
    fn a_match_in_progress_shows_only_public_cards() {
        let game = game_in_progress();
        let record = game.record();
        let discarded = record.hands[0].actions.iter().any(|a| a.action.name() == "discard");
        assert!(discarded, "the scenario has a discard");
        let view = match_view(&detail(&game, false)).expect("replays");
        assert!(!view.cards_revealed);
        let hand = &view.hands[0];
        assert_eq!((&hand.hands, hand.dummy, hand.kitty), (&None, None, None));
        let discard = hand.actions.iter().find(|a| a.action == "discard").expect("a discard");
        assert_eq!(discard.card, None);
        // What anybody at the table saw: the up-card and the cards played.
        let mut public = CardSet::single(hand.up_card);
        for step in &record.hands[0].actions {
            if let Action::Play { card } = step.action {
                public.insert(card);
            }
        }
        let json = serde_json::to_value(&view).expect("serializes");
        assert_eq!(cards_in(&json).difference(public), CardSet::EMPTY, "{json:#}");
        assert!(!hand.tricks.is_empty() && hand.tricks[0].winner.is_none());
    }

    #[test]
    fn a_finished_match_shows_everything() {
        let mut game = game_in_progress();
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            // Making trump whenever possible, so the game moves on.
            let action = legal
                .iter()
                .find(|a| !matches!(a, Action::Concede | Action::Pass))
                .unwrap_or(&Action::Pass);
            game.apply(seat, *action).expect("legal");
        }
        let view = match_view(&detail(&game, true)).expect("replays");
        assert!(view.cards_revealed);
        let record = game.record();
        assert_eq!(view.hands.len(), record.hands.len());
        for (shown, hand) in view.hands.iter().zip(&record.hands) {
            assert_eq!(shown.hands, Some(hand.deal.hands.to_vec()));
            assert_eq!(shown.dummy, None, "no dummy in the four-handed game");
            assert_eq!(shown.kitty, Some(hand.deal.kitty));
            let discard = hand.actions.iter().find_map(|a| match a.action {
                Action::Discard { card } => Some(card),
                _ => None,
            });
            let shown_discard = shown.actions.iter().find(|a| a.action == "discard");
            assert_eq!(shown_discard.and_then(|a| a.card), discard);
            // Played out to the end, the tricks' winners make the outcome's count.
            let claimed = hand.actions.iter().any(|a| a.action == Action::Claim);
            if let (Some(HandOutcome::Played(played)), false) = (hand.outcome, claimed) {
                let mut tricks = [0u8; 2];
                for winner in shown.tricks.iter().filter_map(|t| t.winner) {
                    tricks[usize::from(winner % 2)] += 1;
                }
                assert_eq!(played.tricks, tricks);
            }
        }
        let last = view.hands.last().expect("hands");
        assert_eq!(record.scores.as_slice(), last.scores);
    }
}
