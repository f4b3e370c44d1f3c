//! The expert's learned card-play policy, made here: self-play data from a
//! teacher bot ([`generate`]) and a small network trained to imitate it
//! ([`train`]). The network it writes is the bots crate's
//! [`euchre_bots::policy::Policy`], which plays it with its own forward
//! pass: nothing of this crate (nor candle) is linked into the server.
//!
//! Both steps are reproducible from their seeds: the games, the teacher's
//! worlds, the network's first weights and the order of the examples.

use std::io::{self, BufRead, Write};

use anyhow::{Context, bail};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use euchre_bots::policy::features::Canon;
use euchre_bots::policy::{INPUTS, OUTPUTS, Policy, Sight, playable};
use euchre_bots::{Bot, SearchBot, SearchSettings};
use euchre_engine::{Action, Game, Phase, Preset, Viewer};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The data file's first bytes.
const MAGIC: &[u8; 8] = b"EUCHDAT1";

/// One card chosen by the teacher: the features on in the seat's sight,
/// the legal cards and the chosen one (as the policy's card indices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub on: Vec<u16>,
    /// Bit `i` set when card index `i` is legal.
    pub legal: u32,
    pub chosen: u8,
}

impl Example {
    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&[self.on.len() as u8])?;
        for index in &self.on {
            out.write_all(&index.to_le_bytes())?;
        }
        out.write_all(&self.legal.to_le_bytes())?;
        out.write_all(&[self.chosen])
    }
}

/// How much data [`generate`] wrote.
#[derive(Clone, Copy, Debug, Default)]
pub struct DataStats {
    pub games: u64,
    pub examples: u64,
}

/// The search bot whose cards the network learns.
#[derive(Clone, Copy, Debug)]
pub struct Teacher {
    pub settings: SearchSettings,
    /// Its play-outs' network, if not the committed one: the expert of an
    /// earlier round of training.
    pub network: Option<&'static Policy>,
}

impl Teacher {
    pub fn new(settings: SearchSettings) -> Teacher {
        Teacher { settings, network: None }
    }

    fn bot(&self, seed: u64) -> SearchBot {
        SearchBot::with_policy(self.settings, seed, self.network)
    }
}

/// Plays `games` standard games (deal seeds from `seed` on) with the
/// `teacher` in all four seats, and writes every card it chose among two or
/// more to `out`. `progress` is called after each game.
pub fn generate(
    teacher: Teacher,
    games: u64,
    seed: u64,
    out: &mut impl Write,
    mut progress: impl FnMut(&DataStats),
) -> anyhow::Result<DataStats> {
    out.write_all(MAGIC)?;
    let mut stats = DataStats::default();
    let mut on = Vec::new();
    for game_seed in seed..seed + games {
        let mut game = Game::new(Preset::Standard.rules(), game_seed)?;
        let mut bots: Vec<SearchBot> =
            (0..4).map(|seat| teacher.bot(game_seed.wrapping_mul(4).wrapping_add(seat))).collect();
        while let Some(seat) = game.turn() {
            let view = game.view(Viewer::Seat(seat));
            let legal = game.legal_actions(seat);
            let action = bots[seat.index()].choose(&view, &legal).context("the teacher chose")?;
            let cards = playable(&legal);
            if view.phase == Phase::Playing
                && cards.len() > 1
                && let Action::Play { card } = action
                && let Some(sight) = Sight::of_view(&view)
            {
                sight.features(&mut on);
                let canon = Canon::new(sight.trump);
                let legal = cards.iter().fold(0u32, |mask, card| mask | 1 << canon.card(card));
                let example = Example { on: on.clone(), legal, chosen: canon.card(card) as u8 };
                example.write(out)?;
                stats.examples += 1;
            }
            game.apply(seat, action)?;
        }
        stats.games += 1;
        progress(&stats);
    }
    out.flush()?;
    Ok(stats)
}

