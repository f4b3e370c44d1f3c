//! The learned card-play policy: a small network that scores each card
//! from what one seat sees ([`features`]), trained by imitation of the hard
//! bot's choices (the `euchre-learn` crate makes the data and trains it;
//! BENCHMARKS.md, "Bots").
//!
//! The network is two layers: the on features' rows of the first layer
//! summed with its bias, a ReLU, then a score for each legal card. Its
//! weights are committed (`weights/play.bin`) and compiled in; nothing is
//! read at run time. It is cheap enough to play cards inside the search's
//! play-outs: a few thousand multiply-adds a card.
//!
//! The weights' file: the 8 bytes `EUCHNET1`, then the inputs, hidden units
//! and outputs as little-endian `u32`s, then little-endian `f32`s: the first
//! layer's weights input by input (a row of hidden units each), its biases,
//! the second layer's weights output by output (a row of hidden units
//! each), its biases.

pub mod features;

use std::sync::OnceLock;

use euchre_engine::{Action, Card, CardSet, GameView, Phase};
pub use features::{INPUTS, OUTPUTS, Sight, covers};

use crate::{BasicBot, Bot, legal_or_first};

/// The weights' file's first bytes.
const MAGIC: &[u8; 8] = b"EUCHNET1";
/// The most hidden units a network may have (the forward pass keeps them
/// on the stack).
pub const MAX_HIDDEN: usize = 512;

/// A two-layer network over sparse binary features.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    inputs: usize,
    hidden: usize,
    outputs: usize,
    /// `inputs` rows of `hidden`.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// `outputs` rows of `hidden`.
    w2: Vec<f32>,
    b2: Vec<f32>,
}

impl Policy {
    /// A network from its weights, laid out as the file holds them; `None`
    /// if the sizes do not agree.
    pub fn new(
        inputs: usize,
        hidden: usize,
        outputs: usize,
        w1: Vec<f32>,
        b1: Vec<f32>,
        w2: Vec<f32>,
        b2: Vec<f32>,
    ) -> Option<Policy> {
        let fits = hidden <= MAX_HIDDEN
            && w1.len() == inputs * hidden
            && b1.len() == hidden
            && w2.len() == outputs * hidden
            && b2.len() == outputs;
        fits.then_some(Policy { inputs, hidden, outputs, w1, b1, w2, b2 })
    }

    /// A network read from its file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<Policy> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let word = |at: usize| -> Option<[u8; 4]> { rest.get(at..at + 4)?.try_into().ok() };
        let size = |at: usize| word(at).map(|w| u32::from_le_bytes(w) as usize);
        let (inputs, hidden, outputs) = (size(0)?, size(4)?, size(8)?);
        let mut at = 12;
        let mut floats = |count: usize| -> Option<Vec<f32>> {
            let values = (0..count)
                .map(|i| word(at + 4 * i).map(f32::from_le_bytes))
                .collect::<Option<Vec<f32>>>()?;
            at += 4 * count;
            Some(values)
        };
        let w1 = floats(inputs * hidden)?;
        let b1 = floats(hidden)?;
        let w2 = floats(outputs * hidden)?;
        let b2 = floats(outputs)?;
        if at != rest.len() {
            return None;
        }
        Policy::new(inputs, hidden, outputs, w1, b1, w2, b2)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for size in [self.inputs, self.hidden, self.outputs] {
            bytes.extend((size as u32).to_le_bytes());
        }
        for value in self.w1.iter().chain(&self.b1).chain(&self.w2).chain(&self.b2) {
            bytes.extend(value.to_le_bytes());
        }
        bytes
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The first layer's weights (`inputs` rows of `hidden`) and biases,
    /// the second's (`outputs` rows of `hidden`) and its biases.
    pub fn layers(&self) -> [&[f32]; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }

