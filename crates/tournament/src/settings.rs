//! What an organiser chooses before the first round: the format, its
//! options, the players and the seed every random choice is drawn from.

use serde::{Deserialize, Serialize};

/// A player's identity as the server knows it (an account's id or a guest's
/// name); the tournament only compares them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl PlayerId {
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A player entered in a tournament, with the rating seeding reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    /// Glicko-2 rating in the tournament's game form; only its order matters.
    pub rating: f64,
}

impl Player {
    pub fn new(id: impl Into<String>, rating: f64) -> Self {
        Self { id: PlayerId::new(id), rating }
    }
}

/// Everything a tournament's pairings follow from, with the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Every random choice (teams drawn, random seeding, the progressive
    /// seating) comes from a ChaCha8 generator started from this.
    pub seed: u64,
    /// The players at the start, in registration order (the last tie-break).
    pub players: Vec<Player>,
    pub format: Format,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    Swiss(SwissSettings),
    Knockout(KnockoutSettings),
    Progressive(ProgressiveSettings),
}

/// Swiss for partnerships: every team plays every round, a game each.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissSettings {
    pub rounds: u32,
    pub teams: Teams,
    /// The order of the first round's pairing (top half against bottom half).
    pub seeding: Seeding,
}

/// Knockout for partnerships: a bracket, losers out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnockoutSettings {
    pub teams: Teams,
    pub seeding: Seeding,
    /// Best of one or best of three games.
    pub best_of: u8,
}

/// How the partnerships of a team format are made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "teams", rename_all = "snake_case")]
pub enum Teams {
    /// Registered together: each pair names two of the settings' players,
    /// and every player is in exactly one pair.
    Registered(Vec<[PlayerId; 2]>),
    /// Individuals drawn into pairs at random (from the seed).
    Random,
    /// Individuals paired by rating, strongest with weakest, second with
    /// second-weakest and so on, so the teams come out even.
    ByRating,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seeding {
    /// By the team's mean rating, highest first (registration order breaks ties).
    Rating,
    /// In an order drawn from the seed.
    Random,
}

/// A progressive night: individuals, a new partner each round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressiveSettings {
    pub rounds: u32,
    pub round_length: RoundLength,
    pub leftover: Leftover,
}

impl ProgressiveSettings {
    /// Rounds of eight hands, leftover seats to bots.
    pub fn new(rounds: u32) -> Self {
        Self { rounds, round_length: RoundLength::default(), leftover: Leftover::Bots }
    }
}

/// How long a progressive round lasts: the server plays it; the core takes
/// the points each side made (it does not know the preset's scoring).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "hands", rename_all = "snake_case")]
pub enum RoundLength {
    /// A fixed number of hands.
    Hands(u32),
    /// One game to the preset's target.
    Game,
}

impl Default for RoundLength {
    fn default() -> Self {
        Self::Hands(8)
    }
}

/// What happens to the seats a count not a multiple of four leaves over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Leftover {
    /// Tables are rounded up and bots fill the empty seats, at most one a
    /// table, sat with the players who have sat with bots least.
    #[default]
    Bots,
    /// Tables are rounded down and the players left over rest that round,
    /// those who have rested least first; a resting player scores the
    /// round's mean (see `docs/tournaments.md`).
    SitOut,
}
