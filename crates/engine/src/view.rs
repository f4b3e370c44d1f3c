//! What one seat, or a spectator, may know: never another hand, the kitty,
//! or somebody else's discard.

use serde::{Deserialize, Serialize};

use crate::action::{Action, HandOutcome, PerTeam, Seat, Team, Viewer};
use crate::card::{Card, Suit};
use crate::game::{Game, GameResult};
use crate::hand::Phase;
use crate::rules::Rules;
use crate::trump::{self, Mode};

/// A trick as everybody saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrickView {
    pub leader: Seat,
    /// Cards in playing order.
    pub cards: Vec<(Seat, Card)>,
    /// Set once the trick is complete.
    pub winner: Option<Seat>,
}

/// The game as `viewer` may know it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameView {
    pub viewer: Viewer,
    pub rules: Rules,
    pub hand_number: u32,
    pub dealer: Seat,
    pub phase: Phase,
    pub turn: Option<Seat>,
    pub scores: PerTeam<u16>,
    pub winner: Option<Team>,
    /// Playing rubbers: the games finished so far.
    pub games: Vec<GameResult>,
    pub up_card: Card,
    /// The suit a turned-up joker stands for, once the dealer has named it.
    pub joker_suit: Option<Suit>,
    /// True once the dealer has taken the up-card into his hand.
    pub up_card_picked_up: bool,
    pub turned_down: Option<Suit>,
    pub trump: Option<Suit>,
    /// The maker called no trump (`trump` is then `None`).
    pub no_trump: bool,
    pub maker: Option<Seat>,
    pub alone: bool,
    pub sitting_out: Option<Seat>,
    /// The defender playing alone against the loner (his partner sits out too).
    pub lone_defender: Option<Seat>,
    /// The viewer's own cards, trump first and strongest first (a seat only).
    pub hand: Option<Vec<Card>>,
    /// How many cards each seat holds.
    pub hand_sizes: [u8; 4],
    /// The dealer's discard, shown to the dealer alone.
    pub discard: Option<Card>,
    /// Call for best: the card the partner passed the loner, shown to those two.
    pub passed_card: Option<Card>,
    /// Call for best: the loner's discard, shown to the loner alone.
    pub loner_discard: Option<Card>,
    /// The bids of this hand, in order.
    pub bids: Vec<(Seat, Action)>,
    /// This hand's tricks so far, the one in progress last.
    pub tricks: Vec<TrickView>,
    pub tricks_won: PerTeam<u8>,
    /// Whether the maker took the dummy (the games with a dummy).
    pub dummy_taken: bool,
    /// The maker's discards after taking the dummy, shown to him alone.
    pub dummy_discards: Option<Vec<Card>>,
    /// How the previous hand ended, if there was one.
    pub last_outcome: Option<HandOutcome>,
}

impl GameView {
    pub(crate) fn new(game: &Game, viewer: Viewer) -> GameView {
        let hand = game.hand();
        let own_seat = match viewer {
            Viewer::Seat(seat) if seat.0 < game.rules().players => Some(seat),
            _ => None,
        };
        let records = &game.record().hands;
        let current = records.last().map(|h| h.actions.as_slice()).unwrap_or_default();
        let bids = current
            .iter()
            .filter(|step| {
                matches!(
                    step.action,
                    Action::Pass
                        | Action::NameSuit { .. }
                        | Action::OrderUp { .. }
                        | Action::Call { .. }
                        | Action::CallNoTrump { .. }
                        | Action::FarmersHand
                        | Action::DefendAlone
                )
            })
            .map(|step| (step.seat, step.action))
            .collect();
        let mut hand_sizes = [0u8; 4];
        for seat in Seat::all(game.rules().players) {
            hand_sizes[seat.index()] = hand.holding(seat).len() as u8;
        }
        let last_outcome = records.len().checked_sub(2).and_then(|i| records[i].outcome);
        GameView {
            viewer,
            rules: *game.rules(),
            hand_number: game.hand_number(),
            dealer: hand.dealer(),
            phase: hand.phase(),
            turn: game.turn(),
            scores: game.scores(),
            winner: game.winner(),
            games: game.games().to_vec(),
            up_card: hand.up_card(),
            joker_suit: hand.up_suit().filter(|_| hand.up_card().is_joker()),
            up_card_picked_up: hand.up_card_picked_up(),
            turned_down: hand.turned_down(),
            trump: hand.trump(),
            maker: hand.maker(),
            alone: hand.alone(),
            sitting_out: hand.sitting_out(),
            lone_defender: hand.lone_defender(),
            hand: own_seat
                .map(|seat| sorted_for_display(hand.holding(seat).to_vec(), hand.trump())),
            hand_sizes,
            discard: own_seat.filter(|seat| *seat == hand.dealer()).and(hand.discard()),
            passed_card: own_seat
                .filter(|seat| {
                    let partnership = game.rules().partnerships();
                    hand.maker()
                        .is_some_and(|m| m == *seat || (partnership && m.partner() == *seat))
                })
                .and(hand.passed_card()),
            loner_discard: own_seat
                .filter(|seat| hand.maker() == Some(*seat))
                .and(hand.loner_discard()),
            bids,
            no_trump: hand.no_trump(),
            tricks: tricks_of(
                current,
                hand.maker().map(|_| Mode::of(hand.trump())),
                sitting_out_count(hand),
                game.rules().players,
            ),
            tricks_won: hand.tricks_won(),
            dummy_taken: hand.dummy_taken(),
            dummy_discards: own_seat
                .filter(|seat| hand.maker() == Some(*seat) && hand.dummy_taken())
                .map(|_| hand.dummy_discards().to_vec()),
            last_outcome,
        }
    }
}

/// Trump first (once known), then the other suits; strongest first in each.
pub fn sorted_for_display(mut cards: Vec<Card>, trump: Option<Suit>) -> Vec<Card> {
    cards.sort_by_key(|card| match trump {
        Some(trump) => {
            let suit = trump::effective_suit(*card, trump);
            let group = if suit == trump { 0 } else { 1 + suit as u8 };
            (group, std::cmp::Reverse(trump::power(*card, trump)))
        }
        // Before trump is made the joker leads the hand, then suit by suit.
        None if card.is_joker() => (0, std::cmp::Reverse(u8::MAX)),
        None => (1 + card.suit() as u8, std::cmp::Reverse(card.rank() as u8)),
    });
    cards
}

/// How many seats sit this hand out (the loner's partner, a lone defender's).
fn sitting_out_count(hand: &crate::hand::Hand) -> usize {
    Seat::all(hand.rules().players).filter(|seat| hand.sits_out(*seat)).count()
}

/// Rebuilds this hand's tricks from its played cards.
fn tricks_of(
    actions: &[crate::record::SeatAction],
    mode: Option<Mode>,
    sitting_out: usize,
    players: u8,
) -> Vec<TrickView> {
    let Some(mode) = mode else {
        return Vec::new();
    };
    let per_trick = usize::from(players) - sitting_out;
    let plays: Vec<(Seat, Card)> = actions
        .iter()
        .filter_map(|step| match step.action {
            Action::Play { card } => Some((step.seat, card)),
            _ => None,
        })
        .collect();
    plays
        .chunks(per_trick)
        .map(|chunk| {
            let cards: Vec<Card> = chunk.iter().map(|(_, c)| *c).collect();
            let winner =
                (chunk.len() == per_trick).then(|| chunk[trump::trick_winner_in(&cards, mode)].0);
            TrickView { leader: chunk[0].0, cards: chunk.to_vec(), winner }
        })
        .collect()
}
