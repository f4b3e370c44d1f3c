//! Settings, layered: built-in defaults, then a TOML file
//! (`config/default.toml` when present, or `--config FILE`), then `EUCHRE_*`
//! environment variables, then command-line flags.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use serde::{Deserialize, Serialize};

/// Every setting of the server. `config/default.toml` documents each one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Where match history is kept: `sqlite://FILE` or `postgres://USER:PASSWORD@HOST/DB`.
    /// Empty (the default): SQLite in the data folder (`Settings::database`).
    pub database_url: DatabaseUrl,
    /// The server's own files: the journal, and the SQLite file unless
    /// `database_url` names another database.
    pub data_dir: PathBuf,
    /// Logs as `human` text or `json` lines.
    pub log_format: LogFormat,
    pub limits: Limits,
    pub timing: Timing,
    pub accounts: AccountSettings,
    /// The HTTP API's limits: requests per address, EGN imports.
    pub api: ApiSettings,
    /// Browser origins allowed to connect, besides the server's own host.
    /// Clients that send no `Origin` (native ones) are always allowed.
    pub allowed_origins: Vec<String>,
    /// Reverse proxies (addresses, `127.0.0.1`, or networks, `10.0.0.0/8`)
    /// whose `X-Forwarded-For` names the client: a request from one of them
    /// counts as from the address it forwarded for, so the per-address
    /// limits and the penalty box see each client, not the proxy. Empty:
    /// every request is from its peer.
    #[serde(deserialize_with = "networks")]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Several nodes behind one address, on NATS JetStream and PostgreSQL
    /// (off by default: one node, SQLite, the local journal).
    pub cluster: ClusterSettings,
    /// The solver's analysis of finished matches (`GET /api/matches/{id}/analysis`).
    pub analysis: AnalysisSettings,
    /// Quick play: the pools that match strangers (crates/server/src/quick_play).
    pub quick_play: QuickPlaySettings,
    /// What makes a game count for the ratings (crates/server/src/ratings.rs).
    pub ratings: RatingSettings,
    /// Chat and names for a public server (docs/self-hosting.md, "Moderation").
    pub moderation: ModerationSettings,
}

/// Chat and names (docs/self-hosting.md, "Moderation").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModerationSettings {
    /// Chat at every table; off: every chat line is refused `chat_disabled`.
    pub chat: bool,
    /// Chat at the tables quick play forms (strangers together).
    pub quick_play_chat: bool,
    /// A file of words (one a line, `#` comments) no name and no chat line
    /// may hold, compared as names are (case, lookalikes). Empty: none.
    pub word_list: PathBuf,
}

impl Default for ModerationSettings {
    fn default() -> ModerationSettings {
        ModerationSettings { chat: true, quick_play_chat: true, word_list: PathBuf::new() }
    }
}

/// Who is rated and how a rated game is kept moving (docs/security.md,
/// "Ratings"). Guests are never rated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RatingSettings {
    /// An account is rated once it is this old (seconds since its name was claimed)…
    pub min_account_age_seconds: u64,
    /// …and has finished this many games (casual and with bots count).
    pub min_games: u32,
    /// Rated games two accounts may play against each other in 24 hours;
    /// past it their games are played but not rated. 0: no cap.
    pub daily_games_per_opponent: u32,
    /// The turn timer of a rated table set up without one (seconds).
    pub turn_seconds: u32,
    /// The turns a player lets run out in a rated game (the timer plays
    /// them) that forfeit it. 0: never.
    pub timeouts_to_forfeit: u32,
}

impl Default for RatingSettings {
    fn default() -> RatingSettings {
        RatingSettings {
            min_account_age_seconds: 24 * 3600,
            min_games: 3,
            daily_games_per_opponent: 5,
            turn_seconds: 60,
            timeouts_to_forfeit: 3,
        }
    }
}

/// Quick play's pools, waves and bounds (docs/security.md, "Quick play").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QuickPlaySettings {
    /// How often each pool forms tables (also at once when a request
    /// makes a full table possible).
    pub wave_ms: u64,
    /// Requests one pool holds; past it a request whose player has no
    /// connection makes room (it ends), and failing one a request is
    /// refused `busy`.
    pub max_waiting_per_pool: usize,
    /// Requests one pool holds from one address (an IPv6 address by its
    /// /64), those whose connection is gone included; past it `busy`.
    /// 0: no limit.
    pub requests_per_address: usize,
    /// How long a request may wait before it ends (`expired`).
    pub max_wait_ms: u64,
    /// How long a team code is good while the partner has not joined.
    pub team_code_ms: u64,
    /// How often at most a waiting player is told how many wait.
    pub waiting_notice_ms: u64,
    /// Seconds a player has for each turn at a pool's table.
    pub turn_seconds: u32,
    /// The level of the bots at a casual pool table.
    pub bot: String,
    /// Once a player at a pool table asks for a rematch, how long the
    /// others have to ask too: then, at a casual table, bots take the
    /// seats of those who did not and the game starts; at a rated one the
    /// asks lapse.
    pub rematch_seconds: u32,
    /// Requests the pools' mailbox holds before a new one is refused `busy`.
    pub mailbox: usize,
}

