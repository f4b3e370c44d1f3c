//! Tournaments in a cluster: each has one director, that of the owner of
//! the shard its id falls in, and its rounds' tables live in that shard
//! too, so that a take-over moves the tournament and its tables together.
//!
//! - **Saves.** Each save is the whole tournament, appended to its shard's
//!   log like a table's writes (the log is the truth; PostgreSQL follows
//!   through the journal). Every version but the last leaves the log once
//!   the next is appended; a tournament over leaves it altogether once
//!   PostgreSQL has its last version ([`super::durability`]).
//! - **Take-over.** The new owner restores the shard's tables first, then
//!   hands the director the newest version of each tournament of the shard,
//!   from the log or (for one older than the cluster) the store.
//! - **Requests** about a tournament another node runs go to
//!   `euchre.tournament.<shard>`, answered by its director there.
//! - **Presence.** Who is connected at a round's start is asked of every
//!   node on `euchre.presence`: each answers with those of the names
//!   connected to it. The round seated is told to every node on
//!   `euchre.seated`, for its players' connections there.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use euchre_cluster::{Shard, shard_of};
use euchre_store::{StoredTournament, Write};
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Node, lock, next_until};
use crate::identity::Players;
use crate::placement::RemoteTournaments;
use crate::state::AppState;
use crate::tournaments::{Answer, Refused, Request, RoundSeated, Tournaments};

/// How long a node waits for a tournament's director elsewhere to answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a round's start waits for the other nodes to say who is
/// connected to them: a node slower than that counts as having nobody.
const PRESENCE_TIMEOUT: Duration = Duration::from_secs(1);
/// Where presence is asked.
pub(super) const PRESENCE: &str = "euchre.presence";
/// Where a round seated is told to every node.
pub(super) const SEATED: &str = "euchre.seated";

/// The subject of the tournaments whose ids fall in `shard`.
pub(super) fn subject(shard: Shard) -> String {
    format!("euchre.tournament.{shard}")
}

/// A request about a tournament, for the node that runs it.
#[derive(Debug, Serialize, Deserialize)]
struct ToDirector {
    id: String,
    request: Request,
}

/// A round seated on `node`, for the other nodes' connections.
#[derive(Debug, Serialize, Deserialize)]
struct Seated {
    node: String,
    round: RoundSeated,
}

/// A question of who is connected, from `node`.
#[derive(Debug, Serialize, Deserialize)]
struct WhoIsHere {
    node: String,
    players: Vec<String>,
}

/// The newest version of a tournament among a log's records of one id, if
/// they are a tournament's (a table's writes never hold one).
pub(super) fn latest(writes: &[Write]) -> Option<StoredTournament> {
    (writes.iter())
        .filter_map(|write| match write {
            Write::Tournament { tournament, .. } => Some(tournament),
            _ => None,
        })
        .max_by_key(|tournament| tournament.version)
        .cloned()
}

impl Node {
    /// Hands the director `shard`'s tournaments not over: the newest of
    /// each from its log (`logged`) or from the store. Returns how many.
    pub(super) async fn adopt_tournaments(
        &self,
        state: &AppState,
        shard: Shard,
        mut logged: Vec<StoredTournament>,
    ) -> usize {
        match state.store.unfinished_tournaments().await {
            Ok(stored) => {
                for row in stored.into_iter().filter(|row| shard_of(&row.id, self.shards) == shard)
                {
                    match logged.iter_mut().find(|t| t.id == row.id) {
                        Some(newest) if newest.version >= row.version => {}
                        Some(older) => *older = row,
                        None => logged.push(row),
                    }
                }
            }
            // The log holds the newest version of each: only one from
            // before the cluster is missed (until the shard's next take-over).
            Err(error) => tracing::warn!(shard, %error, "tournaments not read from the store"),
        }
        logged.retain(|t| matches!(t.status.as_str(), "registering" | "running"));
        let adopted = logged.len();
        state.tournaments.adopt(logged).await;
        adopted
    }

