//! Duplicate matches between two bots.
//!
//! Each deal seed is played once for every way of seating bot A on one side
//! and bot B on the others (the two sides of a partnership game; each seat
//! in turn in the three-handed games, A alone against two Bs), so both
//! bots get the same cards and neither the deals nor the seats favour
//! either. The report gives A's share of games won with a 95% Wilson
//! interval, the points each scored per hand, and how long each took to
//! decide: wall-clock time and the time the thread actually ran (on a busy machine the wall clock counts the waits too).
//!
//! The deals can be played on several threads ([`run`]'s `threads`): each
//! game depends only on its deal seed and the bots, and the results are
//! added up in deal order, so the report is the same for any number of
//! threads (but for the decision times).
//!
//! Besides the bots, the arena can seat the [`oracle::Oracle`], a player
//! that sees every card: a ceiling to measure the bots against, never a
//! player for a table.

pub mod oracle;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, bail};
use euchre_bots::policy::Policy;
use euchre_bots::{Bot, BotKind, NetPlay, PolicyBot, SearchBot, SearchSettings};
use euchre_engine::{Action, Event, Game, HandOutcome, Phase, Rules, Seat, Team, Viewer};
use oracle::Oracle;
use serde::Serialize;

/// A bot to play: a kind by name, or a search bot with settings changed
/// from its level's, written `hard:worlds=40,make_margin=0.5` (the keys are
/// [`SearchSettings`]' fields; `match_aware` takes `true` or `false`). The
/// variants are for measuring what a setting is worth.
///
/// `net_play` takes `off`, `own` or `all` ([`NetPlay`]), and `net=FILE`,
/// which comes last (a path may hold ',' and '/'), plays a network from a
/// weights file in the play-outs instead of the committed one.
///
/// Three more, for measurement only: `policy`, the learned card-play
/// policy alone with the basic bot's bids ([`PolicyBot`]), or
/// `policy:FILE` with the network in a weights file; `oracle`, the player that sees every
/// card ([`oracle::Oracle`]), and a split player written `BIDS/PLAY`
/// (`hard/oracle`: hard's bids, discards and card passed, the oracle's card
/// play), which shows what each part of a player is worth.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    Kind(BotKind),
    Search {
        name: String,
        settings: SearchSettings,
        /// The play-outs' network, if not the committed one (`net=FILE`).
        network: Option<&'static Policy>,
    },
    Oracle,
    /// The learned card-play policy alone ([`PolicyBot`]): the basic
    /// bot's bids, the network's cards; the committed network, or one read
    /// from a weights file (`policy:FILE`).
    Policy {
        name: String,
        network: Option<&'static Policy>,
    },
    /// One player for everything before the card play, another for it.
    Split {
        name: String,
        bids: Box<BotSpec>,
        play: Box<BotSpec>,
    },
}

