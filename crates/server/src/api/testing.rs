//! Matches for the API's unit tests.

use euchre_engine::{Action, Game, Rules};
use euchre_store::{MatchDetail, MatchSeat, MatchSummary};

/// A game of the default rules after a few actions: seat left of the
/// dealer orders up, the dealer discards, and the first trick is under way.
pub fn game_in_progress() -> Game {
    let mut game = Game::new(Rules::default(), 11).expect("default rules");
    for _ in 0..4 {
        let seat = game.turn().expect("in progress");
        let legal = game.legal_actions(seat);
        let action = legal
            .iter()
            .find(|a| matches!(a, Action::OrderUp { alone: false }))
            .or_else(|| legal.iter().find(|a| !matches!(a, Action::Concede | Action::Claim)))
            .expect("an action");
        game.apply(seat, *action).expect("legal");
    }
    game
}

pub fn detail(game: &Game, ended: bool) -> MatchDetail {
    let record = game.record().clone();
    let seats = (0..4)
        .map(|seat| MatchSeat {
            seat,
            player_id: None,
            bot: None,
            name: format!("P{seat}"),
            stand_in: None,
        })
        .collect();
    let summary = MatchSummary {
        id: "m".into(),
        table_id: "t".into(),
        number: 1,
        rules: record.rules,
        seats,
        started_at: 1,
        ended_at: ended.then_some(2),
        scores: record.scores.as_slice().to_vec(),
        winner: record.winner.map(|team| team.0),
        winners: record
            .winner
            .map(|team| (0..4).filter(|seat| seat % 2 == team.0).collect())
            .unwrap_or_default(),
        games: record.games.clone(),
        abandoned: None,
    };
    MatchDetail { summary, record }
}