impl Default for QuickPlaySettings {
    fn default() -> QuickPlaySettings {
        QuickPlaySettings {
            wave_ms: 2_000,
            max_waiting_per_pool: 20_000,
            requests_per_address: 8,
            max_wait_ms: 15 * 60 * 1000,
            team_code_ms: 10 * 60 * 1000,
            waiting_notice_ms: 5_000,
            turn_seconds: 30,
            bot: "medium".to_owned(),
            rematch_seconds: 60,
            mailbox: 4_096,
        }
    }
}

/// The analysis of finished matches: computed once, off the async workers,
/// one at a time from a bounded queue (crates/server/src/analysis.rs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalysisSettings {
    /// Matches waiting to be analysed; a request past this is answered 503.
    pub queue: usize,
    /// Worlds dealt for each decision valued with what the player knew.
    pub worlds: u32,
    /// The `Retry-After` of a 202 (queued) or 503 (queue full), in seconds.
    pub retry_after_seconds: u32,
    /// Whether each match is queued for analysis when it ends (and each
    /// import when imported), behind the requests, in a queue of its own
    /// as long as `queue`; when that is full the match is skipped, to be
    /// analysed when someone asks.
    pub at_match_end: bool,
}

impl Default for AnalysisSettings {
    fn default() -> AnalysisSettings {
        AnalysisSettings {
            queue: 64,
            worlds: euchre_analysis::DEFAULT_WORLDS,
            retry_after_seconds: 5,
            at_match_end: true,
        }
    }
}

/// Networks, each written as a network (`10.0.0.0/8`) or as one address
/// (`127.0.0.1`, `::1`: a /32 or a /128).
fn networks<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ipnet::IpNet>, D::Error> {
    let texts = Vec::<String>::deserialize(deserializer)?;
    texts.iter().map(|text| parse_network(text).map_err(serde::de::Error::custom)).collect()
}

/// A list's entry ([`networks`]) that is neither an address nor a network.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is neither an address nor a network (10.0.0.0/8)")]
struct NotANetwork(String);

fn parse_network(text: &str) -> Result<ipnet::IpNet, NotANetwork> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| NotANetwork(text.to_owned()))
}

/// Cluster mode (docs/self-hosting.md, docs/architecture.md part two).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterSettings {
    /// Run as one node of a cluster. Needs a `postgres://` database URL.
    pub enabled: bool,
    /// The NATS server (with JetStream) every node uses.
    pub nats_url: String,
    /// This node's name, unique in the cluster; empty: a new random one at each start.
    pub node_id: String,
    /// A shard lease not renewed within this time passes to another node:
    /// the time a dead node's tables wait before they are taken over.
    /// Every node must use the same.
    pub lease_ttl_ms: u64,
    /// Copies of the shared log and buckets: 1 on one NATS server, 3 in a NATS cluster.
    pub replicas: usize,
    /// Tables fall into this many shards, the unit of ownership and
    /// failover. Fixed for the cluster's life: every node must use the same.
    pub shards: u16,
    /// Where clients reach this node itself, past the load balancer
    /// (`wss://play.example/ws?node=euchre2`, a route the balancer sends to
    /// this node alone). A client that joins a table of this node through
    /// another is told it (`table_elsewhere`), so it can come here and its
    /// table's messages stop crossing NATS. Empty: never told.
    pub public_url: String,
    /// How the node proves itself to NATS, and checks NATS in turn.
    pub nats: NatsSettings,
}

/// The node's credentials and TLS towards NATS. NATS carries whole deals
/// and salts, and its command subjects take any player's identity: it must
/// be reachable by the nodes alone (docs/security.md, "The cluster's message
/// bus"). Empty settings are unset. Give at most one kind of credential.
/// Secrets come from the environment (`EUCHRE_CLUSTER__NATS__PASSWORD`) or
/// from a file; `Debug` never prints them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NatsSettings {
    /// A user and its password, or a file holding the password.
    pub user: String,
    pub password: Secret,
    pub password_file: PathBuf,
    /// An nkey seed (`SU…`), or a file holding one.
    pub nkey_seed: Secret,
    pub nkey_seed_file: PathBuf,
    /// A `.creds` file: a user's JWT and its nkey seed (NATS's decentralized auth).
    pub creds_file: PathBuf,
    /// PEM certificates of the authorities that sign the NATS server's
    /// certificate (setting it turns TLS on).
    pub tls_ca_file: PathBuf,
    /// The node's own certificate and key (PEM), for a NATS server that
    /// verifies its clients.
    pub tls_cert_file: PathBuf,
    pub tls_key_file: PathBuf,
    /// Refuse to talk to NATS without TLS.
    pub tls_required: bool,
}

