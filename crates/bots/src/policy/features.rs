//! What one seat sees at a card to play, as the learned policy's inputs: a
//! list of the indices of the features that are on (every feature is 0 or
//! 1), from the seat's own sight only.
//!
//! Suits are renamed so that trump is always suit 0, the suit of the same
//! colour (whose jack is the left bower) suit 1, and the other two suits 2
//! and 3 in the engine's order; seats are counted from the seat itself
//! (0 itself, 1 its left, 2 its partner, 3 its right). A card is then one
//! of 24 indices, `6 * suit + rank` with the ranks nine to ace as 0 to 5,
//! and the policy's 24 outputs are the same indices. Only the four-handed
//! game with a trump suit and the 24-card pack is covered ([`covers`]).

use euchre_engine::trump::{Mode, effective_suit_in};
use euchre_engine::{Card, CardSet, GameView, Hand, Rules, Seat, Suit, Viewer};

/// How many features there are.
pub const INPUTS: usize = 314;
/// How many cards the policy scores.
pub const OUTPUTS: usize = 24;

// Where each block of features starts.
const HAND: usize = 0;
/// Cards played to the tricks before this one, by relative seat.
const EARLIER: usize = 24;
/// Cards played to the trick in progress, by relative seat.
const TRICK: usize = 120;
const UP_CARD: usize = 216;
const PICKED_UP: usize = 240;
const DEALER: usize = 241;
const MAKER: usize = 245;
const ALONE: usize = 249;
const SITTING_OUT: usize = 250;
/// Suits each relative seat has shown void in.
const VOIDS: usize = 254;
/// Tricks taken by the seat's side (one of 0 to 5), then by the others'.
const OURS: usize = 270;
const THEIRS: usize = 276;
const LED: usize = 282;
/// How many cards the trick holds before this one (0 to 3).
const POSITION: usize = 286;
/// Cards the seat knows are out of play: the turned-down up-card, its own
/// discard as dealer.
const OUT: usize = 290;

/// Whether the policy covers hands of `rules` played with `trump`: the
/// four-handed game, a trump suit (not no trump), the 24-card pack (no
/// joker, no sevens or eights), no dummy.
pub fn covers(rules: &Rules, trump: Option<Suit>) -> bool {
    rules.players == 4
        && !rules.dummy
        && !rules.joker
        && trump.is_some()
        && rules.pack() == CardSet::ranks_from(euchre_engine::Rank::Nine)
}

/// Everything the features are made from: what one seat knows at its turn
/// to play a card.
#[derive(Clone, Copy, Debug)]
pub struct Sight<'a> {
    pub me: Seat,
    pub trump: Suit,
    pub dealer: Seat,
    pub up_card: Card,
    pub picked_up: bool,
    pub maker: Seat,
    pub alone: bool,
    pub sitting_out: Option<Seat>,
    /// The seat's own cards.
    pub hand: CardSet,
    /// Every card each seat has played this hand, the trick in progress too.
    pub played_by: [CardSet; 4],
    /// The trick in progress, from its leader.
    pub trick: &'a [(Seat, Card)],
    /// `voids[seat][suit]`: the seat failed to follow that effective suit.
    pub voids: [[bool; 4]; 4],
    /// Tricks taken by the seat's side and by the others.
    pub ours: u8,
    pub theirs: u8,
    /// The seat's own discard, if it is the dealer and took the up-card.
    pub discard: Option<Card>,
}

