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
//! player who leaves a losing game is still rated). [`Ratings::rate`]
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
    pub winner: u8,
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
        let form = form(&game.rules);
        let sides: Vec<usize> = (0..game.players.len())
            .map(|seat| usize::from(game.rules.team_of(Seat(seat as u8)).0))
            .collect();
        let rated = RatedMatch {
            match_id: game.match_id.clone(),
            form: form.to_owned(),
            players: game.players.clone(),
            at: now_ms(),
        };
        let maths = |before: &[Option<Glicko>]| rate(before, &sides, &game.scores, game.winner);
        let changes = match self.store.rate_match(&rated, &maths).await {
            Ok(changes) => changes,
            Err(error) => {
                tracing::error!(%error, match_id = %game.match_id, "the game could not be rated");
                return None;
            }
        };
        let ratings = changes
            .iter()
            .zip(0u8..)
            .map(|(change, seat)| SeatRating {
                seat,
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

/// The name of the game form `rules` play, one rating for each: the
/// engine's name, which keys the stored ratings.
pub fn form(rules: &Rules) -> &'static str {
    rules.form().name()
}

/// The new ratings of a game's players (in seat order), from their ratings
/// before (`None`: not rated yet), the side each sits on, the sides' scores
/// and the winning side.
pub fn rate(before: &[Option<Glicko>], sides: &[usize], scores: &[u16], winner: u8) -> Vec<Glicko> {
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
    let outcome = |mine: usize, theirs: usize| {
        if mine == usize::from(winner) {
            Outcomes::WIN
        } else if theirs == usize::from(winner) {
            Outcomes::LOSS
        } else {
            match score(mine).cmp(&score(theirs)) {
                std::cmp::Ordering::Greater => Outcomes::WIN,
                std::cmp::Ordering::Less => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            }
        }
    };
    let config = Glicko2Config::new();
    ratings
        .iter()
        .zip(sides)
        .map(|(rating, &mine)| {
            let results: Vec<(Glicko2Rating, Outcomes)> = (0..side_count)
                .filter(|&theirs| theirs != mine)
                .map(|theirs| (composite[theirs], outcome(mine, theirs)))
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

    fn glicko(rating: f64, deviation: f64) -> Option<Glicko> {
        Some(Glicko { rating, deviation, volatility: 0.06 })
    }

    #[test]
    fn forms_are_named_by_players_and_dummy() {
        let name = |preset: Preset| form(&preset.rules());
        assert_eq!(name(Preset::Standard), "partnership");
        assert_eq!(name(Preset::Cutthroat), "cutthroat");
        assert_eq!(name(Preset::ThreeHanded), "three_handed");
        assert_eq!(name(Preset::TwoHanded), "two_handed");
        assert_eq!(name(Preset::TwoHandedPlain), "two_handed_plain");
    }

    #[test]
    fn partners_win_and_lose_together() {
        let sides = [0, 1, 0, 1];
        let new = rate(&[None, None, None, None], &sides, &[10, 6], 0);
        // Four newcomers: the winners gain what the losers lose, alike.
        assert!(new[0].rating > 1500.0 && new[2].rating > 1500.0);
        assert!(new[1].rating < 1500.0 && new[3].rating < 1500.0);
        assert!((new[0].rating - new[2].rating).abs() < 1e-9);
        assert!(((new[0].rating - 1500.0) + (new[1].rating - 1500.0)).abs() < 1e-6);
        assert!(new.iter().all(|r| r.deviation < 350.0), "a game makes ratings surer");
        // A sure player moves less than an unsure partner.
        let mixed = rate(&[glicko(1500.0, 60.0), None, None, None], &sides, &[10, 6], 0);
        assert!(mixed[0].rating - 1500.0 < mixed[2].rating - 1500.0);
        // Beating stronger opponents gains more.
        let strong = [None, glicko(1800.0, 80.0), None, glicko(1800.0, 80.0)];
        let upset = rate(&strong, &sides, &[10, 9], 0);
        assert!(upset[0].rating - 1500.0 > new[0].rating - 1500.0);
    }

    #[test]
    fn without_partners_each_player_is_rated_against_each_other() {
        // Cutthroat: seat 1 wins, seat 0 beats seat 2 on points.
        let new = rate(&[None, None, None], &[0, 1, 2], &[7, 10, 3], 1);
        assert!(new[1].rating > new[0].rating && new[0].rating > new[2].rating);
        assert!((new[0].rating - 1500.0).abs() < 1e-6, "one win and one loss: even");
        // Equal losers draw with each other.
        let tied = rate(&[None, None, None], &[0, 1, 2], &[5, 10, 5], 1);
        assert!((tied[0].rating - tied[2].rating).abs() < 1e-9);
    }
}
