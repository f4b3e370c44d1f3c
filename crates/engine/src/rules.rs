//! The rule options, where the rule sheets disagree, and the named presets.
//!
//! Every field is data the engine reads; nothing about the game's shape is a
//! constant elsewhere. `../shared/rules/NOTES.md` explains each default.

use serde::{Deserialize, Serialize};

use crate::card::{CardSet, Rank};

/// A complete set of rules for one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rules {
    /// Number of seats. Only the four-handed partnership game is built so far.
    pub players: u8,
    /// Which cards are in the pack.
    pub deck: Deck,
    /// The first side to reach this many points wins the game.
    pub points_to_win: u8,
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

/// The pack: nine to ace (24), eight to ace (28) or seven to ace (32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Deck {
    NineToAce,
    EightToAce,
    SevenToAce,
}

impl Deck {
    pub const fn lowest_rank(self) -> Rank {
        match self {
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
        self.cards().len()
    }

    /// The two lowest ranks: a hand of only these is a farmer's hand.
    pub const fn farmers_cards(self) -> CardSet {
        let low = self.lowest_rank() as u32;
        CardSet((0b11u32 << low) * 0x0101_0101)
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
            deck: Deck::NineToAce,
            points_to_win: 10,
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
}

impl Preset {
    pub const ALL: [Preset; 6] = [
        Preset::Standard,
        Preset::StickTheDealer,
        Preset::Tournament,
        Preset::Classic,
        Preset::Farmers,
        Preset::Online,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Standard => "standard",
            Preset::StickTheDealer => "stick_the_dealer",
            Preset::Tournament => "tournament",
            Preset::Classic => "classic",
            Preset::Farmers => "farmers",
            Preset::Online => "online",
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
        }
    }
}

/// Rules that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("{0} players is not supported yet: the four-handed partnership game is")]
    UnsupportedPlayers(u8),
    #[error("points_to_win must be at least 1")]
    NoTarget,
}

impl Rules {
    /// Checks that these rules describe a game the engine can play.
    pub fn validate(&self) -> Result<(), RulesError> {
        if self.players != 4 {
            return Err(RulesError::UnsupportedPlayers(self.players));
        }
        if self.points_to_win == 0 {
            return Err(RulesError::NoTarget);
        }
        Ok(())
    }

    /// Cards each player holds after the deal.
    pub const fn hand_size(&self) -> u32 {
        5
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
    }
}
