//! The match loop: each deal played once per seating, on as many threads as
//! asked, with each decision timed on the wall clock and the thread's own
//! CPU clock, and the games added up into the [`Report`] in deal order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use euchre_engine::{Action, Event, Game, HandOutcome, Rules, Seat, Team};

use crate::report::{Percentiles, Report, Times};
use crate::rows::GameRow;
use crate::spec::{BotSpec, Player};
use crate::statistics::wilson_interval;

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
