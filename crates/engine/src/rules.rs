//! The rule options, where the rule sheets disagree, and the named presets.
//!
//! Every field is data the engine reads; nothing about the game's shape is a
//! constant elsewhere. `../shared/rules/NOTES.md` explains each default.

use serde::{Deserialize, Serialize};

use crate::action::{Seat, Team};
use crate::card::{Card, CardSet, Rank};

/// A complete set of rules for one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rules {
    /// Number of seats: 4 (two partnerships), 3 or 2 (every player for
    /// himself). Only the four-handed game has partners.
    pub players: u8,
    /// The two- and three-handed games of sheet 000: a three-card dummy hand
    /// is dealt, which the maker takes into his hand (discarding as many)
    /// unless he goes alone, which there means playing without it.
    pub dummy: bool,
    /// Which cards are in the pack.
    pub deck: Deck,
    /// The sites' option (EGN `allow_no_trump`): in round two a player may
    /// call no trump: no bowers, jacks rank between ten and queen, the
    /// highest card of the suit led wins.
    pub allow_no_trump: bool,
    /// Sheet 003: a joker is added as the highest trump. Turned up, the
    /// dealer first names the suit it stands for (see `Phase::NamingJokerSuit`).
    pub joker: bool,
    /// The first side to reach this many points wins the game.
    pub points_to_win: u8,
    /// A game of this many hands instead (a progressive euchre night's
    /// round): after the last, the side ahead wins, and `points_to_win` ends
    /// nothing. Hands thrown in (everybody passed, a farmer's hand) are not
    /// counted. Level after the last, the game goes on a hand at a time
    /// until one side leads, so a game always has a winner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_hands: Option<u8>,
    /// Sheet 003's rubbers: the match is the best of three games, scored in
    /// rubber points (see [`crate::RubberResult`]). Two teams only.
    pub rubber: bool,
    /// What happens when everybody passes twice.
    pub all_pass: AllPass,
    /// Points for each way a hand can end.
    pub scoring: Scoring,
    /// May the dealer discard the up-card he has just picked up? (002 forbids it.)
    pub dealer_may_discard_up_card: bool,
    /// Does the dealer pick up the up-card when his partner orders it up alone?
    /// The sheets say yes; many clubs skip it because the dealer sits out.
    pub dealer_picks_up_for_partner_loner: bool,
    /// What naming the turned-down suit in round two means.
    pub turned_down_suit: TurnedDownSuit,
    /// Who leads the first trick against a loner.
    pub loner_lead: LonerLead,
    /// May a player dealt only nines and tens (the two lowest ranks) throw the
    /// hand in for a redeal?
    pub farmers_hand: bool,
    /// How the first dealer of a game is chosen.
    pub first_dealer: FirstDealer,
    /// Canadian loner: in round one the dealer's partner may order up only
    /// alone (the sites' option; EGN `canadian`).
    pub canadian_loner: bool,
    /// Defend alone: when a maker goes alone, each defender in turn from the
    /// loner's left may defend alone (his partner sits out too) or pass; the
    /// first to accept does. A euchred loner then gives the lone defender's
    /// side `scoring.defender_alone_euchre` (the sites' option; EGN
    /// `defend_alone`).
    pub defend_alone: bool,
    /// Call for best (partner's best): when a maker goes alone, his partner
    /// passes him one card of the partner's choice, face down, and the loner
    /// discards one before play (the sites' option; EGN `partners_best`).
    pub call_for_best: bool,
}

/// The pack: ten to ace (20: the two-handed game of sheet 000 removes the
/// nines), nine to ace (24), eight to ace (28) or seven to ace (32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Deck {
    TenToAce,
    NineToAce,
    EightToAce,
    SevenToAce,
}

impl Deck {
    /// Every deck, in declaration order (`deck as usize` is its place).
    pub const ALL: [Deck; 4] =
        [Deck::TenToAce, Deck::NineToAce, Deck::EightToAce, Deck::SevenToAce];

    pub const fn lowest_rank(self) -> Rank {
        match self {
            Deck::TenToAce => Rank::Ten,
            Deck::NineToAce => Rank::Nine,
            Deck::EightToAce => Rank::Eight,
            Deck::SevenToAce => Rank::Seven,
        }
    }

