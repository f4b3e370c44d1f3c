//! A finished match's analysis by the solver, as it is stored and served
//! (`GET /api/matches/{id}/analysis`): one decision per choice a player
//! had, every value from the deciding seat's side. `euchre-analysis` makes
//! them; the answer while one is computed is [`AnalysisQueued`].

use std::borrow::Cow;

use euchre_engine::{Action, Seat};
use serde::{Deserialize, Serialize};

/// The answer while an analysis is being computed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AnalysisQueued {
    /// Always `queued`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub status: Cow<'static, str>,
    /// Seconds to wait before asking again (also sent as `Retry-After`).
    pub retry_after: u32,
}
/// A whole match analysed: each hand's decisions and each seat's totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameAnalysis {
    /// The worlds dealt for each decision valued with what the player knew
    /// (0: that part was not computed).
    pub worlds: u32,
    /// The seed the worlds were dealt from: the same seed, the same analysis.
    pub seed: u64,
    /// The finished hands, in order (a hand still in progress is left out).
    pub hands: Vec<HandAnalysis>,
    /// One entry per seat at the table.
    pub players: Vec<PlayerSummary>,
}

/// One hand's decisions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HandAnalysis {
    /// The hand's number in the match, from 0.
    pub number: u32,
    /// Every action that was a choice (more than one option), in order.
    pub decisions: Vec<Decision>,
}

/// One choice a player made, valued both ways.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Decision {
    /// The action's place among the hand's recorded actions, from 0.
    pub index: u32,
    /// The seat, numbered clockwise from 0.
    #[cfg_attr(feature = "openapi", schema(value_type = u8))]
    pub seat: Seat,
    /// What was chosen: an action as the match's record writes it, such as
    /// `{"action": "play", "card": "Jh"}`.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub chosen: Action,
    /// With every card shown: card play only (bids depend on the others'
    /// bids to come, which no solver knows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<Shown>,
    /// With what the player knew: every decision, when worlds were dealt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

/// A card-play decision with every hand seen: each option solved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Shown {
    /// Every option, in the engine's order.
    pub options: Vec<ShownOption>,
    /// Tricks the choice gave up against the best option (0 when best).
    pub tricks_lost: u8,
    /// Points the choice gave up against the best option (0 when best).
    pub points_lost: f64,
    /// [`Mark::Best`] or [`Mark::Mistake`].
    pub mark: Mark,
}

/// One option solved double-dummy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ShownOption {
    /// The option, written as [`Decision::chosen`].
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub action: Action,
    /// Tricks the seat's side ends the hand with, every seat playing
    /// perfectly afterwards (in the three-handed games the defenders are
    /// one side).
    pub tricks: u8,
    /// The hand's points for the seat's side less the others' (their
    /// average, without partners), as the search bots count them.
    pub points: f64,
}

/// A decision valued over the worlds the seat's view allowed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Known {
    /// Every option, in the engine's order.
    pub options: Vec<KnownOption>,
    /// The worlds the values average over.
    pub worlds: u32,
    /// Expected points the choice gave up against the best option (0 when best).
    pub points_lost: f64,
    pub mark: Mark,
}

/// One option's expected points over the worlds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KnownOption {
    /// The option, written as [`Decision::chosen`].
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub action: Action,
    /// The points it brings the seat's side less the others', on average
    /// over the worlds, each weighed by how well it explains the bidding.
    pub expected: f64,
}

/// How a choice compares with the best one (thresholds in the crate's
/// documentation).
// That crate is euchre-analysis (`grade`), which marks the choices; the
// words above are also the OpenAPI document's, kept as they were served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// The best option, or as good as it.
    Best,
    /// Below the best, but within the tolerance.
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
}

/// One seat's totals over the match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerSummary {
    /// The seat, numbered clockwise from 0.
    #[cfg_attr(feature = "openapi", schema(value_type = u8))]
    pub seat: Seat,
    /// Decisions valued with what the player knew.
    pub decisions: u32,
    /// Of those, the ones within the tolerance ([`Mark::Best`] or [`Mark::Good`]).
    pub within_tolerance: u32,
    /// `within_tolerance / decisions`; `None` without decisions.
    pub accuracy: Option<f64>,
    /// Expected points given up against the best, over every decision.
    pub points_lost: f64,
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
    /// Cards played with a choice, solved with every card shown.
    pub card_plays: u32,
    /// Of those, the ones that cost a trick or points.
    pub card_mistakes: u32,
    /// Tricks given up with every card shown.
    pub tricks_lost: u32,
    /// Points given up with every card shown.
    pub shown_points_lost: f64,
}
