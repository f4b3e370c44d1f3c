//! What moderators do to players (migration 0016), written once for both
//! backends: bans of an account or an address, chat mutes, warnings and
//! renames, each logged in the moderation log by the same transaction;
//! and the addresses, as keyed hashes, each player was seen from.

use crate::conn::{Conn, Decodes, Param};
use crate::moderation::{self, LogEntry, NewLogEntry};
use crate::{Millis, StoreError};

/// A moderator's action on a player or an address, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sanction {
    /// Nothing for the store to apply: the act was done elsewhere (a
    /// moderator cancelled a tournament, or took a player out of one, which
    /// its director saves); only its log entry is written.
    DoneElsewhere,
    /// `until` `None`: for good.
    BanAccount {
        player_id: String,
        until: Option<Millis>,
    },
    LiftAccountBan {
        player_id: String,
    },
    /// `address_hash`: the keyed hash of an IPv4 address or an IPv6 /64.
    BanAddress {
        address_hash: String,
        until: Millis,
    },
    LiftAddressBan {
        address_hash: String,
    },
    MuteChat {
        player_id: String,
        until: Millis,
    },
    LiftMute {
        player_id: String,
    },
    Warn {
        player_id: String,
        message: String,
    },
    /// The player's name becomes `new_name` (an account's log-in name too),
    /// `old_name_key` stays reserved, and the player is warned with
    /// `notice`.
    Rename {
        player_id: String,
        old_name: String,
        old_name_key: String,
        new_name: String,
        new_name_key: String,
        notice: String,
    },
}

/// The bans and mutes in force, and the names taken away: what every node
/// keeps in memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveSanctions {
    /// A player and the end of their ban (`None`: for good).
    pub account_bans: Vec<(String, Option<Millis>)>,
    pub address_bans: Vec<(String, Millis)>,
    pub chat_mutes: Vec<(String, Millis)>,
    /// The keys of names moderators took away.
    pub reserved_name_keys: Vec<String>,
    /// Players with warnings they have not acknowledged.
    pub warned_players: Vec<String>,
}

/// A warning a player has not acknowledged yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub id: i64,
    pub at: Millis,
    pub message: String,
    /// It tells of a name a moderator took away: the player may pick another.
    pub rename: bool,
}

/// What moderators see of one player beside their matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dossier {
    /// Names a moderator took away, oldest first, with when.
    pub former_names: Vec<(String, Millis)>,
    /// The ban in force: its end (`Some(None)`: for good).
    pub banned_until: Option<Option<Millis>>,
    pub muted_until: Option<Millis>,
    /// The moderation log's lines about the player, newest first.
    pub actions: Vec<LogEntry>,
    /// Each address (keyed hash) the player was seen from, newest first,
    /// with how many other players were seen from it.
    pub addresses: Vec<(String, u32)>,
}

const BAN_ACCOUNT: &str = "\
    INSERT INTO account_bans (player_id, until, at, reason) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (player_id) DO UPDATE SET until = excluded.until, at = excluded.at, \
        reason = excluded.reason";
const LIFT_ACCOUNT_BAN: &str = "DELETE FROM account_bans WHERE player_id = $1";
const BAN_ADDRESS: &str = "\
    INSERT INTO address_bans (address_hash, until, at, reason) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (address_hash) DO UPDATE SET until = excluded.until, at = excluded.at, \
        reason = excluded.reason";
const LIFT_ADDRESS_BAN: &str = "DELETE FROM address_bans WHERE address_hash = $1";
const MUTE: &str = "\
    INSERT INTO chat_mutes (player_id, until, at) VALUES ($1, $2, $3) \
    ON CONFLICT (player_id) DO UPDATE SET until = excluded.until, at = excluded.at";
const LIFT_MUTE: &str = "DELETE FROM chat_mutes WHERE player_id = $1";
const WARN: &str = "INSERT INTO warnings (player_id, at, message, kind) VALUES ($1, $2, $3, $4)";
const RENAME: &str = "\
    INSERT INTO renames (player_id, old_name, old_name_key, new_name, at) \
    VALUES ($1, $2, $3, $4, $5)";
const RENAME_PLAYER: &str = "UPDATE players SET name = $2 WHERE id = $1";
const RENAME_ACCOUNT: &str = "UPDATE accounts SET name_key = $2 WHERE player_id = $1";

const LIVE_ACCOUNT_BANS: &str =
    "SELECT player_id, until FROM account_bans WHERE until IS NULL OR until > $1";
const LIVE_ADDRESS_BANS: &str = "SELECT address_hash, until FROM address_bans WHERE until > $1";
const LIVE_MUTES: &str = "SELECT player_id, until FROM chat_mutes WHERE until > $1";
const RESERVED: &str = "SELECT DISTINCT old_name_key FROM renames";
const WARNED: &str = "SELECT DISTINCT player_id FROM warnings WHERE seen_at IS NULL";

