//! The match history as the API shows it: a match as listed
//! ([`MatchSummaryView`], a page of them in [`MatchList`]) and in full
//! ([`MatchView`]: every hand, its actions and tricks).

use std::borrow::Cow;

use euchre_engine::{Action, Card, CardSet, Commitment, DealCheck, HandOutcome, Rules, Salt, Suit};
use serde::{Deserialize, Serialize};

/// One page of matches, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchList {
    pub matches: Vec<MatchSummaryView>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A match as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchSummaryView {
    pub id: String,
    /// The table it was played at; `"import"` for an imported EGN record.
    pub table_id: String,
    /// The game's number at its table: 1, 2, … with rematches.
    pub number: u32,
    /// Imported from EGN rather than played here.
    pub imported: bool,
    /// The engine's rule options (`Rules`, every field named).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub rules: Rules,
    pub seats: Vec<SeatView>,
    /// When it started and ended, in ms since the Unix epoch (an import:
    /// when it was imported).
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub finished: bool,
    /// Points so far (final once finished), one per side: four-handed,
    /// `[seats 0 and 2, seats 1 and 3]`; otherwise one per player, the
    /// index being the seat.
    pub scores: Vec<u16>,
    /// The winning side, an index into `scores` (of the rubber, when the
    /// match is one); `null` until the match is won.
    pub winner: Option<u8>,
    /// The seats that won: both partners, or the one player; empty until
    /// the match is won.
    pub winners: Vec<u8>,
    /// A rubber's games once it has ended (sheet 003); empty for a single
    /// game. While a rubber is in progress `scores` count across its games.
    pub rubber: Vec<RubberGameView>,
    /// Set when the match can no longer finish (its table closed before
    /// the game ended): it is over, unwon, and its replay shows every card.
    pub abandoned: Option<AbandonedView>,
}

/// When and why a match was abandoned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AbandonedView {
    pub at: i64,
    /// `everyone_left` (its table closed after everyone left) or `lost`
    /// (the server could not restore its table after a restart).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub reason: Cow<'static, str>,
}

/// One game of a rubber.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RubberGameView {
    /// The side that won that game.
    pub winner: u8,
    /// Each side's points in that game, as `scores` in the summary.
    pub scores: Vec<u16>,
    /// 3 if the losers scored 0, 2 for 1 or 2, 1 for 3 or more.
    pub rubber_points: u8,
}

/// Who sat in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeatView {
    pub seat: u8,
    /// The registered player, or `null` for a bot or an imported name.
    pub player_id: Option<String>,
    /// The bot's kind (`random`, `basic`), for a bot.
    pub bot: Option<String>,
    pub name: String,
    /// The player left the match in progress and this bot played the seat
    /// to the end; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<StandInView>,
}

/// A bot that finished a match for a player who left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StandInView {
    /// The bot's kind.
    pub bot: String,
    /// The hand (from 0) from which it played the seat.
    pub from_hand: u32,
}

/// A match in full: every hand, with the hidden cards once it is over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchView {
    #[serde(flatten)]
    pub summary: MatchSummaryView,
    /// Whether the deals and discards are shown: only once the match is over.
    pub cards_revealed: bool,
    /// Who dealt first.
    pub first_dealer: u8,
    pub hands: Vec<HandView>,
}

/// One hand: the public record always, the cards dealt once the match is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HandView {
    /// Counting from 0.
    pub number: u32,
    pub dealer: u8,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Jh"))]
    pub up_card: Card,
    /// Each seat's five cards as dealt, one hand per seat (four, three or
    /// two); `null` while the match is in progress.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Vec<String>>>))]
    pub hands: Option<Vec<CardSet>>,
    /// The three-card dummy of the two- and three-handed games that have
    /// one, as dealt; `null` while the match is in progress, and in the
    /// games without a dummy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<String>>))]
    pub dummy: Option<CardSet>,
    /// The face-down rest of the kitty; `null` while the match is in progress.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<String>>))]
    pub kitty: Option<CardSet>,
    /// Every action in order: bids, the discard, plays, claims, concessions.
    pub actions: Vec<ActionView>,
    /// The tricks as played; the last may be incomplete.
    pub tricks: Vec<TrickView>,
    /// How the hand ended (the engine's `HandOutcome`); `null` while it is played.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub outcome: Option<HandOutcome>,
    /// The match score after this hand, one per side as in the summary
    /// (in a rubber, the score of the game this hand belongs to).
    pub scores: Vec<u16>,
    /// The SHA-256 commitment to this deal that every seat was sent before
    /// the first bid (docs/security.md); `null` for a hand dealt before
    /// deals were sealed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "3104dd3e8e0bbc6fb46da716e3ecec60b800a5ec67a7c6680d6b7c8e0db845ca"))]
    pub commitment: Option<Commitment>,
    /// The salt that opens the commitment; `null` while the match is in
    /// progress. SHA-256 of `euchre-deal-v1:` + the deck (`hands` in seat
    /// order, `dummy`, `up_card`, `kitty`, each card as listed here, joined
    /// by commas) + `:` + `salt` is `commitment`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub salt: Option<Salt>,
    /// The server's check of the above: `verified`, `mismatch` (the stored
    /// hand is not the one committed to), or `unsealed` (no commitment was
    /// made); `null` while the match is in progress.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "verified"))]
    pub deal_check: Option<DealCheck>,
}

