//! Tournaments as the HTTP API shows them (docs/tournaments.md): the
//! standings read from the view's JSON, one row each, and the table of the
//! round in play that seats this player.

use euchre_protocol::api::{RoundTableView, TournamentView};
use serde::Deserialize;

/// The standings as the server writes them (`euchre-tournament`'s
/// `Standings`; the fields shown here).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", content = "standings", rename_all = "snake_case")]
enum Standings {
    Swiss(Vec<TeamStanding>),
    Knockout(Vec<KnockoutStanding>),
    Progressive(Vec<PlayerStanding>),
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
struct TeamStanding {
    rank: u32,
    team: u32,
    match_points: f64,
    buchholz: f64,
    points_for: u32,
    points_against: u32,
    #[serde(default)]
    withdrawn: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
struct KnockoutStanding {
    rank: u32,
    team: u32,
    seed: u32,
    out_in: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
struct PlayerStanding {
    rank: u32,
    player: String,
    points: u64,
    rounds_played: u32,
}

/// One row of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingRow {
    pub rank: u32,
    /// The player's name, or a team's players' names.
    pub who: String,
    /// What the rank rests on, in a few words.
    pub score: String,
}

/// The standings as rows, best first: empty before the start (or if the
/// server's JSON is not what this client reads).
pub fn standings(view: &TournamentView) -> Vec<StandingRow> {
    let Some(standings) = view.standings.as_ref() else { return Vec::new() };
    let Ok(standings) = serde_json::from_value::<Standings>(standings.clone()) else {
        return Vec::new();
    };
    let team = |id: u32| {
        let names = usize::try_from(id).ok().and_then(|index| view.teams.get(index));
        names.map_or_else(|| format!("team {id}"), |names| names.join(" & "))
    };
    match standings {
        Standings::Swiss(rows) => rows
            .into_iter()
            .map(|row| StandingRow {
                rank: row.rank,
                who: team(row.team),
                score: format!(
                    "{} pts · Buchholz {} · {}–{}{}",
                    row.match_points,
                    row.buchholz,
                    row.points_for,
                    row.points_against,
                    if row.withdrawn { " · withdrawn" } else { "" }
                ),
            })
            .collect(),
        Standings::Knockout(rows) => rows
            .into_iter()
            .map(|row| StandingRow {
                rank: row.rank,
                who: team(row.team),
                score: match row.out_in {
                    Some(round) => format!("seed {} · out in round {round}", row.seed),
                    None => format!("seed {} · still in", row.seed),
                },
            })
            .collect(),
        Standings::Progressive(rows) => rows
            .into_iter()
            .map(|row| {
                let entry = view.entries.iter().find(|entry| entry.player_id == row.player);
                StandingRow {
                    rank: row.rank,
                    who: entry.map_or(row.player.clone(), |entry| entry.name.clone()),
                    score: format!("{} points · {} rounds", row.points, row.rounds_played),
                }
            })
            .collect(),
    }
}

/// The table of the round in play that seats `player`, with its id, once
/// the round is seated and while it is being played.
pub fn your_table<'a>(
    view: &'a TournamentView,
    player: &str,
) -> Option<(u32, &'a RoundTableView, &'a str)> {
    if view.status != "running" {
        return None;
    }
    let round = view.round_list.last().filter(|round| !round.finished)?;
    round.tables.iter().find_map(|table| {
        let seated = table.seats.iter().any(|seat| seat.player_id.as_deref() == Some(player));
        let id = table.table.as_deref()?;
        seated.then_some((round.number, table, id))
    })
}

/// A time in ms since the Unix epoch as `2026-12-07 20:15 UTC`.
pub fn utc(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000);
    let (days, minute) = (minutes.div_euclid(1440), minutes.rem_euclid(1440));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year}-{month:02}-{day:02} {:02}:{:02} UTC", minute / 60, minute % 60)
}

/// Whether `player` is registered.
pub fn entered(view: &TournamentView, player: &str) -> bool {
    view.entries.iter().any(|entry| entry.player_id == player)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(standings: serde_json::Value) -> TournamentView {
        let json = serde_json::json!({
            "id": "t1", "name": "Friday", "organiser": "Olive", "organiser_id": "o",
            "format": "progressive", "preset": "standard", "status": "running",
            "cancelled": null, "paused": false, "rounds": 3, "best_of": null,
            "max_players": 64, "listed": true, "created_at": 0, "starts_at": 0,
            "finished_at": null,
            "entries": [{"player_id": "p1", "name": "Ann", "rating": 1500.0}],
            "teams": [["Ann", "Bob"]],
            "round_list": [{
                "number": 1, "byes": [], "resting": [], "finished": false,
                "tables": [{"table": "tb", "games": null, "seats": [
                    {"player_id": "p1", "name": "Ann", "bot": false},
                    {"player_id": null, "name": "Bot", "bot": true},
                    {"player_id": null, "name": "Bot", "bot": true},
                    {"player_id": null, "name": "Bot", "bot": true}]}]
            }],
            "standings": standings,
        });
        serde_json::from_value(json).expect("a view")
    }

    #[test]
    fn times_read_in_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_827_696_000), "2000-02-29 12:34 UTC");
        assert_eq!(utc(1_796_674_500_000), "2026-12-07 20:15 UTC");
    }

    #[test]
    fn progressive_standings_name_the_players() {
        let view = view(serde_json::json!({"kind": "progressive", "standings": [
            {"rank": 1, "player": "p1", "points": 7, "rounds_played": 1,
             "rounds_rested": 0, "rounds_absent": 0}]}));
        let rows = standings(&view);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].who.as_str(), rows[0].score.as_str()), ("Ann", "7 points · 1 rounds"));
        assert_eq!(your_table(&view, "p1").map(|(round, _, id)| (round, id)), Some((1, "tb")));
        assert!(your_table(&view, "p2").is_none());
    }

    #[test]
    fn swiss_standings_name_the_teams() {
        let view = view(serde_json::json!({"kind": "swiss", "standings": [
            {"rank": 1, "team": 0, "match_points": 1.0, "buchholz": 0.0, "head_to_head": 0.0,
             "points_for": 10, "points_against": 4, "played": 1, "byes": 0,
             "withdrawn": false}]}));
        assert_eq!(standings(&view)[0].who, "Ann & Bob");
    }
}
