//! The shared lobby: each node writes its tables' summaries to the
//! `euchre_lobby` bucket and watches it to list every other node's tables.

use std::time::Duration;

use async_nats::jetstream::kv;
use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::registry::Mirrored;
use crate::state::AppState;

/// A lobby entry in the bucket.
#[derive(Debug, Serialize, Deserialize)]
struct Listing {
    summary: euchre_protocol::TableSummary,
    host_id: String,
    /// Who holds a seat, for their own lobbies' "your games" on any node.
    /// (Absent from an older node's entries.)
    #[serde(default)]
    players: Vec<String>,
}

/// Writes this node's tables' lobby changes to the bucket, in order. A
/// change NATS does not take (an outage) is tried again until it is, so
/// the other nodes' lobbies are not left with a stale entry; the later
/// changes wait behind it, in order.
pub(super) async fn mirror_lobby(
    bucket: kv::Store,
    mut changes: mpsc::UnboundedReceiver<Mirrored>,
) {
    while let Some(change) = changes.recv().await {
        let (key, value) = match change {
            Mirrored::Listed { summary, host_id, players } => {
                let key = summary.table.clone();
                match serde_json::to_vec(&Listing { summary, host_id, players }) {
                    Ok(value) => (key, Some(Bytes::from(value))),
                    Err(error) => {
                        tracing::warn!(%error, "a lobby entry cannot be encoded");
                        continue;
                    }
                }
            }
            Mirrored::Closed { table } => (table, None),
        };
        let mut pause = Duration::from_millis(100);
        loop {
            let written = match &value {
                Some(value) => {
                    bucket.put(&key, value.clone()).await.map(drop).map_err(|e| e.to_string())
                }
                None => bucket.delete(&key).await.map_err(|e| e.to_string()),
            };
            match written {
                Ok(()) => break,
                Err(error) => {
                    tracing::warn!(%error, table = %key, "cannot update the cluster's lobby; trying again");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(2));
                }
            }
        }
    }
}

/// Lists the other nodes' tables as the bucket changes.
pub(super) async fn watch_lobby(mut watch: kv::Watch, state: AppState) {
    loop {
        let entry = tokio::select! {
            entry = watch.next() => match entry {
                Some(Ok(entry)) => entry,
                Some(Err(error)) => {
                    tracing::warn!(%error, "the cluster's lobby watch failed");
                    continue;
                }
                None => break,
            },
            () = state.shutdown.cancelled() => break,
        };
        match entry.operation {
            kv::Operation::Put => match serde_json::from_slice::<Listing>(&entry.value) {
                Ok(listing) => {
                    state.registry.insert_remote(listing.summary, &listing.host_id, listing.players)
                }
                Err(error) => tracing::warn!(%error, key = %entry.key, "an unreadable lobby entry"),
            },
            kv::Operation::Delete | kv::Operation::Purge => {
                state.registry.remove_remote(&entry.key)
            }
        }
    }
}
