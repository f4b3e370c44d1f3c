//! A stored record, as JSON, rebuilds the tournament and re-derives every
//! round; a doctored one is caught at its first mismatch.

use euchre_tournament::{
    Change, Event, Format, Leftover, Mismatch, ProgressiveSettings, Record, Seat, Settings,
    TableResult, Tournament, verify,
};

use crate::{id, play, players};

fn played_night() -> Tournament {
    let format = Format::Progressive(ProgressiveSettings {
        leftover: Leftover::Bots,
        ..ProgressiveSettings::new(4)
    });
    let mut night =
        Tournament::new(Settings { seed: 5, players: players("p", 13), format }).expect("valid");
    play(&mut night, |k, _| TableResult::one([k as u32 + 4, 2]));
    night.apply(Change::Absent { player: id("p4") }).expect("absent");
    night.apply(Change::Add { players: players("late", 2) }).expect("late");
    play(&mut night, |k, _| TableResult::one([3, k as u32]));
    play(&mut night, |_, _| TableResult::one([8, 8]));
    night
}

#[test]
fn a_stored_record_rebuilds_the_tournament() {
    let night = played_night();
    let json = serde_json::to_string(night.record()).expect("serialises");
    let stored: Record = serde_json::from_str(&json).expect("reads back");
    let rebuilt = verify(&stored).expect("every round derives as stored");
    assert_eq!(rebuilt.standings(), night.standings());
    assert_eq!(rebuilt.next_round(), night.next_round());
}

#[test]
fn the_first_mismatch_is_reported() {
    let night = played_night();
    let mut doctored = night.record().clone();
    // Swap two players in round two's stored pairing (event 3: after round
    // one and the two changes).
    let Event::Round { round, .. } = &mut doctored.events[3] else { panic!("a round") };
    assert_eq!(round.number, 2);
    round.tables[0].seats.swap(0, 1);
    match verify(&doctored) {
        Err(Mismatch::Pairing { event: 3, round: 2, detail }) => {
            assert!(detail.starts_with("table 0:"), "{detail}")
        }
        other => panic!("expected a pairing mismatch at event 3, got {other:?}"),
    }
    // A different seed derives different rounds: caught at round one.
    let mut reseeded = night.record().clone();
    reseeded.settings.seed += 1;
    assert!(matches!(verify(&reseeded), Err(Mismatch::Pairing { event: 0, round: 1, .. })));
    // A result the rules refuse is reported as refused, where it is.
    let mut refused = night.record().clone();
    let Event::Round { results, .. } = &mut refused.events[0] else { panic!("a round") };
    results.pop();
    assert!(matches!(verify(&refused), Err(Mismatch::Refused { event: 0, .. })));
}

#[test]
fn absences_are_in_the_record() {
    let night = played_night();
    let Event::Round { round, .. } = &night.record().events[3] else { panic!("a round") };
    assert!(round.tables.iter().any(|t| t.seats.contains(&Seat::StandIn(id("p4")))));
}

/// Team formats' records read back from JSON too, and re-derive.
#[test]
fn team_records_round_trip() {
    use euchre_tournament::{KnockoutSettings, Seeding, SwissSettings, Teams};
    let formats = [
        Format::Swiss(SwissSettings { rounds: 3, teams: Teams::Random, seeding: Seeding::Random }),
        Format::Knockout(KnockoutSettings {
            teams: Teams::ByRating,
            seeding: Seeding::Rating,
            best_of: 1,
        }),
    ];
    for format in formats {
        let mut tournament =
            Tournament::new(Settings { seed: 8, players: players("p", 14), format })
                .expect("valid");
        tournament.apply(Change::Absent { player: id("p3") }).expect("absent");
        while !tournament.is_finished() {
            play(&mut tournament, |k, _| TableResult::one([10, k as u32]));
        }
        let json = serde_json::to_string(tournament.record()).expect("serialises");
        let stored: Record = serde_json::from_str(&json).expect("reads back");
        assert_eq!(&stored, tournament.record());
        assert_eq!(verify(&stored).expect("derives").standings(), tournament.standings());
    }
}
