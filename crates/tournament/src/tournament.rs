//! The tournament as a value: built from its settings, changed by the
//! organiser's changes and the rounds' results, asked for the next round's
//! pairing. Its [`Record`] is everything it was built from, so a stored
//! record rebuilds it and [`verify`] re-derives every round.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::error::TournamentError;
use crate::knockout::{self, KnockoutStanding};
use crate::progressive::{Meetings, PlayerStanding, Seating};
use crate::round::{Round, Seat, Table, TableResult, Team, TeamId};
use crate::settings::{Format, Player, PlayerId, Settings};
use crate::swiss::{SwissState, TeamStanding};
use crate::teams;

/// What an organiser (or the server for them) does between rounds. Each
/// takes effect from the next round to be paired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// The player is not there at the round's start: a bot plays their seat
    /// for that round only.
    Absent { player: PlayerId },
    /// The player leaves for good; in a team format their team withdraws.
    /// Results already played stand.
    Remove { player: PlayerId },
    /// Late players, before round two (a knockout: before round one): one
    /// or more in a progressive night, a team of two in a team format.
    Add { players: Vec<Player> },
}

/// One step of a tournament's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Change(Change),
    /// A round as it was paired and each table's result, in table order.
    Round {
        round: Round,
        results: Vec<TableResult>,
    },
}

/// Everything a tournament follows from, as the server stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub settings: Settings,
    pub events: Vec<Event>,
}

/// The final order (or the order so far).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "standings", rename_all = "snake_case")]
pub enum Standings {
    Swiss(Vec<TeamStanding>),
    Knockout(Vec<KnockoutStanding>),
    Progressive(Vec<PlayerStanding>),
}

#[derive(Clone, Debug)]
enum Progress {
    Swiss(SwissState),
    /// The bracket's slots for the next round, once round one is paired.
    Knockout {
        slots: Option<Vec<Option<usize>>>,
        out_in: Vec<Option<u32>>,
    },
    Progressive(Meetings),
}

/// A tournament in progress (or over).
#[derive(Clone, Debug)]
pub struct Tournament {
    record: Record,
    players: Vec<Player>,
    removed: Vec<bool>,
    absent_next: HashSet<usize>,
    teams: Vec<Team>,
    team_members: Vec<[usize; 2]>,
    seed_of: Vec<usize>,
    rounds_played: u32,
    /// Whether the field is still the starting one (a whist design fits).
    field_changed: bool,
    progress: Progress,
}

impl Tournament {
    /// A tournament before its first round. Bad settings are refused.
    pub fn new(settings: Settings) -> Result<Self, TournamentError> {
        let mut seen = HashSet::new();
        for player in &settings.players {
            if !seen.insert(&player.id) {
                return Err(TournamentError::DuplicatePlayer(player.id.clone()));
            }
            if !player.rating.is_finite() {
                return Err(TournamentError::BadSettings(format!("{}'s rating", player.id)));
            }
        }
        let players = settings.players.clone();
        let (teams, seed_of, progress) = match &settings.format {
            Format::Swiss(swiss) => {
                if swiss.rounds == 0 {
                    return Err(TournamentError::BadSettings("a Swiss needs rounds".into()));
                }
                let teams = teams::form(&players, &swiss.teams, settings.seed)?;
                let mut state = SwissState::default();
                teams.iter().for_each(|_| state.add_team());
                let seed_of = teams::seeds(&teams, swiss.seeding, settings.seed);
                (teams, seed_of, Progress::Swiss(state))
            }
            Format::Knockout(knockout) => {
                if !matches!(knockout.best_of, 1 | 3) {
                    return Err(TournamentError::BadSettings("best of one or of three".into()));
                }
                let teams = teams::form(&players, &knockout.teams, settings.seed)?;
                let seed_of = teams::seeds(&teams, knockout.seeding, settings.seed);
                let out_in = vec![None; teams.len()];
                (teams, seed_of, Progress::Knockout { slots: None, out_in })
            }
            Format::Progressive(progressive) => {
                if progressive.rounds == 0 {
                    return Err(TournamentError::BadSettings("a night needs rounds".into()));
                }
                if players.len() < 4 {
                    return Err(TournamentError::TooFew);
                }
                (Vec::new(), Vec::new(), Progress::Progressive(Meetings::new(players.len())))
            }
        };
        if !matches!(settings.format, Format::Progressive(_)) && teams.len() < 2 {
            return Err(TournamentError::TooFew);
        }
        let index = |id: &PlayerId| players.iter().position(|p| &p.id == id).unwrap_or_default();
        let team_members = teams.iter().map(|team| team.players.each_ref().map(index)).collect();
        Ok(Self {
            removed: vec![false; players.len()],
            players,
            absent_next: HashSet::new(),
            teams,
            team_members,
            seed_of,
            rounds_played: 0,
            field_changed: false,
            progress,
            record: Record { settings, events: Vec::new() },
        })
    }

