//! `euchre-verify FILE...`: replays recorded games and checks every step.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

/// Replays recorded Euchre games (EGN files or the engine's game records) and
/// checks every call and card.
///
/// An EGN record is read to the end, as a referee reads it: every finding is
/// reported, not only the first. A renege names the card and the cards of
/// the suit led the player held (each with how it is known: played later in
/// the deal, or listed in playerCards); a deal that cannot be replayed (an
/// up-card a player held, a card played twice, an illegal call) scores
/// nothing, its later cards are still read for reneges, and checking goes on
/// at the next deal. Also reported: a deal that stops early while more
/// follow, a wrong dealer, a repeated deal (left out of the score), deals
/// after the game was won, and a finalScore the deals do not add up to.
/// An engine record stops at its first illegal step.
///
/// Prints one JSON document per file: `ok`, `result` (each deal's result and
/// the scores of the deals that could be scored) and `findings` (each with
/// `deal`, `step`, `code` and `message`); each finding also goes to stderr,
/// one line each, then a line with their number and the score of the deals
/// that could be scored. Exits non-zero if any file has a finding.
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
        }
        if let (false, Some(verification)) = (report.is_clean(), &report.verification) {
            let [ours, theirs] = verification.final_score.pair();
            eprintln!(
                "euchre-verify: {name}: {} finding(s); the deals that could be scored make \
                 {ours} to {theirs}",
                report.findings.len()
            );
        }
        clean &= report.is_clean();
    }
    if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
