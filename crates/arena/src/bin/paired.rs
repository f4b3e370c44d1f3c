//! `euchre-arena-paired`: two arena runs over the same deals, compared game
//! by game (see `euchre_arena::paired`).

use anyhow::Context;
use clap::Parser;

/// Compares two runs' games (written with `euchre-arena --per-deal FILE`)
/// over the deals both played: X's win rate less Y's, with its 95% interval
/// from the per-deal differences, which is much tighter than comparing the
/// two runs' intervals when the deals are the same.
#[derive(Debug, Parser)]
#[command(name = "euchre-arena-paired", version)]
struct Args {
    /// Run X's games.
    x: std::path::PathBuf,
    /// Run Y's games; without it, X is compared with its opponent B playing
    /// itself on the same deals, which wins exactly one game of each (the
    /// arena seeds bots by seat, so both games are the same game), so
    /// `euchre-arena --a expert --b hard` needs no run of hard against hard.
    y: Option<std::path::PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let read = |path: &std::path::Path| -> anyhow::Result<_> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
        euchre_arena::read_games(&text).with_context(|| format!("{}", path.display()))
    };
    let x = read(&args.x)?;
    let compared = match &args.y {
        Some(y) => euchre_arena::paired(&x, &read(y)?)?,
        None => euchre_arena::against_self_play(&x)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&compared)?);
        return Ok(());
    }
    let rate = |won: u64| 100.0 * won as f64 / compared.games as f64;
    let [low, high] = compared.interval;
    let (alone, y_name) = match args.y {
        Some(_) => (format!("X alone won {}, Y alone {}", compared.x_only, compared.y_only), "Y"),
        None => (
            format!(
                "X won both games of {} deals, lost both of {}",
                compared.x_only, compared.y_only
            ),
            "B's self-play",
        ),
    };
    println!(
        "over {} games ({} deals) both played: X won {} ({:.1}%), {y_name} won {} ({:.1}%); \
         {alone}\n\
         X less {y_name}: {:+.1} points (95% interval {:+.1} to {:+.1}, paired by deal)",
        compared.games,
        compared.deals,
        compared.x_won,
        rate(compared.x_won),
        compared.y_won,
        rate(compared.y_won),
        100.0 * compared.difference,
        100.0 * low,
        100.0 * high,
    );
    Ok(())
}
