//! `euchre-learn`: makes the expert's learned card-play policy. `data`
//! plays self-play games with a teacher and writes its choices; `train`
//! fits the network to them and writes the weights the bots crate compiles
//! in (`crates/bots/weights/play.bin`).

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use euchre_arena::BotSpec;
use euchre_bots::policy::Policy;
use euchre_bots::{BotKind, SearchSettings};
use euchre_learn::{
    CandleNet, Example, Teacher, TrainConfig, agreement, generate, read_examples, score_checks,
    train,
};

#[derive(Debug, Parser)]
#[command(name = "euchre-learn", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Self-play games of the standard game with the teacher in every
    /// seat; writes each card it chose among two or more.
    Data {
        /// A search bot, with settings as the arena takes them
        /// (`hard:worlds=80,bid_worlds=80`).
        #[arg(long, default_value = "hard:worlds=80,bid_worlds=80")]
        teacher: String,
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// The first deal seed (the teacher's seeds follow from each deal's).
        #[arg(long, default_value_t = 100_001)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Trains the network on data files; writes its weights and prints
    /// each epoch's loss and agreement with the teacher (CSV).
    Train {
        #[arg(long, required = true)]
        data: Vec<PathBuf>,
        #[arg(long, default_value_t = 128)]
        hidden: usize,
        #[arg(long, default_value_t = 8)]
        epochs: usize,
        #[arg(long, default_value_t = 256)]
        batch: usize,
        #[arg(long, default_value_t = 0.001)]
        learning_rate: f64,
        #[arg(long, default_value_t = 0.0001)]
        weight_decay: f64,
        #[arg(long, default_value_t = 0.05)]
        holdout: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        /// Also writes the network after each epoch, as
        /// `DIR/epoch-N.bin`: the training curve's checkpoints.
        #[arg(long, value_name = "DIR")]
        checkpoints: Option<PathBuf>,
    },
    /// How often a network's card is the teacher's in data files, and how
    /// long its forward pass takes (all 24 outputs; a card to play in a
    /// play-out scores only the legal ones).
    Eval {
        #[arg(long, required = true)]
        data: Vec<PathBuf>,
        /// A weights file; the committed network if not given.
        #[arg(long)]
        weights: Option<PathBuf>,
    },
    /// Writes the committed network's scores as candle computes them, for
    /// the bots' tests (`crates/bots/weights/play.scores`); run it whenever
    /// the weights change.
    Scores {
        #[arg(long, default_value = "crates/bots/weights/play.scores")]
        out: PathBuf,
    },
}

fn teacher(text: &str) -> anyhow::Result<Teacher> {
    Ok(match BotSpec::parse(text)? {
        BotSpec::Search { settings, network, .. } => Teacher { settings, network },
        BotSpec::Kind(BotKind::Medium) => Teacher::new(SearchSettings::MEDIUM),
        BotSpec::Kind(BotKind::Hard) => Teacher::new(SearchSettings::HARD),
        BotSpec::Kind(BotKind::Expert) => Teacher::new(SearchSettings::EXPERT),
        _ => bail!("the teacher is a search bot (medium, hard, expert, with settings)"),
    })
}

fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Command::Scores { out } => {
            let policy = euchre_bots::policy::trained().context("the committed network")?;
            std::fs::write(&out, score_checks(policy)?)
                .with_context(|| format!("writing {}", out.display()))?;
        }
        Command::Data { teacher: spec, games, seed, out } => {
            let teacher = teacher(&spec)?;
            let mut file = BufWriter::new(
                File::create(&out).with_context(|| format!("creating {}", out.display()))?,
            );
            let start = Instant::now();
            let stats = generate(teacher, games, seed, &mut file, |stats| {
                if stats.games % 100 == 0 {
                    eprintln!(
                        "{} games, {} examples, {:.0} s",
                        stats.games,
                        stats.examples,
                        start.elapsed().as_secs_f64()
                    );
                }
            })?;
            file.flush()?;
            println!(
                "{} games, {} examples from {spec}, seeds {seed}..{}, in {:.0} s",
                stats.games,
                stats.examples,
                seed + games,
                start.elapsed().as_secs_f64()
            );
        }
        Command::Train {
            data,
            hidden,
            epochs,
            batch,
            learning_rate,
            weight_decay,
            holdout,
            seed,
            out,
            checkpoints,
        } => {
            let examples = read_all(&data)?;
            let config =
                TrainConfig { hidden, epochs, batch, learning_rate, weight_decay, holdout, seed };
            let start = Instant::now();
            println!("epoch,loss,train_agree,holdout_agree,seconds");
            if let Some(dir) = &checkpoints {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            let policy = train(&examples, config, |epoch, policy| {
                if let Some(dir) = &checkpoints {
                    let path = dir.join(format!("epoch-{}.bin", epoch.epoch));
                    std::fs::write(&path, policy.to_bytes())
                        .with_context(|| format!("writing {}", path.display()))?;
                }
                println!(
                    "{},{:.4},{:.4},{:.4},{:.0}",
                    epoch.epoch,
                    epoch.loss,
                    epoch.train_agree,
                    epoch.holdout_agree,
                    start.elapsed().as_secs_f64()
                );
                Ok(())
            })?;
            std::fs::write(&out, policy.to_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
            eprintln!("{} examples; weights in {}", examples.len(), out.display());
        }
        Command::Eval { data, weights } => {
            let examples = read_all(&data)?;
            let policy = match weights {
                Some(path) => Policy::from_bytes(&std::fs::read(&path)?)
                    .with_context(|| format!("{} is not a network", path.display()))?,
                None => euchre_bots::policy::trained().context("no committed network")?.clone(),
            };
            let all: Vec<usize> = (0..examples.len()).collect();
            let agree = agreement(&policy, &examples, &all);
            let start = Instant::now();
            let mut total = 0.0;
            for example in &examples {
                total += policy.scores(&example.on)[usize::from(example.chosen)];
            }
            let nanos = start.elapsed().as_nanos() as f64 / examples.len().max(1) as f64;
            // The same forward passes through candle, one sight at a time as
            // a play-out needs them (at most 20,000: it is much slower).
            let candle = CandleNet::new(&policy)?;
            let some = &examples[..examples.len().min(20_000)];
            let start = Instant::now();
            let mut candle_total = 0.0;
            for example in some {
                candle_total += candle.scores(&example.on)?[usize::from(example.chosen)];
            }
            let candle_nanos = start.elapsed().as_nanos() as f64 / some.len().max(1) as f64;
            println!(
                "{} examples: the teacher's card {:.1}% of the time; {nanos:.0} ns a forward pass \
                 (hidden {}; checksum {total:.1}); through candle {candle_nanos:.0} ns \
                 ({} examples; checksum {candle_total:.1})",
                examples.len(),
                100.0 * agree,
                policy.hidden(),
                some.len()
            );
        }
    }
    Ok(())
}

fn read_all(paths: &[PathBuf]) -> anyhow::Result<Vec<Example>> {
    let mut examples = Vec::new();
    for path in paths {
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        examples.extend(read_examples(&mut BufReader::new(file))?);
    }
    Ok(examples)
}
