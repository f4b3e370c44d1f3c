//! Swiss events played through, their standings checked against ones
//! worked out by hand (in the comments).

use euchre_tournament::{
    Format, Seeding, Settings, Standings, SwissSettings, TableResult, TeamId, TeamStanding, Teams,
    Tournament, TournamentError,
};

use crate::{id, players};

/// Teams registered as (t{k}a, t{k}b), rated so team k is seed k + 1.
fn swiss(teams: usize, rounds: u32) -> Tournament {
    let mut entrants = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..teams {
        let [a, b] = [format!("t{k}a"), format!("t{k}b")];
        entrants.push(euchre_tournament::Player::new(&a, 2000.0 - 10.0 * k as f64));
        entrants.push(euchre_tournament::Player::new(&b, 2000.0 - 10.0 * k as f64));
        pairs.push([id(&a), id(&b)]);
    }
    let format = Format::Swiss(SwissSettings {
        rounds,
        teams: Teams::Registered(pairs),
        seeding: Seeding::Rating,
    });
    Tournament::new(Settings { seed: 1, players: entrants, format }).expect("valid settings")
}

/// Plays the next round, checking its pairs; `games` is (first team, second
/// team, their score) for each table in order.
fn round(swiss: &mut Tournament, games: &[(u32, u32, [u32; 2])]) {
    let round = swiss.next_round().expect("a round");
    let paired: Vec<[TeamId; 2]> = round.tables.iter().filter_map(|t| t.teams).collect();
    let expected: Vec<[TeamId; 2]> =
        games.iter().map(|&(a, b, _)| [TeamId(a), TeamId(b)]).collect();
    assert_eq!(paired, expected, "round {}", round.number);
    swiss
        .record_round(games.iter().map(|&(_, _, score)| TableResult::one(score)).collect())
        .expect("accepted");
}

fn standings(swiss: &Tournament) -> Vec<TeamStanding> {
    match swiss.standings() {
        Standings::Swiss(standings) => standings,
        other => panic!("not a Swiss: {other:?}"),
    }
}

/// (team, match points, Buchholz, head-to-head, for, against) in rank order.
type Row = (u32, f64, f64, f64, u32, u32);

fn rows(swiss: &Tournament) -> Vec<Row> {
    standings(swiss)
        .iter()
        .map(|s| {
            (s.team.0, s.match_points, s.buchholz, s.head_to_head, s.points_for, s.points_against)
        })
        .collect()
}

#[test]
fn eight_teams_three_rounds() {
    let mut swiss = swiss(8, 3);
    // Round one: top half against bottom half.
    round(&mut swiss, &[(0, 4, [10, 4]), (1, 5, [7, 10]), (2, 6, [10, 8]), (3, 7, [10, 9])]);
    // Winners on 1 with Buchholz 0, ordered by points difference: T0 +6,
    // T5 +3, T2 +2, T3 +1; losers on 0 with Buchholz 1: T7 -1, T6 -2,
    // T1 -3, T4 -6. Paired down the list.
    round(&mut swiss, &[(0, 5, [10, 6]), (2, 3, [5, 10]), (7, 6, [10, 3]), (1, 4, [6, 6])]);
    // T3 2 (Bh 2) and T0 2 (Bh 1.5); T5 1 (Bh 2.5), T7 and T2 1 (Bh 2,
    // never met, T7 +6 before T2 -3); T4 ½ (Bh 2.5), T1 ½ (Bh 1.5); T6 0.
    // T3 meets T0, T5 T7, T2 T4, T1 T6: none a rematch.
    round(&mut swiss, &[(3, 0, [10, 7]), (5, 7, [8, 10]), (2, 4, [10, 2]), (1, 6, [10, 5])]);
    // Final: Buchholz separates those level on match points.
    assert_eq!(
        rows(&swiss),
        vec![
            (3, 3.0, 6.0, 0.0, 30, 21),
            (0, 2.0, 4.5, 0.0, 27, 20),
            (7, 2.0, 4.0, 0.0, 29, 21),
            (2, 2.0, 3.5, 0.0, 25, 20),
            (1, 1.5, 1.5, 0.0, 23, 21),
            (5, 1.0, 5.5, 0.0, 24, 27),
            (4, 0.5, 5.5, 0.0, 12, 26),
            (6, 0.0, 5.5, 0.0, 16, 30),
        ]
    );
    assert!(swiss.is_finished());
    assert_eq!(swiss.next_round(), Err(TournamentError::Finished));
}