/// Reads a data file written by [`generate`].
pub fn read_examples(input: &mut impl BufRead) -> anyhow::Result<Vec<Example>> {
    let mut magic = [0; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        bail!("not a data file of euchre-learn");
    }
    let mut examples = Vec::new();
    loop {
        let mut count = [0; 1];
        match input.read_exact(&mut count) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(error) => return Err(error.into()),
        }
        let mut on = Vec::with_capacity(usize::from(count[0]));
        for _ in 0..count[0] {
            let mut index = [0; 2];
            input.read_exact(&mut index)?;
            on.push(u16::from_le_bytes(index));
        }
        let mut legal = [0; 4];
        input.read_exact(&mut legal)?;
        let mut chosen = [0; 1];
        input.read_exact(&mut chosen)?;
        let example = Example { on, legal: u32::from_le_bytes(legal), chosen: chosen[0] };
        if example.on.iter().any(|index| usize::from(*index) >= INPUTS)
            || usize::from(example.chosen) >= OUTPUTS
            || example.legal & 1 << example.chosen == 0
        {
            bail!("a malformed example: {example:?}");
        }
        examples.push(example);
    }
    Ok(examples)
}

/// How to train.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    pub hidden: usize,
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    /// The share of the examples kept out of training to measure on.
    pub holdout: f64,
    pub seed: u64,
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    pub epoch: usize,
    /// The mean cross-entropy over the epoch's batches.
    pub loss: f64,
    /// How often the network's card is the teacher's, on the training
    /// examples and on the held-out ones.
    pub train_agree: f64,
    pub holdout_agree: f64,
}

/// A network trained to choose the teacher's cards in `examples`
/// (cross-entropy over the legal cards, AdamW), with each epoch's figures
/// and the network as it stands after that epoch given to `report`.
pub fn train(
    examples: &[Example],
    config: TrainConfig,
    mut report: impl FnMut(&Epoch, &Policy) -> anyhow::Result<()>,
) -> anyhow::Result<Policy> {
    let device = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut order: Vec<usize> = (0..examples.len()).collect();
    order.shuffle(&mut rng);
    let held = ((examples.len() as f64) * config.holdout).round() as usize;
    let (held_out, training) = order.split_at(held.min(examples.len()));
    let mut training = training.to_vec();
    let hidden = config.hidden;
    // Uniform in ±1/√fan-in, as the usual linear layers start.
    let mut uniform = |count: usize, fan_in: usize| -> Vec<f32> {
        let bound = 1.0 / (fan_in as f32).sqrt();
        (0..count).map(|_| rng.random_range(-bound..bound)).collect()
    };
    let w1 = Var::from_vec(uniform(INPUTS * hidden, INPUTS), (INPUTS, hidden), &device)?;
    let b1 = Var::from_vec(uniform(hidden, INPUTS), hidden, &device)?;
    let w2 = Var::from_vec(uniform(hidden * OUTPUTS, hidden), (hidden, OUTPUTS), &device)?;
    let b2 = Var::from_vec(uniform(OUTPUTS, hidden), OUTPUTS, &device)?;
    let params = ParamsAdamW {
        lr: config.learning_rate,
        weight_decay: config.weight_decay,
        ..ParamsAdamW::default()
    };
    let mut optimizer = AdamW::new(vec![w1.clone(), b1.clone(), w2.clone(), b2.clone()], params)?;
    let mut policy = export(&w1, &b1, &w2, &b2)?;
    for epoch in 1..=config.epochs {
        training.shuffle(&mut rng);
        let (mut total, mut batches) = (0.0, 0);
        for chunk in training.chunks(config.batch.max(1)) {
            let (x, mask, targets) = batch(examples, chunk, &device)?;
            let hidden_layer = x.matmul(w1.as_tensor())?.broadcast_add(b1.as_tensor())?.relu()?;
            let logits = hidden_layer.matmul(w2.as_tensor())?.broadcast_add(b2.as_tensor())?;
            let loss = candle_nn::loss::cross_entropy(&(logits + mask)?, &targets)?;
            optimizer.backward_step(&loss)?;
            total += f64::from(loss.to_scalar::<f32>()?);
            batches += 1;
        }
        policy = export(&w1, &b1, &w2, &b2)?;
        // Agreement on as many training examples as are held out (at most
        // 20,000), for a cheap look at over-fitting.
        let sample = held_out.len().clamp(1, 20_000).min(training.len());
        let figures = Epoch {
            epoch,
            loss: total / f64::from(batches.max(1)),
            train_agree: agreement(&policy, examples, &training[..sample]),
            holdout_agree: agreement(&policy, examples, held_out),
        };
        report(&figures, &policy)?;
    }
    Ok(policy)
}

