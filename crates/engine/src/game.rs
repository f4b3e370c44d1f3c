//! A whole game: the first dealer, hand after hand, the score, the winner.

use std::collections::VecDeque;

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::action::{
    Action, DealtHands, Event, EventList, EventSink, HandOutcome, PerTeam, RubberResult, Seat,
    Team, ThrowIn, Viewer,
};
use crate::card::{Card, CardSet, Rank};
use crate::deal::Deal;
use crate::error::RuleError;
use crate::fairness::{Commitment, Salt, Seal};
use crate::hand::{ActionList, Hand};
use crate::record::{GameRecord, HandRecord, SeatAction};
use crate::rules::{FirstDealer, Rules, RulesError};
use crate::seed::Seed;
use crate::view::GameView;

/// How the game began: who deals first and, when partners are drawn, who
/// sits where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameStart {
    pub dealer: Seat,
    /// `seating[seat]` is the index of the player (in joining order) in that seat.
    pub seating: [u8; 4],
    /// The cards turned face up to decide, as (player, card), in order.
    pub shown: Vec<(u8, Card)>,
}

/// Room reserved in the record for one hand's actions, so that it grows
/// once a hand: up to eight bids, a discard or two, twenty cards.
const HAND_ACTIONS: usize = 32;
/// Room reserved in the record for hands: a game to 10 takes about a dozen.
const RECORD_HANDS: usize = 16;

/// A finished game of a rubber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameResult {
    pub winner: Team,
    pub scores: PerTeam<u16>,
    /// Sheet 003: 3 if the losers scored 0 (or fewer), 2 if 1 or 2, 1 if 3 or more.
    pub rubber_points: u8,
}

impl GameResult {
    fn new(winner: Team, scores: PerTeam<u16>) -> GameResult {
        let losers = scores.teams().filter(|(team, _)| *team != winner).map(|(_, s)| *s);
        let rubber_points = match losers.max().unwrap_or(0) {
            0 => 3,
            1 | 2 => 2,
            _ => 1,
        };
        GameResult { winner, scores, rubber_points }
    }
}

/// One game of Euchre, advanced only by [`Game::apply`]; with
/// [`Rules::rubber`], a rubber of up to three games.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    rng: ChaCha8Rng,
    /// Deals to use instead of shuffling, when replaying a record.
    script: VecDeque<Deal>,
    hand: Hand,
    scores: PerTeam<u16>,
    winner: Option<Team>,
    record: GameRecord,
}

impl Game {
    /// A new game under `rules`, its every shuffle drawn from `seed` (a
    /// [`Seed`], or a `u64` for tests and tools).
    pub fn new(rules: Rules, seed: impl Into<Seed>) -> Result<Game, RulesError> {
        rules.validate()?;
        let seed = seed.into();
        let mut rng = seed.rng();
        let start = choose_first_dealer(&rules, &mut rng);
        Ok(Game::begin(rules, seed, rng, start, VecDeque::new()))
    }

    /// A game dealt from `deals` in order (then from `seed` once they run out),
    /// starting as `start` says: for tests, puzzles and duplicate play.
    pub fn with_deals(
        rules: Rules,
        seed: impl Into<Seed>,
        start: GameStart,
        deals: Vec<Deal>,
    ) -> Result<Game, ReplayError> {
        let seed = seed.into();
        rules.validate().map_err(ReplayError::Rules)?;
        for (number, deal) in deals.iter().enumerate() {
            deal.validate(&rules)
                .map_err(|error| ReplayError::BadDeal { hand: number as u32, error })?;
        }
        if deals.first().is_some_and(|deal| deal.dealer != start.dealer) {
            return Err(ReplayError::Diverged { hand: 0, reason: "the dealer differs" });
        }
        let mut rng = seed.rng();
        // Draw the start as a new game would, so the generator is where it would be.
        let _ = choose_first_dealer(&rules, &mut rng);
        Ok(Game::begin(rules, seed, rng, start, deals.into()))
    }

