//! What players do about one another, written once for both backends: an
//! account's mutes and blocks, and reports, filed under their limits and
//! read and closed by moderators (each close logged in the moderation log).

use serde::{Deserialize, Serialize};

use crate::conn::{Conn, Decodes, Param};
use crate::moderation::{self, NewLogEntry};
use crate::rows::{ListedRow, ReportRow};
use crate::{Millis, StoreError};

/// A player's say over another: hide their chat, or also keep them away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Mute,
    Block,
}

/// A player on a list of mutes or blocks, with their name now (`None`
/// for a guest no longer stored) and when they were put there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub name: Option<String>,
    pub at: Millis,
}

/// An account's mutes and blocks, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SocialLists {
    pub muted: Vec<Listed>,
    pub blocked: Vec<Listed>,
}

/// Why a report is made.
pub const REPORT_REASONS: [&str; 5] =
    ["abusive_chat", "cheating_or_collusion", "throwing_games", "offensive_name", "other"];

/// One line a reported player wrote at the table, as the server held it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub at: Millis,
    pub text: String,
}

/// A report to file. The server fills in the table, the match and the
/// chat from what it holds, never from the reporter's word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReport {
    pub at: Millis,
    pub reporter: String,
    pub reported: String,
    /// One of [`REPORT_REASONS`].
    pub reason: String,
    pub details: String,
    pub table_id: Option<String>,
    pub match_id: Option<String>,
    pub chat: Vec<ChatLine>,
}

/// How many reports one reporter may file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportLimits {
    /// In any minute…
    pub per_minute: u32,
    /// …and in any day.
    pub per_day: u32,
}

/// What became of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportOutcome {
    /// Filed, with its id.
    Filed(i64),
    /// The reporter reported this player at this match (or table, or from
    /// the profile) before.
    Duplicate,
    /// Past [`ReportLimits::per_minute`].
    TooSoon,
    /// Past [`ReportLimits::per_day`].
    DailyCap,
}

/// A stored report, as moderators read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub id: i64,
    pub at: Millis,
    pub reporter: String,
    pub reporter_name: Option<String>,
    pub reported: String,
    pub reported_name: Option<String>,
    pub reason: String,
    pub details: String,
    pub table_id: Option<String>,
    pub match_id: Option<String>,
    pub chat: Vec<ChatLine>,
}

const MINUTE_MS: Millis = 60_000;
const DAY_MS: Millis = 24 * 60 * MINUTE_MS;

const MUTES: &str = "\
    SELECT m.other AS id, p.name, m.at FROM player_mutes m LEFT JOIN players p ON p.id = m.other \
    WHERE m.player_id = $1 ORDER BY m.at DESC, m.other";
const BLOCKS: &str = "\
    SELECT b.other AS id, p.name, b.at FROM player_blocks b LEFT JOIN players p ON p.id = b.other \
    WHERE b.player_id = $1 ORDER BY b.at DESC, b.other";
