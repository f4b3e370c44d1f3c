//! Match history through the server's HTTP API (docs/openapi.json), with
//! euchre-client's typed HTTP client (over TLS, with Mozilla's roots, when
//! the server is `wss://`): the player's matches, a page at a time, and a
//! finished match's record to replay hand by hand. And a finished match's
//! analysis by the solver, waited for while the server computes it.

use std::time::Duration;

use euchre_client::{AnalysisAnswer, HttpClient, HttpError, MatchQuery};
use euchre_protocol::api::{GameAnalysis, MatchList};

/// Matches a page holds.
pub const PAGE: u32 = 50;

/// The longest the analysis is waited for, asking again after each hint.
const ANALYSIS_ATTEMPTS: u32 = 40;
/// The wait between two asks when the server gives none, and the longest.
const ANALYSIS_RETRY: Duration = Duration::from_secs(5);
const ANALYSIS_LONGEST_RETRY: Duration = Duration::from_secs(30);

/// Why the history, a record or an analysis could not be had.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The server kept answering that the analysis is being computed.
    #[error("the analysis is taking too long: open the replay again later")]
    AnalysisTooLong,
}

/// A page of `player`'s matches, `limit` of them: the latest, or those
/// after `cursor` (a page's `next_cursor`).
pub async fn matches(
    api: &HttpClient,
    player: &str,
    cursor: Option<&str>,
    limit: u32,
) -> Result<MatchList, HistoryError> {
    let query = MatchQuery {
        player: Some(player.to_owned()),
        limit: Some(limit),
        cursor: cursor.map(str::to_owned),
        ..MatchQuery::default()
    };
    Ok(api.matches(&query).await?)
}

/// A finished match's analysis (`GET /api/matches/{id}/analysis`), asked
/// for again after the server's `Retry-After` while it is being computed,
/// a few minutes at most.
pub async fn analysis(api: &HttpClient, id: &str) -> Result<GameAnalysis, HistoryError> {
    for _ in 0..ANALYSIS_ATTEMPTS {
        match api.analysis(id).await? {
            AnalysisAnswer::Ready(analysis) => return Ok(*analysis),
            AnalysisAnswer::Pending { retry_after } => {
                let wait = retry_after.unwrap_or(ANALYSIS_RETRY);
                tokio::time::sleep(wait.clamp(Duration::from_secs(1), ANALYSIS_LONGEST_RETRY))
                    .await;
            }
        }
    }
    Err(HistoryError::AnalysisTooLong)
}
