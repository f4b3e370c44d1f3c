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
//! A table set up rated rates a game that started with a person in every
//! seat; the players rated are those seated at the start (a player who
//! leaves a losing game is still rated). Only accounts are rated, so that
//! nobody farms a rating off free guests (see [`Ratings::why_unrated`]): a
//! game is casual unless every player is an account that is
//! `ratings.min_account_age_seconds` old and has finished
//! `ratings.min_games` games, and unless each two opponents in it have
//! played fewer than `ratings.daily_games_per_opponent` rated games against
//! each other in the last 24 hours. A game that is not rated says why
//! ([`TableNotice::Unrated`]).
//!
//! Forfeits (after lichess, where a player gone past the timeout loses the
//! game): a player who leaves a rated game (`leave`), is away past the
//! reconnect grace so that a bot plays for them, or lets
//! `ratings.timeouts_to_forfeit` turns run out, forfeits it. The game goes
//! on with the bot, and the forfeit stands even if they come back. Then:
//! - the forfeiter's side loses against every other side, whatever the
//!   bot makes of the game (leaving cannot turn a loss into a draw or a
//!   win). That is the partner who stayed too, a whole loss: a partnership
//!   is one side, and anything less would pay a losing player to have a
//!   throwaway partner leave;
//! - every other player wins against a side with a forfeiter, and is rated
//!   against the other sides by the game as usual;
//! - a game whose table closes before the end (everyone gone) is rated
//!   only if someone forfeited it, and then only against the forfeiting
//!   sides: leaving a game that is going badly and waiting for the table
//!   to close still counts as a loss.
//!
//! [`Ratings::rate`]
//! answers with the [`TableNotice::Rated`] (or `Unrated`) to publish; the
//! table that asked gets it back on its own mailbox, a moment after the
//! game's end.

use std::sync::Arc;

use euchre_engine::{Rules, Seat};
use euchre_protocol::{ErrorCode, Refusal, SeatRating, TableNotice, UnratedReason};
use euchre_store::{AccountStanding, Glicko, Millis, RatedMatch, Store, StoreError};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

use crate::clock::now_ms;
use crate::config::RatingSettings;

/// A day, for the cap on rated games between the same two accounts.
const DAY_MS: Millis = 24 * 3600 * 1000;

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
    settings: RatingSettings,
}

impl Ratings {
    pub fn new(store: Arc<dyn Store>, settings: RatingSettings) -> Ratings {
        Ratings { store, settings }
    }

    /// The turns a player lets run out in a rated game that forfeit it (0: never).
    pub fn timeouts_to_forfeit(&self) -> u32 {
        self.settings.timeouts_to_forfeit
    }

    /// Whether `player_id` may ask for rated play: refused `account_needed`
    /// for a guest, `rated_play_locked` for an account not rated yet.
    pub async fn may_play_rated(&self, player_id: &str) -> Result<(), Refusal> {
        let standing = self.store.account_standing(player_id, "").await.map_err(|error| {
            tracing::warn!(%error, "cannot read an account's standing");
            Refusal::from(ErrorCode::Unavailable)
        })?;
        match locked(standing, now_ms(), &self.settings) {
            None => Ok(()),
            Some(UnratedReason::Guest) => Err(ErrorCode::AccountNeeded.into()),
            Some(_) => Err(ErrorCode::RatedPlayLocked.refusal(format!(
                "your account is not rated yet: {}; casual play is open",
                self.minimum()
            ))),
        }
    }

    /// The minimum before rated play, in words.
    fn minimum(&self) -> String {
        let hours = self.settings.min_account_age_seconds.div_ceil(3600);
        let games = self.settings.min_games;
        format!(
            "rated play opens once an account is {hours} hour{} old and has finished {games} game{}",
            if hours == 1 { "" } else { "s" },
            if games == 1 { "" } else { "s" },
        )
    }

    /// Why the game `match_id` between `players` (by seat) is not to be
    /// rated, if it is not: a guest or an account not rated yet in a seat,
    /// or two opponents past the day's cap.
    pub async fn why_unrated(
        &self,
        match_id: &str,
        rules: &Rules,
        players: &[String],
    ) -> Result<Option<(UnratedReason, String)>, StoreError> {
        let now = now_ms();
        for player in players {
            let standing = self.store.account_standing(player, match_id).await?;
            match locked(standing, now, &self.settings) {
                None => {}
                Some(UnratedReason::Guest) => {
                    let why = "a guest played: only accounts are rated".to_owned();
                    return Ok(Some((UnratedReason::Guest, why)));
                }
                Some(reason) => {
                    let why = format!("an account here is not rated yet ({})", self.minimum());
                    return Ok(Some((reason, why)));
                }
            }
        }
        let cap = self.settings.daily_games_per_opponent;
        if cap == 0 {
            return Ok(None);
        }
        let sides: Vec<u8> =
            (0..players.len()).map(|seat| rules.team_of(Seat(seat as u8)).0).collect();
        for (a, player) in players.iter().enumerate() {
            for (b, other) in players.iter().enumerate().skip(a + 1) {
                if sides[a] == sides[b] {
                    continue;
                }
                if self.store.rated_together(player, other, now - DAY_MS).await? >= cap {
                    let why = format!(
                        "two opponents here have played {cap} rated games against each other \
                         in 24 hours, as many as count: this one was casual"
                    );
                    return Ok(Some((UnratedReason::DailyCap, why)));
                }
            }
        }
        Ok(None)
    }

