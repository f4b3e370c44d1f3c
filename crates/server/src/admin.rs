//! The operator's commands, `euchre-server admin …`: roles granted and taken
//! away on the configured database, and the moderation log read, each
//! change logged as the operator's. They work beside a running server, or
//! a cluster's nodes: the API reads an account's role at every request.

use std::io::Write;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use euchre_store::moderation::OPERATOR;
use euchre_store::{NewLogEntry, Role, Store};

use crate::clock::now_ms;
use crate::config::Settings;
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
    let url = settings.database_url.expose();
    let store = euchre_store::connect(url).await.context("opening the database")?;
    // As the server would at its start: the roles' tables may be new.
    store.migrate().await.context("migrating the database")?;
    match command {
        Admin::Grant { name, role, reason } => {
            let role = Role::from(role);
            let player = account(&*store, &name).await?;
            let entry = log_entry(&player, &format!("grant_{}", role.as_str()), reason);
            store.set_role(&player, Some(role), &entry).await?;
            writeln!(out, "{name} is now {} {}", article(role), role.as_str())?;
        }
        Admin::Revoke { name, reason } => {
            let player = account(&*store, &name).await?;
            if store.role_of(&player).await?.is_none() {
                writeln!(out, "{name} has no role")?;
                return Ok(());
            }
            store.set_role(&player, None, &log_entry(&player, "revoke_role", reason)).await?;
            writeln!(out, "{name} has no role now")?;
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
        None => anyhow::bail!("no account is named {name:?}: only a claimed name can hold a role"),
    }
}

fn log_entry(target: &str, action: &str, reason: String) -> NewLogEntry {
    NewLogEntry {
        at: now_ms(),
        actor: OPERATOR.to_owned(),
        action: action.to_owned(),
        target: Some(target.to_owned()),
        reason,
    }
}

fn article(role: Role) -> &'static str {
    match role {
        Role::Admin => "an",
        Role::Moderator => "a",
    }
}