    /// Rebuilds a tournament from its record, checking each stored round
    /// against the one derived (see [`verify`] for the report).
    pub fn from_record(record: &Record) -> Result<Self, Mismatch> {
        verify(record)
    }

    pub fn record(&self) -> &Record {
        &self.record
    }

    pub fn settings(&self) -> &Settings {
        &self.record.settings
    }

    /// The teams of a team format, by id (none in a progressive night).
    pub fn teams(&self) -> &[Team] {
        &self.teams
    }

    pub fn rounds_played(&self) -> u32 {
        self.rounds_played
    }

    pub fn is_finished(&self) -> bool {
        match (&self.record.settings.format, &self.progress) {
            (Format::Swiss(swiss), _) => self.rounds_played >= swiss.rounds,
            (Format::Progressive(night), _) => self.rounds_played >= night.rounds,
            (_, Progress::Knockout { slots: Some(slots), .. }) => {
                slots.iter().flatten().count() <= 1
            }
            _ => false,
        }
    }

    fn player_index(&self, id: &PlayerId) -> Result<usize, TournamentError> {
        self.players
            .iter()
            .position(|player| &player.id == id)
            .ok_or_else(|| TournamentError::UnknownPlayer(id.clone()))
    }

    fn team_of(&self, player: usize) -> Option<usize> {
        self.team_members.iter().position(|members| members.contains(&player))
    }

    fn team_withdrawn(&self, team: usize) -> bool {
        self.team_members[team].iter().any(|&p| self.removed[p])
    }

    /// Applies an organiser's change; a refused one changes nothing.
    pub fn apply(&mut self, change: Change) -> Result<(), TournamentError> {
        if self.is_finished() {
            return Err(TournamentError::Finished);
        }
        match &change {
            Change::Absent { player } => {
                let index = self.player_index(player)?;
                if self.removed[index] {
                    return Err(TournamentError::AlreadyRemoved(player.clone()));
                }
                self.absent_next.insert(index);
            }
            Change::Remove { player } => {
                let index = self.player_index(player)?;
                if self.removed[index] {
                    return Err(TournamentError::AlreadyRemoved(player.clone()));
                }
                if self.active_players().len() <= 4 && self.is_progressive() {
                    return Err(TournamentError::TooFew);
                }
                self.removed[index] = true;
                self.absent_next.remove(&index);
                self.field_changed = true;
                if let (Some(team), Progress::Knockout { out_in, .. }) =
                    (self.team_of(index), &mut self.progress)
                {
                    out_in[team].get_or_insert(self.rounds_played + 1);
                }
            }
            Change::Add { players } => self.add(players)?,
        }
        self.record.events.push(Event::Change(change));
        Ok(())
    }

    fn is_progressive(&self) -> bool {
        matches!(self.progress, Progress::Progressive(_))
    }

    fn add(&mut self, late: &[Player]) -> Result<(), TournamentError> {
        let closed = match self.progress {
            Progress::Knockout { .. } => self.rounds_played > 0,
            _ => self.rounds_played > 1,
        };
        if closed {
            return Err(TournamentError::LateEntryClosed);
        }
        if late.is_empty() || (!self.is_progressive() && late.len() != 2) {
            return Err(TournamentError::LateEntryNeedsTeam);
        }
        let mut seen = HashSet::new();
        for player in late {
            if self.players.iter().any(|p| p.id == player.id) || !seen.insert(&player.id) {
                return Err(TournamentError::DuplicatePlayer(player.id.clone()));
            }
            if !player.rating.is_finite() {
                return Err(TournamentError::BadSettings(format!("{}'s rating", player.id)));
            }
        }
        let first = self.players.len();
        self.players.extend(late.iter().cloned());
        self.removed.resize(self.players.len(), false);
        self.field_changed = true;
        match &mut self.progress {
            Progress::Progressive(meetings) => meetings.grow(self.players.len()),
            progress => {
                let team = self.teams.len();
                self.teams.push(teams::make_team(team, [&late[0], &late[1]]));
                self.team_members.push([first, first + 1]);
                // A late team seeds last.
                self.seed_of.push(team);
                match progress {
                    Progress::Swiss(state) => state.add_team(),
                    Progress::Knockout { out_in, .. } => out_in.push(None),
                    Progress::Progressive(_) => {}
                }
            }
        }
        Ok(())
    }

