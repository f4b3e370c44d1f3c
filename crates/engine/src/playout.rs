//! Claims and concessions written out as card play.
//!
//! A claim or a concession ends a hand early: the remaining tricks go to one
//! side without being played. A format with no word for that (EGN) can
//! still hold the hand if the rest is written out as legal plays in which
//! that side wins every remaining trick, so that a replay gives the same
//! tricks, outcome and points. [`play_out`] finds such plays.
//!
//! A claim always has them: the engine accepts a claim only when the
//! claimant's cards win every remaining trick whatever the others hold and
//! play (see [`Hand::claim_is_certain`]). The written-out play is fixed: the
//! side that takes the tricks plays its strongest legal card, the other side
//! its weakest, so the claimant leads his winners from the highest down. A
//! concession may give away a trick its side could not lose by any play
//! (a player may concede holding the right bower); then there are no such
//! plays and [`PlayOutError::NoPlayOut`] says so. Otherwise the same order
//! is tried first and the search backs up, trick by trick, until the
//! conceding side wins nothing: deterministic, and bounded.
//!
//! ```
//! use euchre_engine::{playout, Action, Game, Rules};
//!
//! // Play a game, claiming whenever the engine allows it.
//! let mut game = Game::new(Rules::default(), 11).unwrap();
//! while let Some(seat) = game.turn() {
//!     let actions = game.legal_actions(seat);
//!     let claim = actions.iter().find(|a| **a == Action::Claim);
//!     let other = actions.iter().find(|a| !matches!(a, Action::Pass | Action::Concede));
//!     game.apply(seat, *claim.or(other).unwrap_or(&actions[0])).unwrap();
//! }
//! let rules = game.record().rules;
//! for hand in &game.record().hands {
//!     if let Some(written) = playout::play_out(&rules, hand).unwrap() {
//!         // Only card plays where the claim was, and the same outcome.
//!         assert!(!written.actions.iter().any(|a| a.action == Action::Claim));
//!         assert_eq!(written.outcome, hand.outcome.unwrap());
//!     }
//! }
//! ```

use std::collections::HashSet;

use crate::action::{Action, HandOutcome, NoEvents, Seat, Team};
use crate::card::{Card, CardSet};
use crate::error::RuleError;
use crate::hand::{Hand, Phase};
use crate::record::{HandRecord, SeatAction};
use crate::rules::Rules;
use crate::trump::{self, Mode};

/// How a hand was cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `seat` claimed the rest.
    Claim { seat: Seat },
    /// `seat` conceded the rest.
    Concession { seat: Seat },
}

impl Ending {
    pub fn seat(self) -> Seat {
        match self {
            Ending::Claim { seat } | Ending::Concession { seat } => seat,
        }
    }
}

/// A hand with its claim or concession written out as plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedOut {
    /// Every action: the record's up to the claim or concession, then the
    /// written-out plays.
    pub actions: Vec<SeatAction>,
    /// How the record ended the hand.
    pub ending: Ending,
    /// The team the remaining tricks went to.
    pub taker: Team,
    /// How many cards were played before the claim or concession: the
    /// written-out plays start at this card (counting the hand's plays).
    pub first_written: usize,
    /// Tricks complete before the claim or concession.
    pub tricks_before: u8,
    /// The outcome the written-out hand replays to: the record's.
    pub outcome: HandOutcome,
}

/// Why a hand cannot be written out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayOutError {
    /// The record itself does not replay: action `index` is refused.
    #[error("action {index} ({action:?} by {seat}) does not replay: {error}")]
    Replay { index: usize, seat: Seat, action: Action, error: RuleError },
    /// No legal play gives the conceding side none of the remaining tricks.
    #[error(
        "{seat} conceded tricks its side wins however the cards are played, so no play gives them away"
    )]
    NoPlayOut { seat: Seat },
    /// The search gave up before finding plays or proving there are none.
    #[error("no play-out found within {0} positions")]
    TooLong(u32),
    /// The written-out hand ends differently: a bug here, not in the record.
    #[error("the written-out hand ends as {written:?}, the record as {recorded:?}")]
    Differs { written: Option<HandOutcome>, recorded: Option<HandOutcome> },
}

