//! A tournament as the director keeps and saves it: what the organiser
//! asked for, who registered, and once it started the `euchre_tournament`
//! record (the seed, the changes, every round's pairing and results) and
//! the tables each round was played at.

use euchre_protocol::api::{NewTournament, TeamDraw, TournamentFormat};
use euchre_protocol::{PlayerInfo, TableId};
use euchre_store::{Millis, StoredTournament};
use euchre_tournament::{
    Change, Format, KnockoutSettings, Player, ProgressiveSettings, Record, RoundLength, Seeding,
    SwissSettings, Teams,
};
use serde::{Deserialize, Serialize};

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Registering,
    Running,
    Finished,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Registering => "registering",
            Status::Running => "running",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
        }
    }
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub player: PlayerInfo,
    pub rating: f64,
    pub at: Millis,
}

/// The tournament's state, saved whole after every change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentDoc {
    pub id: String,
    pub organiser: PlayerInfo,
    pub spec: NewTournament,
    pub status: Status,
    /// Why it was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    pub created_at: Millis,
    pub starts_at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Millis>,
    pub entries: Vec<Entry>,
    /// From the start: the settings, the seed and every event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<Record>,
    /// Each round's tables, in the pairing's table order: the rounds
    /// played, then the one in play.
    #[serde(default)]
    pub tables: Vec<Vec<TableId>>,
    /// No next round is seated while paused.
    #[serde(default)]
    pub paused: bool,
    /// Changes for the next round to be paired (a removal during a round
    /// takes effect after it: the round in play was paired without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Change>,
    /// When the round in play's clock runs out (its organiser set one):
    /// a table still playing then ends after the hand in play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_deadline: Option<Millis>,
    /// Grows with every save.
    pub version: i64,
}

impl TournamentDoc {
    /// The row the store keeps.
    pub fn stored(&self) -> Result<StoredTournament, serde_json::Error> {
        Ok(StoredTournament {
            id: self.id.clone(),
            status: self.status.as_str().to_owned(),
            starts_at: self.starts_at,
            listed: self.spec.listed,
            version: self.version,
            doc: serde_json::to_value(self)?,
        })
    }

    /// The document a stored row holds.
    pub fn from_stored(stored: &StoredTournament) -> Result<TournamentDoc, serde_json::Error> {
        serde_json::from_value(stored.doc.clone())
    }

    /// The player limit.
    pub fn max_players(&self) -> u32 {
        self.spec.max_players.unwrap_or(DEFAULT_MAX_PLAYERS)
    }

    /// The format for `euchre_tournament`.
    pub fn format(&self) -> Format {
        let teams = match self.spec.teams {
            TeamDraw::Random => Teams::Random,
            TeamDraw::ByRating => Teams::ByRating,
        };
        let rounds = self.spec.rounds.unwrap_or(DEFAULT_ROUNDS);
        match self.spec.format {
            TournamentFormat::Swiss => {
                Format::Swiss(SwissSettings { rounds, teams, seeding: Seeding::Rating })
            }
            TournamentFormat::Knockout => Format::Knockout(KnockoutSettings {
                teams,
                seeding: Seeding::Rating,
                best_of: self.spec.best_of.unwrap_or(1),
            }),
            TournamentFormat::Progressive => Format::Progressive(ProgressiveSettings {
                round_length: match self.game_hands() {
                    Some(hands) => RoundLength::Hands(u32::from(hands)),
                    None => RoundLength::Game,
                },
                ..ProgressiveSettings::new(rounds)
            }),
        }
    }

    /// The options a round's tables add to the preset: a progressive
    /// round's hands (`game_hands`), a knockout's best of three (played as a
    /// rubber: the first side to win two games).
    pub fn table_rules(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        let mut rules = serde_json::Map::new();
        if let Some(hands) = self.game_hands() {
            rules.insert("game_hands".to_owned(), serde_json::json!(hands));
        }
        if self.spec.format == TournamentFormat::Knockout && self.spec.best_of == Some(3) {
            rules.insert("rubber".to_owned(), serde_json::json!(true));
        }
        (!rules.is_empty()).then_some(rules)
    }

    /// The hands a table's game lasts (a progressive round of N hands), or
    /// `None` for a game to the preset's target. (A spec stored before
    /// rounds of hands has none: its rounds were games.)
    pub fn game_hands(&self) -> Option<u8> {
        let progressive = self.spec.format == TournamentFormat::Progressive;
        self.spec.round_hands.filter(|hands| progressive && *hands > 0)
    }

    /// The registered players as `euchre_tournament` takes them.
    pub fn players(&self) -> Vec<Player> {
        self.entries
            .iter()
            .map(|entry| Player::new(entry.player.id.clone(), entry.rating))
            .collect()
    }

    /// The entry of `player_id`.
    pub fn entry(&self, player_id: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.player.id == player_id)
    }
}

/// Players a tournament takes unless its organiser says otherwise.
pub const DEFAULT_MAX_PLAYERS: u32 = 64;
/// The most players a tournament may take.
pub const MAX_PLAYERS: u32 = 512;
/// The shortest and longest round clock, in seconds.
pub const ROUND_SECONDS: std::ops::RangeInclusive<u32> = 10..=86_400;
/// A progressive round's hands unless said (the usual progressive night).
pub const DEFAULT_ROUND_HANDS: u8 = 8;
/// The most hands a progressive round may last.
pub const MAX_ROUND_HANDS: u8 = 20;
/// Swiss and progressive rounds unless said.
pub const DEFAULT_ROUNDS: u32 = 3;
/// The latest start: a week ahead.
pub const MAX_START_SECONDS: u32 = 7 * 24 * 3600;
