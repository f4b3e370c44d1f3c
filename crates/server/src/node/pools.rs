//! Quick play in a cluster: each pool has one owner, the owner of the
//! shard its name falls in, so that players on every node wait in one pool.
//!
//! A connection's request for a pool another node owns is a NATS request
//! to `euchre.pool.<shard>`, answered only by the shard's owner: it hands
//! the request to its own pools' task with the connection's remote outbox
//! ([`Node::remote_outbox`]), so the ack, the waiting and ended notices and
//! `quick_play_matched` come back numbered, as a remote table's messages
//! do; the table a pool makes lives on the owner, and the connection plays
//! there as at any other node's table.
//!
//! When a pool's shard moves (its owner died, or gave it up), the requests
//! end with `owner_lost` and players ask again: the old owner ends those
//! it holds if it is alive, and each node ends those its own connections
//! made. They are not re-sent: a request's state (its team, its code, how
//! long it waited) lives only at the owner, and a re-sent request would
//! come back as a new one anyway, with a new code the partner never saw.
//! Each request has an id, which its end names: a node passes on only the
//! end of the request it follows, so a late `owner_lost` from an old owner
//! cannot end a request made again since.
//!
//! A player who reconnects to a node where they did not ask is found by
//! their claim ([`crate::quick_play::Claims`]): the node follows their
//! request from then on, and the owner sends its notices there too.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use euchre_cluster::{Shard, shard_of};
use euchre_protocol::{
    CommandId, ErrorCode, PlayerInfo, QuickPlayEndReason, QuickPlayRequest, ServerMessage,
};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::forward::Answer;
use super::{Node, lock, next_until};
use crate::placement::{PoolAsk, RemotePools};
use crate::quick_play::{Ask, ended};
use crate::state::AppState;
use crate::table::ConnId;

/// How long a node waits for a pool's owner to take a request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// The subject of the pools whose names fall in `shard`.
pub(super) fn subject(shard: Shard) -> String {
    format!("euchre.pool.{shard}")
}

/// What a node sends a pool's owner, for its connection `conn`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ToPoolOwner {
    Ask {
        node: String,
        conn: ConnId,
        id: CommandId,
        #[serde(default)]
        request_id: u64,
        player: PlayerInfo,
        request: QuickPlayRequest,
        rating: Option<(f64, f64)>,
        /// The client's address (absent from a node of an older version).
        #[serde(default)]
        address: Option<std::net::IpAddr>,
        /// Everyone a block stands between the player and (absent from a
        /// node of an older version).
        #[serde(default)]
        avoid: Vec<String>,
    },
    Cancel {
        node: String,
        conn: ConnId,
        id: CommandId,
        player_id: String,
    },
    Attach {
        node: String,
        conn: ConnId,
        player_id: String,
    },
    Gone {
        node: String,
        conn: ConnId,
        player_id: String,
    },
}

/// The requests this node's connections made to other nodes' pools: which
/// shard each player's went to, and the connections holding it. One entry
/// a connection of this node, and one a player who asked from here: a
/// player with no connection left is forgotten once the owner has surely
/// let their request go (the reconnect grace).
#[derive(Debug, Default)]
pub(super) struct Asked {
    players: HashMap<String, Held>,
    conns: HashMap<ConnId, String>,
}

#[derive(Clone, Debug)]
struct Held {
    shard: Shard,
    /// The request's id: only its end is passed on.
    request: u64,
    conns: Vec<ConnId>,
    /// Since when no connection of this node holds it.
    unheld_since: Option<Instant>,
}

impl Asked {
    fn hold(&mut self, player_id: &str, shard: Shard, request: u64, conn: ConnId) {
        let held = self.players.entry(player_id.to_owned()).or_insert_with(|| Held {
            shard,
            request,
            conns: Vec::new(),
            unheld_since: None,
        });
        held.shard = shard;
        held.request = request;
        held.unheld_since = None;
        if !held.conns.contains(&conn) {
            held.conns.push(conn);
        }
        self.conns.insert(conn, player_id.to_owned());
    }