    pub const fn cards(self) -> CardSet {
        CardSet::ranks_from(self.lowest_rank())
    }

    /// How many cards the pack holds.
    pub const fn size(self) -> u32 {
        4 * (Rank::Ace as u32 + 1 - self.lowest_rank() as u32)
    }

    /// The two lowest ranks: a hand of only these is a farmer's hand.
    pub const fn farmers_cards(self) -> CardSet {
        let low = self.lowest_rank() as u32;
        CardSet((0b11u64 << low) * 0x0101_0101)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum AllPass {
    /// The hand is thrown in and the deal passes to the left.
    Redeal,
    /// The dealer may not pass in round two and must name a suit.
    StickTheDealer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TurnedDownSuit {
    /// Naming it is an error.
    Rejected,
    /// Naming it is accepted and counts as a pass (sheet 002).
    CountsAsPass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LonerLead {
    /// The player left of the dealer leads, or the next player if that one sits out.
    LeftOfDealer,
    /// The player left of the loner leads.
    LeftOfLoner,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum FirstDealer {
    /// Cards are dealt face up around the table; the first jack deals.
    FirstJack,
    /// Everybody draws a card (K high ... A low); the two lowest play the two
    /// highest and the lowest deals. Ties draw again.
    Draw,
}

/// Points awarded at the end of a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Scoring {
    /// Makers take 3 or 4 tricks (alone or not).
    pub made: u8,
    /// Makers take all 5 tricks.
    pub march: u8,
    /// A lone maker takes all 5 tricks.
    pub lone_march: u8,
    /// Makers are euchred: the defenders score this.
    pub euchre: u8,
    /// A lone maker is euchred: the defenders score this (2 or 4).
    pub lone_euchre: u8,
    /// A lone maker is euchred by a defender playing alone (see
    /// [`Rules::defend_alone`]): the defenders score this.
    pub defender_alone_euchre: u8,
}

impl Default for Scoring {
    fn default() -> Scoring {
        Scoring {
            made: 1,
            march: 2,
            lone_march: 4,
            euchre: 2,
            lone_euchre: 2,
            defender_alone_euchre: 4,
        }
    }
}

impl Default for Rules {
    /// Our defaults, as `NOTES.md` lists them.
    fn default() -> Rules {
        Rules {
            players: 4,
            dummy: false,
            deck: Deck::NineToAce,
            joker: false,
            allow_no_trump: false,
            points_to_win: 10,
            game_hands: None,
            rubber: false,
            all_pass: AllPass::Redeal,
            scoring: Scoring::default(),
            dealer_may_discard_up_card: true,
            dealer_picks_up_for_partner_loner: true,
            turned_down_suit: TurnedDownSuit::Rejected,
            loner_lead: LonerLead::LeftOfDealer,
            farmers_hand: false,
            first_dealer: FirstDealer::FirstJack,
            canadian_loner: false,
            defend_alone: false,
            call_for_best: false,
        }
    }
}

/// Named sets of rules, one per consistent rule sheet plus our default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Preset {
    /// Our defaults (`NOTES.md`).
    Standard,
    /// Sheet 000: stick the dealer, a euchred loner gives 4, first jack deals.
    StickTheDealer,
    /// Sheet 002 (club and tournament rules): the picked-up card cannot be
    /// discarded, naming the turned-down suit counts as a pass.
    Tournament,
    /// Sheet 003 (the classic rules): the draw sets partners and the first
    /// dealer, the dealer keeps the up-card.
    Classic,
    /// Sheet 004 (house rules): farmer's hand allowed.
    Farmers,
    /// Online play as in the euchre.com records: stick the dealer, the
    /// player left of the loner leads.
    Online,
    /// Sheet 000's three-handed game: a three-card dummy for the maker, no
    /// partnerships, each defender scores on a euchre (4 against a loner).
    ThreeHanded,
    /// Sheet 004's cutthroat: three players, the maker alone against the
    /// other two, a march scores 3, each defender scores 2 on a euchre.
    Cutthroat,
    /// Sheet 000's two-handed game: the three-handed rules with the nines
    /// removed (20 cards: the dummy and a seven-card kitty).
    TwoHanded,
    /// Sheet 004's two-player Euchre: the 24-card pack, five cards each, the
    /// usual rules with two cards to a trick.
    TwoHandedPlain,
    /// Sheet 003 with the 32-card pack (seven to ace).
    ClassicPiquet,
    /// Sheet 003 with the joker added as the highest trump.
    ClassicJoker,
    /// Sheet 003 scored in rubbers: best of three games, rubber points.
    ClassicRubber,
    /// Sheet 004's house rules with the eights added (28 cards; a farmer's
    /// hand is then of nines and eights).
    FarmersEights,
}

impl Preset {
    pub const ALL: [Preset; 14] = [
        Preset::Standard,
        Preset::StickTheDealer,
        Preset::Tournament,
        Preset::Classic,
        Preset::Farmers,
        Preset::Online,
        Preset::ThreeHanded,
        Preset::Cutthroat,
        Preset::TwoHanded,
        Preset::TwoHandedPlain,
        Preset::ClassicPiquet,
        Preset::ClassicJoker,
        Preset::ClassicRubber,
        Preset::FarmersEights,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Standard => "standard",
            Preset::StickTheDealer => "stick_the_dealer",
            Preset::Tournament => "tournament",
            Preset::Classic => "classic",
            Preset::Farmers => "farmers",
            Preset::Online => "online",
            Preset::ThreeHanded => "three_handed",
            Preset::Cutthroat => "cutthroat",
            Preset::TwoHanded => "two_handed",
            Preset::TwoHandedPlain => "two_handed_plain",
            Preset::ClassicPiquet => "classic_piquet",
            Preset::ClassicJoker => "classic_joker",
            Preset::ClassicRubber => "classic_rubber",
            Preset::FarmersEights => "farmers_eights",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| preset.name() == name)
    }

    pub fn rules(self) -> Rules {
        let standard = Rules::default();
        match self {
            Preset::Standard => standard,
            Preset::StickTheDealer => Rules {
                all_pass: AllPass::StickTheDealer,
                scoring: Scoring { lone_euchre: 4, ..Scoring::default() },
                ..standard
            },
            Preset::Tournament => Rules {
                dealer_may_discard_up_card: false,
                turned_down_suit: TurnedDownSuit::CountsAsPass,
                ..standard
            },
            Preset::Classic => Rules {
                dealer_may_discard_up_card: false,
                first_dealer: FirstDealer::Draw,
                ..standard
            },
            Preset::Farmers => Rules { farmers_hand: true, ..standard },
            Preset::Online => Rules {
                all_pass: AllPass::StickTheDealer,
                loner_lead: LonerLead::LeftOfLoner,
                ..standard
            },
            Preset::ThreeHanded => Rules {
                players: 3,
                dummy: true,
                all_pass: AllPass::StickTheDealer,
                scoring: Scoring { lone_euchre: 4, ..Scoring::default() },
                ..standard
            },
            Preset::Cutthroat => Rules {
                players: 3,
                scoring: Scoring { march: 3, ..Scoring::default() },
                ..standard
            },
            Preset::TwoHanded => Rules {
                players: 2,
                dummy: true,
                deck: Deck::TenToAce,
                ..Preset::ThreeHanded.rules()
            },
            Preset::TwoHandedPlain => Rules { players: 2, ..standard },
            Preset::ClassicPiquet => Rules { deck: Deck::SevenToAce, ..Preset::Classic.rules() },
            Preset::ClassicJoker => Rules { joker: true, ..Preset::Classic.rules() },
            Preset::ClassicRubber => Rules { rubber: true, ..Preset::Classic.rules() },
            Preset::FarmersEights => Rules { deck: Deck::EightToAce, ..Preset::Farmers.rules() },
        }
    }
}

/// Who plays against whom: the shape of the game, whatever its other rules.
/// Each form has its own ratings and leaderboard; see [`Rules::form`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameForm {
    /// Four players in two partnerships.
    Partnership,
    /// Three players, the maker alone against the other two.
    Cutthroat,
    /// Three players and a dummy hand for the maker.
    ThreeHanded,
    /// Two players and a dummy hand for the maker.
    TwoHanded,
    /// Two players, no dummy.
    TwoHandedPlain,
}

impl GameForm {
    /// Every form, the partnership game first (the leaderboard's default).
    pub const ALL: [GameForm; 5] = [
        GameForm::Partnership,
        GameForm::Cutthroat,
        GameForm::ThreeHanded,
        GameForm::TwoHanded,
        GameForm::TwoHandedPlain,
    ];