impl BotSpec {
    pub fn parse(text: &str) -> anyhow::Result<BotSpec> {
        // Before the split player's '/', which a path has too.
        if let Some(path) = text.strip_prefix("policy:") {
            let network = Some(read_network(path)?);
            return Ok(BotSpec::Policy { name: text.to_owned(), network });
        }
        if let Some((head, path)) = text.split_once("net=")
            && let Some(spec) = head.strip_suffix([':', ','])
        {
            let network = Some(read_network(path)?);
            let settings = match BotSpec::parse(spec)? {
                BotSpec::Search { settings, network: None, .. } => settings,
                BotSpec::Kind(kind) => level_settings(kind)?,
                _ => bail!("'{text}': net= is a search bot's setting"),
            };
            return Ok(BotSpec::Search { name: text.to_owned(), settings, network });
        }
        if let Some((bids, play)) = text.split_once('/') {
            let (bids, play) = (BotSpec::parse(bids)?, BotSpec::parse(play)?);
            if matches!(bids, BotSpec::Split { .. }) || matches!(play, BotSpec::Split { .. }) {
                bail!("'{text}': a split player has one '/'");
            }
            return Ok(BotSpec::Split {
                name: text.to_owned(),
                bids: Box::new(bids),
                play: Box::new(play),
            });
        }
        if text == "oracle" {
            return Ok(BotSpec::Oracle);
        }
        if text == "policy" {
            return Ok(BotSpec::Policy { name: text.to_owned(), network: None });
        }
        let (name, changes) = match text.split_once(':') {
            Some((name, changes)) => (name, Some(changes)),
            None => (text, None),
        };
        let kind = BotKind::from_name(name).with_context(|| {
            let names: Vec<_> = BotKind::ALL.iter().map(|kind| kind.name()).collect();
            format!(
                "unknown bot '{name}'; choose one of {} (or easy, oracle, BIDS/PLAY)",
                names.join(", ")
            )
        })?;
        let Some(changes) = changes else { return Ok(BotSpec::Kind(kind)) };
        let mut settings = level_settings(kind)?;
        for change in changes.split(',') {
            let (key, value) =
                change.split_once('=').with_context(|| format!("'{change}' is not key=value"))?;
            let number = || value.parse::<f64>().with_context(|| format!("{key}={value}"));
            let whole = || value.parse::<u32>().with_context(|| format!("{key}={value}"));
            let flag = || value.parse::<bool>().with_context(|| format!("{key}={value}"));
            match key {
                "worlds" => settings.worlds = whole()?,
                "bid_worlds" => settings.bid_worlds = whole()?,
                "table_bits" => settings.table_bits = whole()?,
                "bid_miss" => settings.bid_miss = number()?,
                "partner_bid_miss" => settings.partner_bid_miss = number()?,
                "play_miss" => settings.play_miss = number()?,
                "partner_play_miss" => settings.partner_play_miss = number()?,
                "candidates" => settings.candidates = whole()?,
                "make_margin" => settings.make_margin = number()?,
                "alone_margin" => settings.alone_margin = number()?,
                "basic_prior" => settings.basic_prior = number()?,
                "own_worlds" => settings.own_worlds = whole()?,
                "own_depth" => settings.own_depth = whole()?,
                "exploration" => settings.exploration = number()?,
                "tree_patience" => settings.tree_patience = whole()?,
                "tree_judge" => settings.tree_judge = whole()?,
                "bid_rollout" | "play_rollout" => {
                    let weight = number()?;
                    if !(0.0..=1.0).contains(&weight) {
                        bail!("{key} is from 0 to 1");
                    }
                    if key == "bid_rollout" {
                        settings.bid_rollout = weight;
                    } else {
                        settings.play_rollout = weight;
                    }
                }
                "model_trick" => settings.model_trick = flag()?,
                "tree_bids" => settings.tree_bids = flag()?,
                "tree_play" => settings.tree_play = flag()?,
                "match_aware" => settings.match_aware = flag()?,
                "net_play" => {
                    settings.net_play = match value {
                        "off" => NetPlay::Off,
                        "own" => NetPlay::Own,
                        "all" => NetPlay::All,
                        _ => bail!("net_play is off, own or all"),
                    }
                }
                _ => bail!("unknown setting '{key}'"),
            }
        }
        if settings.table_bits > 24 {
            bail!("table_bits is at most 24");
        }
        Ok(BotSpec::Search { name: text.to_owned(), settings, network: None })
    }

    /// The name the report shows.
    pub fn name(&self) -> &str {
        match self {
            BotSpec::Kind(kind) => kind.name(),
            BotSpec::Search { name, .. }
            | BotSpec::Split { name, .. }
            | BotSpec::Policy { name, .. } => name,
            BotSpec::Oracle => "oracle",
        }
    }

    fn create(&self, seed: u64) -> Player {
        match self {
            BotSpec::Kind(kind) => Player::Bot(kind.create(seed)),
            BotSpec::Search { settings, network, .. } => {
                Player::Bot(Box::new(SearchBot::with_policy(*settings, seed, *network)))
            }
            BotSpec::Oracle => Player::Oracle(Box::default()),
            BotSpec::Policy { network, .. } => Player::Bot(Box::new(PolicyBot::with(*network))),
            BotSpec::Split { bids, play, .. } => {
                Player::Split(Box::new([bids.create(seed), play.create(seed)]))
            }
        }
    }
}

/// The settings of a search level, which a spec changes.
fn level_settings(kind: BotKind) -> anyhow::Result<SearchSettings> {
    Ok(match kind {
        BotKind::Medium => SearchSettings::MEDIUM,
        BotKind::Hard => SearchSettings::HARD,
        BotKind::Expert => SearchSettings::EXPERT,
        _ => bail!("only the search bots (medium, hard, expert) take settings"),
    })
}

