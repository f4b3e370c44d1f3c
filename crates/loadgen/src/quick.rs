//! Quick play at scale: players arriving at a steady rate, spread over a
//! few game forms, each asking for a game with strangers and timed from
//! its `quick_play` to its `quick_play_matched`.
//!
//! Every player is connected and identified before the clock starts (the
//! measure is the matcher's, not the handshake's); the arrivals then ask
//! at `rate` a second, round-robin over the forms, and stay seated and
//! idle once matched (a table whose players do not act costs the server
//! nothing but memory, so the matcher is what is measured). The generator
//! counts its own players waiting (asked, not matched yet) four times a
//! second: by Little's law the pools hold about `rate` × the mean wait.
//!
//! With `--rating-spread` the players' ratings are spread (a normal
//! distribution around 1500), written straight into the server's database
//! before they ask, so the matcher's range has to widen for some of them:
//! that part of a wait is the policy's, and the report gives it apart. For
//! each table formed the generator knows its players' ratings and when
//! each asked, and works out with the server's own [`Policy`] when the
//! last of their ranges grew wide enough to hold them all. Each player's
//! wait is then split in three: until the last of the table's players
//! asked (nobody to play with yet), from then until the ranges allowed the
//! table (the policy's wait), and the rest (the wave's timing, making the
//! table, and the message's way back: the server's own latency).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use euchre_client::Session;
use euchre_engine::Preset;
use euchre_matcher::Policy;
use euchre_protocol::{ClientMessage, QuickPlayRequest, Reply, ServerMessage};
use futures_util::{StreamExt, stream};
use hdrhistogram::Histogram;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::Latency;
use crate::net::{Dial, loopback};
use crate::player::PATIENCE;
use crate::process::ProcessSample;

/// Connections opened at once before the run.
const CONNECT_CONCURRENCY: usize = 64;
/// How often the generator counts its players waiting.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// What to run.
#[derive(Clone, Debug)]
pub struct QuickConfig {
    pub url: String,
    /// The forms asked for, round-robin.
    pub forms: Vec<Preset>,
    pub rated: bool,
    /// Arrivals a second, over all forms.
    pub rate: f64,
    /// Players in all: the run lasts `arrivals / rate` seconds, plus the
    /// time the last ones wait.
    pub arrivals: usize,
    /// How long a player may wait before the run gives up on it.
    pub patience: Duration,
    /// The standard deviation of the players' ratings around 1500 (0: every
    /// player new, rated 1500 with the starting deviation).
    pub rating_spread: f64,
    /// The server's database, to write the spread ratings into.
    pub database_url: Option<String>,
    pub seed: u64,
    /// Spread the connections over this many loopback source addresses.
    pub source_addresses: usize,
    pub server_pid: Option<u32>,
}

/// What a quick-play run measured.
#[derive(Debug, Serialize)]
pub struct QuickReport {
    pub arrivals: usize,
    pub rate_per_second: f64,
    pub forms: Vec<String>,
    pub rated: bool,
    pub rating_spread: f64,
    /// Seconds to open and identify every connection (not part of the run).
    pub connect_seconds: f64,
    /// From the first arrival to the last match (or the end of patience).
    pub seconds: f64,
    pub matched: u64,
    /// Still waiting when the run ended.
    pub unmatched: u64,
    /// Refused requests, by error code.
    pub refused: HashMap<String, u64>,
    /// The generator's players waiting (asked, not matched): the most at
    /// once, and the mean over the middle half of the arrivals (the
    /// steady state, past the ramp up and before the last arrivals).
    pub waiting_peak: u64,
    pub waiting_mean_steady: f64,
    /// From `quick_play` to `quick_play_matched`, in milliseconds.
    pub seated_ms: Latency,
    /// The same for each form.
    pub seated_ms_by_form: Vec<(String, Latency)>,
    /// The three parts of each matched player's wait (see the module):
    /// until the last of its table's players asked, then until the
    /// policy's ranges held them all, then the server's own part.
    pub others_arriving_ms: Latency,
    pub policy_ms: Latency,
    pub server_ms: Latency,
    /// The server's CPU time from the first ask to the end of the run (the
    /// last match, or the end of patience): the waves, making the tables,
    /// the messages; not the connections' set-up before.
    pub server_cpu_seconds: Option<f64>,
}

