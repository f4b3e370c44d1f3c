//! A bot that plays ordinary, sound Euchre by rules of thumb.

use euchre_engine::trump::{
    Mode, effective_suit_in, is_trump_in, power_in, suit_cards, suit_cards_in, trick_power_in,
    trick_winner_in,
};
use euchre_engine::{Action, Card, CardSet, GameView, Phase, Rules, Seat, Suit, Viewer};

use crate::{Bot, legal_or_first};

mod bidding;
mod play;

/// Bids on the strength of its hand and position (no trump, where the rules
/// allow it, with three tricks sure in its own hand), shapes its hand when it
/// picks up, and plays each card by the usual rules of thumb: lead the right
/// bower as maker, cash aces, win as cheaply as possible, trump in when the
/// opponents are winning, and leave a partner's winning card alone.
///
/// It has no random element: the same view always gets the same action.
#[derive(Clone, Debug, Default)]
pub struct BasicBot {
    // Private, so the bot can gain settings later without breaking callers.
    _private: (),
}

impl BasicBot {
    pub fn new() -> BasicBot {
        BasicBot::default()
    }
}

impl Bot for BasicBot {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        legal_or_first(decide(view, legal), legal)
    }
}

/// The bot's wish, before checking it against `legal`. `None` when the view
/// lacks what it needs (a spectator's view has no hand).
fn decide(view: &GameView, legal: &[Action]) -> Option<Action> {
    let me = match view.viewer {
        Viewer::Seat(seat) => seat,
        Viewer::Spectator => view.turn?,
    };
    let hand: CardSet = view.hand.as_ref()?.iter().copied().collect();
    match view.phase {
        Phase::Playing => {
            if legal.contains(&Action::Claim) {
                // The engine offers a claim only when it cannot fail.
                return Some(Action::Claim);
            }
            let seen = Seen::new(view, me, hand)?;
            let playable: CardSet = legal
                .iter()
                .filter_map(|action| match action {
                    Action::Play { card } => Some(*card),
                    _ => None,
                })
                .collect();
            let card = play::choose_card(&seen, playable)?;
            Some(Action::Play { card })
        }
        Phase::Finished => None,
        phase => {
            let situation = Situation {
                rules: view.rules,
                phase,
                dealer: view.dealer,
                up_card: view.up_card,
                turned_down: view.turned_down,
                trump: view.trump,
                made: view.maker.is_some(),
            };
            before_play(&situation, me, hand, legal)
        }
    }
}

/// What the bidding and discarding need to know: public facts only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Situation {
    pub rules: Rules,
    pub phase: Phase,
    pub dealer: Seat,
    pub up_card: Card,
    pub turned_down: Option<Suit>,
    pub trump: Option<Suit>,
    /// Whether trump (or no trump) has been made.
    pub made: bool,
}

/// The basic bot's choice for `me` holding `hand` before card play: bids,
/// discards, the card passed for best. Shared with the search bot, which
/// plays out other seats' bids this way in the deals it imagines.
pub(crate) fn before_play(
    situation: &Situation,
    me: Seat,
    hand: CardSet,
    legal: &[Action],
) -> Option<Action> {
    match situation.phase {
        Phase::NamingJokerSuit => Some(bidding::joker_suit(hand)),
        Phase::OrderingUp | Phase::Calling => bidding::bid(situation, me, hand, legal),
        Phase::PassingBest => {
            // Call for best: pass the loner the strongest card (at no trump,
            // the highest).
            let mode = Mode::of(situation.trump);
            legal
                .iter()
                .filter_map(|action| match action {
                    Action::PassCard { card } => Some(*card),
                    _ => None,
                })
                .max_by_key(|card| (is_trump_in(*card, mode), power_in(*card, mode)))
                .map(|card| Action::PassCard { card })
        }
        Phase::DealerDiscard | Phase::LonerDiscard | Phase::DummyDiscard => {
            if !situation.made {
                return None;
            }
            let mode = Mode::of(situation.trump);
            let allowed: CardSet = legal
                .iter()
                .filter_map(|action| match action {
                    Action::Discard { card } => Some(*card),
                    _ => None,
                })
                .collect();
            let card = bidding::discard(hand, mode, allowed)?;
            Some(Action::Discard { card })
        }
        // The basic bot never defends alone.
        Phase::DefendingAlone => Some(Action::Pass),
        Phase::Playing | Phase::Finished => None,
    }
}