const ADD_MUTE: &str = "\
    INSERT INTO player_mutes (player_id, other, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const ADD_BLOCK: &str = "\
    INSERT INTO player_blocks (player_id, other, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const DROP_MUTE: &str = "DELETE FROM player_mutes WHERE player_id = $1 AND other = $2";
const DROP_BLOCK: &str = "DELETE FROM player_blocks WHERE player_id = $1 AND other = $2";
const ADD_GUEST_BLOCK: &str = "\
    INSERT INTO guest_blocks (player_id, other, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const DROP_GUEST_BLOCK: &str = "DELETE FROM guest_blocks WHERE player_id = $1 AND other = $2";
const GUEST_BLOCKS: &str = "SELECT other FROM guest_blocks WHERE player_id = $1 ORDER BY other";
/// Everyone a block stands between the player and: blocked by, or
/// blocking, as an account or as a guest.
const BLOCKED_EITHER_WAY: &str = "\
    SELECT other AS id FROM player_blocks WHERE player_id = $1 \
    UNION SELECT player_id AS id FROM player_blocks WHERE other = $1 \
    UNION SELECT other AS id FROM guest_blocks WHERE player_id = $1 \
    UNION SELECT player_id AS id FROM guest_blocks WHERE other = $1";

const REPORTS_SINCE: &str = "SELECT COUNT(*) FROM reports WHERE reporter = $1 AND at > $2";
const FILE_REPORT: &str = "\
    INSERT INTO reports (at, reporter, reported, reason, details, table_id, match_id, context, chat) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
    ON CONFLICT (reporter, reported, context) DO NOTHING RETURNING id";
const OPEN_REPORTS: &str = "\
    SELECT r.id, r.at, r.reporter, a.name AS reporter_name, r.reported, \
        b.name AS reported_name, r.reason, r.details, r.table_id, r.match_id, r.chat \
    FROM reports r LEFT JOIN players a ON a.id = r.reporter LEFT JOIN players b ON b.id = r.reported \
    WHERE r.closed_at IS NULL ORDER BY r.id LIMIT $1";
const CLOSE_REPORT: &str = "\
    UPDATE reports SET closed_at = $2, closed_by = $3, note = $4 \
    WHERE id = $1 AND closed_at IS NULL RETURNING reported";

pub(crate) async fn lists<C: Conn>(conn: &mut C, player: &str) -> Result<SocialLists, StoreError> {
    let read = |rows: Vec<C::Row>| -> Result<Vec<Listed>, StoreError> {
        rows.iter()
            .map(|row| {
                let row: ListedRow = row.decode()?;
                Ok(Listed { id: row.id, name: row.name, at: row.at })
            })
            .collect()
    };
    let muted = read(conn.fetch_all(MUTES, &[Param::Text(Some(player))]).await?)?;
    let blocked = read(conn.fetch_all(BLOCKS, &[Param::Text(Some(player))]).await?)?;
    Ok(SocialLists { muted, blocked })
}

pub(crate) async fn set<C: Conn>(
    conn: &mut C,
    player: &str,
    relation: Relation,
    other: &str,
    on: Option<Millis>,
) -> Result<(), StoreError> {
    let statement = match (relation, on) {
        (Relation::Mute, Some(_)) => ADD_MUTE,
        (Relation::Block, Some(_)) => ADD_BLOCK,
        (Relation::Mute, None) => DROP_MUTE,
        (Relation::Block, None) => DROP_BLOCK,
    };
    let (player, other) = (Param::Text(Some(player)), Param::Text(Some(other)));
    match on {
        Some(at) => conn.execute(statement, &[player, other, Param::Int(Some(at))]).await,
        None => {
            // A block made as a guest, before the name was claimed, is
            // lifted with the account's.
            if relation == Relation::Block {
                conn.execute(DROP_GUEST_BLOCK, &[player, other]).await?;
            }
            conn.execute(statement, &[player, other]).await
        }
    }
}

/// Puts `other` on the guest `player`'s blocks (at `on`), or takes them
/// off (`None`).
pub(crate) async fn set_guest_block<C: Conn>(
    conn: &mut C,
    player: &str,
    other: &str,
    on: Option<Millis>,
) -> Result<(), StoreError> {
    let (player, other) = (Param::Text(Some(player)), Param::Text(Some(other)));
    match on {
        Some(at) => conn.execute(ADD_GUEST_BLOCK, &[player, other, Param::Int(Some(at))]).await,
        None => conn.execute(DROP_GUEST_BLOCK, &[player, other]).await,
    }
}

/// The players the guest `player` blocked.
pub(crate) async fn guest_blocks<C: Conn>(
    conn: &mut C,
    player: &str,
) -> Result<Vec<String>, StoreError> {
    let rows = conn.fetch_all(GUEST_BLOCKS, &[Param::Text(Some(player))]).await?;
    rows.iter().map(|row| row.decode().map(|(id,): (String,)| id)).collect()
}

pub(crate) async fn blocked_either_way<C: Conn>(
    conn: &mut C,
    player: &str,
) -> Result<Vec<String>, StoreError> {
    let rows = conn.fetch_all(BLOCKED_EITHER_WAY, &[Param::Text(Some(player))]).await?;
    rows.iter().map(|row| row.decode().map(|(id,): (String,)| id)).collect()
}

/// Files `report` unless its reporter is past a limit or filed it before:
/// the counts and the insert in the caller's transaction.
pub(crate) async fn file<C: Conn>(
    conn: &mut C,
    report: &NewReport,
    limits: ReportLimits,
) -> Result<ReportOutcome, StoreError> {
    let reporter = &report.reporter;
    if filed_since(conn, reporter, report.at - DAY_MS).await? >= i64::from(limits.per_day) {
        return Ok(ReportOutcome::DailyCap);
    }
    if filed_since(conn, reporter, report.at - MINUTE_MS).await? >= i64::from(limits.per_minute) {
        return Ok(ReportOutcome::TooSoon);
    }
    let context = report.match_id.as_deref().or(report.table_id.as_deref()).unwrap_or_default();
    let chat = serde_json::to_value(&report.chat)?;
    let params = [
        Param::Int(Some(report.at)),
        Param::Text(Some(&report.reporter)),
        Param::Text(Some(&report.reported)),
        Param::Text(Some(&report.reason)),
        Param::Text(Some(&report.details)),
        Param::Text(report.table_id.as_deref()),
        Param::Text(report.match_id.as_deref()),
        Param::Text(Some(context)),
        Param::Json(Some(&chat)),
    ];
    let rows = conn.fetch_all(FILE_REPORT, &params).await?;
    match rows.first() {
        Some(row) => row.decode().map(|(id,): (i64,)| ReportOutcome::Filed(id)),
        None => Ok(ReportOutcome::Duplicate),
    }
}

async fn filed_since<C: Conn>(
    conn: &mut C,
    reporter: &str,
    since: Millis,
) -> Result<i64, StoreError> {
    let params = [Param::Text(Some(reporter)), Param::Int(Some(since))];
    let rows = conn.fetch_all(REPORTS_SINCE, &params).await?;
    rows.first().map_or(Ok(0), |row| row.decode().map(|(n,): (i64,)| n))
}

pub(crate) async fn open<C: Conn>(conn: &mut C, limit: u32) -> Result<Vec<Report>, StoreError> {
    let rows = conn.fetch_all(OPEN_REPORTS, &[Param::Int(Some(i64::from(limit)))]).await?;
    rows.iter()
        .map(|row| {
            let row: ReportRow = row.decode()?;
            Ok(Report {
                id: row.id,
                at: row.at,
                reporter: row.reporter,
                reporter_name: row.reporter_name,
                reported: row.reported,
                reported_name: row.reported_name,
                reason: row.reason,
                details: row.details,
                table_id: row.table_id,
                match_id: row.match_id,
                chat: row.chat.0,
            })
        })
        .collect()
}

/// Closes open report `id` with `entry`'s reason as its note, and logs
/// `entry` (its target: the reported player) with it; false if no open
/// report has that id.
pub(crate) async fn close<C: Conn>(
    conn: &mut C,
    id: i64,
    entry: &NewLogEntry,
) -> Result<bool, StoreError> {
    let params = [
        Param::Int(Some(id)),
        Param::Int(Some(entry.at)),
        Param::Text(Some(&entry.actor)),
        Param::Text(Some(&entry.reason)),
    ];
    let rows = conn.fetch_all(CLOSE_REPORT, &params).await?;
    let Some(row) = rows.first() else { return Ok(false) };
    let (reported,): (String,) = row.decode()?;
    let entry = NewLogEntry { target: Some(reported), ..entry.clone() };
    moderation::append(conn, &entry).await?;
    Ok(true)
}
