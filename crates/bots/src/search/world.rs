//! Deals consistent with what one seat knows: the worlds the search bot
//! plays out.
//!
//! From the seat's view alone it gathers the cards it has seen, where some
//! of them must be, and the suits each player has shown void in. A world
//! deals the other cards at random within those facts (a hand's size, its
//! voids, the hidden discards, the kitty and the dummy), works back to the
//! cards as they were dealt, and replays the hand's bids and plays through
//! the engine's own [`Hand`]: a world the rules would not have allowed
//! never comes out of it.

use euchre_engine::trump::{Mode, effective_suit_in, suit_cards_in};
use euchre_engine::{
    Action, Card, CardSet, Deal, GameView, Hand, NoEvents, Phase, Rules, Seat, Suit, Viewer,
};
use rand::{Rng, RngExt};

use crate::basic::{self, PlayFacts, Situation};
use crate::policy::{Policy, Sight};

/// How many times a world is dealt before giving up on it (the constraints
/// are almost always met at the first try).
const ATTEMPTS: u32 = 20;

/// Everything one seat knows about the hand in progress.
#[derive(Clone, Debug)]
pub(super) struct Knowledge {
    rules: Rules,
    me: Seat,
    dealer: Seat,
    up_card: Card,
    /// This hand's bids in order, and its played cards in order.
    bids: Vec<Action>,
    plays: Vec<Card>,
    /// What each seat holds now where it is known (the seat's own hand,
    /// the up-card the dealer picked up, the card passed to a loner).
    known: [CardSet; 4],
    /// How many cards each seat holds now.
    sizes: [u32; 4],
    /// Cards each seat cannot hold: the suits it failed to follow.
    voids: [CardSet; 4],
    played_by: [CardSet; 4],
    /// Cards that may be in another hand or anywhere out of sight.
    unknown: CardSet,
    maker: Option<Seat>,
    /// Whether the dealer took the up-card into his hand.
    picked_up: bool,
    /// The dealer's discard: `None` if he has not discarded, `Some(None)`
    /// if he has and it is hidden.
    discard: Option<Option<Card>>,
    /// The maker's discards after taking the dummy, if he took it.
    dummy_discards: Option<Option<CardSet>>,
    /// Call for best: the card passed and the loner's discard, if it happened.
    passed: Option<Option<Card>>,
    loner_discard: Option<Option<Card>>,
    /// Whether the dummy is still face down (a form with a dummy, not taken).
    dummy_down: bool,
}