    /// The hidden layer for the features `on` (indices past the inputs are
    /// ignored), after its ReLU, in `out`'s first `hidden` places.
    fn hidden_layer<'a>(&self, on: &[u16], out: &'a mut [f32; MAX_HIDDEN]) -> &'a [f32] {
        let hidden = &mut out[..self.hidden];
        hidden.copy_from_slice(&self.b1);
        for index in on {
            let index = usize::from(*index);
            if index < self.inputs {
                let row = &self.w1[index * self.hidden..(index + 1) * self.hidden];
                for (h, w) in hidden.iter_mut().zip(row) {
                    *h += w;
                }
            }
        }
        for h in hidden.iter_mut() {
            *h = h.max(0.0);
        }
        hidden
    }

    /// The score of output `output` from a hidden layer.
    fn output(&self, hidden: &[f32], output: usize) -> f32 {
        let row = &self.w2[output * self.hidden..(output + 1) * self.hidden];
        self.b2[output] + row.iter().zip(hidden).map(|(w, h)| w * h).sum::<f32>()
    }

    /// Every output's score for the features `on`.
    pub fn scores(&self, on: &[u16]) -> Vec<f32> {
        let mut buffer = [0.0; MAX_HIDDEN];
        let hidden = self.hidden_layer(on, &mut buffer);
        (0..self.outputs).map(|output| self.output(hidden, output)).collect()
    }

    /// The card of `legal` the network scores highest for `sight` (the
    /// first of equals in the engine's card order); `None` if `legal` is
    /// empty. `on` is room for the features.
    pub fn choose(&self, sight: &Sight, legal: CardSet, on: &mut Vec<u16>) -> Option<Card> {
        sight.features(on);
        let mut buffer = [0.0; MAX_HIDDEN];
        let hidden = self.hidden_layer(on, &mut buffer);
        let canon = features::Canon::new(sight.trump);
        let mut best: Option<(Card, f32)> = None;
        for card in legal.iter() {
            let output = canon.card(card);
            let score = if output < self.outputs { self.output(hidden, output) } else { f32::MIN };
            if best.is_none_or(|(_, top)| score > top) {
                best = Some((card, score));
            }
        }
        best.map(|(card, _)| card)
    }
}

/// The committed network, read once; `None` if the committed file is not
/// one (the bots then play the basic bot's cards where they would have
/// asked it).
pub fn trained() -> Option<&'static Policy> {
    static TRAINED: OnceLock<Option<Policy>> = OnceLock::new();
    TRAINED
        .get_or_init(|| {
            Policy::from_bytes(include_bytes!("../../weights/play.bin"))
                .filter(|policy| policy.inputs == INPUTS && policy.outputs == OUTPUTS)
        })
        .as_ref()
}

/// One committed check of the network's forward pass: the features on in a
/// sight, and the scores the training library (candle) gave for them. The
/// file is written by `euchre-learn scores`; this crate's tests check its own
/// forward pass against it, and the learning crate's check candle against
/// it, so the two agree without this crate compiling candle.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreCheck {
    pub on: Vec<u16>,
    pub scores: Vec<f32>,
}

impl ScoreCheck {
    /// The checks committed beside the weights (`weights/play.scores`);
    /// `None` if the file does not read.
    pub fn committed() -> Option<Vec<ScoreCheck>> {
        ScoreCheck::parse(include_str!("../../weights/play.scores"))
    }

    /// Reads the text form: `#` comments, then a line a check, the features
    /// on and the scores parted by `|`. `None` if a line does not read.
    pub fn parse(text: &str) -> Option<Vec<ScoreCheck>> {
        text.lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .map(|line| {
                let (on, scores) = line.split_once('|')?;
                Some(ScoreCheck {
                    on: on.split_whitespace().map(str::parse).collect::<Result<_, _>>().ok()?,
                    scores: scores
                        .split_whitespace()
                        .map(str::parse)
                        .collect::<Result<_, _>>()
                        .ok()?,
                })
            })
            .collect()
    }

    /// Whether `scores` are these, to the last few bits of an `f32` (the two
    /// forward passes add in different orders).
    pub fn agrees(&self, scores: &[f32]) -> bool {
        self.scores.len() == scores.len()
            && self.scores.iter().zip(scores).all(|(a, b)| (a - b).abs() <= 1e-4 * (1.0 + b.abs()))
    }
}

