//! A table by its id, open or closed (`GET /api/tables/{id}`): what a link
//! to a table finds once the table is gone.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::matches::AbandonedView;

/// A table, open or closed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TableView {
    pub id: String,
    /// The host's name; `null` for a private table, of which only what its
    /// invite link tells is shown (its id, that it is private, whether it
    /// is open).
    pub host: Option<String>,
    pub private: bool,
    /// `open` (join it at its link) or `closed`.
    pub state: TableState,
    /// When it opened, in ms since the Unix epoch; `null` for an open table
    /// whose opening is not in the database yet.
    pub created_at: Option<i64>,
    /// When it closed; `null` while open, and for a moment after it closes,
    /// until the store has written the close (the state already reads
    /// `closed`).
    pub closed_at: Option<i64>,
    /// Why it closed: `everyone_left` (nobody came back within the idle
    /// time) or `lost` (the server could not restore it after a restart);
    /// `null` while open, for that moment after closing, or for a table
    /// closed before reasons were kept.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub closed_reason: Option<Cow<'static, str>>,
    /// Its latest game, if one started: `/api/matches/{id}` has it.
    pub last_match: Option<TableMatchView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    Open,
    Closed,
}

/// How a table's latest game stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TableMatchView {
    /// The match id, for `/api/matches/{id}` and the replay.
    pub id: String,
    /// The game's number at the table: 1, 2, … with rematches.
    pub number: u32,
    /// Whether it was played to the end.
    pub finished: bool,
    pub ended_at: Option<i64>,
    /// Set when it can no longer finish: its table closed first.
    pub abandoned: Option<AbandonedView>,
}
