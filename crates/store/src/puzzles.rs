//! Puzzles as stored (migration 0021), written once for both backends:
//! each puzzle the crate's JSON beside the columns the server picks and
//! rates on; each account's first answer to a puzzle; and each account's
//! puzzle rating with its run of right answers.

use sqlx::types::Json;

use crate::conn::{Conn, Decodes, Param};
use crate::{Glicko, Millis, StoreError};

/// A puzzle to keep, as mined from a match's analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct NewPuzzle {
    pub match_id: String,
    pub hand: u32,
    pub action: u32,
    /// `bid`, `discard` or `card`.
    pub kind: String,
    pub themes: Vec<String>,
    pub by_human: bool,
    /// The puzzle's rating before anyone tries it.
    pub rating: Glicko,
    /// The whole puzzle (`euchre_puzzles::Puzzle`), solution and all.
    pub puzzle: serde_json::Value,
}

/// A stored puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPuzzle {
    pub id: i64,
    pub match_id: String,
    pub hand: u32,
    pub action: u32,
    pub kind: String,
    pub themes: Vec<String>,
    pub by_human: bool,
    pub rating: Glicko,
    /// Rated answers to it so far.
    pub plays: u32,
    pub puzzle: serde_json::Value,
    pub created_at: Millis,
}

/// An account's puzzle rating and record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuzzleRating {
    pub rating: Glicko,
    /// Right answers in a row, now, and the longest run so far.
    pub streak: u32,
    pub best_streak: u32,
    /// Puzzles answered, and answered right.
    pub attempts: u32,
    pub solved: u32,
}

/// An account's answer to a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PuzzleAttempt {
    pub player_id: String,
    pub puzzle_id: i64,
    pub correct: bool,
    pub at: Millis,
}

/// What a rated answer changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuzzleRated {
    /// The solver's rating before the answer, and its record after.
    pub before: Glicko,
    pub after: PuzzleRating,
    /// The puzzle's rating after the answer.
    pub puzzle: Glicko,
}

/// Rates one answer: from the solver's and the puzzle's ratings and
/// whether the answer was right, their new ratings (the solver's first).
pub type PuzzleRateFn<'a> = &'a (dyn Fn(Glicko, Glicko, bool) -> (Glicko, Glicko) + Send + Sync);

/// A row of the puzzle reads.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PuzzleRow {
    id: i64,
    match_id: String,
    hand: i64,
    action: i64,
    kind: String,
    themes: String,
    by_human: bool,
    rating: f64,
    deviation: f64,
    volatility: f64,
    plays: i64,
    puzzle: Json<serde_json::Value>,
    created_at: i64,
}

fn count(value: i64) -> u32 {
    u32::try_from(value.max(0)).unwrap_or(u32::MAX)
}

impl From<PuzzleRow> for StoredPuzzle {
    fn from(row: PuzzleRow) -> StoredPuzzle {
        StoredPuzzle {
            id: row.id,
            match_id: row.match_id,
            hand: count(row.hand),
            action: count(row.action),
            kind: row.kind,
            themes: row.themes.split_whitespace().map(str::to_owned).collect(),
            by_human: row.by_human,
            rating: Glicko {
                rating: row.rating,
                deviation: row.deviation,
                volatility: row.volatility,
            },
            plays: count(row.plays),
            puzzle: row.puzzle.0,
            created_at: row.created_at,
        }
    }
}

/// A row of an account's puzzle rating.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PuzzleRatingRow {
    rating: f64,
    deviation: f64,
    volatility: f64,
    streak: i64,
    best_streak: i64,
    attempts: i64,
    solved: i64,
}

impl From<PuzzleRatingRow> for PuzzleRating {
    fn from(row: PuzzleRatingRow) -> PuzzleRating {
        PuzzleRating {
            rating: Glicko {
                rating: row.rating,
                deviation: row.deviation,
                volatility: row.volatility,
            },
            streak: count(row.streak),
            best_streak: count(row.best_streak),
            attempts: count(row.attempts),
            solved: count(row.solved),
        }
    }
}

/// A row of an account's answers.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AttemptRow {
    player_id: String,
    puzzle_id: i64,
    correct: bool,
    at: i64,
}

/// One puzzle per decision of a match: mining a match again adds nothing.
const INSERT: &str = "\
    INSERT INTO puzzles (match_id, hand, action, kind, themes, by_human, rating, deviation, \
        volatility, plays, puzzle, created_at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11) \
    ON CONFLICT (match_id, hand, action) DO NOTHING RETURNING id";