    fn active_players(&self) -> Vec<usize> {
        (0..self.players.len()).filter(|&p| !self.removed[p]).collect()
    }

    fn active_teams(&self) -> Vec<usize> {
        (0..self.teams.len()).filter(|&t| !self.team_withdrawn(t)).collect()
    }

    fn seat(&self, player: usize) -> Seat {
        let id = self.players[player].id.clone();
        if self.absent_next.contains(&player) { Seat::StandIn(id) } else { Seat::Player(id) }
    }

    fn team_table(&self, [a, b]: [usize; 2]) -> Table {
        let [a0, a1] = self.team_members[a];
        let [b0, b1] = self.team_members[b];
        Table {
            seats: [self.seat(a0), self.seat(b0), self.seat(a1), self.seat(b1)],
            teams: Some([TeamId(a as u32), TeamId(b as u32)]),
        }
    }

    /// The next round's pairing, derived from the settings, the seed and
    /// everything recorded so far; asking changes nothing.
    pub fn next_round(&self) -> Result<Round, TournamentError> {
        if self.is_finished() {
            return Err(TournamentError::Finished);
        }
        let number = self.rounds_played + 1;
        let seed = self.record.settings.seed;
        let mut round =
            Round { number, tables: Vec::new(), byes: Vec::new(), sitting_out: Vec::new() };
        match &self.progress {
            Progress::Swiss(state) => {
                let active = self.active_teams();
                if active.len() < 2 {
                    return Err(TournamentError::TooFew);
                }
                let order: Vec<usize> = if number == 1 {
                    let mut by_seed = active.clone();
                    by_seed.sort_by_key(|&t| self.seed_of[t]);
                    by_seed
                } else {
                    let withdrawn: Vec<bool> =
                        (0..self.teams.len()).map(|t| self.team_withdrawn(t)).collect();
                    state
                        .standings(&self.seed_of, &withdrawn)
                        .iter()
                        .map(|standing| standing.team.index())
                        .filter(|&t| !withdrawn[t])
                        .collect()
                };
                let (pairs, bye) = state.pair(&order, number == 1);
                round.tables = pairs.into_iter().map(|pair| self.team_table(pair)).collect();
                round.byes = bye.map(|t| TeamId(t as u32)).into_iter().collect();
            }
            Progress::Knockout { slots, .. } => {
                let slots = self.knockout_slots(slots.as_ref());
                for pairing in knockout::pairings(&slots) {
                    match pairing {
                        knockout::Pairing::Match(pair) => round.tables.push(self.team_table(pair)),
                        knockout::Pairing::Through(team) => round.byes.push(TeamId(team as u32)),
                        knockout::Pairing::Empty => {}
                    }
                }
            }
            Progress::Progressive(meetings) => {
                let Format::Progressive(night) = &self.record.settings.format else {
                    return Err(TournamentError::BadSettings("format".into()));
                };
                let Seating { tables, resting } = meetings.seat(
                    &self.active_players(),
                    number,
                    night.leftover,
                    seed,
                    !self.field_changed,
                );
                round.tables = tables
                    .into_iter()
                    .map(|seats| Table {
                        seats: seats.map(|seat| seat.map_or(Seat::Bot, |p| self.seat(p))),
                        teams: None,
                    })
                    .collect();
                round.sitting_out = resting.iter().map(|&p| self.players[p].id.clone()).collect();
            }
        }
        Ok(round)
    }

    /// The bracket's slots for the next round: drawn from the seeds before
    /// round one, withdrawn teams emptied.
    fn knockout_slots(&self, slots: Option<&Vec<Option<usize>>>) -> Vec<Option<usize>> {
        let slots = match slots {
            Some(slots) => slots.clone(),
            None => {
                let mut by_seed = self.active_teams();
                by_seed.sort_by_key(|&t| self.seed_of[t]);
                knockout::first_slots(&by_seed)
            }
        };
        slots.into_iter().map(|slot| slot.filter(|&t| !self.team_withdrawn(t))).collect()
    }