impl Knowledge {
    /// What the seat of `view` knows; `None` for a spectator's view.
    pub(super) fn new(view: &GameView) -> Option<Knowledge> {
        let Viewer::Seat(me) = view.viewer else { return None };
        let rules = view.rules;
        let mine: CardSet = view.hand.as_ref()?.iter().copied().collect();
        let mode = Mode::of(view.trump);
        let mut played_by = [CardSet::EMPTY; 4];
        let mut voids = [CardSet::EMPTY; 4];
        let mut plays = Vec::new();
        for trick in &view.tricks {
            let led = trick.cards.first().map(|(_, card)| effective_suit_in(*card, mode));
            for (seat, card) in &trick.cards {
                plays.push(*card);
                played_by[seat.index()].insert(*card);
                if let Some(led) = led
                    && effective_suit_in(*card, mode) != led
                {
                    voids[seat.index()] = voids[seat.index()].union(suit_cards_in(led, mode));
                }
            }
        }
        let played = played_by.iter().fold(CardSet::EMPTY, |all, cards| all.union(*cards));
        let maker = view.maker;
        let loner_partner = maker.filter(|_| view.alone && rules.partnerships()).map(Seat::partner);
        // Call for best: the partner passes, then the loner discards, then
        // the defenders may answer and play begins.
        let best_called = rules.call_for_best && loner_partner.is_some();
        let passed = best_called
            && matches!(view.phase, Phase::LonerDiscard | Phase::DefendingAlone | Phase::Playing);
        let loner_discarded =
            best_called && matches!(view.phase, Phase::DefendingAlone | Phase::Playing);
        // The up-card is in the dealer's hand from the moment he picks it up,
        // which the view tells only once he has discarded.
        let picked_up = view.up_card_picked_up || view.phase == Phase::DealerDiscard;
        let mut known = [CardSet::EMPTY; 4];
        known[me.index()] = mine;
        let mut seen = mine.union(played);
        if picked_up {
            seen.insert(view.up_card);
            // Unless it is somewhere known: played, in this hand, passed for best.
            let elsewhere =
                played.union(mine).contains(view.up_card) || view.passed_card == Some(view.up_card);
            if view.dealer != me && !elsewhere {
                known[view.dealer.index()].insert(view.up_card);
            }
        } else {
            // Turned down, or left in the kitty: out of play, seen by all.
            seen.insert(view.up_card);
        }
        for card in [view.discard, view.passed_card, view.loner_discard].into_iter().flatten() {
            seen.insert(card);
        }
        if let (Some(card), Some(loner)) = (view.passed_card, maker)
            && loner != me
            && !played.union(mine).contains(card)
        {
            known[loner.index()].insert(card);
        }
        let dummy_discards: CardSet =
            view.dummy_discards.iter().flatten().copied().collect::<CardSet>();
        seen = seen.union(dummy_discards);
        let mut sizes = [0; 4];
        for seat in Seat::all(rules.players) {
            sizes[seat.index()] = u32::from(view.hand_sizes[seat.index()]);
        }
        let bids = view.bids.iter().map(|(_, action)| *action).collect();
        Some(Knowledge {
            rules,
            me,
            dealer: view.dealer,
            up_card: view.up_card,
            bids,
            plays,
            known,
            sizes,
            voids,
            played_by,
            unknown: rules.pack().difference(seen),
            maker,
            picked_up,
            discard: view.up_card_picked_up.then_some(view.discard),
            dummy_discards: view
                .dummy_taken
                .then_some(view.dummy_discards.as_ref().map(|_| dummy_discards)),
            passed: passed.then_some(view.passed_card),
            loner_discard: loner_discarded.then_some(view.loner_discard),
            dummy_down: rules.dummy && !view.dummy_taken,
        })
    }

    /// A world: the hand as it stands now, the hidden cards dealt at random
    /// within what the seat knows, and how likely the others' bids and
    /// plays make it (1 when each is what the basic bot would have done
    /// holding those cards, less by `misses` for each that is not). `None`
    /// if no world fits after several tries.
    pub(super) fn sample(&self, rng: &mut impl Rng, misses: &Misses) -> Option<World> {
        (0..ATTEMPTS).find_map(|_| self.try_sample(rng, misses))
    }

