//! Double-dummy solving: how many tricks the makers take from a position of
//! card play when every hand is seen and both sides play their best. A
//! search bot deals the cards it cannot see in many ways and solves each.
//!
//! Every form is two-sided here: the makers against everybody else. In the
//! three-handed games both defenders score only when the maker is euchred,
//! so they play as one side; the score is a function of the makers' tricks.
//!
//! The search is alpha-beta over [`CardPlay`], with the cards of a hand that
//! are next to each other in a suit (nobody else holding one between them)
//! tried once, the likely best cards first, and a transposition table at
//! the start of each trick: whatever the cards played before, the same
//! hands and the same leader have the same value.

use crate::action::{HandOutcome, Team};
use crate::hand::{Hand, Phase};

use super::CardPlay;

/// A double-dummy solver. Its table keeps what it learnt from one solve to
/// the next (its keys are whole positions, so they never go stale): give a
/// solver to one game and reuse it.
///
/// ```
/// use euchre_engine::{Action, Deal, Hand, HandOutcome, Rules, Seat, sim::Solver};
/// use rand::SeedableRng;
/// use rand::rngs::SmallRng;
///
/// let mut rng = SmallRng::seed_from_u64(3);
/// let rules = Rules::default();
/// let mut hand = Hand::new(rules, Deal::shuffled(&rules, Seat(3), &mut rng));
/// hand.apply(Seat(0), Action::OrderUp { alone: false }).unwrap();
/// let discard = hand.holding(Seat(3)).first().unwrap();
/// hand.apply(Seat(3), Action::Discard { card: discard }).unwrap();
///
/// let mut solver = Solver::new();
/// let Some(HandOutcome::Played(best)) = solver.outcome(&hand) else { panic!() };
/// assert_eq!(best.tricks[0] + best.tricks[1], 5);
/// ```
#[derive(Clone)]
pub struct Solver {
    /// Empty for a solver without a table.
    table: Vec<Entry>,
    nodes: u64,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("entries", &self.table.len())
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// What the table knows of one position at the start of a trick: bounds on
/// the tricks the makers take from there.
#[derive(Clone, Copy, Default)]
struct Entry {
    hands: [u64; 4],
    /// The leader, the makers' team and the trump row; 0 for an empty slot.
    tag: u16,
    lower: u8,
    upper: u8,
}

/// Table slots by default: 2^15 of 40 bytes, about 1.3 MB.
const DEFAULT_TABLE_BITS: u32 = 15;

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a transposition table of the default size.
    pub fn new() -> Solver {
        Solver::with_table_bits(DEFAULT_TABLE_BITS)
    }

    /// A solver with 2^`bits` table slots (none for 0): plain alpha-beta.
    pub fn with_table_bits(bits: u32) -> Solver {
        let table = if bits == 0 { Vec::new() } else { vec![Entry::default(); 1 << bits] };
        Solver { table, nodes: 0 }
    }

    /// Positions searched so far: the work done.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// How `hand` ends with best play from here by both sides, every hand
    /// seen: scored by the hand's own rules. A finished hand's outcome as
    /// it stands; `None` before card play.
    ///
    /// The defenders' tricks all go to the first defending team in the
    /// three-handed games: which of them takes a trick changes no score.
    pub fn outcome(&mut self, hand: &Hand) -> Option<HandOutcome> {
        match hand.phase() {
            Phase::Finished => hand.outcome(),
            Phase::Playing => {
                let play = CardPlay::in_play(hand);
                let maker = hand.maker()?;
                let makers = hand.rules().team_of(maker);
                let mut tricks = play.won;
                let taken = self.makers_tricks(&play, makers);
                tricks[makers] += taken;
                let left = play.tricks_left - taken;
                let defenders = (0..hand.rules().teams()).map(Team).find(|team| *team != makers)?;
                tricks[defenders] += left;
                let mut finished = *hand;
                Some(finished.finish_play(tricks))
            }
            _ => None,
        }
    }

    /// The tricks `makers` take from here on with best play by both sides
    /// (not counting the tricks already won).
    pub fn makers_tricks(&mut self, play: &CardPlay, makers: Team) -> u8 {
        self.search(play, makers.0, 0, play.tricks_left)
    }

