//! A progressive tournament under load: an account organises it, every
//! load-generator player registers and is started with it; the director
//! seats them round after round, and each player opens its table as the
//! clients do (it learns the table from `GET /api/tournaments/{id}`, which
//! the generator polls for all of them) and plays it to the game's end.
//!
//! It reports how long the director took to seat round one (from the
//! organiser's start to the last player at its table), each round's
//! duration, and the ack latency of play during the rounds. Beside it, on
//! the same server, the same players play ordinary tables (the main mode,
//! [`crate::run`]) for as long as the rounds took: the baseline, so the
//! tournament's p99 reads as a ratio to a figure of the same run.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use euchre_client::HttpClient;
use euchre_engine::Preset;
use euchre_protocol::api::{NewTournament, RoundView, TeamDraw, TournamentFormat};
use futures_util::{StreamExt, TryStreamExt, stream};
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::player::{ActionClock, PATIENCE, Phase, Player, Progress};
use crate::{Config, Latency, Report, Stop, Think, net, samples};

/// Connections opened, and registrations sent, at once.
const SETUP_CONCURRENCY: usize = 32;
/// How often the generator reads the tournament.
const POLL_EVERY: Duration = Duration::from_millis(100);
/// How long play may go without an action acknowledged before the run
/// counts the tournament as stuck.
const STALL: Duration = Duration::from_secs(60);

/// What to run.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// The server's WebSocket URL (tournaments run on one node).
    pub url: String,
    /// Players entered: 4 to 512.
    pub players: usize,
    pub rounds: u32,
    /// Hands a round lasts (1 to 20).
    pub round_hands: u8,
    pub think: Think,
    pub seed: u64,
    /// Spread the connections over this many loopback source addresses.
    pub source_addresses: usize,
    /// Then play the baseline: as many players at ordinary tables for as
    /// long as the rounds took.
    pub baseline: bool,
}

/// What a tournament run measured.
#[derive(Debug, Serialize)]
pub struct TournamentReport {
    pub players: usize,
    pub rounds: u32,
    pub round_hands: u8,
    pub think_ms: u64,
    /// Seconds to connect the players and register them (not timed play).
    pub setup_seconds: f64,
    /// From the organiser's start to the API showing round one's tables.
    pub seated_by_director_seconds: f64,
    /// From the organiser's start to the last player at its table in
    /// round one (its `watch` answered).
    pub seating_seconds: f64,
    /// Each round, from its tables shown to its last result in, as the
    /// generator's polls (every 100 ms) saw them.
    pub round_seconds: Vec<f64>,
    /// Every round's tables ended and the tournament says `finished`.
    pub finished: bool,
    pub status: String,
    pub tables_per_round: usize,
    pub actions: u64,
    pub hands_ended: u64,
    /// Send to `ack` of each action at the tournament's tables.
    pub latency_ms: Latency,
    pub errors: BTreeMap<String, u64>,
    /// The same players at ordinary tables for the rounds' time.
    pub baseline: Option<Report>,
}

/// Where a player sits in a round: table, seat, and whether it counts
/// the table's hands (the first of the generator's players there).
#[derive(Clone, Debug)]
struct SeatAt {
    table: String,
    seat: u8,
    host: bool,
    clock: Arc<ActionClock>,
}

/// Each seated round's seats, by player id.
type Seating = Arc<Vec<HashMap<String, SeatAt>>>;

