//! Ratings: Glicko-2 (the `skillratings` crate), one rating per player and
//! game form, from finished rated games between people only.
//!
//! Every player is rated against each other side: in the partnership game
//! the other partnership, taken as one player (its members' mean rating and
//! volatility, and the root mean square of their deviations), so both
//! partners gain or lose together but each by their own certainty; in the
//! games without partners each other player. The side that won the game
//! beats every other side; between two sides that did not win, the higher
//! score wins and equal scores draw. One game is one rating period.
//!
//! A table rates a game that started with a person in every seat, unless it
//! was set up unrated; the players rated are those seated at the start (a
//! player who leaves a losing game is still rated).
//!
//! Forfeits (after lichess, where a player gone past the timeout loses the
//! game): a player who leaves a rated game (`leave`), or is away past the
//! reconnect grace so that a bot plays for them, forfeits it. The game goes
//! on with the bot, and the forfeit stands even if they come back. Then:
//! - the forfeiter loses against every other side, whatever the bot makes
//!   of the game (leaving cannot turn a loss into a draw or a win);
//! - their partner who stayed is not rated for the game at all, win or
//!   lose: neither punished for the partner's leaving nor paid for a bot's
//!   play;
//! - every other player wins against a side with a forfeiter, and is rated
//!   against the other sides by the game as usual;
//! - a game whose table closes before the end (everyone gone) is rated
//!   only if someone forfeited it, and then only against the forfeiting
//!   sides: leaving a game that is going badly and waiting for the table
//!   to close still counts as a loss.
//!
//! [`Ratings::rate`]
//! answers with the [`TableNotice::Rated`] to publish; the table that asked
//! gets it back on its own mailbox, a moment after the game's end.

use std::sync::Arc;

use euchre_engine::{Rules, Seat};
use euchre_protocol::{SeatRating, TableNotice};
use euchre_store::{Glicko, RatedMatch, Store};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

use crate::clock::now_ms;

/// A rated game that has just ended.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    pub match_id: String,
    pub rules: Rules,
    /// The player in each seat when the game started.
    pub players: Vec<String>,
    /// One per side, as the engine scores them.
    pub scores: Vec<u16>,
    /// The winning side; `None` for a game its table closed before the
    /// end, rated only for its forfeits.
    pub winner: Option<u8>,
    /// By seat: whether that seat's player forfeited the game.
    pub forfeited: Vec<bool>,
}

/// Rates finished games.
#[derive(Debug)]
pub struct Ratings {
    store: Arc<dyn Store>,
}

impl Ratings {
    pub fn new(store: Arc<dyn Store>) -> Ratings {
        Ratings { store }
    }

    /// Rates `game` and stores the ratings, answering with the notice for
    /// the game's table. A failure is logged and answers `None`: the game
    /// stays unrated, nothing else is lost.
    pub async fn rate(&self, game: FinishedGame) -> Option<TableNotice> {
        // The engine's name of the form keys the stored ratings: one rating per form.
        let form = game.rules.form().name();
        let all_sides: Vec<usize> = (0..game.players.len())
            .map(|seat| usize::from(game.rules.team_of(Seat(seat as u8)).0))
            .collect();
        // The seats rated: all but the partners of a forfeiter who stayed.
        let seats = rated_seats(&all_sides, &game.forfeited);
        let pick = |values: &dyn Fn(usize) -> usize| seats.iter().map(|&s| values(s)).collect();
        let sides: Vec<usize> = pick(&|seat| all_sides[seat]);
        let forfeited: Vec<bool> = seats.iter().map(|&seat| game.forfeited[seat]).collect();
        let rated = RatedMatch {
            match_id: game.match_id.clone(),
            form: form.to_owned(),
            players: seats.iter().map(|&seat| game.players[seat].clone()).collect(),
            at: now_ms(),
        };
        let result =
            GameResult { scores: &game.scores, winner: game.winner, forfeited: &forfeited };
        let maths = |before: &[Option<Glicko>]| rate(before, &sides, &result);
        let changes = match self.store.rate_match(&rated, &maths).await {
            Ok(changes) => changes,
            Err(error) => {
                tracing::error!(%error, match_id = %game.match_id, "the game could not be rated");
                return None;
            }
        };
        let ratings = changes
            .iter()
            .zip(&seats)
            .map(|(change, &seat)| SeatRating {
                seat: seat as u8,
                player_id: change.player_id.clone(),
                rating: change.after.rating.round() as i32,
                change: (change.after.rating - change.before.unwrap_or(START.rating)).round()
                    as i32,
            })
            .collect();
        Some(TableNotice::Rated { form: form.to_owned(), ratings })
    }
}

