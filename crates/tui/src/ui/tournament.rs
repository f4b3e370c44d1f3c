//! The tournaments registering and running, and one tournament: its
//! entries or standings, the round in play's tables, and the player's own
//! table when a round seats them.

use euchre_protocol::api::{RoundTableView, TournamentFormat, TournamentSummaryView};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::text::{bold, dim, fit, selectable_list};
use crate::app::App;
use crate::tournament;

fn format_name(format: TournamentFormat) -> &'static str {
    match format {
        TournamentFormat::Swiss => "Swiss",
        TournamentFormat::Knockout => "knockout",
        TournamentFormat::Progressive => "progressive",
    }
}

pub(super) fn list(frame: &mut Frame, app: &App, area: Rect) {
    let header = format!("{} {} {} players", fit("name", 28), fit("format", 12), fit("status", 12));
    let row = |listed: &TournamentSummaryView| {
        format!(
            "{} {} {} {}/{}",
            fit(&listed.name, 28),
            fit(format_name(listed.format), 12),
            fit(&listed.status, 12),
            listed.players,
            listed.max_players
        )
    };
    let title = format!(" Tournaments ({}) ", app.tournaments.len());
    let empty = "No tournament is registering or running.";
    let list = selectable_list(
        area,
        title,
        header,
        empty,
        &app.tournaments,
        row,
        app.tournaments_selected,
    );
    frame.render_widget(list, area);
}

/// Seats 0 and 2 against 1 and 3, bots marked.
fn table_line(number: usize, table: &RoundTableView) -> String {
    let name = |index: usize| {
        table.seats.get(index).map_or_else(String::new, |seat| {
            if seat.bot && seat.player_id.is_some() {
                format!("{} (bot)", seat.name)
            } else {
                seat.name.clone()
            }
        })
    };
    let score = match &table.games {
        Some(games) => {
            let games: Vec<String> = games.iter().map(|[a, b]| format!("{a}–{b}")).collect();
            format!(" · {}", games.join(", "))
        }
        None => " · playing".to_owned(),
    };
    format!("Table {}: {} & {} v {} & {}{score}", number + 1, name(0), name(2), name(1), name(3))
}

pub(super) fn page(frame: &mut Frame, app: &App, area: Rect) {
    let Some(view) = &app.tournament else {
        let block = Block::bordered().title(" Tournament ");
        frame.render_widget(Paragraph::new("Loading…").block(block), area);
        return;
    };
    let entered = tournament::entered(view, &app.player_id);
    let mut lines = vec![Line::styled(
        format!(
            "{} · {} · {} · by {}",
            view.name,
            format_name(view.format),
            view.preset.name(),
            view.organiser
        ),
        bold(),
    )];
    let mut state =
        format!("{} · {}/{} players", view.status, view.entries.len(), view.max_players);
    if view.status == "registering" {
        state.push_str(&format!(" · starts {}", tournament::utc(view.starts_at)));
    }
    if view.paused {
        state.push_str(" · paused");
    }
    if let Some(why) = &view.cancelled {
        state.push_str(&format!(" · cancelled: {why}"));
    }
    lines.push(Line::raw(state));
    let you = match (view.status.as_str(), entered) {
        ("registering", true) => "You are registered: w withdraws.",
        ("registering", false) => "You are not registered: e registers.",
        (_, true) => "You are playing.",
        (_, false) => "You are not playing.",
    };
    lines.push(Line::styled(you, Style::new().fg(Color::Cyan)));
    if let Some((round, table, _)) = tournament::your_table(view, &app.player_id) {
        let number = view
            .round_list
            .last()
            .and_then(|last| last.tables.iter().position(|t| t == table))
            .unwrap_or(0);
        lines.push(Line::styled(
            format!("Round {round} seats you at table {}: o opens it.", number + 1),
            Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        ));
    }
    lines.push(Line::raw(""));
    let standings = tournament::standings(view);
    if standings.is_empty() {
        lines.push(Line::styled("Entries", bold()));
        let names: Vec<&str> = view.entries.iter().map(|entry| entry.name.as_str()).collect();
        let names = if names.is_empty() { "nobody yet".to_owned() } else { names.join(", ") };
        lines.push(Line::raw(names));
    } else {
        lines.push(Line::styled("Standings", bold()));
        for row in &standings {
            lines.push(Line::raw(format!(
                "{:>3}. {} · {}",
                row.rank,
                fit(&row.who, 28),
                row.score
            )));
        }
    }
    if let Some(round) = view.round_list.last() {
        lines.push(Line::raw(""));
        let state = if round.finished { "over" } else { "in play" };
        lines.push(Line::styled(format!("Round {} ({state})", round.number), bold()));
        for (number, table) in round.tables.iter().enumerate() {
            lines.push(Line::raw(table_line(number, table)));
        }
        for names in &round.byes {
            lines.push(Line::styled(format!("Bye: {}", names.join(" & ")), dim()));
        }
        if !round.resting.is_empty() {
            lines.push(Line::styled(format!("Resting: {}", round.resting.join(", ")), dim()));
        }
    }
    let block = Block::bordered().title(" Tournament ");
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), area);
}