pub async fn run(config: &TournamentConfig) -> anyhow::Result<TournamentReport> {
    if !(4..=512).contains(&config.players) || config.rounds == 0 {
        bail!("a tournament needs 4 to 512 players and a round");
    }
    let url = crate::urls(&config.url)[0].to_owned();
    let api = HttpClient::new(&url)?.with_timeout(PATIENCE);
    let progress = Arc::new(Progress::default());
    let dial = |index: usize| net::Dial {
        source: (config.source_addresses > 0)
            .then(|| net::loopback(1, index % config.source_addresses)),
        receive_buffer: None,
    };
    let started = Instant::now();

    // The organiser: a guest that claims an account (only accounts
    // organise), under a name no earlier run on this server took.
    let organiser =
        Player::connect(&url, "organiser", config.seed, config.think, progress.clone(), dial(0))
            .await
            .context("the organiser")?;
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis());
    let organiser_token = crate::quick::claim(&url, organiser.token(), &format!("lgo{unique}"))
        .await
        .context("the organiser's claim")?;
    let spec = NewTournament {
        name: format!("load {}", config.players),
        format: TournamentFormat::Progressive,
        preset: Preset::Standard,
        rounds: Some(config.rounds),
        best_of: None,
        round_hands: Some(config.round_hands),
        round_seconds: None,
        teams: TeamDraw::Random,
        starts_in_seconds: 3600,
        max_players: Some(config.players as u32),
        listed: false,
        rated: false,
    };
    let id = api.create_tournament(&organiser_token, &spec).await.context("creating it")?;

    let players: Vec<Player> = stream::iter(0..config.players)
        .map(|index| {
            let (url, api, id, progress) = (&url, &api, &id, progress.clone());
            async move {
                let seed = config.seed.wrapping_mul(1_000_003).wrapping_add(index as u64);
                let player = Player::connect(
                    url,
                    &format!("lgt{index}"),
                    seed,
                    config.think,
                    progress,
                    dial(index + 1),
                )
                .await
                .with_context(|| format!("player {index}"))?;
                api.register(id, player.token())
                    .await
                    .with_context(|| format!("player {index}: registering"))?;
                anyhow::Ok(player.leaving_after_each_game())
            }
        })
        .buffer_unordered(SETUP_CONCURRENCY)
        .try_collect()
        .await?;
    let setup_seconds = started.elapsed().as_secs_f64();

    let (seating_tx, seating_rx) = watch::channel(Seating::default());
    let mut playing = JoinSet::new();
    for player in players {
        playing.spawn(play_rounds(player, config.rounds, seating_rx.clone()));
    }
    let start = Instant::now();
    api.start_tournament(&id, &organiser_token).await.context("starting it")?;

    // Read the tournament until it is over, handing each seated round to
    // the players and noting when each round was seen seated and finished.
    let mut seated_at: Vec<Instant> = Vec::new();
    let mut finished_at: Vec<Instant> = Vec::new();
    let mut seating: Vec<HashMap<String, SeatAt>> = Vec::new();
    let (mut last_actions, mut last_change) = (0, Instant::now());
    let mut done = Vec::with_capacity(config.players);
    let view = loop {
        let view = api.tournament(&id).await.context("reading the tournament")?;
        let now = Instant::now();
        for round in view.round_list.iter().skip(seating.len()) {
            let Some(seats) = round_seats(round) else { break };
            seating.push(seats);
            seated_at.push(now);
        }
        if seating.len() > seating_tx.borrow().len() {
            seating_tx.send_replace(Arc::new(seating.clone()));
        }
        for round in view.round_list.iter().skip(finished_at.len()) {
            if !round.finished {
                break;
            }
            finished_at.push(now);
        }
        if view.status != "registering" && view.status != "running" {
            break view;
        }
        // A player's task ends early on an error, or once its last round is played.
        if let Some(finished) = playing.try_join_next() {
            done.push(finished.context("a player's task failed")??);
        }
        let actions = progress.actions.load(Ordering::Relaxed);
        if actions != last_actions {
            (last_actions, last_change) = (actions, now);
        } else if last_change.elapsed() > STALL {
            let rounds = view.round_list.len();
            bail!(
                "no action acknowledged for {STALL:?}: the tournament is stuck in round {rounds}"
            );
        }
        tokio::time::sleep(POLL_EVERY).await;
    };
    let ended = Instant::now();
    drop(seating_tx);

    let mut players = Vec::with_capacity(config.players);
    let mut opened_first: Option<Instant> = None;
    while let Some(finished) = playing.join_next().await {
        done.push(finished.context("a player's task failed")??);
    }
    for (player, opened) in done {
        if let Some(first) = opened.first() {
            opened_first = Some(opened_first.map_or(*first, |at| at.max(*first)));
        }
        players.push(player);
    }
    let mut latency = samples::histogram()?;
    let mut errors = BTreeMap::new();
    let (mut actions, mut hands_ended) = (0, 0);
    for player in &mut players {
        latency.add(player.stats.latency_us.histogram()).context("merging latencies")?;
        actions += player.stats.actions;
        hands_ended += player.stats.hands;
        for (code, count) in &player.stats.errors {
            *errors.entry(code.clone()).or_default() += count;
        }
    }
    futures_util::future::join_all(players.into_iter().map(Player::close)).await;
    organiser.close().await;

    let round_seconds: Vec<f64> = seated_at
        .iter()
        .zip(&finished_at)
        .map(|(seated, finished)| (finished.saturating_duration_since(*seated)).as_secs_f64())
        .collect();
    let finished = view.status == "finished"
        && view.round_list.len() == config.rounds as usize
        && view.round_list.iter().all(|round| round.finished);
    let played = seated_at.first().map_or(Duration::ZERO, |first| ended - *first);
    let baseline = if config.baseline && finished {
        Some(crate::run(&baseline_config(config, &url, played)).await.context("the baseline")?)
    } else {
        None
    };
    let since_start = |at: Option<&Instant>| at.map_or(0.0, |at| (*at - start).as_secs_f64());
    Ok(TournamentReport {
        players: config.players,
        rounds: config.rounds,
        round_hands: config.round_hands,
        think_ms: u64::try_from(config.think.mean().as_millis()).unwrap_or(u64::MAX),
        setup_seconds,
        seated_by_director_seconds: since_start(seated_at.first()),
        seating_seconds: since_start(opened_first.as_ref()),
        round_seconds,
        finished,
        status: view.status.clone(),
        tables_per_round: view.round_list.first().map_or(0, |round| round.tables.len()),
        actions,
        hands_ended,
        latency_ms: Latency::from_micros(&latency),
        errors,
        baseline,
    })
}