    /// The form's name: the key of each stored rating and the `form` of the
    /// HTTP API and the protocol, so a name never changes.
    pub const fn name(self) -> &'static str {
        match self {
            GameForm::Partnership => "partnership",
            GameForm::Cutthroat => "cutthroat",
            GameForm::ThreeHanded => "three_handed",
            GameForm::TwoHanded => "two_handed",
            GameForm::TwoHandedPlain => "two_handed_plain",
        }
    }

    pub fn from_name(name: &str) -> Option<GameForm> {
        GameForm::ALL.into_iter().find(|form| form.name() == name)
    }
}

/// Rules that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("{0} players: Euchre is played by 2, 3 or 4")]
    UnsupportedPlayers(u8),
    #[error("points_to_win must be at least 1")]
    NoTarget,
    #[error("{0} needs partners: only the four-handed game has them")]
    NeedsPartners(&'static str),
    #[error("the joker is a trump: it cannot be played with no trump allowed")]
    JokerWithNoTrump,
    #[error("a game of a fixed number of hands needs at least one")]
    NoHands,
    #[error("a rubber is won by games to a target, not by a fixed number of hands")]
    RubberOfHands,
    #[error("a rubber is played between two sides")]
    RubberNeedsTwoSides,
    #[error("the dummy belongs to the two- and three-handed games")]
    DummyNeedsFewerPlayers,
    #[error("the pack is too small: {players} hands, a dummy and an up-card need {needed} cards")]
    PackTooSmall { players: u8, needed: u32 },
}

