//! Ratings, written once for both backends over [`Conn`]: a finished
//! match's players' ratings read, updated and recorded in one transaction
//! the backend opens (and, in PostgreSQL, locks: two games ending at once
//! for one player must not both start from the same rating).

use crate::StoreError;
use crate::conn::{Conn, Decodes, Param};
use crate::rows::{BoardRow, FormRow, HistoryRow, PointRow, RatingRow};
use crate::{
    AccountStanding, BoardEntry, FormRating, Glicko, Millis, PlayerRow, RateFn, RatedMatch,
    RatingChange, RatingPoint,
};

const HISTORY_OF_MATCH: &str = "\
    SELECT player_id, rating_before, rating, deviation, volatility FROM rating_history \
    WHERE match_id = $1";

const RATING_OF: &str = "\
    SELECT rating, deviation, volatility FROM ratings WHERE player_id = $1 AND form = $2";

const UPSERT_RATING: &str = "\
    INSERT INTO ratings (player_id, form, rating, deviation, volatility, games, updated_at) \
    VALUES ($1, $2, $3, $4, $5, 1, $6) \
    ON CONFLICT (player_id, form) DO UPDATE SET rating = excluded.rating, \
        deviation = excluded.deviation, volatility = excluded.volatility, \
        games = ratings.games + 1, updated_at = excluded.updated_at";

const INSERT_HISTORY: &str = "\
    INSERT INTO rating_history \
        (player_id, match_id, form, rating_before, rating, deviation, volatility, at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// The accounts' ratings in one form, best first: a page of the board.
/// (Only accounts are rated now; guests rated before are not ranked.)
const LEADERBOARD: &str = "\
    SELECT p.id, p.name, r.rating, r.deviation, r.volatility, r.games \
    FROM ratings r JOIN accounts a ON a.player_id = r.player_id \
    JOIN players p ON p.id = r.player_id \
    WHERE r.form = $1 ORDER BY r.rating DESC, r.player_id LIMIT $2 OFFSET $3";

const RATINGS_OF: &str = "\
    SELECT form, rating, deviation, volatility, games FROM ratings WHERE player_id = $1 \
    ORDER BY form";

/// The player's latest rated games, newest first.
const HISTORY_OF: &str = "\
    SELECT form, match_id, rating_before, rating, at FROM rating_history WHERE player_id = $1 \
    ORDER BY at DESC, match_id DESC LIMIT $2";

impl RatingRow {
    pub(crate) fn glicko(&self) -> Glicko {
        Glicko { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }
}

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

fn float(value: f64) -> Param<'static> {
    Param::Float(Some(value))
}

pub(crate) async fn rate_match<C: Conn>(
    conn: &mut C,
    rated: &RatedMatch,
    rate: RateFn<'_>,
) -> Result<Vec<RatingChange>, StoreError> {
    let done = conn.fetch_all(HISTORY_OF_MATCH, &[text(&rated.match_id)]).await?;
    if !done.is_empty() {
        // Rated before (a repeated end): the changes as they were.
        let rows: Vec<HistoryRow> = done.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
        return Ok(rated
            .players
            .iter()
            .filter_map(|player| rows.iter().find(|row| &row.player_id == player))
            .map(|row| RatingChange {
                player_id: row.player_id.clone(),
                before: row.rating_before,
                after: Glicko {
                    rating: row.rating,
                    deviation: row.deviation,
                    volatility: row.volatility,
                },
            })
            .collect());
    }
    let mut before = Vec::with_capacity(rated.players.len());
    for player in &rated.players {
        let rows = conn.fetch_all(RATING_OF, &[text(player), text(&rated.form)]).await?;
        let row: Option<RatingRow> = rows.first().map(Decodes::decode).transpose()?;
        before.push(row.map(|row| row.glicko()));
    }
    let after = rate(&before);
    if after.len() != rated.players.len() {
        return Err(StoreError::Corrupt(format!(
            "{} ratings for the {} players of match {}",
            after.len(),
            rated.players.len(),
            rated.match_id
        )));
    }
    let mut changes = Vec::with_capacity(after.len());
    for ((player, before), after) in rated.players.iter().zip(before).zip(after) {
        let rating = [
            text(player),
            text(&rated.form),
            float(after.rating),
            float(after.deviation),
            float(after.volatility),
            Param::Int(Some(rated.at)),
        ];
        conn.execute(UPSERT_RATING, &rating).await?;
        let history = [
            text(player),
            text(&rated.match_id),
            text(&rated.form),
            Param::Float(before.map(|before| before.rating)),
            float(after.rating),
            float(after.deviation),
            float(after.volatility),
            Param::Int(Some(rated.at)),
        ];
        conn.execute(INSERT_HISTORY, &history).await?;
        changes.push(RatingChange {
            player_id: player.clone(),
            before: before.map(|before| before.rating),
            after,
        });
    }
    Ok(changes)
}