    fn try_sample(&self, rng: &mut impl Rng, misses: &Misses) -> Option<World> {
        let players = self.rules.players;
        // The hands now, most constrained first.
        let mut now = self.known;
        let mut rest = self.unknown;
        let mut seats: Vec<Seat> = Seat::all(players).filter(|seat| *seat != self.me).collect();
        seats.sort_by_key(|seat| rest.difference(self.voids[seat.index()]).len());
        for seat in seats {
            let need = self.sizes[seat.index()].checked_sub(now[seat.index()].len())?;
            let allowed = rest.difference(self.voids[seat.index()]);
            let drawn = draw(allowed, need, rng)?;
            now[seat.index()] = now[seat.index()].union(drawn);
            rest = rest.difference(drawn);
        }
        // The hidden cards out of play, from what is left.
        let mut hidden = |known: Option<Card>, rest: &mut CardSet| match known {
            Some(card) => Some(card),
            None => {
                let card = draw(*rest, 1, rng)?.first()?;
                rest.remove(card);
                Some(card)
            }
        };
        let discard = match self.discard {
            Some(known) => Some(hidden(known, &mut rest)?),
            None => None,
        };
        let loner_discard = match self.loner_discard {
            Some(known) => Some(hidden(known, &mut rest)?),
            None => None,
        };
        let dummy_size = self.rules.dummy_size();
        let dummy_discards = match self.dummy_discards {
            Some(Some(known)) => Some(known),
            Some(None) => {
                let cards = draw(rest, dummy_size, rng)?;
                rest = rest.difference(cards);
                Some(cards)
            }
            None => None,
        };
        let mut dummy = if self.dummy_down { draw(rest, dummy_size, rng)? } else { CardSet::EMPTY };
        // Back to the cards as dealt.
        let mut dealt = [CardSet::EMPTY; 4];
        for seat in Seat::all(players) {
            dealt[seat.index()] = now[seat.index()].union(self.played_by[seat.index()]);
        }
        let mut passed = None;
        if let (Some(known), Some(loner)) = (self.passed, self.maker) {
            if let Some(card) = loner_discard {
                dealt[loner.index()].insert(card);
            }
            // The up-card in the loner's hands came from the dealer, his
            // partner, with the pass.
            let passed_up = self.picked_up
                && self.dealer == loner.partner()
                && dealt[loner.index()].contains(self.up_card);
            let card = match known {
                Some(card) => card,
                None if passed_up => self.up_card,
                None => draw(dealt[loner.index()], 1, rng)?.first()?,
            };
            dealt[loner.index()].remove(card);
            dealt[loner.partner().index()].insert(card);
            passed = Some(card);
        }
        if let (Some(discards), Some(maker)) = (dummy_discards, self.maker) {
            let mut held = dealt[maker.index()].union(discards);
            if self.picked_up && maker == self.dealer {
                held.remove(self.up_card);
            }
            dummy = draw(held, dummy_size, rng)?;
            dealt[maker.index()] = dealt[maker.index()].union(discards).difference(dummy);
        }
        if self.picked_up {
            let dealer = &mut dealt[self.dealer.index()];
            if let Some(card) = discard {
                dealer.insert(card);
            }
            if !dealer.contains(self.up_card) {
                return None;
            }
            dealer.remove(self.up_card);
        }
        let deal = Deal::with_dummy(&self.rules, self.dealer, dealt, dummy, self.up_card).ok()?;
        let steps = Steps { discard, dummy_discards, passed, loner_discard };
        let world = self.replay(deal, steps, misses)?;
        let matches = Seat::all(players).all(|seat| world.hand.holding(seat) == now[seat.index()]);
        matches.then_some(world)
    }

    /// Replays this hand on `deal` up to the seat's turn: the bids and plays
    /// seen, the hidden steps from the world. Weighs each bid and each card
    /// of another seat by whether the basic bot would have chosen it.
    fn replay(&self, deal: Deal, steps: Steps, misses: &Misses) -> Option<World> {
        let mut hand = Hand::new(self.rules, deal);
        let (mut bids, mut plays) = (self.bids.iter(), self.plays.iter());
        let mut dummy_discards = steps.dummy_discards.unwrap_or_default().iter();
        let mut weight = 1.0;
        let mut cards = PlaySoFar::default();
        loop {
            let seat = hand.turn()?;
            // The next step seen, or the world's hidden one; none left means
            // this is the seat's decision.
            let action = match hand.phase() {
                Phase::NamingJokerSuit
                | Phase::OrderingUp
                | Phase::Calling
                | Phase::DefendingAlone => bids.next().copied().inspect(|bid| {
                    let miss = misses.bid_by(&self.rules, self.me, seat);
                    if miss < 1.0 && expected_bid(&hand, seat) != Some(*bid) {
                        weight *= miss;
                    }
                }),
                Phase::DealerDiscard => steps.discard.map(|card| Action::Discard { card }),
                Phase::DummyDiscard => dummy_discards.next().map(|card| Action::Discard { card }),
                Phase::PassingBest => steps.passed.map(|card| Action::PassCard { card }),
                Phase::LonerDiscard => steps.loner_discard.map(|card| Action::Discard { card }),
                Phase::Playing => plays.next().map(|card| {
                    let miss = misses.play_by(&self.rules, self.me, seat);
                    if miss < 1.0 && cards.expected(&hand, seat).is_some_and(|basic| basic != *card)
                    {
                        weight *= miss;
                    }
                    cards.record(&hand, seat, *card);
                    Action::Play { card: *card }
                }),
                Phase::Finished => return None,
            };
            let Some(action) = action else { break };
            hand.apply_with(seat, action, &mut NoEvents).ok()?;
        }
        (hand.turn() == Some(self.me) && bids.len() == 0 && plays.len() == 0).then_some(World {
            hand,
            weight,
            cards,
        })
    }
}