/// Positions the search may visit. A hand has at most 20 cards left, and
/// failed positions are remembered, so real searches stay far below it.
const BUDGET: u32 = 200_000;

/// Writes out the claim or concession that ends `hand`, if one does:
/// `Ok(None)` for a hand played out, thrown in or still in progress.
pub fn play_out(rules: &Rules, hand: &HandRecord) -> Result<Option<PlayedOut>, PlayOutError> {
    let mut state = Hand::new(*rules, hand.deal);
    let mut actions = Vec::with_capacity(hand.actions.len() + 20);
    let mut cards_played = 0;
    for (index, step) in hand.actions.iter().enumerate() {
        let ending = match step.action {
            Action::Claim => Some(Ending::Claim { seat: step.seat }),
            Action::Concede => Some(Ending::Concession { seat: step.seat }),
            _ => None,
        };
        // Checked even for the ending, so a refused claim is an error here too.
        let mut after = state;
        after.apply_with(step.seat, step.action, &mut NoEvents).map_err(|error| {
            PlayOutError::Replay { index, seat: step.seat, action: step.action, error }
        })?;
        let Some(ending) = ending else {
            state = after;
            cards_played += usize::from(matches!(step.action, Action::Play { .. }));
            actions.push(*step);
            continue;
        };
        let taker = taker(rules, ending);
        let mut search = Search { taker, failed: HashSet::new(), visited: 0 };
        let mut plays = Vec::new();
        if !search.run(state, &mut plays)? {
            return Err(PlayOutError::NoPlayOut { seat: ending.seat() });
        }
        let tricks_before = state.tricks_played();
        actions.extend(plays);
        let written = replayed(rules, hand, &actions)?;
        let Some(outcome) = written.filter(|o| Some(*o) == hand.outcome) else {
            return Err(PlayOutError::Differs { written, recorded: hand.outcome });
        };
        return Ok(Some(PlayedOut {
            actions,
            ending,
            taker,
            first_written: cards_played,
            tricks_before,
            outcome,
        }));
    }
    Ok(None)
}

/// The team the remaining tricks go to, as the engine awards them.
fn taker(rules: &Rules, ending: Ending) -> Team {
    match ending {
        Ending::Claim { seat } => rules.team_of(seat),
        Ending::Concession { seat } => {
            // As the engine does: the next seat of another team.
            let mut taker = seat.next(rules.players);
            while rules.team_of(taker) == rules.team_of(seat) {
                taker = taker.next(rules.players);
            }
            rules.team_of(taker)
        }
    }
}

/// The outcome of `actions` replayed from the deal.
fn replayed(
    rules: &Rules,
    hand: &HandRecord,
    actions: &[SeatAction],
) -> Result<Option<HandOutcome>, PlayOutError> {
    let mut state = Hand::new(*rules, hand.deal);
    for (index, step) in actions.iter().enumerate() {
        state.apply_with(step.seat, step.action, &mut NoEvents).map_err(|error| {
            PlayOutError::Replay { index, seat: step.seat, action: step.action, error }
        })?;
    }
    Ok(state.outcome())
}

/// A depth-first search for plays in which `taker` wins every remaining trick.
struct Search {
    taker: Team,
    /// Positions from which no such plays exist: the holdings and the trick
    /// so far decide the rest.
    failed: HashSet<([CardSet; 4], Vec<Card>)>,
    visited: u32,
}

