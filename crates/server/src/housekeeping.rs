//! Housekeeping on a schedule (`accounts.purge_every_seconds`): sessions
//! that have ended and guests nothing needs any more are deleted, and
//! deleted accounts' names are freed once their cooling-off is over.
//!
//! A guest goes once older than `accounts.purge_guests_after_seconds` if it
//! claimed no name, sat in no match, has no place at an open table and is
//! not connected to this node. Its token is then unknown: a player coming
//! back with it is answered `bad_token` and the clients start a new guest
//! (the name is free: only claimed names are kept). In a cluster each node
//! purges; one node's connected guests are kept by that node alone, so a
//! guest connected for longer than the age to another node without ever
//! playing may lose its row, with the same outcome at its next `hello`.

use std::time::Duration;

use crate::clock::now_ms;
use crate::state::AppState;

/// Purges every `accounts.purge_every_seconds` (never at 0) until shutdown.
pub async fn purge_on_schedule(state: AppState) {
    let accounts = &state.settings.accounts;
    if accounts.purge_every_seconds == 0 {
        return;
    }
    let every = Duration::from_secs(accounts.purge_every_seconds);
    let guest_age_ms =
        i64::try_from(accounts.purge_guests_after_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => purge(&state, guest_age_ms).await,
            () = state.shutdown.cancelled() => return,
        }
    }
}

/// One purge; a failure is logged and the next tick tries again.
pub async fn purge(state: &AppState, guest_age_ms: i64) {
    let now = now_ms();
    let hold_ms = state.settings.accounts.deleted_name_hold_days.saturating_mul(24 * 3600 * 1000);
    let hold_ms = i64::try_from(hold_ms).unwrap_or(i64::MAX);
    match state.store.release_held_names(now.saturating_sub(hold_ms)).await {
        Ok(freed) => {
            if !freed.is_empty() {
                tracing::info!(names = freed.len(), "deleted accounts' names freed");
            }
            for name_key in freed {
                state.players.revoke(crate::revocation::Revocation::NameFreed { name_key });
            }
        }
        Err(error) => tracing::warn!(%error, "cannot free deleted accounts' names"),
    }
    let keep = state.players.connected();
    match state.store.purge(now, now.saturating_sub(guest_age_ms), &keep).await {
        Ok(purged) => {
            let guests = purged.guests.len();
            state.players.forget_players(&purged.guests.into_iter().collect());
            tracing::info!(
                sessions = purged.sessions,
                guests,
                "purged ended sessions and old guests"
            );
        }
        Err(error) => tracing::warn!(%error, "cannot purge old sessions and guests"),
    }
}
