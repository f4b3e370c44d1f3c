//! A load generator for the Euchre server: many WebSocket clients, each
//! seated at a table it created or joined, playing a legal action as soon
//! as it is its turn.
//!
//! It measures what a player feels and what the operator keeps:
//!
//! - the time from sending each action to reading its `ack` (the server
//!   acknowledges an action only once its journal record is synced, so this
//!   includes durable logging), as percentiles from an HDR histogram;
//! - actions and hands per second while playing;
//! - hands stored: once play stops, it waits until `/readyz` shows the
//!   writer has caught up, then counts each table's finished hands through
//!   the match history API and checks none is missing.
//!
//! [`run`] does it all and returns a [`Report`]; the `euchre-loadgen` binary
//! wraps it with flags.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use euchre_protocol::TableSettings;
use futures_util::{StreamExt, TryStreamExt, stream};
use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

pub mod abuse;
pub mod echo;
mod frame;
pub mod http;
pub mod idle;
pub mod net;
mod player;
pub mod process;
pub mod quick;
mod samples;
pub mod tournament;

use http::Http;
use player::{ActionClock, PATIENCE, Phase, Place, Player, Progress};
use process::CpuClock;

/// Tables set up at once: enough to be quick, few enough not to look like a flood.
const SETUP_CONCURRENCY: usize = 16;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server's WebSocket URL, `ws://host:port/ws`; or several,
    /// comma-separated (the nodes of a cluster): the clients go round-robin
    /// over them, so a table's players sit on different nodes ([`urls`]).
    pub url: String,
    /// Its HTTP base (`http://host:port`); by default from `url` (the first).
    pub http: Option<String>,
    pub tables: usize,
    /// Load-generator clients per table, 1 to 4; the server's bots take the other seats.
    pub players: u8,
    /// Tables each client sits at (one seat at each): a person playing
    /// several tables at once. More tables than one process may hold
    /// sockets for (about 19,900 here) need more than one.
    pub tables_per_client: usize,
    /// The bots' kind (`basic` or `random`).
    pub bot: String,
    pub stop: Stop,
    /// Each client's pause before acting, as a person would take; zero plays flat out.
    pub think: Think,
    pub seed: u64,
    /// How long the database may take to catch up once play stops.
    pub store_timeout: Duration,
    /// Spread the clients over this many loopback source addresses
    /// (127.1.x.y, see [`net`]), so a server on loopback can keep its
    /// per-address connection limit; 0 lets the system choose (one address).
    pub source_addresses: usize,
    /// The server's process id, to report its CPU time per action beside
    /// the load generator's own (one process: a cluster's are not summed).
    pub server_pid: Option<u32>,
    /// Other processes whose CPU time over the play alone is reported each
    /// (a cluster's nodes and its NATS server): set-up, the clients'
    /// connecting and joining, is not counted.
    pub watch_pids: Vec<u32>,
    /// In a cluster: a client told its table lives on another node
    /// (`table_elsewhere`) reconnects there, as real clients do; off, it
    /// stays and its table's messages cross between nodes.
    pub follow_hints: bool,
    /// How long a client that loses its connection (a restart, a node
    /// killed) keeps trying to come back; `None`: the run fails instead.
    pub reconnect_for: Option<Duration>,
}

/// How long a client thinks before each action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Think {
    /// The same time every turn: every table acts in step, in waves (the
    /// stress case).
    Fixed(Duration),
    /// Drawn afresh each turn from an exponential distribution with this
    /// mean: people's pauses vary, so tables drift apart (the realistic case).
    Exponential(Duration),
}

impl Think {
    /// The mean pause.
    pub fn mean(self) -> Duration {
        match self {
            Think::Fixed(mean) | Think::Exponential(mean) => mean,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Think::Fixed(_) => "fixed",
            Think::Exponential(_) => "exponential",
        }
    }
}

/// When play stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    After(Duration),
    /// Once this many hands have ended, over all tables.
    Hands(u64),
}

