//! Puzzles (`/api/puzzles`): the next one for a solver, the day's one, an
//! answer judged and rated, and an account's puzzle record. A puzzle is
//! sent as its question only (the seat's own view and the options); the
//! answers, the deal and the lines go out only in the verdict on an answer.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use euchre_protocol::api::{
    PlayerPuzzles, PuzzleAnswer, PuzzleAttemptView, PuzzleRatingChange, PuzzleRatingView,
    PuzzleVerdict, PuzzleView,
};
use euchre_puzzles::{AnswerError, Puzzle, Verdict};
use euchre_store::{PuzzleAttempt, PuzzleRating, StoredPuzzle};

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use super::sessions::bearer;
use crate::clock::now_ms;
use crate::puzzles::{START, daily_index, day_start, rate};
use crate::state::AppState;

/// The answers an account's record shows at most.
const HISTORY_LIMIT: u32 = 100;

fn not_found(what: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", what.to_owned())
}

fn no_puzzle() -> ApiError {
    not_found("no puzzle to give: none is stored yet, or every one was answered")
}

fn bad_answer(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "bad_answer", message)
}

/// The stored puzzle, read back into the crate's type.
fn readable(stored: &StoredPuzzle) -> Result<Puzzle, ApiError> {
    serde_json::from_value(stored.puzzle.clone())
        .map_err(|error| ApiError::corrupt(format!("puzzle {}: {error}", stored.id)))
}

/// A part of the solution as JSON, for the verdict's free-form fields.
fn to_json<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(ApiError::unwritable)
}

/// The question alone: the seat's view (the engine's, which holds only
/// what the seat saw) and the options.
fn question_view(stored: &StoredPuzzle) -> Result<PuzzleView, ApiError> {
    let puzzle = readable(stored)?;
    Ok(PuzzleView {
        id: stored.id,
        kind: stored.kind.clone(),
        seat: puzzle.question.seat,
        view: puzzle.question.view,
        options: puzzle.question.options,
        rating: stored.rating.rating.round() as i32,
        plays: stored.plays,
    })
}

/// The bearer's account id: `None` for no token and for a guest's (whose
/// answers are judged but not rated); a bad or expired token is an error,
/// so that an account is never silently taken for a guest.
async fn account_of(state: &AppState, headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    if !headers.contains_key(header::AUTHORIZATION) {
        return Ok(None);
    }
    let player = state.accounts.player(bearer(headers)?).await?;
    let account = state.store.account_by_player(&player.id).await.map_err(ApiError::store)?;
    Ok(account.map(|_| player.id))
}

#[utoipa::path(
    get,
    path = "/api/puzzles/next",
    tag = "puzzles",
    summary = "The next puzzle",
    description = "For an account (bearer): the puzzle rated nearest its puzzle rating (1500 \
        before its first answer) that it has not answered, people's puzzles first within 200 \
        points. Without a token, or for a guest: any puzzle, at random. The question only: the \
        seat's own view and the options, never the answers or a card the seat could not see.",
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The puzzle", body = PuzzleView),
        (status = 401, description = "`bad_token` or `session_expired`", body = ErrorBody),
        (status = 404, description = "No puzzle to give (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn next_puzzle(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<PuzzleView>, ApiError> {
    let store = &state.store;
    let stored = match account_of(&state, &headers).await? {
        Some(account) => {
            let rating = store.puzzle_rating(&account).await.map_err(ApiError::store)?;
            let near = rating.map_or(START.rating, |rating| rating.rating.rating);
            store.next_puzzle(Some(&account), near).await.map_err(ApiError::store)?
        }
        None => store.random_puzzle(rand::random::<f64>()).await.map_err(ApiError::store)?,
    };
    Ok(Json(question_view(&stored.ok_or_else(no_puzzle)?)?))
}

