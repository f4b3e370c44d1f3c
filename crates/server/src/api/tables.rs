//! A table by its id, open or closed: what a link to a table finds once
//! the table is gone (why and when it closed, and how its last game ended).

use std::borrow::Cow;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use euchre_protocol::api::{TableMatchView, TableState, TableView};
use euchre_store::{MatchOutcome, TableHost, TableRecord};

use super::error::{ApiError, ErrorBody};
use super::query::valid_id;
use super::sessions::viewer;
use super::views::abandoned_view;
use crate::state::AppState;
use crate::table::quick_play_host;

/// How a table's latest game stands.
fn match_outcome_view(outcome: &MatchOutcome) -> TableMatchView {
    TableMatchView {
        id: outcome.id.clone(),
        number: outcome.number,
        finished: outcome.ended_at.is_some(),
        ended_at: outcome.ended_at,
        abandoned: outcome.abandoned.as_ref().map(abandoned_view),
    }
}

/// The table as stored, and whether this server (or cluster) has it open,
/// as one of its players (`seated`) or anyone else sees it.
fn table_view(record: &TableRecord, open: bool, seated: bool) -> TableView {
    let closed = record.closed_at.is_some() || !open;
    let state = if closed { TableState::Closed } else { TableState::Open };
    if record.private && !seated {
        return private_view(&record.id, state);
    }
    TableView {
        id: record.id.clone(),
        host: Some(match &record.host {
            TableHost::QuickPlay => quick_play_host().name,
            TableHost::Player { name, .. } => name.clone().unwrap_or_default(),
        }),
        private: record.private,
        state,
        created_at: Some(record.created_at),
        closed_at: record.closed_at,
        closed_reason: record.closed_reason.map(|reason| Cow::Borrowed(reason.as_str())),
        last_match: record.last_match.as_ref().map(match_outcome_view),
    }
}

/// A private table (a custom one with an invite, or a pool's) as anyone
/// may see it: no more than its invite link tells, its id and that it is
/// private, and whether it is open. Its host, times and games are for
/// those at it (over the WebSocket) and, once over, in match history.
fn private_view(id: &str, state: TableState) -> TableView {
    TableView {
        id: id.to_owned(),
        host: None,
        private: true,
        state,
        created_at: None,
        closed_at: None,
        closed_reason: None,
        last_match: None,
    }
}

#[utoipa::path(
    get,
    path = "/api/tables/{id}",
    tag = "matches",
    summary = "A table, open or closed",
    description = "What a link to a table finds: an open table (join it over the WebSocket), or \
        a closed one with when and why it closed and how its latest game ended (finished, or \
        abandoned when the table closed first), with the match's id for its replay. Of a private \
        table (a pool's too) only its id, that it is private and whether it is open: no host, \
        times or games, and never its invite code; except to a player seated at it now, whose \
        bearer token (a guest's or a session's) shows it all.",
    params(("id" = String, Path, description = "The table id")),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The table", body = TableView),
        (status = 404, description = "No such table (`not_found`)", body = ErrorBody),
    )
)]
pub(super) async fn get_table(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<TableView>, ApiError> {
    if !valid_id(&id) {
        return Err(ApiError::table_not_found(&id));
    }
    let open = state.registry.summary(&id);
    let record = state.store.table_record(&id).await.map_err(ApiError::store)?;
    let seated = match (&record, viewer(&state, &headers).await) {
        (Some(record), Some(player)) if record.private => {
            state.registry.yours(&player).iter().any(|table| table.table == id)
        }
        _ => false,
    };
    match (record, open) {
        (Some(record), open) => Ok(Json(table_view(&record, open.is_some(), seated))),
        // Open, and its opening not yet written from the journal.
        (None, Some(summary)) if summary.private => {
            Ok(Json(private_view(&summary.table, TableState::Open)))
        }
        (None, Some(summary)) => Ok(Json(TableView {
            id: summary.table,
            host: Some(summary.host),
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

#[cfg(test)]
mod tests {
    use euchre_protocol::api::AbandonedView;
    use euchre_store::{Abandonment, CloseReason};

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
        let view = table_view(&record(Some(5)), false, false);
        assert_eq!(view.state, TableState::Closed);
        assert_eq!((view.closed_at, view.closed_reason), (Some(5), Some("everyone_left".into())));
        let last = view.last_match.expect("its game");
        assert!(!last.finished);
        assert_eq!(last.abandoned, Some(AbandonedView { at: 5, reason: "everyone_left".into() }));
    }

    #[test]
    fn a_private_table_shows_only_what_its_invite_tells() {
        let private = TableRecord { private: true, ..record(Some(5)) };
        let view = table_view(&private, false, false);
        assert_eq!(view, private_view("t1", TableState::Closed));
        assert_eq!((view.host, view.last_match, view.closed_at), (None, None, None));
        let open = TableRecord { private: true, ..record(None) };
        assert_eq!(table_view(&open, true, false).state, TableState::Open);
    }

    #[test]
    fn a_table_is_open_only_while_one_of_the_servers_has_it() {
        assert_eq!(table_view(&record(None), true, false).state, TableState::Open);
        // Stored as open, but no server has it (not restored yet, or lost).
        assert_eq!(table_view(&record(None), false, false).state, TableState::Closed);
    }
}
