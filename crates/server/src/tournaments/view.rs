//! A tournament as the API shows it, built from its saved document: the
//! rounds played with their results, the round in play (its pairing
//! derived again from the record), and the standings.

use euchre_protocol::api::{
    EntryView, RoundSeatView, RoundTableView, RoundView, TournamentSummaryView, TournamentView,
};
use euchre_tournament::{Event, Round, Seat, TableResult, Tournament};

use super::doc::{Status, TournamentDoc};

/// A tournament as listed.
pub fn summary_view(doc: &TournamentDoc) -> TournamentSummaryView {
    TournamentSummaryView {
        id: doc.id.clone(),
        name: doc.spec.name.clone(),
        format: doc.spec.format,
        preset: doc.spec.preset,
        status: doc.status.as_str().to_owned(),
        starts_at: doc.starts_at,
        players: doc.entries.len() as u32,
        max_players: doc.max_players(),
    }
}

/// A tournament in full.
pub fn tournament_view(doc: &TournamentDoc) -> TournamentView {
    let engine = doc.record.as_ref().and_then(|record| Tournament::from_record(record).ok());
    let mut rounds: Vec<RoundView> = Vec::new();
    if let Some(record) = &doc.record {
        for event in &record.events {
            if let Event::Round { round, results } = event {
                let tables = doc.tables.get(rounds.len());
                rounds.push(round_view(doc, engine.as_ref(), round, tables, Some(results)));
            }
        }
    }
    // The round in play, once seated.
    if let Some(engine) = &engine
        && !engine.is_finished()
        && let Some(tables) = doc.tables.get(rounds.len())
        && let Ok(round) = engine.next_round()
    {
        rounds.push(round_view(doc, Some(engine), &round, Some(tables), None));
    }
    TournamentView {
        id: doc.id.clone(),
        name: doc.spec.name.clone(),
        organiser: doc.organiser.name.clone(),
        organiser_id: doc.organiser.id.clone(),
        format: doc.spec.format,
        preset: doc.spec.preset,
        status: doc.status.as_str().to_owned(),
        cancelled: doc.cancelled.clone(),
        paused: doc.paused,
        rounds: doc.spec.rounds,
        best_of: doc.spec.best_of,
        round_hands: doc.spec.round_hands,
        round_seconds: doc.spec.round_seconds,
        round_deadline: doc.round_deadline.filter(|_| doc.status == Status::Running),
        max_players: doc.max_players(),
        listed: doc.spec.listed,
        rated: doc.spec.rated,
        created_at: doc.created_at,
        starts_at: doc.starts_at,
        finished_at: doc.finished_at,
        entries: (doc.entries.iter())
            .map(|entry| EntryView {
                player_id: entry.player.id.clone(),
                name: entry.player.name.clone(),
                rating: entry.rating,
            })
            .collect(),
        teams: engine.as_ref().map(|engine| team_names(doc, engine)).unwrap_or_default(),
        round_list: rounds,
        standings: engine.and_then(|engine| serde_json::to_value(engine.standings()).ok()),
    }
}

/// Each team's players' names, in the order of the teams' ids.
fn team_names(doc: &TournamentDoc, engine: &Tournament) -> Vec<Vec<String>> {
    let mut teams: Vec<_> = engine.teams().iter().collect();
    teams.sort_by_key(|team| team.id);
    (teams.into_iter())
        .map(|team| team.players.iter().map(|p| player_name(doc, &p.0)).collect())
        .collect()
}

fn player_name(doc: &TournamentDoc, id: &str) -> String {
    doc.entry(id).map_or_else(|| id.to_owned(), |e| e.player.name.clone())
}

fn round_view(
    doc: &TournamentDoc,
    engine: Option<&Tournament>,
    round: &Round,
    tables: Option<&Vec<String>>,
    results: Option<&Vec<TableResult>>,
) -> RoundView {
    let name = |id: &str| player_name(doc, id);
    let team_names = |team: &euchre_tournament::TeamId| {
        let team = engine.and_then(|engine| engine.teams().iter().find(|t| t.id == *team));
        team.map(|team| team.players.iter().map(|p| name(&p.0)).collect()).unwrap_or_default()
    };
    RoundView {
        number: round.number,
        tables: (round.tables.iter().enumerate())
            .map(|(index, table)| RoundTableView {
                table: tables.and_then(|tables| tables.get(index)).cloned(),
                seats: (table.seats.iter())
                    .map(|seat| match seat {
                        Seat::Player(id) => RoundSeatView {
                            player_id: Some(id.0.clone()),
                            name: name(&id.0),
                            bot: false,
                        },
                        Seat::StandIn(id) => RoundSeatView {
                            player_id: Some(id.0.clone()),
                            name: name(&id.0),
                            bot: true,
                        },
                        Seat::Bot => {
                            RoundSeatView { player_id: None, name: "Bot".into(), bot: true }
                        }
                    })
                    .collect(),
                games: results.and_then(|results| results.get(index)).map(|r| r.games.clone()),
            })
            .collect(),
        byes: round.byes.iter().map(team_names).collect(),
        resting: round.sitting_out.iter().map(|id| name(&id.0)).collect(),
        finished: results.is_some(),
    }
}