/// One action, as the engine names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionView {
    pub seat: u8,
    /// The engine's name for it: `pass`, `order_up`, `call`, `discard`,
    /// `play`, `claim`, `concede`, … (`Action::name`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub action: Cow<'static, str>,
    /// For `order_up` and `call`: the maker goes alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone: Option<bool>,
    /// For `call`, and for `name_suit` (the suit a turned-up joker stands
    /// for): the suit named.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "hearts"))]
    pub suit: Option<Suit>,
    /// For `play`; for `discard` and `pass_card` once the match is over
    /// (until then they are face down).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "9s"))]
    pub card: Option<Card>,
}

impl ActionView {
    /// `action` by `seat`; a card it carries face down only if `revealed`.
    pub fn new(seat: u8, action: Action, revealed: bool) -> ActionView {
        let mut view = ActionView {
            seat,
            action: Cow::Borrowed(action.name()),
            alone: None,
            suit: None,
            card: None,
        };
        match action {
            Action::OrderUp { alone } => view.alone = Some(alone),
            Action::Call { suit, alone } => (view.suit, view.alone) = (Some(suit), Some(alone)),
            Action::NameSuit { suit } => view.suit = Some(suit),
            Action::Play { card } => view.card = Some(card),
            Action::Discard { card } | Action::PassCard { card } if revealed => {
                view.card = Some(card)
            }
            // Any other card an action carries stays hidden: secrecy by default.
            _ => {}
        }
        view
    }
}

/// A trick: the cards in playing order (the first is the lead) and who won it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TrickView {
    pub plays: Vec<PlayView>,
    /// The seat that took it; `null` while it is being played.
    pub winner: Option<u8>,
}

/// One card played, and by whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayView {
    pub seat: u8,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Jh"))]
    pub card: Card,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suit_named_for_a_turned_up_joker_is_shown() {
        let named = ActionView::new(3, Action::NameSuit { suit: Suit::Hearts }, false);
        assert_eq!(
            (named.action.as_ref(), named.suit, named.card),
            ("name_suit", Some(Suit::Hearts), None)
        );
    }

    #[test]
    fn a_match_reads_back_as_written() {
        let hand = HandView {
            number: 0,
            dealer: 3,
            up_card: "Jh".parse().expect("a card"),
            hands: None,
            dummy: None,
            kitty: None,
            actions: vec![
                ActionView::new(0, Action::OrderUp { alone: false }, false),
                ActionView::new(3, Action::Discard { card: "9s".parse().expect("a card") }, false),
            ],
            tricks: vec![TrickView { plays: Vec::new(), winner: None }],
            outcome: None,
            scores: vec![0, 0],
            commitment: None,
            salt: None,
            deal_check: None,
        };
        let summary = MatchSummaryView {
            id: "m".into(),
            table_id: "t".into(),
            number: 1,
            imported: false,
            rules: Rules::default(),
            seats: vec![SeatView {
                seat: 0,
                player_id: None,
                bot: Some("basic".into()),
                name: "B".into(),
                stand_in: None,
            }],
            started_at: 1,
            ended_at: None,
            finished: false,
            scores: vec![0, 0],
            winner: None,
            winners: Vec::new(),
            rubber: Vec::new(),
            abandoned: Some(AbandonedView { at: 2, reason: "lost".into() }),
        };
        let view = MatchView { summary, cards_revealed: false, first_dealer: 3, hands: vec![hand] };
        let json = serde_json::to_string(&view).expect("writes");
        assert!(!json.contains("9s"), "a discard in progress stays face down: {json}");
        let read: MatchView = serde_json::from_str(&json).expect("reads");
        assert_eq!(read, view);
    }
}
