//! A knockout of six teams, best of three: byes to the top two seeds.

use euchre_tournament::{
    Change, Format, KnockoutSettings, KnockoutStanding, Seeding, Settings, Standings, TableResult,
    TeamId, Teams, Tournament,
};

use crate::{id, players};

/// Six teams made by rating from twelve players (p0 with p11, p1 with
/// p10, ...): equal mean ratings, so seeding falls back on team order and
/// team k is seed k + 1.
fn knockout(best_of: u8) -> Tournament {
    let format = Format::Knockout(KnockoutSettings {
        teams: Teams::ByRating,
        seeding: Seeding::Rating,
        best_of,
    });
    Tournament::new(Settings { seed: 9, players: players("p", 12), format }).expect("valid")
}

fn pairs(round: &euchre_tournament::Round) -> Vec<[u32; 2]> {
    round.tables.iter().filter_map(|t| t.teams).map(|t| t.map(|team| team.0)).collect()
}

fn games(scores: &[[u32; 2]]) -> TableResult {
    TableResult { games: scores.to_vec() }
}

#[test]
fn six_teams_with_byes() {
    let mut knockout = knockout(3);
    // A bracket of eight: seeds 1 v 8, 4 v 5, 2 v 7, 3 v 6; seeds 7 and 8
    // are missing, so seeds 1 and 2 (teams 0 and 1) have byes.
    let first = knockout.next_round().expect("round one");
    assert_eq!(pairs(&first), vec![[3, 4], [2, 5]]);
    assert_eq!(first.byes, vec![TeamId(0), TeamId(1)]);
    // Team 3 wins in three, team 5 in two.
    knockout
        .record_round(vec![games(&[[10, 4], [6, 10], [10, 8]]), games(&[[7, 10], [9, 10]])])
        .expect("accepted");
    let second = knockout.next_round().expect("round two");
    assert_eq!(pairs(&second), vec![[0, 3], [1, 5]]);
    assert!(second.byes.is_empty());
    knockout
        .record_round(vec![games(&[[10, 2], [10, 5]]), games(&[[4, 10], [10, 8], [9, 10]])])
        .expect("accepted");
    let final_ = knockout.next_round().expect("the final");
    assert_eq!(pairs(&final_), vec![[0, 5]]);
    assert!(!knockout.is_finished());
    knockout.record_round(vec![games(&[[10, 7], [8, 10], [10, 9]])]).expect("accepted");
    assert!(knockout.is_finished());
    let Standings::Knockout(standings) = knockout.standings() else { panic!("a knockout") };
    let row = |s: &KnockoutStanding| (s.rank, s.team.0, s.seed, s.out_in);
    assert_eq!(
        standings.iter().map(row).collect::<Vec<_>>(),
        vec![
            (1, 0, 1, None),
            (2, 5, 6, Some(3)),
            (3, 1, 2, Some(2)),
            (3, 3, 4, Some(2)),
            (5, 2, 3, Some(1)),
            (5, 4, 5, Some(1)),
        ]
    );
}

#[test]
fn undecided_or_overlong_matches_are_refused() {
    let mut knockout = knockout(3);
    let codes = |knockout: &mut Tournament, first: TableResult| {
        knockout
            .record_round(vec![first, games(&[[10, 0], [10, 0]])])
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        codes(&mut knockout, games(&[[10, 4], [6, 10]])),
        Err("table 0: the match is not decided".into())
    );
    assert_eq!(
        codes(&mut knockout, games(&[[10, 4], [10, 6], [2, 10]])),
        Err("table 0: a game after the match was decided".into())
    );
    assert_eq!(
        codes(&mut knockout, games(&[[7, 7]])),
        Err("table 0: game 1 is level: a knockout game needs a winner".into())
    );
    assert_eq!(knockout.rounds_played(), 0);
    let mut one = self::knockout(1);
    assert!(one.record_round(vec![games(&[[10, 4], [10, 6]]), games(&[[10, 0]])]).is_err());
    assert!(one.record_round(vec![games(&[[10, 4]]), games(&[[3, 10]])]).is_ok());
}

/// A withdrawn team's opponent goes through by walkover; a late team is
/// taken before round one only.
#[test]
fn withdrawal_is_a_walkover() {
    let mut knockout = knockout(1);
    knockout.record_round(vec![games(&[[10, 4]]), games(&[[10, 6]])]).expect("round one");
    // Round two would be 0 v 3 and 1 v 2; team 3's p3 leaves.
    knockout.apply(Change::Remove { player: id("p3") }).expect("removed");
    let second = knockout.next_round().expect("round two");
    assert_eq!(pairs(&second), vec![[1, 2]]);
    assert_eq!(second.byes, vec![TeamId(0)]);
    let late = Change::Add { players: players("late", 2) };
    assert_eq!(knockout.apply(late).map_err(|e| e.code()), Err("late_entry_closed"));
}