/// Dense inputs, the mask that rules out illegal cards, and the targets.
fn batch(
    examples: &[Example],
    chunk: &[usize],
    device: &Device,
) -> anyhow::Result<(Tensor, Tensor, Tensor)> {
    let rows = chunk.len();
    let mut x = vec![0f32; rows * INPUTS];
    let mut mask = vec![-1e4f32; rows * OUTPUTS];
    let mut targets = Vec::with_capacity(rows);
    for (row, index) in chunk.iter().enumerate() {
        let example = &examples[*index];
        for on in &example.on {
            x[row * INPUTS + usize::from(*on)] = 1.0;
        }
        for card in 0..OUTPUTS {
            if example.legal & 1 << card != 0 {
                mask[row * OUTPUTS + card] = 0.0;
            }
        }
        targets.push(u32::from(example.chosen));
    }
    Ok((
        Tensor::from_vec(x, (rows, INPUTS), device)?,
        Tensor::from_vec(mask, (rows, OUTPUTS), device)?,
        Tensor::from_vec(targets, rows, device)?.to_dtype(DType::U32)?,
    ))
}

/// The network as the bots crate plays it.
fn export(w1: &Var, b1: &Var, w2: &Var, b2: &Var) -> anyhow::Result<Policy> {
    let hidden = b1.as_tensor().dims1()?;
    let w1 = w1.as_tensor().flatten_all()?.to_vec1::<f32>()?;
    let b1 = b1.as_tensor().to_vec1::<f32>()?;
    // Stored output by output.
    let w2 = w2.as_tensor().t()?.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
    let b2 = b2.as_tensor().to_vec1::<f32>()?;
    Policy::new(INPUTS, hidden, OUTPUTS, w1, b1, w2, b2).context("the network's sizes")
}

/// How often `policy`'s best legal card is the chosen one, over `indices`.
pub fn agreement(policy: &Policy, examples: &[Example], indices: &[usize]) -> f64 {
    if indices.is_empty() {
        return 0.0;
    }
    let agreed = indices
        .iter()
        .filter(|index| {
            let example = &examples[**index];
            let scores = policy.scores(&example.on);
            let best = (0..OUTPUTS)
                .filter(|card| example.legal & 1 << card != 0)
                .max_by(|a, b| scores[*a].total_cmp(&scores[*b]).then(b.cmp(a)));
            best == Some(usize::from(example.chosen))
        })
        .count();
    agreed as f64 / indices.len() as f64
}

/// A network as candle runs it, one sight at a time: the yardstick for
/// the bots crate's own forward pass, which must give the same scores and
/// is what the search can afford inside its play-outs (`eval` times both).
#[derive(Debug)]
pub struct CandleNet {
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

impl CandleNet {
    pub fn new(policy: &Policy) -> anyhow::Result<CandleNet> {
        let device = Device::Cpu;
        let [w1, b1, w2, b2] = policy.layers();
        let (inputs, hidden) = (policy.inputs(), policy.hidden());
        Ok(CandleNet {
            w1: Tensor::from_slice(w1, (inputs, hidden), &device)?,
            b1: Tensor::from_slice(b1, hidden, &device)?,
            // Stored output by output: transposed to multiply from the left.
            w2: Tensor::from_slice(w2, (w2.len() / hidden.max(1), hidden), &device)?
                .t()?
                .contiguous()?,
            b2: Tensor::from_slice(b2, b2.len(), &device)?,
        })
    }