    /// The notice for a rated table's game starting now that will not be
    /// rated, so that its players know before they play it, not only at its
    /// end. `None` if it will be (or the store cannot say: the end tells).
    pub async fn notice_at_start(
        &self,
        match_id: &str,
        rules: &Rules,
        players: &[String],
    ) -> Option<TableNotice> {
        match self.why_unrated(match_id, rules, players).await {
            Ok(Some((reason, message))) => Some(TableNotice::Unrated { reason, message }),
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(%error, %match_id, "cannot tell whether a game will be rated");
                None
            }
        }
    }

    /// Rates `game` and stores the ratings, answering with the notice for
    /// the game's table: its ratings, or why it was not rated. A failure is
    /// logged and answers `None`: the game stays unrated, nothing else is lost.
    pub async fn rate(&self, game: FinishedGame) -> Option<TableNotice> {
        match self.why_unrated(&game.match_id, &game.rules, &game.players).await {
            Ok(None) => {}
            Ok(Some((reason, message))) => return Some(TableNotice::Unrated { reason, message }),
            Err(error) => {
                tracing::error!(%error, match_id = %game.match_id, "the game could not be rated");
                return None;
            }
        }
        // The engine's name of the form keys the stored ratings: one rating per form.
        let form = game.rules.form().name();
        let sides: Vec<usize> = (0..game.players.len())
            .map(|seat| usize::from(game.rules.team_of(Seat(seat as u8)).0))
            .collect();
        let rated = RatedMatch {
            match_id: game.match_id.clone(),
            form: form.to_owned(),
            players: game.players.clone(),
            at: now_ms(),
        };
        let result =
            GameResult { scores: &game.scores, winner: game.winner, forfeited: &game.forfeited };
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
            .enumerate()
            .map(|(seat, change)| SeatRating {
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

/// Why a player with `standing` (`None`: a guest) is not rated at `now`;
/// `None` if they are.
pub fn locked(
    standing: Option<AccountStanding>,
    now: Millis,
    settings: &RatingSettings,
) -> Option<UnratedReason> {
    let Some(standing) = standing else { return Some(UnratedReason::Guest) };
    let min_age_ms = i64::try_from(settings.min_account_age_seconds.saturating_mul(1000));
    let old_enough = now.saturating_sub(standing.created_at) >= min_age_ms.unwrap_or(i64::MAX);
    let played_enough = standing.games_finished >= settings.min_games;
    (!(old_enough && played_enough)).then_some(UnratedReason::NewAccount)
}

/// A player's rating before their first rated game in a form.
const START: Glicko2Rating = Glicko2Rating::new();

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
        if side_gone(mine) {
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
    fn a_forfeiter_loses_whatever_the_bot_makes_of_the_game_and_so_does_the_partner() {
        let sides = [0, 1, 0, 1];
        // Seat 0 left; seat 2, the partner, stayed. The bot and the
        // partner go on to win the game.
        let gone = [true, false, false, false];
        let result = GameResult { scores: &[10, 6], winner: Some(0), forfeited: &gone };
        let new = rate(&[None, None, None, None], &sides, &result);
        assert!(new[0].rating < 1500.0, "the leaver loses though the side won");
        assert!(new[2].rating < 1500.0, "the partner who stayed loses with the side");
        assert!((new[0].rating - new[2].rating).abs() < 1e-9, "a whole loss, as the leaver's");
        assert!(new[1].rating > 1500.0 && new[3].rating > 1500.0, "the opponents win by forfeit");
        // The same when the table closed before the end.
        let unfinished = GameResult { scores: &[4, 2], winner: None, forfeited: &gone };
        let closed = rate(&[None, None, None, None], &sides, &unfinished);
        assert!(closed[0].rating < 1500.0 && closed[2].rating < 1500.0);
        assert!(closed[1].rating > 1500.0);
        // Everyone gone: everyone loses.
        let all = GameResult { scores: &[4, 2], winner: None, forfeited: &[true; 4] };
        let all_gone = rate(&[None, None, None, None], &sides, &all);
        assert!(all_gone.iter().all(|r| r.rating < 1500.0));
    }

    #[test]
    fn only_accounts_old_enough_and_with_games_enough_are_rated() {
        let settings =
            RatingSettings { min_account_age_seconds: 3600, min_games: 2, ..Default::default() };
        let hour = 3_600_000;
        let account =
            |created_at, games_finished| Some(AccountStanding { created_at, games_finished });
        assert_eq!(locked(None, 10 * hour, &settings), Some(UnratedReason::Guest));
        assert_eq!(locked(account(0, 5), hour - 1, &settings), Some(UnratedReason::NewAccount));
        assert_eq!(locked(account(0, 1), 10 * hour, &settings), Some(UnratedReason::NewAccount));
        assert_eq!(locked(account(0, 2), hour, &settings), None);
        let open = RatingSettings { min_account_age_seconds: 0, min_games: 0, ..settings };
        assert_eq!(locked(account(5, 0), 5, &open), None);
        assert_eq!(locked(None, 5, &open), Some(UnratedReason::Guest), "a guest never");
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
