//! One round as paired (its tables) and as played (each table's result).

use serde::{Deserialize, Serialize};

use crate::settings::PlayerId;

/// A partnership of a team format: its index in [`crate::Tournament::teams`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TeamId(pub u32);

impl TeamId {
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// A team of two, seated opposite each other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Team {
    pub id: TeamId,
    pub players: [PlayerId; 2],
    /// The mean of its players' ratings.
    pub rating: f64,
}

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "player", rename_all = "snake_case")]
pub enum Seat {
    Player(PlayerId),
    /// A bot standing in for a player absent at the round's start; the
    /// player may come back next round.
    StandIn(PlayerId),
    /// A bot in a seat nobody fills (a progressive count not a multiple of four).
    Bot,
}

impl Seat {
    /// The player this seat is for, present or not.
    pub fn player(&self) -> Option<&PlayerId> {
        match self {
            Self::Player(id) | Self::StandIn(id) => Some(id),
            Self::Bot => None,
        }
    }
}

/// A table: seats 0 and 2 are partners against seats 1 and 3. In a team
/// format `teams` names the two teams, the first in seats 0 and 2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub seats: [Seat; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<[TeamId; 2]>,
}

/// A round's pairing: what [`crate::Tournament::next_round`] derives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// From 1.
    pub number: u32,
    pub tables: Vec<Table>,
    /// Teams that go through without playing: the Swiss bye (scored as a
    /// win), a knockout's byes and walkovers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub byes: Vec<TeamId>,
    /// Progressive players resting this round (`Leftover::SitOut`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sitting_out: Vec<PlayerId>,
}

/// The points of the side in seats 0 and 2, then of seats 1 and 3.
pub type Score = [u32; 2];

/// What a table's play came to, as the server settled it: each game's final
/// score in a team format (one game in Swiss, one to three in a knockout),
/// or, in a progressive round, one entry: the points each side made over the
/// round. A game still going at the round clock counts as its score stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    pub games: Vec<Score>,
}

impl TableResult {
    /// One game, or one progressive round.
    pub fn one(score: Score) -> Self {
        Self { games: vec![score] }
    }
}