/// A network read from a weights file, once for the whole run.
fn read_network(path: &str) -> anyhow::Result<&'static Policy> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
    let network =
        Policy::from_bytes(&bytes).with_context(|| format!("{path} is not a network's weights"))?;
    Ok(Box::leak(Box::new(network)))
}

/// A seat's player in an arena game.
enum Player {
    /// Sees its seat's view.
    Bot(Box<dyn Bot>),
    /// Sees the whole game.
    Oracle(Box<Oracle>),
    /// The first before card play, the second in it.
    Split(Box<[Player; 2]>),
}

impl Player {
    fn choose(&mut self, game: &Game, seat: Seat, legal: &[Action]) -> Option<Action> {
        match self {
            Player::Bot(bot) => bot.choose(&game.view(Viewer::Seat(seat)), legal),
            Player::Oracle(oracle) => oracle.choose(game, seat, legal),
            Player::Split(players) => {
                let [bids, play] = &mut **players;
                if game.hand().phase() == Phase::Playing {
                    play.choose(game, seat, legal)
                } else {
                    bids.choose(game, seat, legal)
                }
            }
        }
    }
}

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    pub a: BotSpec,
    pub b: BotSpec,
    pub rules: Rules,
    /// Deal seeds, each played once per seating.
    pub deals: u64,
    /// The first deal seed (the others follow it).
    pub seed: u64,
}

/// How a match went.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    pub games: u64,
    pub a_won: u64,
    /// A's share of the games won, and its 95% Wilson interval.
    pub a_win_rate: f64,
    pub a_win_interval: [f64; 2],
    /// A's fair share: a half, or a third when A sits alone against two.
    pub fair_share: f64,
    pub hands: u64,
    /// Points each bot's seats scored per hand (per seat in the games
    /// without partners).
    pub a_points_per_hand: f64,
    pub b_points_per_hand: f64,
    pub a_times: Times,
    pub b_times: Times,
    /// Each game, in deal order (not in the JSON report: see
    /// [`write_games`]).
    #[serde(skip)]
    pub per_game: Vec<GameRow>,
}

/// One game of a match: enough to compare two runs over the same deals
/// game by game ([`paired`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The deal seed.
    pub seed: u64,
    /// A's side (the seat A held alone, in the games without partners).
    pub a_team: u8,
    pub a_won: bool,
    pub hands: u64,
    pub a_points: u64,
    pub b_points: u64,
}

/// The header of [`write_games`]' table.
const GAMES_HEADER: &str = "seed,a_team,a_won,hands,a_points,b_points";

/// The games as CSV, a header then one line a game.
pub fn write_games(rows: &[GameRow], out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "{GAMES_HEADER}")?;
    for row in rows {
        writeln!(
            out,
            "{},{},{},{},{},{}",
            row.seed,
            row.a_team,
            u8::from(row.a_won),
            row.hands,
            row.a_points,
            row.b_points
        )?;
    }
    Ok(())
}

/// Reads what [`write_games`] wrote.
pub fn read_games(text: &str) -> anyhow::Result<Vec<GameRow>> {
    let mut lines = text.lines();
    if lines.next() != Some(GAMES_HEADER) {
        bail!("not a table of games: the first line is not '{GAMES_HEADER}'");
    }
    lines
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let parse = |at: usize| -> anyhow::Result<u64> {
                let field =
                    fields.get(at).with_context(|| format!("line {}: short", number + 2))?;
                field.trim().parse().with_context(|| format!("line {}: '{field}'", number + 2))
            };
            if fields.len() != 6 {
                bail!("line {}: {} fields, not 6", number + 2, fields.len());
            }
            Ok(GameRow {
                seed: parse(0)?,
                a_team: u8::try_from(parse(1)?).context("a_team")?,
                a_won: match parse(2)? {
                    0 => false,
                    1 => true,
                    other => bail!("line {}: a_won is {other}", number + 2),
                },
                hands: parse(3)?,
                a_points: parse(4)?,
                b_points: parse(5)?,
            })
        })
        .collect()
}

/// Two runs over the same deals compared game by game: X's win rate less
/// Y's, with a 95% interval from the spread of the per-deal differences
/// (each deal's games share their cards, so the deal is the unit).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Deals and games both runs played.
    pub deals: u64,
    pub games: u64,
    pub x_won: u64,
    pub y_won: u64,
    /// Games X won and Y lost, and the other way round.
    pub x_only: u64,
    pub y_only: u64,
    /// X's win rate less Y's, and its 95% interval (normal approximation).
    pub difference: f64,
    pub interval: [f64; 2],
}