/// One world dealt: the hand at the seat's turn, how likely the others'
/// steps make it, and the cards played so far as each seat saw them.
#[derive(Clone, Debug)]
pub(super) struct World {
    pub hand: Hand,
    pub weight: f64,
    pub cards: PlaySoFar,
}

/// How much less likely a world is for each step of another seat in it
/// that the basic bot would not have taken with that world's cards; 1
/// reads nothing into such steps, 0 rules the world out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Misses {
    /// A bid (or a lone defence, or a joker's suit) by an opponent (in the
    /// games without partners, by anybody else).
    pub bid: f64,
    /// A bid by the partner.
    pub partner_bid: f64,
    /// A card played by an opponent (in the games without partners, by
    /// anybody else).
    pub play: f64,
    /// A card played by the partner.
    pub partner_play: f64,
}

impl Misses {
    /// For a bid by `seat`, as seen by `me`.
    fn bid_by(&self, rules: &Rules, me: Seat, seat: Seat) -> f64 {
        by_whom(rules, me, seat, self.partner_bid, self.bid)
    }

    /// For a card played by `seat`, as seen by `me`.
    fn play_by(&self, rules: &Rules, me: Seat, seat: Seat) -> f64 {
        by_whom(rules, me, seat, self.partner_play, self.play)
    }
}

/// A step by `seat`, seen by `me`: nothing read into one's own, `partner`
/// for the partner's, `opponent` for anybody else's.
fn by_whom(rules: &Rules, me: Seat, seat: Seat, partner: f64, opponent: f64) -> f64 {
    if seat == me {
        1.0
    } else if rules.partnerships() && seat == me.partner() {
        partner
    } else {
        opponent
    }
}

/// The cards of one world's hand played so far, as the replay goes: what
/// every seat has seen, for asking what the basic bot would have played.
#[derive(Clone, Debug, Default)]
pub(super) struct PlaySoFar {
    /// Each seat's cards played, by seat index.
    played_by: [CardSet; 4],
    voids: [[bool; 4]; 4],
    trick: Vec<(Seat, Card)>,
}

impl PlaySoFar {
    /// Every card played so far.
    fn played(&self) -> CardSet {
        self.played_by.iter().fold(CardSet::EMPTY, |all, cards| all.union(*cards))
    }

    /// The card the basic bot would play for `seat` (to play now in
    /// `hand`); `None` when the seat has no choice.
    fn expected(&mut self, hand: &Hand, seat: Seat) -> Option<Card> {
        if hand.legal_plays().len() <= 1 {
            return None;
        }
        self.basic_card(hand, seat)
    }

    /// The card the basic bot plays for `seat`, to play now in `hand`.
    pub(super) fn basic_card(&mut self, hand: &Hand, seat: Seat) -> Option<Card> {
        let playable = hand.legal_plays();
        if hand.trick().is_empty() {
            self.trick.clear();
        }
        let mut unseen =
            hand.rules().pack().difference(self.played()).difference(hand.holding(seat));
        if hand.up_card_picked_up() {
            if seat == hand.dealer()
                && let Some(card) = hand.discard()
            {
                unseen.remove(card);
            }
        } else {
            unseen.remove(hand.up_card());
        }
        let facts = PlayFacts {
            rules: *hand.rules(),
            trump: hand.trump(),
            maker: hand.maker()?,
            sitting_out: hand.sitting_out(),
            unseen,
            voids: self.voids,
            trick: &self.trick,
        };
        basic::play_card(&facts, seat, playable)
    }