/// A secret setting, whose `Debug` shows only whether it is set.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_set(&self) -> bool {
        !self.0.is_empty()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_set() { "\"***\"" } else { "\"\"" })
    }
}

impl Default for ClusterSettings {
    fn default() -> ClusterSettings {
        ClusterSettings {
            enabled: false,
            nats_url: "nats://127.0.0.1:4222".to_owned(),
            node_id: String::new(),
            lease_ttl_ms: 6_000,
            replicas: 1,
            shards: 256,
            public_url: String::new(),
            nats: NatsSettings::default(),
        }
    }
}

/// A database URL, whose `Debug` hides any password.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DatabaseUrl(pub String);

impl DatabaseUrl {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // scheme://user:password@host… → scheme://user:***@host…
        let url = &self.0;
        match (url.find("://"), url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                let userinfo = &url[scheme + 3..at];
                match userinfo.split_once(':') {
                    Some((user, _)) => {
                        write!(f, "\"{}{user}:***{}\"", &url[..scheme + 3], &url[at..])
                    }
                    None => write!(f, "{url:?}"),
                }
            }
            _ => write!(f, "{url:?}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    Human,
    Json,
}

/// Limits that keep one client from hurting the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest message accepted, in bytes; larger ones are answered `too_large`.
    pub max_message_bytes: usize,
    /// Messages per second a connection may send (pings exempt), and the burst above that.
    pub messages_per_second: u32,
    pub message_burst: u32,
    /// Messages waiting to be sent to one connection before it counts as too slow and is dropped.
    pub outbound_queue: usize,
    /// Bytes each connection reads from its socket at a time: this buffer is
    /// most of what an idle connection costs (tungstenite's default is 128 KiB).
    pub read_buffer_bytes: usize,
    /// The kernel's send buffer for each connection (`SO_SNDBUF`), in
    /// bytes; 0 leaves it to the system, which grows it to megabytes for a
    /// client that does not read. What a slow reader may pin before its
    /// queue (`outbound_queue`) overflows and it is dropped.
    pub send_buffer_bytes: usize,
    /// Events each table keeps for clients that resume; an older `last_seq`
    /// gets a snapshot instead. The ring is most of an idle table's memory
    /// (72 bytes an event, more for a deal).
    pub event_ring: usize,
    /// Open tables one player may host.
    pub tables_per_player: usize,
    /// Tables one connection follows at once (sits at, watches or
    /// resumed); past it `watch_limit` until it leaves one. 0: no limit.
    pub tables_per_connection: usize,
    /// Spectators one table takes (seated players are not counted); past
    /// it a `watch` gets `watch_limit`. 0: no limit.
    pub spectators_per_table: usize,
    /// Open WebSocket connections from one address (an IPv6 address counts
    /// by its /64).
    pub connections_per_address: usize,
    /// Open WebSocket connections in all; 0: the TCP accept limit
    /// (`max_tcp_connections`) less room kept for plain HTTP requests. A
    /// larger value is lowered to that too. Past it the upgrade gets
    /// `503 server_full`.
    pub max_connections: usize,
    /// Open TCP connections from one address (its WebSockets, and HTTP
    /// requests not yet answered or kept alive), counted at accept: past it
    /// a new connection is closed unread. Never under
    /// `connections_per_address` + 16. A trusted proxy is not counted by
    /// it. 0: no limit.
    pub tcp_connections_per_address: usize,
    /// Open TCP connections in all; 0: the open-file limit less 256 (kept
    /// for the database, the journal, NATS and the logs). A larger value is
    /// lowered to that too. At it the oldest connection that has sent
    /// nothing yet is closed to make room; failing one, the new one is.
    pub max_tcp_connections: usize,
    /// How long an address whose connection was closed for abuse (1008,
    /// flooding; 1009, a frame past the hard cap) is refused new
    /// connections and requests (`429 abuse_penalty`); 0: never.
    pub abuse_penalty_ms: u64,
    /// New guests (a `hello` without a token) one address may register a
    /// minute, the burst too; 0: no limit.
    pub guests_per_minute: u32,
    /// Tokens (guests' and log-in sessions') whose player is kept in memory,
    /// the most recently used; an older one is looked up in the database at
    /// its next `hello`. About 250 bytes each.
    pub known_tokens: usize,
    /// Tables on the server.
    pub max_tables: usize,
}

