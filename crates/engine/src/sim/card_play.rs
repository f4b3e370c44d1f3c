//! The card play of one hand on trump-relative bit sets: the inner loop of
//! the simulation path.
//!
//! Once trump is known, how strong a card is depends only on the suit led,
//! so each card gets a new number: four lanes of 16 bits, one per suit as
//! it is followed (the left bower and the joker in trump's), lane 3 for
//! trump, and within a lane the stronger card on the higher bit. Following
//! suit is then one AND with the led card's lane, and a card takes the lead
//! in a trick when its bit is above the best card's and it is in the led
//! lane or in trump's (which, being the top lane, is above every other).
//!
//! [`CardPlay`] only plays cards: bidding, discards and scoring stay with
//! [`Hand`], so the rules that differ between the games (who sits out, who
//! leads, what a trick is worth) are decided there once and arrive here as
//! the seats in play and the leader. The tests below check it against
//! [`Hand`] card by card in every game form, and `tests/it/perft.rs` counts
//! its trees against the full API and a model written from scratch.

use std::hint::select_unpredictable;

use rand::Rng;

use crate::action::{PerTeam, Seat, Team};
use crate::card::{Card, CardSet, Rank, Suit};
use crate::error::RuleError;
use crate::hand::{Hand, Phase};

/// The card play of a hand, from the first lead (or any later point) to the
/// last trick. It is `Copy` and 80 bytes: a search copies it for each line
/// it tries.
///
/// ```
/// use euchre_engine::{Action, Deal, Hand, Rules, Seat, sim::CardPlay};
/// use rand::SeedableRng;
/// use rand::rngs::SmallRng;
///
/// let mut rng = SmallRng::seed_from_u64(3);
/// let rules = Rules::default();
/// let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(3), &mut rng));
/// assert!(CardPlay::new(&hand).is_none(), "no cards are played in bidding");
/// hand.apply(Seat(0), Action::OrderUp { alone: false }).unwrap();
/// let discard = hand.holding(Seat(3)).first().unwrap();
/// hand.apply(Seat(3), Action::Discard { card: discard }).unwrap();
///
/// let mut play = CardPlay::new(&hand).unwrap();
/// assert_eq!(play.turn(), Some(Seat(0)));
/// let lead = play.legal_plays().first().unwrap();
/// play.play(lead).unwrap();
/// let tricks = play.random_playout(&mut rng);
/// assert_eq!(tricks[0] + tricks[1], 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardPlay {
    /// What each seat holds, renumbered.
    pub(super) hands: [u64; 4],
    /// The lane of the card led to this trick: the cards that follow it.
    /// Empty before the lead, when any card may be played.
    pub(super) led: u64,
    /// Trump's lane; empty in a no-trump hand.
    pub(super) trump: u64,
    /// The strongest card in this trick so far (0 before the lead).
    pub(super) best: u64,
    /// This hand's trump: a suit, or 4 for no trump ([`relative`]).
    pub(super) row: u8,
    pub(super) turn: u8,
    pub(super) leader: u8,
    /// Who played `best` (the leader before the lead).
    pub(super) winner: u8,
    /// The seat after each seat in play, skipping those that sit out.
    next: [u8; 4],
    pub(super) team_of: [u8; 4],
    /// Tricks won by each team.
    pub(super) won: PerTeam<u8>,
    /// How many seats play to each trick.
    players_in_play: u8,
    pub(super) tricks_left: u8,
}

impl CardPlay {
    /// The card play of `hand` from where it stands, or `None` if cards
    /// are not being played (bidding, discarding, or the hand is over).
    #[inline]
    pub fn new(hand: &Hand) -> Option<CardPlay> {
        (hand.phase() == Phase::Playing).then(|| CardPlay::in_play(hand))
    }

