//! The file as JSON: mirrors of the format that serde reads and writes.
//! The reader (`reader.rs`) turns them into the typed record and the writer
//! (`writer.rs`) fills them in.
//!
//! They are permissive: unknown fields are ignored and most fields are
//! optional, so the reader can give errors that say where.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawFile {
    pub(super) file_type: String,
    pub(super) version: String,
    pub(super) metadata: RawMetadata,
    pub(super) deals: Vec<Value>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawMetadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) description: Option<String>,
    pub(super) players: Vec<RawPlayer>,
    #[serde(default)]
    pub(super) initial_score: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) final_score: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ruleset: Option<RawRuleset>,
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
pub(super) enum RawPlayer {
    Name(String),
    Player { name: String },
}

#[derive(Default, Deserialize, Serialize)]
pub(super) struct RawRuleset {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) std: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) min_rank: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) winning_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) num_deals: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) canadian: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) loner_lead: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) loner_march_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) loner_euchred_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) defend_alone: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) farmers: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) partners_best: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) go_under: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) joker: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) num_players: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) allow_no_trump: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fast_break: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) four_trick_tokens: Option<bool>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawDeal {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) deal_number: Option<i64>,
    pub(super) initial_state: RawInitialState,
    #[serde(default)]
    pub(super) phases: Vec<RawPhase>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawInitialState {
    pub(super) dealer: i64,
    pub(super) up_card: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) player_cards: Option<Vec<Vec<String>>>,
    /// Older files spell it this way.
    #[serde(rename = "player_cards", skip_serializing_if = "Option::is_none")]
    pub(super) player_cards_snake: Option<Vec<Vec<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) kitty: Option<Vec<String>>,
}

#[derive(Deserialize, Serialize)]
#[serde(tag = "type")]
pub(super) enum RawPhase {
    #[serde(rename = "EUCHRE_BIDDING")]
    Bidding(RawBidding),
    #[serde(rename = "TRICK_PLAY")]
    Play(RawPlay),
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawBidding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) phase_number: Option<i64>,
    #[serde(default)]
    pub(super) calls: Vec<String>,
    #[serde(default)]
    pub(super) is_alone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) discard: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) alone_defender: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) card_exchanges: Option<Vec<Value>>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawPlay {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) phase_number: Option<i64>,
    #[serde(default)]
    pub(super) tricks: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) is_alone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) initial_lead: Option<i64>,
    /// Comments by card index; read as anything, as files use them freely.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) play_annotations: Option<Value>,
}
