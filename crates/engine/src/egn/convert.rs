//! A verified game as the engine's own record: [`to_record`] and the
//! reasons it refuses ([`RecordError`]).
//!
//! [`to_record`] turns a game into the engine's own [`GameRecord`]: the
//! deals as the replay dealt them, every call, discard and card by seat, and
//! each outcome, then checks that [`Game::replay`] ends it where [`verify`](super::verify)
//! does. What a record cannot say is an error ([`RecordError`]): a game
//! starting mid-way (`initialScore` other than 0 to 0), a deal out of turn,
//! a repeated deal or deal number, deals after the game was won.

use super::verifier::replay_game;
use super::{EgnGame, Location, Problem, Verification, VerifyError, per_team};
use crate::game::{Game, GameStart};
use crate::record::GameRecord;
use crate::seed::Seed;

/// Why a legal EGN game cannot become the engine's [`GameRecord`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// A step is illegal, or the file contradicts itself.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// The file has no deals; a record holds at least the first.
    #[error("the file has no deals")]
    NoDeals,
    /// The file starts mid-game. A [`GameRecord`] always starts at 0 to 0,
    /// so its scores, and where its game ends, would come out wrong.
    #[error("the game starts mid-way, at {initial_score:?}; an engine record starts at [0, 0]")]
    StartsMidGame { initial_score: [u16; 2] },
    /// Something a [`Game`] never does: a deal out of turn, a deal repeated
    /// or numbered twice, or deals after the game was won.
    #[error("{0}")]
    NotAGame(Problem),
    /// The converted record does not replay as verified: a bug here, not in the file.
    #[error("the converted record does not replay: {0}")]
    Replay(String),
}

impl RecordError {
    /// A stable machine-readable code: the engine's for an illegal step.
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::Verify(error) => error.code(),
            RecordError::NoDeals => "no_deals",
            RecordError::StartsMidGame { .. } => "starts_mid_game",
            RecordError::NotAGame(problem) => problem.code(),
            RecordError::Replay(_) => "not_replayable",
        }
    }

    pub fn location(&self) -> Option<Location> {
        match self {
            RecordError::Verify(error) => Some(error.location()),
            RecordError::StartsMidGame { .. } => Some(Location::HEADER),
            RecordError::NotAGame(problem) => problem.location(),
            RecordError::NoDeals | RecordError::Replay(_) => None,
        }
    }
}

/// Turns `game` into the engine's own record, replaying it as [`verify`](super::verify)
/// does: each deal with the cards as given or reconstructed (see
/// `egn/replay.rs`), every call, the discard and every card by seat, and each
/// outcome. The engine then replays the record with [`Game::replay`], which
/// must end where the verification does. Where the file does not give the
/// hands, the record holds the reconstruction: consistent with every call and
/// card, but not necessarily the cards that were dealt.
///
/// The record's start names the first deal's dealer, with the players seated
/// in the file's order and no cards shown (EGN does not say how the first
/// dealer was chosen); its seed is 0, as every deal is stored. Also returns
/// the verification: its `problems` may still hold
/// [`Problem::FinalScoreDiffers`] (the file's claim is wrong, the record is
/// not), which the caller may refuse.
pub fn to_record(game: &EgnGame) -> Result<(GameRecord, Verification), RecordError> {
    let (checked, hands) = replay_game(game);
    if let Some(error) = checked.first_fault() {
        return Err(RecordError::Verify(error.clone()));
    }
    let verification = checked.verification;
    if game.initial_score != [0, 0] {
        return Err(RecordError::StartsMidGame { initial_score: game.initial_score });
    }
    let not_a_game =
        verification.problems.iter().find(|p| !matches!(p, Problem::FinalScoreDiffers { .. }));
    if let Some(problem) = not_a_game {
        return Err(RecordError::NotAGame(problem.clone()));
    }
    let dealer = hands.first().ok_or(RecordError::NoDeals)?.deal.dealer;
    let start = GameStart { dealer, seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut record = GameRecord {
        rules: game.rules,
        seed: Seed::from(0),
        start,
        hands,
        scores: per_team([0, 0]),
        winner: None,
        games: Vec::new(),
    };
    let replayed = Game::replay(&record).map_err(|error| RecordError::Replay(error.to_string()))?;
    let ended = (replayed.scores(), replayed.winner());
    if ended != (verification.final_score, verification.winner) {
        let reason = format!(
            "it ends at {ended:?}, the verification at {:?}",
            (verification.final_score, verification.winner)
        );
        return Err(RecordError::Replay(reason));
    }
    (record.scores, record.winner) = ended;
    Ok((record, verification))
}