/// What a run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    pub tables: usize,
    pub players_per_table: u8,
    pub tables_per_client: usize,
    pub connections: usize,
    /// The mean think time, and whether it was `fixed` or `exponential`.
    pub think_ms: u64,
    pub think_distribution: &'static str,
    pub seed: u64,
    /// From the start of play until every client had its last answer.
    pub seconds: f64,
    pub actions: u64,
    pub actions_per_second: f64,
    pub hands_ended: u64,
    pub hands_per_second: f64,
    pub games_won: u64,
    /// Finished hands the history API shows for the run's tables.
    pub hands_stored: u64,
    /// From the start of play until the writer's backlog was empty.
    pub stored_within_seconds: f64,
    pub hands_stored_per_second: f64,
    /// Send to `ack` of each action, in milliseconds.
    pub latency_ms: Latency,
    /// From one client sending an action to each other client at its table
    /// reading the first event it caused, in milliseconds.
    pub to_others_ms: Latency,
    /// `error` messages received, by code.
    pub errors: BTreeMap<String, u64>,
    /// With `--reconnect-for`: the times a client came back after losing
    /// its connection; the tables that came back older than an action
    /// acknowledged there; and the actions acknowledged beyond what the
    /// history holds, table by table. Nothing acknowledged is lost when
    /// the last two are 0.
    pub reconnects: u64,
    pub lost_acknowledged: u64,
    pub acknowledged_not_stored: u64,
    /// CPU time per action acknowledged while playing, in microseconds:
    /// the load generator's own (it shares the machine), and the server's
    /// (with its pid).
    pub load_generator_cpu_us_per_action: Option<f64>,
    pub server_cpu_us_per_action: Option<f64>,
    /// Each watched process's CPU time per action while playing.
    pub watched: Vec<WatchedCpu>,
}

/// A watched process's CPU time per action while playing.
#[derive(Debug, Serialize)]
pub struct WatchedCpu {
    pub pid: u32,
    pub cpu_us_per_action: Option<f64>,
}