/// A player's rating before their first rated game in a form.
const START: Glicko2Rating = Glicko2Rating::new();

/// The seats to rate: every seat but a partner who stayed while another
/// member of their side forfeited.
pub fn rated_seats(sides: &[usize], forfeited: &[bool]) -> Vec<usize> {
    let side_forfeited =
        |side: usize| sides.iter().zip(forfeited).any(|(&s, &gone)| s == side && gone);
    (0..sides.len())
        .filter(|&seat| forfeited.get(seat) == Some(&true) || !side_forfeited(sides[seat]))
        .collect()
}

/// How a rated game ended, for [`rate`]: each side's score, the winning
/// side (`None`: unfinished), and by player whether they forfeited.
#[derive(Clone, Copy, Debug)]
pub struct GameResult<'a> {
    pub scores: &'a [u16],
    pub winner: Option<u8>,
    pub forfeited: &'a [bool],
}

/// The new ratings of a game's rated players (in seat order), from their
/// ratings before (`None`: not rated yet), the side each sits on, and how
/// the game ended (see the module's forfeits).
pub fn rate(before: &[Option<Glicko>], sides: &[usize], result: &GameResult) -> Vec<Glicko> {
    let GameResult { scores, winner, forfeited } = *result;
    let ratings: Vec<Glicko2Rating> = before
        .iter()
        .map(|rating| {
            rating.map_or(START, |r| Glicko2Rating {
                rating: r.rating,
                deviation: r.deviation,
                volatility: r.volatility,
            })
        })
        .collect();
    let side_count = sides.iter().max().map_or(0, |last| last + 1);
    let composite: Vec<Glicko2Rating> =
        (0..side_count).map(|side| side_rating(&ratings, sides, side)).collect();
    let score = |side: usize| scores.get(side).copied().unwrap_or(0);
    let gone = |player: usize| forfeited.get(player) == Some(&true);
    let side_gone = |side: usize| (0..sides.len()).any(|p| sides[p] == side && gone(p));
    // A player's result against another side; `None`: no result (an
    // unfinished game between sides that both stayed).
    let outcome = |player: usize, theirs: usize| {
        let mine = sides[player];
        if gone(player) {
            return Some(Outcomes::LOSS);
        }
        if side_gone(theirs) {
            return Some(Outcomes::WIN);
        }
        let winner = usize::from(winner?);
        Some(if mine == winner {
            Outcomes::WIN
        } else if theirs == winner {
            Outcomes::LOSS
        } else {
            match score(mine).cmp(&score(theirs)) {
                std::cmp::Ordering::Greater => Outcomes::WIN,
                std::cmp::Ordering::Less => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            }
        })
    };
    let config = Glicko2Config::new();
    ratings
        .iter()
        .zip(sides)
        .enumerate()
        .map(|(player, (rating, &mine))| {
            let results: Vec<(Glicko2Rating, Outcomes)> = (0..side_count)
                .filter(|&theirs| theirs != mine)
                .filter_map(|theirs| Some((composite[theirs], outcome(player, theirs)?)))
                .collect();
            let new = glicko2_rating_period(rating, &results, &config);
            Glicko { rating: new.rating, deviation: new.deviation, volatility: new.volatility }
        })
        .collect()
}

/// A side as one player: the mean rating and volatility, the root mean
/// square of the deviations.
fn side_rating(ratings: &[Glicko2Rating], sides: &[usize], side: usize) -> Glicko2Rating {
    let members: Vec<&Glicko2Rating> =
        ratings.iter().zip(sides).filter(|(_, s)| **s == side).map(|(r, _)| r).collect();
    let count = members.len().max(1) as f64;
    Glicko2Rating {
        rating: members.iter().map(|r| r.rating).sum::<f64>() / count,
        deviation: (members.iter().map(|r| r.deviation * r.deviation).sum::<f64>() / count).sqrt(),
        volatility: members.iter().map(|r| r.volatility).sum::<f64>() / count,
    }
}

#[cfg(test)]
mod tests {
    use euchre_engine::Preset;

    use super::*;

    const STAYED: [bool; 4] = [false; 4];