/// Accounts: how long a log-in lasts, how often an address may guess
/// passwords (docs/security.md, "Guessing passwords"), and how many
/// passwords are hashed at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AccountSettings {
    /// How long a log-in session lasts, in seconds.
    pub session_seconds: u64,
    /// How often ended sessions and forgotten guests are deleted, in
    /// seconds (0: never).
    pub purge_every_seconds: u64,
    /// A guest is deleted once this old (seconds) if it claimed no name,
    /// sat in no match, has no place at an open table and is not connected.
    pub purge_guests_after_seconds: u64,
    /// Wrong passwords one address (an IPv6 address by its /64) may give
    /// for one name before it must wait: 1 s before its next try, then 2 s,
    /// 4 s … after each further wrong one.
    pub login_free_failures: u32,
    /// The longest such wait, in seconds.
    pub login_backoff_max_seconds: u64,
    /// Failed attempts (log-ins, password changes, claims) one address may
    /// make an hour across all names, the burst too; 0: no limit.
    pub login_failures_per_address: u32,
    /// Wrong passwords for one name from all addresses together before
    /// addresses that never logged in to it must wait (1 s, then 2 s, 4 s …
    /// after each further wrong one, up to `login_backoff_max_seconds`);
    /// forgotten after an hour without one. 0: no budget.
    pub login_failures_per_account: u32,
    /// New sessions (log-ins) one account may start an hour, the burst a
    /// third of it (at least 1); past it `429 rate_limited`. 0: no limit.
    pub sessions_per_hour_per_account: u32,
    /// Live sessions one account may hold; a new one past it ends the
    /// oldest (its connections close, as on log-out). 0: no cap.
    pub max_sessions_per_account: u32,
    /// Password hashes under way at once, each on a thread of its own and
    /// holding 19 MiB; past it a request gets `503 busy`. 0: twice the cores.
    pub concurrent_hashes: usize,
    /// Of those, the most one address (an IPv6 /64) may hold at once; one
    /// name is hashed for at most one at a time. 0: a quarter of the pool
    /// (at least one).
    pub hashes_per_address: usize,
    /// How long the name of an account its player deleted stays taken, in
    /// days (freed by the housekeeping that follows), so that nobody takes
    /// a departed player's name at once; 0: freed at the next housekeeping.
    pub deleted_name_hold_days: u64,
}

/// The HTTP API's limits (`/api/…`; static files and the WebSocket, which
/// has its own admission limits, are not counted).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApiSettings {
    /// Requests a second one address may make to the API, and the burst
    /// above that; past it `429 rate_limited` with `Retry-After`. 0: no limit.
    pub requests_per_second: u32,
    pub request_burst: u32,
    /// EGN imports an hour one account may make, and one address (the
    /// burst too); past it `429 too_many_imports`. 0: no limit.
    pub imports_per_hour_per_account: u32,
    pub imports_per_hour_per_address: u32,
    /// Deals one imported record may hold; more: `400 too_many_hands`.
    pub import_max_hands: usize,
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timing {
    /// Time to send `hello` after connecting.
    pub hello_timeout_ms: u64,
    /// How often the server pings each connection.
    pub ping_interval_ms: u64,
    /// A connection silent for this long (no frame, no pong) is closed.
    pub idle_timeout_ms: u64,
    /// How long a disconnected player's seat waits before a bot plays it.
    pub reconnect_grace_ms: u64,
    /// A table with no connection at all closes after this long (never
    /// sooner than `reconnect_grace_ms`).
    pub table_close_ms: u64,
    /// Pause before a bot acts, so people can follow the play.
    pub bot_delay_ms: u64,
    /// On shutdown, how long clients are told to wait before reconnecting.
    pub reconnect_after_ms: u64,
    /// On shutdown, how long to wait for connections and tables to finish.
    pub shutdown_grace_ms: u64,
    /// An HTTP request's head must arrive whole within this of the
    /// connection's opening, or of the answer before it on a kept-alive
    /// connection (so an idle kept-alive connection closes after it too).
    pub header_read_timeout_ms: u64,
    /// An HTTP connection on which nothing is read or written for this
    /// long (a body that stalls, an answer nobody reads) is closed. A
    /// WebSocket has its own (`idle_timeout_ms`).
    pub http_idle_timeout_ms: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
            database_url: DatabaseUrl(String::new()),
            data_dir: PathBuf::from("data"),
            log_format: LogFormat::Human,
            limits: Limits::default(),
            timing: Timing::default(),
            accounts: AccountSettings::default(),
            api: ApiSettings::default(),
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            cluster: ClusterSettings::default(),
            analysis: AnalysisSettings::default(),
            quick_play: QuickPlaySettings::default(),
            ratings: RatingSettings::default(),
            moderation: ModerationSettings::default(),
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_message_bytes: 4096,
            messages_per_second: 20,
            message_burst: 40,
            outbound_queue: 512,
            read_buffer_bytes: 2048,
            send_buffer_bytes: 0,
            event_ring: 256,
            tables_per_player: 4,
            tables_per_connection: 64,
            spectators_per_table: 200,
            connections_per_address: 32,
            max_connections: 0,
            tcp_connections_per_address: 256,
            max_tcp_connections: 0,
            abuse_penalty_ms: 10_000,
            guests_per_minute: 30,
            known_tokens: 100_000,
            max_tables: 10_000,
        }
    }
}

