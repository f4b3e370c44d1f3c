//! Revocations shared by every node on `euchre.revoked`: a log-out, a
//! password change or a claim made on one node reaches the others at once
//! (core NATS, no stream), each dropping the tokens from its cache,
//! cutting its connections that held them, and learning claimed names.
//! The store holds the truth: a node that missed a message (NATS away)
//! still refuses the token at its next lookup, but may keep a cached token
//! and its open connections until the cache drops it.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::identity::Players;
use crate::revocation::Revocation;

/// The subject every node publishes its revocations to and listens on.
pub(super) const SUBJECT: &str = "euchre.revoked";

/// Publishes this node's revocations, in order, until their channel ends.
pub(super) async fn publish(
    client: async_nats::Client,
    mut revoked: mpsc::UnboundedReceiver<Revocation>,
) {
    while let Some(revocation) = revoked.recv().await {
        let Ok(payload) = serde_json::to_vec(&revocation) else { continue };
        if let Err(error) = client.publish(SUBJECT, payload.into()).await {
            tracing::warn!(%error, ?revocation, "cannot tell the other nodes of a revocation");
        }
    }
}

/// Applies every node's revocations (this node's own again: applying one
/// twice changes nothing) until shutdown.
pub(super) async fn apply(
    mut subscriber: async_nats::Subscriber,
    players: Arc<Players>,
    stop: CancellationToken,
) {
    while let Some(message) = super::next_until(&mut subscriber, &stop).await {
        match serde_json::from_slice::<Revocation>(&message.payload) {
            Ok(revocation) => players.apply(&revocation),
            Err(error) => tracing::warn!(%error, "an unreadable revocation"),
        }
    }
}