    /// [`CardPlay::new`] for a hand known to be in play. Not wrapped in an
    /// `Option`, which the simulation's caller would copy it out of.
    #[inline]
    pub(crate) fn in_play(hand: &Hand) -> CardPlay {
        debug_assert_eq!(hand.phase(), Phase::Playing);
        let rules = hand.rules();
        let row = hand.trump().map_or(NO_TRUMP_ROW, |suit| suit as u8);
        let mut play = CardPlay {
            hands: [0; 4],
            led: 0,
            trump: if row == NO_TRUMP_ROW { 0 } else { TRUMP_LANE },
            best: 0,
            row,
            turn: hand.trick().leader.0,
            leader: hand.trick().leader.0,
            winner: hand.trick().leader.0,
            next: [0; 4],
            team_of: [0; 4],
            won: hand.tricks_won(),
            players_in_play: 0,
            tricks_left: (rules.hand_size() as u8).saturating_sub(hand.tricks_played()),
        };
        // The four places at the table: an empty place, or a seat that sits
        // out, holds and plays nothing.
        let in_play = hand.seats_in_play();
        let renumbering = Renumbering::of(row);
        for s in 0..4u8 {
            let held = if in_play & (1 << s) != 0 { hand.holding(Seat(s)).0 } else { 0 };
            play.hands[usize::from(s)] = renumbering.apply(held);
            play.team_of[usize::from(s)] = rules.team_of(Seat(s)).0;
        }
        play.next = hand.next_in_play();
        play.players_in_play = in_play.count_ones() as u8;
        // The cards already played to this trick, in order from the leader.
        for card in hand.trick().cards() {
            play.contest(play.bit(*card));
        }
        debug_assert_eq!(hand.turn().map(|seat| seat.0), Some(play.turn));
        play
    }

    /// The seat to play, or `None` once every trick is played.
    pub fn turn(&self) -> Option<Seat> {
        (self.tricks_left > 0).then_some(Seat(self.turn))
    }

    /// Whether every trick has been played.
    pub fn is_finished(&self) -> bool {
        self.tricks_left == 0
    }

    /// The cards the seat to play may play (none once finished): exactly
    /// [`Hand::legal_plays`] in the same position.
    pub fn legal_plays(&self) -> CardSet {
        self.cards(self.legal_bits())
    }

    /// Plays `card` for the seat to play. A card that [`CardPlay::legal_plays`]
    /// does not hold is refused with the error [`Hand`] gives, and changes
    /// nothing.
    pub fn play(&mut self, card: Card) -> Result<(), RuleError> {
        let bit = self.bit(card);
        if self.legal_bits() & bit != 0 {
            self.take(bit);
            return Ok(());
        }
        if self.is_finished() {
            Err(RuleError::NotNow { action: "play", phase: "the hand is over" })
        } else if self.hands[usize::from(self.turn)] & bit == 0 {
            Err(RuleError::CardNotInHand { card })
        } else {
            Err(RuleError::MustFollowSuit { led: self.led_suit() })
        }
    }

    /// Tricks won by each team so far (all of them once finished).
    pub fn tricks_won(&self) -> PerTeam<u8> {
        self.won
    }

    /// Plays the hand out, each card chosen uniformly at random among the
    /// legal ones, and returns the tricks won by each team.
    ///
    /// Each trick takes one 64-bit random number and reads its choices off
    /// it as base-60 digits (Lemire's multiply-shift, one digit per
    /// multiplication). Four digits are uniform to within 60^4 / 2^64 <
    /// 2^-40, and a choice among `n` cards gives each card 60 / `n` of the
    /// digits (`n` is at most five, so it divides 60): every line of play is
    /// as likely as uniform choices make it, to within a factor 1 ± 2^-37,
    /// and no draw is rejected. Unlike digits in the radix of the choices
    /// themselves, the digits do not wait for the cards: the processor
    /// works out the three followers' choices side by side.
    pub fn random_playout(&mut self, rng: &mut impl Rng) -> PerTeam<u8> {
        self.random_tricks(rng, |_| ());
        self.tricks_won()
    }