    /// `hand` (in card play) with the cards `seat` cannot see dealt again
    /// at random, within what it knows: its own cards, the cards played, the
    /// suits each seat has shown void in, the up-card in the dealer's hand
    /// (and, for the dealer, his discard out of play). A world of the
    /// seat's own, for a search from its sight inside another world.
    /// `None` if the deal fails.
    pub(super) fn redeal(&self, hand: &Hand, seat: Seat, rng: &mut impl Rng) -> Option<Hand> {
        let rules = hand.rules();
        let mode = Mode::of(hand.trump());
        let mut holdings = [CardSet::EMPTY; 4];
        holdings[seat.index()] = hand.holding(seat);
        let mut unknown = rules.pack().difference(self.played()).difference(hand.holding(seat));
        let dealer = hand.dealer();
        if hand.up_card_picked_up() {
            if seat == dealer
                && let Some(card) = hand.discard()
            {
                unknown.remove(card);
            }
            if seat != dealer && hand.holding(dealer).contains(hand.up_card()) {
                holdings[dealer.index()].insert(hand.up_card());
                unknown.remove(hand.up_card());
            }
        } else {
            unknown.remove(hand.up_card());
        }
        // The cards each seat cannot hold: the suits it has shown void in.
        let void_cards = self.voids.map(|suits| {
            Suit::ALL
                .iter()
                .filter(|suit| suits[suit.index()])
                .fold(CardSet::EMPTY, |all, suit| all.union(suit_cards_in(*suit, mode)))
        });
        let mut others: Vec<Seat> =
            Seat::all(rules.players).filter(|other| *other != seat).collect();
        others.sort_by_key(|other| unknown.difference(void_cards[other.index()]).len());
        for other in others {
            let need = hand.holding(other).len().checked_sub(holdings[other.index()].len())?;
            let drawn = draw(unknown.difference(void_cards[other.index()]), need, rng)?;
            holdings[other.index()] = holdings[other.index()].union(drawn);
            unknown = unknown.difference(drawn);
        }
        hand.with_holdings(holdings)
    }

    /// Notes `card` played by `seat` (to play now in `hand`).
    pub(super) fn record(&mut self, hand: &Hand, seat: Seat, card: Card) {
        if hand.trick().is_empty() {
            self.trick.clear();
        }
        let mode = Mode::of(hand.trump());
        if let Some(&(_, first)) = self.trick.first() {
            let led = effective_suit_in(first, mode);
            if effective_suit_in(card, mode) != led {
                self.voids[seat.index()][led.index()] = true;
            }
        }
        self.played_by[seat.index()].insert(card);
        self.trick.push((seat, card));
    }

    /// The card the learned `policy` plays for `seat` (to play now in
    /// `hand`), from the seat's own sight; `None` where the policy does not
    /// cover the hand. `on` is room for the features.
    pub(super) fn net_card(
        &self,
        hand: &Hand,
        seat: Seat,
        policy: &Policy,
        on: &mut Vec<u16>,
    ) -> Option<Card> {
        let sight = Sight::of_hand(hand, seat, self.played_by, self.voids, &self.trick)?;
        policy.choose(&sight, hand.legal_plays(), on)
    }
}

/// The worlds one seat's view allows, dealt as the search bots deal them
/// (the others' bids read as [`crate::SearchSettings::bid_miss`] says),
/// for a caller that values the actions its own way: the analysis of a
/// finished game asks what each choice was worth with what the seat knew.
#[derive(Clone, Debug)]
pub struct ViewWorlds {
    knowledge: Knowledge,
    misses: Misses,
}