impl QuickReport {
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "quick play: {} arrivals at {:.0}/s over {} ({}), rating spread {:.0}; connected in {:.1} s\n",
            self.arrivals,
            self.rate_per_second,
            self.forms.join(", "),
            if self.rated { "rated" } else { "casual" },
            self.rating_spread,
            self.connect_seconds,
        );
        text += &format!(
            "{} matched, {} unmatched in {:.1} s; refused: {:?}\n",
            self.matched, self.unmatched, self.seconds, self.refused
        );
        text += &format!(
            "waiting: peak {}, mean {:.0} in the steady half\n",
            self.waiting_peak, self.waiting_mean_steady
        );
        let line = |name: &str, l: &Latency| {
            format!(
                "{name}: p50 {:.0} ms, p90 {:.0}, p99 {:.0}, max {:.0} (n {})\n",
                l.p50, l.p90, l.p99, l.max, l.count
            )
        };
        text += &line("asked to seated", &self.seated_ms);
        for (form, latency) in &self.seated_ms_by_form {
            text += &line(&format!("  {form}"), latency);
        }
        text += &line("  of which: until the table's last player asked", &self.others_arriving_ms);
        text += &line("  of which: the policy (ranges widening)", &self.policy_ms);
        text += &line("  of which: the server (waves, the table, delivery)", &self.server_ms);
        if let Some(cpu) = self.server_cpu_seconds {
            text += &format!("server CPU from the first ask to the end: {cpu:.2} s\n");
        }
        text
    }
}

/// One player's request, as it went.
#[derive(Clone, Debug)]
struct Outcome {
    form: usize,
    asked: Instant,
    matched: Option<Instant>,
    /// The table it was matched to.
    table: Option<String>,
    refused: Option<String>,
    /// The rating and deviation the server matched it with.
    rating: (f64, f64),
}

/// The rating and deviation of a player the server has no rating for.
const UNRATED: (f64, f64) = (1500.0, 350.0);

pub async fn run(config: &QuickConfig) -> anyhow::Result<QuickReport> {
    if config.forms.is_empty() || config.arrivals == 0 || config.rate <= 0.0 {
        bail!("quick play needs forms, arrivals and a positive rate");
    }
    let urls = crate::urls(&config.url);
    let started = Instant::now();
    let sessions: Vec<(Session, String)> = stream::iter(0..config.arrivals)
        .map(|index| {
            let url = urls[index % urls.len()].to_owned();
            let source =
                (config.source_addresses > 0).then(|| loopback(1, index % config.source_addresses));
            identified(url, index, source, config.rated)
        })
        .buffered(CONNECT_CONCURRENCY)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    let connect_seconds = started.elapsed().as_secs_f64();
    let mut ratings = vec![UNRATED; sessions.len()];
    if config.rated && config.rating_spread > 0.0 {
        let players: Vec<(&str, Preset)> = sessions
            .iter()
            .enumerate()
            .map(|(index, (_, id))| (id.as_str(), config.forms[index % config.forms.len()]))
            .collect();
        ratings = seed_ratings(config, &players).await?;
    }

    let waiting = Arc::new(AtomicU64::new(0));
    let (stop_tx, stop_rx) = watch::channel(false);
    let begin = Instant::now() + Duration::from_millis(200);
    let before = config.server_pid.map(ProcessSample::read).transpose()?;
    let mut players = JoinSet::new();
    for (index, (session, _)) in sessions.into_iter().enumerate() {
        let form = index % config.forms.len();
        let request = QuickPlayRequest::new(config.forms[form], config.rated);
        let at = begin + Duration::from_secs_f64(index as f64 / config.rate);
        let waiting = Arc::clone(&waiting);
        let stop = stop_rx.clone();
        let rating = ratings[index];
        players.spawn(ask_and_wait(session, request, form, rating, at, waiting, stop));
    }
    // Count the waiting until every player is matched or out of patience.
    let arrivals_end = begin + Duration::from_secs_f64(config.arrivals as f64 / config.rate);
    let steady = (begin + (arrivals_end - begin) / 4, begin + (arrivals_end - begin) * 3 / 4);
    let deadline = arrivals_end + config.patience;
    tokio::time::sleep_until(begin.into()).await;
    let (mut peak, mut steady_sum, mut steady_samples) = (0, 0u64, 0u64);
    loop {
        tokio::time::sleep(SAMPLE_EVERY).await;
        let now = Instant::now();
        let count = waiting.load(Ordering::Relaxed);
        peak = peak.max(count);
        if (steady.0..steady.1).contains(&now) {
            steady_sum += count;
            steady_samples += 1;
        }
        if (now >= arrivals_end && count == 0) || now >= deadline {
            break;
        }
    }
    let seconds = begin.elapsed().as_secs_f64();
    let after = config.server_pid.map(ProcessSample::read).transpose()?;
    let _ = stop_tx.send(true);
    let mut outcomes = Vec::with_capacity(config.arrivals);
    while let Some(joined) = players.join_next().await {
        outcomes.push(joined.context("a player's task failed")??);
    }
    let server_cpu_seconds = match (before, after) {
        (Some(from), Some(to)) => Some(to.cpu_seconds - from.cpu_seconds),
        _ => None,
    };
    Ok(report(
        config,
        &outcomes,
        connect_seconds,
        seconds,
        peak,
        steady_sum,
        steady_samples,
        server_cpu_seconds,
    ))
}