    /// Rebuilds a game from its record, replaying every action, and checks
    /// that each hand ended as recorded. The record's deals are used as
    /// stored, so a record replays the same whatever the random generator.
    pub fn replay(record: &GameRecord) -> Result<Game, ReplayError> {
        record.rules.validate().map_err(ReplayError::Rules)?;
        let mut rng = record.seed.rng();
        // Draw the start as a new game would, so the generator is where it was.
        let _ = choose_first_dealer(&record.rules, &mut rng);
        for (number, hand) in record.hands.iter().enumerate() {
            hand.deal
                .validate(&record.rules)
                .map_err(|error| ReplayError::BadDeal { hand: number as u32, error })?;
        }
        let script = record.hands.iter().map(|hand| hand.deal).collect();
        let mut game = Game::begin(record.rules, record.seed, rng, record.start.clone(), script);
        for (number, recorded) in record.hands.iter().enumerate() {
            let number = number as u32;
            if game.record.hands.len() as u32 != number + 1 {
                return Err(ReplayError::Diverged {
                    hand: number,
                    reason: "the game was already over",
                });
            }
            if game.hand.dealer() != recorded.deal.dealer {
                return Err(ReplayError::Diverged { hand: number, reason: "the dealer differs" });
            }
            // Kept as recorded, checked or not: `fairness::check` says whether it opens.
            game.record.hands[number as usize].seal = recorded.seal;
            for (index, step) in recorded.actions.iter().enumerate() {
                game.apply_with(step.seat, step.action, &mut crate::action::NoEvents).map_err(
                    |error| ReplayError::Illegal {
                        hand: number,
                        action: index as u32,
                        step: *step,
                        error,
                    },
                )?;
            }
            let replayed = game.record.hands[number as usize].outcome;
            if recorded.outcome.is_some() && replayed != recorded.outcome {
                return Err(ReplayError::Diverged { hand: number, reason: "the outcome differs" });
            }
        }
        Ok(game)
    }

