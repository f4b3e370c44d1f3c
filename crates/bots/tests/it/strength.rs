//! How well the basic bot plays, measured over seeded games. Everything is
//! deterministic, so the bars are not flaky; they sit well below the
//! measured rates so that an honest change to the bot does not trip them,
//! while a broken one does. Print the rates with
//! `cargo test -p euchre-bots --test it strength -- --nocapture`.

use euchre_bots::{BasicBot, Bot, BotKind, NaiveBot};
use euchre_engine::{Action, Game, GameView, Preset, Rules, Team};

use crate::play_out;

const GAMES: u64 = 300;

/// Plays `games` games of `ours` against `theirs`, each seed twice with the
/// sides swapped, so that neither the seats nor the deals favour anybody.
/// Returns the share of games `ours` won.
fn win_rate(
    games: u64,
    ours: impl Fn(u64) -> Box<dyn Bot>,
    theirs: impl Fn(u64) -> Box<dyn Bot>,
) -> f64 {
    win_rate_in(Preset::Standard.rules(), games, ours, theirs)
}

/// [`win_rate`] under `rules`.
fn win_rate_in(
    rules: Rules,
    games: u64,
    ours: impl Fn(u64) -> Box<dyn Bot>,
    theirs: impl Fn(u64) -> Box<dyn Bot>,
) -> f64 {
    let mut won = 0;
    for seed in 0..games / 2 {
        for our_team in [Team(0), Team(1)] {
            let mut bots = [0u8, 1, 2, 3].map(|seat| {
                let bot_seed = seed * 4 + u64::from(seat);
                if seat % 2 == our_team.0 { ours(bot_seed) } else { theirs(bot_seed) }
            });
            let mut game = Game::new(rules, seed).expect("valid rules");
            play_out(&mut game, &mut bots);
            if game.winner() == Some(our_team) {
                won += 1;
            }
        }
    }
    f64::from(won) / (games / 2 * 2) as f64
}

fn basic(_seed: u64) -> Box<dyn Bot> {
    Box::new(BasicBot::new())
}

#[test]
fn basic_bots_beat_random_bots() {
    let rate = win_rate(GAMES, basic, |seed| BotKind::Random.create(seed));
    println!("basic vs random: basic won {:.1}% of {GAMES} games", rate * 100.0);
    // Measured: 100%.
    assert!(rate > 0.95, "basic won only {rate}");
}

#[test]
fn basic_bots_beat_the_naive_bot() {
    let rate = win_rate(GAMES, basic, |_| Box::new(NaiveBot));
    println!("basic vs naive: basic won {:.1}% of {GAMES} games", rate * 100.0);
    // Measured: 81%.
    assert!(rate > 0.70, "basic won only {rate}");
}

#[test]
fn basic_against_basic_is_even() {
    // Identical bots on both sides: whoever sits in seats 0 and 2 should win
    // about half of the games, over seeds that vary the first dealer and
    // every deal.
    let mut won = 0;
    for seed in 0..GAMES {
        let mut bots = [0u64, 1, 2, 3].map(basic);
        let mut game = Game::new(Preset::Standard.rules(), seed).expect("valid rules");
        play_out(&mut game, &mut bots);
        if game.winner() == Some(Team(0)) {
            won += 1;
        }
    }
    let rate = f64::from(won) / GAMES as f64;
    println!("basic vs basic: seats 0 and 2 won {:.1}% of {GAMES} games", rate * 100.0);
    // Measured: 48.7%.
    assert!((0.42..=0.58).contains(&rate), "seats 0 and 2 won {rate}");
}

/// The basic bot as it was before it called no trump: the same bot, never
/// offered the call.
#[derive(Debug)]
struct NeverNoTrump(BasicBot);

impl Bot for NeverNoTrump {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        let legal: Vec<Action> =
            legal.iter().copied().filter(|a| !matches!(a, Action::CallNoTrump { .. })).collect();
        self.0.choose(view, &legal)
    }
}

#[test]
fn calling_no_trump_costs_nothing_where_it_is_allowed() {
    let rules = Rules { allow_no_trump: true, ..Preset::Standard.rules() };
    let never = |_| Box::new(NeverNoTrump(BasicBot::new())) as Box<dyn Bot>;
    let rate = win_rate_in(rules, GAMES, basic, never);
    println!(
        "basic vs basic never calling no trump: basic won {:.1}% of {GAMES} games",
        rate * 100.0
    );
    // Measured: 50.7% over 4,000 games, where the bot called no trump in
    // 2.6% of hands and made 93% of those calls (a third sure trick more or
    // less moved the rate by under a point, within the noise). The call is
    // rare, so the bar only says that it does not cost games.
    assert!(rate > 0.42, "basic won only {rate}");
}

/// The share of games one `ours` bot won against `theirs` in every other
/// seat, under `preset`'s rules (a two- or three-handed form: every player
/// for himself), with `ours` in each seat in turn over the same seeds.
fn lone_win_rate(
    preset: Preset,
    games: u64,
    ours: impl Fn(u64) -> Box<dyn Bot>,
    theirs: impl Fn(u64) -> Box<dyn Bot>,
) -> f64 {
    let rules = preset.rules();
    let players = rules.players;
    let mut won = 0;
    let mut played = 0;
    for seed in 0..games / u64::from(players) {
        for our_seat in 0..players {
            // Seats beyond the form's never act.
            let mut bots = [0u8, 1, 2, 3].map(|seat| {
                let bot_seed = seed * 4 + u64::from(seat);
                if seat == our_seat { ours(bot_seed) } else { theirs(bot_seed) }
            });
            let mut game = Game::new(rules, seed).expect("valid rules");
            play_out(&mut game, &mut bots);
            if game.winner() == Some(rules.team_of(euchre_engine::Seat(our_seat))) {
                won += 1;
            }
            played += 1;
        }
    }
    f64::from(won) / f64::from(played)
}

/// The two- and three-handed forms: the basic bot bids, takes the dummy,
/// discards and plays there with its four-handed judgement, so it beats the
/// naive bot by far more than a fair share (a half or a third).
#[test]
fn basic_bots_beat_the_naive_bot_in_every_small_form() {
    for preset in
        [Preset::ThreeHanded, Preset::Cutthroat, Preset::TwoHanded, Preset::TwoHandedPlain]
    {
        let fair = 1.0 / f64::from(preset.rules().players);
        let rate = lone_win_rate(preset, GAMES, basic, |_| Box::new(NaiveBot));
        println!(
            "{}: one basic bot against naive bots won {:.1}% of {GAMES} games (fair share {:.1}%)",
            preset.name(),
            rate * 100.0,
            fair * 100.0
        );
        // Measured: 49.0% (three-handed), 53.7% (cutthroat), 75.7% (two-handed
        // with the dummy), 69.3% (two-handed plain).
        assert!(rate > fair + 0.10, "{preset:?}: basic won only {rate}");
        let random = lone_win_rate(preset, GAMES / 3, basic, |seed| BotKind::Random.create(seed));
        println!("{}: against random bots {:.1}%", preset.name(), random * 100.0);
        // Measured: 92.9%, 91.9%, 100%, 98.0%.
        assert!(random > 0.85, "{preset:?}: basic won only {random} against random bots");
    }
}