impl ViewWorlds {
    /// The worlds of `view`, a seat's (`None` for a spectator's). Each bid
    /// of another seat that the basic bot would not have made with a
    /// world's cards makes that world `bid_miss` times as likely (1 reads
    /// nothing into the bidding); the cards played are not read.
    pub fn new(view: &GameView, bid_miss: f64) -> Option<ViewWorlds> {
        let misses = Misses { bid: bid_miss, partner_bid: bid_miss, play: 1.0, partner_play: 1.0 };
        Some(ViewWorlds { knowledge: Knowledge::new(view)?, misses })
    }

    /// One world: the hand as it stands at the seat's decision, every card
    /// the seat cannot see dealt at random within what it knows, and the
    /// world's weight (1, less for each bid unlike the basic bot's). `None`
    /// if no world fits after several tries.
    pub fn sample(&self, rng: &mut impl Rng) -> Option<(Hand, f64)> {
        self.knowledge.sample(rng, &self.misses).map(|world| (world.hand, world.weight))
    }
}

/// The hidden steps of one world: discards and the card passed for best.
#[derive(Clone, Copy)]
struct Steps {
    discard: Option<Card>,
    dummy_discards: Option<CardSet>,
    passed: Option<Card>,
    loner_discard: Option<Card>,
}

/// What the basic bot would do for `seat` in `hand` before card play: the
/// others' model in every world.
pub(super) fn expected_bid(hand: &Hand, seat: Seat) -> Option<Action> {
    let situation = Situation {
        rules: *hand.rules(),
        phase: hand.phase(),
        dealer: hand.dealer(),
        up_card: hand.up_card(),
        turned_down: hand.turned_down(),
        trump: hand.trump(),
        made: hand.maker().is_some(),
    };
    let legal = hand.legal_actions(seat);
    let wish = basic::before_play(&situation, seat, hand.holding(seat), &legal);
    crate::legal_or_first(wish, &legal)
}