/// The policy alone as a player, for measuring it: the basic bot's bids,
/// discards and cards passed, the network's cards where it covers the hand,
/// the basic bot's elsewhere.
#[derive(Debug)]
pub struct PolicyBot {
    policy: Option<&'static Policy>,
    basic: BasicBot,
    on: Vec<u16>,
}

impl PolicyBot {
    /// With the committed network.
    pub fn new() -> PolicyBot {
        PolicyBot { policy: trained(), basic: BasicBot::new(), on: Vec::new() }
    }

    /// With `network`, or the committed one for `None` (the arena measures
    /// networks in training), as [`crate::SearchBot::with_policy`].
    pub fn with(network: Option<&'static Policy>) -> PolicyBot {
        let bot = PolicyBot::new();
        PolicyBot { policy: network.or(bot.policy), ..bot }
    }
}

impl Default for PolicyBot {
    fn default() -> Self {
        PolicyBot::new()
    }
}

/// The cards `legal` lets the seat play.
pub fn playable(legal: &[Action]) -> CardSet {
    legal
        .iter()
        .filter_map(|action| match action {
            Action::Play { card } => Some(*card),
            _ => None,
        })
        .collect()
}

impl Bot for PolicyBot {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        if view.phase == Phase::Playing
            && !legal.contains(&Action::Claim)
            && let Some(policy) = self.policy
            && let Some(sight) = Sight::of_view(view)
            && let Some(card) = policy.choose(&sight, playable(legal), &mut self.on)
        {
            return legal_or_first(Some(Action::Play { card }), legal);
        }
        self.basic.choose(view, legal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forward pass gives the scores candle gave for the committed
    /// network (`weights/play.scores`, written by `euchre-learn scores`).
    #[test]
    fn the_forward_pass_gives_candles_committed_scores() {
        let policy = trained().expect("the committed network");
        let checks = ScoreCheck::committed().expect("the committed checks read");
        assert!(checks.len() >= 20, "{} committed checks", checks.len());
        for check in &checks {
            let ours = policy.scores(&check.on);
            assert!(check.agrees(&ours), "{ours:?} against {:?}", check.scores);
        }
    }

    /// A network small enough to work out by hand.
    fn tiny() -> Policy {
        // Three inputs, two hidden units, two outputs.
        let w1 = vec![1.0, -1.0, 0.5, 2.0, -3.0, 0.25];
        let b1 = vec![0.1, -0.2];
        let w2 = vec![1.0, 2.0, -1.0, 0.5];
        let b2 = vec![0.0, 1.0];
        Policy::new(3, 2, 2, w1, b1, w2, b2).expect("sizes agree")
    }

    /// The forward pass against the sums done by hand, and the file's
    /// bytes read back to the same network.
    #[test]
    fn the_forward_pass_matches_a_reference() {
        let policy = tiny();
        // Inputs 0 and 1 on: hidden = relu([0.1 + 1 + 0.5, -0.2 - 1 + 2])
        // = [1.6, 0.8]; outputs = [1.6 + 1.6, 1 - 1.6 + 0.4] = [3.2, -0.2].
        let scores = policy.scores(&[0, 1]);
        assert!((scores[0] - 3.2).abs() < 1e-6, "{scores:?}");
        assert!((scores[1] + 0.2).abs() < 1e-6, "{scores:?}");
        // Input 2 alone: hidden = relu([0.1 - 3, -0.2 + 0.25]) = [0, 0.05].
        let scores = policy.scores(&[2, 9]);
        assert!((scores[0] - 0.1).abs() < 1e-6, "{scores:?}");
        assert!((scores[1] - 1.025).abs() < 1e-6, "{scores:?}");
        assert_eq!(Policy::from_bytes(&policy.to_bytes()), Some(policy.clone()));
        let mut bytes = policy.to_bytes();
        bytes.pop();
        assert_eq!(Policy::from_bytes(&bytes), None);
        assert_eq!(Policy::from_bytes(b"EUCHNET2"), None);
    }
}