/// The baseline: the tournament's players, four to a table, at ordinary
/// tables for as long as the rounds took.
fn baseline_config(config: &TournamentConfig, url: &str, played: Duration) -> Config {
    Config {
        url: url.to_owned(),
        http: None,
        tables: config.players.div_ceil(4),
        players: 4,
        tables_per_client: 1,
        bot: "basic".to_owned(),
        stop: Stop::After(played.max(Duration::from_secs(1))),
        think: config.think,
        seed: config.seed,
        store_timeout: Duration::from_secs(60),
        source_addresses: config.source_addresses,
        server_pid: None,
        watch_pids: Vec::new(),
        follow_hints: false,
        reconnect_for: None,
    }
}

/// A round's seats by player id, once every table of it has its id; the
/// first of the generator's players at each table counts its hands.
fn round_seats(round: &RoundView) -> Option<HashMap<String, SeatAt>> {
    let mut seats = HashMap::new();
    for table in &round.tables {
        let id = table.table.as_ref()?;
        let clock = Arc::new(ActionClock::default());
        let mut host = true;
        for (seat, at) in (0u8..).zip(&table.seats) {
            let Some(player) = at.player_id.as_ref().filter(|_| !at.bot) else { continue };
            let seat_at = SeatAt { table: id.clone(), seat, host, clock: clock.clone() };
            seats.insert(player.clone(), seat_at);
            host = false;
        }
    }
    Some(seats)
}

/// One player's tournament: each round it waits (reading, so its pings
/// are answered) until the round is seated, opens its table and plays
/// the game there to its end; a round it is not seated in (resting, or a
/// bot standing in) it skips. Returns itself and when it had each table
/// open.
async fn play_rounds(
    mut player: Player,
    rounds: u32,
    mut seating: watch::Receiver<Seating>,
) -> anyhow::Result<(Player, Vec<Instant>)> {
    let (_phase, phase_rx) = watch::channel(Phase::Run);
    let mut opened = Vec::new();
    for round in 0..rounds as usize {
        let seated = player
            .idle_until(seating.wait_for(|rounds| rounds.len() > round))
            .await?
            .map(|rounds| rounds[round].get(&player.player_id).cloned());
        // The sender is gone: the tournament ended (or the run failed) first.
        let Ok(seat_at) = seated else { break };
        let Some(SeatAt { table, seat, host, clock }) = seat_at else { continue };
        player.open(&table, seat, host, clock).await?;
        opened.push(Instant::now());
        player = player.play(phase_rx.clone()).await?;
    }
    Ok((player, opened))
}

impl TournamentReport {
    /// A short table for people.
    pub fn to_text(&self) -> String {
        let l = &self.latency_ms;
        let errors = |errors: &BTreeMap<String, u64>| {
            if errors.is_empty() {
                "none".to_owned()
            } else {
                errors.iter().map(|(code, n)| format!("{code} {n}")).collect::<Vec<_>>().join(", ")
            }
        };
        let rounds: Vec<String> = self.round_seconds.iter().map(|s| format!("{s:.2} s")).collect();
        let mut text = format!(
            "tournament: {players} players, {rounds} rounds of {hands} hands ({tables} tables a round), think {think} ms; set up in {setup:.1} s\n\
             seating         round one shown {shown:.2} s after the start, last player at its table {seated:.2} s\n\
             rounds          {durations}\n\
             finished        {finished} ({status})\n\
             actions acked   {actions}, hands ended {hands_ended}\n\
             ack latency ms  p50 {p50:.3}  p90 {p90:.3}  p99 {p99:.3}  p99.9 {p999:.3}  max {max:.3}  (n={n})\n\
             errors          {errors}\n",
            players = self.players,
            rounds = self.rounds,
            hands = self.round_hands,
            tables = self.tables_per_round,
            think = self.think_ms,
            setup = self.setup_seconds,
            shown = self.seated_by_director_seconds,
            seated = self.seating_seconds,
            durations = rounds.join(", "),
            finished = if self.finished { "yes" } else { "no" },
            status = self.status,
            actions = self.actions,
            hands_ended = self.hands_ended,
            p50 = l.p50,
            p90 = l.p90,
            p99 = l.p99,
            p999 = l.p999,
            max = l.max,
            n = l.count,
            errors = errors(&self.errors),
        );
        if let Some(baseline) = &self.baseline {
            let b = &baseline.latency_ms;
            let ratio =
                |t: f64, b: f64| if b > 0.0 { format!("{:.2}x", t / b) } else { "-".into() };
            text += &format!(
                "baseline        {tables} ordinary tables for {seconds:.2} s: ack p50 {p50:.3}  p99 {p99:.3} ms (n={n}), errors {errors}\n\
                 tournament/baseline ack p50 {r50}, p99 {r99}\n",
                tables = baseline.tables,
                seconds = baseline.seconds,
                p50 = b.p50,
                p99 = b.p99,
                n = b.count,
                errors = errors(&baseline.errors),
                r50 = ratio(l.p50, b.p50),
                r99 = ratio(l.p99, b.p99),
            );
        }
        text
    }
}