    fn begin(
        rules: Rules,
        seed: Seed,
        mut rng: ChaCha8Rng,
        start: GameStart,
        mut script: VecDeque<Deal>,
    ) -> Game {
        let shuffled = Deal::shuffled(&rules, start.dealer, &mut rng);
        let deal = script.pop_front().unwrap_or(shuffled);
        let mut hands = Vec::with_capacity(RECORD_HANDS);
        let actions = Vec::with_capacity(HAND_ACTIONS);
        hands.push(HandRecord { deal, actions, outcome: None, seal: None });
        let record = GameRecord {
            rules,
            seed,
            start,
            hands,
            scores: PerTeam::new(rules.teams()),
            winner: None,
            games: Vec::new(),
        };
        Game {
            rules,
            rng,
            script,
            hand: Hand::new(rules, deal),
            scores: PerTeam::new(rules.teams()),
            winner: None,
            record,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The hand in progress (or just finished, when the game is over).
    pub fn hand(&self) -> &Hand {
        &self.hand
    }
    pub fn scores(&self) -> PerTeam<u16> {
        self.scores
    }
    /// Makes the hand in play the game's last (a tournament's round clock):
    /// the game becomes one of [`Rules::game_hands`] hands, counting the
    /// hands scored so far and this one, in the rules and in the record, so
    /// the record replays to the same end. A rubber, a game over, or one
    /// already ending sooner, is left as it is; returns whether it changed.
    pub fn end_after_hand_in_play(&mut self) -> bool {
        let hands = (self.hands_scored() + 1).min(u32::from(u8::MAX)) as u8;
        let sooner = self.rules.game_hands.is_some_and(|set| set <= hands);
        if self.is_over() || self.rules.rubber || sooner {
            return false;
        }
        self.rules.game_hands = Some(hands);
        self.record.rules.game_hands = Some(hands);
        true
    }

    /// Who won the match (the game, or with rubbers the rubber).
    pub fn winner(&self) -> Option<Team> {
        self.winner
    }
    /// Playing rubbers: the games finished so far.
    pub fn games(&self) -> &[GameResult] {
        &self.record.games
    }
    pub fn is_over(&self) -> bool {
        self.winner.is_some()
    }
    pub fn start(&self) -> &GameStart {
        &self.record.start
    }
    /// Hands dealt so far, counting from 0 (the current hand's number).
    pub fn hand_number(&self) -> u32 {
        self.record.hands.len() as u32 - 1
    }
    /// The complete record: rules, seed, every deal and every action.
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Seals the hand in progress with `salt` (which the caller draws from
    /// a secure generator: see [`crate::fairness`]) and returns the
    /// commitment to publish before the first bid. A hand is sealed once:
    /// sealing it again returns the first commitment and keeps the first salt.
    pub fn seal_hand(&mut self, salt: Salt) -> Commitment {
        let current = self.record.hands.len() - 1;
        let hand = &mut self.record.hands[current];
        hand.seal.get_or_insert_with(|| Seal::new(&hand.deal, salt)).commitment
    }

    /// The seat to act, if the game is not over.
    pub fn turn(&self) -> Option<Seat> {
        if self.winner.is_some() { None } else { self.hand.turn() }
    }

    /// Every action `seat` may take now; exactly the ones [`Game::apply`] accepts.
    /// The list is held inline (no allocation) and derefs to a slice.
    #[inline]
    pub fn legal_actions(&self, seat: Seat) -> ActionList {
        if self.winner.is_some() {
            return ActionList::default();
        }
        self.hand.legal_actions(seat)
    }

    /// Takes `action` for `seat` and returns what happened, or why not. An
    /// error leaves the game exactly as it was.
    #[inline]
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<EventList, RuleError> {
        let mut events = EventList::new();
        self.apply_with(seat, action, &mut events)?;
        Ok(events)
    }

    /// [`Game::apply`] with the events sent to `sink`.
    pub fn apply_with(
        &mut self,
        seat: Seat,
        action: Action,
        sink: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        if self.winner.is_some() {
            return Err(RuleError::GameOver);
        }
        self.hand.apply_with(seat, action, sink)?;
        let current = self.record.hands.len() - 1;
        self.record.hands[current].actions.push(SeatAction { seat, action });
        if let Some(outcome) = self.hand.outcome() {
            self.finish_hand(outcome, sink);
        }
        Ok(())
    }

    fn finish_hand(&mut self, outcome: HandOutcome, sink: &mut impl EventSink) {
        if let Some(points) = outcome.points() {
            for (team, points) in points.teams() {
                self.scores[team] += u16::from(*points);
            }
        }
        let current = self.record.hands.len() - 1;
        self.record.hands[current].outcome = Some(outcome);
        self.record.scores = self.scores;
        sink.push(Event::HandEnded { outcome, scores: self.scores });
        if let Some(team) = self.leader_at_target() {
            sink.push(Event::GameWon { team, scores: self.scores });
            if !self.rules.rubber {
                self.winner = Some(team);
                self.record.winner = Some(team);
                return;
            }
            self.record.games.push(GameResult::new(team, self.scores));
            if let Some(result) = self.rubber_result(team) {
                self.winner = Some(team);
                self.record.winner = Some(team);
                sink.push(Event::RubberWon { team, result });
                return;
            }
            // The next game of the rubber: scores start again, the deal
            // goes on passing left.
            self.scores = PerTeam::new(self.rules.teams());
        }
        let dealer = match outcome {
            HandOutcome::ThrownIn(ThrowIn::FarmersHand { .. }) => self.hand.dealer(),
            _ => self.hand.dealer().next(self.rules.players),
        };
        let shuffled = Deal::shuffled(&self.rules, dealer, &mut self.rng);
        let deal = self.script.pop_front().unwrap_or(shuffled);
        self.hand = Hand::new(self.rules, deal);
        let actions = Vec::with_capacity(HAND_ACTIONS);
        self.record.hands.push(HandRecord { deal, actions, outcome: None, seal: None });
        sink.push(Event::HandDealt {
            number: self.hand_number(),
            dealer: deal.dealer,
            up_card: deal.up_card,
            hands: DealtHands::all(deal.hands),
        });
    }

    /// The team that has won: one at or past the target (or, in a game of
    /// a fixed number of hands, after the last) with the highest score
    /// alone. (In the three-handed games both defenders can pass the target
    /// on one euchre; level at the top, they play on.)
    fn leader_at_target(&self) -> Option<Team> {
        let best = *self.scores.iter().max()?;
        let mut leaders = self.scores.teams().filter(|(_, score)| **score == best);
        let (leader, _) = leaders.next()?;
        let reached = match self.rules.game_hands {
            Some(hands) => self.hands_scored() >= u32::from(hands),
            None => best >= u16::from(self.rules.points_to_win),
        };
        (reached && leaders.next().is_none()).then_some(leader)
    }

    /// Hands played to a result: those thrown in are dealt again.
    fn hands_scored(&self) -> u32 {
        let scored =
            |hand: &&HandRecord| hand.outcome.is_some_and(|outcome| outcome.points().is_some());
        self.record.hands.iter().filter(scored).count() as u32
    }

    /// The rubber's result once `team` has won its second game.
    fn rubber_result(&self, team: Team) -> Option<RubberResult> {
        let games = &self.record.games;
        if games.iter().filter(|game| game.winner == team).count() < 2 {
            return None;
        }
        let mut rubber_points = PerTeam::<u8>::new(self.rules.teams());
        for game in games {
            rubber_points[game.winner] += game.rubber_points;
        }
        let theirs = rubber_points.teams().filter(|(t, _)| *t != team).map(|(_, p)| *p).sum::<u8>();
        let margin = (2 + rubber_points[team]).saturating_sub(theirs);
        Some(RubberResult { rubber_points, margin })
    }

    /// What `viewer` may know of the game.
    pub fn view(&self, viewer: Viewer) -> GameView {
        GameView::new(self, viewer)
    }

    /// The event announcing the hand in progress, as if it had just been dealt.
    pub fn current_deal_event(&self) -> Event {
        let deal = self.hand.deal();
        Event::HandDealt {
            number: self.hand_number(),
            dealer: deal.dealer,
            up_card: deal.up_card,
            hands: DealtHands::all(deal.hands),
        }
    }
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("the rules cannot be played: {0}")]
    Rules(RulesError),
    #[error("hand {hand}: the deal is not valid: {error}")]
    BadDeal { hand: u32, error: crate::deal::DealError },
    #[error("hand {hand}, action {action} ({:?} by {}): {error}", step.action, step.seat)]
    Illegal { hand: u32, action: u32, step: SeatAction, error: RuleError },
    #[error("hand {hand}: {reason}")]
    Diverged { hand: u32, reason: &'static str },
}

/// Decides the first dealer (and, with [`FirstDealer::Draw`], the partners).
fn choose_first_dealer(rules: &Rules, rng: &mut ChaCha8Rng) -> GameStart {
    let players = rules.players;
    match rules.first_dealer {
        FirstDealer::FirstJack => {
            // Deal face up around the table from seat 0 until a jack appears.
            let deal = Deal::shuffled(rules, Seat(0), rng);
            // Interleave the hands so the face-up deal is one card per seat in turn.
            let hands = deal.hands;
            let order = (0..rules.hand_size())
                .flat_map(|round| hands.into_iter().filter_map(move |hand| hand.nth(round)))
                .chain([deal.up_card])
                .chain(deal.kitty);
            // The first jack comes on the fifth card on average.
            let mut shown = Vec::with_capacity(8);
            let mut dealer = Seat(0);
            for (index, card) in order.enumerate() {
                let player = (index % usize::from(players)) as u8;
                shown.push((player, card));
                if card.rank() == Rank::Jack {
                    dealer = Seat(player);
                    break;
                }
            }
            GameStart { dealer, seating: [0, 1, 2, 3], shown }
        }
        FirstDealer::Draw => loop {
            // Each player draws one card; K high ... A low. Any tie: draw again.
            let deal = Deal::shuffled(rules, Seat(0), rng);
            let draws: Vec<(u8, Card)> = (0..players)
                .map(|p| (p, deal.hands[usize::from(p)].first().unwrap_or(deal.up_card)))
                .collect();
            let value = |card: Card| {
                if card.rank() == Rank::Ace { 0 } else { card.rank() as u8 + 1 }
            };
            let ranks: CardSet =
                draws.iter().map(|(_, c)| Card::new(c.rank(), crate::card::Suit::Spades)).collect();
            // The joker has no rank to draw by: draw again, as for a tie.
            let joker = draws.iter().any(|(_, card)| card.is_joker());
            if joker || ranks.len() != u32::from(players) {
                continue;
            }
            let mut by_value = draws.clone();
            by_value.sort_by_key(|(_, card)| value(*card));
            if !rules.partnerships() {
                // Without partners the draw only picks the dealer: the lowest.
                let dealer = Seat(by_value[0].0);
                break GameStart { dealer, seating: [0, 1, 2, 3], shown: draws };
            }
            // The two lowest sit across from each other; the lowest deals from seat 0.
            let seating = [by_value[0].0, by_value[2].0, by_value[1].0, by_value[3].0];
            break GameStart { dealer: Seat(0), seating, shown: draws };
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_jack_deals() {
        for seed in 0..50 {
            let game = Game::new(Rules::default(), seed).expect("valid rules");
            let start = game.start();
            let (player, card) = *start.shown.last().expect("cards were shown");
            assert_eq!(card.rank(), Rank::Jack);
            assert!(
                start.shown[..start.shown.len() - 1].iter().all(|(_, c)| c.rank() != Rank::Jack)
            );
            assert_eq!(start.dealer, Seat(player));
            assert_eq!(game.hand().dealer(), start.dealer);
        }
    }

    #[test]
    fn draw_sets_partners_and_the_lowest_deals() {
        let rules = Rules { first_dealer: FirstDealer::Draw, ..Rules::default() };
        for seed in 0..50 {
            let game = Game::new(rules, seed).expect("valid rules");
            let start = game.start();
            let value = |card: Card| {
                if card.rank() == Rank::Ace { 0 } else { card.rank() as u8 + 1 }
            };
            let drawn = |player: u8| {
                start
                    .shown
                    .iter()
                    .find(|(p, _)| *p == player)
                    .map(|(_, c)| value(*c))
                    .expect("drew")
            };
            let seat_values: Vec<u8> = start.seating.iter().map(|p| drawn(*p)).collect();
            // The dealer (seat 0) drew lowest; seats 0 and 2 drew the two lowest.
            assert!(seat_values[0] < seat_values[2]);
            assert!(seat_values[2] < seat_values[1].min(seat_values[3]));
            assert_eq!(game.hand().dealer(), Seat(0));
        }
    }
}
