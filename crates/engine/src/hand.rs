//! One hand, from the deal to the last trick: bidding, the dealer's discard,
//! play, and its score.
//!
//! `Hand` is small and `Copy`, all bit sets and bytes. The full API
//! ([`Hand::apply`]) and the simulation path ([`Hand::apply_with`] with
//! [`NoEvents`], [`Hand::legal_plays`]) run the same code, so they cannot
//! disagree about the rules.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::action::{
    Action, Event, EventSink, HandOutcome, NoEvents, PerTeam, PlayedHand, Seat, Team, ThrowIn,
};
use crate::card::{Card, CardSet, Suit};
use crate::deal::Deal;
use crate::error::RuleError;
use crate::rules::{AllPass, LonerLead, Rules, TurnedDownSuit};
use crate::trump::{self, Mode};

/// Where a hand stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Phase {
    /// The joker was turned up: the dealer names the suit it stands for,
    /// then round one goes on for that suit.
    NamingJokerSuit,
    /// Round one: order up the up-card's suit, or pass.
    OrderingUp,
    /// The dealer has picked up the up-card and must discard.
    DealerDiscard,
    /// The maker has taken the dummy hand and discards as many cards, one
    /// at a time (the two- and three-handed games with a dummy).
    DummyDiscard,
    /// Round two: name another suit, or pass.
    Calling,
    /// A maker went alone and the rules let a defender play alone against
    /// him: each defender in turn from the loner's left defends alone or passes.
    DefendingAlone,
    /// Call for best: the loner's partner passes him a card.
    PassingBest,
    /// Call for best: the loner, holding six cards, discards one.
    LonerDiscard,
    /// Tricks are being played.
    Playing,
    /// The hand is over.
    Finished,
}

impl Phase {
    fn describe(self) -> &'static str {
        match self {
            Phase::NamingJokerSuit => "the dealer is naming the joker's suit",
            Phase::OrderingUp => "bidding is in round one",
            Phase::DealerDiscard => "the dealer is discarding",
            Phase::DummyDiscard => "the maker is discarding for the dummy",
            Phase::Calling => "bidding is in round two",
            Phase::DefendingAlone => "the defenders are deciding whether to defend alone",
            Phase::PassingBest => "the loner's partner is passing him a card",
            Phase::LonerDiscard => "the loner is discarding",
            Phase::Playing => "cards are being played",
            Phase::Finished => "the hand is over",
        }
    }
}

/// The trick in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trick {
    pub leader: Seat,
    /// Cards in playing order, starting with the leader's.
    cards: [Card; 4],
    /// Who played each card: the winner is found without walking the table.
    seats: [Seat; 4],
    len: u8,
    /// The suit led (the left bower leads trump), noted at the lead so that
    /// finding the legal cards is one lookup.
    led: Option<Suit>,
}

impl Trick {
    fn new(leader: Seat) -> Trick {
        Trick { leader, cards: [Card::from_index(0); 4], seats: [leader; 4], len: 0, led: None }
    }