    /// Records the next round's results, one per table of [`Self::next_round`]
    /// in its order. Returns the round as paired. Refused results change nothing.
    pub fn record_round(&mut self, results: Vec<TableResult>) -> Result<Round, TournamentError> {
        let round = self.next_round()?;
        self.check_results(&round, &results)?;
        self.apply_results(&round, &results);
        self.record.events.push(Event::Round { round: round.clone(), results });
        Ok(round)
    }

    fn check_results(&self, round: &Round, results: &[TableResult]) -> Result<(), TournamentError> {
        if results.len() != round.tables.len() {
            return Err(TournamentError::ResultCount {
                round: round.number,
                expected: round.tables.len(),
                given: results.len(),
            });
        }
        let bad = |table: usize, reason: &str| TournamentError::BadResult {
            table,
            reason: reason.to_owned(),
        };
        for (table, result) in results.iter().enumerate() {
            match &self.record.settings.format {
                Format::Swiss(_) if result.games.len() != 1 => {
                    return Err(bad(table, "a Swiss match is one game"));
                }
                Format::Progressive(_) if result.games.len() != 1 => {
                    return Err(bad(table, "a progressive table has one score"));
                }
                Format::Knockout(knockout) => {
                    let mut won = [0u8; 2];
                    let needed = knockout.best_of / 2 + 1;
                    for (game, [a, b]) in result.games.iter().enumerate() {
                        if won.contains(&needed) {
                            return Err(bad(table, "a game after the match was decided"));
                        }
                        if a == b {
                            return Err(bad(
                                table,
                                &format!(
                                    "game {} is level: a knockout game needs a winner",
                                    game + 1
                                ),
                            ));
                        }
                        won[usize::from(b > a)] += 1;
                    }
                    if !won.contains(&needed) {
                        return Err(bad(table, "the match is not decided"));
                    }
                }
                Format::Swiss(_) | Format::Progressive(_) => {}
            }
        }
        Ok(())
    }

    fn apply_results(&mut self, round: &Round, results: &[TableResult]) {
        let knockout_current = match &self.progress {
            Progress::Knockout { slots, .. } => Some(self.knockout_slots(slots.as_ref())),
            _ => None,
        };
        let index = |id: &PlayerId| self.players.iter().position(|p| &p.id == id);
        match &mut self.progress {
            Progress::Swiss(state) => {
                for (table, result) in round.tables.iter().zip(results) {
                    if let Some(teams) = table.teams {
                        state.record_game(teams.map(TeamId::index), result.games[0]);
                    }
                }
                for bye in &round.byes {
                    state.record_bye(bye.index());
                }
            }
            Progress::Knockout { slots, out_in } => {
                let current = knockout_current.unwrap_or_default();
                let mut results = results.iter();
                let mut next = Vec::with_capacity(current.len() / 2);
                for pairing in knockout::pairings(&current) {
                    next.push(match pairing {
                        knockout::Pairing::Match(pair) => {
                            let winner = results.next().map_or(0, match_winner);
                            out_in[pair[1 - winner]] = Some(round.number);
                            Some(pair[winner])
                        }
                        knockout::Pairing::Through(team) => Some(team),
                        knockout::Pairing::Empty => None,
                    });
                }
                *slots = Some(next);
            }
            Progress::Progressive(meetings) => {
                let mut round_points = Vec::new();
                for (table, result) in round.tables.iter().zip(results) {
                    let seats = table.seats.each_ref().map(|seat| seat.player().and_then(index));
                    let present =
                        table.seats.each_ref().map(|seat| matches!(seat, Seat::Player(_)));
                    let points = result.games[0];
                    meetings.record_table(seats, present, points);
                    for seat in 0..4 {
                        if present[seat] {
                            round_points.push(u64::from(points[seat % 2]));
                        }
                    }
                }
                // A resting player scores the mean of those who played, rounded down.
                let mean = round_points.iter().sum::<u64>() / (round_points.len().max(1) as u64);
                for player in round.sitting_out.iter().filter_map(index) {
                    meetings.record_rest(player, mean);
                }
            }
        }
        self.absent_next.clear();
        self.rounds_played += 1;
    }