/// Percentiles of the action latency, in milliseconds.
#[derive(Debug, Serialize)]
pub struct Latency {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Latency {
    pub(crate) fn from_micros(histogram: &Histogram<u64>) -> Latency {
        let ms = |micros: u64| micros as f64 / 1000.0;
        Latency {
            count: histogram.len(),
            mean: histogram.mean() / 1000.0,
            p50: ms(histogram.value_at_quantile(0.50)),
            p90: ms(histogram.value_at_quantile(0.90)),
            p99: ms(histogram.value_at_quantile(0.99)),
            p999: ms(histogram.value_at_quantile(0.999)),
            max: ms(histogram.max()),
        }
    }
}

/// The URLs in `url`, a comma-separated list (one URL is a list of one):
/// client `i` of a run connects to the `i % n`th.
pub fn urls(url: &str) -> Vec<&str> {
    let urls: Vec<&str> = url.split(',').map(str::trim).filter(|u| !u.is_empty()).collect();
    if urls.is_empty() { vec![url] } else { urls }
}

/// Sets up the tables, plays, stops, waits for the database and counts
/// what it stored.
pub async fn run(config: &Config) -> anyhow::Result<Report> {
    if !(1..=4).contains(&config.players) {
        bail!("players per table must be 1 to 4, not {}", config.players);
    }
    if config.tables == 0 {
        bail!("no tables to play at");
    }
    if config.tables_per_client == 0 {
        bail!("each client needs a table to sit at");
    }
    let urls = urls(&config.url);
    let http = Http::from_url(config.http.as_deref().unwrap_or(urls[0]))?;
    // Each node of a cluster writes its own journal to the database.
    let writers = match &config.http {
        Some(http) => vec![Http::from_url(http)?],
        None => urls.iter().map(|url| Http::from_url(url)).collect::<anyhow::Result<_>>()?,
    };
    let progress = Arc::new(Progress::default());

    // Each group's clients start reading as soon as the group is set up,
    // acting only once the run begins: a client left unread while thousands
    // more connect (over a minute at 19,200) misses the server's pings and
    // is closed as idle.
    let (phase, phase_rx) = watch::channel(Phase::Setup);
    let mut playing = JoinSet::new();
    let groups = config.tables.div_ceil(config.tables_per_client);
    let mut setting_up = stream::iter(0..groups)
        .map(|group| set_up_group(config, group, progress.clone()))
        .buffer_unordered(SETUP_CONCURRENCY);
    while let Some(group) = setting_up.try_next().await? {
        for player in group {
            playing.spawn(player.play(phase_rx.clone()));
        }
        // A client that failed while others were still being set up.
        if let Some(finished) = playing.try_join_next() {
            finished.context("a client task failed")??;
            bail!("a client stopped before the run began");
        }
    }
    let connections = playing.len();
    let cpu = CpuClock::watching(config.server_pid, &config.watch_pids)?;
    let start = Instant::now();
    phase.send_replace(Phase::Run);
    // Coming back after a restart takes as long as the restart.
    let stall = PATIENCE + config.reconnect_for.unwrap_or_default();
    wait_for_stop(config.stop, start, &progress, &mut playing, stall).await?;
    phase.send_replace(Phase::Stop);

    let mut players = Vec::with_capacity(connections);
    while let Some(finished) = playing.join_next().await {
        players.push(finished.context("a client task failed")??);
    }
    let end = players.iter().filter_map(|p| p.stats.idle_at).max().unwrap_or(start);
    let seconds = (end - start).as_secs_f64();
    let played: u64 = players.iter().map(|player| player.stats.actions).sum();
    // Play only: the wait for the database and the check of the history come after.
    let (load_generator_cpu_us_per_action, server_cpu_us_per_action) = cpu.per(played)?;
    let watched = cpu.watched_per(played)?.into_iter();
    let watched: Vec<WatchedCpu> =
        watched.map(|(pid, cpu_us_per_action)| WatchedCpu { pid, cpu_us_per_action }).collect();

    for writer in &writers {
        if !writer.wait_for_writer(config.store_timeout).await? {
            bail!("the database had not caught up {:?} after play stopped", config.store_timeout);
        }
    }
    let stored_within_seconds = start.elapsed().as_secs_f64();

    let mut latency = samples::histogram()?;
    let mut to_others = latency.clone();
    let mut errors = BTreeMap::new();
    let (mut actions, mut hands_ended, mut games_won) = (0, 0, 0);
    let (mut reconnects, mut lost_acknowledged) = (0, 0);
    for player in &mut players {
        reconnects += player.stats.reconnects;
        lost_acknowledged += player.stats.lost_acknowledged;
        latency.add(player.stats.latency_us.histogram()).context("merging latencies")?;
        to_others.add(player.stats.others_us.histogram()).context("merging latencies")?;
        actions += player.stats.actions;
        hands_ended += player.stats.hands;
        games_won += player.stats.games;
        for (code, count) in &player.stats.errors {
            *errors.entry(code.clone()).or_default() += count;
        }
    }
    let (hands_stored, acknowledged_not_stored) = count_stored(&http, &players).await?;
    futures_util::future::join_all(players.into_iter().map(Player::close)).await;

    let per_second =
        |count: u64, seconds: f64| if seconds > 0.0 { count as f64 / seconds } else { 0.0 };
    Ok(Report {
        tables: config.tables,
        players_per_table: config.players,
        tables_per_client: config.tables_per_client,
        connections,
        think_ms: u64::try_from(config.think.mean().as_millis()).unwrap_or(u64::MAX),
        think_distribution: config.think.name(),
        seed: config.seed,
        seconds,
        actions,
        actions_per_second: per_second(actions, seconds),
        hands_ended,
        hands_per_second: per_second(hands_ended, seconds),
        games_won,
        hands_stored,
        stored_within_seconds,
        hands_stored_per_second: per_second(hands_stored, stored_within_seconds),
        latency_ms: Latency::from_micros(&latency),
        to_others_ms: Latency::from_micros(&to_others),
        errors,
        reconnects,
        lost_acknowledged,
        acknowledged_not_stored,
        load_generator_cpu_us_per_action,
        server_cpu_us_per_action,
        watched,
    })
}

/// One group of clients and its tables: the group's first client creates
/// each table, with bots in the seats no client takes, then every client of
/// the group sits, one seat each. A full table starts by itself; nobody acts
/// until the run begins.
async fn set_up_group(
    config: &Config,
    group: usize,
    progress: Arc<Progress>,
) -> anyhow::Result<Vec<Player>> {
    let nodes = urls(&config.url);
    let mut players: Vec<Player> = Vec::with_capacity(usize::from(config.players));
    for seat in 0..config.players {
        let name = format!("lg{group}s{seat}");
        // A seed per seat: a seat's choices do not depend on the order groups are set up in.
        let seed =
            config.seed.wrapping_mul(1_000_003).wrapping_add((group * 4) as u64 + u64::from(seat));
        let index = group * usize::from(config.players) + usize::from(seat);
        let dial = net::Dial {
            source: (config.source_addresses > 0)
                .then(|| net::loopback(1, index % config.source_addresses)),
            receive_buffer: None,
        };
        let url = nodes[index % nodes.len()];
        let player =
            Player::connect(url, &name, seed, config.think, progress.clone(), dial).await?;
        players.push(player.reconnecting_for(config.reconnect_for));
    }
    let first = group * config.tables_per_client;
    for _ in first..config.tables.min(first + config.tables_per_client) {
        let settings = TableSettings {
            bot_seats: (config.players..4).collect(),
            bot: config.bot.clone(),
            chat: false,
            ..TableSettings::default()
        };
        let clock = Arc::new(ActionClock::default());
        let table = players[0].create_table(settings).await?;
        for (seat, player) in (0..).zip(players.iter_mut()) {
            player.sit(&table, seat, seat == 0, clock.clone()).await?;
            if config.follow_hints && nodes.len() > 1 {
                player.follow_hint(&table).await?;
            }
        }
    }
    Ok(players)
}

/// Returns when the run should stop, or with the first client's error, or
/// when nothing has been acknowledged for a long while.
async fn wait_for_stop(
    stop: Stop,
    start: Instant,
    progress: &Progress,
    playing: &mut JoinSet<anyhow::Result<Player>>,
    stall: Duration,
) -> anyhow::Result<()> {
    let mut last_actions = 0;
    let mut last_change = Instant::now();
    loop {
        let done = match stop {
            Stop::After(duration) => start.elapsed() >= duration,
            Stop::Hands(hands) => progress.hands.load(Ordering::Relaxed) >= hands,
        };
        if done {
            return Ok(());
        }
        // A client only finishes early on an error: report it now.
        if let Some(finished) = playing.try_join_next() {
            finished.context("a client task failed")??;
            bail!("a client stopped playing before the end");
        }
        let actions = progress.actions.load(Ordering::Relaxed);
        if actions != last_actions {
            (last_actions, last_change) = (actions, Instant::now());
        } else if last_change.elapsed() > stall {
            bail!("no action acknowledged for {stall:?}: the tables are stuck");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// How long a table's hands may take to reach the history after the
/// writer was seen idle.
const STORED_PATIENCE: Duration = Duration::from_secs(15);

/// Finished hands in the history for every table, checked against the
/// hands each table's host saw end; and the actions acknowledged at each
/// table beyond the actions the history holds there, summed.
async fn count_stored(http: &Http, players: &[Player]) -> anyhow::Result<(u64, u64)> {
    let mut acked: BTreeMap<&str, u64> = BTreeMap::new();
    for place in players.iter().flat_map(|p| &p.places) {
        *acked.entry(&place.table).or_default() += place.acked;
    }
    let acked = &acked;
    let hosts: Vec<(&str, &Place)> = players
        .iter()
        .flat_map(|p| {
            p.places.iter().filter(|place| place.host).map(|place| (&*p.player_id, place))
        })
        .collect();
    let counts: Vec<(http::Stored, &Place)> = stream::iter(hosts)
        .map(|(player_id, host)| async move {
            // The writer waited for was the answering node's: in a cluster
            // the table's own node may still be writing. A while more, then
            // a hand still missing is lost.
            let deadline = Instant::now() + STORED_PATIENCE;
            let acked = acked.get(&*host.table).copied().unwrap_or_default();
            loop {
                let stored = http.stored(player_id, &host.table).await?;
                let all = stored.hands >= host.hands && stored.actions >= acked;
                if all || Instant::now() >= deadline {
                    return anyhow::Ok((stored, host));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
        .buffer_unordered(8)
        .try_collect()
        .await?;
    let (mut total, mut not_stored) = (0, 0);
    for (stored, host) in counts {
        // More is possible: bots may end a hand after the host stopped reading.
        if stored.hands < host.hands {
            bail!(
                "table {}: {} hands ended but the history API has {}",
                host.table,
                host.hands,
                stored.hands
            );
        }
        total += stored.hands;
        let acked = acked.get(&*host.table).copied().unwrap_or_default();
        if stored.actions < acked {
            eprintln!(
                "table {}: {acked} actions acknowledged, {} stored",
                host.table, stored.actions
            );
            not_stored += acked - stored.actions;
        }
    }
    Ok((total, not_stored))
}

/// A CPU time per action for people: one decimal, or a dash when unknown.
fn micros(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |micros| format!("{micros:.1}"))
}

impl Report {
    /// A short table for people.
    pub fn to_text(&self) -> String {
        let (l, o) = (&self.latency_ms, &self.to_others_ms);
        let errors = if self.errors.is_empty() {
            "none".to_owned()
        } else {
            self.errors.iter().map(|(code, n)| format!("{code} {n}")).collect::<Vec<_>>().join(", ")
        };
        let mut text = format!(
            "{tables} tables x {players} clients ({bots} bot seats each, {per} tables a client), think {think} ms ({distribution}), seed {seed}\n\
             played for      {seconds:.2} s\n\
             actions acked   {actions} ({aps:.0}/s)\n\
             hands ended     {hands} ({hps:.1}/s), games won {games}\n\
             hands stored    {stored} (all in the database {within:.2} s after the start: {sps:.1}/s)\n\
             ack latency ms  p50 {p50:.3}  p90 {p90:.3}  p99 {p99:.3}  p99.9 {p999:.3}  max {max:.3}  mean {mean:.3}  (n={n})\n\
             to others ms    p50 {o50:.3}  p90 {o90:.3}  p99 {o99:.3}  p99.9 {o999:.3}  max {omax:.3}  mean {omean:.3}  (n={on})\n\
             errors          {errors}\n\
             reconnects      {reconnects} (tables back older than an ack: {lost}; acked, not stored: {not_stored})\n\
             CPU per action  load generator {own} µs, server {server} µs\n",
            tables = self.tables,
            players = self.players_per_table,
            bots = 4 - self.players_per_table,
            per = self.tables_per_client,
            think = self.think_ms,
            distribution = self.think_distribution,
            seed = self.seed,
            seconds = self.seconds,
            actions = self.actions,
            aps = self.actions_per_second,
            hands = self.hands_ended,
            hps = self.hands_per_second,
            games = self.games_won,
            stored = self.hands_stored,
            within = self.stored_within_seconds,
            sps = self.hands_stored_per_second,
            p50 = l.p50,
            p90 = l.p90,
            p99 = l.p99,
            p999 = l.p999,
            max = l.max,
            mean = l.mean,
            n = l.count,
            o50 = o.p50,
            o90 = o.p90,
            o99 = o.p99,
            o999 = o.p999,
            omax = o.max,
            omean = o.mean,
            on = o.count,
            reconnects = self.reconnects,
            lost = self.lost_acknowledged,
            not_stored = self.acknowledged_not_stored,
            own = micros(self.load_generator_cpu_us_per_action),
            server = micros(self.server_cpu_us_per_action),
        );
        for watched in &self.watched {
            let cpu = micros(watched.cpu_us_per_action);
            text += &format!("                pid {}: {cpu} µs\n", watched.pid);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::urls;

    #[test]
    fn clients_go_round_robin_over_a_list_of_nodes() {
        assert_eq!(urls("ws://a/ws"), ["ws://a/ws"]);
        assert_eq!(urls("ws://a/ws, ws://b/ws,"), ["ws://a/ws", "ws://b/ws"]);
        let nodes = urls("ws://a/ws,ws://b/ws,ws://c/ws");
        let table: Vec<&str> = (4..8).map(|client| nodes[client % nodes.len()]).collect();
        assert_eq!(table, ["ws://b/ws", "ws://c/ws", "ws://a/ws", "ws://b/ws"]);
    }
}