    pub fn cards(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A list of actions held inline, so the simulation path never allocates.
/// Round two offers the most: a pass, three suits and no trump, each alone
/// or not. It derefs to a slice: index it, iterate it, or `to_vec()` it.
#[derive(Clone, Copy)]
pub struct ActionList {
    actions: [Action; 16],
    len: u8,
}

impl ActionList {
    fn new() -> ActionList {
        // A filler with every byte defined (a pass leaves one undefined),
        // so the array is cleared in two wide stores, not sixteen narrow ones.
        ActionList { actions: [Action::Play { card: Card::from_index(0) }; 16], len: 0 }
    }

    fn push(&mut self, action: Action) {
        self.actions[usize::from(self.len)] = action;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[Action] {
        &self.actions[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for ActionList {
    fn default() -> ActionList {
        ActionList::new()
    }
}

impl std::ops::Deref for ActionList {
    type Target = [Action];
    fn deref(&self) -> &[Action] {
        self.as_slice()
    }
}

impl PartialEq for ActionList {
    fn eq(&self, other: &ActionList) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for ActionList {}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a ActionList {
    type Item = &'a Action;
    type IntoIter = std::slice::Iter<'a, Action>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl IntoIterator for ActionList {
    type Item = Action;
    type IntoIter = std::iter::Take<std::array::IntoIter<Action, 16>>;
    fn into_iter(self) -> Self::IntoIter {
        self.actions.into_iter().take(self.len())
    }
}

/// The state of one hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hand {
    rules: Rules,
    deal: Deal,
    /// The up-card's suit: its printed suit, or the one the dealer named
    /// for a turned-up joker.
    up_suit: Suit,
    /// What each seat holds now.
    holding: [CardSet; 4],
    phase: Phase,
    /// The seat to act (meaningless once finished).
    turn: Seat,
    trump: Option<Suit>,
    maker: Option<Seat>,
    alone: bool,
    sitting_out: Option<Seat>,
    /// The defender playing alone against the loner, if any.
    lone_defender: Option<Seat>,
    /// Bit `i` set: seat `i` sits this hand out (the loner's partner and a
    /// lone defender's partner).
    out: u8,
    discard: Option<Card>,
    /// Call for best: the card the loner's partner passed him (their secret).
    passed: Option<Card>,
    /// Call for best: the loner's discard (his secret).
    loner_discard: Option<Card>,
    /// The maker's discards after taking the dummy (his secret).
    dummy_discards: CardSet,
    /// Every card played to a trick so far.
    played: CardSet,
    trick: Trick,
    /// Tricks completed so far.
    tricks_played: u8,
    /// Tricks won by each team.
    tricks_won: PerTeam<u8>,
    outcome: Option<HandOutcome>,
}

impl Hand {
    /// Starts a hand from a deal the caller has checked (see [`Deal::validate`]).
    pub fn new(rules: Rules, deal: Deal) -> Hand {
        let first = deal.dealer.next(rules.players);
        let joker_up = deal.up_card.is_joker();
        Hand {
            rules,
            deal,
            up_suit: deal.up_card.suit(),
            holding: deal.hands,
            phase: if joker_up { Phase::NamingJokerSuit } else { Phase::OrderingUp },
            turn: if joker_up { deal.dealer } else { first },
            trump: None,
            maker: None,
            alone: false,
            sitting_out: None,
            lone_defender: None,
            out: 0,
            discard: None,
            passed: None,
            loner_discard: None,
            dummy_discards: CardSet::EMPTY,
            played: CardSet::EMPTY,
            trick: Trick::new(first),
            tricks_played: 0,
            tricks_won: PerTeam::new(rules.teams()),
            outcome: None,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn deal(&self) -> &Deal {
        &self.deal
    }
    pub fn dealer(&self) -> Seat {
        self.deal.dealer
    }
    pub fn up_card(&self) -> Card {
        self.deal.up_card
    }
    /// The suit round one is about: the up-card's, or the one named for a
    /// turned-up joker (`None` until named).
    pub fn up_suit(&self) -> Option<Suit> {
        (self.phase != Phase::NamingJokerSuit).then_some(self.up_suit)
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn trump(&self) -> Option<Suit> {
        self.trump
    }
    pub fn maker(&self) -> Option<Seat> {
        self.maker
    }
    pub fn alone(&self) -> bool {
        self.alone
    }
    /// The loner's partner, who sits this hand out.
    pub fn sitting_out(&self) -> Option<Seat> {
        self.sitting_out
    }
    /// The defender playing alone against the loner (his partner sits out too).
    pub fn lone_defender(&self) -> Option<Seat> {
        self.lone_defender
    }
    /// Whether `seat` sits this hand out: the loner's partner, or a lone
    /// defender's partner.
    pub fn sits_out(&self, seat: Seat) -> bool {
        seat.0 < 8 && self.out & (1 << seat.0) != 0
    }
    /// The seats that take part in play, as bits (bit `i` for seat `i`):
    /// the table's seats less those that sit out.
    pub(crate) fn seats_in_play(&self) -> u8 {
        ((1 << self.rules.players) - 1) & !self.out
    }
    /// For each seat, the next one clockwise that takes part in play.
    pub(crate) fn next_in_play(&self) -> [u8; 4] {
        NEXT_IN_PLAY[usize::from(self.seats_in_play())]
    }
    /// The dealer's discard: the dealer's secret.
    pub fn discard(&self) -> Option<Card> {
        self.discard
    }
    /// Call for best: the card passed to the loner (known to him and his partner).
    pub fn passed_card(&self) -> Option<Card> {
        self.passed
    }
    /// Call for best: the loner's discard (known to him alone).
    pub fn loner_discard(&self) -> Option<Card> {
        self.loner_discard
    }
    /// The maker's discards after taking the dummy (known to him alone).
    pub fn dummy_discards(&self) -> CardSet {
        self.dummy_discards
    }
    /// Whether the maker took the dummy hand.
    pub fn dummy_taken(&self) -> bool {
        self.phase == Phase::DummyDiscard || !self.dummy_discards.is_empty()
    }
    pub fn holding(&self, seat: Seat) -> CardSet {
        self.holding[seat.index()]
    }

    /// This hand in card play with the cards in hand dealt otherwise, for a
    /// search that imagines the hidden cards elsewhere (the deal it reports
    /// stays the one dealt). `None` unless it is in card play, each seat
    /// holds as many cards as now, no card is held twice, and none has been
    /// played.
    pub fn with_holdings(&self, holdings: [CardSet; 4]) -> Option<Hand> {
        let mut seen = self.played;
        for (now, new) in self.holding.iter().zip(holdings) {
            if now.len() != new.len() || !seen.intersection(new).is_empty() {
                return None;
            }
            seen = seen.union(new);
        }
        (self.phase == Phase::Playing).then_some(Hand { holding: holdings, ..*self })
    }
    pub fn trick(&self) -> &Trick {
        &self.trick
    }
    pub fn tricks_played(&self) -> u8 {
        self.tricks_played
    }
    pub fn tricks_won(&self) -> PerTeam<u8> {
        self.tricks_won
    }
    pub fn outcome(&self) -> Option<HandOutcome> {
        self.outcome
    }
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The seat to act, or `None` once the hand is over.
    pub fn turn(&self) -> Option<Seat> {
        (self.phase != Phase::Finished).then_some(self.turn)
    }

    /// Whether the up-card went into the dealer's hand.
    pub fn up_card_picked_up(&self) -> bool {
        self.discard.is_some()
    }

    /// The turned-down suit in round two, once round one has passed by.
    pub fn turned_down(&self) -> Option<Suit> {
        match self.phase {
            Phase::Calling => Some(self.up_suit),
            Phase::Playing | Phase::Finished
                if self.maker.is_some() && self.trump != Some(self.up_suit) =>
            {
                Some(self.up_suit)
            }
            _ => None,
        }
    }

    /// Plays `action` for `seat`, returning what happened. On error nothing changes.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::with_capacity(4);
        self.apply_with(seat, action, &mut events)?;
        Ok(events)
    }

    /// [`Hand::apply`] with the events sent to `sink`: pass [`NoEvents`] for
    /// the simulation path.
    pub fn apply_with(
        &mut self,
        seat: Seat,
        action: Action,
        sink: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        if let Some(card) = self.legal_play(seat, action) {
            self.play_card(seat, card, sink);
            return Ok(());
        }
        self.check(seat, action)?;
        self.perform(seat, action, sink);
        Ok(())
    }

    /// [`Hand::apply_with`] for the seat to act, outside card play, without
    /// events: the simulation's bids and discards. Of [`Hand::check`] only
    /// the part about the action itself is asked; the rest (a real seat, in
    /// turn, a hand not over, no concession) holds by the caller's word.
    #[inline]
    pub(crate) fn bid(&mut self, action: Action) -> Result<(), RuleError> {
        let seat = self.turn;
        debug_assert!(self.phase != Phase::Playing && self.phase != Phase::Finished);
        debug_assert!(!matches!(action, Action::Concede | Action::Play { .. }));
        debug_assert_eq!(self.check_in_turn(seat, action), self.check(seat, action));
        self.check_in_turn(seat, action)?;
        self.perform(seat, action, &mut NoEvents);
        Ok(())
    }

    /// The card of `action` if it is a legal play by `seat`: the common
    /// case, decided by the [`Hand::legal_plays`] mask alone (the seat to
    /// play is a real seat that does not sit out). `None` says nothing:
    /// [`Hand::check`] asks the full question, and finds the error.
    #[inline]
    fn legal_play(&self, seat: Seat, action: Action) -> Option<Card> {
        match action {
            Action::Play { card } if seat == self.turn && self.legal_plays().contains(card) => {
                Some(card)
            }
            _ => None,
        }
    }

    /// Plays `card` for the seat to play: `apply_with(turn, Action::Play {
    /// card }, sink)`, whose first question (the legal-card mask) decides a
    /// legal card.
    #[inline]
    pub fn play_with(&mut self, card: Card, sink: &mut impl EventSink) -> Result<(), RuleError> {
        self.apply_with(self.turn, Action::Play { card }, sink)
    }

    /// Plays `card` for the seat to play although it does not follow suit:
    /// for a referee replaying a record, who reports the renege and reads on.
    /// Anything else wrong with the play (not his turn, not his card, not
    /// card play) is still refused. Live play never calls this.
    #[cfg(feature = "egn")]
    pub(crate) fn play_renege(&mut self, seat: Seat, card: Card) -> Result<(), RuleError> {
        if self.phase != Phase::Playing || seat != self.turn || self.sits_out(seat) {
            return self.check(seat, Action::Play { card });
        }
        if !self.holding(seat).contains(card) {
            return Err(RuleError::CardNotInHand { card });
        }
        self.play_card(seat, card, &mut NoEvents);
        Ok(())
    }

    /// Whether `seat` may take `action` now, and if not, why.
    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        if seat.0 >= self.rules.players {
            return Err(RuleError::NoSuchSeat { seat });
        }
        if self.phase == Phase::Finished {
            return Err(self.not_now(action));
        }
        if self.phase == Phase::Playing && self.sits_out(seat) {
            return Err(RuleError::SittingOut);
        }
        // Conceding is the one action a player may take out of turn.
        if matches!(action, Action::Concede) {
            return if self.phase != Phase::Playing {
                Err(self.not_now(action))
            } else if !self.may_concede(seat) {
                // A defender would be giving away his fellow defender's tricks.
                Err(RuleError::OnlyMakerConcedes)
            } else {
                Ok(())
            };
        }
        if seat != self.turn {
            return Err(RuleError::NotYourTurn { turn: self.turn });
        }
        self.check_in_turn(seat, action)
    }

    /// The rest of [`Hand::check`] once `seat` is known to be the seat to
    /// act, a real one, in a hand not over, and the action not a concession:
    /// what the action itself must satisfy in this phase. Inlined, so that
    /// each of `legal_actions`' questions, its action known, folds down to
    /// the lines that concern it.
    #[inline(always)]
    fn check_in_turn(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        match (self.phase, action) {
            (Phase::OrderingUp, Action::OrderUp { alone: true })
            | (Phase::Calling, Action::Call { alone: true, .. })
            | (Phase::Calling, Action::CallNoTrump { alone: true })
                if !self.rules.may_go_alone() =>
            {
                Err(RuleError::NoGoingAlone)
            }
            (Phase::OrderingUp, Action::OrderUp { alone: false })
                if self.rules.canadian_loner
                    && self.rules.partnerships()
                    && seat == self.deal.dealer.partner() =>
            {
                Err(RuleError::MustGoAlone)
            }
            (Phase::OrderingUp, Action::Pass | Action::OrderUp { .. })
            | (Phase::NamingJokerSuit, Action::NameSuit { .. }) => Ok(()),
            (Phase::DefendingAlone, Action::Pass | Action::DefendAlone) => Ok(()),
            (Phase::PassingBest, Action::PassCard { card })
            | (Phase::LonerDiscard | Phase::DummyDiscard, Action::Discard { card }) => {
                if self.holding(seat).contains(card) {
                    Ok(())
                } else {
                    Err(RuleError::CardNotInHand { card })
                }
            }
            (Phase::OrderingUp, Action::FarmersHand) => {
                if !self.rules.farmers_hand {
                    Err(RuleError::FarmersHandOff)
                } else if self.holding(seat).difference(self.rules.deck.farmers_cards()).is_empty()
                {
                    Ok(())
                } else {
                    Err(RuleError::NotFarmersHand)
                }
            }
            (Phase::Calling, Action::Pass) => {
                if self.dealer_is_stuck(seat) {
                    Err(RuleError::DealerMustCall)
                } else {
                    Ok(())
                }
            }
            (Phase::Calling, Action::CallNoTrump { .. }) => {
                if self.rules.allow_no_trump {
                    Ok(())
                } else {
                    Err(RuleError::NoTrumpOff)
                }
            }
            (Phase::Calling, Action::Call { suit, .. }) => {
                let turned_down = self.up_suit;
                let counts_as_pass = self.rules.turned_down_suit == TurnedDownSuit::CountsAsPass;
                if suit == turned_down && (!counts_as_pass || self.dealer_is_stuck(seat)) {
                    Err(RuleError::SuitTurnedDown { suit })
                } else {
                    Ok(())
                }
            }
            (Phase::DealerDiscard, Action::Discard { card }) => {
                if !self.holding(seat).contains(card) {
                    Err(RuleError::CardNotInHand { card })
                } else if card == self.deal.up_card && !self.rules.dealer_may_discard_up_card {
                    Err(RuleError::CannotDiscardUpCard { card })
                } else {
                    Ok(())
                }
            }
            (Phase::Playing, Action::Play { card }) => {
                // The seat is the one to play, so the mask (a subset of his
                // hand) decides; a refusal then finds its reason.
                if self.legal_plays().contains(card) {
                    Ok(())
                } else if !self.holding(seat).contains(card) {
                    Err(RuleError::CardNotInHand { card })
                } else {
                    let led = self.led_suit().unwrap_or(card.suit());
                    Err(RuleError::MustFollowSuit { led })
                }
            }
            (Phase::Playing, Action::Claim) => {
                if !self.trick.is_empty() {
                    Err(RuleError::ClaimNotOnLead)
                } else if self.claim_is_certain(seat) {
                    Ok(())
                } else {
                    Err(RuleError::ClaimNotCertain)
                }
            }
            _ => Err(self.not_now(action)),
        }
    }

    fn not_now(&self, action: Action) -> RuleError {
        RuleError::NotNow { action: action.name(), phase: self.phase.describe() }
    }

    fn is_maker_team(&self, seat: Seat) -> bool {
        self.maker.is_some_and(|maker| self.rules.team_of(maker) == self.rules.team_of(seat))
    }

    fn dealer_is_stuck(&self, seat: Seat) -> bool {
        self.rules.all_pass == AllPass::StickTheDealer && seat == self.deal.dealer
    }

    /// Every action `seat` may take now: exactly what [`Hand::apply`] accepts.
    #[inline]
    pub fn legal_actions(&self, seat: Seat) -> ActionList {
        // Most calls are for the seat to play a card: answered here, inline,
        // and everything else out of line.
        if self.phase == Phase::Playing && seat == self.turn {
            self.actions_to_play(seat)
        } else {
            self.other_actions(seat)
        }
    }

    /// [`Hand::legal_actions`] for all but the seat to play a card: bids,
    /// discards, and the others' concessions during play.
    #[inline(never)]
    fn other_actions(&self, seat: Seat) -> ActionList {
        let mut list = ActionList::new();
        if seat.0 >= self.rules.players || self.phase == Phase::Finished {
            return list;
        }
        let playing = self.phase == Phase::Playing && !self.sits_out(seat);
        if seat == self.turn {
            match self.phase {
                Phase::NamingJokerSuit => {
                    for suit in Suit::ALL {
                        list.push(Action::NameSuit { suit });
                    }
                }
                Phase::OrderingUp => {
                    list.push(Action::Pass);
                    for alone in [false, true] {
                        if self.check_in_turn(seat, Action::OrderUp { alone }).is_ok() {
                            list.push(Action::OrderUp { alone });
                        }
                    }
                    if self.check_in_turn(seat, Action::FarmersHand).is_ok() {
                        list.push(Action::FarmersHand);
                    }
                }
                Phase::Calling => {
                    if !self.dealer_is_stuck(seat) {
                        list.push(Action::Pass);
                    }
                    for suit in Suit::ALL {
                        for alone in [false, true] {
                            let call = Action::Call { suit, alone };
                            if self.check_in_turn(seat, call).is_ok() {
                                list.push(call);
                            }
                        }
                    }
                    for alone in [false, true] {
                        if self.check_in_turn(seat, Action::CallNoTrump { alone }).is_ok() {
                            list.push(Action::CallNoTrump { alone });
                        }
                    }
                }
                Phase::DefendingAlone => {
                    list.push(Action::Pass);
                    list.push(Action::DefendAlone);
                }
                Phase::PassingBest => {
                    for card in self.holding(seat) {
                        list.push(Action::PassCard { card });
                    }
                }
                Phase::DealerDiscard | Phase::LonerDiscard | Phase::DummyDiscard => {
                    // Any card held, but the up-card where `check` refuses
                    // the dealer that.
                    let mut cards = self.holding(seat);
                    if self.phase == Phase::DealerDiscard && !self.rules.dealer_may_discard_up_card
                    {
                        cards.remove(self.deal.up_card);
                    }
                    for card in cards {
                        list.push(Action::Discard { card });
                    }
                }
                // Answered by `actions_to_play`.
                Phase::Playing | Phase::Finished => {}
            }
        }
        if playing && self.may_concede(seat) {
            list.push(Action::Concede);
        }
        list
    }

    /// [`Hand::legal_actions`] for the seat to play a card: the legal cards
    /// straight from the mask, a claim on lead, a concession.
    #[inline]
    fn actions_to_play(&self, seat: Seat) -> ActionList {
        // Filled through locals, so the length stays in a register.
        let mut actions = ActionList::new().actions;
        let mut len = 0;
        for card in self.legal_plays() {
            actions[len] = Action::Play { card };
            len += 1;
        }
        if self.trick.is_empty() && self.claim_is_certain(seat) {
            actions[len] = Action::Claim;
            len += 1;
        }
        if self.may_concede(seat) {
            actions[len] = Action::Concede;
            len += 1;
        }
        ActionList { actions, len: len as u8 }
    }

    /// What `check` asks of a concession during play, without the rest of it.
    fn may_concede(&self, seat: Seat) -> bool {
        self.rules.teams() <= 2 || self.is_maker_team(seat)
    }

    /// The cards the seat to play may play now (empty outside play).
    #[inline]
    pub fn legal_plays(&self) -> CardSet {
        if self.phase != Phase::Playing {
            return CardSet::EMPTY;
        }
        let hand = self.holding[self.turn.index()];
        match (self.led_suit(), self.maker) {
            (Some(led), Some(_)) => trump::follow_mask_in(hand, led, self.mode()),
            _ => hand,
        }
    }

    /// Whether the maker called no trump.
    pub fn no_trump(&self) -> bool {
        self.maker.is_some() && self.trump.is_none()
    }

    /// The order cards are played in: the trump suit's, or no trump's.
    #[inline]
    fn mode(&self) -> Mode {
        Mode::of(self.trump)
    }

    /// The suit led to the current trick, if a card has been led.
    pub fn led_suit(&self) -> Option<Suit> {
        self.trick.led
    }

    /// Carries out an action that [`Hand::check`] accepted.
    fn perform(&mut self, seat: Seat, action: Action, sink: &mut impl EventSink) {
        let players = self.rules.players;
        match action {
            Action::Pass => {
                sink.push(Event::Passed { seat });
                if self.phase == Phase::DefendingAlone {
                    // The loner's left answers first, then his right.
                    let first = self.maker.map(|maker| maker.next(players));
                    if first == Some(seat) {
                        self.turn = seat.next(players).next(players);
                    } else {
                        self.begin_play();
                    }
                } else if seat != self.deal.dealer {
                    self.turn = seat.next(players);
                } else if self.phase == Phase::OrderingUp {
                    sink.push(Event::UpCardTurnedDown { card: self.deal.up_card });
                    self.phase = Phase::Calling;
                    self.turn = seat.next(players);
                } else {
                    self.throw_in(ThrowIn::AllPassed);
                }
            }
            Action::OrderUp { alone } => {
                let suit = self.up_suit;
                self.make_trump(seat, suit, alone, sink);
                let dealer = self.deal.dealer;
                let partner_alone = alone && self.rules.partnerships() && seat.partner() == dealer;
                if partner_alone && !self.rules.dealer_picks_up_for_partner_loner {
                    self.after_trump(sink);
                } else {
                    self.holding[dealer.index()].insert(self.deal.up_card);
                    sink.push(Event::UpCardPickedUp { dealer, card: self.deal.up_card });
                    self.phase = Phase::DealerDiscard;
                    self.turn = dealer;
                }
            }
            Action::Call { suit, alone } => {
                if suit == self.up_suit {
                    // Only reaches here where naming the turned-down suit counts as a pass.
                    self.perform(seat, Action::Pass, sink);
                } else {
                    self.make_trump(seat, suit, alone, sink);
                    self.after_trump(sink);
                }
            }
            Action::CallNoTrump { alone } => {
                self.maker = Some(seat);
                self.alone = alone;
                sink.push(Event::NoTrumpCalled { seat, alone });
                self.after_trump(sink);
            }
            Action::Discard { card } if self.phase == Phase::DummyDiscard => {
                self.holding[seat.index()].remove(card);
                self.dummy_discards.insert(card);
                sink.push(Event::Discarded { seat, card: Some(card) });
                if self.dummy_discards.len() == self.rules.dummy_size() {
                    self.begin_play();
                }
            }
            Action::Discard { card } if self.phase == Phase::LonerDiscard => {
                self.holding[seat.index()].remove(card);
                self.loner_discard = Some(card);
                sink.push(Event::Discarded { seat, card: Some(card) });
                self.after_trump(sink);
            }
            Action::PassCard { card } => {
                let to = seat.partner();
                self.holding[seat.index()].remove(card);
                self.holding[to.index()].insert(card);
                self.passed = Some(card);
                sink.push(Event::CardPassed { from: seat, to, card: Some(card) });
                self.phase = Phase::LonerDiscard;
                self.turn = to;
            }
            Action::Discard { card } => {
                self.holding[seat.index()].remove(card);
                self.discard = Some(card);
                sink.push(Event::Discarded { seat, card: Some(card) });
                self.after_trump(sink);
            }
            Action::Play { card } => self.play_card(seat, card, sink),
            Action::NameSuit { suit } => {
                self.up_suit = suit;
                sink.push(Event::JokerSuitNamed { dealer: seat, suit });
                self.phase = Phase::OrderingUp;
                self.turn = seat.next(players);
            }
            Action::FarmersHand => self.throw_in(ThrowIn::FarmersHand { seat }),
            Action::Claim => {
                sink.push(Event::Claimed { seat, cards: self.holding(seat) });
                self.award_rest(self.rules.team_of(seat));
                self.score();
            }
            Action::Concede => {
                sink.push(Event::Conceded { seat });
                // To the other side: with two teams the other one; with three
                // (only the maker may concede) the next defender, as only the
                // makers' count decides the score.
                let mut taker = seat.next(players);
                while self.rules.team_of(taker) == self.rules.team_of(seat) {
                    taker = taker.next(players);
                }
                self.award_rest(self.rules.team_of(taker));
                self.score();
            }
            Action::DefendAlone => {
                let partner = seat.partner();
                self.lone_defender = Some(seat);
                self.out |= 1 << partner.0;
                sink.push(Event::DefendsAlone { seat });
                sink.push(Event::SitsOut { seat: partner });
                self.begin_play();
            }
        }
    }

    fn make_trump(&mut self, seat: Seat, suit: Suit, alone: bool, sink: &mut impl EventSink) {
        self.trump = Some(suit);
        self.maker = Some(seat);
        self.alone = alone;
        sink.push(Event::TrumpMade { seat, suit, alone });
    }

    /// Trump is made and the dealer has discarded (if he picked up). With a
    /// dummy, the maker takes it unless alone. Against a loner: his partner
    /// passes him a card and he discards (call for best), the partner sits
    /// out, the defenders may answer; then play.
    fn after_trump(&mut self, sink: &mut impl EventSink) {
        let players = self.rules.players;
        if self.rules.dummy
            && !self.alone
            && let Some(maker) = self.maker
        {
            self.holding[maker.index()] = self.holding[maker.index()].union(self.deal.dummy);
            sink.push(Event::DummyTaken { seat: maker, cards: Some(self.deal.dummy) });
            self.phase = Phase::DummyDiscard;
            self.turn = maker;
            return;
        }
        if self.alone
            && self.rules.partnerships()
            && let Some(maker) = self.maker
        {
            let partner = maker.partner();
            if self.rules.call_for_best && self.passed.is_none() {
                self.phase = Phase::PassingBest;
                self.turn = partner;
                return;
            }
            self.sitting_out = Some(partner);
            self.out |= 1 << partner.0;
            sink.push(Event::SitsOut { seat: partner });
            if self.rules.defend_alone {
                self.phase = Phase::DefendingAlone;
                self.turn = maker.next(players);
                return;
            }
        }
        self.begin_play();
    }

    /// The first lead: by the rules' loner lead, skipping every seat that sits out.
    fn begin_play(&mut self) {
        let leader = match (self.rules.loner_lead, self.maker) {
            (LonerLead::LeftOfLoner, Some(maker)) if self.alone => self.next_active(maker),
            _ => self.next_active(self.deal.dealer),
        };
        self.phase = Phase::Playing;
        self.turn = leader;
        self.trick = Trick::new(leader);
    }

    /// The next seat clockwise that takes part in play: a table lookup, as
    /// it is asked at every card played.
    #[inline]
    fn next_active(&self, seat: Seat) -> Seat {
        Seat(self.next_in_play()[seat.index() & 3])
    }

    #[inline(always)]
    fn play_card(&mut self, seat: Seat, card: Card, sink: &mut impl EventSink) {
        self.holding[seat.index()].remove(card);
        self.played.insert(card);
        if self.trick.is_empty() {
            self.trick.led = Some(trump::effective_suit_in(card, self.mode()));
        }
        self.trick.cards[usize::from(self.trick.len)] = card;
        self.trick.seats[usize::from(self.trick.len)] = seat;
        self.trick.len += 1;
        sink.push(Event::CardPlayed { seat, card });
        // The trick is complete when play would come back to its leader.
        let next = self.next_active(seat);
        if next != self.trick.leader {
            self.turn = next;
            return;
        }
        let position = trump::trick_winner_in(self.trick.cards(), self.mode());
        let winner = self.trick.seats[position];
        self.tricks_played += 1;
        self.tricks_won[self.rules.team_of(winner)] += 1;
        sink.push(Event::TrickWon { seat: winner, number: self.tricks_played });
        if usize::from(self.tricks_played) == self.rules.hand_size() as usize {
            self.score();
        } else {
            self.turn = winner;
            self.trick = Trick::new(winner);
        }
    }

    /// Ends card play with the tricks a [`crate::sim::CardPlay`] of this
    /// hand won playing it out: the cards in hand are played and the hand
    /// is scored. (The last trick's cards are not kept.) Returns the
    /// outcome, as [`Hand::outcome`] now would.
    pub(crate) fn finish_play(&mut self, tricks_won: PerTeam<u8>) -> HandOutcome {
        debug_assert_eq!(self.phase, Phase::Playing);
        for (seat, held) in self.holding.iter_mut().enumerate() {
            // Whoever sits out keeps his cards.
            if self.out & (1 << seat) == 0 {
                self.played = self.played.union(*held);
                *held = CardSet::EMPTY;
            }
        }
        self.tricks_won = tricks_won;
        self.tricks_played = self.rules.hand_size() as u8;
        self.trick = Trick::new(self.turn);
        self.score()
    }

    /// Gives every trick not yet won (the current one included) to `team`.
    fn award_rest(&mut self, team: Team) {
        let total = self.rules.hand_size() as u8;
        self.tricks_won[team] += total - self.tricks_played;
        self.tricks_played = total;
        self.trick = Trick::new(self.turn);
    }

    /// Ends the hand unplayed. The game reports the outcome.
    fn throw_in(&mut self, reason: ThrowIn) {
        self.phase = Phase::Finished;
        self.outcome = Some(HandOutcome::ThrownIn(reason));
    }

    /// Ends a played hand and returns its outcome (the game reports it with
    /// the running score).
    fn score(&mut self) -> HandOutcome {
        let Some(maker) = self.maker else {
            unreachable!("a hand is played only once trump is made");
        };
        let trump = self.trump;
        let scoring = &self.rules.scoring;
        let makers = self.rules.team_of(maker);
        let taken = self.tricks_won[makers];
        let mut points = PerTeam::new(self.rules.teams());
        if taken >= 3 {
            points[makers] = match (taken == 5, self.alone) {
                (true, true) => scoring.lone_march,
                (true, false) => scoring.march,
                (false, _) => scoring.made,
            };
        } else {
            let euchre = match (self.alone, self.lone_defender) {
                (true, Some(_)) => scoring.defender_alone_euchre,
                (true, None) => scoring.lone_euchre,
                (false, _) => scoring.euchre,
            };
            // Every defending side scores: in the three-handed games each
            // defender does.
            for team in 0..self.rules.teams() {
                if Team(team) != makers {
                    points[Team(team)] = euchre;
                }
            }
        }
        self.phase = Phase::Finished;
        let outcome = HandOutcome::Played(PlayedHand {
            maker,
            makers,
            trump,
            alone: self.alone,
            tricks: self.tricks_won,
            points,
            lone_defender: self.lone_defender,
        });
        self.outcome = Some(outcome);
        outcome
    }

    /// Whether `seat`, on lead, wins every remaining trick whatever the other
    /// players hold and however they play.
    ///
    /// The claimant leads his trumps from the top, then his plain cards from
    /// the top of each suit. That succeeds against every holding exactly when
    /// each trump he holds outranks every trump he does not hold, and, if he
    /// holds plain cards, no trump is left outside his hand and each plain
    /// card outranks every unseen card of its suit.
    pub fn claim_is_certain(&self, seat: Seat) -> bool {
        if self.phase != Phase::Playing || self.maker.is_none() {
            return false;
        }
        let mine = self.holding(seat);
        // Cards that might be anywhere but in the claimant's hand: everything
        // not played, not his, and not known to him to be out of play. To him
        // the kitty, an untaken dummy and others' discards are as unknown as
        // a hand. An up-card nobody picked up is out of play and known to all.
        let mut known_out = self.played.union(mine);
        if self.discard.is_none() {
            known_out.insert(self.deal.up_card);
        }
        if let Some(discard) = self.discard
            && self.deal.dealer == seat
        {
            known_out.insert(discard);
        }
        if self.maker == Some(seat) {
            known_out = known_out.union(self.dummy_discards);
            if let Some(discard) = self.loner_discard {
                known_out.insert(discard);
            }
        }
        let elsewhere = self.rules.pack().difference(known_out);
        if let Some(trump) = self.trump {
            let trumps = trump::suit_cards(trump, trump);
            // The usual answer, found first: a trump is out and he holds a plain card.
            if !elsewhere.intersection(trumps).is_empty() && !mine.difference(trumps).is_empty() {
                return false;
            }
            let best_outside_trump =
                elsewhere.intersection(trumps).iter().map(|c| trump::power(c, trump)).max();
            let my_trumps = mine.intersection(trumps);
            if let Some(best) = best_outside_trump {
                if my_trumps.iter().any(|c| trump::power(c, trump) < best) {
                    return false;
                }
                if my_trumps != mine {
                    return false;
                }
            }
        }
        // Plain suits (every suit at no trump) by printed rank.
        let mode = self.mode();
        Suit::ALL.into_iter().filter(|s| Some(*s) != self.trump).all(|suit| {
            let cards = trump::suit_cards_in(suit, mode);
            let best_outside = elsewhere.intersection(cards).iter().map(|c| c.rank()).max();
            match best_outside {
                None => true,
                Some(best) => mine.intersection(cards).iter().all(|c| c.rank() > best),
            }
        })
    }

    /// Plays the rest of the hand with `choose` picking each action: a helper
    /// for simulations and tests.
    pub fn play_out(&mut self, mut choose: impl FnMut(&Hand, &ActionList) -> Action) {
        while let Some(seat) = self.turn() {
            let actions = self.legal_actions(seat);
            let action = choose(self, &actions);
            if self.apply_with(seat, action, &mut NoEvents).is_err() {
                // A chooser that picks from the list cannot get here.
                break;
            }
        }
    }
}

/// `NEXT_IN_PLAY[seats]`: for each seat, the next one clockwise among
/// `seats` (bit `i` for seat `i`), skipping the others.
const NEXT_IN_PLAY: [[u8; 4]; 16] = {
    let mut table = [[0; 4]; 16];
    let mut seats = 1;
    while seats < 16 {
        let mut seat = 0;
        while seat < 4 {
            let mut next = (seat + 1) % 4;
            while seats & (1 << next) == 0 {
                next = (next + 1) % 4;
            }
            table[seats][seat] = next as u8;
            seat += 1;
        }
        seats += 1;
    }
    table
};
