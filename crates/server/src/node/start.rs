//! Joining the cluster: connect to NATS, open the shared buckets, build
//! this node, place the state's tables with it, and start its loops.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream;
use euchre_cluster::{Leases, LogConfig, Ownership, ShardLogs};
use tokio::sync::mpsc;

use super::Node;
use super::claims::{self, KvClaims};
use super::durability::{Logged, purge_closed};
use super::lobby::{mirror_lobby, watch_lobby};
use super::{revocations, sanctions, social};
use crate::state::AppState;

/// The buckets every node of a cluster shares.
const OWNERS: &str = "euchre_owners";
const NODES: &str = "euchre_nodes";
const LOBBY: &str = "euchre_lobby";

/// Whether `name` can be one token of a NATS subject and a bucket key.
fn valid_node_id(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The node's `cluster.public_url`, if set: a `ws://` or `wss://` URL,
/// since clients open a WebSocket there.
fn public_url(url: &str) -> anyhow::Result<Option<String>> {
    let url = url.trim();
    if url.is_empty() {
        return Ok(None);
    }
    let has_host = ["ws://", "wss://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
    anyhow::ensure!(
        has_host && !url.chars().any(char::is_whitespace),
        "cluster.public_url {url:?}: a ws:// or wss:// URL where clients reach this node"
    );
    Ok(Some(url.to_owned()))
}

/// Joins the cluster: connects to NATS, opens the buckets, and starts the
/// lease loop and the node's listeners. Returns the state to serve with:
/// `state`, its tables placed in this node's shards.
pub async fn start(state: AppState) -> anyhow::Result<AppState> {
    let settings = state.settings.cluster.clone();
    anyhow::ensure!(
        state.settings.database().url.expose().starts_with("postgres"),
        "cluster mode needs a shared PostgreSQL database: set database_url to postgres://…"
    );
    let id = if settings.node_id.is_empty() {
        format!("node-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
    } else {
        settings.node_id.clone()
    };
    anyhow::ensure!(valid_node_id(&id), "cluster.node_id {id:?}: use letters, digits, - and _");
    let client = super::nats::connect(&settings.nats_url, &settings.nats, &id).await?;
    tracing::debug!(node = %id, "connected to NATS");
    let js = jetstream::new(client.clone());
    let ttl = Duration::from_millis(settings.lease_ttl_ms.max(300));
    let replicas = settings.replicas.max(1);
    let owners = Leases::open(&js, OWNERS, ttl, replicas).await?;
    let nodes = Leases::open(&js, NODES, ttl, replicas).await?;
    let lobby = euchre_cluster::open_bucket(
        &js,
        LOBBY,
        "Euchre lobby: every table of the cluster",
        None,
        replicas,
    )
    .await?;
    let quick_play_claims = euchre_cluster::open_bucket(
        &js,
        claims::BUCKET,
        "Euchre quick play: each player's live request or pool table",
        Some(claims::MAX_AGE),
        replicas,
    )
    .await?;
    tracing::debug!(node = %id, "buckets open");
    let shards = settings.shards.max(1);
    // Claims live while their node holds their pool's lease.
    let claims = KvClaims::start(
        quick_play_claims,
        id.clone(),
        shards,
        owners.clone(),
        state.registry.clone(),
    );
    state.quick_play.use_claims(Arc::new(claims));
    let (changes_tx, changes) = mpsc::unbounded_channel();
    let ownership = Ownership::new(&id, shards, owners, nodes.clone(), changes_tx.clone());
    let validity = ownership.validity();
    let logs = ShardLogs::new(shards).with_validity(validity.clone());
    let (durability, closed_rx) = Logged::new(logs.clone(), state.recorder.clone());
    let durability = Arc::new(durability);
    let health = state.recorder.health().clone();
    tokio::spawn(purge_closed(logs.clone(), health, closed_rx, state.shutdown.clone()));
    let node = Arc::new(Node {
        id: id.clone(),
        shards,
        client: client.clone(),
        js,
        log_config: LogConfig { replicas, ..LogConfig::default() },
        logs,
        durability: durability.clone(),
        validity,
        changes: changes_tx,
        nodes,
        owned: Mutex::default(),
        shutdown: state.shutdown.clone(),
        locals: Mutex::default(),
        remotes: Mutex::default(),
        outbound_queue: state.settings.limits.outbound_queue.max(1),
        quick_play: state.quick_play.clone(),
        asked: Mutex::default(),
        pool_grace: Duration::from_millis(state.settings.timing.reconnect_grace_ms),
        public_url: public_url(&settings.public_url)?,
    });
    let state = state.with_placement(node.clone());
    state.players.write_guests_through();

    let deliveries = client.subscribe(format!("euchre.to.{id}")).await?;
    tokio::spawn(node.clone().deliver(deliveries));
    let moved = client.subscribe("euchre.moved.*").await?;
    tokio::spawn(node.clone().on_moved(moved));

    let presence = client.subscribe(super::tournaments::PRESENCE).await?;
    tokio::spawn(super::tournaments::answer_presence(
        id.clone(),
        client.clone(),
        presence,
        state.players.clone(),
        state.shutdown.clone(),
    ));

    let seated = client.subscribe(super::tournaments::SEATED).await?;
    tokio::spawn(super::tournaments::hear_seated(
        id.clone(),
        seated,
        state.tournaments.clone(),
        state.shutdown.clone(),
    ));

    // Subscribed before the names are read again: a claim made meanwhile
    // is in one or the other.
    let revoked = client.subscribe(revocations::SUBJECT).await?;
    tokio::spawn(revocations::apply(revoked, state.players.clone(), state.shutdown.clone()));
    if let Some(own) = state.players.broadcast_revocations() {
        tokio::spawn(revocations::publish(client.clone(), own));
    }
    let sanctioned = client.subscribe(sanctions::SUBJECT).await?;
    let own_sanctions = state.players.sanctions().clone();
    tokio::spawn(sanctions::apply(sanctioned, own_sanctions, state.shutdown.clone()));
    if let Some(own) = state.players.sanctions().broadcast_changes() {
        tokio::spawn(sanctions::publish(client.clone(), own));
    }
    state.players.load_claimed_names().await?;
    let changed = client.subscribe(social::SUBJECT).await?;
    tokio::spawn(social::apply(changed, state.social.clone(), state.shutdown.clone()));
    if let Some(own) = state.social.broadcast_changes() {
        tokio::spawn(social::publish(client.clone(), own));
    }

    let (mirror, mirrored) = mpsc::unbounded_channel();
    state.registry.mirror_to(mirror);
    tokio::spawn(mirror_lobby(lobby.clone(), mirrored));
    let watch = lobby.watch_with_history(">").await?;
    tokio::spawn(watch_lobby(watch, state.clone()));
    tracing::debug!(node = %id, "lobby watched");

    state.tracker.spawn(ownership.run(state.shutdown.clone()));
    tokio::spawn(node.clone().follow(changes, state.clone()));
    tokio::spawn(node.clone().sweep_dead_nodes(state.clone(), ttl));
    tracing::info!(node = %id, shards, "joined the cluster");
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::public_url;

    #[test]
    fn a_public_url_is_a_websocket_address_or_nothing() {
        assert_eq!(public_url("").ok(), Some(None));
        assert_eq!(public_url(" ").ok(), Some(None));
        let url = "wss://play.example/ws?node=euchre2";
        assert_eq!(public_url(url).ok(), Some(Some(url.to_owned())));
        assert!(public_url("ws://127.0.0.1:8081/ws").is_ok());
        for bad in ["https://play.example/ws", "/ws?node=n2", "wss://", "wss:///ws", "ws://a b/ws"]
        {
            assert!(public_url(bad).is_err(), "{bad}");
        }
    }
}