/// Compares runs `x` and `y` over the games both played (matched by deal
/// seed and A's side).
pub fn paired(x: &[GameRow], y: &[GameRow]) -> anyhow::Result<Paired> {
    let key = |row: &GameRow| (row.seed, row.a_team);
    let y_games: BTreeMap<(u64, u8), bool> = y.iter().map(|row| (key(row), row.a_won)).collect();
    // Per deal: X's wins less Y's, and the games.
    let mut deals: BTreeMap<u64, (i64, u64)> = BTreeMap::new();
    let (mut x_won, mut y_won, mut x_only, mut y_only) = (0, 0, 0, 0);
    for row in x {
        let Some(&other) = y_games.get(&key(row)) else { continue };
        let deal = deals.entry(row.seed).or_default();
        deal.0 += i64::from(row.a_won) - i64::from(other);
        deal.1 += 1;
        x_won += u64::from(row.a_won);
        y_won += u64::from(other);
        x_only += u64::from(row.a_won && !other);
        y_only += u64::from(!row.a_won && other);
    }
    if deals.len() < 2 {
        bail!("the runs share {} deals; at least two are needed", deals.len());
    }
    Ok(compare(&deals, [x_won, y_won, x_only, y_only]))
}

/// Run `x` against B (A's opponent) in a partnership form compared with B
/// playing itself on the same deals, without playing it: the arena seeds
/// each bot by its seat, not its side, so the two games of a deal between
/// equal bots are one game seen from both sides, and Y wins exactly one of
/// them. `x_only` counts the deals X won both games of, `y_only` those it
/// lost both of.
pub fn against_self_play(x: &[GameRow]) -> anyhow::Result<Paired> {
    let mut deals: BTreeMap<u64, (i64, u64)> = BTreeMap::new();
    for row in x {
        let deal = deals.entry(row.seed).or_default();
        deal.0 += i64::from(row.a_won);
        deal.1 += 1;
    }
    if let Some((seed, (_, games))) = deals.iter().find(|(_, (_, games))| *games != 2) {
        bail!("deal {seed} has {games} games, not the two of a partnership form");
    }
    if deals.len() < 2 {
        bail!("{} deals; at least two are needed", deals.len());
    }
    let x_won = deals.values().map(|(won, _)| *won as u64).sum();
    let swept = |wins: i64| deals.values().filter(|(won, _)| *won == wins).count() as u64;
    let (x_only, y_only) = (swept(2), swept(0));
    for (won, _) in deals.values_mut() {
        *won -= 1;
    }
    Ok(compare(&deals, [x_won, deals.len() as u64, x_only, y_only]))
}

/// The comparison from each deal's wins of X less Y's and its games, and
/// the totals (X's and Y's wins, X's alone and Y's alone).
fn compare(deals: &BTreeMap<u64, (i64, u64)>, totals: [u64; 4]) -> Paired {
    let [x_won, y_won, x_only, y_only] = totals;
    let games: u64 = deals.values().map(|(_, games)| games).sum();
    // The difference in rate is the ratio of the wins' differences to the
    // games; its variance, by the delta method, from each deal's residual.
    let n = deals.len() as f64;
    let mean = deals.values().map(|(d, _)| *d as f64).sum::<f64>() / games as f64;
    let residuals: f64 = deals.values().map(|(d, g)| (*d as f64 - mean * *g as f64).powi(2)).sum();
    let variance = n / (n - 1.0) * residuals / (games as f64).powi(2);
    let spread = 1.959_963_984_540_054 * variance.sqrt();
    Paired {
        deals: deals.len() as u64,
        games,
        x_won,
        y_won,
        x_only,
        y_only,
        difference: mean,
        interval: [mean - spread, mean + spread],
    }
}

/// Decision times in milliseconds, over every decision with a choice.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Times {
    pub decisions: usize,
    pub wall: Percentiles,
    /// The thread's own running time; `None` where unknown.
    pub cpu: Option<Percentiles>,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Percentiles {
    fn of(mut millis: Vec<f64>) -> Percentiles {
        if millis.is_empty() {
            return Percentiles::default();
        }
        millis.sort_by(f64::total_cmp);
        // Nearest rank.
        let at =
            |q: f64| millis[((q * millis.len() as f64).ceil() as usize).clamp(1, millis.len()) - 1];
        Percentiles { p50: at(0.5), p99: at(0.99), max: at(1.0) }
    }
}

