//! Seats, the actions players take, and the events the engine reports.

use std::fmt;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::card::{Card, CardSet, Suit};

/// A place at the table, numbered clockwise from 0. In the four-handed game
/// partners sit across: seats 0 and 2 are team 0, seats 1 and 3 team 1 (see
/// [`crate::Rules::team_of`]).
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
        // A comparison, not a remainder: a division is slow, and bidding
        // moves the turn at every pass.
        if self.0 + 1 < players { Seat(self.0 + 1) } else { Seat(0) }
    }

    /// The seat across the table: the partner in the four-handed game (the
    /// only game with partners).
    pub const fn partner(self) -> Seat {
        Seat((self.0 + 2) % 4)
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

/// A side that scores: a partnership in the four-handed game (team 0 holds
/// seats 0 and 2, team 1 seats 1 and 3), a single player in the two- and
/// three-handed games (team `i` is seat `i`). [`crate::Rules::team_of`] says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Team(pub u8);

impl Team {
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// One value per team (tricks, points, scores): two in the partnership and
/// two-handed games, three in the three-handed ones. `Copy`, held inline, and
/// on the wire a plain array of one number per team.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PerTeam<T> {
    values: [T; MAX_TEAMS],
    teams: u8,
}

/// The most teams any game has (three-handed: every player for himself).
pub const MAX_TEAMS: usize = 3;

impl<T: Copy + Default> PerTeam<T> {
    /// Zero (the default) for each of `teams` teams.
    pub fn new(teams: u8) -> PerTeam<T> {
        debug_assert!((1..=MAX_TEAMS as u8).contains(&teams));
        PerTeam { values: [T::default(); MAX_TEAMS], teams: teams.min(MAX_TEAMS as u8) }
    }

    /// From a list of one value per team; `None` unless it has 1 to 3 values.
    pub fn from_slice(values: &[T]) -> Option<PerTeam<T>> {
        if values.is_empty() || values.len() > MAX_TEAMS {
            return None;
        }
        let mut team = PerTeam::new(values.len() as u8);
        team.values[..values.len()].copy_from_slice(values);
        Some(team)
    }
}

impl<T> PerTeam<T> {
    /// How many teams there are.
    pub fn len(&self) -> usize {
        usize::from(self.teams)
    }

    pub fn is_empty(&self) -> bool {
        self.teams == 0
    }

    pub fn as_slice(&self) -> &[T] {
        &self.values[..usize::from(self.teams)]
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// The first two teams' values: the shape of a partnership game's
    /// numbers where a pair is kept (EGN, euchre-verify's report).
    pub fn pair(&self) -> [T; 2]
    where
        T: Copy,
    {
        [self.values[0], self.values[1]]
    }

    /// The teams with their values.
    pub fn teams(&self) -> impl Iterator<Item = (Team, &T)> {
        self.as_slice().iter().enumerate().map(|(index, value)| (Team(index as u8), value))
    }
}

impl<T> std::ops::Index<Team> for PerTeam<T> {
    type Output = T;
    fn index(&self, team: Team) -> &T {
        &self.as_slice()[team.index()]
    }
}

impl<'a, T> IntoIterator for &'a PerTeam<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// By team number: `scores[0]` is team 0's.
impl<T> std::ops::Index<usize> for PerTeam<T> {
    type Output = T;
    fn index(&self, team: usize) -> &T {
        &self.as_slice()[team]
    }
}

impl<T> std::ops::IndexMut<Team> for PerTeam<T> {
    fn index_mut(&mut self, team: Team) -> &mut T {
        &mut self.values[..usize::from(self.teams)][team.index()]
    }
}

/// Compares with a plain array, team 0 first: `scores == [10, 4]`.
impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for PerTeam<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.as_slice() == other
    }
}

impl<T: fmt::Debug> fmt::Debug for PerTeam<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Serialize> Serialize for PerTeam<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de> + Copy + Default> Deserialize<'de> for PerTeam<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let values = Vec::<T>::deserialize(deserializer)?;
        PerTeam::from_slice(&values).ok_or_else(|| {
            serde::de::Error::invalid_length(values.len(), &"one value per team (1 to 3)")
        })
    }
}

#[cfg(feature = "schema")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for PerTeam<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("PerTeam_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "One value per team, team 0 first: two in the partnership and two-handed games, three in the three-handed ones.",
            "type": "array",
            "items": generator.subschema_for::<T>(),
            "minItems": 1,
            "maxItems": MAX_TEAMS,
        })
    }
}

