//! `euchre-tools`: checks around tournaments, one subcommand each.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use euchre_tournament::schedule::{full_night, report};
use euchre_tournament::{Leftover, Record, verify};

#[derive(Debug, Parser)]
#[command(name = "euchre-tools", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Plays progressive nights for each player count and prints how often
    /// anyone partnered or opposed the same player again, whether a whist
    /// design was used, and whether the leftovers' turns stayed even.
    TournamentSchedule {
        /// Player counts: numbers and ranges, e.g. `8,9,12-16`.
        #[arg(long, default_value = "8,9,12,13,16")]
        players: String,
        /// Rounds per night; by default as many as a whist design allows
        /// (v - 1 for 4n players, v for 4n + 1), else v - 1.
        #[arg(long)]
        rounds: Option<u32>,
        /// What the seats left over get.
        #[arg(long, value_enum, default_value_t = LeftoverArg::Bots)]
        leftover: LeftoverArg,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// One JSON document per count instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Re-derives every round of stored tournament records (JSON) from their
    /// settings, seed and results, and reports the first mismatch of each.
    /// Exits non-zero if any record does not verify.
    TournamentVerify {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LeftoverArg {
    Bots,
    SitOut,
}

impl From<LeftoverArg> for Leftover {
    fn from(arg: LeftoverArg) -> Self {
        match arg {
            LeftoverArg::Bots => Leftover::Bots,
            LeftoverArg::SitOut => Leftover::SitOut,
        }
    }
}

/// `8,9,12-16` as 8, 9, 12, 13, 14, 15, 16.
fn counts(list: &str) -> anyhow::Result<Vec<usize>> {
    let mut counts = Vec::new();
    for part in list.split(',').map(str::trim).filter(|part| !part.is_empty()) {
        let number = |text: &str| {
            text.trim().parse::<usize>().with_context(|| format!("not a player count: {text}"))
        };
        match part.split_once('-') {
            Some((low, high)) => counts.extend(number(low)?..=number(high)?),
            None => counts.push(number(part)?),
        }
    }
    Ok(counts)
}

fn schedule(
    players: &str,
    rounds: Option<u32>,
    leftover: Leftover,
    seed: u64,
    json: bool,
) -> anyhow::Result<()> {
    if !json {
        println!(
            "players rounds leftover  design partner-repeats opponent-repeats most-opposed \
             never-met turns-even"
        );
    }
    for players in counts(players)? {
        let rounds = rounds.unwrap_or_else(|| full_night(players));
        let found = report(players, rounds, leftover, seed)
            .with_context(|| format!("{players} players"))?;
        if json {
            println!("{}", serde_json::to_string(&found)?);
            continue;
        }
        println!(
            "{:>7} {:>6} {:<9} {:<6} {:>15} {:>16} {:>12} {:>9} {}",
            found.players,
            found.rounds,
            format!("{:?}", found.leftover),
            found.whist_design,
            found.partner_repeats,
            found.opponent_repeats,
            found.most_opposed,
            found.never_met,
            found.leftover_turns_even
        );
    }
    Ok(())
}

fn verify_files(files: &[PathBuf]) -> bool {
    let mut clean = true;
    for path in files {
        let name = path.display();
        let record = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {name}"))
            .and_then(|text| Ok(serde_json::from_str::<Record>(&text)?));
        match record.map(|record| verify(&record)) {
            Ok(Ok(tournament)) => println!(
                "{name}: ok: {} round(s) re-derived{}",
                tournament.rounds_played(),
                if tournament.is_finished() { ", finished" } else { "" }
            ),
            Ok(Err(mismatch)) => {
                clean = false;
                println!("{name}: mismatch: {mismatch}");
            }
            Err(error) => {
                clean = false;
                println!("{name}: unreadable: {error:#}");
            }
        }
    }
    clean
}

fn main() -> ExitCode {
    match Args::parse().command {
        Command::TournamentSchedule { players, rounds, leftover, seed, json } => {
            match schedule(&players, rounds, leftover.into(), seed, json) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("euchre-tools: {error:#}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::TournamentVerify { files } => {
            if verify_files(&files) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
