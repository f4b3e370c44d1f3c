//! Seats, the actions players take, and the events the engine reports.

use std::fmt;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::card::{Card, CardSet, Suit};

/// A place at the table, numbered clockwise from 0. Partners sit across:
/// seats 0 and 2 are team 0, seats 1 and 3 team 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Seat(pub u8);

impl Seat {
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat to the left (clockwise) in a game of `players`.
    pub const fn next(self, players: u8) -> Seat {
        Seat((self.0 + 1) % players)
    }

    pub const fn partner(self) -> Seat {
        Seat((self.0 + 2) % 4)
    }

    pub const fn team(self) -> Team {
        Team(self.0 & 1)
    }

    pub fn all(players: u8) -> impl Iterator<Item = Seat> {
        (0..players).map(Seat)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A partnership: team 0 holds seats 0 and 2, team 1 seats 1 and 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Team(pub u8);

impl Team {
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn other(self) -> Team {
        Team(self.0 ^ 1)
    }
}

/// Everything a player can do. Bids, the dealer's discard and card play all
/// go through [`crate::Game::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Action {
    /// Decline to make trump this turn.
    Pass,
    /// Round one: make the up-card's suit trump (order up, assist, or the
    /// dealer taking it up).
    OrderUp {
        #[serde(default)]
        alone: bool,
    },
    /// Round two: name a suit other than the turned-down one.
    Call {
        suit: Suit,
        #[serde(default)]
        alone: bool,
    },
    /// The dealer, having picked up the up-card, puts one card away.
    Discard { card: Card },
    /// Play a card to the current trick.
    Play { card: Card },
    /// Throw in a hand of only the two lowest ranks for a redeal.
    FarmersHand,
    /// On lead, show the hand and take every remaining trick. Accepted only
    /// when no holding of the other players could stop it.
    Claim,
    /// Give every remaining trick of this hand to the other side.
    Concede,
    /// Against a loner, where the rules allow it: play alone against him,
    /// the partner sitting out too.
    DefendAlone,
    /// Call for best: the loner's partner passes him this card.
    PassCard { card: Card },
}

impl Action {
    /// A short name, as used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Action::Pass => "pass",
            Action::OrderUp { .. } => "order_up",
            Action::Call { .. } => "call",
            Action::Discard { .. } => "discard",
            Action::Play { .. } => "play",
            Action::FarmersHand => "farmers_hand",
            Action::Claim => "claim",
            Action::Concede => "concede",
            Action::DefendAlone => "defend_alone",
            Action::PassCard { .. } => "pass_card",
        }
    }
}

/// Why a hand was thrown in without being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ThrowIn {
    /// Everybody passed twice: the deal passes to the left.
    AllPassed,
    /// A player threw in a farmer's hand: the same dealer deals again.
    FarmersHand { seat: Seat },
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ending", rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HandOutcome {
    Played(PlayedHand),
    ThrownIn(ThrowIn),
}

impl HandOutcome {
    /// Points each team scored on this hand.
    pub fn points(&self) -> [u8; 2] {
        match self {
            HandOutcome::Played(played) => played.points,
            HandOutcome::ThrownIn(_) => [0, 0],
        }
    }
}

/// The result of a hand that was played out (or claimed, or conceded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlayedHand {
    pub maker: Seat,
    pub trump: Suit,
    pub alone: bool,
    /// Tricks taken by each team.
    pub tricks: [u8; 2],
    /// Points awarded to each team.
    pub points: [u8; 2],
    /// The defender who played alone against the loner, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lone_defender: Option<Seat>,
}

impl PlayedHand {
    pub fn euchred(&self) -> bool {
        self.tricks[self.maker.team().index()] < 3
    }

    pub fn march(&self) -> bool {
        self.tricks[self.maker.team().index()] == 5
    }
}

/// What a seat (or a spectator) may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Viewer {
    Seat(Seat),
    Spectator,
}