impl Search {
    /// Whether plays from `hand` exist; if so they are appended to `plays`.
    fn run(&mut self, hand: Hand, plays: &mut Vec<SeatAction>) -> Result<bool, PlayOutError> {
        if hand.phase() != Phase::Playing {
            return Ok(hand.is_finished());
        }
        let Some(seat) = hand.turn() else { return Ok(true) };
        self.visited += 1;
        if self.visited > BUDGET {
            return Err(PlayOutError::TooLong(BUDGET));
        }
        let key = ([0, 1, 2, 3].map(|s| hand.holding(Seat(s))), hand.trick().cards().to_vec());
        if self.failed.contains(&key) {
            return Ok(false);
        }
        let rules = hand.rules();
        let others_before = others_tricks(&hand, self.taker);
        let mode = Mode::of(hand.trump());
        let mut cards = hand.legal_plays().to_vec();
        // The taking side plays high, the other side low.
        cards.sort_by_key(|card| trump::power_in(*card, mode));
        if rules.team_of(seat) == self.taker {
            cards.reverse();
        }
        for card in cards {
            let mut next = hand;
            if next.apply_with(seat, Action::Play { card }, &mut NoEvents).is_err() {
                continue; // cannot happen: the card is from the legal mask
            }
            if others_tricks(&next, self.taker) > others_before {
                continue;
            }
            plays.push(SeatAction { seat, action: Action::Play { card } });
            if self.run(next, plays)? {
                return Ok(true);
            }
            plays.pop();
        }
        self.failed.insert(key);
        Ok(false)
    }
}