impl Default for AccountSettings {
    fn default() -> AccountSettings {
        AccountSettings {
            session_seconds: 30 * 24 * 3600,
            purge_every_seconds: 3600,
            purge_guests_after_seconds: 30 * 24 * 3600,
            login_free_failures: 5,
            login_backoff_max_seconds: 15 * 60,
            login_failures_per_address: 60,
            login_failures_per_account: 30,
            sessions_per_hour_per_account: 30,
            max_sessions_per_account: 20,
            concurrent_hashes: 0,
            hashes_per_address: 0,
            deleted_name_hold_days: 30,
        }
    }
}

impl Default for ApiSettings {
    fn default() -> ApiSettings {
        ApiSettings {
            requests_per_second: 20,
            request_burst: 100,
            imports_per_hour_per_account: 20,
            imports_per_hour_per_address: 60,
            import_max_hands: 200,
        }
    }
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            hello_timeout_ms: 10_000,
            ping_interval_ms: 30_000,
            idle_timeout_ms: 60_000,
            reconnect_grace_ms: 30_000,
            table_close_ms: 60_000,
            bot_delay_ms: 700,
            reconnect_after_ms: 5_000,
            shutdown_grace_ms: 5_000,
            header_read_timeout_ms: 10_000,
            http_idle_timeout_ms: 30_000,
        }
    }
}

impl Timing {
    pub fn ms(value: u64) -> Duration {
        Duration::from_millis(value)
    }
}

/// Command-line flags. Each also reads an `EUCHRE_*` environment variable;
/// flags win over the environment, which wins over the file.
#[derive(Debug, Parser)]
#[command(name = "euchre-server", version, about = "The authoritative Euchre table server")]
pub struct Flags {
    /// A TOML settings file (default: config/default.toml if it exists).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Address to listen on, e.g. 0.0.0.0:8080.
    #[arg(long, env = "EUCHRE_BIND")]
    pub bind: Option<SocketAddr>,
    /// Log format: human or json.
    #[arg(long, env = "EUCHRE_LOG_FORMAT")]
    pub log_format: Option<String>,
    /// Database URL: sqlite://FILE or postgres://…. Unset: SQLite in the
    /// data folder (DATA_DIR/euchre.db).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// The folder for the server's own files: the journal, and the SQLite
    /// database unless --database-url names another (default: data).
    #[arg(long, env = "EUCHRE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Without a command: serve.
    #[command(subcommand)]
    pub command: Option<crate::admin::Command>,
}

/// The SQLite file's name in the data folder.
const SQLITE_FILE: &str = "euchre.db";

/// Where versions before the data folder held the database kept SQLite,
/// whatever the data folder: relative to the working folder.
const OLD_SQLITE_PATH: &str = "data/euchre.db";

/// The database a server uses, and why when that is not the obvious one.
#[derive(Debug)]
pub struct Database {
    pub url: DatabaseUrl,
    /// Set when an older layout's file is used (see [`Settings::database`]):
    /// what to tell the operator.
    pub warning: Option<String>,
}