    /// A game won by `winner`, nobody forfeiting.
    fn won(scores: &[u16], winner: u8) -> GameResult<'_> {
        GameResult { scores, winner: Some(winner), forfeited: &STAYED }
    }

    fn glicko(rating: f64, deviation: f64) -> Option<Glicko> {
        Some(Glicko { rating, deviation, volatility: 0.06 })
    }

    #[test]
    fn forms_are_named_by_players_and_dummy() {
        let name = |preset: Preset| preset.rules().form().name();
        assert_eq!(name(Preset::Standard), "partnership");
        assert_eq!(name(Preset::Cutthroat), "cutthroat");
        assert_eq!(name(Preset::ThreeHanded), "three_handed");
        assert_eq!(name(Preset::TwoHanded), "two_handed");
        assert_eq!(name(Preset::TwoHandedPlain), "two_handed_plain");
    }

    #[test]
    fn partners_win_and_lose_together() {
        let sides = [0, 1, 0, 1];
        let new = rate(&[None, None, None, None], &sides, &won(&[10, 6], 0));
        // Four newcomers: the winners gain what the losers lose, alike.
        assert!(new[0].rating > 1500.0 && new[2].rating > 1500.0);
        assert!(new[1].rating < 1500.0 && new[3].rating < 1500.0);
        assert!((new[0].rating - new[2].rating).abs() < 1e-9);
        assert!(((new[0].rating - 1500.0) + (new[1].rating - 1500.0)).abs() < 1e-6);
        assert!(new.iter().all(|r| r.deviation < 350.0), "a game makes ratings surer");
        // A sure player moves less than an unsure partner.
        let mixed = rate(&[glicko(1500.0, 60.0), None, None, None], &sides, &won(&[10, 6], 0));
        assert!(mixed[0].rating - 1500.0 < mixed[2].rating - 1500.0);
        // Beating stronger opponents gains more.
        let strong = [None, glicko(1800.0, 80.0), None, glicko(1800.0, 80.0)];
        let upset = rate(&strong, &sides, &won(&[10, 9], 0));
        assert!(upset[0].rating - 1500.0 > new[0].rating - 1500.0);
    }

    #[test]
    fn without_partners_each_player_is_rated_against_each_other() {
        // Cutthroat: seat 1 wins, seat 0 beats seat 2 on points.
        let new = rate(&[None, None, None], &[0, 1, 2], &won(&[7, 10, 3], 1));
        assert!(new[1].rating > new[0].rating && new[0].rating > new[2].rating);
        assert!((new[0].rating - 1500.0).abs() < 1e-6, "one win and one loss: even");
        // Equal losers draw with each other.
        let tied = rate(&[None, None, None], &[0, 1, 2], &won(&[5, 10, 5], 1));
        assert!((tied[0].rating - tied[2].rating).abs() < 1e-9);
    }

    #[test]
    fn a_forfeiter_loses_whatever_the_bot_makes_of_the_game_and_the_partner_is_not_rated() {
        let sides = [0, 1, 0, 1];
        // Seat 0 left; seat 2, the partner, stayed. The bot and the
        // partner go on to win the game.
        let forfeited = [true, false, false, false];
        assert_eq!(rated_seats(&sides, &forfeited), vec![0, 1, 3]);
        let rated_sides = [0, 1, 1];
        let gone = [true, false, false];
        let result = GameResult { scores: &[10, 6], winner: Some(0), forfeited: &gone };
        let new = rate(&[None, None, None], &rated_sides, &result);
        assert!(new[0].rating < 1500.0, "the leaver loses though the side won");
        assert!(new[1].rating > 1500.0 && new[2].rating > 1500.0, "the opponents win by forfeit");
        // The same when the table closed before the end.
        let unfinished = GameResult { scores: &[4, 2], winner: None, forfeited: &gone };
        let closed = rate(&[None, None, None], &rated_sides, &unfinished);
        assert!(closed[0].rating < 1500.0 && closed[1].rating > 1500.0);
        // Everyone gone: everyone loses.
        assert_eq!(rated_seats(&sides, &[true; 4]), vec![0, 1, 2, 3]);
        let all = GameResult { scores: &[4, 2], winner: None, forfeited: &[true; 4] };
        let all_gone = rate(&[None, None, None, None], &sides, &all);
        assert!(all_gone.iter().all(|r| r.rating < 1500.0));
    }

    #[test]
    fn without_partners_a_forfeit_is_a_win_for_each_other_player() {
        // Cutthroat: seat 2 left a game seat 0 went on to win.
        let gone = [false, false, true];
        let result = GameResult { scores: &[10, 7, 9], winner: Some(0), forfeited: &gone };
        let new = rate(&[None, None, None], &[0, 1, 2], &result);
        assert!(new[2].rating < 1500.0);
        assert!(new[0].rating > new[1].rating, "the winner beat seat 1 too");
        assert!(new[1].rating > new[2].rating, "seat 1 beat the leaver");
    }
}
