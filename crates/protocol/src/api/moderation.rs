//! Moderation as the API shows it to those with a role: the moderation
//! log (`GET /api/admin/log`, admins only), the open reports with their
//! evidence (`GET /api/admin/reports`), a player's view, and the actions'
//! requests and answers.

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

/// The open reports, oldest first (`GET /api/admin/reports`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OpenReports {
    pub reports: Vec<ReportView>,
}

/// A report with its evidence, as the server attached it: the match (for
/// its replay and analysis) and the reported player's chat lines at the
/// table where it was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReportView {
    pub id: i64,
    pub at: i64,
    pub reporter: LogPlayer,
    pub reported: LogPlayer,
    /// `abusive_chat`, `cheating_or_collusion`, `throwing_games`,
    /// `offensive_name` or `other`.
    pub reason: String,
    /// The reporter's words, up to 500 characters.
    pub details: String,
    /// The table it was made at, if it was made at one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The match in play there, or the replay's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// The reported player's latest lines at that table.
    pub chat: Vec<ReportChatLine>,
}

/// One chat line in a report's evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReportChatLine {
    pub at: i64,
    pub text: String,
}

/// `POST /api/admin/reports/{id}/close`'s body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CloseReport {
    /// What was done about it: 1 to 500 characters, kept in the
    /// moderation log.
    pub note: String,
}

/// A moderator's action on a player: why, and for how long where it lasts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionRequest {
    /// Why, for the moderation log (up to 500 characters). A warning's
    /// text, shown to the player.
    #[serde(default)]
    pub reason: String,
    /// How long: a ban or a mute, in minutes (1 to 525,600, a year). A ban
    /// without it is for good; a mute needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
}

/// `POST /api/admin/address-bans` and `…/lift`: an address by its keyed
/// hash (from a player's view), or as an IPv4 address or an IPv6 address
/// (its /64 is banned; `2001:db8::/64` is read the same).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AddressBanRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// 1 to 10,080 (a week); needed for a ban.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
    #[serde(default)]
    pub reason: String,
}

/// What a moderator's action did: the ban's or mute's end where it has
/// one, the new name of a rename, the hash of an address banned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionDone {
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address_hash: Option<String>,
}

/// `GET /api/admin/players/{who}`: what moderators see of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerDossierView {
    pub id: String,
    pub name: String,
    /// Whether the name is claimed (a guest's is not).
    pub account: bool,
    /// `moderator` or `admin`, if the player holds a role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Names moderators took away, oldest first.
    pub former_names: Vec<FormerName>,
    /// The ban in force, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banned: Option<BanView>,
    /// The end of the chat mute in force, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub muted_until: Option<i64>,
    /// The player's latest matches, newest first.
    pub recent_matches: Vec<crate::api::MatchSummaryView>,
    /// The moderation log's lines about the player, newest first.
    pub actions: Vec<LogEntryView>,
    /// The addresses the account said hello or logged in from, newest
    /// first, each as a keyed hash (never the address), with how many other
    /// players were seen from it.
    pub addresses: Vec<AddressSeen>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FormerName {
    pub name: String,
    pub until: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BanView {
    /// Absent: for good.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AddressSeen {
    pub address_hash: String,
    /// Other players seen from the same address (an IPv6 /64).
    pub other_players: u32,
}