    /// Plays the rest of the hand at random and tells `played` each card's
    /// bit in order: [`CardPlay::random_playout`].
    #[inline(always)]
    fn random_tricks(&mut self, rng: &mut impl Rng, mut played: impl FnMut(u64)) {
        if self.led != 0 && self.tricks_left > 0 {
            // A trick under way (a playout from the middle of one): card
            // by card to its end.
            let (mut random, trick) = (rng.next_u64(), self.tricks_left);
            while self.tricks_left == trick {
                played(self.random_step(next_digit(&mut random)));
            }
        }
        // Whole tricks, the leader and the tricks won kept in registers
        // (a byte per team) rather than in `self` from trick to trick.
        let (mut leader, mut won) = (self.leader, 0u32);
        for held in (2..=self.tricks_left).rev() {
            // Every seat in play holds `held` cards.
            let mut random = rng.next_u64();
            let digit = next_digit(&mut random);
            let lead = |hand, count| pick_among(hand, count, digit);
            let follow = |legal, count| pick_among(legal, count, next_digit(&mut random));
            let winner = self.whole_trick(leader, u64::from(held), lead, follow, &mut played);
            won += 1 << (8 * self.team_of[usize::from(winner)]);
            leader = winner;
        }
        if self.tricks_left > 0 {
            // Everyone holds one card: no choice to make.
            let winner = self.whole_trick(leader, 1, |hand, _| hand, |legal, _| legal, &mut played);
            won += 1 << (8 * self.team_of[usize::from(winner)]);
            leader = winner;
        }
        for team in 0..self.won.len() {
            self.won[Team(team as u8)] += (won >> (8 * team)) as u8;
        }
        self.tricks_left = 0;
        self.start_trick(leader);
    }

    /// Plays a whole trick led by `leader`, every seat in play holding
    /// `held` cards, and returns its winner: the card `lead` chooses from
    /// the leader's hand, then the card each follower's `follow` chooses
    /// from his legal ones (each given with their count). The followers'
    /// cards depend on the lead and their own hands only, so the processor
    /// works them out side by side, in a loop that runs as many times in
    /// every trick of the hand. Who is winning is tracked without branches:
    /// it changes unpredictably. Only the hands change: the caller scores
    /// the trick.
    #[inline(always)]
    fn whole_trick(
        &mut self,
        leader: u8,
        held: u64,
        lead: impl FnOnce(u64, u64) -> u64,
        mut follow: impl FnMut(u64, u64) -> u64,
        mut played: impl FnMut(u64),
    ) -> u8 {
        let lead = lead(self.hands[usize::from(leader)], held);
        self.hands[usize::from(leader)] ^= lead;
        played(lead);
        let lane = lead.trailing_zeros() & 48;
        let led = LANE << lane;
        let contention = led | self.trump;
        let (mut best, mut winner) = (lead, leader);
        let mut seat = self.next[usize::from(leader)];
        for _ in 1..self.players_in_play {
            let hand = self.hands[usize::from(seat)];
            let following = hand & led;
            // Counted by table: without popcnt (baseline x86-64), counting
            // bits takes a dozen instructions on the way to the trick's winner.
            let in_lane = u64::from(LANE_COUNT[((following >> lane) & 0x7ff) as usize]);
            let none = following == 0;
            let legal = select_unpredictable(none, hand, following);
            let bit = follow(legal, select_unpredictable(none, held, in_lane));
            self.hands[usize::from(seat)] = hand ^ bit;
            played(bit);
            let takes = (bit > best) & (bit & contention != 0);
            best = select_unpredictable(takes, bit, best);
            winner = select_unpredictable(takes, seat, winner);
            seat = self.next[usize::from(seat)];
        }
        winner
    }

    /// Plays the legal card that `digit`, uniform below 60, picks; returns
    /// the card's bit.
    #[inline(always)]
    fn random_step(&mut self, digit: u64) -> u64 {
        let bit = pick(self.legal_bits(), digit);
        self.take(bit);
        bit
    }