    /// The standings so far.
    pub fn standings(&self) -> Standings {
        match &self.progress {
            Progress::Swiss(state) => {
                let withdrawn: Vec<bool> =
                    (0..self.teams.len()).map(|t| self.team_withdrawn(t)).collect();
                Standings::Swiss(state.standings(&self.seed_of, &withdrawn))
            }
            Progress::Knockout { out_in, .. } => {
                Standings::Knockout(knockout::standings(&self.seed_of, out_in, self.rounds_played))
            }
            Progress::Progressive(meetings) => {
                let mut order: Vec<usize> = (0..self.players.len()).collect();
                order.sort_by(|&a, &b| meetings.points[b].cmp(&meetings.points[a]).then(a.cmp(&b)));
                let mut standings: Vec<PlayerStanding> = Vec::with_capacity(order.len());
                for (position, &p) in order.iter().enumerate() {
                    let rank = match standings.last() {
                        Some(last) if last.points == meetings.points[p] => last.rank,
                        _ => position as u32 + 1,
                    };
                    standings.push(PlayerStanding {
                        rank,
                        player: self.players[p].id.clone(),
                        points: meetings.points[p],
                        rounds_played: meetings.played[p],
                        rounds_rested: meetings.rested[p],
                        rounds_absent: meetings.absent[p],
                        removed: self.removed[p],
                    });
                }
                Standings::Progressive(standings)
            }
        }
    }

    /// A progressive night's meeting counts between two players (partnered,
    /// opposed), for checks and reports; `None` outside a progressive night
    /// or for an unknown player.
    pub fn meetings(&self, a: &PlayerId, b: &PlayerId) -> Option<(u8, u8)> {
        let Progress::Progressive(meetings) = &self.progress else {
            return None;
        };
        let (a, b) = (self.player_index(a).ok()?, self.player_index(b).ok()?);
        Some((meetings.partnered(a, b), meetings.opposed(a, b)))
    }

    /// How many rounds a progressive player has sat at a table with a bot.
    pub fn rounds_with_bots(&self, player: &PlayerId) -> Option<u32> {
        let Progress::Progressive(meetings) = &self.progress else {
            return None;
        };
        Some(meetings.sat_with_bots(self.player_index(player).ok()?))
    }
}

/// 0 if the side in seats 0 and 2 won the match, else 1 (checked results).
fn match_winner(result: &TableResult) -> usize {
    let won = result.games.iter().fold([0u32; 2], |mut won, [a, b]| {
        won[usize::from(b > a)] += 1;
        won
    });
    usize::from(won[1] > won[0])
}

/// Where a stored record and the tournament derived from it part.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    #[error("the settings are refused: {0}")]
    Settings(TournamentError),
    #[error("event {event}: refused: {error}")]
    Refused { event: usize, error: TournamentError },
    #[error(
        "event {event}: round {round} is stored paired differently from how it derives: {detail}"
    )]
    Pairing { event: usize, round: u32, detail: String },
}

/// Re-derives every round of a stored record from its settings, seed and
/// the events before it, and returns the tournament it comes to, or the
/// first place where the record and the derivation disagree.
pub fn verify(record: &Record) -> Result<Tournament, Mismatch> {
    let mut tournament = Tournament::new(record.settings.clone()).map_err(Mismatch::Settings)?;
    for (event, step) in record.events.iter().enumerate() {
        match step {
            Event::Change(change) => tournament
                .apply(change.clone())
                .map_err(|error| Mismatch::Refused { event, error })?,
            Event::Round { round, results } => {
                let derived =
                    tournament.next_round().map_err(|error| Mismatch::Refused { event, error })?;
                if let Some(detail) = first_difference(&derived, round) {
                    return Err(Mismatch::Pairing { event, round: derived.number, detail });
                }
                tournament
                    .record_round(results.clone())
                    .map_err(|error| Mismatch::Refused { event, error })?;
            }
        }
    }
    Ok(tournament)
}

fn first_difference(derived: &Round, stored: &Round) -> Option<String> {
    if derived.number != stored.number {
        return Some(format!("stored as round {}", stored.number));
    }
    for (table, (ours, theirs)) in derived.tables.iter().zip(&stored.tables).enumerate() {
        if ours != theirs {
            return Some(format!("table {table}: derived {ours:?}, stored {theirs:?}"));
        }
    }
    if derived.tables.len() != stored.tables.len() {
        return Some(format!(
            "{} tables derived, {} stored",
            derived.tables.len(),
            stored.tables.len()
        ));
    }
    if derived.byes != stored.byes {
        return Some(format!("byes: derived {:?}, stored {:?}", derived.byes, stored.byes));
    }
    if derived.sitting_out != stored.sitting_out {
        return Some(format!(
            "resting: derived {:?}, stored {:?}",
            derived.sitting_out, stored.sitting_out
        ));
    }
    None
}