const WARNINGS: &str = "\
    SELECT id, at, message, kind FROM warnings WHERE player_id = $1 AND seen_at IS NULL \
    ORDER BY id";
const ACKNOWLEDGE: &str =
    "UPDATE warnings SET seen_at = $3 WHERE player_id = $1 AND id = $2 AND seen_at IS NULL";

const SIGHTING: &str = "\
    INSERT INTO address_sightings (address_hash, player_id, first_seen, last_seen) \
    VALUES ($1, $2, $3, $3) \
    ON CONFLICT (address_hash, player_id) DO UPDATE SET last_seen = excluded.last_seen";

const FORMER_NAMES: &str = "SELECT old_name, at FROM renames WHERE player_id = $1 ORDER BY id";
const BANNED: &str = "SELECT player_id, until FROM account_bans WHERE player_id = $1 \
    AND (until IS NULL OR until > $2)";
const MUTED: &str = "SELECT player_id, until FROM chat_mutes WHERE player_id = $1 AND until > $2";
/// At most 50 addresses, each with the other players seen from it.
const ADDRESSES: &str = "\
    SELECT s.address_hash, \
        (SELECT COUNT(*) FROM address_sightings o \
         WHERE o.address_hash = s.address_hash AND o.player_id <> s.player_id) AS others \
    FROM address_sightings s WHERE s.player_id = $1 ORDER BY s.last_seen DESC LIMIT 50";

/// The name a moderator last gave `$1`, if it is still the player's.
const GIVEN_NAME: &str = "\
    SELECT r.new_name FROM renames r JOIN players p ON p.id = r.player_id \
    WHERE r.player_id = $1 AND p.name = r.new_name \
    AND r.id = (SELECT MAX(id) FROM renames WHERE player_id = $1)";

const KEY: &str = "SELECT name, key FROM moderation_keys WHERE name = $1";
const NEW_KEY: &str =
    "INSERT INTO moderation_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// Applies `sanction` and logs `entry`, in the caller's transaction.
pub(crate) async fn apply<C: Conn>(
    conn: &mut C,
    sanction: &Sanction,
    entry: &NewLogEntry,
) -> Result<(), StoreError> {
    let at = Param::Int(Some(entry.at));
    let reason = Param::Text(Some(&entry.reason));
    match sanction {
        Sanction::BanAccount { player_id, until } => {
            let params = [text(player_id), Param::Int(*until), at, reason];
            conn.execute(BAN_ACCOUNT, &params).await?;
        }
        Sanction::LiftAccountBan { player_id } => {
            conn.execute(LIFT_ACCOUNT_BAN, &[text(player_id)]).await?;
        }
        Sanction::BanAddress { address_hash, until } => {
            let params = [text(address_hash), Param::Int(Some(*until)), at, reason];
            conn.execute(BAN_ADDRESS, &params).await?;
        }
        Sanction::LiftAddressBan { address_hash } => {
            conn.execute(LIFT_ADDRESS_BAN, &[text(address_hash)]).await?;
        }
        Sanction::MuteChat { player_id, until } => {
            conn.execute(MUTE, &[text(player_id), Param::Int(Some(*until)), at]).await?;
        }
        Sanction::DoneElsewhere => {}
        Sanction::LiftMute { player_id } => conn.execute(LIFT_MUTE, &[text(player_id)]).await?,
        Sanction::Warn { player_id, message } => {
            conn.execute(WARN, &[text(player_id), at, text(message), text("warning")]).await?;
        }
        Sanction::Rename { player_id, old_name, old_name_key, new_name, new_name_key, notice } => {
            let params = [text(player_id), text(old_name), text(old_name_key), text(new_name), at];
            conn.execute(RENAME, &params).await?;
            conn.execute(RENAME_PLAYER, &[text(player_id), text(new_name)]).await?;
            conn.execute(RENAME_ACCOUNT, &[text(player_id), text(new_name_key)]).await?;
            conn.execute(WARN, &[text(player_id), at, text(notice), text("rename")]).await?;
        }
    }
    moderation::append(conn, entry).await
}

pub(crate) async fn live<C: Conn>(conn: &mut C, now: Millis) -> Result<LiveSanctions, StoreError> {
    let now = [Param::Int(Some(now))];
    let account_bans = decode_all(conn.fetch_all(LIVE_ACCOUNT_BANS, &now).await?)?;
    let address_bans =
        decode_all::<_, (String, i64)>(conn.fetch_all(LIVE_ADDRESS_BANS, &now).await?)?;
    let chat_mutes = decode_all::<_, (String, i64)>(conn.fetch_all(LIVE_MUTES, &now).await?)?;
    let reserved: Vec<(String,)> = decode_all(conn.fetch_all(RESERVED, &[]).await?)?;
    let warned: Vec<(String,)> = decode_all(conn.fetch_all(WARNED, &[]).await?)?;
    Ok(LiveSanctions {
        account_bans,
        address_bans,
        chat_mutes,
        reserved_name_keys: reserved.into_iter().map(|(key,)| key).collect(),
        warned_players: warned.into_iter().map(|(id,)| id).collect(),
    })
}