    /// The number of distinct sequences of `depth` plays from here (see
    /// [`crate::sim::perft`]).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.tricks_left == 0 {
            return 1;
        }
        let mut legal = self.legal_bits();
        // Bulk counting: the last ply's leaves are the legal cards.
        if depth == 1 {
            return u64::from(legal.count_ones());
        }
        let mut leaves = 0;
        while legal != 0 {
            let bit = legal & legal.wrapping_neg();
            legal ^= bit;
            let mut next = *self;
            next.take(bit);
            leaves += next.perft(depth - 1);
        }
        leaves
    }

    #[inline(always)]
    pub(super) fn legal_bits(&self) -> u64 {
        let hand = self.hands[usize::from(self.turn)];
        let following = hand & self.led;
        if following == 0 { hand } else { following }
    }

    /// Plays the card on `bit` (a legal one) for the seat to play.
    #[inline(always)]
    pub(super) fn take(&mut self, bit: u64) {
        self.hands[usize::from(self.turn)] &= !bit;
        self.contest(bit);
    }

    /// Adds the card on `bit`, played by the seat to play, to the trick.
    #[inline(always)]
    fn contest(&mut self, bit: u64) {
        let seat = self.turn;
        // The lead sets the lane to follow (and, with nothing to beat, leads
        // the trick). A branch, not a select: the followers' cards then do
        // not wait for each other's.
        if self.led == 0 {
            self.led = LANE << (bit.trailing_zeros() & 48);
        }
        // Who is winning changes unpredictably: select without a branch.
        let takes = (bit > self.best) & (bit & (self.led | self.trump) != 0);
        self.best = select_unpredictable(takes, bit, self.best);
        self.winner = select_unpredictable(takes, seat, self.winner);
        let next = self.next[usize::from(seat)];
        if next != self.leader {
            self.turn = next;
            return;
        }
        // Play came back to the leader: the trick is complete.
        self.end_trick(self.winner);
    }

    /// Scores the trick for `winner`, who leads the next.
    #[inline(always)]
    fn end_trick(&mut self, winner: u8) {
        self.won[Team(self.team_of[usize::from(winner)])] += 1;
        self.tricks_left -= 1;
        self.start_trick(winner);
    }

    /// Readies the next trick, led by `leader`.
    #[inline(always)]
    fn start_trick(&mut self, leader: u8) {
        self.leader = leader;
        self.turn = leader;
        self.winner = leader;
        self.led = 0;
        self.best = 0;
    }

    fn bit(&self, card: Card) -> u64 {
        relative(card.bit(), self.row)
    }

    fn cards(&self, mut bits: u64) -> CardSet {
        let mut cards = CardSet::EMPTY;
        while bits != 0 {
            let index = bits.trailing_zeros() as usize;
            cards.insert(Card::from_index(CARD_AT[usize::from(self.row)][index]));
            bits &= bits - 1;
        }
        cards
    }

    /// The suit led to this trick (meaningful once a card is led).
    fn led_suit(&self) -> Suit {
        let lane = (self.led.trailing_zeros() / 16) as u8;
        if self.row == NO_TRUMP_ROW {
            Suit::from_index(lane)
        } else {
            // The inverse of `lane_of`.
            Suit::from_index((lane + self.row + 1) & 3)
        }
    }
}

/// The next base-60 digit of `random` (Lemire's multiply-shift).
#[inline(always)]
fn next_digit(random: &mut u64) -> u64 {
    let wide = u128::from(*random) * 60;
    *random = wide as u64;
    (wide >> 64) as u64
}

/// The card of `cards` (one to five) that `digit`, uniform below 60,
/// picks: each card takes 60 / n of the digits, as n divides 60.
#[inline(always)]
fn pick(cards: u64, digit: u64) -> u64 {
    pick_among(cards, u64::from(cards.count_ones()), digit)
}

/// [`pick`] where the number of cards, `count`, is known.
#[inline(always)]
fn pick_among(cards: u64, count: u64, digit: u64) -> u64 {
    let chosen = digit * count / 60;
    // The cards without the lowest one, two, three and four: straight-line
    // code, with no loop to mispredict on the random choice.
    let less1 = cards & cards.wrapping_sub(1);
    let less2 = less1 & less1.wrapping_sub(1);
    let less3 = less2 & less2.wrapping_sub(1);
    let less4 = less3 & less3.wrapping_sub(1);
    let mut rest = cards;
    for (k, less) in [less1, less2, less3, less4].into_iter().enumerate() {
        rest = select_unpredictable(chosen > k as u64, less, rest);
    }
    rest & rest.wrapping_neg()
}

/// One lane's bits.
const LANE: u64 = 0xffff;
const TRUMP_LANE: u64 = LANE << 48;
const NO_TRUMP_ROW: u8 = 4;

/// `LANE_COUNT[bits]`: how many of a lane's eleven used bits are set.
const LANE_COUNT: [u8; 1 << 11] = {
    let mut table = [0; 1 << 11];
    let mut bits = 0;
    while bits < table.len() {
        table[bits] = (bits as u32).count_ones() as u8;
        bits += 1;
    }
    table
};

