//! Mutes and blocks changed on one node, told to the others on
//! `euchre.social` (core NATS, no stream): each node holding the player's
//! lists in memory (a connection of the player is open there, or a guest's
//! lists kept) reads them again from the store (an account's lists, a
//! guest's blocks), so a mute holds at once on every node. The store
//! holds the truth: a node that missed a message reads the lists afresh at
//! the player's next connection there.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::social::Social;

/// The subject every node publishes changed players to and listens on.
pub(super) const SUBJECT: &str = "euchre.social";

/// Publishes the players whose lists changed on this node, until their
/// channel ends.
pub(super) async fn publish(
    client: async_nats::Client,
    mut changed: mpsc::UnboundedReceiver<String>,
) {
    while let Some(player) = changed.recv().await {
        if let Err(error) = client.publish(SUBJECT, player.into_bytes().into()).await {
            tracing::warn!(%error, "cannot tell the other nodes of a mute or block");
        }
    }
}

/// Reads again the lists of every player another node says changed (this
/// node's own too: reading them twice changes nothing), until shutdown.
pub(super) async fn apply(
    mut subscriber: async_nats::Subscriber,
    social: Arc<Social>,
    stop: CancellationToken,
) {
    while let Some(message) = super::next_until(&mut subscriber, &stop).await {
        match std::str::from_utf8(&message.payload) {
            Ok(player) => social.reload(player).await,
            Err(error) => tracing::warn!(%error, "an unreadable player on euchre.social"),
        }
    }
}