    /// The makers' tricks from `play` if within `alpha..beta`; else a bound
    /// on the far side of the window (fail-soft alpha-beta).
    fn search(&mut self, play: &CardPlay, makers: u8, mut alpha: u8, mut beta: u8) -> u8 {
        self.nodes += 1;
        let left = play.tricks_left;
        if left <= 1 {
            return forced_finish(play, makers);
        }
        if alpha >= left {
            return left;
        }
        let slot = (play.led == 0 && !self.table.is_empty()).then(|| self.slot(play, makers));
        if let Some((index, tag)) = slot {
            let entry = self.table[index];
            if entry.tag == tag && entry.hands == play.hands {
                if entry.lower >= beta || entry.lower == entry.upper {
                    return entry.lower;
                }
                if entry.upper <= alpha {
                    return entry.upper;
                }
                alpha = alpha.max(entry.lower);
                beta = beta.min(entry.upper);
            }
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let maximizing = play.team_of[usize::from(play.turn)] == makers;
        let mut best = if maximizing { 0 } else { left };
        let moves = ordered_moves(play, makers);
        for &bit in &moves.bits[..moves.len] {
            let mut next = *play;
            let before = next.won[Team(makers)];
            next.take(bit);
            let gained = next.won[Team(makers)] - before;
            let value = if beta <= gained {
                // The makers already have enough: a lower bound will do.
                gained
            } else {
                gained + self.search(&next, makers, alpha.saturating_sub(gained), beta - gained)
            };
            if maximizing {
                best = best.max(value);
                alpha = alpha.max(best);
            } else {
                best = best.min(value);
                beta = beta.min(best);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some((index, tag)) = slot {
            let entry = &mut self.table[index];
            let (mut lower, mut upper) = (0, left);
            if entry.tag == tag && entry.hands == play.hands {
                (lower, upper) = (entry.lower, entry.upper);
            }
            if best <= alpha_in {
                upper = upper.min(best);
            } else if best >= beta_in {
                lower = lower.max(best);
            } else {
                (lower, upper) = (best, best);
            }
            *entry = Entry { hands: play.hands, tag, lower, upper };
        }
        best
    }

    /// The table slot and tag of a position at the start of a trick.
    fn slot(&self, play: &CardPlay, makers: u8) -> (usize, u16) {
        let mut hash = u64::from(play.leader) | u64::from(makers) << 2 | u64::from(play.row) << 4;
        for hand in play.hands {
            hash = (hash ^ hand).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
        }
        let index = (hash >> 32) as usize & (self.table.len() - 1);
        let tag =
            1 << 15 | u16::from(play.leader) | u16::from(makers) << 2 | u16::from(play.row) << 4;
        (index, tag)
    }
}

/// The rest of a hand where nobody has a choice (one card each at most):
/// the makers' tricks from here.
fn forced_finish(play: &CardPlay, makers: u8) -> u8 {
    let mut play = *play;
    let before = play.won[Team(makers)];
    while play.tricks_left > 0 {
        let legal = play.legal_bits();
        play.take(legal & legal.wrapping_neg());
    }
    play.won[Team(makers)] - before
}

/// The moves worth trying, best guess first.
struct Moves {
    bits: [u64; 16],
    len: usize,
}

/// The legal cards of the seat to play, less those that do exactly what a
/// card of the same hand next above them does, in the order most likely to
/// cut the search short: on lead the strongest first; following, when the
/// seat's side is winning the trick the cheapest first, otherwise the
/// cheapest card that wins the trick, then the cheapest.
fn ordered_moves(play: &CardPlay, makers: u8) -> Moves {
    let legal = play.legal_bits();
    // The cards still to be reckoned with: every hand's and the card
    // winning this trick.
    let present = play.hands.iter().fold(play.best, |all, hand| all | hand);
    let mut distinct = 0;
    let mut rest = legal;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest ^= bit;
        let above = legal & !(bit | (bit - 1));
        let next = above & above.wrapping_neg();
        let same_lane = next != 0 && next.trailing_zeros() / 16 == bit.trailing_zeros() / 16;
        let between = present & next.wrapping_sub(1) & !(bit | (bit - 1));
        if !(same_lane && between == 0) {
            distinct |= bit;
        }
    }
    let mut moves = Moves { bits: [0; 16], len: 0 };
    let mut push = |bits: u64, descending: bool| {
        let mut bits = bits;
        while bits != 0 {
            let bit = if descending {
                1 << (63 - bits.leading_zeros())
            } else {
                bits & bits.wrapping_neg()
            };
            bits ^= bit;
            moves.bits[moves.len] = bit;
            moves.len += 1;
        }
    };
    if play.led == 0 {
        push(distinct, true);
        return moves;
    }
    let side = |seat: u8| play.team_of[usize::from(seat)] == makers;
    let winning = side(play.winner) == side(play.turn);
    let contention = play.led | play.trump;
    let takes = if winning { 0 } else { distinct & contention & !(play.best | (play.best - 1)) };
    push(takes, false);
    push(distinct & !takes, false);
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{Action, Seat};
    use crate::deal::Deal;
    use crate::rules::{Preset, Rules};
    use crate::sim;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    /// Plain minimax over every legal card: the answer by definition.
    fn minimax(play: &CardPlay, makers: u8) -> u8 {
        if play.tricks_left == 0 {
            return 0;
        }
        let maximizing = play.team_of[usize::from(play.turn)] == makers;
        let mut legal = play.legal_bits();
        let mut values = Vec::new();
        while legal != 0 {
            let bit = legal & legal.wrapping_neg();
            legal ^= bit;
            let mut next = *play;
            let before = next.won[Team(makers)];
            next.take(bit);
            values.push(next.won[Team(makers)] - before + minimax(&next, makers));
        }
        let best = if maximizing { values.iter().max() } else { values.iter().min() };
        *best.expect("a legal card")
    }

    fn rule_sets() -> Vec<Rules> {
        let mut sets: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        sets.push(Rules { joker: true, ..Rules::default() });
        sets.push(Rules { allow_no_trump: true, ..Rules::default() });
        sets.push(Rules { defend_alone: true, call_for_best: true, ..Rules::default() });
        sets
    }

    /// Random hands in every form, stopped after a few random cards: the
    /// solver (with and without its table, which is shared across the
    /// positions) agrees with minimax.
    #[test]
    fn agrees_with_minimax_in_every_form() {
        let mut rng = SmallRng::seed_from_u64(31);
        let mut with_table = Solver::new();
        let mut checked = 0;
        for rules in rule_sets() {
            for n in 0..24u32 {
                let dealer = Seat((n % u32::from(rules.players)) as u8);
                let mut hand = Hand::new(rules, Deal::shuffled(&rules, dealer, &mut rng));
                while hand.phase() != Phase::Playing && !hand.is_finished() {
                    let seat = hand.turn().expect("bidding");
                    let mut action = sim::random_action(&hand, &mut rng);
                    if rules.allow_no_trump && n % 2 == 0 {
                        action = match action {
                            Action::OrderUp { .. } => Action::Pass,
                            Action::Call { alone, .. } => Action::CallNoTrump { alone },
                            action => action,
                        };
                    }
                    hand.apply(seat, action).expect("legal");
                }
                for _ in 0..n % 6 {
                    if let Some(card) = sim::random_play(&hand, &mut rng) {
                        hand.play_with(card, &mut crate::action::NoEvents).expect("legal");
                    }
                }
                let Some(play) = CardPlay::new(&hand) else { continue };
                let maker = hand.maker().expect("a maker");
                let makers = rules.team_of(maker);
                let expected = minimax(&play, makers.0);
                assert_eq!(with_table.makers_tricks(&play, makers), expected, "{rules:?}");
                let mut plain = Solver::with_table_bits(0);
                assert_eq!(plain.makers_tricks(&play, makers), expected, "{rules:?}");
                let Some(HandOutcome::Played(outcome)) = with_table.outcome(&hand) else {
                    panic!("a hand in play has an outcome");
                };
                assert_eq!(outcome.tricks[makers], hand.tricks_won()[makers] + expected);
                assert_eq!(outcome.tricks.iter().sum::<u8>(), 5);
                checked += 1;
            }
        }
        assert!(checked > 250, "{checked} positions");
    }

    #[test]
    fn no_outcome_before_card_play() {
        let mut rng = SmallRng::seed_from_u64(32);
        let rules = Rules::default();
        let hand = Hand::new(rules, Deal::shuffled(&rules, Seat(0), &mut rng));
        assert_eq!(Solver::new().outcome(&hand), None);
    }
}
