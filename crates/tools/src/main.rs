//! `euchre-verify FILE...`: replays recorded games and checks every step.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

/// Replays recorded Euchre games (EGN files or the engine's game records) and
/// checks every call and card. Prints one JSON document per file; exits
/// non-zero if any file has an illegal step or a wrong score.
#[derive(Debug, Parser)]
#[command(name = "euchre-verify", version)]
struct Args {
    /// The files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut clean = true;
    for path in &args.files {
        let name = path.display().to_string();
        let report = match read(path) {
            Ok(text) => euchre_tools::check(&text),
            Err(error) => euchre_tools::Report::unreadable(&error),
        };
        let document = report.to_json(&name);
        println!("{}", serde_json::to_string_pretty(&document).unwrap_or_default());
        for complaint in report.complaints() {
            eprintln!("euchre-verify: {name}: {complaint}");
            clean = false;
        }
    }
    if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