const ONE: &str = "\
    SELECT id, match_id, hand, action, kind, themes, by_human, rating, deviation, volatility, \
        plays, puzzle, created_at FROM puzzles WHERE id = $1";

/// [`next`]'s walks along the rating index (`puzzles_by_rating`), each
/// from `$2` outward to the first puzzle the account `$1` has not answered
/// (a guest, `$1` NULL, has answered none): up and down among people's
/// puzzles within `$3` points, then up and down among all. Each reads the
/// index from the rating on rather than sorting the table: the rows it
/// passes over are the account's answered puzzles there (and, for people's,
/// bots' puzzles in the window). Ordered by the rating alone: every puzzle
/// starts at 1500, and a second key would sort that whole tie (an index
/// of one column has no order within it to read, in PostgreSQL) where
/// the index's own order among equals will do.
macro_rules! next_walk {
    ($condition:literal, $order:literal) => {
        concat!(
            "SELECT id, match_id, hand, action, kind, themes, by_human, rating, deviation, \
                volatility, plays, puzzle, created_at FROM puzzles p \
             WHERE NOT EXISTS (SELECT 1 FROM puzzle_attempts a \
                WHERE a.player_id = $1 AND a.puzzle_id = p.id) AND ",
            $condition,
            " ORDER BY ",
            $order,
            " LIMIT 1"
        )
    };
}
const PEOPLES_UP: &str =
    next_walk!("p.by_human AND p.rating >= $2 AND p.rating <= $2 + $3", "p.rating");
const PEOPLES_DOWN: &str =
    next_walk!("p.by_human AND p.rating < $2 AND p.rating >= $2 - $3", "p.rating DESC");
const ANY_UP: &str = next_walk!("p.rating >= $2", "p.rating");
const ANY_DOWN: &str = next_walk!("p.rating < $2", "p.rating DESC");
/// How near a person's puzzle must be to come before a nearer bot's.
const PEOPLES_WINDOW: f64 = 200.0;

/// The lowest and highest ids (-1 with no puzzle), each one read by the key.
const LOWEST_ID: &str = "SELECT COALESCE(MIN(id), -1) FROM puzzles";
const HIGHEST_ID: &str = "SELECT COALESCE(MAX(id), -1) FROM puzzles";

const AT_OR_AFTER: &str = "\
    SELECT id, match_id, hand, action, kind, themes, by_human, rating, deviation, volatility, \
        plays, puzzle, created_at FROM puzzles WHERE id >= $1 ORDER BY id LIMIT 1";

const COUNT_BEFORE: &str = "SELECT COUNT(*) FROM puzzles WHERE created_at < $1";

const NTH_BEFORE: &str = "\
    SELECT id, match_id, hand, action, kind, themes, by_human, rating, deviation, volatility, \
        plays, puzzle, created_at FROM puzzles WHERE created_at < $1 ORDER BY id \
    LIMIT 1 OFFSET $2";

/// The first answer is the one rated; a row back when this one is it.
const INSERT_ATTEMPT: &str = "\
    INSERT INTO puzzle_attempts (player_id, puzzle_id, correct, at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (player_id, puzzle_id) DO NOTHING RETURNING puzzle_id";

/// The account's rating, made at `$2..$4` if it has none; the update
/// locks its row, so two answers at once are rated one after the other.
const LOCK_RATING: &str = "\
    INSERT INTO puzzle_ratings (player_id, rating, deviation, volatility, streak, best_streak, \
        attempts, solved, updated_at) VALUES ($1, $2, $3, $4, 0, 0, 0, 0, $5) \
    ON CONFLICT (player_id) DO UPDATE SET updated_at = excluded.updated_at \
    RETURNING rating, deviation, volatility, streak, best_streak, attempts, solved";

const SET_RATING: &str = "\
    UPDATE puzzle_ratings SET rating = $2, deviation = $3, volatility = $4, streak = $5, \
        best_streak = $6, attempts = $7, solved = $8, updated_at = $9 WHERE player_id = $1";

/// Counts the play and locks the puzzle's row, as [`LOCK_RATING`] does.
const LOCK_PUZZLE: &str = "\
    UPDATE puzzles SET plays = plays + 1 WHERE id = $1 RETURNING rating, deviation, volatility";

