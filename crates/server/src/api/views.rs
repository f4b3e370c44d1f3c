//! Stored records as the API shows them: a match as listed
//! ([`summary_view`]) and when and why one was abandoned
//! ([`abandoned_view`]). The answer types are the protocol's
//! (`euchre_protocol::api`), which the clients read; the match in full is
//! built by `replay`.

use std::borrow::Cow;

use euchre_protocol::api::{
    AbandonedView, MatchSummaryView, RubberGameView, SeatView, StandInView,
};
use euchre_store::{Abandonment, MatchSeat, MatchSummary};

use super::import::IMPORT_TABLE;

/// Who sat in a seat.
pub fn seat_view(seat: &MatchSeat) -> SeatView {
    SeatView {
        seat: seat.seat,
        player_id: seat.player_id.clone(),
        bot: seat.bot.clone(),
        name: seat.name.clone(),
        stand_in: seat.stand_in.as_ref().map(|stand_in| StandInView {
            bot: stand_in.bot.clone(),
            from_hand: stand_in.from_hand,
        }),
    }
}

/// A match as listed.
pub fn summary_view(summary: &MatchSummary) -> MatchSummaryView {
    MatchSummaryView {
        id: summary.id.clone(),
        table_id: summary.table_id.clone(),
        number: summary.number,
        imported: summary.table_id == IMPORT_TABLE,
        rules: summary.rules,
        seats: summary.seats.iter().map(seat_view).collect(),
        started_at: summary.started_at,
        ended_at: summary.ended_at,
        finished: summary.ended_at.is_some(),
        scores: summary.scores.clone(),
        winner: summary.winner,
        winners: summary.winners.clone(),
        rubber: summary
            .games
            .iter()
            .map(|game| RubberGameView {
                winner: game.winner.0,
                scores: game.scores.as_slice().to_vec(),
                rubber_points: game.rubber_points,
            })
            .collect(),
        abandoned: summary.abandoned.as_ref().map(abandoned_view),
    }
}

/// When and why a match was abandoned.
pub fn abandoned_view(abandonment: &Abandonment) -> AbandonedView {
    AbandonedView { at: abandonment.at, reason: Cow::Borrowed(abandonment.reason.as_str()) }
}