/// Everything a player can do. Bids, the dealer's discard and card play all
/// go through [`crate::Game::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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
    /// Round two, where the rules allow it: play the hand without trumps.
    CallNoTrump {
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
    /// The dealer, the joker having been turned up, names the suit it
    /// stands for in round one.
    NameSuit { suit: Suit },
}

/// An action's tag.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Pass,
    OrderUp,
    Call,
    CallNoTrump,
    Discard,
    Play,
    FarmersHand,
    Claim,
    Concede,
    DefendAlone,
    PassCard,
    NameSuit,
}

/// Every field any action has, read in one pass whatever their order; the
/// tag then says which of them the action needs. Unknown fields are
/// ignored, as the derive did. Public so that a message carrying an action
/// among its own fields (the protocol's `act`) can read them in its pass.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct ActionFields {
    pub action: ActionKind,
    #[serde(default)]
    pub alone: bool,
    pub suit: Option<Suit>,
    pub card: Option<Card>,
}

impl ActionFields {
    /// The action, or the name of the field it lacks.
    pub fn action(self) -> Result<Action, &'static str> {
        let ActionFields { action, alone, suit, card } = self;
        let suit = || suit.ok_or("suit");
        let card = || card.ok_or("card");
        Ok(match action {
            ActionKind::Pass => Action::Pass,
            ActionKind::OrderUp => Action::OrderUp { alone },
            ActionKind::Call => Action::Call { suit: suit()?, alone },
            ActionKind::CallNoTrump => Action::CallNoTrump { alone },
            ActionKind::Discard => Action::Discard { card: card()? },
            ActionKind::Play => Action::Play { card: card()? },
            ActionKind::FarmersHand => Action::FarmersHand,
            ActionKind::Claim => Action::Claim,
            ActionKind::Concede => Action::Concede,
            ActionKind::DefendAlone => Action::DefendAlone,
            ActionKind::PassCard => Action::PassCard { card: card()? },
            ActionKind::NameSuit => Action::NameSuit { suit: suit()? },
        })
    }
}

/// Read by hand, through [`ActionFields`]: serde's derive for an internally
/// tagged enum buffers every field before it reads the tag, and actions are
/// read by the thousand (every client's move, every stored one replayed).
impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Action, D::Error> {
        ActionFields::deserialize(deserializer)?
            .action()
            .map_err(<D::Error as serde::de::Error>::missing_field)
    }
}

impl Action {
    /// Every action there is, legal or not: each kind with every card (the
    /// joker's too), suit and choice of going alone. For tests and encodings
    /// that must cover them all.
    pub fn every() -> Vec<Action> {
        let mut all = vec![
            Action::Pass,
            Action::FarmersHand,
            Action::Claim,
            Action::Concede,
            Action::DefendAlone,
        ];
        all.extend(Suit::ALL.map(|suit| Action::NameSuit { suit }));
        for alone in [false, true] {
            all.push(Action::OrderUp { alone });
            all.push(Action::CallNoTrump { alone });
            all.extend(Suit::ALL.map(|suit| Action::Call { suit, alone }));
        }
        for index in 0..=Card::JOKER.index() as u8 {
            let card = Card::from_index(index);
            all.extend([
                Action::Discard { card },
                Action::Play { card },
                Action::PassCard { card },
            ]);
        }
        all
    }

    /// A short name, as used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Action::Pass => "pass",
            Action::OrderUp { .. } => "order_up",
            Action::Call { .. } => "call",
            Action::CallNoTrump { .. } => "call_no_trump",
            Action::Discard { .. } => "discard",
            Action::Play { .. } => "play",
            Action::FarmersHand => "farmers_hand",
            Action::Claim => "claim",
            Action::Concede => "concede",
            Action::DefendAlone => "defend_alone",
            Action::PassCard { .. } => "pass_card",
            Action::NameSuit { .. } => "name_suit",
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
    /// Points each team scored on this hand (`None` when thrown in).
    pub fn points(&self) -> Option<PerTeam<u8>> {
        match self {
            HandOutcome::Played(played) => Some(played.points),
            HandOutcome::ThrownIn(_) => None,
        }
    }
}

/// The result of a hand that was played out (or claimed, or conceded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlayedHand {
    pub maker: Seat,
    /// The maker's team.
    pub makers: Team,
    /// The trump suit; `None` when the hand was played at no trump.
    pub trump: Option<Suit>,
    pub alone: bool,
    /// Tricks taken by each team.
    pub tricks: PerTeam<u8>,
    /// Points awarded to each team.
    pub points: PerTeam<u8>,
    /// The defender who played alone against the loner, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lone_defender: Option<Seat>,
}

