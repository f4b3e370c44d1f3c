//! Housekeeping, written once for both backends over [`Conn`]: sessions
//! that have ended, and guests nobody will miss, deleted. Each backend opens
//! the transaction and calls [`purge`].

use std::collections::HashSet;

use crate::StoreError;
use crate::conn::{Conn, Decodes, Param};
use crate::{Millis, Purged};

/// Sessions that can never let anyone in again: revoked, or expired.
const DELETE_ENDED_SESSIONS: &str = "\
    DELETE FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= $1 \
    RETURNING token_hash, player_id";

/// What makes a guest worth keeping, as the condition of its absence: an
/// account, a seat in any match (history and ratings name it), or a place
/// at a table still open (as host, or in its seats' JSON).
macro_rules! forgettable_guest {
    () => {
        "NOT EXISTS (SELECT 1 FROM accounts a WHERE a.player_id = p.id) \
         AND NOT EXISTS (SELECT 1 FROM match_seats s WHERE s.player_id = p.id) \
         AND NOT EXISTS (SELECT 1 FROM game_tables t WHERE t.closed_at IS NULL \
             AND (t.host_id = p.id OR CAST(t.seats AS TEXT) LIKE '%' || p.id || '%'))"
    };
}

/// One page of guests created before `$1`, after the id `$2`.
const FORGETTABLE_GUESTS: &str = concat!(
    "SELECT p.id, p.name FROM players p WHERE p.created_at < $1 AND p.id > $2 AND ",
    forgettable_guest!(),
    " ORDER BY p.id LIMIT 500"
);

/// The same conditions again at the delete: the page was read a moment ago.
const DELETE_GUEST: &str = concat!(
    "DELETE FROM players WHERE id IN (SELECT p.id FROM players p WHERE p.id = $1 AND ",
    forgettable_guest!(),
    ") RETURNING id, name"
);

/// A deleted guest's blocks (they have no foreign key to go with it).
const DELETE_GUEST_BLOCKS: &str = "DELETE FROM guest_blocks WHERE player_id = $1";

/// The guests deleted at most in one purge; the rest wait for the next.
const MAX_GUESTS: usize = 10_000;

/// Deletes the sessions that have ended by `now` and the guests created
/// before `guests_before` that nothing needs (`forgettable_guest!`),
/// but those in `keep`.
pub(crate) async fn purge<C: Conn>(
    conn: &mut C,
    now: Millis,
    guests_before: Millis,
    keep: &HashSet<String>,
) -> Result<Purged, StoreError> {
    let sessions = conn.fetch_all(DELETE_ENDED_SESSIONS, &[Param::Int(Some(now))]).await?.len();
    let mut guests = Vec::new();
    let mut after = String::new();
    while guests.len() < MAX_GUESTS {
        let params = [Param::Int(Some(guests_before)), Param::Text(Some(&after))];
        let rows = conn.fetch_all(FORGETTABLE_GUESTS, &params).await?;
        let page: Vec<(String, String)> =
            rows.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
        let Some((last, _)) = page.last() else { break };
        after = last.clone();
        for (id, _) in page.iter().filter(|(id, _)| !keep.contains(id)) {
            if !conn.fetch_all(DELETE_GUEST, &[Param::Text(Some(id))]).await?.is_empty() {
                conn.execute(DELETE_GUEST_BLOCKS, &[Param::Text(Some(id))]).await?;
                guests.push(id.clone());
            }
        }
    }
    Ok(Purged { sessions: sessions as u64, guests })
}