/// The lane of a plain suit under `trump`: trump's is 3, the others 0 to 2.
const fn lane_of(suit: u8, trump: u8) -> u8 {
    (suit + 3 - trump) & 3
}

/// Renumbers a set of cards (a [`CardSet`]'s bits) for the trump of `row`
/// (rows 0 to 3 the trump suits, row 4 no trump).
const fn relative(cards: u64, row: u8) -> u64 {
    Renumbering::of(row).apply(cards)
}

/// How cards are renumbered under one trump: each suit's byte goes to the
/// low half of its lane, ranks in order (the jack between ten and queen); a
/// rotation puts trump's in lane 3; then the two bowers and the joker move
/// to the top of trump's lane. Under no trump each suit is its own lane,
/// and the joker (never played without trumps) sits above the ace of lane
/// 3 so that every card has a place.
#[derive(Clone, Copy)]
struct Renumbering {
    rotation: u32,
    /// Where the left bower is after the rotation (0 under no trump).
    left: u32,
    /// Where the right bower is after the rotation (0 under no trump).
    right: u32,
}

impl Renumbering {
    const fn of(row: u8) -> Renumbering {
        if row == NO_TRUMP_ROW {
            return Renumbering { rotation: 0, left: 0, right: 0 };
        }
        let jack = Rank::Jack as u32;
        let left_lane = lane_of(Suit::from_index(row).same_colour() as u8, row) as u32;
        Renumbering {
            rotation: 16 * lane_of(0, row) as u32,
            left: 16 * left_lane + jack,
            right: 48 + jack,
        }
    }

    #[inline(always)]
    const fn apply(self, cards: u64) -> u64 {
        // The four suit bytes, each to the low half of a 16-bit lane.
        let suited = cards & 0xffff_ffff;
        let spread = (suited | suited << 16) & 0x0000_ffff_0000_ffff;
        let spread = (spread | spread << 8) & 0x00ff_00ff_00ff_00ff;
        let bits = spread.rotate_left(self.rotation) | ((cards >> 32) & 1) << JOKER_BIT;
        if self.right == 0 {
            return bits;
        }
        let (left, right) = (1 << self.left, 1 << self.right);
        (bits & !(left | right))
            | (bits & left) << (LEFT_BOWER_BIT - self.left)
            | (bits & right) << (RIGHT_BOWER_BIT - self.right)
    }
}

/// Where the bowers and the joker go: above the ace in trump's lane.
const LEFT_BOWER_BIT: u32 = 48 + 8;
const RIGHT_BOWER_BIT: u32 = 48 + 9;
const JOKER_BIT: u32 = 48 + 10;