/// The 95% Wilson score interval for `successes` out of `trials`.
pub fn wilson_interval(successes: u64, trials: u64) -> [f64; 2] {
    if trials == 0 {
        return [0.0, 1.0];
    }
    let z = 1.959_963_984_540_054_f64;
    let n = trials as f64;
    let p = successes as f64 / n;
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    [((centre - spread) / scale).max(0.0), ((centre + spread) / scale).min(1.0)]
}

/// Timings gathered for one bot.
#[derive(Default)]
struct Clock {
    wall: Vec<f64>,
    cpu: Vec<f64>,
    cpu_known: bool,
}

impl Clock {
    fn times(self) -> Times {
        Times {
            decisions: self.wall.len(),
            wall: Percentiles::of(self.wall),
            cpu: self.cpu_known.then(|| Percentiles::of(self.cpu)),
        }
    }

    fn add(&mut self, other: Clock) {
        self.wall.extend(other.wall);
        self.cpu.extend(other.cpu);
        self.cpu_known &= other.cpu_known;
    }
}

/// The nanoseconds this thread has run (`None` where the system cannot say).
fn thread_cpu_nanos() -> Option<u64> {
    let ran = cpu_time::ThreadTime::try_now().ok()?.as_duration();
    u64::try_from(ran.as_nanos()).ok()
}

/// How one game went.
struct GameResult {
    row: GameRow,
    /// Hands counted once for each of A's seats and B's (per seat in the
    /// games without partners).
    a_seats_hands: u64,
    b_seats_hands: u64,
    a_clock: Clock,
    b_clock: Clock,
}

/// Plays deal seed `seed` once with A on each side: the games in order.
fn play_deal(config: &Config, seed: u64) -> anyhow::Result<Vec<GameResult>> {
    let rules = config.rules;
    let teams = rules.teams();
    let cpu_known = thread_cpu_nanos().is_some();
    let mut results = Vec::with_capacity(usize::from(teams));
    for a_team in (0..teams).map(Team) {
        let is_a = |seat: Seat| rules.team_of(seat) == a_team;
        let mut players: Vec<Player> = (0..4u8)
            .map(|seat| {
                let spec = if is_a(Seat(seat)) { &config.a } else { &config.b };
                spec.create(seed.wrapping_mul(8).wrapping_add(u64::from(seat)))
            })
            .collect();
        let mut result = GameResult {
            row: GameRow {
                seed,
                a_team: a_team.0,
                a_won: false,
                hands: 0,
                a_points: 0,
                b_points: 0,
            },
            a_seats_hands: 0,
            b_seats_hands: 0,
            a_clock: Clock { cpu_known, ..Clock::default() },
            b_clock: Clock { cpu_known, ..Clock::default() },
        };
        let mut game = Game::new(rules, seed)?;
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            let (wall, cpu) = (Instant::now(), thread_cpu_nanos());
            let action = players[seat.index()]
                .choose(&game, seat, &legal)
                .ok_or_else(|| anyhow::anyhow!("{seat} chose nothing from {legal:?}"))?;
            let ran = cpu.zip(thread_cpu_nanos()).map(|(start, end)| end.saturating_sub(start));
            let clock = if is_a(seat) { &mut result.a_clock } else { &mut result.b_clock };
            if legal.iter().filter(|action| **action != Action::Concede).count() > 1 {
                clock.wall.push(wall.elapsed().as_secs_f64() * 1e3);
                if let Some(ran) = ran {
                    clock.cpu.push(ran as f64 / 1e6);
                }
            }
            for event in game.apply(seat, action)? {
                if let Event::HandEnded { outcome, .. } = event {
                    result.row.hands += 1;
                    if let HandOutcome::Played(played) = outcome {
                        for (team, points) in played.points.teams() {
                            if team == a_team {
                                result.row.a_points += u64::from(*points);
                            } else {
                                result.row.b_points += u64::from(*points);
                            }
                        }
                    }
                    result.a_seats_hands += 1;
                    result.b_seats_hands += u64::from(teams - 1);
                }
            }
        }
        result.row.a_won = game.winner() == Some(a_team);
        results.push(result);
    }
    Ok(results)
}