    /// `conn` was told its request ended (`request`: the ended request's
    /// id) or matched (`None`): forgets the request, and `conn` as a holder.
    /// Whether to pass the notice on: each of a request's holders is told
    /// once, and never of the end of an earlier request than the one the
    /// player has now.
    pub(super) fn forget_conn(&mut self, conn: ConnId, request: Option<u64>) -> bool {
        let Some(player_id) = self.conns.get(&conn) else { return false };
        let held = self.players.get(player_id);
        if request.is_some_and(|ended| held.is_some_and(|held| held.request != ended)) {
            return false;
        }
        if let Some(player_id) = self.conns.remove(&conn) {
            self.players.remove(&player_id);
        }
        true
    }

    /// Forgets the requests in `shard`: the connections that held them,
    /// each with its request's id.
    fn forget_shard(&mut self, shard: Shard) -> Vec<(ConnId, u64)> {
        let lost: Vec<String> = self
            .players
            .iter()
            .filter(|(_, held)| held.shard == shard)
            .map(|(player, _)| player.clone())
            .collect();
        let mut conns = Vec::new();
        for player in lost {
            if let Some(held) = self.players.remove(&player) {
                for conn in &held.conns {
                    self.conns.remove(conn);
                }
                conns.extend(held.conns.iter().map(|&conn| (conn, held.request)));
            }
        }
        conns
    }

    /// Forgets the players with no connection here for longer than `grace`.
    fn forget_unheld(&mut self, grace: Duration) {
        self.players
            .retain(|_, held| held.unheld_since.is_none_or(|since| since.elapsed() < grace));
    }
}

impl Node {
    fn pool_shard(&self, pool: &str) -> Shard {
        shard_of(pool, self.shards)
    }

    /// Sends `message` to the owner of `shard`'s pools and reads its answer.
    async fn to_pool_owner(
        &self,
        shard: Shard,
        id: CommandId,
        message: &ToPoolOwner,
    ) -> Result<(), ServerMessage> {
        let unavailable = || {
            ErrorCode::Unavailable
                .refusal("the quick-play pool is moving to another server; ask again")
                .into_message(Some(id))
        };
        let body = serde_json::to_vec(message).map_err(|_| unavailable())?;
        let request =
            async_nats::Request::new().payload(body.into()).timeout(Some(REQUEST_TIMEOUT));
        let reply =
            self.client.send_request(subject(shard), request).await.map_err(|_| unavailable())?;
        match serde_json::from_slice::<Answer>(&reply.payload) {
            Ok(Answer::Accepted) => Ok(()),
            Ok(Answer::Refused { code, message }) => {
                Err(ServerMessage::Error { id: Some(id), code, message })
            }
            Err(_) => Err(unavailable()),
        }
    }

    /// Publishes `message` to the owner of `shard`'s pools, with no answer.
    fn tell_pool_owner(&self, shard: Shard, message: &ToPoolOwner) {
        let Ok(body) = serde_json::to_vec(message) else { return };
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.publish(subject(shard), body.into()).await;
        });
    }

    /// A shard moved: this node's connections waiting in its pools are told
    /// their requests ended (`owner_lost`), so they may ask again.
    pub(super) fn end_pool_requests(&self, shard: Shard) {
        let conns = lock(&self.asked).forget_shard(shard);
        if conns.is_empty() {
            return;
        }
        let locals = lock(&self.locals);
        for (conn, request) in conns {
            if let Some(local) = locals.get(&conn) {
                local.outbox.send(ended(QuickPlayEndReason::OwnerLost, request));
            }
        }
    }

    /// Answers the requests for `shard`'s pools from other nodes until the
    /// shard is lost.
    pub(super) async fn serve_pools(
        self: Arc<Self>,
        mut requests: async_nats::Subscriber,
        state: AppState,
        stop: CancellationToken,
        shard: Shard,
    ) {
        while let Some(message) = next_until(&mut requests, &stop).await {
            let answer = match serde_json::from_slice::<ToPoolOwner>(&message.payload) {
                Ok(request) => self.pool_request(&state, shard, request).await,
                Err(error) => Some(Answer::unreadable(error)),
            };
            self.answer(message.reply, answer).await;
        }
        let _ = requests.unsubscribe().await;
    }

    /// Hands another node's request to this node's pools: they answer on
    /// the connection's remote outbox.
    async fn pool_request(
        self: &Arc<Self>,
        state: &AppState,
        shard: Shard,
        request: ToPoolOwner,
    ) -> Option<Answer> {
        let refused = |refusal: euchre_protocol::Refusal| Answer::Refused {
            code: refusal.code.to_owned(),
            message: refusal.message,
        };
        // The subscription outlives the ownership for a moment in a handover.
        if !lock(&self.owned).contains_key(&shard) {
            return Some(refused(ErrorCode::Unavailable.into()));
        }
        let quick_play = &state.quick_play;
        match request {
            ToPoolOwner::Ask {
                node,
                conn,
                id,
                request_id,
                player,
                request,
                rating,
                address,
                avoid,
            } => {
                let (conn, outbox) = self.remote_outbox(state, node, conn);
                let ask =
                    Ask { id, request_id, conn, player, outbox, request, rating, address, avoid };
                Some(quick_play.ask(ask).await.map_or_else(refused, |()| Answer::Accepted))
            }
            ToPoolOwner::Cancel { node, conn, id, player_id } => {
                let (conn, outbox) = self.remote_outbox(state, node, conn);
                let cancelled = quick_play.cancel(id, conn, &player_id, outbox);
                Some(cancelled.map_or_else(refused, |()| Answer::Accepted))
            }
            ToPoolOwner::Attach { node, conn, player_id } => {
                let (conn, outbox) = self.remote_outbox(state, node, conn);
                quick_play.attach(conn, &player_id, outbox);
                None
            }
            ToPoolOwner::Gone { node, conn, player_id } => {
                let here = lock(&self.remotes).get(&(node, conn)).map(|remote| remote.conn);
                if let Some(conn) = here {
                    let quick_play = quick_play.clone();
                    tokio::spawn(async move { quick_play.gone(conn, &player_id).await });
                }
                None
            }
        }
    }
}

