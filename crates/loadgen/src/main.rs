//! `euchre-loadgen`: plays many tables against a running server and reports
//! acknowledgement latency, throughput and hands stored.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use euchre_engine::Preset;
use euchre_loadgen::{Config, Stop, Think, abuse, echo, idle, quick, run, tournament};

/// Plays many tables against a running Euchre server, timing every action.
///
/// The server should run with limits fit for one address opening many
/// connections that act flat out, and with bots that do not pause, e.g.
/// EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS=100000 EUCHRE_LIMITS__MESSAGES_PER_SECOND=100000
/// EUCHRE_LIMITS__MESSAGE_BURST=100000 EUCHRE_LIMITS__GUESTS_PER_MINUTE=0
/// EUCHRE_TIMING__BOT_DELAY_MS=0.
#[derive(Debug, Parser)]
#[command(name = "euchre-loadgen", version)]
struct Flags {
    /// The server's WebSocket URL. Several (the nodes of a cluster), as
    /// more arguments or comma-separated: the clients go round-robin over
    /// them, so the players of one table sit on different nodes.
    #[arg(default_value = "ws://127.0.0.1:8080/ws", num_args = 1.., value_delimiter = ',')]
    url: Vec<String>,
    /// The server's HTTP base, for /readyz and the history API (default: from the URL).
    #[arg(long)]
    http: Option<String>,
    /// Tables to play at once.
    #[arg(long, default_value_t = 10)]
    tables: usize,
    /// Clients per table (1 to 4, one connection each); bots take the other seats.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=4))]
    players: u8,
    /// Tables each client sits at, one seat each (a person playing several
    /// tables at once): more tables than sockets one process may hold.
    #[arg(long, default_value_t = 1)]
    tables_per_client: usize,
    /// The bots' kind: basic or random.
    #[arg(long, default_value = "basic")]
    bot: String,
    /// Seconds to play.
    #[arg(long, default_value_t = 10.0, conflicts_with = "hands")]
    duration: f64,
    /// Stop once this many hands have ended, instead of after a duration.
    #[arg(long)]
    hands: Option<u64>,
    /// Milliseconds each client waits before acting (0: flat out); with
    /// --think-exponential, the mean of an exponential distribution.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Draw each think time from an exponential distribution (people's
    /// pauses vary), instead of the same time every turn (tables in waves).
    #[arg(long)]
    think_exponential: bool,
    /// Seed for the clients' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds the database may take to catch up once play stops.
    #[arg(long, default_value_t = 60.0)]
    store_timeout: f64,
    /// Also write the report as JSON to this file ("-" for standard output).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Instead of playing: open this many identified connections that only
    /// stay open, hold them for --duration seconds, and report what they
    /// cost the server (with --server-pid).
    #[arg(long)]
    idle: Option<usize>,
    /// The server's process id, to read its memory and CPU time from /proc;
    /// with --idle, several (a cluster's nodes, repeated or comma-separated)
    /// are summed.
    #[arg(long, value_delimiter = ',')]
    server_pid: Vec<u32>,
    /// Playing: other processes (a cluster's nodes, its NATS server;
    /// repeated or comma-separated) whose CPU time per action over the play
    /// alone is reported each.
    #[arg(long, value_delimiter = ',')]
    watch_pid: Vec<u32>,
    /// Instead of playing: time round trips through a bare echo server at
    /// the URL (see --serve-echo) over tables x players connections, flat
    /// out for --duration seconds: the yardstick for flat-out play.
    #[arg(long)]
    echo: bool,
    /// Instead of playing: relay through the echo server's `/relay` at the
    /// URL (`ws://host:port/relay`), --tables groups of --players
    /// connections taking turns to send a frame every member reads, flat out
    /// for --duration seconds: the yardstick with a table's fan-out. The
    /// same through `/durable` is the durable relay (see --echo-journal).
    #[arg(long, conflicts_with = "echo")]
    relay: bool,
    /// Run only the echo server, on this address, until stopped.
    #[arg(long, value_name = "ADDRESS")]
    serve_echo: Option<std::net::SocketAddr>,
    /// With --serve-echo: keep the durable relay's journal in this folder,
    /// which serves `/durable` (the relay through a task per group and the
    /// game server's journal; its clients are --relay's).
    #[arg(long, value_name = "DIR", requires = "serve_echo")]
    echo_journal: Option<PathBuf>,
    /// Spread the playing clients over this many loopback addresses
    /// (127.1.x.y; the server must listen on loopback), so the server keeps
    /// its default per-address connection limit.
    #[arg(long, default_value_t = 0)]
    source_addresses: usize,
    /// In a cluster: a client told that its table lives on another node
    /// (`table_elsewhere`) stays where it is, its table's messages crossing
    /// between nodes, instead of reconnecting there as real clients do.
    #[arg(long)]
    stay: bool,
    /// A client that loses its connection (the server restarted, a node
    /// killed) comes back with its token for up to this many seconds and
    /// plays on; the report then counts the actions acknowledged that the
    /// history lacks. 0: a lost connection fails the run.
    #[arg(long, default_value_t = 0.0)]
    reconnect_for: f64,
    /// Abusive clients to run beside the tables, each from its own loopback
    /// address (127.2.0.N): flooder, oversized, hog, slow_reader (comma
    /// separated), all, or none (the baseline, reported the same way).
    #[arg(long, value_name = "LIST")]
    abuse: Option<String>,
    /// Messages a second the flooder sends.
    #[arg(long, default_value_t = 5000)]
    flood_rate: u32,
    /// Busy tables the slow reader watches.
    #[arg(long, default_value_t = 50)]
    slow_watches: usize,
    /// Instead of playing: quick play at scale. --arrivals players, connected
    /// first, ask for a game at --rate a second, round-robin over
    /// --forms, and are timed from asking to seated.
    #[arg(long)]
    quick_play: bool,
    /// Quick play: players in all.
    #[arg(long, default_value_t = 1000)]
    arrivals: usize,
    /// Quick play: arrivals a second.
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
    /// Quick play: the forms asked for (comma-separated preset names).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "standard,cutthroat,three_handed,two_handed_plain"
    )]
    forms: Vec<String>,
    /// Quick play: rated requests (casual by default). Only accounts are
    /// rated, so each player first claims its name (a password hash each,
    /// before the run); the server must let new accounts play rated
    /// (`EUCHRE_RATINGS__MIN_ACCOUNT_AGE_SECONDS=0`, `…MIN_GAMES=0`).
    #[arg(long)]
    rated: bool,
    /// Quick play: the spread (standard deviation) of the players' ratings
    /// around 1500, written into --database-url before they ask; 0 leaves
    /// every player new.
    #[arg(long, default_value_t = 0.0)]
    rating_spread: f64,
    /// Quick play: the server's database, for --rating-spread.
    #[arg(long)]
    database_url: Option<String>,
    /// Quick play: seconds a player may wait before the run gives up on it.
    #[arg(long, default_value_t = 120.0)]
    patience: f64,
    /// Instead of playing: a progressive tournament of this many players
    /// (4 to 512), organised by an account the run claims; each player
    /// opens the table the director seats it at and plays it out. Then,
    /// as the baseline, as many players at ordinary tables for as long as
    /// the rounds took (--think-ms and --source-addresses apply to both).
    #[arg(long)]
    tournament_players: Option<usize>,
    /// Tournament: rounds.
    #[arg(long, default_value_t = 2)]
    tournament_rounds: u32,
    /// Tournament: hands a round lasts (1 to 20).
    #[arg(long, default_value_t = 2)]
    round_hands: u8,
    /// Tournament: no baseline afterwards.
    #[arg(long)]
    no_baseline: bool,
    /// Seconds the slow reader reads nothing before it looks at what it got
    /// (and how the server ended it), then starts again.
    #[arg(long, default_value_t = 20.0)]
    slow_hold: f64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let flags = Flags::parse();
    let url = flags.url.join(",");
    let server_pid = flags.server_pid.first().copied();
    if let Some(address) = flags.serve_echo {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("binding {address}"))?;
        return echo::serve(listener, flags.echo_journal.as_deref()).await;
    }
    if flags.echo {
        let connections = flags.tables * usize::from(flags.players);
        let duration = seconds(flags.duration, "--duration")?;
        let report = echo::run(&url, connections, duration, server_pid).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    if flags.relay {
        let duration = seconds(flags.duration, "--duration")?;
        let members = usize::from(flags.players);
        let report = echo::run_relay(&url, flags.tables, members, duration, server_pid).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    if flags.quick_play {
        let forms = flags
            .forms
            .iter()
            .map(|name| {
                Preset::from_name(name).with_context(|| format!("--forms: no preset {name:?}"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let config = quick::QuickConfig {
            url,
            forms,
            rated: flags.rated,
            rate: flags.rate,
            arrivals: flags.arrivals,
            patience: seconds(flags.patience, "--patience")?,
            rating_spread: flags.rating_spread,
            database_url: flags.database_url,
            seed: flags.seed,
            source_addresses: flags.source_addresses,
            server_pid,
        };
        let report = quick::run(&config).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    let think = if flags.think_exponential {
        Think::Exponential(Duration::from_millis(flags.think_ms))
    } else {
        Think::Fixed(Duration::from_millis(flags.think_ms))
    };
    if let Some(players) = flags.tournament_players {
        let config = tournament::TournamentConfig {
            url,
            players,
            rounds: flags.tournament_rounds,
            round_hands: flags.round_hands,
            think,
            seed: flags.seed,
            source_addresses: flags.source_addresses,
            baseline: !flags.no_baseline,
        };
        let report = tournament::run(&config).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    if let Some(connections) = flags.idle {
        let duration = seconds(flags.duration, "--duration")?;
        let report = idle::hold(&url, connections, duration, &flags.server_pid).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    let stop = match flags.hands {
        Some(hands) => Stop::Hands(hands),
        None => Stop::After(seconds(flags.duration, "--duration")?),
    };
    let config = Config {
        url,
        http: flags.http,
        tables: flags.tables,
        players: flags.players,
        tables_per_client: flags.tables_per_client,
        bot: flags.bot,
        stop,
        think,
        seed: flags.seed,
        store_timeout: seconds(flags.store_timeout, "--store-timeout")?,
        source_addresses: flags.source_addresses,
        server_pid,
        watch_pids: flags.watch_pid,
        follow_hints: !flags.stay,
        reconnect_for: (flags.reconnect_for > 0.0)
            .then(|| seconds(flags.reconnect_for, "--reconnect-for"))
            .transpose()?,
    };
    if let Some(list) = flags.abuse {
        let abuse = abuse::AbuseConfig {
            url: euchre_loadgen::urls(&config.url)[0].to_owned(),
            abusers: abuse::Abuser::parse_list(&list)?,
            own_addresses: true,
            flood_rate: flags.flood_rate,
            slow_watches: flags.slow_watches,
            slow_hold: seconds(flags.slow_hold, "--slow-hold")?,
        };
        let report = abuse::run_beside(&config, abuse, server_pid).await?;
        print!("{}", report.to_text());
        return write_json(flags.json, &report);
    }
    let report = run(&config).await?;
    print!("{}", report.to_text());
    write_json(flags.json, &report)
}

/// Writes the report as JSON to `path` ("-" for standard output), if given.
fn write_json(path: Option<PathBuf>, report: &impl serde::Serialize) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    let json = serde_json::to_string_pretty(report).context("serializing the report")?;
    if path.as_os_str() == "-" {
        println!("{json}");
    } else {
        std::fs::write(&path, json + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn seconds(value: f64, flag: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value).with_context(|| format!("{flag} {value}: not a duration"))
}