/// `count` cards of `cards` at random (`None` if there are too few).
fn draw(mut cards: CardSet, count: u32, rng: &mut impl Rng) -> Option<CardSet> {
    if cards.len() < count {
        return None;
    }
    let mut drawn = CardSet::EMPTY;
    for _ in 0..count {
        let card = cards.nth(rng.random_range(0..cards.len()))?;
        cards.remove(card);
        drawn.insert(card);
    }
    Some(drawn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_engine::{Game, Preset};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn rule_sets() -> Vec<Rules> {
        let mut sets: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        let base = Rules::default();
        sets.push(Rules { joker: true, ..base });
        sets.push(Rules { allow_no_trump: true, ..base });
        sets.push(Rules { dealer_picks_up_for_partner_loner: false, ..base });
        sets.push(Rules { defend_alone: true, call_for_best: true, canadian_loner: true, ..base });
        sets
    }

    /// At every decision of random games in every form (the bids made by
    /// the basic bot, so that loners, dummies and passed cards happen), a
    /// world is dealt at once, and it agrees with the real hand on all the
    /// seat can see: the phase, whose turn, the seat's cards, how many each
    /// holds, the tricks won, and the legal actions.
    #[test]
    fn every_decision_gets_a_world_that_fits_the_view() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let misses = Misses { bid: 0.5, partner_bid: 0.5, play: 0.5, partner_play: 0.5 };
        let (mut decisions, mut weighed) = (0, 0);
        for rules in rule_sets() {
            for seed in 0..12 {
                let mut game = Game::new(rules, seed).expect("valid rules");
                let mut basic = BasicBotPolicy;
                for _ in 0..400 {
                    let Some(seat) = game.turn() else { break };
                    let view = game.view(Viewer::Seat(seat));
                    let knowledge = Knowledge::new(&view).expect("a seat's view");
                    let World { hand: world, weight, .. } = knowledge
                        .try_sample(&mut rng, &misses)
                        .or_else(|| knowledge.sample(&mut rng, &misses))
                        .unwrap_or_else(|| panic!("no world for {view:?}"));
                    let real = game.hand();
                    assert_eq!(world.phase(), real.phase());
                    assert_eq!(world.turn(), real.turn());
                    assert_eq!(world.holding(seat), real.holding(seat));
                    for other in Seat::all(rules.players) {
                        assert_eq!(world.holding(other).len(), real.holding(other).len());
                    }
                    assert_eq!(world.tricks_won(), real.tricks_won());
                    assert_eq!(world.legal_actions(seat), real.legal_actions(seat));
                    weighed += usize::from(weight < 1.0);
                    decisions += 1;
                    let action = basic.choose(&game, seat);
                    game.apply(seat, action).expect("legal");
                }
            }
        }
        assert!(decisions > 10_000, "{decisions} decisions");
        assert!(weighed > 0, "some bids are unlike the basic bot's in some world");
    }

    /// Games in every form, played by the basic bot: `check` is shown each
    /// card before it is played, with the rules, the game's seed, the game,
    /// the cards played so far as a world's replay keeps them, and the seat.
    fn each_play(mut check: impl FnMut(Rules, u64, &Game, &mut PlaySoFar, Seat, Card)) {
        for rules in rule_sets() {
            for seed in 0..12 {
                let mut game = Game::new(rules, seed).expect("valid rules");
                let mut so_far = PlaySoFar::default();
                let mut hand_number = game.view(Viewer::Spectator).hand_number;
                for _ in 0..400 {
                    let Some(seat) = game.turn() else { break };
                    let number = game.view(Viewer::Spectator).hand_number;
                    if number != hand_number {
                        (so_far, hand_number) = (PlaySoFar::default(), number);
                    }
                    let action = BasicBotPolicy.choose(&game, seat);
                    if let Action::Play { card } = action {
                        check(rules, seed, &game, &mut so_far, seat, card);
                        so_far.record(game.hand(), seat, card);
                    }
                    game.apply(seat, action).expect("legal");
                }
            }
        }
    }

    /// The basic bot's card as the replay of a world asks for it (from the
    /// hand and the cards played, not from a view) is the card the basic
    /// bot chooses from the seat's own view, at every play with a choice in
    /// every form: the model the worlds are weighed by is the real bot.
    #[test]
    fn the_replayed_basic_card_is_the_basic_bots_choice() {
        let mut checked = 0;
        each_play(|rules, seed, game, so_far, seat, card| {
            let hand = game.hand();
            if let Some(expected) = so_far.expected(hand, seat) {
                assert_eq!(expected, card, "{rules:?} seed {seed}: {hand:?}");
                checked += 1;
            }
        });
        assert!(checked > 2_000, "{checked} plays");
    }

    /// A world of one seat's own sight dealt inside another ([`PlaySoFar::redeal`])
    /// keeps everything the seat can see, at every play in every form: its
    /// own cards, how many each seat holds, whose turn and the legal plays,
    /// the up-card with the dealer who took it; and it deals no card played,
    /// nor any card of a suit a seat has shown void in.
    #[test]
    fn a_redeal_keeps_what_the_seat_sees() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut checked, mut moved) = (0, 0);
        each_play(|rules, _, game, so_far, seat, _| {
            let real = game.hand();
            let world = so_far.redeal(real, seat, &mut rng).expect("a world");
            let mode = Mode::of(real.trump());
            assert_eq!(world.holding(seat), real.holding(seat));
            assert_eq!(world.turn(), real.turn());
            assert_eq!(world.legal_plays(), real.legal_plays());
            let dealer = real.dealer();
            if dealer != seat && real.holding(dealer).contains(real.up_card()) {
                assert!(world.holding(dealer).contains(real.up_card()));
            }
            for other in Seat::all(rules.players) {
                let held = world.holding(other);
                assert_eq!(held.len(), real.holding(other).len());
                assert!(held.intersection(so_far.played()).is_empty());
                for suit in Suit::ALL {
                    if so_far.voids[other.index()][suit.index()] {
                        assert!(held.intersection(suit_cards_in(suit, mode)).is_empty());
                    }
                }
                moved += usize::from(held != real.holding(other));
            }
            checked += 1;
        });
        assert!(checked > 2_000, "{checked} plays");
        assert!(moved > 1_000, "the hidden cards move");
    }

    /// The learned policy's features ([`Sight`]) are the same from the
    /// seat's view, from the real hand with the cards played as a world's
    /// replay keeps them, and from a world of the seat's own sight with the
    /// others' hidden cards dealt again: they use only what the seat sees.
    /// Every play with a choice in every form; covered only where the
    /// policy says it covers.
    #[test]
    fn the_policy_sees_only_what_the_seat_sees() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut checked, mut uncovered) = (0, 0);
        let (mut from_view, mut from_hand, mut from_world) = (Vec::new(), Vec::new(), Vec::new());
        each_play(|rules, seed, game, so_far, seat, _| {
            let real = game.hand();
            let view = game.view(Viewer::Seat(seat));
            let on_view = Sight::of_view(&view);
            let on_hand = Sight::of_hand(real, seat, so_far.played_by, so_far.voids, &so_far.trick);
            assert_eq!(on_view.is_some(), crate::policy::covers(&rules, real.trump()));
            assert_eq!(on_view.is_some(), on_hand.is_some());
            let (Some(on_view), Some(on_hand)) = (on_view, on_hand) else {
                uncovered += 1;
                return;
            };
            let world = so_far.redeal(real, seat, &mut rng).expect("a world");
            let on_world =
                Sight::of_hand(&world, seat, so_far.played_by, so_far.voids, &so_far.trick)
                    .expect("covered");
            on_view.features(&mut from_view);
            on_hand.features(&mut from_hand);
            on_world.features(&mut from_world);
            for features in [&mut from_view, &mut from_hand, &mut from_world] {
                features.sort_unstable();
            }
            assert_eq!(from_view, from_hand, "{rules:?} seed {seed}");
            assert_eq!(from_view, from_world, "{rules:?} seed {seed}");
            assert!(from_view.iter().all(|i| usize::from(*i) < crate::policy::INPUTS));
            checked += 1;
        });
        assert!(checked > 2_000, "{checked} plays");
        assert!(uncovered > 500, "{uncovered} plays the policy does not cover");
    }

    /// The basic bot's bid as the replay of a world asks for it (from the
    /// hand alone) is the bid the basic bot makes from the seat's own view,
    /// at every bid in every form: the model the others' bids are read by
    /// is the real bot.
    #[test]
    fn the_replayed_basic_bid_is_the_basic_bots_choice() {
        let mut checked = 0;
        for rules in rule_sets() {
            for seed in 0..12 {
                let mut game = Game::new(rules, seed).expect("valid rules");
                let mut basic = BasicBotPolicy;
                for _ in 0..400 {
                    let Some(seat) = game.turn() else { break };
                    let action = basic.choose(&game, seat);
                    let hand = game.hand();
                    if matches!(
                        hand.phase(),
                        Phase::NamingJokerSuit
                            | Phase::OrderingUp
                            | Phase::Calling
                            | Phase::DefendingAlone
                    ) {
                        assert_eq!(expected_bid(hand, seat), Some(action), "{rules:?} seed {seed}");
                        checked += 1;
                    }
                    game.apply(seat, action).expect("legal");
                }
            }
        }
        assert!(checked > 2_000, "{checked} bids");
    }

    /// The basic bot's choices, to drive the games above.
    struct BasicBotPolicy;

    impl BasicBotPolicy {
        fn choose(&mut self, game: &Game, seat: Seat) -> Action {
            use crate::Bot;
            let legal = game.legal_actions(seat);
            crate::BasicBot::new().choose(&game.view(Viewer::Seat(seat)), &legal).expect("a choice")
        }
    }
}