/// `CARD_AT[row][bit]`: the card on that bit under the trump of `row`
/// ([`relative`] inverted; 32, the joker, where no card is).
const CARD_AT: [[u8; 64]; 5] = {
    let mut table = [[32; 64]; 5];
    let mut row = 0;
    while row < 5 {
        let mut card = 0;
        while card < 33 {
            let bit = relative(Card::from_index(card).bit(), row);
            table[row as usize][bit.trailing_zeros() as usize] = card;
            card += 1;
        }
        row += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{Action, NoEvents};
    use crate::deal::Deal;
    use crate::rules::{Preset, Rules};
    use crate::sim;
    use crate::trump::{self, Mode};
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn renumbering_keeps_the_order_of_play() {
        for row in 0..5u8 {
            let mode = if row == NO_TRUMP_ROW {
                Mode::NO_TRUMP
            } else {
                Mode::trump(Suit::from_index(row))
            };
            let cards = (0..32).map(Card::from_index).chain(
                // The joker is played only with a trump.
                (row != NO_TRUMP_ROW).then_some(Card::JOKER),
            );
            let cards: Vec<Card> = cards.collect();
            for a in &cards {
                let bit = relative(a.bit(), row).trailing_zeros() as u8;
                assert_eq!(CARD_AT[usize::from(row)][usize::from(bit)], a.index() as u8);
                // The lane is the suit it follows as.
                let suit = trump::effective_suit_in(*a, mode);
                let lane = if row == NO_TRUMP_ROW { suit as u8 } else { lane_of(suit as u8, row) };
                assert_eq!(bit / 16, lane, "{a} in row {row}");
                // Within a suit, the higher bit is the stronger card.
                for b in &cards {
                    if trump::effective_suit_in(*b, mode) == suit {
                        let other = relative(b.bit(), row).trailing_zeros() as u8;
                        assert_eq!(
                            bit > other,
                            trump::power_in(*a, mode) > trump::power_in(*b, mode),
                            "{a} {b} in row {row}"
                        );
                    }
                }
            }
        }
    }

    /// Random hands in every preset and with the joker or no trump: at each
    /// step of play the legal cards agree with `Hand`'s, every card is
    /// accepted or refused with the same error, and the tricks agree.
    #[test]
    fn plays_every_card_as_the_hand_does() {
        let mut rng = SmallRng::seed_from_u64(21);
        let mut rule_sets: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        rule_sets.push(Rules { joker: true, ..Rules::default() });
        rule_sets.push(Rules { allow_no_trump: true, ..Rules::default() });
        rule_sets.push(Rules { defend_alone: true, ..Rules::default() });
        let mut no_trump_hands = 0;
        for rules in rule_sets {
            for n in 0..150u32 {
                let dealer = Seat((n % u32::from(rules.players)) as u8);
                let mut hand = Hand::new(rules, Deal::shuffled(&rules, dealer, &mut rng));
                while hand.phase() != Phase::Playing && !hand.is_finished() {
                    let seat = hand.turn().expect("bidding");
                    let action = match sim::random_action(&hand, &mut rng) {
                        // No trump is called in round two only: get there.
                        Action::OrderUp { .. } if rules.allow_no_trump => Action::Pass,
                        Action::Call { alone, .. } if rules.allow_no_trump => {
                            Action::CallNoTrump { alone }
                        }
                        action => action,
                    };
                    hand.apply(seat, action).expect("legal");
                }
                let Some(mut play) = CardPlay::new(&hand) else { continue };
                no_trump_hands += usize::from(hand.no_trump());
                while let Some(seat) = hand.turn() {
                    assert_eq!(play, CardPlay::new(&hand).expect("in play"), "rebuilt mid-hand");
                    assert_eq!(play.turn(), Some(seat));
                    assert_eq!(play.legal_plays(), hand.legal_plays());
                    for card in rules.pack() {
                        let mut copy = play;
                        let fast = copy.play(card);
                        let full = hand.check(seat, Action::Play { card });
                        assert_eq!(fast, full, "{card}");
                        if fast.is_err() {
                            assert_eq!(copy, play, "a refused card changes nothing");
                        }
                    }
                    let card = sim::random_play(&hand, &mut rng).expect("a legal card");
                    play.play(card).expect("legal");
                    hand.apply(seat, Action::Play { card }).expect("legal");
                    assert_eq!(play.tricks_won(), hand.tricks_won());
                }
                assert!(play.is_finished());
                assert_eq!(play.turn(), None);
                assert_eq!(play.legal_plays(), CardSet::EMPTY);
                for card in rules.pack() {
                    assert_eq!(play.play(card), hand.check(Seat(0), Action::Play { card }));
                }
            }
        }
        assert!(no_trump_hands > 20, "{no_trump_hands} no-trump hands");
    }

    #[test]
    fn perft_agrees_with_the_hand() {
        // The engine's own tree walk through Hand::play_with, against the
        // renumbered one, from positions part-way through random hands.
        fn hand_perft(hand: &Hand, depth: u32) -> u64 {
            if depth == 0 || hand.is_finished() {
                return 1;
            }
            let mut leaves = 0;
            for card in hand.legal_plays() {
                let mut next = *hand;
                next.play_with(card, &mut NoEvents).expect("legal");
                leaves += hand_perft(&next, depth - 1);
            }
            leaves
        }
        let mut rng = SmallRng::seed_from_u64(22);
        for preset in Preset::ALL {
            let rules = preset.rules();
            let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(0), &mut rng));
            while hand.phase() != Phase::Playing && !hand.is_finished() {
                let seat = hand.turn().expect("bidding");
                hand.apply(seat, sim::random_action(&hand, &mut rng)).expect("legal");
            }
            // Two random cards in, so the trick is already under way.
            for _ in 0..2 {
                if let Some(card) = sim::random_play(&hand, &mut rng) {
                    hand.play_with(card, &mut NoEvents).expect("legal");
                }
            }
            let Some(play) = CardPlay::new(&hand) else { continue };
            for depth in [1, 2, 5, 9] {
                assert_eq!(play.perft(depth), hand_perft(&hand, depth), "{preset:?} depth {depth}");
            }
        }
    }

    #[test]
    fn playouts_from_the_middle_of_a_trick_finish_the_hand() {
        // Stopped after any number of cards, in every game form: the playout
        // plays every card left, and the tricks add up to the hand.
        let mut rng = SmallRng::seed_from_u64(25);
        for preset in Preset::ALL {
            let rules = preset.rules();
            for stop in 0..20 {
                let dealer = Seat(stop % rules.players);
                let mut hand = Hand::new(rules, Deal::shuffled(&rules, dealer, &mut rng));
                let mut played = 0;
                while !hand.is_finished() && (hand.phase() != Phase::Playing || played < stop) {
                    let seat = hand.turn().expect("in progress");
                    let action = sim::random_action(&hand, &mut rng);
                    played += u8::from(matches!(action, Action::Play { .. }));
                    hand.apply(seat, action).expect("legal");
                }
                let Some(mut play) = CardPlay::new(&hand) else { continue };
                let tricks = play.random_playout(&mut rng);
                assert!(play.is_finished());
                assert!(play.hands.iter().all(|held| *held == 0), "{preset:?} after {stop}");
                assert_eq!(tricks.iter().sum::<u8>(), 5, "{preset:?} after {stop}");
                for (team, won) in hand.tricks_won().teams() {
                    assert!(tricks[team] >= *won, "tricks already won stay won");
                }
            }
        }
    }

    #[test]
    fn each_legal_card_takes_an_equal_share_of_the_digits() {
        // Every legal set of one to five cards (the low bits of a lane),
        // every digit: each card is picked by 60 / n digits.
        for legal in 1u64..32 {
            let mut picks = std::collections::HashMap::new();
            for digit in 0..60 {
                *picks.entry(pick(legal, digit)).or_insert(0) += 1;
            }
            let n = legal.count_ones();
            assert_eq!(picks.len(), n as usize);
            assert!(picks.keys().all(|bit| legal & bit == *bit));
            assert!(picks.values().all(|count| *count == 60 / n), "{legal:b}: {picks:?}");
        }
    }

    #[test]
    fn random_lines_are_uniform_at_each_step() {
        // From a position with three tricks to go, every line of play turns
        // up about as often as choosing uniformly at each step predicts.
        let mut rng = SmallRng::seed_from_u64(23);
        let rules = Rules::default();
        let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(3), &mut rng));
        hand.apply(Seat(0), Action::OrderUp { alone: false }).expect("order up");
        let discard = hand.holding(Seat(3)).first().expect("a card");
        hand.apply(Seat(3), Action::Discard { card: discard }).expect("discard");
        for _ in 0..8 {
            let card = sim::random_play(&hand, &mut rng).expect("a card");
            hand.play_with(card, &mut NoEvents).expect("legal");
        }
        let start = CardPlay::new(&hand).expect("in play");
        let mut seen: std::collections::HashMap<Vec<u64>, (u32, f64)> = Default::default();
        let playouts = 40_000;
        for _ in 0..playouts {
            // As random_playout plays, with the line and its probability.
            let (mut play, mut line, mut p) = (start, Vec::new(), 1.0);
            play.random_tricks(&mut rng, |bit| line.push(bit));
            let mut replay = start;
            for bit in &line {
                p /= f64::from(replay.legal_bits().count_ones());
                replay.take(*bit);
            }
            seen.entry(line).or_insert((0, p)).0 += 1;
        }
        let total: f64 = seen.values().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-9, "every line was reached: {total}");
        for (line, (count, p)) in &seen {
            let mean = f64::from(playouts) * p;
            let sigma = (mean * (1.0 - p)).sqrt();
            assert!((f64::from(*count) - mean).abs() < 5.0 * sigma, "{line:?}: {count} vs {mean}");
        }
    }
}