impl Node {
    /// Tells the owner of `shard`'s pools that `conn` holds the player's request.
    fn follow_at_owner(&self, shard: Shard, conn: ConnId, player_id: &str) {
        let message =
            ToPoolOwner::Attach { node: self.id.clone(), conn, player_id: player_id.to_owned() };
        self.tell_pool_owner(shard, &message);
    }
}

impl RemotePools for Node {
    fn owns(&self, pool: &str) -> bool {
        lock(&self.owned).contains_key(&self.pool_shard(pool))
    }

    fn ask<'a>(
        &'a self,
        pool: &'a str,
        conn: ConnId,
        player: &'a PlayerInfo,
        ask: PoolAsk,
    ) -> BoxFuture<'a, Result<(), ServerMessage>> {
        let PoolAsk { id, request_id, request, rating, address, avoid } = ask;
        Box::pin(async move {
            let shard = self.pool_shard(pool);
            // Held before the request is sent: the owner's ack and even its
            // match may come back before its answer does.
            let held_before = {
                let mut asked = lock(&self.asked);
                asked.forget_unheld(self.pool_grace);
                let before = asked.players.get(&player.id).cloned();
                asked.hold(&player.id, shard, request_id, conn);
                before
            };
            let message = ToPoolOwner::Ask {
                node: self.id.clone(),
                conn,
                id,
                request_id,
                player: player.clone(),
                request,
                rating,
                address: Some(address),
                avoid,
            };
            let sent = self.to_pool_owner(shard, id, &message).await;
            if sent.is_err() {
                // Refused: the player's request (if any) is as it was.
                let mut asked = lock(&self.asked);
                match held_before {
                    Some(held) => {
                        if !held.conns.contains(&conn) {
                            asked.conns.remove(&conn);
                        }
                        asked.players.insert(player.id.clone(), held);
                    }
                    None => {
                        asked.forget_conn(conn, None);
                    }
                }
            }
            sent
        })
    }

    fn cancel<'a>(
        &'a self,
        id: CommandId,
        conn: ConnId,
        player_id: &'a str,
    ) -> Option<BoxFuture<'a, Result<(), ServerMessage>>> {
        let shard = lock(&self.asked).players.get(player_id)?.shard;
        Some(Box::pin(async move {
            let message = ToPoolOwner::Cancel {
                node: self.id.clone(),
                conn,
                id,
                player_id: player_id.to_owned(),
            };
            self.to_pool_owner(shard, id, &message).await
        }))
    }

    fn attach(self: Arc<Self>, conn: ConnId, player_id: &str) {
        let mut asked = lock(&self.asked);
        asked.forget_unheld(self.pool_grace);
        if let Some(held) = asked.players.get(player_id) {
            let (shard, request) = (held.shard, held.request);
            asked.hold(player_id, shard, request, conn);
            drop(asked);
            self.follow_at_owner(shard, conn, player_id);
            return;
        }
        drop(asked);
        // Asked on another node, perhaps, before a reconnection here: the
        // claim says where it waits.
        let Some(claims) = self.quick_play.claims().cloned() else { return };
        let player_id = player_id.to_owned();
        tokio::spawn(async move {
            let Some((request, pool)) = claims.waiting(&player_id).await else { return };
            let shard = self.pool_shard(&pool);
            // This node's own pools have it already (hello attached it).
            if lock(&self.owned).contains_key(&shard) || !lock(&self.locals).contains_key(&conn) {
                return;
            }
            let mut asked = lock(&self.asked);
            if asked.players.contains_key(&player_id) {
                return;
            }
            asked.hold(&player_id, shard, request, conn);
            drop(asked);
            self.follow_at_owner(shard, conn, &player_id);
        });
    }

    fn gone(&self, conn: ConnId, player_id: &str) {
        let mut asked = lock(&self.asked);
        asked.conns.remove(&conn);
        let Some(held) = asked.players.get_mut(player_id) else { return };
        let shard = held.shard;
        held.conns.retain(|held| *held != conn);
        if held.conns.is_empty() {
            held.unheld_since = Some(Instant::now());
        }
        drop(asked);
        // The entry stays while the owner keeps the request for the grace:
        // the player's next connection here holds it again.
        let message =
            ToPoolOwner::Gone { node: self.id.clone(), conn, player_id: player_id.to_owned() };
        self.tell_pool_owner(shard, &message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_holder_of_a_request_is_told_its_end_once() {
        let mut asked = Asked::default();
        asked.hold("ann", 3, 40, 1);
        asked.hold("ann", 3, 40, 2);
        // The first holder's notice forgets the request; the second holder
        // is still told; a second notice to either is not passed on.
        assert!(asked.forget_conn(1, Some(40)));
        assert!(asked.players.is_empty());
        assert!(asked.forget_conn(2, Some(40)));
        assert!(!asked.forget_conn(1, Some(40)));
        assert!(!asked.forget_conn(2, Some(40)));
    }

    #[test]
    fn a_moved_shard_ends_only_its_requests_and_their_late_notices_are_dropped() {
        let mut asked = Asked::default();
        asked.hold("ann", 3, 40, 1);
        asked.hold("ann", 3, 40, 2);
        asked.hold("bob", 5, 40, 7);
        let mut ended = asked.forget_shard(3);
        ended.sort_unstable();
        assert_eq!(ended, vec![(1, 40), (2, 40)]);
        // The old owner's own `owner_lost` comes too late for them.
        assert!(!asked.forget_conn(1, Some(40)));
        assert!(asked.players.contains_key("bob"));
        assert!(asked.forget_shard(3).is_empty());
    }

    #[test]
    fn a_late_end_of_an_earlier_request_leaves_the_new_one_followed() {
        let mut asked = Asked::default();
        asked.hold("ann", 3, 40, 1);
        // The shard moved: this node ended request 40 itself; Ann asked
        // again (request 41) at the new owner.
        assert_eq!(asked.forget_shard(3), vec![(1, 40)]);
        asked.hold("ann", 3, 41, 1);
        // The old owner's `owner_lost` for 40 comes late: dropped, and 41
        // is still followed.
        assert!(!asked.forget_conn(1, Some(40)));
        assert_eq!(asked.players["ann"].request, 41);
        assert!(asked.forget_conn(1, Some(41)), "its own end is passed on");
        assert!(asked.players.is_empty());
    }

    #[test]
    fn a_player_with_no_connection_here_is_forgotten_after_the_grace() {
        let mut asked = Asked::default();
        asked.hold("ann", 3, 40, 1);
        asked.hold("bob", 3, 40, 2);
        if let Some(held) = asked.players.get_mut("ann") {
            held.conns.clear();
            held.unheld_since = Some(Instant::now() - Duration::from_secs(61));
        }
        asked.forget_unheld(Duration::from_secs(60));
        assert!(!asked.players.contains_key("ann"));
        assert!(asked.players.contains_key("bob"), "still held");
        // Coming back before that holds the request again.
        asked.hold("bob", 3, 40, 9);
        assert_eq!(asked.players["bob"].conns, vec![2, 9]);
    }
}