impl Settings {
    /// The database: `database_url` when set, otherwise SQLite in the data
    /// folder (`DATA_DIR/euchre.db`).
    ///
    /// One exception keeps an upgrade from losing history: older versions
    /// kept SQLite at `data/euchre.db` whatever the data folder. When that
    /// file exists, and the data folder (another folder) has a journal but
    /// no database, the journal belongs to that file: it is used, with a
    /// warning saying how to move it. A fresh data folder (no journal) gets
    /// a database of its own.
    pub fn database(&self) -> Database {
        if !self.database_url.expose().is_empty() {
            return Database { url: self.database_url.clone(), warning: None };
        }
        let file = self.data_dir.join(SQLITE_FILE);
        let url = |path: &std::path::Path| DatabaseUrl(format!("sqlite://{}", path.display()));
        let old = std::path::Path::new(OLD_SQLITE_PATH);
        let same_folder =
            match (self.data_dir.canonicalize(), std::path::Path::new("data").canonicalize()) {
                (Ok(ours), Ok(default)) => ours == default,
                _ => self.data_dir == std::path::Path::new("data"),
            };
        let old_layout = !same_folder
            && old.is_file()
            && !file.exists()
            && self.data_dir.join("journal").is_dir();
        if old_layout {
            let warning = format!(
                "using the database {OLD_SQLITE_PATH}, where older versions kept it: the data \
                 folder {dir} holds its journal but no database. Stop the server, move \
                 {OLD_SQLITE_PATH} (with any -wal and -shm files beside it) to {file}, and start \
                 it again; or set database_url to sqlite://{OLD_SQLITE_PATH} to keep it there",
                dir = self.data_dir.display(),
                file = file.display(),
            );
            return Database { url: url(old), warning: Some(warning) };
        }
        Database { url: url(&file), warning: None }
    }

    /// Loads the layers: defaults, file, environment (`EUCHRE_LIMITS__MAX_TABLES=…`
    /// for nested keys), then flags.
    pub fn load(flags: &Flags) -> anyhow::Result<Settings> {
        Settings::load_with_env(flags, std::env::vars().collect())
    }

    /// [`Settings::load`] with the environment given, for tests.
    pub fn load_with_env(
        flags: &Flags,
        mut env: std::collections::HashMap<String, String>,
    ) -> anyhow::Result<Settings> {
        read_secret_files(&mut env)?;
        let env_database_url = env.get("DATABASE_URL").cloned();
        let defaults = config::Config::try_from(&Settings::default())?;
        let mut builder = config::Config::builder().add_source(defaults);
        match &flags.config {
            Some(path) => builder = builder.add_source(config::File::from(path.as_path())),
            None => {
                builder = builder
                    .add_source(config::File::with_name("config/default.toml").required(false))
            }
        }
        builder = builder.add_source(
            config::Environment::with_prefix("EUCHRE")
                .prefix_separator("_")
                .separator("__")
                .list_separator(",")
                .with_list_parse_key("allowed_origins")
                .with_list_parse_key("trusted_proxies")
                .try_parsing(true)
                .source(Some(env.into_iter().filter(|(key, _)| is_setting(key)).collect())),
        );
        if let Some(bind) = flags.bind {
            builder = builder.set_override("bind", bind.to_string())?;
        }
        if let Some(format) = &flags.log_format {
            builder = builder.set_override("log_format", format.as_str())?;
        }
        // `DATABASE_URL` is the flag's variable (clap reads it); one read
        // from `DATABASE_URL_FILE` comes through `env`.
        if let Some(url) = flags.database_url.as_ref().or(env_database_url.as_ref()) {
            builder = builder.set_override("database_url", url.as_str())?;
        }
        if let Some(dir) = &flags.data_dir {
            builder = builder.set_override("data_dir", dir.to_string_lossy().as_ref())?;
        }
        let settings: Settings = builder.build()?.try_deserialize()?;
        Ok(settings)
    }
}

/// `DATABASE_URL_FILE` (or `EUCHRE_DATABASE_URL_FILE`): the file's
/// contents, less a final line break, as if `DATABASE_URL` were set, so that
/// the database's password can come from a Docker or Kubernetes secret
/// mounted as a file rather than from the environment, which `docker
/// inspect` and `/proc` show. (NATS's secrets have file settings of their
/// own.) Setting both is an error.
fn read_secret_files(env: &mut std::collections::HashMap<String, String>) -> anyhow::Result<()> {
    for name in ["DATABASE_URL", "EUCHRE_DATABASE_URL"] {
        let Some(path) = env.get(&format!("{name}_FILE")).cloned() else { continue };
        if env.contains_key(name) {
            anyhow::bail!("both {name} and {name}_FILE are set: keep one");
        }
        let value = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {name}_FILE ({path})"))?;
        let value = value.strip_suffix('\n').unwrap_or(&value);
        env.insert(name.to_owned(), value.strip_suffix('\r').unwrap_or(value).to_owned());
    }
    Ok(())
}

/// Whether an environment variable names a setting: `EUCHRE_` and a
/// top-level key. Other `EUCHRE_*` variables (a test's, a compose file's)
/// are not ours to refuse; a misspelt nested key still is.
fn is_setting(key: &str) -> bool {
    key.strip_prefix("EUCHRE_")
        .map(|rest| rest.split("__").next().unwrap_or_default())
        .is_some_and(|top| SETTING_KEYS.contains(&top))
}

