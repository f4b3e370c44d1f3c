//! A table by its id, open or closed: what a link to a table finds once
//! the table is gone (why and when it closed, and how its last game ended).

use axum::Json;
use axum::extract::{Path, State};
use euchre_store::{Abandonment, MatchOutcome, TableHost, TableRecord};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use super::views::AbandonedView;
use crate::state::AppState;
use crate::table::quick_play_host;

/// A table, open or closed.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TableView {
    pub id: String,
    /// The host's name.
    pub host: String,
    pub private: bool,
    /// `open` (join it at its link) or `closed`.
    pub state: TableState,
    /// When it opened, in ms since the Unix epoch; `null` for an open table
    /// whose opening is not in the database yet.
    pub created_at: Option<i64>,
    /// When it closed; `null` while open, and for a moment after it closes,
    /// until the store has written the close (the state already reads
    /// `closed`).
    pub closed_at: Option<i64>,
    /// Why it closed: `everyone_left` (nobody came back within the idle
    /// time) or `lost` (the server could not restore it after a restart);
    /// `null` while open, for that moment after closing, or for a table
    /// closed before reasons were kept.
    #[schema(value_type = Option<String>)]
    pub closed_reason: Option<&'static str>,
    /// Its latest game, if one started: `/api/matches/{id}` has it.
    pub last_match: Option<TableMatchView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    Open,
    Closed,
}

/// How a table's latest game stands.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TableMatchView {
    /// The match id, for `/api/matches/{id}` and the replay.
    pub id: String,
    /// The game's number at the table: 1, 2, … with rematches.
    pub number: u32,
    /// Whether it was played to the end.
    pub finished: bool,
    pub ended_at: Option<i64>,
    /// Set when it can no longer finish: its table closed first.
    pub abandoned: Option<AbandonedView>,
}

impl From<&MatchOutcome> for TableMatchView {
    fn from(outcome: &MatchOutcome) -> TableMatchView {
        TableMatchView {
            id: outcome.id.clone(),
            number: outcome.number,
            finished: outcome.ended_at.is_some(),
            ended_at: outcome.ended_at,
            abandoned: outcome.abandoned.as_ref().map(AbandonedView::from),
        }
    }
}

/// The table as stored, and whether this server (or cluster) has it open.
fn table_view(record: &TableRecord, open: bool) -> TableView {
    let closed = record.closed_at.is_some() || !open;
    TableView {
        id: record.id.clone(),
        host: match &record.host {
            TableHost::QuickPlay => quick_play_host().name,
            TableHost::Player { name, .. } => name.clone().unwrap_or_default(),
        },
        private: record.private,
        state: if closed { TableState::Closed } else { TableState::Open },
        created_at: Some(record.created_at),
        closed_at: record.closed_at,
        closed_reason: record.closed_reason.map(|reason| reason.as_str()),
        last_match: record.last_match.as_ref().map(TableMatchView::from),
    }
}

#[utoipa::path(
    get,
    path = "/api/tables/{id}",
    tag = "matches",
    summary = "A table, open or closed",
    description = "What a link to a table finds: an open table (join it over the WebSocket), or \
        a closed one with when and why it closed and how its latest game ended (finished, or \
        abandoned when the table closed first), with the match's id for its replay. The invite \
        code of a private table is never shown.",
    params(("id" = String, Path, description = "The table id")),
    responses(
        (status = 200, description = "The table", body = TableView),
        (status = 404, description = "No such table (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_table(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TableView>, ApiError> {
    if !valid_id(&id) {
        return Err(ApiError::table_not_found(&id));
    }
    let open = state.registry.summary(&id);
    let record = state.store.table_record(&id).await.map_err(ApiError::store)?;
    match (record, open) {
        (Some(record), open) => Ok(Json(table_view(&record, open.is_some()))),
        // Open, and its opening not yet written from the journal.
        (None, Some(summary)) => Ok(Json(TableView {
            id: summary.table,
            host: summary.host,
            private: summary.private,
            state: TableState::Open,
            created_at: None,
            closed_at: None,
            closed_reason: None,
            last_match: None,
        })),
        (None, None) => Err(ApiError::table_not_found(&id)),
    }
}

impl From<&Abandonment> for AbandonedView {
    fn from(abandonment: &Abandonment) -> AbandonedView {
        AbandonedView { at: abandonment.at, reason: abandonment.reason.as_str() }
    }
}

#[cfg(test)]
mod tests {
    use euchre_store::CloseReason;

    use super::*;

    fn record(closed_at: Option<i64>) -> TableRecord {
        TableRecord {
            id: "t1".into(),
            host: TableHost::Player { id: "p1".into(), name: Some("Ann".into()) },
            private: false,
            created_at: 1,
            closed_at,
            closed_reason: closed_at.map(|_| CloseReason::EveryoneLeft),
            last_match: Some(MatchOutcome {
                id: "m1".into(),
                number: 1,
                ended_at: None,
                abandoned: closed_at
                    .map(|at| Abandonment { at, reason: CloseReason::EveryoneLeft }),
            }),
        }
    }

    #[test]
    fn a_closed_table_says_why_and_how_its_game_ended() {
        let view = table_view(&record(Some(5)), false);
        assert_eq!(view.state, TableState::Closed);
        assert_eq!((view.closed_at, view.closed_reason), (Some(5), Some("everyone_left")));
        let last = view.last_match.expect("its game");
        assert!(!last.finished);
        assert_eq!(last.abandoned, Some(AbandonedView { at: 5, reason: "everyone_left" }));
    }

    #[test]
    fn a_table_is_open_only_while_one_of_the_servers_has_it() {
        assert_eq!(table_view(&record(None), true).state, TableState::Open);
        // Stored as open, but no server has it (not restored yet, or lost).
        assert_eq!(table_view(&record(None), false).state, TableState::Closed);
    }
}