    /// Answers the requests about `shard`'s tournaments from other nodes
    /// until the shard is lost: each by the director here.
    pub(super) async fn serve_tournaments(
        self: Arc<Self>,
        mut requests: async_nats::Subscriber,
        state: AppState,
        stop: CancellationToken,
        shard: Shard,
    ) {
        while let Some(message) = next_until(&mut requests, &stop).await {
            let node = self.clone();
            let state = state.clone();
            // Each on its own: a director busy seating a round holds up
            // nobody else's answer here.
            tokio::spawn(async move {
                let answer: Answer = match serde_json::from_slice::<ToDirector>(&message.payload) {
                    // The subscription outlives the ownership for a moment in a handover.
                    Ok(_) if !lock(&node.owned).contains_key(&shard) => Err(Refused::unavailable()),
                    Ok(ToDirector { id, request }) => {
                        state.tournaments.answer_forwarded(&id, request).await
                    }
                    Err(error) => Err(Refused {
                        code: "unavailable".to_owned(),
                        message: format!("a node sent what this one cannot read: {error}"),
                    }),
                };
                node.answer(message.reply, Some(answer)).await;
            });
        }
        let _ = requests.unsubscribe().await;
    }
}

/// Answers every node's question of who is connected, with those of the
/// names connected here, until the server stops.
pub(super) async fn answer_presence(
    node_id: String,
    client: async_nats::Client,
    mut questions: async_nats::Subscriber,
    players: Arc<Players>,
    stop: CancellationToken,
) {
    while let Some(message) = next_until(&mut questions, &stop).await {
        let Ok(question) = serde_json::from_slice::<WhoIsHere>(&message.payload) else { continue };
        let Some(reply) = message.reply else { continue };
        if question.node == node_id {
            continue;
        }
        let connected = players.connected();
        let here: Vec<&String> =
            question.players.iter().filter(|player| connected.contains(*player)).collect();
        if let Ok(body) = serde_json::to_vec(&here) {
            let _ = client.publish(reply, body.into()).await;
        }
    }
}

/// Tells this node's connections of the rounds seated on other nodes,
/// until the server stops.
pub(super) async fn hear_seated(
    node_id: String,
    mut rounds: async_nats::Subscriber,
    tournaments: Tournaments,
    stop: CancellationToken,
) {
    while let Some(message) = next_until(&mut rounds, &stop).await {
        match serde_json::from_slice::<Seated>(&message.payload) {
            Ok(seated) if seated.node != node_id => tournaments.announce(Arc::new(seated.round)),
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "a round seated that this node cannot read"),
        }
    }
}

impl RemoteTournaments for Node {
    fn announce_elsewhere(&self, round: Arc<RoundSeated>) {
        let seated = Seated { node: self.id.clone(), round: RoundSeated::clone(&round) };
        let Ok(body) = serde_json::to_vec(&seated) else { return };
        let client = self.client.clone();
        tokio::spawn(async move {
            if let Err(error) = client.publish(SEATED, body.into()).await {
                // Their pages still show the table.
                tracing::warn!(%error, "a round seated not told to the other nodes");
            }
        });
    }

    fn forward<'a>(&'a self, id: &'a str, request: Request) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let body = serde_json::to_vec(&ToDirector { id: id.to_owned(), request })
                .map_err(|_| Refused::unavailable())?;
            let request =
                async_nats::Request::new().payload(body.into()).timeout(Some(REQUEST_TIMEOUT));
            let subject = subject(shard_of(id, self.shards));
            // No responder: no node owns the shard right now (it is moving).
            let reply = (self.client.send_request(subject, request).await)
                .map_err(|_| Refused::unavailable())?;
            serde_json::from_slice::<Answer>(&reply.payload).map_err(|_| Refused::unavailable())?
        })
    }

    fn connected_elsewhere(&self, players: Vec<String>) -> BoxFuture<'_, HashSet<String>> {
        Box::pin(async move {
            let mut connected = HashSet::new();
            let others = match self.nodes.names().await {
                Ok(names) => names.iter().filter(|name| **name != self.id).count(),
                Err(error) => {
                    tracing::warn!(%error, "cannot list the nodes: presence asked of none");
                    return connected;
                }
            };
            if others == 0 {
                return connected;
            }
            let inbox = self.client.new_inbox();
            let Ok(mut answers) = self.client.subscribe(inbox.clone()).await else {
                return connected;
            };
            let question = WhoIsHere { node: self.id.clone(), players };
            let Ok(body) = serde_json::to_vec(&question) else { return connected };
            if self.client.publish_with_reply(PRESENCE, inbox, body.into()).await.is_err() {
                return connected;
            }
            let gather = async {
                for _ in 0..others {
                    let Some(answer) = answers.next().await else { break };
                    if let Ok(here) = serde_json::from_slice::<Vec<String>>(&answer.payload) {
                        connected.extend(here);
                    }
                }
            };
            if tokio::time::timeout(PRESENCE_TIMEOUT, gather).await.is_err() {
                tracing::warn!("a node did not say in time who is connected to it");
            }
            let _ = answers.unsubscribe().await;
            connected
        })
    }
}