fn games(count: i64) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

pub(crate) async fn leaderboard<C: Conn>(
    conn: &mut C,
    form: &str,
    limit: u32,
    offset: u32,
) -> Result<Vec<BoardEntry>, StoreError> {
    let params =
        [text(form), Param::Int(Some(i64::from(limit))), Param::Int(Some(i64::from(offset)))];
    let rows = conn.fetch_all(LEADERBOARD, &params).await?;
    rows.iter()
        .map(|row| {
            let row: BoardRow = row.decode()?;
            Ok(BoardEntry {
                player: PlayerRow { id: row.id, name: row.name },
                rating: Glicko {
                    rating: row.rating,
                    deviation: row.deviation,
                    volatility: row.volatility,
                },
                games: games(row.games),
            })
        })
        .collect()
}

pub(crate) async fn player_ratings<C: Conn>(
    conn: &mut C,
    player_id: &str,
) -> Result<Vec<FormRating>, StoreError> {
    let rows = conn.fetch_all(RATINGS_OF, &[text(player_id)]).await?;
    rows.iter()
        .map(|row| {
            let row: FormRow = row.decode()?;
            Ok(FormRating {
                form: row.form,
                rating: Glicko {
                    rating: row.rating,
                    deviation: row.deviation,
                    volatility: row.volatility,
                },
                games: games(row.games),
            })
        })
        .collect()
}

pub(crate) async fn rating_history<C: Conn>(
    conn: &mut C,
    player_id: &str,
    limit: u32,
) -> Result<Vec<RatingPoint>, StoreError> {
    let rows =
        conn.fetch_all(HISTORY_OF, &[text(player_id), Param::Int(Some(i64::from(limit)))]).await?;
    let mut points = rows
        .iter()
        .map(|row| {
            let row: PointRow = row.decode()?;
            Ok(RatingPoint {
                form: row.form,
                match_id: row.match_id,
                before: row.rating_before,
                rating: row.rating,
                at: row.at,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    // Fetched newest first (the latest `limit`), given oldest first.
    points.reverse();
    Ok(points)
}

const ACCOUNT_CREATED: &str = "SELECT created_at FROM accounts WHERE player_id = $1";

/// Finished matches (bots' and casual ones too) the player sat in, but one.
const GAMES_FINISHED: &str = "\
    SELECT COUNT(*) FROM match_seats s JOIN matches m ON m.id = s.match_id \
    WHERE s.player_id = $1 AND m.ended_at IS NOT NULL AND m.id <> $2";

/// Rated matches both players were rated in, since a time.
const RATED_TOGETHER: &str = "\
    SELECT COUNT(*) FROM rating_history a JOIN rating_history b ON b.match_id = a.match_id \
    WHERE a.player_id = $1 AND b.player_id = $2 AND a.at >= $3";

fn count(rows: &[(i64,)]) -> u32 {
    rows.first().map_or(0, |(count,)| games(*count))
}

pub(crate) async fn account_standing<C: Conn>(
    conn: &mut C,
    player_id: &str,
    except_match: &str,
) -> Result<Option<AccountStanding>, StoreError> {
    let rows = conn.fetch_all(ACCOUNT_CREATED, &[text(player_id)]).await?;
    let created: Vec<(i64,)> = rows.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
    let Some((created_at,)) = created.first().copied() else { return Ok(None) };
    let rows = conn.fetch_all(GAMES_FINISHED, &[text(player_id), text(except_match)]).await?;
    let finished: Vec<(i64,)> = rows.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
    Ok(Some(AccountStanding { created_at, games_finished: count(&finished) }))
}

pub(crate) async fn rated_together<C: Conn>(
    conn: &mut C,
    player: &str,
    other: &str,
    since: Millis,
) -> Result<u32, StoreError> {
    let params = [text(player), text(other), Param::Int(Some(since))];
    let rows = conn.fetch_all(RATED_TOGETHER, &params).await?;
    let counted: Vec<(i64,)> = rows.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
    Ok(count(&counted))
}