/// Tricks won by every team but `taker`.
fn others_tricks(hand: &Hand, taker: Team) -> u16 {
    let won = hand.tricks_won();
    won.teams().filter(|(team, _)| *team != taker).map(|(_, n)| u16::from(*n)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Preset;

    /// A seeded random generator small enough to need no crate: the games
    /// only have to differ, not be random in any deep sense.
    struct SplitMix(u64);

    impl SplitMix {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        }
    }

    /// A game of random legal actions, where a seat claims whenever the
    /// engine allows and, one time in `concede_one_in`, concedes.
    fn random_game(rules: Rules, seed: u64, concede_one_in: usize) -> Game {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut random = SplitMix(seed);
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            let action = if legal.contains(&Action::Claim) {
                Action::Claim
            } else if legal.contains(&Action::Concede) && random.below(concede_one_in) == 0 {
                Action::Concede
            } else {
                let choices: Vec<Action> =
                    legal.iter().copied().filter(|a| *a != Action::Concede).collect();
                choices[random.below(choices.len())]
            };
            game.apply(seat, action).expect("a legal action");
        }
        game
    }

    /// Four-handed rules of several kinds: loners led from either side, a
    /// euchred loner worth 4, the joker, defending alone, no trump.
    fn presets() -> Vec<Rules> {
        let mut rules: Vec<Rules> =
            [Preset::Standard, Preset::StickTheDealer, Preset::Tournament, Preset::Online]
                .into_iter()
                .chain([Preset::ClassicJoker])
                .map(Preset::rules)
                .collect();
        rules.push(Rules { defend_alone: true, allow_no_trump: true, ..Rules::default() });
        rules
    }

    #[test]
    fn claims_are_written_out_with_the_same_tricks_outcome_and_points() {
        let mut claims = [0usize; 5];
        for rules in presets() {
            for seed in 0..40 {
                let game = random_game(rules, seed, usize::MAX);
                for hand in &game.record().hands {
                    let written = play_out(&rules, hand).expect("a claim can always be written");
                    let Some(written) = written else {
                        assert!(!hand.actions.iter().any(|a| a.action == Action::Claim));
                        continue;
                    };
                    assert!(matches!(written.ending, Ending::Claim { .. }));
                    claims[usize::from(written.tricks_before)] += 1;
                    check(&rules, hand, &written);
                }
            }
        }
        // Random bids rarely give a hand that claims at the first lead (see
        // the next test); every later trick has claims.
        assert!(claims[1..].iter().all(|n| *n > 0), "claims by trick: {claims:?}");
    }

    #[test]
    fn a_claim_at_the_first_lead_is_written_out_from_the_top() {
        let rules = Rules::default();
        let cards = |text: &str| -> CardSet {
            crate::card::parse_cards(text).expect("cards").into_iter().collect()
        };
        // Seat 1 holds the five best hearts and orders up the nine.
        let hands = [
            cards("9s Ts Js Qs Ks"),
            cards("Jh Jd Ah Kh Qh"),
            cards("As 9c Tc Jc Qc"),
            cards("Kc Ac 9d Td Qd"),
        ];
        let deal =
            crate::deal::Deal::from_hands(&rules, Seat(0), hands, "9h".parse().expect("a card"))
                .expect("a deal");
        let mut state = Hand::new(rules, deal);
        let mut actions = Vec::new();
        for (seat, action) in [
            (Seat(1), Action::OrderUp { alone: false }),
            (Seat(0), Action::Discard { card: "9s".parse().expect("a card") }),
            (Seat(1), Action::Claim),
        ] {
            state.apply(seat, action).expect("legal");
            actions.push(SeatAction { seat, action });
        }
        let hand = HandRecord { deal, actions, outcome: state.outcome(), seal: None };
        let written = play_out(&rules, &hand).expect("a claim").expect("written out");
        assert_eq!((written.first_written, written.tricks_before), (0, 0));
        check(&rules, &hand, &written);
        // The claimant's leads, highest first.
        let leads: Vec<String> = written.actions[2..]
            .chunks(4)
            .map(|trick| match trick[0].action {
                Action::Play { card } => card.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(leads, ["Jh", "Jd", "Ah", "Kh", "Qh"]);
    }

    #[test]
    fn concessions_are_written_out_when_play_can_give_the_tricks() {
        let (mut written_out, mut refused) = (vec![0usize; 20], 0);
        for rules in presets() {
            for seed in 0..60 {
                let game = random_game(rules, seed, 6);
                for hand in &game.record().hands {
                    let Some(conceded) = hand.actions.iter().find(|a| a.action == Action::Concede)
                    else {
                        continue;
                    };
                    match play_out(&rules, hand) {
                        Ok(Some(written)) => {
                            assert_eq!(written.ending, Ending::Concession { seat: conceded.seat });
                            written_out[written.first_written] += 1;
                            check(&rules, hand, &written);
                        }
                        Err(PlayOutError::NoPlayOut { seat }) => {
                            assert_eq!(seat, conceded.seat);
                            refused += 1;
                        }
                        other => panic!("seed {seed}: {other:?}"),
                    }
                }
            }
        }
        // Written out at every card of a hand: before each trick and within it.
        assert!(written_out.iter().all(|n| *n > 0), "concessions by card: {written_out:?}");
        assert!(refused > 0, "some concessions give away tricks no play loses");
    }

    /// The written-out hand: the record's steps up to the ending, then only
    /// legal plays, which the engine replays to the record's tricks,
    /// outcome and points.
    fn check(rules: &Rules, hand: &HandRecord, written: &PlayedOut) {
        let cut = hand.actions.len() - 1;
        assert_eq!(written.actions[..cut], hand.actions[..cut]);
        assert!(written.actions[cut..].iter().all(|a| matches!(a.action, Action::Play { .. })));
        let mut state = Hand::new(*rules, hand.deal);
        for step in &written.actions {
            state.apply(step.seat, step.action).expect("a legal step");
        }
        let (Some(HandOutcome::Played(replayed)), Some(HandOutcome::Played(recorded))) =
            (state.outcome(), hand.outcome)
        else {
            panic!("both played: {:?} {:?}", state.outcome(), hand.outcome);
        };
        assert_eq!((replayed.tricks, replayed.points), (recorded.tricks, recorded.points));
        assert_eq!(replayed, recorded);
        assert_eq!(written.outcome, HandOutcome::Played(recorded));
    }
}