#[allow(clippy::too_many_arguments)]
fn report(
    config: &QuickConfig,
    outcomes: &[Outcome],
    connect_seconds: f64,
    seconds: f64,
    waiting_peak: u64,
    steady_sum: u64,
    steady_samples: u64,
    server_cpu_seconds: Option<f64>,
) -> QuickReport {
    let histogram =
        || Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds");
    let mut all = histogram();
    let mut by_form: Vec<Histogram<u64>> = config.forms.iter().map(|_| histogram()).collect();
    let mut refused = HashMap::new();
    let mut unmatched = 0;
    let (mut others, mut policy, mut server) = (histogram(), histogram(), histogram());
    for (_, players) in tables(outcomes) {
        let Some(parts) = wait_parts(&players, &Policy::default()) else { continue };
        for (arrive, policy_wait, rest) in parts {
            let _ = others.record(arrive.as_micros() as u64);
            let _ = policy.record(policy_wait.as_micros() as u64);
            let _ = server.record(rest.as_micros() as u64);
        }
    }
    for outcome in outcomes {
        match (outcome.matched, &outcome.refused) {
            (Some(matched), _) => {
                let micros = (matched - outcome.asked).as_micros() as u64;
                let _ = all.record(micros.max(1));
                let _ = by_form[outcome.form].record(micros.max(1));
            }
            (None, Some(code)) => *refused.entry(code.clone()).or_insert(0) += 1,
            (None, None) => unmatched += 1,
        }
    }
    QuickReport {
        arrivals: config.arrivals,
        rate_per_second: config.rate,
        forms: config.forms.iter().map(|form| form.name().to_owned()).collect(),
        rated: config.rated,
        rating_spread: config.rating_spread,
        connect_seconds,
        seconds,
        matched: all.len(),
        unmatched,
        refused,
        waiting_peak,
        waiting_mean_steady: if steady_samples == 0 {
            0.0
        } else {
            steady_sum as f64 / steady_samples as f64
        },
        seated_ms: Latency::from_micros(&all),
        seated_ms_by_form: config
            .forms
            .iter()
            .zip(&by_form)
            .map(|(form, histogram)| (form.name().to_owned(), Latency::from_micros(histogram)))
            .collect(),
        others_arriving_ms: Latency::from_micros(&others),
        policy_ms: Latency::from_micros(&policy),
        server_ms: Latency::from_micros(&server),
        server_cpu_seconds,
    }
}

/// The matched players, by the table they were matched to.
fn tables(outcomes: &[Outcome]) -> HashMap<&str, Vec<&Outcome>> {
    let mut tables: HashMap<&str, Vec<&Outcome>> = HashMap::new();
    for outcome in outcomes {
        if let (Some(table), Some(_)) = (&outcome.table, outcome.matched) {
            tables.entry(table.as_str()).or_default().push(outcome);
        }
    }
    tables
}

