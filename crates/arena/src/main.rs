//! `euchre-arena`: duplicate matches between two bots (see the library).

use std::io::Write;

use anyhow::{Context, bail};
use clap::Parser;
use euchre_arena::BotSpec;
use euchre_engine::{Preset, Rules};

/// Plays duplicate matches between two bots (the same deals with the seats
/// swapped) and prints A's win rate with its 95% interval, points per hand,
/// and each bot's decision times.
#[derive(Debug, Parser)]
#[command(name = "euchre-arena", version)]
struct Args {
    /// Bot A: random, naive, basic (or easy), medium, hard, expert; a search bot
    /// with changed settings as `hard:worlds=40,make_margin=0.5` (keys:
    /// worlds, bid_worlds, table_bits, bid_miss, partner_bid_miss,
    /// play_miss, partner_play_miss, candidates, model_trick, make_margin,
    /// alone_margin, basic_prior, bid_rollout, play_rollout, own_worlds,
    /// own_depth, match_aware, tree_bids, tree_play, exploration, tree_patience,
    /// tree_judge, net_play=off|own|all; and last, `net=FILE`, the
    /// play-outs' network from a weights file).
    /// For measurement only: `policy`, the learned card-play policy with
    /// the basic bot's bids (`policy:FILE`: the network in a weights
    /// file); `oracle`, a player that sees every card (see
    /// the crate's documentation), and `BIDS/PLAY`, one player's bids and
    /// discards with another's card play (`hard/oracle`, `oracle/basic`).
    #[arg(long, default_value = "hard")]
    a: String,
    /// Bot B.
    #[arg(long, default_value = "basic")]
    b: String,
    /// Deal seeds to play; each is played once per seating (twice in the
    /// partnership games), so games = deals x seatings.
    #[arg(long, default_value_t = 100)]
    deals: u64,
    /// The rules preset.
    #[arg(long, default_value = "standard")]
    preset: String,
    /// Points to win a game (the preset's by default).
    #[arg(long)]
    points: Option<u8>,
    /// The first deal seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads to play the deals on. The report is the same for any number
    /// (each deal is played from its seed alone; results are added up in
    /// deal order); the decision times stay per decision, but with more
    /// threads than free cores each thread waits for a core, which inflates
    /// them (the wall-clock times most).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Also write each game (deal seed, A's side, whether A won, hands,
    /// points) to this file as CSV, so that two runs over the same deals
    /// can be compared game by game with `euchre-arena-paired`.
    #[arg(long, value_name = "FILE")]
    per_deal: Option<std::path::PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let Some(preset) = Preset::from_name(&args.preset) else {
        let names: Vec<_> = Preset::ALL.iter().map(|preset| preset.name()).collect();
        bail!("unknown preset '{}'; choose one of {}", args.preset, names.join(", "));
    };
    let mut rules: Rules = preset.rules();
    if let Some(points) = args.points {
        rules.points_to_win = points;
    }
    let config = euchre_arena::Config {
        a: BotSpec::parse(&args.a)?,
        b: BotSpec::parse(&args.b)?,
        rules,
        deals: args.deals,
        seed: args.seed,
    };
    let report = euchre_arena::run(&config, usize::from(args.threads), |done, all| {
        if done % 20 == 0 || done == all {
            eprint!("\r{done}/{all} games");
        }
    })?;
    eprintln!();
    if let Some(path) = &args.per_deal {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("{}", path.display()))?,
        );
        euchre_arena::write_games(&report.per_game, &mut file)
            .and_then(|()| file.flush())
            .with_context(|| format!("{}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{} ({})", euchre_arena::describe(&report), preset.name());
    }
    Ok(())
}