    /// Every output's score for the features `on`.
    pub fn scores(&self, on: &[u16]) -> anyhow::Result<Vec<f32>> {
        let inputs = self.w1.dims2()?.0;
        let mut x = vec![0f32; inputs];
        for index in on {
            if let Some(value) = x.get_mut(usize::from(*index)) {
                *value = 1.0;
            }
        }
        let x = Tensor::from_vec(x, (1, inputs), &Device::Cpu)?;
        let hidden = x.matmul(&self.w1)?.broadcast_add(&self.b1)?.relu()?;
        let scores = hidden.matmul(&self.w2)?.broadcast_add(&self.b2)?;
        Ok(scores.flatten_all()?.to_vec1::<f32>()?)
    }
}

/// A teacher that searches little: quick self-play for the tests and the
/// score checks.
const TINY_TEACHER: SearchSettings =
    SearchSettings { worlds: 4, bid_worlds: 4, table_bits: 8, ..SearchSettings::HARD };

/// The games whose sights the committed score checks hold, and how many.
const CHECK_GAMES: u64 = 2;
const CHECK_SEED: u64 = 11;
const CHECKS: usize = 40;

/// The committed network's scores as candle computes them on the sights of a
/// few seeded self-play games, in the text form the bots crate's tests read
/// (`crates/bots/weights/play.scores`): the bots crate checks its forward
/// pass against candle's without compiling candle. Written again with
/// `euchre-learn scores` whenever the weights change.
pub fn score_checks(policy: &Policy) -> anyhow::Result<String> {
    let candle = CandleNet::new(policy)?;
    let teacher = Teacher::new(TINY_TEACHER);
    let mut bytes = Vec::new();
    generate(teacher, CHECK_GAMES, CHECK_SEED, &mut bytes, |_| {})?;
    let examples = read_examples(&mut bytes.as_slice())?;
    let mut text = String::from(
        "# The committed network's scores (play.bin) as candle computes them, one\n\
         # sight a line: the features on, then the 24 scores. Written by\n\
         # `euchre-learn scores`; read by the bots' and the learning crate's tests.\n",
    );
    for example in examples.iter().take(CHECKS) {
        let scores = candle.scores(&example.on)?;
        let on: Vec<String> = example.on.iter().map(u16::to_string).collect();
        let scores: Vec<String> = scores.iter().map(f32::to_string).collect();
        text.push_str(&format!("{} | {}\n", on.join(" "), scores.join(" ")));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candle gives the committed scores (`crates/bots/weights/play.scores`)
    /// for the committed network: the bots crate's own forward pass is
    /// checked against the same file in its tests, so the two agree.
    #[test]
    fn the_committed_scores_are_candles() {
        let policy = euchre_bots::policy::trained().expect("the committed network");
        let candle = CandleNet::new(policy).expect("candle takes it");
        let checks = euchre_bots::policy::ScoreCheck::committed().expect("the checks read");
        assert!(checks.len() >= 20, "{} committed checks", checks.len());
        for check in &checks {
            let theirs = candle.scores(&check.on).expect("candle runs");
            assert!(check.agrees(&theirs), "{:?} against {theirs:?}", check.scores);
        }
    }

    /// The committed checks are what `score_checks` writes today: the same
    /// sights, from the same seeded games.
    #[test]
    fn the_committed_checks_are_reproducible() {
        let policy = euchre_bots::policy::trained().expect("the committed network");
        let written = score_checks(policy).expect("writes");
        let again = euchre_bots::policy::ScoreCheck::parse(&written).expect("reads back");
        let committed = euchre_bots::policy::ScoreCheck::committed().expect("the checks read");
        assert_eq!(again.len(), committed.len());
        for (a, b) in again.iter().zip(&committed) {
            assert_eq!(a.on, b.on);
            assert!(b.agrees(&a.scores), "{:?} against {:?}", a.scores, b.scores);
        }
    }

    fn data(games: u64, seed: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        generate(Teacher::new(TINY_TEACHER), games, seed, &mut bytes, |_| {}).expect("data");
        bytes
    }

    /// The data and the training are reproducible from their seeds, the
    /// file reads back, and a few epochs on a tiny set learn something
    /// (the loss falls) and give a network the bots crate reads.
    #[test]
    fn a_tiny_training_runs_and_is_reproducible() {
        let bytes = data(3, 7);
        assert_eq!(bytes, data(3, 7), "the same seed, the same data");
        let examples = read_examples(&mut bytes.as_slice()).expect("reads back");
        assert!(examples.len() > 100, "{} examples", examples.len());
        let config = TrainConfig {
            hidden: 16,
            epochs: 4,
            batch: 32,
            learning_rate: 0.01,
            weight_decay: 0.0,
            holdout: 0.1,
            seed: 3,
        };
        let mut losses = Vec::new();
        let policy = train(&examples, config, |epoch, _| {
            losses.push(epoch.loss);
            Ok(())
        })
        .expect("trains");
        assert_eq!(losses.len(), 4);
        assert!(losses[3] < losses[0], "{losses:?}");
        let again = train(&examples, config, |_, _| Ok(())).expect("trains");
        assert_eq!(policy, again, "the same seed, the same network");
        assert_eq!(Policy::from_bytes(&policy.to_bytes()), Some(policy));
    }
}