impl Sight<'_> {
    /// The indices of the features that are on, in no particular order.
    pub fn features(&self, out: &mut Vec<u16>) {
        out.clear();
        let mut on = |index: usize| out.push(index as u16);
        let canon = Canon::new(self.trump);
        let relative = |seat: Seat| (usize::from(seat.0) + 4 - self.me.index()) % 4;
        for card in self.hand.iter() {
            on(HAND + canon.card(card));
        }
        let in_trick: CardSet = self.trick.iter().map(|(_, card)| *card).collect();
        for seat in 0..4 {
            let rel = relative(Seat(seat as u8));
            for card in self.played_by[seat].difference(in_trick).iter() {
                on(EARLIER + 24 * rel + canon.card(card));
            }
            for suit in Suit::ALL {
                if self.voids[seat][suit.index()] {
                    on(VOIDS + 4 * rel + canon.suit(suit));
                }
            }
        }
        for (seat, card) in self.trick {
            on(TRICK + 24 * relative(*seat) + canon.card(*card));
        }
        on(UP_CARD + canon.card(self.up_card));
        if self.picked_up {
            on(PICKED_UP);
        } else {
            on(OUT + canon.card(self.up_card));
        }
        if let Some(card) = self.discard {
            on(OUT + canon.card(card));
        }
        on(DEALER + relative(self.dealer));
        on(MAKER + relative(self.maker));
        if self.alone {
            on(ALONE);
        }
        if let Some(seat) = self.sitting_out {
            on(SITTING_OUT + relative(seat));
        }
        on(OURS + usize::from(self.ours.min(5)));
        on(THEIRS + usize::from(self.theirs.min(5)));
        if let Some((_, first)) = self.trick.first() {
            on(LED + canon.suit(effective_suit_in(*first, Mode::of(Some(self.trump)))));
        }
        on(POSITION + self.trick.len().min(3));
    }

    /// The seat's view when it is to play a card, `None` where the policy
    /// does not cover the hand or the view is not a seat's in card play.
    pub fn of_view(view: &GameView) -> Option<Sight<'_>> {
        let Viewer::Seat(me) = view.viewer else { return None };
        if !covers(&view.rules, view.trump) {
            return None;
        }
        let trump = view.trump?;
        let mode = Mode::of(Some(trump));
        let mut played_by = [CardSet::EMPTY; 4];
        let mut voids = [[false; 4]; 4];
        let (mut ours, mut theirs) = (0, 0);
        let mut in_progress: &[(Seat, Card)] = &[];
        for trick in &view.tricks {
            let led = trick.cards.first().map(|(_, card)| effective_suit_in(*card, mode));
            for (seat, card) in &trick.cards {
                played_by[seat.index()].insert(*card);
                if let Some(led) = led
                    && effective_suit_in(*card, mode) != led
                {
                    voids[seat.index()][led.index()] = true;
                }
            }
            match trick.winner {
                Some(winner) if view.rules.team_of(winner) == view.rules.team_of(me) => ours += 1,
                Some(_) => theirs += 1,
                None => in_progress = &trick.cards,
            }
        }
        Some(Sight {
            me,
            trump,
            dealer: view.dealer,
            up_card: view.up_card,
            picked_up: view.up_card_picked_up,
            maker: view.maker?,
            alone: view.alone,
            sitting_out: view.sitting_out,
            hand: view.hand.as_ref()?.iter().copied().collect(),
            played_by,
            trick: in_progress,
            voids,
            ours,
            theirs,
            discard: view.discard.filter(|_| view.dealer == me),
        })
    }

    /// `seat`'s sight of `hand` inside a world, given the cards played so
    /// far as everybody saw them (`played_by`, `voids`, `trick`: public).
    pub fn of_hand<'a>(
        hand: &Hand,
        seat: Seat,
        played_by: [CardSet; 4],
        voids: [[bool; 4]; 4],
        trick: &'a [(Seat, Card)],
    ) -> Option<Sight<'a>> {
        let rules = hand.rules();
        if !covers(rules, hand.trump()) {
            return None;
        }
        let won = hand.tricks_won();
        let mine = rules.team_of(seat);
        let (mut ours, mut theirs) = (0, 0);
        for (team, tricks) in won.teams() {
            if team == mine {
                ours += tricks;
            } else {
                theirs += tricks;
            }
        }
        let picked_up = hand.up_card_picked_up();
        Some(Sight {
            me: seat,
            trump: hand.trump()?,
            dealer: hand.dealer(),
            up_card: hand.up_card(),
            picked_up,
            maker: hand.maker()?,
            alone: hand.alone(),
            sitting_out: hand.sitting_out(),
            hand: hand.holding(seat),
            played_by,
            trick: if hand.trick().is_empty() { &[] } else { trick },
            voids,
            ours,
            theirs,
            discard: hand.discard().filter(|_| picked_up && seat == hand.dealer()),
        })
    }
}

/// The renaming of suits with trump first.
#[derive(Clone, Copy, Debug)]
pub struct Canon {
    /// The new index of each suit.
    order: [usize; 4],
}

impl Canon {
    pub fn new(trump: Suit) -> Canon {
        let next = trump.same_colour();
        let mut order = [0; 4];
        let mut rest = 2;
        for suit in Suit::ALL {
            order[suit.index()] = if suit == trump {
                0
            } else if suit == next {
                1
            } else {
                rest += 1;
                rest - 1
            };
        }
        Canon { order }
    }

    pub fn suit(&self, suit: Suit) -> usize {
        self.order[suit.index()]
    }

    /// A card of the 24-card pack as one of 24 indices.
    pub fn card(&self, card: Card) -> usize {
        6 * self.suit(card.suit()) + card.rank().index().saturating_sub(2).min(5)
    }
}
