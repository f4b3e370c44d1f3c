//! Progressive nights played through: who sat where, who scored what.

use std::collections::HashMap;

use euchre_tournament::{
    Change, Format, Leftover, PlayerId, ProgressiveSettings, Round, RoundLength, Seat, Settings,
    Standings, TableResult, Tournament,
};

use crate::{id, play, players};

fn night(count: usize, rounds: u32, leftover: Leftover) -> Tournament {
    let format = Format::Progressive(ProgressiveSettings {
        rounds,
        round_length: RoundLength::Hands(8),
        leftover,
    });
    Tournament::new(Settings { seed: 2026, players: players("p", count), format }).expect("valid")
}

/// Round r, table k: the side in seats 0 and 2 makes r + k + 3 points, the
/// other side k + 1.
fn score(round: u32) -> impl FnMut(usize, &euchre_tournament::Table) -> TableResult {
    move |k, _| TableResult::one([round + k as u32 + 3, k as u32 + 1])
}

/// Each player's total worked out from the seating: the points their side
/// made at every table where they sat themselves.
fn totals(rounds: &[Round]) -> HashMap<PlayerId, u64> {
    let mut totals = HashMap::new();
    for round in rounds {
        for (k, table) in round.tables.iter().enumerate() {
            for (seat, player) in table.seats.iter().enumerate() {
                let points = if seat % 2 == 0 { round.number + k as u32 + 3 } else { k as u32 + 1 };
                if let Seat::Player(player) = player {
                    *totals.entry(player.clone()).or_default() += u64::from(points);
                }
            }
        }
    }
    totals
}

fn standings(night: &Tournament) -> Vec<euchre_tournament::PlayerStanding> {
    match night.standings() {
        Standings::Progressive(standings) => standings,
        other => panic!("not progressive: {other:?}"),
    }
}

/// Thirteen players, four rounds, leftover seats to bots: four tables a
/// round, three bots at three different tables, the nine seats beside them
/// going first to those who have not sat with a bot; nobody partners anyone
/// twice.
#[test]
fn thirteen_players_four_rounds() {
    let mut night = night(13, 4, Leftover::Bots);
    let mut rounds = Vec::new();
    for number in 1..=4 {
        let round = play(&mut night, score(number));
        assert_eq!(round.tables.len(), 4);
        let bots: Vec<usize> = round
            .tables
            .iter()
            .map(|t| t.seats.iter().filter(|s| **s == Seat::Bot).count())
            .collect();
        assert_eq!(bots.iter().sum::<usize>(), 3);
        assert!(bots.iter().all(|&b| b <= 1), "round {number}: {bots:?}");
        // The bots' turns: after round one nine players have had one; after
        // round two everyone has had one, and nobody two before that.
        let turns: Vec<u32> = players("p", 13)
            .iter()
            .map(|p| night.rounds_with_bots(&p.id).expect("a player"))
            .collect();
        let (low, high) = (turns.iter().min().copied(), turns.iter().max().copied());
        assert!(high.zip(low).is_some_and(|(h, l)| h - l <= 1), "round {number}: {turns:?}");
        rounds.push(round);
    }
    for (i, a) in players("p", 13).iter().enumerate() {
        for b in &players("p", 13)[i + 1..] {
            let (partnered, _) = night.meetings(&a.id, &b.id).expect("players");
            assert!(partnered <= 1, "{} and {} partnered {partnered} times", a.id, b.id);
        }
    }
    // Everyone played every round; each scored their side's points.
    let expected = totals(&rounds);
    let standings = standings(&night);
    for standing in &standings {
        assert_eq!(standing.rounds_played, 4);
        assert_eq!(standing.points, expected[&standing.player], "{}", standing.player);
    }
    // By total, equal totals sharing a rank.
    for pair in standings.windows(2) {
        assert!(pair[0].points >= pair[1].points);
        assert_eq!(pair[0].points == pair[1].points, pair[0].rank == pair[1].rank);
    }
}

/// A player absent at round two's start: a bot plays their seat, they score
/// nothing for it, meet nobody in it, and are back in round three. A late
/// player joins before round two; one removed is not seated again.
#[test]
fn absent_late_and_removed_players() {
    let mut night = night(8, 3, Leftover::Bots);
    play(&mut night, score(1));
    let before = standings(&night).into_iter().find(|s| s.player == id("p2")).expect("p2").points;
    night.apply(Change::Absent { player: id("p2") }).expect("absent");
    night.apply(Change::Add { players: players("late", 1) }).expect("late");
    night.apply(Change::Remove { player: id("p7") }).expect("removed");
    let everyone: Vec<PlayerId> =
        players("p", 8).into_iter().map(|p| p.id).chain([id("late0")]).collect();
    let p2_met = |night: &Tournament| -> Vec<Option<(u8, u8)>> {
        everyone.iter().map(|other| night.meetings(&id("p2"), other)).collect()
    };
    let met_before = p2_met(&night);
    let second = play(&mut night, score(2));
    let seats: Vec<&Seat> = second.tables.iter().flat_map(|t| &t.seats).collect();
    assert!(seats.contains(&&Seat::StandIn(id("p2"))));
    assert!(seats.contains(&&Seat::Player(id("late0"))));
    assert!(!seats.iter().any(|s| s.player() == Some(&id("p7"))));
    // Eight players again (p7 out, late0 in): no bots.
    assert!(!seats.contains(&&Seat::Bot));
    let p2 = standings(&night).into_iter().find(|s| s.player == id("p2")).expect("p2");
    assert_eq!((p2.points, p2.rounds_played, p2.rounds_absent), (before, 1, 1));
    assert_eq!(p2_met(&night), met_before);
    let third = play(&mut night, score(3));
    let seats: Vec<&Seat> = third.tables.iter().flat_map(|t| &t.seats).collect();
    assert!(seats.contains(&&Seat::Player(id("p2"))));
    assert!(night.is_finished());
    // Late entries close once round two is played.
    let again = Change::Add { players: players("later", 1) };
    assert!(night.apply(again).is_err());
}

/// Resting instead of bots: nine players, the whist design (one rests a
/// round). A resting player scores the mean of the round's players' points,
/// rounded down.
#[test]
fn a_resting_player_scores_the_mean() {
    let mut night = night(9, 9, Leftover::SitOut);
    let round = play(&mut night, |k, _| TableResult::one([5 + k as u32, 2]));
    // Two tables: two players on 5 and two on 2, two on 6 and two on 2:
    // 30 points over 8 players, 3.75, rounded down.
    assert_eq!(round.sitting_out.len(), 1);
    let rester = &round.sitting_out[0];
    let standing = standings(&night).into_iter().find(|s| &s.player == rester).expect("rester");
    assert_eq!((standing.points, standing.rounds_rested, standing.rounds_played), (3, 1, 0));
    while !night.is_finished() {
        play(&mut night, |_, _| TableResult::one([1, 1]));
    }
    assert!(standings(&night).iter().all(|s| s.rounds_rested == 1 && s.rounds_played == 8));
}

#[test]
fn a_table_has_one_score() {
    let mut night = night(8, 2, Leftover::Bots);
    let two = TableResult { games: vec![[3, 0], [2, 0]] };
    let refused = night.record_round(vec![two, TableResult::one([1, 0])]);
    assert_eq!(refused.map_err(|e| e.code()), Err("bad_result"));
    assert_eq!(night.rounds_played(), 0);
    assert!(night.record_round(vec![TableResult::one([32, 0]), TableResult::one([1, 0])]).is_ok());
}
