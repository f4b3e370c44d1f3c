//! Moderation as the API shows it to those with a role: the moderation
//! log (`GET /api/admin/log`, admins only).

use serde::{Deserialize, Serialize};

/// A page of the moderation log, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ModerationLog {
    pub entries: Vec<LogEntryView>,
    /// For the next (older) page: `before` of the next request. Absent on
    /// the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
}

/// One line of the moderation log: who did what, to whom, when and why.
/// Lines are only ever added.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogEntryView {
    /// Increases with every line.
    pub id: i64,
    pub at: i64,
    /// The player who acted, or `operator` for the server's `admin`
    /// subcommand.
    pub actor: LogPlayer,
    /// What was done: `grant_moderator`, `grant_admin`, `revoke_role`, …
    pub action: String,
    /// The player acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<LogPlayer>,
    pub reason: String,
}

/// A player named in the log: the id, and the name now (absent for the
/// operator, and for a player no longer stored).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogPlayer {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
