//! The record verifier behind `euchre-verify`: read a file (EGN, or the
//! engine's own [`GameRecord`] JSON, told apart by content), replay every
//! deal through the engine, and summarize it as JSON.
//!
//! An EGN record is read to the end as a referee reads it ([`egn::check`]):
//! every finding is reported, each at its deal and step, with the scores of
//! the deals that could still be scored. An engine record stops at its first
//! illegal step ([`Game::replay`]).

use std::fmt;

use euchre_engine::egn::{self, DealResult, Ending, Finding, Problem, Verification};
use euchre_engine::{DealCheck, Game, GameRecord, HandOutcome, ReplayError, fairness};
use serde_json::{Value, json};

/// What kind of file was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Egn,
    Record,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Egn => "egn",
            Format::Record => "record",
        }
    }
}

/// One thing wrong with a file: where, a stable code and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Index of the deal (EGN) or hand (record).
    pub deal: Option<usize>,
    /// The step within it, such as "trick 2, card 1" or "action 14".
    pub step: Option<String>,
    pub code: String,
    pub message: String,
}

impl Failure {
    fn new(code: &str, message: impl fmt::Display) -> Failure {
        Failure { deal: None, step: None, code: code.to_owned(), message: message.to_string() }
    }
}

impl From<&Finding> for Failure {
    fn from(finding: &Finding) -> Failure {
        let at = finding.location();
        Failure {
            deal: at.and_then(|at| at.deal),
            step: at.map(|at| at.step.to_string()),
            code: finding.code().to_owned(),
            message: finding.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The message already names the deal and step.
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// The outcome of checking one file.
#[derive(Clone, Debug)]
pub struct Report {
    pub format: Option<Format>,
    /// The replay, when the file could be read: for a faulty EGN record, the
    /// deals that could be scored (see [`egn::Checked`]).
    pub verification: Option<Verification>,
    /// Everything wrong with the file, in its order; empty when it is clean.
    pub findings: Vec<Failure>,
    /// An engine record's deals, hand by hand: whether each opens the
    /// commitment made before play (docs/security.md). Empty for EGN,
    /// which has no commitments.
    pub deal_checks: Vec<DealCheck>,
}

impl Report {
    fn failed(format: Option<Format>, failure: Failure) -> Report {
        Report { format, verification: None, findings: vec![failure], deal_checks: Vec::new() }
    }

    /// A file that could not be read at all.
    pub fn unreadable(error: &anyhow::Error) -> Report {
        Report::failed(None, Failure::new("unreadable", format!("{error:#}")))
    }

    /// Whether nothing is wrong with the file.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// Everything wrong with the file, one line each.
    pub fn complaints(&self) -> Vec<String> {
        self.findings.iter().map(Failure::to_string).collect()
    }

    /// The JSON document printed for `file`: `result` is the replay (`null`
    /// when the file could not be read), `findings` every finding.
    pub fn to_json(&self, file: &str) -> Value {
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|failure| {
                json!({
                    "deal": failure.deal,
                    "step": failure.step,
                    "code": failure.code,
                    "message": failure.message,
                })
            })
            .collect();
        json!({
            "file": file,
            "format": self.format.map(Format::name),
            "ok": self.is_clean(),
            "result": self.verification,
            "deal_checks": self.deal_checks,
            "findings": findings,
        })
    }
}

/// Reads and replays one file's text.
pub fn check(text: &str) -> Report {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => return Report::failed(None, Failure::new("not_json", error)),
    };
    if value.get("fileType").is_some() {
        check_egn(value)
    } else if value.get("hands").is_some() && value.get("rules").is_some() {
        match check_record(value) {
            Ok((verification, deal_checks)) => {
                let mut findings: Vec<Failure> = verification
                    .problems
                    .iter()
                    .map(|problem| Failure::from(&Finding::Problem(problem.clone())))
                    .collect();
                findings.extend(deal_checks.iter().enumerate().filter_map(|(hand, check)| {
                    let message = format!(
                        "hand {hand}: the deal and salt do not hash to the commitment sent before play"
                    );
                    (*check == DealCheck::Mismatch)
                        .then(|| Failure { deal: Some(hand), ..Failure::new("deal_mismatch", message) })
                }));
                let verification = Some(verification);
                Report { format: Some(Format::Record), verification, findings, deal_checks }
            }
            Err(failure) => Report::failed(Some(Format::Record), failure),
        }
    } else {
        let message = "neither EGN (no fileType) nor a game record (no rules and hands)";
        Report::failed(None, Failure::new("unknown_format", message))
    }
}

/// Reads an EGN record (a file that cannot be read as EGN is one finding)
/// and checks it to the end.
fn check_egn(value: Value) -> Report {
    let format = Some(Format::Egn);
    let game = match egn::from_value(value) {
        Ok(game) => game,
        Err(error) => {
            let failure = Failure {
                deal: error.location().and_then(|at| at.deal),
                step: error.location().map(|at| at.step.to_string()),
                code: error.code().to_owned(),
                message: error.to_string(),
            };
            return Report::failed(format, failure);
        }
    };
    let checked = egn::check(&game);
    let findings = checked.findings.iter().map(Failure::from).collect();
    let verification = Some(checked.verification);
    Report { format, verification, findings, deal_checks: Vec::new() }
}

/// Replays an engine record and checks each hand's deal against its commitment.
fn check_record(value: Value) -> Result<(Verification, Vec<DealCheck>), Failure> {
    let record: GameRecord =
        serde_json::from_value(value).map_err(|error| Failure::new("invalid_record", error))?;
    let game = Game::replay(&record).map_err(|error| replay_failure(&error))?;
    let deal_checks =
        record.hands.iter().map(|hand| fairness::check(&hand.deal, hand.seal.as_ref())).collect();
    if !record.rules.partnerships() {
        // The record replayed; the summary's shape (EGN's) has two teams.
        let message = "the record replays, but the summary covers partnership games only";
        return Err(Failure::new("unsupported_game", message));
    }
    let mut verification = summarize(&game);
    if record.scores != game.scores() {
        let (recorded, derived) = (record.scores.pair(), game.scores().pair());
        verification.problems.push(Problem::FinalScoreDiffers { recorded, derived });
    }
    Ok((verification, deal_checks))
}

fn replay_failure(error: &ReplayError) -> Failure {
    let message = error.to_string();
    match error {
        ReplayError::Illegal { hand, action, error, .. } => Failure {
            deal: Some(*hand as usize),
            step: Some(format!("action {action}")),
            code: error.code().to_owned(),
            message,
        },
        ReplayError::Rules(_) => Failure::new("bad_rules", message),
        ReplayError::BadDeal { hand, .. } => {
            Failure { deal: Some(*hand as usize), ..Failure::new("bad_deal", message) }
        }
        ReplayError::Diverged { hand, .. } => {
            Failure { deal: Some(*hand as usize), ..Failure::new("diverged", message) }
        }
    }
}

/// The same summary [`egn::verify`] gives, from a replayed game.
fn summarize(game: &Game) -> Verification {
    let hands = &game.record().hands;
    let mut score = [0u16; 2];
    let mut deals = Vec::with_capacity(hands.len());
    for (index, hand) in hands.iter().enumerate() {
        let current = game.hand();
        let (ending, maker, trump, alone, tricks, points) = match hand.outcome {
            Some(HandOutcome::Played(played)) => (
                Ending::Played,
                Some(played.maker),
                played.trump,
                played.alone,
                played.tricks.pair(),
                played.points.pair(),
            ),
            Some(HandOutcome::ThrownIn(_)) => (Ending::ThrownIn, None, None, false, [0, 0], [0, 0]),
            // Only the last hand can be in progress: it is the game's current hand.
            None => (
                Ending::Unfinished,
                current.maker(),
                current.trump(),
                current.alone(),
                current.tricks_won().pair(),
                [0, 0],
            ),
        };
        for (total, points) in score.iter_mut().zip(points) {
            *total = total.saturating_add(u16::from(points));
        }
        deals.push(DealResult {
            deal: index,
            dealer: hand.deal.dealer,
            ending,
            maker,
            trump,
            alone,
            tricks,
            points,
            score,
            cards: Some(hand.deal),
        });
    }
    Verification {
        players: Vec::new(),
        initial_score: [0, 0],
        deals,
        final_score: game.scores(),
        winner: game.winner(),
        won_at_deal: game.winner().map(|_| hands.len() - 1),
        problems: Vec::new(),
    }
}