/// Each player's wait at one table, in three parts: until the table's last
/// player asked; from then until every player's range (as `policy` widens
/// it with the wait) held the table's spread of ratings; and the rest, to
/// the match. `None` if a player of the table is not matched.
fn wait_parts(
    players: &[&Outcome],
    policy: &Policy,
) -> Option<Vec<(Duration, Duration, Duration)>> {
    let last_asked = players.iter().map(|p| p.asked).max()?;
    let low = players.iter().map(|p| p.rating.0).fold(f64::INFINITY, f64::min);
    let high = players.iter().map(|p| p.rating.0).fold(f64::NEG_INFINITY, f64::max);
    let spread = high - low;
    // When each player's range reaches the spread: range = base + per
    // deviation × deviation + per second × wait.
    let mut allowed = last_asked;
    for player in players {
        let short = spread - policy.base_range - policy.per_deviation * player.rating.1;
        if short > 0.0 {
            let widened = player.asked + Duration::from_secs_f64(short / policy.per_second);
            allowed = allowed.max(widened);
        }
    }
    players
        .iter()
        .map(|player| {
            let matched = player.matched?;
            let allowed = allowed.min(matched);
            Some((
                last_asked.saturating_duration_since(player.asked),
                allowed.saturating_duration_since(last_asked),
                matched.saturating_duration_since(allowed),
            ))
        })
        .collect()
}

/// One player: asks at `at`, waits for its match, then stays seated (and
/// idle, answering pings) until the run stops.
async fn ask_and_wait(
    mut session: Session,
    request: QuickPlayRequest,
    form: usize,
    rating: (f64, f64),
    at: Instant,
    waiting: Arc<AtomicU64>,
    mut stop: watch::Receiver<bool>,
) -> anyhow::Result<Outcome> {
    tokio::time::sleep_until(at.into()).await;
    let id = session.next_id();
    waiting.fetch_add(1, Ordering::Relaxed);
    let asked = session.send(&ClientMessage::QuickPlay { id, request }).await?;
    let mut outcome = Outcome { form, asked, matched: None, table: None, refused: None, rating };
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            received = session.recv() => {
                let received = received.context("a waiting player's connection")?;
                match received.message {
                    ServerMessage::QuickPlayMatched { table, .. } if outcome.matched.is_none() => {
                        outcome.matched = Some(received.at);
                        outcome.table = Some(table);
                        waiting.fetch_sub(1, Ordering::Relaxed);
                    }
                    ServerMessage::Error { id: Some(answered), code, .. } if answered == id => {
                        outcome.refused = Some(code);
                        waiting.fetch_sub(1, Ordering::Relaxed);
                    }
                    ServerMessage::QuickPlayEnded { reason, .. } if outcome.matched.is_none() => {
                        outcome.refused = Some(format!("ended: {reason:?}"));
                        waiting.fetch_sub(1, Ordering::Relaxed);
                    }
                    ServerMessage::Ack { reply: Reply::Queued { .. }, .. } => {}
                    _ => {}
                }
            }
        }
    }
    session.close(PATIENCE).await;
    Ok(outcome)
}

/// A connection that has said `hello` as a new guest: its session and
/// player id. For rated play (only accounts are rated) the guest then
/// claims its name, and goes on as the account on the same connection.
async fn identified(
    url: String,
    index: usize,
    source: Option<std::net::IpAddr>,
    account: bool,
) -> anyhow::Result<(Session, String)> {
    let name = format!("quick{index}");
    let attempt = async {
        let socket = crate::net::connect(&url, Dial { source, receive_buffer: None })
            .await
            .with_context(|| format!("connection {index}"))?;
        let mut session = Session::over(socket);
        let identity = session
            .hello(&name, None)
            .await
            .with_context(|| format!("connection {index}: hello"))?;
        anyhow::Ok((session, identity))
    };
    let (session, identity) = tokio::time::timeout(PATIENCE, attempt)
        .await
        .with_context(|| format!("connection {index}: no welcome in time"))??;
    if account {
        claim(&url, &identity.token, &name).await.with_context(|| format!("{name}: a claim"))?;
    }
    Ok((session, identity.player.id))
}