/// Something that happened. Fields holding cards only some viewers may see
/// are `Option`s; [`Event::for_viewer`] clears them for everybody else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Event {
    /// A new hand was dealt. `hands[i]` is seat `i`'s hand (private).
    HandDealt {
        number: u32,
        dealer: Seat,
        up_card: Card,
        hands: [Option<CardSet>; 4],
    },
    Passed {
        seat: Seat,
    },
    /// Nobody wanted the up-card's suit; round two begins.
    UpCardTurnedDown {
        card: Card,
    },
    TrumpMade {
        seat: Seat,
        suit: Suit,
        alone: bool,
    },
    /// The dealer took the up-card into his hand.
    UpCardPickedUp {
        dealer: Seat,
        card: Card,
    },
    /// The dealer discarded; the card is the dealer's secret.
    Discarded {
        seat: Seat,
        card: Option<Card>,
    },
    /// The maker's partner (or a lone defender's partner) sits this hand out.
    SitsOut {
        seat: Seat,
    },
    /// A defender chose to play alone against the loner.
    DefendsAlone {
        seat: Seat,
    },
    /// Call for best: the loner's partner passed him a card, which only the
    /// two of them see.
    CardPassed {
        from: Seat,
        to: Seat,
        card: Option<Card>,
    },
    CardPlayed {
        seat: Seat,
        card: Card,
    },
    TrickWon {
        seat: Seat,
        number: u8,
    },
    /// A claim was accepted; the claimant's cards are shown to all.
    Claimed {
        seat: Seat,
        cards: CardSet,
    },
    Conceded {
        seat: Seat,
    },
    HandEnded {
        outcome: HandOutcome,
        scores: [u16; 2],
    },
    GameWon {
        team: Team,
        scores: [u16; 2],
    },
}

impl Event {
    /// The event as `viewer` may see it.
    pub fn for_viewer(self, viewer: Viewer) -> Event {
        let may_see = |seat: Seat| viewer == Viewer::Seat(seat);
        match self {
            Event::HandDealt { number, dealer, up_card, hands } => {
                let mut visible = [None; 4];
                for (index, hand) in hands.iter().enumerate() {
                    if may_see(Seat(index as u8)) {
                        visible[index] = *hand;
                    }
                }
                Event::HandDealt { number, dealer, up_card, hands: visible }
            }
            Event::Discarded { seat, card } => {
                Event::Discarded { seat, card: card.filter(|_| may_see(seat)) }
            }
            Event::CardPassed { from, to, card } => {
                Event::CardPassed { from, to, card: card.filter(|_| may_see(from) || may_see(to)) }
            }
            other => other,
        }
    }

    /// The cards this event shows (for secrecy checks).
    pub fn cards(&self) -> CardSet {
        let mut shown = CardSet::EMPTY;
        match *self {
            Event::HandDealt { up_card, hands, .. } => {
                shown.insert(up_card);
                for hand in hands.into_iter().flatten() {
                    shown = shown.union(hand);
                }
            }
            Event::UpCardTurnedDown { card }
            | Event::UpCardPickedUp { card, .. }
            | Event::CardPlayed { card, .. } => shown.insert(card),
            Event::Discarded { card: Some(card), .. }
            | Event::CardPassed { card: Some(card), .. } => shown.insert(card),
            Event::Claimed { cards, .. } => shown = cards,
            _ => {}
        }
        shown
    }
}

/// A destination for events. The simulation path passes [`NoEvents`], so it
/// runs the very same rule code as [`crate::Game::apply`] without building
/// anything.
pub trait EventSink {
    fn push(&mut self, event: Event);
}

impl EventSink for Vec<Event> {
    #[inline]
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

/// The events of one action, as [`crate::Game::apply`] returns them: held
/// inline up to four (the most one action makes: a card, the trick, the
/// hand's end and the next deal), on the heap beyond. Derefs to a slice.
pub type EventList = SmallVec<[Event; 4]>;

impl EventSink for EventList {
    #[inline]
    fn push(&mut self, event: Event) {
        SmallVec::push(self, event);
    }
}

/// Discards events: the sink of the simulation path.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    #[inline(always)]
    fn push(&mut self, _event: Event) {}
}