impl PlayedHand {
    /// Tricks the makers took.
    pub fn makers_tricks(&self) -> u8 {
        self.tricks[self.makers]
    }

    pub fn euchred(&self) -> bool {
        self.makers_tricks() < 3
    }

    pub fn march(&self) -> bool {
        self.makers_tricks() == 5
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
        hands: DealtHands,
    },
    /// The joker was turned up and the dealer named the suit it stands for.
    JokerSuitNamed {
        dealer: Seat,
        suit: Suit,
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
    /// Round two: the maker called no trump.
    NoTrumpCalled {
        seat: Seat,
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
    /// The maker took the dummy hand (the two- and three-handed games with
    /// a dummy); its cards are his secret.
    DummyTaken {
        seat: Seat,
        cards: Option<CardSet>,
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
        scores: PerTeam<u16>,
    },
    /// A game was won. Playing rubbers, the next game of the rubber is
    /// dealt next unless this game decided it (then [`Event::RubberWon`]).
    GameWon {
        team: Team,
        scores: PerTeam<u16>,
    },
    /// The rubber is decided: two games won.
    RubberWon {
        team: Team,
        result: RubberResult,
    },
}

/// How a rubber ended (sheet 003).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RubberResult {
    /// Rubber points each team won, game by game.
    pub rubber_points: PerTeam<u8>,
    /// The winners' margin: a bonus of 2, plus their rubber points, less the losers'.
    pub margin: u8,
}

impl Event {
    /// The event as `viewer` may see it.
    pub fn for_viewer(self, viewer: Viewer) -> Event {
        let may_see = |seat: Seat| viewer == Viewer::Seat(seat);
        match self {
            Event::HandDealt { number, dealer, up_card, hands } => {
                let seat = match viewer {
                    Viewer::Seat(seat) => Some(seat),
                    Viewer::Spectator => None,
                };
                Event::HandDealt { number, dealer, up_card, hands: hands.only(seat) }
            }
            Event::Discarded { seat, card } => {
                Event::Discarded { seat, card: card.filter(|_| may_see(seat)) }
            }
            Event::CardPassed { from, to, card } => {
                Event::CardPassed { from, to, card: card.filter(|_| may_see(from) || may_see(to)) }
            }
            Event::DummyTaken { seat, cards } => {
                Event::DummyTaken { seat, cards: cards.filter(|_| may_see(seat)) }
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
                for hand in hands.iter().flatten() {
                    shown = shown.union(hand);
                }
            }
            Event::UpCardTurnedDown { card }
            | Event::UpCardPickedUp { card, .. }
            | Event::CardPlayed { card, .. } => shown.insert(card),
            Event::Discarded { card: Some(card), .. }
            | Event::CardPassed { card: Some(card), .. } => shown.insert(card),
            Event::Claimed { cards, .. } | Event::DummyTaken { cards: Some(cards), .. } => {
                shown = cards
            }
            _ => {}
        }
        shown
    }
}

/// Each seat's dealt hand, or nothing where the viewer may not see it. On
/// the wire an array of four, `null` for a hidden (or absent) hand. Held
/// as each hand's 32 suited cards and one byte of masks (shown, and who
/// holds the joker, the 33rd card), 17 bytes where four `Option<CardSet>`
/// take 64: so that an [`Event`] is 24 bytes and the [`EventList`] that
/// `Game::apply` returns by value moves in registers, not by a call to
/// `memcpy`.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct DealtHands {
    /// Each hand's suited cards: a [`CardSet`]'s low 32 bits, as bytes
    /// (alignment 1, so that the event's other fields pack around them).
    suited: [[u8; 4]; 4],
    /// Bit `i`: seat `i`'s hand is shown; bit `4 + i`: it holds the joker.
    shown_and_joker: u8,
}

impl DealtHands {
    /// Every seat's hand, shown.
    pub fn all(cards: [CardSet; 4]) -> DealtHands {
        let mut dealt = DealtHands::default();
        for (index, hand) in cards.into_iter().enumerate() {
            dealt.show(index, hand);
        }
        dealt
    }

    /// Seat `index`'s hand, if shown.
    pub fn get(&self, index: usize) -> Option<CardSet> {
        (index < 4 && self.shown_and_joker & (1 << index) != 0).then(|| {
            let joker = u64::from(self.shown_and_joker >> (4 + index) & 1);
            CardSet(
                u64::from(u32::from_le_bytes(self.suited[index])) | joker << Card::JOKER.index(),
            )
        })
    }