const SET_PUZZLE_RATING: &str =
    "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4 WHERE id = $1";

const RATING: &str = "\
    SELECT rating, deviation, volatility, streak, best_streak, attempts, solved \
    FROM puzzle_ratings WHERE player_id = $1";

const ATTEMPTS: &str = "\
    SELECT player_id, puzzle_id, correct, at FROM puzzle_attempts WHERE player_id = $1 \
    ORDER BY at DESC, puzzle_id DESC LIMIT $2";

/// Keeps the puzzles not stored before (by match, hand and action); how
/// many were new.
pub(crate) async fn save<C: Conn>(
    conn: &mut C,
    puzzles: &[NewPuzzle],
    at: Millis,
) -> Result<u32, StoreError> {
    let mut added = 0;
    for puzzle in puzzles {
        let themes = puzzle.themes.join(" ");
        let params = [
            Param::Text(Some(&puzzle.match_id)),
            Param::Int(Some(i64::from(puzzle.hand))),
            Param::Int(Some(i64::from(puzzle.action))),
            Param::Text(Some(&puzzle.kind)),
            Param::Text(Some(&themes)),
            Param::Bool(Some(puzzle.by_human)),
            Param::Float(Some(puzzle.rating.rating)),
            Param::Float(Some(puzzle.rating.deviation)),
            Param::Float(Some(puzzle.rating.volatility)),
            Param::Json(Some(&puzzle.puzzle)),
            Param::Int(Some(at)),
        ];
        if !conn.fetch_all(INSERT, &params).await?.is_empty() {
            added += 1;
        }
    }
    Ok(added)
}

pub(crate) async fn one<C: Conn>(
    conn: &mut C,
    id: i64,
) -> Result<Option<StoredPuzzle>, StoreError> {
    first(conn, ONE, &[Param::Int(Some(id))]).await
}

pub(crate) async fn next<C: Conn>(
    conn: &mut C,
    player: Option<&str>,
    near: f64,
) -> Result<Option<StoredPuzzle>, StoreError> {
    let window =
        [Param::Text(player), Param::Float(Some(near)), Param::Float(Some(PEOPLES_WINDOW))];
    for (walks, params) in
        [([PEOPLES_UP, PEOPLES_DOWN], &window[..]), ([ANY_UP, ANY_DOWN], &window[..2])]
    {
        let up = first(conn, walks[0], params).await?;
        let down = first(conn, walks[1], params).await?;
        let nearer = match (up, down) {
            (Some(up), Some(down)) => {
                Some(if (down.rating.rating - near).abs() < up.rating.rating - near {
                    down
                } else {
                    up
                })
            }
            (up, down) => up.or(down),
        };
        if nearer.is_some() {
            return Ok(nearer);
        }
    }
    Ok(None)
}

pub(crate) async fn random<C: Conn>(
    conn: &mut C,
    fraction: f64,
) -> Result<Option<StoredPuzzle>, StoreError> {
    let (low, high) = (single(conn, LOWEST_ID).await?, single(conn, HIGHEST_ID).await?);
    if low < 0 {
        return Ok(None);
    }
    let span = (high - low) as f64;
    let id = low + (fraction.clamp(0.0, 1.0) * span) as i64;
    first(conn, AT_OR_AFTER, &[Param::Int(Some(id.min(high)))]).await
}

/// A query's one number.
async fn single<C: Conn>(conn: &mut C, query: &'static str) -> Result<i64, StoreError> {
    let rows = conn.fetch_all(query, &[]).await?;
    Ok(match rows.first() {
        Some(row) => Decodes::<(i64,)>::decode(row)?.0,
        None => -1,
    })
}

pub(crate) async fn count_before<C: Conn>(conn: &mut C, before: Millis) -> Result<u64, StoreError> {
    let rows = conn.fetch_all(COUNT_BEFORE, &[Param::Int(Some(before))]).await?;
    let counted = match rows.first() {
        Some(row) => Decodes::<(i64,)>::decode(row)?.0,
        None => 0,
    };
    Ok(u64::try_from(counted).unwrap_or(0))
}

pub(crate) async fn nth_before<C: Conn>(
    conn: &mut C,
    before: Millis,
    nth: u64,
) -> Result<Option<StoredPuzzle>, StoreError> {
    let nth = i64::try_from(nth).unwrap_or(i64::MAX);
    first(conn, NTH_BEFORE, &[Param::Int(Some(before)), Param::Int(Some(nth))]).await
}