/// The settings' top-level keys, as environment variables name them.
const SETTING_KEYS: [&str; 15] = [
    "BIND",
    "DATABASE_URL",
    "DATA_DIR",
    "LOG_FORMAT",
    "LIMITS",
    "TIMING",
    "ACCOUNTS",
    "API",
    "ALLOWED_ORIGINS",
    "TRUSTED_PROXIES",
    "CLUSTER",
    "ANALYSIS",
    "QUICK_PLAY",
    "RATINGS",
    "MODERATION",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Found when `EUCHRE_ANALYSIS__WORLDS` was ignored: a key left out of
    /// the list is a setting the environment cannot set.
    #[test]
    fn every_setting_can_come_from_the_environment() {
        let settings = serde_json::to_value(Settings::default()).expect("serializes");
        let keys = settings.as_object().expect("an object").keys();
        for key in keys.map(|key| key.to_uppercase()) {
            assert!(SETTING_KEYS.contains(&key.as_str()), "{key} is missing from SETTING_KEYS");
        }
    }

    fn flags(args: &[&str]) -> Flags {
        Flags::parse_from(std::iter::once("euchre-server").chain(args.iter().copied()))
    }

    #[test]
    fn layers_apply_in_order() {
        let env: std::collections::HashMap<String, String> = [
            ("EUCHRE_BIND", "0.0.0.0:9000"),
            ("EUCHRE_LIMITS__MAX_TABLES", "7"),
            ("EUCHRE_ALLOWED_ORIGINS", "https://a.example,https://b.example"),
            ("HOME", "/root"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let settings = Settings::load_with_env(&flags(&[]), env.clone()).expect("loads");
        assert_eq!(settings.bind, "0.0.0.0:9000".parse().expect("addr"));
        assert_eq!(settings.limits.max_tables, 7);
        assert_eq!(settings.limits.max_message_bytes, Limits::default().max_message_bytes);
        assert_eq!(settings.allowed_origins.len(), 2);
        // A flag beats the environment.
        let settings =
            Settings::load_with_env(&flags(&["--bind", "127.0.0.1:1"]), env).expect("loads");
        assert_eq!(settings.bind, "127.0.0.1:1".parse().expect("addr"));
    }

    #[test]
    fn the_shipped_default_file_matches_the_built_in_defaults() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/default.toml");
        let settings = Settings::load_with_env(&flags(&["--config", path]), Default::default())
            .expect("config/default.toml loads");
        assert_eq!(settings, Settings::default());
    }

    #[test]
    fn the_production_example_loads() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/production.toml");
        let settings = Settings::load_with_env(&flags(&["--config", path]), Default::default())
            .expect("config/production.toml loads");
        // Behind its proxy, trusted to name each client: the penalty box on.
        let proxy: std::net::IpAddr = "127.0.0.1".parse().expect("an address");
        assert!(settings.trusted_proxies.iter().any(|net| net.contains(&proxy)));
        assert_eq!(settings.limits.abuse_penalty_ms, 10_000);
        assert_eq!(settings.log_format, LogFormat::Json);
    }

    #[test]
    fn trusted_proxies_take_bare_addresses_and_networks() {
        let path = std::env::temp_dir().join(format!("proxies-{}.toml", std::process::id()));
        std::fs::write(&path, "trusted_proxies = [\"127.0.0.1\", \"::1\", \"10.0.0.0/8\"]\n")
            .expect("a settings file");
        let loaded = Settings::load_with_env(
            &flags(&["--config", path.to_str().expect("a UTF-8 path")]),
            Default::default(),
        );
        let _ = std::fs::remove_file(&path);
        let expected: Vec<ipnet::IpNet> = ["127.0.0.1/32", "::1/128", "10.0.0.0/8"]
            .iter()
            .map(|net| net.parse().expect("a network"))
            .collect();
        assert_eq!(loaded.expect("a bare address loads").trusted_proxies, expected);
        // From the environment too, which the compose files use.
        let env = [("EUCHRE_TRUSTED_PROXIES".to_owned(), "127.0.0.1,172.30.0.0/24".to_owned())];
        let settings =
            Settings::load_with_env(&flags(&[]), env.into_iter().collect()).expect("loads");
        let expected: Vec<ipnet::IpNet> =
            ["127.0.0.1/32", "172.30.0.0/24"].iter().map(|n| n.parse().expect("a net")).collect();
        assert_eq!(settings.trusted_proxies, expected);
        let env = [("EUCHRE_TRUSTED_PROXIES".to_owned(), "localhost".to_owned())];
        assert!(Settings::load_with_env(&flags(&[]), env.into_iter().collect()).is_err());
    }

    #[test]
    fn sqlite_lives_in_the_data_folder_unless_a_url_says_otherwise() {
        let data_dir = PathBuf::from("/nonexistent/euchre-data");
        let settings = Settings { data_dir, ..Settings::default() };
        let database = settings.database();
        assert_eq!(database.url.expose(), "sqlite:///nonexistent/euchre-data/euchre.db");
        assert!(database.warning.is_none());
        let url = DatabaseUrl("postgres://euchre@db/euchre".to_owned());
        let settings = Settings { database_url: url.clone(), ..settings };
        assert_eq!(settings.database().url, url);
    }

    #[test]
    fn debug_output_hides_database_passwords() {
        let url = DatabaseUrl("postgres://euchre:hunter2@db:5432/euchre".to_owned());
        let shown = format!("{url:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("euchre:***@db:5432/euchre"), "{shown}");
        let settings = Settings { database_url: url, ..Settings::default() };
        assert!(!format!("{settings:?}").contains("hunter2"));
    }

    #[test]
    fn the_database_url_comes_from_a_file_named_by_database_url_file() {
        let dir = tempfile::tempdir().expect("a folder");
        let url_file = dir.path().join("database_url");
        std::fs::write(&url_file, "postgres://euchre:hunter2@db:5432/euchre\n").expect("written");
        let path = |file: &std::path::Path| file.to_string_lossy().into_owned();
        let env = [("DATABASE_URL_FILE".to_owned(), path(&url_file))];
        let settings =
            Settings::load_with_env(&flags(&[]), env.clone().into_iter().collect()).expect("loads");
        assert_eq!(settings.database_url.expose(), "postgres://euchre:hunter2@db:5432/euchre");

        let both = [env[0].clone(), ("DATABASE_URL".to_owned(), "sqlite://x.db".to_owned())];
        let error =
            Settings::load_with_env(&flags(&[]), both.into_iter().collect()).expect_err("both set");
        assert!(error.to_string().contains("both DATABASE_URL and DATABASE_URL_FILE"), "{error}");
        let missing = [("DATABASE_URL_FILE".to_owned(), path(&dir.path().join("none")))];
        let error = Settings::load_with_env(&flags(&[]), missing.into_iter().collect())
            .expect_err("no such file");
        assert!(format!("{error:#}").contains("reading DATABASE_URL_FILE"), "{error:#}");
    }

    #[test]
    fn nats_secrets_come_from_the_environment_and_never_print() {
        let env: std::collections::HashMap<String, String> = [
            ("EUCHRE_CLUSTER__NATS__USER", "euchre"),
            ("EUCHRE_CLUSTER__NATS__PASSWORD", "hunter2"),
            (
                "EUCHRE_CLUSTER__NATS__NKEY_SEED",
                "SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU",
            ),
            ("EUCHRE_CLUSTER__NATS__TLS_REQUIRED", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let settings = Settings::load_with_env(&flags(&[]), env).expect("loads");
        let nats = &settings.cluster.nats;
        assert_eq!((nats.user.as_str(), nats.password.expose()), ("euchre", "hunter2"));
        assert!(nats.tls_required);
        let shown = format!("{settings:?}");
        assert!(!shown.contains("hunter2") && !shown.contains("SUAML"), "{shown}");
        assert!(shown.contains("password: \"***\""), "{shown}");
    }

    #[test]
    fn other_euchre_variables_are_not_settings() {
        let env = [("EUCHRE_SERVER_BIN".to_owned(), "/bin/true".to_owned())].into_iter().collect();
        assert_eq!(Settings::load_with_env(&flags(&[]), env).expect("loads"), Settings::default());
    }

    #[test]
    fn cluster_settings_come_from_the_environment() {
        let env: std::collections::HashMap<String, String> = [
            ("EUCHRE_CLUSTER__ENABLED", "true"),
            ("EUCHRE_CLUSTER__NATS_URL", "nats://nats:4222"),
            ("EUCHRE_CLUSTER__NODE_ID", "n1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let settings = Settings::load_with_env(&flags(&[]), env).expect("loads");
        assert!(settings.cluster.enabled);
        assert_eq!(settings.cluster.nats_url, "nats://nats:4222");
        assert_eq!(settings.cluster.node_id, "n1");
        assert_eq!(settings.cluster.lease_ttl_ms, ClusterSettings::default().lease_ttl_ms);
        assert!(!Settings::default().cluster.enabled, "one node unless asked");
    }

    #[test]
    fn unknown_settings_are_refused() {
        let env = [("EUCHRE_LIMITS__MAX_TABELS".to_owned(), "7".to_owned())].into_iter().collect();
        assert!(Settings::load_with_env(&flags(&[]), env).is_err());
    }
}