    /// Only `seat`'s hand (none for `None`); the others' cards are dropped.
    pub fn only(self, seat: Option<Seat>) -> DealtHands {
        let mut kept = DealtHands::default();
        if let Some(index) = seat.map(Seat::index).filter(|index| *index < 4)
            && let Some(cards) = self.get(index)
        {
            kept.show(index, cards);
        }
        kept
    }

    /// The four seats' hands in order, `None` where hidden.
    pub fn iter(&self) -> impl Iterator<Item = Option<CardSet>> + '_ {
        (0..4).map(|index| self.get(index))
    }

    /// Shows `cards` as seat `index`'s hand (`index < 4`).
    fn show(&mut self, index: usize, cards: CardSet) {
        self.suited[index] = (cards.0 as u32).to_le_bytes();
        let joker = u8::from(cards.contains(Card::JOKER));
        self.shown_and_joker |= (1 | joker << 4) << index;
    }
}

impl fmt::Debug for DealtHands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for DealtHands {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for DealtHands {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let hands = Vec::<Option<CardSet>>::deserialize(deserializer)?;
        if hands.len() > 4 {
            return Err(serde::de::Error::invalid_length(hands.len(), &"four hands at most"));
        }
        let mut dealt = DealtHands::default();
        for (index, hand) in hands.into_iter().enumerate() {
            if let Some(cards) = hand {
                dealt.show(index, cards);
            }
        }
        Ok(dealt)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for DealtHands {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <[Option<CardSet>; 4]>::schema_name()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <[Option<CardSet>; 4]>::json_schema(generator)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn set(text: &str) -> CardSet {
        parse_cards(text).expect("cards").into_iter().collect()
    }

    #[test]
    fn dealt_hands_keep_every_card_the_joker_included() {
        let hands = [set("9c Tc Jc Qc Kc"), set("JK Ad 9s 7h 8h"), CardSet::EMPTY, set("As Ah")];
        let dealt = DealtHands::all(hands);
        assert_eq!(dealt.iter().collect::<Vec<_>>(), hands.map(Some).to_vec());
        let mine = dealt.only(Some(Seat(1)));
        assert_eq!(mine.iter().collect::<Vec<_>>(), vec![None, Some(hands[1]), None, None]);
        assert_eq!(dealt.only(None), DealtHands::default());
        let json = serde_json::to_string(&mine).expect("json");
        assert_eq!(json, r#"[null,["9s","7h","8h","Ad","JK"],null,null]"#);
        assert_eq!(serde_json::from_str::<DealtHands>(&json).expect("parses"), mine);
    }

    #[test]
    fn events_stay_small_enough_to_move_without_memcpy() {
        // A guard, not a timing: Game::apply returns an EventList by value,
        // and past 128 bytes the compiler moves it with a call to memcpy.
        assert!(std::mem::size_of::<Event>() <= 24, "{}", std::mem::size_of::<Event>());
        assert!(std::mem::size_of::<EventList>() <= 128);
    }

    #[test]
    fn every_action_reads_back_as_written_in_any_field_order() {
        let card: Card = "Jd".parse().expect("a card");
        let actions = [
            Action::Pass,
            Action::OrderUp { alone: false },
            Action::OrderUp { alone: true },
            Action::Call { suit: Suit::Hearts, alone: true },
            Action::CallNoTrump { alone: false },
            Action::Discard { card },
            Action::Play { card },
            Action::FarmersHand,
            Action::Claim,
            Action::Concede,
            Action::DefendAlone,
            Action::PassCard { card },
            Action::NameSuit { suit: Suit::Clubs },
        ];
        for action in actions {
            let json = serde_json::to_string(&action).expect("json");
            assert_eq!(serde_json::from_str::<Action>(&json).expect(&json), action);
        }
        let read = |json: &str| serde_json::from_str::<Action>(json).map_err(|e| e.to_string());
        // The tag need not come first; `alone` defaults; others are ignored.
        assert_eq!(read(r#"{"card":"Jd","action":"play"}"#), Ok(Action::Play { card }));
        assert_eq!(read(r#"{"action":"order_up","x":1}"#), Ok(Action::OrderUp { alone: false }));
        // What the action needs must be there, and the tag must be one.
        assert!(read(r#"{"action":"play"}"#).is_err_and(|e| e.contains("missing field `card`")));
        assert!(read(r#"{"action":"call"}"#).is_err_and(|e| e.contains("missing field `suit`")));
        assert!(read(r#"{"action":"shout"}"#).is_err_and(|e| e.contains("unknown variant")));
        assert!(read(r#"{"card":"Jd"}"#).is_err_and(|e| e.contains("missing field `action`")));
    }
}