/// Plays the match on `threads` threads (at least one). `progress` hears of
/// each game as its deal's games are all played (games done, games in
/// all), on the calling thread.
///
/// The report does not depend on `threads`: each deal's games are played
/// from their seeds alone and added up in deal order. The decision times
/// are each decision's own, but with more threads than free cores each
/// thread waits for a core, which inflates the wall-clock times (and, on a
/// busy machine, the thread times somewhat, through shared caches).
pub fn run(
    config: &Config,
    threads: usize,
    mut progress: impl FnMut(u64, u64),
) -> anyhow::Result<Report> {
    config.rules.validate()?;
    let teams = config.rules.teams();
    let games_in_all = config.deals * u64::from(teams);
    let deals = usize::try_from(config.deals).context("too many deals")?;
    let mut played: Vec<Option<Vec<GameResult>>> = (0..deals).map(|_| None).collect();
    let next = AtomicU64::new(0);
    let mut failed: Option<(u64, anyhow::Error)> = None;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..threads.max(1) {
            let (sender, next) = (sender.clone(), &next);
            scope.spawn(move || {
                loop {
                    let deal = next.fetch_add(1, Ordering::Relaxed);
                    if deal >= config.deals {
                        return;
                    }
                    let result = play_deal(config, config.seed.wrapping_add(deal));
                    if sender.send((deal, result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        let mut games_done = 0;
        for (deal, result) in receiver {
            match result {
                Ok(games) => {
                    for _ in &games {
                        games_done += 1;
                        progress(games_done, games_in_all);
                    }
                    // `deal` < `config.deals`, which fits `deals`.
                    played[deal as usize] = Some(games);
                }
                Err(error) => {
                    // Stop handing out deals; report the earliest failure.
                    next.store(config.deals, Ordering::Relaxed);
                    if failed.as_ref().is_none_or(|(first, _)| deal < *first) {
                        failed = Some((deal, error));
                    }
                }
            }
        }
    });
    if let Some((deal, error)) = failed {
        return Err(error.context(format!("deal seed {}", config.seed.wrapping_add(deal))));
    }
    let (mut a_won, mut games, mut hands) = (0, 0, 0);
    let (mut a_points, mut b_points) = (0u64, 0u64);
    let (mut a_seats_hands, mut b_seats_hands) = (0u64, 0u64);
    let cpu_known = thread_cpu_nanos().is_some();
    let mut a_clock = Clock { cpu_known, ..Clock::default() };
    let mut b_clock = Clock { cpu_known, ..Clock::default() };
    let mut per_game = Vec::new();
    for game in played.into_iter().flatten().flatten() {
        per_game.push(game.row);
        games += 1;
        a_won += u64::from(game.row.a_won);
        hands += game.row.hands;
        a_points += game.row.a_points;
        b_points += game.row.b_points;
        a_seats_hands += game.a_seats_hands;
        b_seats_hands += game.b_seats_hands;
        a_clock.add(game.a_clock);
        b_clock.add(game.b_clock);
    }
    let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
    Ok(Report {
        a: config.a.name().to_owned(),
        b: config.b.name().to_owned(),
        games,
        a_won,
        a_win_rate: share(a_won, games),
        a_win_interval: wilson_interval(a_won, games),
        fair_share: 1.0 / f64::from(teams),
        hands,
        a_points_per_hand: share(a_points, a_seats_hands),
        b_points_per_hand: share(b_points, b_seats_hands),
        a_times: a_clock.times(),
        b_times: b_clock.times(),
        per_game,
    })
}

/// The report as a few lines of text.
pub fn describe(report: &Report) -> String {
    let [low, high] = report.a_win_interval;
    let times = |name: &str, times: &Times| {
        let wall = times.wall;
        let cpu = times.cpu.map_or(String::new(), |cpu| {
            format!(", thread time p50 {:.2} p99 {:.2} max {:.2}", cpu.p50, cpu.p99, cpu.max)
        });
        format!(
            "{name}: {} decisions, wall p50 {:.2} p99 {:.2} max {:.2} ms{cpu}",
            times.decisions, wall.p50, wall.p99, wall.max
        )
    };
    format!(
        "{a} against {b}: {a} won {won} of {games} games, {rate:.1}% (95% interval {low:.1}% to {high:.1}%; fair share {fair:.1}%)\n\
         points per hand over {hands} hands: {a} {ap:.3}, {b} {bp:.3}\n{}\n{}",
        times(&report.a, &report.a_times),
        times(&report.b, &report.b_times),
        a = report.a,
        b = report.b,
        won = report.a_won,
        games = report.games,
        rate = report.a_win_rate * 100.0,
        low = low * 100.0,
        high = high * 100.0,
        fair = report.fair_share * 100.0,
        hands = report.hands,
        ap = report.a_points_per_hand,
        bp = report.b_points_per_hand,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        // 70 of 100: 60.4% to 78.1% (the textbook figures).
        let [low, high] = wilson_interval(70, 100);
        assert!((low - 0.6041).abs() < 1e-3 && (high - 0.7810).abs() < 1e-3, "{low} {high}");
        assert_eq!(wilson_interval(0, 0), [0.0, 1.0]);
        let [low, high] = wilson_interval(10, 10);
        // All successes: n / (n + z^2) to 1.
        assert!(
            (low - 10.0 / (10.0 + 1.96f64.powi(2))).abs() < 1e-3 && high > 0.9999,
            "{low} {high}"
        );
    }

    #[test]
    fn bot_specs_by_name_or_with_settings() {
        assert_eq!(BotSpec::parse("easy").expect("a level"), BotSpec::Kind(BotKind::Basic));
        let spec =
            BotSpec::parse("hard:worlds=40,make_margin=0.5,match_aware=true").expect("settings");
        let BotSpec::Search { name, settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(name, "hard:worlds=40,make_margin=0.5,match_aware=true");
        assert_eq!(
            settings,
            SearchSettings {
                worlds: 40,
                make_margin: 0.5,
                match_aware: true,
                ..SearchSettings::HARD
            }
        );
        let spec = BotSpec::parse(
            "hard:bid_worlds=160,play_miss=0.1,partner_play_miss=0.5,candidates=160,model_trick=true,bid_rollout=0.5,play_rollout=0.25,own_worlds=8,own_depth=2",
        )
        .expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(
            settings,
            SearchSettings {
                bid_worlds: 160,
                play_miss: 0.1,
                partner_play_miss: 0.5,
                candidates: 160,
                model_trick: true,
                bid_rollout: 0.5,
                play_rollout: 0.25,
                own_worlds: 8,
                own_depth: 2,
                ..SearchSettings::HARD
            }
        );
        assert_eq!(BotSpec::parse("expert").expect("a level"), BotSpec::Kind(BotKind::Expert));
        let spec =
            BotSpec::parse("expert:exploration=0.5,tree_patience=4,tree_judge=8,tree_play=false")
                .expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(
            settings,
            SearchSettings {
                exploration: 0.5,
                tree_patience: 4,
                tree_judge: 8,
                tree_play: false,
                ..SearchSettings::EXPERT
            }
        );
        assert_eq!(BotSpec::parse("oracle").expect("the oracle"), BotSpec::Oracle);
        let spec = BotSpec::parse("hard:net_play=all").expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(settings, SearchSettings { net_play: NetPlay::All, ..SearchSettings::HARD });
        assert_eq!(
            BotSpec::parse("policy").expect("the policy"),
            BotSpec::Policy { name: "policy".to_owned(), network: None }
        );
        let weights = std::env::temp_dir().join(format!("arena-spec-{}.bin", std::process::id()));
        let committed = euchre_bots::policy::trained().expect("the committed network");
        std::fs::write(&weights, committed.to_bytes()).expect("writes the weights");
        let spec = BotSpec::parse(&format!("policy:{}", weights.display()));
        let search = BotSpec::parse(&format!("expert:worlds=80,net={}", weights.display()));
        let level = BotSpec::parse(&format!("hard:net={}", weights.display()));
        let basic = BotSpec::parse(&format!("basic:net={}", weights.display()));
        let _ = std::fs::remove_file(&weights);
        assert!(
            matches!(spec, Ok(BotSpec::Policy { network: Some(network), .. }) if network == committed),
            "an absolute path to weights: {spec:?}"
        );
        let Ok(BotSpec::Search { settings, network: Some(network), .. }) = search else {
            panic!("a search bot with a network: {search:?}")
        };
        assert_eq!(settings, SearchSettings { worlds: 80, ..SearchSettings::EXPERT });
        assert_eq!(network, committed);
        assert!(
            matches!(level, Ok(BotSpec::Search { settings, network: Some(_), .. }) if settings == SearchSettings::HARD),
            "{level:?}"
        );
        assert!(basic.is_err(), "only a search bot takes a network: {basic:?}");
        let spec = BotSpec::parse("hard:worlds=40/oracle").expect("a split player");
        let BotSpec::Split { name, bids, play } = spec else { panic!("a split player") };
        assert_eq!(name, "hard:worlds=40/oracle");
        assert_eq!(*play, BotSpec::Oracle);
        assert!(
            matches!(*bids, BotSpec::Search { settings, .. } if settings.worlds == 40),
            "{bids:?}"
        );
        for bad in [
            "genius",
            "basic:worlds=3",
            "hard:net_play=some",
            "policy:/no/such/weights",
            "hard:net=/no/such/weights",
            "hard:worlds",
            "hard:depth=3",
            "hard:worlds=x",
            "hard:bid_rollout=2",
            "oracle:worlds=3",
            "hard/",
            "hard/basic/oracle",
        ] {
            assert!(BotSpec::parse(bad).is_err(), "{bad}");
        }
    }

    /// A game of nine hands, won 10 to 4 by whoever won it.
    fn row(seed: u64, a_team: u8, a_won: bool) -> GameRow {
        GameRow { seed, a_team, a_won, hands: 9, a_points: 10, b_points: 4 }
    }

    #[test]
    fn games_round_trip_and_pair_by_deal() {
        // Y wins one game of each deal; X the same one, and both on deal 3.
        let y: Vec<GameRow> =
            (1..=4).flat_map(|seed| [row(seed, 0, true), row(seed, 1, false)]).collect();
        let mut x = y.clone();
        x[5].a_won = true;
        let mut csv = Vec::new();
        write_games(&x, &mut csv).expect("written");
        let text = String::from_utf8(csv).expect("text");
        assert!(text.starts_with("seed,a_team,a_won,hands,a_points,b_points\n1,0,1,9,10,4\n"));
        assert_eq!(read_games(&text).expect("read back"), x);
        assert!(read_games("seed,won\n1,1\n").is_err());
        let compared = paired(&x, &y).expect("four deals in common");
        assert_eq!((compared.deals, compared.games), (4, 8));
        assert_eq!(
            (compared.x_won, compared.y_won, compared.x_only, compared.y_only),
            (5, 4, 1, 0)
        );
        assert!((compared.difference - 0.125).abs() < 1e-12);
        // Per-deal differences 0, 0, 1, 0 (of 2 games): sd 0.5, so
        // 0.125 +- 1.96 * 0.5 / 2 / 2.
        let [low, high] = compared.interval;
        assert!((high - low - 2.0 * 1.959_964 * 0.125).abs() < 1e-5, "{low} {high}");
        // Only deals both played count.
        assert_eq!(paired(&x[..4], &y).expect("two deals").games, 4);
        assert!(paired(&x[..2], &y).is_err());
    }

    #[test]
    fn a_run_compares_with_the_opponents_self_play() {
        // X sweeps deal 1, splits deals 2 and 3, loses both of deal 4.
        let x = [(1, true, true), (2, true, false), (3, false, true), (4, false, false)]
            .into_iter()
            .flat_map(|(seed, first, second)| [row(seed, 0, first), row(seed, 1, second)])
            .collect::<Vec<_>>();
        let compared = against_self_play(&x).expect("four deals");
        assert_eq!((compared.deals, compared.games), (4, 8));
        assert_eq!(
            (compared.x_won, compared.y_won, compared.x_only, compared.y_only),
            (4, 4, 1, 1)
        );
        // Per deal +1, 0, 0, -1 of 2 games: the same as pairing with a run
        // that wins one game of each deal.
        let even: Vec<GameRow> =
            (1..=4).flat_map(|seed| [row(seed, 0, true), row(seed, 1, false)]).collect();
        let played = paired(&x, &even).expect("the same deals");
        assert_eq!((compared.difference, compared.interval), (played.difference, played.interval));
        assert!(against_self_play(&x[..7]).is_err(), "a deal with one game");
        assert!(against_self_play(&x[..2]).is_err(), "one deal");
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let p = Percentiles::of((1..=100).map(f64::from).collect());
        assert_eq!((p.p50, p.p99, p.max), (50.0, 99.0, 100.0));
    }
}