/// Cards in the dummy hand, where there is one.
pub const DUMMY_SIZE: u32 = 3;

/// Cards each player holds after the deal, in every game form.
pub const HAND_SIZE: u32 = 5;

impl Rules {
    /// Checks that these rules describe a game the engine can play.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(2..=4).contains(&self.players) {
            return Err(RulesError::UnsupportedPlayers(self.players));
        }
        if self.points_to_win == 0 {
            return Err(RulesError::NoTarget);
        }
        if !self.partnerships() {
            let needs = [
                (self.defend_alone, "defend alone"),
                (self.canadian_loner, "the Canadian loner"),
                (self.call_for_best, "call for best"),
            ];
            if let Some((_, option)) = needs.into_iter().find(|(on, _)| *on) {
                return Err(RulesError::NeedsPartners(option));
            }
        }
        if self.game_hands == Some(0) {
            return Err(RulesError::NoHands);
        }
        if self.rubber && self.game_hands.is_some() {
            return Err(RulesError::RubberOfHands);
        }
        if self.rubber && self.teams() != 2 {
            return Err(RulesError::RubberNeedsTwoSides);
        }
        if self.joker && self.allow_no_trump {
            return Err(RulesError::JokerWithNoTrump);
        }
        if self.dummy && self.partnerships() {
            return Err(RulesError::DummyNeedsFewerPlayers);
        }
        let needed = self.hand_size() * u32::from(self.players) + self.dummy_size() + 1;
        if needed > self.pack().len() {
            return Err(RulesError::PackTooSmall { players: self.players, needed });
        }
        Ok(())
    }

    /// Cards each player holds after the deal.
    pub const fn hand_size(&self) -> u32 {
        HAND_SIZE
    }

    /// Every card in play: the deck's, and the joker where it is added.
    pub const fn pack(&self) -> CardSet {
        let cards = self.deck.cards();
        if self.joker { cards.union(CardSet::single(Card::JOKER)) } else { cards }
    }

    /// Cards in the dummy hand (none without one).
    pub const fn dummy_size(&self) -> u32 {
        if self.dummy { DUMMY_SIZE } else { 0 }
    }

    /// The game form: the number of players, and whether there is a dummy.
    pub const fn form(&self) -> GameForm {
        match (self.players, self.dummy) {
            (4, _) => GameForm::Partnership,
            (3, false) => GameForm::Cutthroat,
            (3, true) => GameForm::ThreeHanded,
            (2, true) => GameForm::TwoHanded,
            _ => GameForm::TwoHandedPlain,
        }
    }

    /// Whether players sit in partnerships: the four-handed game only.
    pub const fn partnerships(&self) -> bool {
        self.players == 4
    }

    /// How many teams score: two partnerships, or one per player.
    pub const fn teams(&self) -> u8 {
        if self.partnerships() { 2 } else { self.players }
    }

    /// The team `seat` scores for.
    pub const fn team_of(&self, seat: Seat) -> Team {
        if self.partnerships() { Team(seat.0 & 1) } else { Team(seat.0) }
    }

    /// Whether a maker may go alone: without his partner, or without the
    /// dummy. Cutthroat's maker always plays alone against the other two,
    /// and the plain two-handed game has nobody to leave out.
    pub const fn may_go_alone(&self) -> bool {
        self.partnerships() || self.dummy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip_by_name_and_are_valid() {
        for preset in Preset::ALL {
            assert_eq!(Preset::from_name(preset.name()), Some(preset));
            assert_eq!(preset.rules().validate(), Ok(()));
        }
    }

    #[test]
    fn each_form_has_its_own_name_and_its_presets() {
        for form in GameForm::ALL {
            assert_eq!(GameForm::from_name(form.name()), Some(form));
            assert!(Preset::ALL.iter().any(|preset| preset.rules().form() == form), "{form:?}");
        }
        assert_eq!(GameForm::from_name("Partnership"), None);
        assert_eq!(Rules::default().form(), GameForm::ALL[0]);
    }

    #[test]
    fn rules_read_from_partial_json_take_defaults() {
        let rules: Rules =
            serde_json::from_str(r#"{"all_pass":"stick_the_dealer","points_to_win":5}"#)
                .expect("valid rules");
        assert_eq!(rules.all_pass, AllPass::StickTheDealer);
        assert_eq!(rules.points_to_win, 5);
        assert_eq!(rules.scoring, Scoring::default());
        assert!(serde_json::from_str::<Rules>(r#"{"jokers":true}"#).is_err());
    }

    #[test]
    fn farmers_cards_are_the_two_lowest_ranks() {
        assert_eq!(Deck::NineToAce.farmers_cards().len(), 8);
        assert!(Deck::NineToAce.farmers_cards().iter().all(|c| c.rank() <= Rank::Ten));
        assert!(Deck::SevenToAce.farmers_cards().iter().all(|c| c.rank() <= Rank::Eight));
        assert_eq!(Deck::EightToAce.size(), 28);
        assert_eq!(Deck::TenToAce.size(), 20);
    }

    #[test]
    fn options_that_need_partners_are_refused_without_them() {
        let cutthroat = Preset::Cutthroat.rules();
        assert_eq!(
            Rules { defend_alone: true, ..cutthroat }.validate(),
            Err(RulesError::NeedsPartners("defend alone"))
        );
        assert_eq!(
            Rules { dummy: true, ..Rules::default() }.validate(),
            Err(RulesError::DummyNeedsFewerPlayers)
        );
        assert_eq!(
            Rules { players: 5, ..Rules::default() }.validate(),
            Err(RulesError::UnsupportedPlayers(5))
        );
        // Three hands of five, a dummy and an up-card fit in 20 cards; four hands do not.
        let small = Rules { deck: Deck::TenToAce, ..Rules::default() };
        assert_eq!(small.validate(), Err(RulesError::PackTooSmall { players: 4, needed: 21 }));
    }

    #[test]
    fn teams_are_partnerships_or_single_players() {
        let four = Rules::default();
        assert_eq!(four.teams(), 2);
        assert_eq!(four.team_of(Seat(2)), Team(0));
        assert_eq!(four.team_of(Seat(3)), Team(1));
        let three = Preset::Cutthroat.rules();
        assert_eq!(three.teams(), 3);
        assert_eq!(three.team_of(Seat(2)), Team(2));
        assert!(!three.may_go_alone());
        assert!(Preset::ThreeHanded.rules().may_go_alone());
    }
}