#[utoipa::path(
    get,
    path = "/api/puzzles/daily",
    tag = "puzzles",
    summary = "The puzzle of the day",
    description = "The same puzzle for everyone all UTC day: chosen from the puzzles stored \
        before the day began by a fixed mix of the day's number (the first puzzle stored, on a \
        server that had none then). The question only, as `/api/puzzles/next`.",
    responses(
        (status = 200, description = "The puzzle", body = PuzzleView),
        (status = 404, description = "No puzzle stored yet (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn daily_puzzle(
    State(state): State<AppState>,
) -> Result<Json<PuzzleView>, ApiError> {
    let store = &state.store;
    let day = day_start(now_ms());
    let chosen = *state.daily_puzzle.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((chosen_on, id)) = chosen
        && chosen_on == day
        && let Some(puzzle) = store.puzzle(id).await.map_err(ApiError::store)?
    {
        return Ok(Json(question_view(&puzzle)?));
    }
    let count = store.puzzles_before(day).await.map_err(ApiError::store)?;
    let stored = if count == 0 {
        // The lowest id: the first stored.
        store.random_puzzle(0.0).await
    } else {
        store.nth_puzzle_before(day, daily_index(day, count)).await
    };
    let puzzle = stored.map_err(ApiError::store)?.ok_or_else(no_puzzle)?;
    // Those stored before the day do not change during it: the choice
    // holds all day, or until its puzzle is gone. (The first one stored
    // stands in only while there are none: three reads by index.)
    if count > 0 {
        *state.daily_puzzle.lock().unwrap_or_else(|p| p.into_inner()) = Some((day, puzzle.id));
    }
    Ok(Json(question_view(&puzzle)?))
}

#[utoipa::path(
    get,
    path = "/api/puzzles/{id}",
    tag = "puzzles",
    summary = "One puzzle",
    description = "The puzzle with this id (a link to it, or one to try again): the question \
        only, as `/api/puzzles/next`.",
    params(("id" = i64, Path, description = "The puzzle id")),
    responses(
        (status = 200, description = "The puzzle", body = PuzzleView),
        (status = 404, description = "No such puzzle (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_puzzle(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PuzzleView>, ApiError> {
    let missing = || not_found(&format!("no puzzle {id:?}"));
    let puzzle_id: i64 = id.parse().map_err(|_| missing())?;
    let stored = state.store.puzzle(puzzle_id).await.map_err(ApiError::store)?;
    Ok(Json(question_view(&stored.ok_or_else(missing)?)?))
}

#[utoipa::path(
    post,
    path = "/api/puzzles/{id}/answer",
    tag = "puzzles",
    summary = "Answer a puzzle",
    description = "Judges the action chosen (one of the puzzle's `options`): right if it is one \
        of the best answers. Answers with the best answers, the solver's reasons, and the rest \
        of the hand played both ways, every card shown. An account's first answer to a puzzle \
        is rated (Glicko-2: one game between the account and the puzzle, which is rated too; a \
        right answer extends the streak, a wrong one ends it); a guest's answers, and an \
        account's answers again, are judged but not rated.",
    params(("id" = i64, Path, description = "The puzzle id")),
    request_body = PuzzleAnswer,
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The verdict and the solution", body = PuzzleVerdict),
        (status = 400, description = "`bad_answer`: not an action, or not one of the options",
            body = ErrorBody),
        (status = 401, description = "`bad_token` or `session_expired`", body = ErrorBody),
        (status = 404, description = "No such puzzle (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn answer_puzzle(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    answer: Result<Json<PuzzleAnswer>, JsonRejection>,
) -> Result<Json<PuzzleVerdict>, ApiError> {
    let missing = || not_found(&format!("no puzzle {id:?}"));
    let puzzle_id: i64 = id.parse().map_err(|_| missing())?;
    let Json(PuzzleAnswer { action }) =
        answer.map_err(|rejection| bad_answer(rejection.body_text()))?;
    let account = account_of(&state, &headers).await?;
    let stored = state.store.puzzle(puzzle_id).await.map_err(ApiError::store)?;
    let stored = stored.ok_or_else(missing)?;
    let puzzle = readable(&stored)?;
    let verdict = puzzle.judge(action).map_err(|error| match error {
        AnswerError::NotAnOption => bad_answer("that is not one of the puzzle's options"),
        AnswerError::Broken(_) => ApiError::corrupt(format!("puzzle {puzzle_id} is broken")),
    })?;
    let correct = verdict == Verdict::Best;
    // Playing the hand out is the solver's work: off the async workers.
    let played = tokio::task::spawn_blocking(move || {
        let both = puzzle.see_it_played(action);
        (puzzle, both)
    });
    let (puzzle, both) = played.await.map_err(|error| ApiError::corrupt(error.to_string()))?;
    let both = both.map_err(|error| ApiError::corrupt(format!("puzzle {puzzle_id}: {error}")))?;
    let mut puzzle_rating = stored.rating;
    let mut change = None;
    if let Some(player_id) = account {
        let attempt = PuzzleAttempt { player_id, puzzle_id, correct, at: now_ms() };
        let rated = state.store.answer_puzzle(&attempt, START, &rate).await;
        if let Some(rated) = rated.map_err(ApiError::store)? {
            puzzle_rating = rated.puzzle;
            change = Some(PuzzleRatingChange {
                before: rated.before.rating.round() as i32,
                after: rated.after.rating.rating.round() as i32,
                deviation: rated.after.rating.deviation.round() as i32,
                streak: rated.after.streak,
                best_streak: rated.after.best_streak,
            });
        }
    }
    Ok(Json(PuzzleVerdict {
        correct,
        answers: puzzle.answers.clone(),
        why: puzzle.solution.why.clone(),
        themes: stored.themes.clone(),
        best_line: to_json(&both.best)?,
        answer_line: to_json(&both.answer)?,
        values: to_json(&puzzle.solution.values)?,
        match_id: stored.match_id.clone(),
        hand: stored.hand,
        action: stored.action,
        rating: change,
        puzzle_rating: puzzle_rating.rating.round() as i32,
    }))
}

fn rating_view(rating: &PuzzleRating) -> PuzzleRatingView {
    PuzzleRatingView {
        rating: rating.rating.rating.round() as i32,
        deviation: rating.rating.deviation.round() as i32,
        streak: rating.streak,
        best_streak: rating.best_streak,
        attempts: rating.attempts,
        solved: rating.solved,
    }
}

#[utoipa::path(
    get,
    path = "/api/players/{id}/puzzles",
    tag = "puzzles",
    summary = "A player's puzzle record",
    description = "An account's puzzle rating (Glicko-2) and streak, once it has answered a \
        puzzle, and its latest rated answers (up to 100), newest first. A guest has none.",
    params(("id" = String, Path, description = "The player id")),
    responses(
        (status = 200, description = "The puzzle record", body = PlayerPuzzles),
        (status = 404, description = "No such player (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn player_puzzles(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PlayerPuzzles>, ApiError> {
    let missing = || not_found(&format!("no player {id:?}"));
    if !valid_id(&id) {
        return Err(missing());
    }
    let store = &state.store;
    if store.player_stats(&id).await.map_err(ApiError::store)?.player.is_none() {
        return Err(missing());
    }
    let rating = store.puzzle_rating(&id).await.map_err(ApiError::store)?;
    let history = store.puzzle_attempts(&id, HISTORY_LIMIT).await.map_err(ApiError::store)?;
    Ok(Json(PlayerPuzzles {
        rating: rating.as_ref().map(rating_view),
        history: history
            .into_iter()
            .map(|attempt| PuzzleAttemptView {
                puzzle_id: attempt.puzzle_id,
                correct: attempt.correct,
                at: attempt.at,
            })
            .collect(),
    }))
}