/// Records `attempt` and, if it is the account's first answer to the
/// puzzle, rates it (`start`: a new solver's rating); `None` if it answered
/// before. Run in one write transaction.
pub(crate) async fn answer<C: Conn>(
    conn: &mut C,
    attempt: &PuzzleAttempt,
    start: Glicko,
    rate: PuzzleRateFn<'_>,
) -> Result<Option<PuzzleRated>, StoreError> {
    let player = Param::Text(Some(&attempt.player_id));
    let puzzle = Param::Int(Some(attempt.puzzle_id));
    let at = Param::Int(Some(attempt.at));
    let params = [player, puzzle, Param::Bool(Some(attempt.correct)), at];
    if conn.fetch_all(INSERT_ATTEMPT, &params).await?.is_empty() {
        return Ok(None);
    }
    let params = [
        player,
        Param::Float(Some(start.rating)),
        Param::Float(Some(start.deviation)),
        Param::Float(Some(start.volatility)),
        at,
    ];
    let rows = conn.fetch_all(LOCK_RATING, &params).await?;
    let row = rows.first().ok_or_else(|| StoreError::Corrupt("no puzzle rating row".into()))?;
    let before = PuzzleRating::from(Decodes::<PuzzleRatingRow>::decode(row)?);
    let rows = conn.fetch_all(LOCK_PUZZLE, &[puzzle]).await?;
    let row = rows.first().ok_or_else(|| StoreError::Corrupt("no such puzzle".into()))?;
    let (rating, deviation, volatility): (f64, f64, f64) = row.decode()?;
    let puzzle_before = Glicko { rating, deviation, volatility };
    let (solver_after, puzzle_after) = rate(before.rating, puzzle_before, attempt.correct);
    let streak = if attempt.correct { before.streak + 1 } else { 0 };
    let after = PuzzleRating {
        rating: solver_after,
        streak,
        best_streak: before.best_streak.max(streak),
        attempts: before.attempts + 1,
        solved: before.solved + u32::from(attempt.correct),
    };
    let params = [
        player,
        Param::Float(Some(after.rating.rating)),
        Param::Float(Some(after.rating.deviation)),
        Param::Float(Some(after.rating.volatility)),
        Param::Int(Some(i64::from(after.streak))),
        Param::Int(Some(i64::from(after.best_streak))),
        Param::Int(Some(i64::from(after.attempts))),
        Param::Int(Some(i64::from(after.solved))),
        at,
    ];
    conn.execute(SET_RATING, &params).await?;
    let params = [
        puzzle,
        Param::Float(Some(puzzle_after.rating)),
        Param::Float(Some(puzzle_after.deviation)),
        Param::Float(Some(puzzle_after.volatility)),
    ];
    conn.execute(SET_PUZZLE_RATING, &params).await?;
    Ok(Some(PuzzleRated { before: before.rating, after, puzzle: puzzle_after }))
}

pub(crate) async fn rating<C: Conn>(
    conn: &mut C,
    player: &str,
) -> Result<Option<PuzzleRating>, StoreError> {
    let rows = conn.fetch_all(RATING, &[Param::Text(Some(player))]).await?;
    rows.first()
        .map(|row| Decodes::<PuzzleRatingRow>::decode(row).map(PuzzleRating::from))
        .transpose()
}

pub(crate) async fn attempts<C: Conn>(
    conn: &mut C,
    player: &str,
    limit: u32,
) -> Result<Vec<PuzzleAttempt>, StoreError> {
    let params = [Param::Text(Some(player)), Param::Int(Some(i64::from(limit)))];
    let rows = conn.fetch_all(ATTEMPTS, &params).await?;
    rows.iter()
        .map(|row| {
            let row: AttemptRow = row.decode()?;
            Ok(PuzzleAttempt {
                player_id: row.player_id,
                puzzle_id: row.puzzle_id,
                correct: row.correct,
                at: row.at,
            })
        })
        .collect()
}

async fn first<C: Conn>(
    conn: &mut C,
    query: &'static str,
    params: &[Param<'_>],
) -> Result<Option<StoredPuzzle>, StoreError> {
    let rows = conn.fetch_all(query, params).await?;
    rows.first().map(|row| Decodes::<PuzzleRow>::decode(row).map(StoredPuzzle::from)).transpose()
}