/// What a seat knows while cards are played, gathered by whoever follows
/// the hand: the search bot replaying a world checks each card the others
/// played against the card the basic bot would have chosen in their place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlayFacts<'a> {
    pub rules: Rules,
    pub trump: Option<Suit>,
    pub maker: Seat,
    pub sitting_out: Option<Seat>,
    /// The cards the seat has not seen: not in its hand, not played, not
    /// the turned-down up-card, not its own discard.
    pub unseen: CardSet,
    /// `voids[seat][suit]`: the seat failed to follow that effective suit.
    pub voids: [[bool; 4]; 4],
    /// The trick in progress, from its leader; empty on lead.
    pub trick: &'a [(Seat, Card)],
}

/// The card the basic bot plays for `me` from `playable` (its legal
/// cards), knowing `facts`. It never claims here: a claim is not a card.
pub(crate) fn play_card(facts: &PlayFacts, me: Seat, playable: CardSet) -> Option<Card> {
    play::choose_card(&Seen::of(facts, me), playable)
}

/// What this seat knows about the hand being played, gathered from its view.
#[derive(Debug)]
struct Seen {
    rules: Rules,
    me: Seat,
    /// Trump's card order, or no trump's.
    mode: Mode,
    maker: Option<Seat>,
    sitting_out: Option<Seat>,
    /// Cards that may still be in another hand (or the kitty, which nobody
    /// can tell apart from a hand).
    unseen: CardSet,
    /// `voids[seat][suit]`: the seat failed to follow that (effective) suit
    /// this hand, so it holds none.
    voids: [[bool; 4]; 4],
    /// The trick in progress, in playing order; empty when on lead.
    trick: Vec<(Seat, Card)>,
    /// The seats still to play to this trick after this one.
    after_me: Vec<Seat>,
}

impl Seen {
    fn new(view: &GameView, me: Seat, hand: CardSet) -> Option<Seen> {
        let maker = view.maker?;
        let mode = Mode::of(view.trump);
        let mut unseen = view.rules.pack().difference(hand);
        // Turned down (or left in the kitty for a loner), the up-card is out
        // of play. Picked up, it is in the dealer's hand unless discarded.
        if !view.up_card_picked_up {
            unseen.remove(view.up_card);
        }
        if let Some(card) = view.discard {
            unseen.remove(card);
        }
        let mut voids = [[false; 4]; 4];
        for trick in &view.tricks {
            let Some(&(_, first)) = trick.cards.first() else { continue };
            let led = effective_suit_in(first, mode);
            for &(seat, card) in &trick.cards {
                unseen.remove(card);
                if effective_suit_in(card, mode) != led {
                    voids[seat.index()][led.index()] = true;
                }
            }
        }
        let trick = match view.tricks.last() {
            Some(last) if last.winner.is_none() => last.cards.as_slice(),
            _ => &[],
        };
        let facts = PlayFacts {
            rules: view.rules,
            trump: view.trump,
            maker,
            sitting_out: view.sitting_out,
            unseen,
            voids,
            trick,
        };
        Some(Seen::of(&facts, me))
    }

    /// What `me` knows from `facts` (whose `unseen` leaves out `me`'s hand).
    fn of(facts: &PlayFacts, me: Seat) -> Seen {
        let trick = facts.trick.to_vec();
        // Walk clockwise from here to whoever led (or back to here when on
        // lead): everybody in between still has to play.
        let leader = trick.first().map_or(me, |(seat, _)| *seat);
        let players = facts.rules.players;
        let mut after_me = Vec::new();
        let mut seat = me.next(players);
        while seat != leader && seat != me {
            if Some(seat) != facts.sitting_out {
                after_me.push(seat);
            }
            seat = seat.next(players);
        }
        Seen {
            rules: facts.rules,
            me,
            mode: Mode::of(facts.trump),
            maker: Some(facts.maker),
            sitting_out: facts.sitting_out,
            unseen: facts.unseen,
            voids: facts.voids,
            trick,
            after_me,
        }
    }

