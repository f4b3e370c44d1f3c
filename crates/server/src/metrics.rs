//! Prometheus metrics, served as text at `/metrics`.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The server's metrics. Each is cheap to update from any task.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    pub connections_open: Gauge,
    pub connections_total: Counter,
    pub tables_open: Gauge,
    pub tables_created: Counter,
    /// Open tables found at start-up (or at a shard's takeover) that could
    /// not be restored: closed, their games abandoned, the rest served.
    pub tables_set_aside: Counter,
    pub messages_in: Counter,
    pub messages_out: Counter,
    pub errors_sent: Counter,
    /// Seconds from a command arriving to its table handling it.
    pub action_latency: Histogram,
    /// In a cluster: the shards this node owns (0 on one node).
    pub shards_owned: Gauge,
    /// In a cluster: messages this node's tables sent to other nodes'
    /// connections over NATS (what `table_elsewhere` saves, once followed).
    pub frames_relayed: Counter,
    /// Password hashes started, and requests refused for want of a hashing thread.
    pub password_hashes: Counter,
    pub password_hashes_busy: Counter,
    /// Matches queued for analysis as they ended (or were imported), and
    /// those skipped because that queue was full.
    pub analyses_at_end: Counter,
    pub analyses_skipped: Counter,
    /// TCP connections open (counted at accept), and those closed at
    /// accept: past their address's cap or the accept limit.
    pub tcp_open: Gauge,
    pub tcp_turned_away: Counter,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("euchre");
        let metrics = Metrics {
            connections_open: Gauge::default(),
            connections_total: Counter::default(),
            tables_open: Gauge::default(),
            tables_created: Counter::default(),
            tables_set_aside: Counter::default(),
            messages_in: Counter::default(),
            messages_out: Counter::default(),
            errors_sent: Counter::default(),
            action_latency: Histogram::new(exponential_buckets(0.000_05, 2.0, 16)),
            shards_owned: Gauge::default(),
            frames_relayed: Counter::default(),
            password_hashes: Counter::default(),
            password_hashes_busy: Counter::default(),
            analyses_at_end: Counter::default(),
            analyses_skipped: Counter::default(),
            tcp_open: Gauge::default(),
            tcp_turned_away: Counter::default(),
            registry: Registry::default(),
        };
        registry.register(
            "connections_open",
            "Open WebSocket connections",
            metrics.connections_open.clone(),
        );
        registry.register(
            "connections",
            "WebSocket connections accepted",
            metrics.connections_total.clone(),
        );
        registry.register("tables_open", "Tables open", metrics.tables_open.clone());
        registry.register("tables_created", "Tables created", metrics.tables_created.clone());
        registry.register(
            "tables_set_aside",
            "Open tables that could not be restored: closed, their games abandoned",
            metrics.tables_set_aside.clone(),
        );
        registry.register(
            "messages_received",
            "Client messages received",
            metrics.messages_in.clone(),
        );
        registry.register("messages_sent", "Server messages sent", metrics.messages_out.clone());
        registry.register("errors_sent", "Error messages sent", metrics.errors_sent.clone());
        registry.register(
            "action_latency_seconds",
            "Time from receiving a game action to its table applying it",
            metrics.action_latency.clone(),
        );
        registry.register(
            "cluster_shards_owned",
            "In a cluster: the shards this node owns",
            metrics.shards_owned.clone(),
        );
        registry.register(
            "cluster_frames_relayed",
            "In a cluster: messages this node's tables sent to other nodes' connections",
            metrics.frames_relayed.clone(),
        );
        registry.register(
            "password_hashes",
            "Password hashes started (log-ins, claims, password changes)",
            metrics.password_hashes.clone(),
        );
        registry.register(
            "password_hashes_busy",
            "Requests refused 503 busy: every password-hashing thread was hashing",
            metrics.password_hashes_busy.clone(),
        );
        registry.register(
            "analyses_at_match_end",
            "Matches queued for analysis as they ended or were imported",
            metrics.analyses_at_end.clone(),
        );
        registry.register(
            "analyses_skipped",
            "Matches not queued for analysis as they ended: the queue was full",
            metrics.analyses_skipped.clone(),
        );
        registry.register(
            "tcp_connections_open",
            "Open TCP connections, WebSockets and HTTP, counted at accept",
            metrics.tcp_open.clone(),
        );
        registry.register(
            "tcp_connections_turned_away",
            "TCP connections closed at accept: past their address's cap or the accept limit",
            metrics.tcp_turned_away.clone(),
        );
        Metrics { registry, ..metrics }
    }
}

impl Metrics {
    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut text = String::new();
        if encode(&mut text, &self.registry).is_err() {
            text.clear();
        }
        text
    }
}
