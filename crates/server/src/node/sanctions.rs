//! Moderators' changes to the bans and mutes shared by every node on
//! `euchre.sanctions` (core NATS, no stream), as revocations are on
//! `euchre.revoked`: an address banned on one node is refused at every
//! node's door at once. An account's ban is a revocation (it cuts the
//! player's connections), so it travels on `euchre.revoked`. A node that
//! missed a message catches up at its next read of the store
//! (`sanctions::REFRESH`).

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sanctions::{Change, Sanctions};

/// The subject every node publishes its changes to and listens on.
pub(super) const SUBJECT: &str = "euchre.sanctions";

/// Publishes this node's changes, in order, until their channel ends.
pub(super) async fn publish(
    client: async_nats::Client,
    mut changes: mpsc::UnboundedReceiver<Change>,
) {
    while let Some(change) = changes.recv().await {
        let Ok(payload) = serde_json::to_vec(&change) else { continue };
        if let Err(error) = client.publish(SUBJECT, payload.into()).await {
            tracing::warn!(%error, ?change, "cannot tell the other nodes of a sanction");
        }
    }
}

/// Applies every node's changes (this node's own again: applying one twice
/// changes nothing) until shutdown.
pub(super) async fn apply(
    mut subscriber: async_nats::Subscriber,
    sanctions: Arc<Sanctions>,
    stop: CancellationToken,
) {
    while let Some(message) = super::next_until(&mut subscriber, &stop).await {
        match serde_json::from_slice::<Change>(&message.payload) {
            Ok(change) => sanctions.apply(&change),
            Err(error) => tracing::warn!(%error, "an unreadable sanction"),
        }
    }
}