    /// The partner, in the four-handed game.
    fn partner(&self) -> Option<Seat> {
        self.rules.partnerships().then(|| self.me.partner())
    }

    /// Who plays against us: the other partnership; without partners, every
    /// other player for the maker, and the maker for a defender (the
    /// defenders work together against him).
    fn is_opponent(&self, seat: Seat) -> bool {
        if self.rules.partnerships() {
            return self.rules.team_of(seat) != self.rules.team_of(self.me);
        }
        match self.maker {
            Some(maker) if maker != self.me => seat == maker,
            _ => seat != self.me,
        }
    }

    fn void(&self, seat: Seat, suit: Suit) -> bool {
        self.voids[seat.index()][suit.index()]
    }

    /// Could opponent `seat` play `card` to a trick led in `led`, as far as we
    /// know? Only if it can hold that suit at all, and a card of another suit
    /// only if it has shown it cannot follow. (Players are assumed to hold the
    /// led suit until they show otherwise: the likely case.)
    fn could_play(&self, seat: Seat, card: Card, led: Suit) -> bool {
        let suit = self.suit_of(card);
        !self.void(seat, suit) && (suit == led || self.void(seat, led))
    }

    /// Would `card` still win a trick led in `led` if it were the best card
    /// so far, whatever the opponents still to play hold?
    fn safe(&self, card: Card, led: Suit) -> bool {
        let strength = self.trick_power(card, led);
        let mut threats = self.unseen.iter().filter(|c| self.trick_power(*c, led) > strength);
        let opponents: Vec<Seat> =
            self.after_me.iter().copied().filter(|s| self.is_opponent(*s)).collect();
        threats.all(|threat| !opponents.iter().any(|o| self.could_play(*o, threat, led)))
    }

    /// Is `card` the highest card left in its (effective) suit?
    fn is_boss(&self, card: Card) -> bool {
        let strength = self.power(card);
        self.suit_cards(self.suit_of(card))
            .intersection(self.unseen)
            .iter()
            .all(|other| self.power(other) < strength)
    }

    /// Trumps that an opponent might still hold.
    fn trumps_out(&self) -> CardSet {
        self.trumps().intersection(self.unseen)
    }

    fn is_trump(&self, card: Card) -> bool {
        is_trump_in(card, self.mode)
    }

    /// The trump suit, or `None` at no trump.
    fn trump(&self) -> Option<Suit> {
        self.mode.suit()
    }

    /// Every trump (none at no trump).
    fn trumps(&self) -> CardSet {
        self.trump().map_or(CardSet::EMPTY, |trump| suit_cards(trump, trump))
    }

    /// The suit `card` follows as.
    fn suit_of(&self, card: Card) -> Suit {
        effective_suit_in(card, self.mode)
    }

    /// The cards that follow as `suit`.
    fn suit_cards(&self, suit: Suit) -> CardSet {
        suit_cards_in(suit, self.mode)
    }

    /// A card's strength within its suit.
    fn power(&self, card: Card) -> u8 {
        power_in(card, self.mode)
    }

    fn trick_power(&self, card: Card, led: Suit) -> u8 {
        trick_power_in(card, led, self.mode)
    }

    /// The position of the card winning `cards`.
    fn winner(&self, cards: &[Card]) -> usize {
        trick_winner_in(cards, self.mode)
    }

    /// The opponents who play this hand (one may sit out for a partner's loner).
    fn active_opponents(&self) -> impl Iterator<Item = Seat> + '_ {
        Seat::all(self.rules.players)
            .filter(|seat| self.is_opponent(*seat) && Some(*seat) != self.sitting_out)
    }
}
