//! The operator's commands, `euchre-server admin …`: roles granted and taken
//! away on the configured database, bans and mutes imposed and lifted, and
//! the moderation log read, each change logged as the operator's. They work
//! beside a running server, or a cluster's nodes: the API reads an
//! account's role at every request, and every node reads the bans and mutes
//! again every [`crate::sanctions::REFRESH`].

use std::io::Write;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use euchre_store::moderation::OPERATOR;
use euchre_store::{Millis, NewLogEntry, Role, Sanction, Store};

use crate::clock::now_ms;
use crate::config::Settings;
use crate::sanctions::{
    MAX_ADDRESS_MINUTES, MAX_MINUTES, address_key_of, keyed_hash, lasting, parse_address,
    until_text,
};
use crate::text::name_key;

/// `euchre-server`'s subcommands; without one it serves.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// The operator's commands on the configured database.
    #[command(subcommand)]
    Admin(Admin),
}

/// `euchre-server admin …`.
#[derive(Debug, clap::Subcommand)]
pub enum Admin {
    /// Gives the account NAME a role: a moderator acts on reports and
    /// players; an admin also reads the moderation log.
    Grant {
        /// The account's name (a claimed name; compared as log-ins compare it).
        name: String,
        role: RoleArg,
        /// Why, for the moderation log.
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Takes the account NAME's role away.
    Revoke {
        name: String,
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Bans the account NAME, for DURATION or for good: within seconds
    /// (running servers read the bans again every 5 s) its connections
    /// close (4004), it leaves its tables, and it is refused until the end.
    Ban {
        name: String,
        /// How long: `90m`, `12h`, `3d`, `2w` (a year at most); for good
        /// without it.
        #[arg(long = "for", value_name = "DURATION", value_parser = minutes)]
        duration: Option<u32>,
        /// Why, for the moderation log.
        #[arg(long)]
        reason: String,
    },
    /// Bans ADDRESS (an IPv4 address, an IPv6 address or /64, or the keyed
    /// hash a player's view shows) for DURATION: within seconds every
    /// server refuses it at the door and closes its connections (4004).
    BanAddress {
        address: String,
        /// How long: `90m`, `12h`, `3d`, `1w` (a week at most).
        #[arg(long = "for", value_name = "DURATION", value_parser = minutes)]
        duration: u32,
        #[arg(long)]
        reason: String,
    },
    /// Mutes the account NAME's chat for DURATION (within seconds on
    /// running servers).
    Mute {
        name: String,
        /// How long: `90m`, `12h`, `3d`, `2w` (a year at most).
        #[arg(long = "for", value_name = "DURATION", value_parser = minutes)]
        duration: u32,
        #[arg(long)]
        reason: String,
    },
    /// Lifts the account NAME's ban (running servers let it in within
    /// seconds: they read the bans again every 5 s).
    Unban {
        name: String,
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Lifts the ban of ADDRESS: an IPv4 address, an IPv6 address or /64,
    /// or the keyed hash a player's view shows. The way back in for an
    /// operator whose own address was banned.
    UnbanAddress {
        address: String,
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// The moderation log, newest first.
    Log {
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
}

/// A role as the command line names it.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RoleArg {
    Moderator,
    Admin,
}

impl From<RoleArg> for Role {
    fn from(role: RoleArg) -> Role {
        match role {
            RoleArg::Moderator => Role::Moderator,
            RoleArg::Admin => Role::Admin,
        }
    }
}

/// Runs `command` on the database `settings` name, writing what it did to
/// `out`.
pub async fn run(command: Admin, settings: &Settings, out: &mut impl Write) -> anyhow::Result<()> {
    let database = settings.database();
    if let Some(warning) = &database.warning {
        writeln!(out, "warning: {warning}")?;
    }
    let store =
        euchre_store::connect(database.url.expose()).await.context("opening the database")?;
    // As the server would at its start: the roles' tables may be new.
    store.migrate().await.context("migrating the database")?;
    match command {
        Admin::Grant { name, role, reason } => {
            let role = Role::from(role);
            let player = account(&*store, &name).await?;
            let entry = log_entry(Some(&player), &format!("grant_{}", role.as_str()), reason);
            store.set_role(&player, Some(role), &entry).await?;
            writeln!(out, "{name} is now {} {}", article(role), role.as_str())?;
        }
        Admin::Revoke { name, reason } => {
            let player = account(&*store, &name).await?;
            if store.role_of(&player).await?.is_none() {
                writeln!(out, "{name} has no role")?;
                return Ok(());
            }
            store.set_role(&player, None, &log_entry(Some(&player), "revoke_role", reason)).await?;
            writeln!(out, "{name} has no role now")?;
        }
        Admin::Ban { name, duration, reason } => {
            let reason = required(&reason)?;
            let until = duration.map(|minutes| ends(minutes, MAX_MINUTES)).transpose()?;
            let player = account(&*store, &name).await?;
            let ban = Sanction::BanAccount { player_id: player.clone(), until };
            store.sanction(&ban, &log_entry(Some(&player), "ban", lasting(until, reason))).await?;
            writeln!(out, "{}", until_text(&format!("{name} is banned"), until))?;
        }
        Admin::BanAddress { address, duration, reason } => {
            let reason = required(&reason)?;
            let until = ends(duration, MAX_ADDRESS_MINUTES)?;
            let hash = address_hash(&*store, &address).await?;
            let ban = Sanction::BanAddress { address_hash: hash.clone(), until };
            let logged = format!("{hash} {}", lasting(Some(until), reason));
            store.sanction(&ban, &log_entry(None, "ban_address", logged)).await?;
            writeln!(out, "{}", until_text(&format!("{address} ({hash}) is banned"), Some(until)))?;
        }
        Admin::Mute { name, duration, reason } => {
            let reason = required(&reason)?;
            let until = ends(duration, MAX_MINUTES)?;
            let player = account(&*store, &name).await?;
            let mute = Sanction::MuteChat { player_id: player.clone(), until };
            let logged = lasting(Some(until), reason);
            store.sanction(&mute, &log_entry(Some(&player), "mute", logged)).await?;
            writeln!(out, "{}", until_text(&format!("{name} is muted"), Some(until)))?;
        }
        Admin::Unban { name, reason } => {
            let player = account(&*store, &name).await?;
            let lift = Sanction::LiftAccountBan { player_id: player.clone() };
            store.sanction(&lift, &log_entry(Some(&player), "unban", reason)).await?;
            writeln!(out, "{name} is not banned now")?;
        }
        Admin::UnbanAddress { address, reason } => {
            let hash = address_hash(&*store, &address).await?;
            let lift = Sanction::LiftAddressBan { address_hash: hash.clone() };
            store
                .sanction(&lift, &log_entry(None, "unban_address", format!("{hash}: {reason}")))
                .await?;
            writeln!(out, "{address} ({hash}) is not banned now")?;
        }
        Admin::Log { limit } => {
            for line in store.moderation_log(None, limit.max(1)).await? {
                let at = SystemTime::UNIX_EPOCH + Duration::from_millis(line.at.max(0) as u64);
                let who = |id: &str, name: Option<String>| name.unwrap_or_else(|| id.to_owned());
                let actor = who(&line.actor, line.actor_name);
                let target = line.target.map(|id| who(&id, line.target_name)).unwrap_or_default();
                let at = httpdate::fmt_http_date(at);
                writeln!(
                    out,
                    "{}\t{at}\t{actor}\t{}\t{target}\t{}",
                    line.id, line.action, line.reason
                )?;
            }
        }
    }
    Ok(())
}

/// The player id of the account `name`, or why there is none.
async fn account(store: &dyn Store, name: &str) -> anyhow::Result<String> {
    match store.account_by_name(&name_key(name)).await? {
        Some(account) => Ok(account.player.id),
        None => anyhow::bail!("no account is named {name:?} (a claimed name)"),
    }
}

/// The keyed hash `text` names: an address (IPv6 by its /64), or a hash.
async fn address_hash(store: &dyn Store, text: &str) -> anyhow::Result<String> {
    match parse_address(text) {
        Some(ip) => Ok(keyed_hash(&address_key_of(store).await?, ip)),
        None if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(text.to_ascii_lowercase())
        }
        None => anyhow::bail!("{text:?} is neither an address nor an address's hash"),
    }
}

/// A duration as the command line gives it, in minutes: a count and its
/// unit, `m`, `h`, `d` or `w` (`90m`, `12h`, `3d`, `1w`).
fn minutes(text: &str) -> Result<u32, String> {
    let text = text.trim();
    let bad = || format!("{text:?}: a count and m, h, d or w (90m, 12h, 3d, 1w)");
    let unit = text.chars().last().ok_or_else(bad)?;
    let count: u32 = text[..text.len() - unit.len_utf8()].parse().map_err(|_| bad())?;
    let per = match unit {
        'm' => 1,
        'h' => 60,
        'd' => 24 * 60,
        'w' => 7 * 24 * 60,
        _ => return Err(bad()),
    };
    count.checked_mul(per).ok_or_else(bad)
}

/// The end of something lasting `minutes` from now, if 1 to `max`.
fn ends(minutes: u32, max: u32) -> anyhow::Result<Millis> {
    if !(1..=max).contains(&minutes) {
        anyhow::bail!("{minutes} minutes: it must be 1 to {max} minutes");
    }
    Ok(now_ms() + i64::from(minutes) * 60_000)
}

/// A reason for the log: needed when the operator imposes something, and
/// 500 characters at most, as a moderator's.
fn required(reason: &str) -> anyhow::Result<&str> {
    let reason = reason.trim();
    if reason.is_empty() {
        anyhow::bail!("--reason: say why, for the moderation log");
    }
    if reason.chars().count() > 500 {
        anyhow::bail!("--reason: 500 characters at most");
    }
    Ok(reason)
}

fn log_entry(target: Option<&str>, action: &str, reason: String) -> NewLogEntry {
    NewLogEntry {
        at: now_ms(),
        actor: OPERATOR.to_owned(),
        action: action.to_owned(),
        target: target.map(str::to_owned),
        reason,
    }
}

fn article(role: Role) -> &'static str {
    match role {
        Role::Admin => "an",
        Role::Moderator => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_unit_and_nothing_else() {
        assert_eq!(minutes("90m"), Ok(90));
        assert_eq!(minutes("12h"), Ok(720));
        assert_eq!(minutes("3d"), Ok(4_320));
        assert_eq!(minutes("1w"), Ok(10_080));
        for bad in ["", "m", "90", "1y", "-1h", "1.5h", "h1", "99999999w", "1é"] {
            assert!(minutes(bad).is_err(), "{bad:?} was read");
        }
        assert!(ends(0, 10).is_err() && ends(11, 10).is_err() && ends(10, 10).is_ok());
    }
}