/// Claims `name` for the guest with `token`: a password hash each, which
/// the server may answer `busy` (or `rate_limited`) while its hashing
/// threads are full: then again, after the wait it asks for. The answer is
/// the account's new session token.
pub(crate) async fn claim(url: &str, token: &str, name: &str) -> anyhow::Result<String> {
    let api = euchre_client::HttpClient::new(url)?.with_timeout(PATIENCE);
    let deadline = Instant::now() + 10 * PATIENCE;
    loop {
        match api.claim(token, name, "load generator password").await {
            Ok(token) => return Ok(token),
            Err(euchre_client::HttpError::Refused { status: 503 | 429, retry_after, .. })
                if Instant::now() < deadline =>
            {
                let wait = retry_after.unwrap_or(Duration::from_millis(200));
                tokio::time::sleep(wait).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// Writes each player's rating in its form straight into the server's
/// database, as if it had played: drawn from a normal distribution around
/// 1500 with `rating_spread` as its standard deviation, and an established
/// player's deviation (60), so the matcher's range is narrow to start with.
/// Each is one "seed" match of its own, which the history never lists (it
/// has no match row).
async fn seed_ratings(
    config: &QuickConfig,
    players: &[(&str, Preset)],
) -> anyhow::Result<Vec<(f64, f64)>> {
    let url = config
        .database_url
        .as_deref()
        .context("--rating-spread needs --database-url: the ratings are written there")?;
    let store = euchre_store::connect(url).await.with_context(|| format!("opening {url}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64);
    let mut seeded = Vec::with_capacity(players.len());
    for (player, preset) in players {
        let rating = 1500.0 + config.rating_spread * standard_normal(&mut rng);
        let glicko = euchre_store::Glicko { rating, deviation: SEEDED_DEVIATION, volatility: 0.06 };
        seeded.push((rating, SEEDED_DEVIATION));
        let rated = euchre_store::RatedMatch {
            match_id: format!("loadgen-seed-{player}"),
            form: preset.rules().form().name().to_owned(),
            players: vec![(*player).to_owned()],
            at,
        };
        store
            .rate_match(&rated, &|_| vec![glicko])
            .await
            .with_context(|| format!("seeding the rating of {player}"))?;
    }
    Ok(seeded)
}

/// The deviation of a seeded rating: a player with many games behind them.
const SEEDED_DEVIATION: f64 = 60.0;

/// A draw from the standard normal distribution (Box and Muller).
fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random::<f64>();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(asked: Instant, rating: f64, matched: Instant) -> Outcome {
        Outcome {
            form: 0,
            asked,
            matched: Some(matched),
            table: Some("t".into()),
            refused: None,
            rating: (rating, SEEDED_DEVIATION),
        }
    }

    #[test]
    fn a_wait_splits_into_arrivals_the_policy_and_the_server() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let matched = t0 + Duration::from_millis(25_500);
        let players: Vec<Outcome> =
            (0..4).map(|i| player(t0 + s(i), 1500.0 + 100.0 * i as f64, matched)).collect();
        let players: Vec<&Outcome> = players.iter().collect();
        // A spread of 300 against a settled player's 50 + 0.5 × 60 = 80 at
        // once: 22 s more at 10 a second, the last one's range last (25 s).
        let parts = wait_parts(&players, &Policy::default()).expect("all matched");
        assert_eq!(parts[0], (s(3), s(22), Duration::from_millis(500)));
        assert_eq!(parts[3], (s(0), s(22), Duration::from_millis(500)));
        // Close ratings: no policy wait at all.
        let close: Vec<Outcome> =
            (0..4).map(|i| player(t0 + s(i), 1500.0 + i as f64, t0 + s(4))).collect();
        let close: Vec<&Outcome> = close.iter().collect();
        let parts = wait_parts(&close, &Policy::default()).expect("all matched");
        assert!(parts.iter().all(|(_, policy, _)| policy.is_zero()));
        assert_eq!(parts[0], (s(3), s(0), s(1)));
    }
}