/// Four teams, three rounds: an all-play-all, so teams level on match
/// points are level on Buchholz too and head-to-head decides, before points
/// difference.
#[test]
fn head_to_head_before_points_difference() {
    let mut swiss = swiss(4, 3);
    round(&mut swiss, &[(0, 2, [10, 3]), (1, 3, [10, 9])]);
    // T0 +7 and T1 +1 on 1; T3 -1 and T2 -7 on 0.
    round(&mut swiss, &[(0, 1, [10, 7]), (3, 2, [6, 10])]);
    // T0 2; T1 and T2 on 1 with Buchholz 2, never met: T1 -2 before T2 -3;
    // T3 0. T0 has met T1 and T2, so meets T3.
    round(&mut swiss, &[(0, 3, [2, 10]), (1, 2, [10, 5])]);
    // T0 and T1 on 2, Buchholz 4: T0 beat T1, though T1's difference (+3)
    // is better than T0's (+2). T2 and T3 on 1, Buchholz 5: T2 beat T3
    // (-8 against +3).
    assert_eq!(
        rows(&swiss),
        vec![
            (0, 2.0, 4.0, 1.0, 22, 20),
            (1, 2.0, 4.0, 0.0, 27, 24),
            (2, 1.0, 5.0, 1.0, 18, 26),
            (3, 1.0, 5.0, 0.0, 25, 22),
        ]
    );
}

/// Five teams: each round's bye goes to the lowest-placed team without one,
/// is scored as a win, and nobody has two.
#[test]
fn the_bye_once_per_team() {
    let mut swiss = swiss(5, 5);
    let mut byes = Vec::new();
    for _ in 0..5 {
        let round = swiss.next_round().expect("a round");
        assert_eq!(round.byes.len(), 1);
        byes.push(round.byes[0]);
        // The side in seats 0 and 2 (the higher placed) always wins 10-5.
        swiss.record_round(vec![TableResult::one([10, 5]); round.tables.len()]).expect("accepted");
    }
    byes.sort();
    assert_eq!(byes, (0..5).map(TeamId).collect::<Vec<_>>());
    let standings = standings(&swiss);
    assert!(standings.iter().all(|s| s.byes == 1 && s.played == 4));
    // Each team: its bye (1) and its wins; the match points add up to one
    // per game plus one per bye.
    let total: f64 = standings.iter().map(|s| s.match_points).sum();
    assert_eq!(total, 10.0 + 5.0);
}

#[test]
fn a_wrong_result_changes_nothing() {
    let mut swiss = swiss(4, 2);
    let before = swiss.next_round().expect("a round");
    assert_eq!(
        swiss.record_round(vec![TableResult::one([10, 4])]).map(|_| ()),
        Err(TournamentError::ResultCount { round: 1, expected: 2, given: 1 })
    );
    let two_games = TableResult { games: vec![[10, 4], [10, 4]] };
    let refused = swiss.record_round(vec![two_games, TableResult::one([1, 0])]);
    assert_eq!(refused.map_err(|e| e.code()), Err("bad_result"));
    assert_eq!(swiss.rounds_played(), 0);
    assert_eq!(swiss.next_round().expect("a round"), before);
    assert!(swiss.record().events.is_empty());
}

/// Individuals paired into teams: by rating, strongest with weakest.
#[test]
fn teams_by_rating_come_out_even() {
    let format = Format::Swiss(SwissSettings {
        rounds: 1,
        teams: Teams::ByRating,
        seeding: Seeding::Rating,
    });
    let swiss = Tournament::new(Settings { seed: 3, players: players("p", 8), format })
        .expect("valid settings");
    let teams: Vec<[String; 2]> =
        swiss.teams().iter().map(|t| t.players.clone().map(|p| p.0)).collect();
    assert_eq!(
        teams,
        [["p0", "p7"], ["p1", "p6"], ["p2", "p5"], ["p3", "p4"]].map(|t| t.map(String::from))
    );
}
