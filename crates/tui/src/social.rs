//! Muting, blocking and reporting a seated player from the chat line:
//! `/mute 2`, `/unmute 2`, `/block 2`, `/unblock 2`, `/report 2 chat what
//! happened`, the seat as the table shows it. The server keeps the lists
//! and hides a muted player's chat; a report's evidence is its to attach.

use euchre_protocol::{Occupant, PlayerInfo, ReportReason};

use crate::app::Command;
use crate::table::TableModel;

/// What the chat line's `/` commands say when asked wrong.
pub const USAGE: &str = "/mute N, /unmute N, /block N, /unblock N, or /report N REASON [words] \
    (REASON: chat, cheating, throwing, name or other; N: a seat)";

/// The command a `/` line asks for at `table`, or what is wrong with it.
pub fn command(table: &TableModel, line: &str) -> Result<Command, String> {
    let mut words = line.trim_start_matches('/').split_whitespace();
    let verb = words.next().unwrap_or_default();
    let seat: u8 = words.next().and_then(|seat| seat.parse().ok()).ok_or(USAGE)?;
    let player = match table.seats.get(usize::from(seat)) {
        Some(Some(Occupant::Player { player, .. })) if Some(seat) != table.your_seat => {
            player.clone()
        }
        _ => return Err(format!("Seat {seat} holds no other player.")),
    };
    Ok(match verb {
        "mute" => Command::Mute { player, on: true },
        "unmute" => Command::Mute { player, on: false },
        "block" => Command::Block { player, on: true },
        "unblock" => Command::Block { player, on: false },
        "report" => {
            let reason = match words.next() {
                Some("chat") => ReportReason::AbusiveChat,
                Some("cheating") => ReportReason::CheatingOrCollusion,
                Some("throwing") => ReportReason::ThrowingGames,
                Some("name") => ReportReason::OffensiveName,
                Some("other") => ReportReason::Other,
                _ => return Err(USAGE.to_owned()),
            };
            let details = words.collect::<Vec<_>>().join(" ");
            Command::Report { table: table.id.clone(), player, reason, details }
        }
        _ => return Err(USAGE.to_owned()),
    })
}

/// What the player is told once the server has taken `command`.
pub fn done(command: &Command) -> Option<String> {
    let name = |player: &PlayerInfo| player.name.clone();
    Some(match command {
        Command::Mute { player, on: true } => {
            format!("{}'s chat is hidden from you now.", name(player))
        }
        Command::Mute { player, on: false } => format!("{} is no longer muted.", name(player)),
        Command::Block { player, on: true } => {
            format!("You blocked {}: never seated together, their chat hidden.", name(player))
        }
        Command::Block { player, on: false } => format!("{} is no longer blocked.", name(player)),
        Command::Report { player, .. } => {
            format!("Your report of {} went to the moderators.", name(player))
        }
        _ => return None,
    })
}