pub(crate) async fn warnings<C: Conn>(
    conn: &mut C,
    player_id: &str,
) -> Result<Vec<Warning>, StoreError> {
    let rows = conn.fetch_all(WARNINGS, &[Param::Text(Some(player_id))]).await?;
    let rows: Vec<(i64, i64, String, String)> = decode_all(rows)?;
    let warning = |(id, at, message, kind): (i64, i64, String, String)| Warning {
        id,
        at,
        message,
        rename: kind == "rename",
    };
    Ok(rows.into_iter().map(warning).collect())
}

pub(crate) async fn acknowledge<C: Conn>(
    conn: &mut C,
    player_id: &str,
    id: i64,
    at: Millis,
) -> Result<(), StoreError> {
    let params = [Param::Text(Some(player_id)), Param::Int(Some(id)), Param::Int(Some(at))];
    conn.execute(ACKNOWLEDGE, &params).await
}

pub(crate) async fn sighting<C: Conn>(
    conn: &mut C,
    player_id: &str,
    address_hash: &str,
    at: Millis,
) -> Result<(), StoreError> {
    let params =
        [Param::Text(Some(address_hash)), Param::Text(Some(player_id)), Param::Int(Some(at))];
    conn.execute(SIGHTING, &params).await
}

pub(crate) async fn dossier<C: Conn>(
    conn: &mut C,
    player_id: &str,
    now: Millis,
) -> Result<Dossier, StoreError> {
    let id = Param::Text(Some(player_id));
    let former: Vec<(String, i64)> = decode_all(conn.fetch_all(FORMER_NAMES, &[id]).await?)?;
    let live = [id, Param::Int(Some(now))];
    let banned: Vec<(String, Option<i64>)> = decode_all(conn.fetch_all(BANNED, &live).await?)?;
    let muted: Vec<(String, i64)> = decode_all(conn.fetch_all(MUTED, &live).await?)?;
    let addresses: Vec<(String, i64)> = decode_all(conn.fetch_all(ADDRESSES, &[id]).await?)?;
    let actions = moderation::about(conn, player_id, 100).await?;
    Ok(Dossier {
        former_names: former,
        banned_until: banned.into_iter().next().map(|(_, until)| until),
        muted_until: muted.into_iter().next().map(|(_, until)| until),
        actions,
        addresses: addresses
            .into_iter()
            .map(|(hash, others)| (hash, u32::try_from(others).unwrap_or(u32::MAX)))
            .collect(),
    })
}

/// The player whose name a moderator took away picks `name` (its key
/// `name_key`, an account's log-in name too), logged as `entry`; false,
/// changing nothing, unless they still bear the name the moderator gave.
pub(crate) async fn pick_name<C: Conn>(
    conn: &mut C,
    player_id: &str,
    name: &str,
    name_key: &str,
    entry: &NewLogEntry,
) -> Result<bool, StoreError> {
    let given: Vec<(String,)> = decode_all(conn.fetch_all(GIVEN_NAME, &[text(player_id)]).await?)?;
    if given.is_empty() {
        return Ok(false);
    }
    conn.execute(RENAME_PLAYER, &[text(player_id), text(name)]).await?;
    conn.execute(RENAME_ACCOUNT, &[text(player_id), text(name_key)]).await?;
    moderation::append(conn, entry).await?;
    Ok(true)
}

/// The key named `name`: the stored one, or `fresh`, stored now, if there
/// is none yet (the first node to start makes it; the others read it).
pub(crate) async fn key<C: Conn>(
    conn: &mut C,
    name: &str,
    fresh: &str,
) -> Result<String, StoreError> {
    conn.execute(NEW_KEY, &[Param::Text(Some(name)), Param::Text(Some(fresh))]).await?;
    let rows: Vec<(String, String)> =
        decode_all(conn.fetch_all(KEY, &[Param::Text(Some(name))]).await?)?;
    rows.into_iter()
        .next()
        .map(|(_, key)| key)
        .ok_or_else(|| StoreError::Corrupt(format!("the key {name:?} was not kept")))
}

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

fn decode_all<R: Decodes<T>, T>(rows: Vec<R>) -> Result<Vec<T>, StoreError> {
    rows.iter().map(Decodes::decode).collect()
}
