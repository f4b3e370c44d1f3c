//! Tournaments (`/api/tournaments`): what an organiser asks for, and a
//! tournament as anyone sees it: its entries, each round's tables with
//! their results, and the standings.

use euchre_engine::Preset;
use serde::{Deserialize, Serialize};

/// The three formats (docs/tournaments.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TournamentFormat {
    /// Partnerships paired by score, a set number of rounds.
    Swiss,
    /// Partnerships in a seeded bracket.
    Knockout,
    /// Individuals, partners rotated every round.
    Progressive,
}

/// How individuals are made into teams of two in Swiss and knockout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TeamDraw {
    /// At random, from the tournament's seed.
    #[default]
    Random,
    /// The strongest with the weakest, so the teams come out even.
    ByRating,
}

/// `POST /api/tournaments`: a new tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewTournament {
    /// 1 to 64 characters.
    pub name: String,
    pub format: TournamentFormat,
    /// A four-handed partnership preset (`standard` and its variants).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "standard"))]
    pub preset: Preset,
    /// Swiss and progressive: rounds, 1 to 20.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// Knockout: each match best of 1 (the default) or 3.
    #[serde(default)]
    pub best_of: Option<u8>,
    /// Progressive: the hands a round lasts, 1 to 20 (8 when left out); 0
    /// plays each round as one game to the preset's target.
    #[serde(default)]
    pub round_hands: Option<u8>,
    /// A round clock, 10 to 86,400 seconds from a round's seating: a table
    /// still playing then ends after the hand in play (level, it plays on
    /// until a side leads); none by default.
    #[serde(default)]
    pub round_seconds: Option<u32>,
    /// Swiss and knockout: how players become teams.
    #[serde(default)]
    pub teams: TeamDraw,
    /// Seconds from now to the start (registration closes then): 0 to 7 days.
    pub starts_in_seconds: u32,
    /// 4 to 512 players (the default 64).
    #[serde(default)]
    pub max_players: Option<u32>,
    /// In the public list (the default); false: by link only.
    #[serde(default = "listed_by_default")]
    pub listed: bool,
    /// Whether its games count for the players' ratings, as at a rated
    /// table: a table whose seats are all accounts past the rating
    /// minimums is rated; one with a bot in a seat (a filler, or standing
    /// in for a player absent at the round's start) never is. Not by
    /// default.
    #[serde(default)]
    pub rated: bool,
}

fn listed_by_default() -> bool {
    true
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EntryView {
    pub player_id: String,
    pub name: String,
    /// The rating the player entered with (the form's, or 1500).
    pub rating: f64,
}

/// Who sits in a seat of a round's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundSeatView {
    /// The player the seat is theirs, or `null` for a bot filling it.
    pub player_id: Option<String>,
    pub name: String,
    /// A bot plays the seat: a filler, or standing in for a player absent
    /// at the round's start.
    pub bot: bool,
}

/// A table of a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundTableView {
    /// Where it is played (`/api/tables/{id}`, its matches in the history);
    /// `null` for a round not yet seated.
    pub table: Option<String>,
    /// Seats 0 to 3: 0 and 2 partners against 1 and 3.
    pub seats: Vec<RoundSeatView>,
    /// Each game's points, seats 0 and 2 first; `null` until it ends.
    pub games: Option<Vec<[u32; 2]>>,
}

/// A round: its tables, and the teams or players not playing it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundView {
    /// From 1.
    pub number: u32,
    pub tables: Vec<RoundTableView>,
    /// Swiss and knockout: the teams with a bye, by their players' names.
    pub byes: Vec<Vec<String>>,
    /// Progressive: the players resting this round.
    pub resting: Vec<String>,
    /// Every table's result is in.
    pub finished: bool,
}

/// A tournament (`GET /api/tournaments/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentView {
    pub id: String,
    pub name: String,
    /// The organiser's name.
    pub organiser: String,
    /// The organiser's player id (they alone may start it early).
    pub organiser_id: String,
    pub format: TournamentFormat,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub preset: Preset,
    /// `registering`, `running`, `finished` or `cancelled`.
    pub status: String,
    /// Why it was cancelled, if it was.
    pub cancelled: Option<String>,
    /// Its organiser paused it: no next round is seated until resumed.
    pub paused: bool,
    pub rounds: Option<u32>,
    pub best_of: Option<u8>,
    /// Progressive: the hands a round lasts; 0 or `null`, a round is a game.
    pub round_hands: Option<u8>,
    /// The round clock, in seconds, if any.
    pub round_seconds: Option<u32>,
    /// When the round in play's clock runs out (ms since the Unix epoch).
    pub round_deadline: Option<i64>,
    pub max_players: u32,
    pub listed: bool,
    /// Its games count for ratings (see [`NewTournament::rated`]); read as
    /// false where an older server's answer lacks it.
    #[serde(default)]
    pub rated: bool,
    /// In ms since the Unix epoch.
    pub created_at: i64,
    pub starts_at: i64,
    pub finished_at: Option<i64>,
    pub entries: Vec<EntryView>,
    /// Swiss and knockout: each team's players' names, by the team's id
    /// (the `team` of the standings); empty before the start and in a
    /// progressive tournament.
    pub teams: Vec<Vec<String>>,
    /// The rounds played and the one in play, in order.
    pub round_list: Vec<RoundView>,
    /// The standings so far (the final ones once finished), as
    /// docs/tournaments.md describes them for the format; `null` before
    /// the start.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub standings: Option<serde_json::Value>,
}

/// `GET /api/tournaments`: the listed tournaments, latest start first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentList {
    pub tournaments: Vec<TournamentSummaryView>,
}

/// A tournament as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentSummaryView {
    pub id: String,
    pub name: String,
    pub format: TournamentFormat,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub preset: Preset,
    pub status: String,
    pub starts_at: i64,
    pub players: u32,
    pub max_players: u32,
}

/// `POST /api/tournaments/{id}/late`: players the organiser adds after the
/// start, before round two is seated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LateEntries {
    /// Player ids: one or more in a progressive night, a team of two in a Swiss.
    pub players: Vec<String>,
}

/// `POST /api/tournaments`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentCreated {
    pub id: String,
}
