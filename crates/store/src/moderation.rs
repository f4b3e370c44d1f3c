//! Moderation's records, written once for both backends: the roles the
//! operator grants, and the append-only log of every grant and moderator
//! action (the migrations refuse any change to a logged row).

use crate::conn::{Conn, Decodes, Param};
use crate::rows::{ModerationRow, RoleRow};
use crate::{Millis, StoreError};

/// What a role lets an account do beyond playing. Shown to no other player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Acts on reports and players: warns, mutes, bans, renames.
    Moderator,
    /// A moderator who also reads the moderation log.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    pub fn parse(stored: &str) -> Option<Role> {
        match stored {
            "moderator" => Some(Role::Moderator),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// Who did something the log records: a player, or the operator at the
/// server's command line.
pub const OPERATOR: &str = "operator";

/// One line of the moderation log, to append.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLogEntry {
    pub at: Millis,
    /// A player's id, or [`OPERATOR`].
    pub actor: String,
    /// What was done, e.g. `grant_moderator`, `revoke_role`.
    pub action: String,
    /// The player acted on.
    pub target: Option<String>,
    pub reason: String,
}

/// One line of the moderation log, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// Increases with every line: the log's order, and its pages' cursor.
    pub id: i64,
    pub at: Millis,
    pub actor: String,
    /// The actor's name now; `None` for the operator.
    pub actor_name: Option<String>,
    pub action: String,
    pub target: Option<String>,
    pub target_name: Option<String>,
    pub reason: String,
}

const ROLE_OF: &str = "SELECT role FROM player_roles WHERE player_id = $1";

const SET_ROLE: &str = "\
    INSERT INTO player_roles (player_id, role, granted_at) VALUES ($1, $2, $3) \
    ON CONFLICT (player_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at";

const DROP_ROLE: &str = "DELETE FROM player_roles WHERE player_id = $1";

const APPEND: &str = "\
    INSERT INTO moderation_log (at, actor, action, target, reason) VALUES ($1, $2, $3, $4, $5)";

/// The newest lines first, those before a cursor (`$1`, an id) when given,
/// with the names of the players named, as they are now.
const LOG_PAGE: &str = "\
    SELECT l.id, l.at, l.actor, a.name AS actor_name, l.action, l.target, \
        t.name AS target_name, l.reason \
    FROM moderation_log l \
    LEFT JOIN players a ON a.id = l.actor LEFT JOIN players t ON t.id = l.target \
    WHERE ($1 IS NULL OR l.id < $1) ORDER BY l.id DESC LIMIT $2";

/// The newest `$2` lines about player `$1`.
const ABOUT: &str = "\
    SELECT l.id, l.at, l.actor, a.name AS actor_name, l.action, l.target, \
        t.name AS target_name, l.reason \
    FROM moderation_log l \
    LEFT JOIN players a ON a.id = l.actor LEFT JOIN players t ON t.id = l.target \
    WHERE l.target = $1 ORDER BY l.id DESC LIMIT $2";

pub(crate) async fn role_of<C: Conn>(
    conn: &mut C,
    player_id: &str,
) -> Result<Option<Role>, StoreError> {
    let rows = conn.fetch_all(ROLE_OF, &[Param::Text(Some(player_id))]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let row: RoleRow = row.decode()?;
    Role::parse(&row.role)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt(format!("an unknown role {:?}", row.role)))
}

/// Gives `player_id` `role` (`None`: takes its role away), and logs `entry`
/// with it, in the caller's transaction.
pub(crate) async fn set_role<C: Conn>(
    conn: &mut C,
    player_id: &str,
    role: Option<Role>,
    entry: &NewLogEntry,
) -> Result<(), StoreError> {
    match role {
        Some(role) => {
            let params = [
                Param::Text(Some(player_id)),
                Param::Text(Some(role.as_str())),
                Param::Int(Some(entry.at)),
            ];
            conn.execute(SET_ROLE, &params).await?;
        }
        None => conn.execute(DROP_ROLE, &[Param::Text(Some(player_id))]).await?,
    }
    append(conn, entry).await
}

pub(crate) async fn append<C: Conn>(conn: &mut C, entry: &NewLogEntry) -> Result<(), StoreError> {
    let params = [
        Param::Int(Some(entry.at)),
        Param::Text(Some(&entry.actor)),
        Param::Text(Some(&entry.action)),
        Param::Text(entry.target.as_deref()),
        Param::Text(Some(&entry.reason)),
    ];
    conn.execute(APPEND, &params).await
}

pub(crate) async fn log_page<C: Conn>(
    conn: &mut C,
    before: Option<i64>,
    limit: u32,
) -> Result<Vec<LogEntry>, StoreError> {
    let params = [Param::Int(before), Param::Int(Some(i64::from(limit)))];
    entries(conn.fetch_all(LOG_PAGE, &params).await?)
}

/// The newest `limit` lines about `player_id`.
pub(crate) async fn about<C: Conn>(
    conn: &mut C,
    player_id: &str,
    limit: u32,
) -> Result<Vec<LogEntry>, StoreError> {
    let params = [Param::Text(Some(player_id)), Param::Int(Some(i64::from(limit)))];
    entries(conn.fetch_all(ABOUT, &params).await?)
}

fn entries<R: Decodes<ModerationRow>>(rows: Vec<R>) -> Result<Vec<LogEntry>, StoreError> {
    rows.iter()
        .map(|row| {
            let row: ModerationRow = row.decode()?;
            Ok(LogEntry {
                id: row.id,
                at: row.at,
                actor: row.actor,
                actor_name: row.actor_name,
                action: row.action,
                target: row.target,
                target_name: row.target_name,
                reason: row.reason,
            })
        })
        .collect()
}
