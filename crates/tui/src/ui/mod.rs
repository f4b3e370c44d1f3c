//! Drawing: each screen is a pure function of the [`App`]'s state. Laid out
//! for 80x24 first; a larger terminal gets more room for the chat.
//!
//! [`draw`] lays out the title, the screen of the moment, the status line and
//! the keys to press; the screens are drawn by `lobby.rs` (the lobby with
//! quick play's searching line, a new table's form, quick play's form,
//! joining by id), `table.rs` (a game being played or watched),
//! `history.rs` (the player's matches and their replays), `puzzle.rs` (the
//! puzzle trainer, drawing the position with `table.rs`'s code) and
//! `tournament.rs` (the tournaments and one tournament's page), from the
//! shared pieces of `text.rs`.

mod history;
mod lobby;
mod puzzle;
mod table;
mod text;
mod tournament;

use euchre_protocol::TableStatus;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Style};
use ratatui::widgets::Paragraph;

use crate::app::{App, Connection, Screen, StatusKind};
pub use text::form_name;
use text::{dim, reversed};

pub fn draw(frame: &mut Frame, app: &App) {
    let [title, body, status, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(title_line(app)).style(reversed()), title);
    match app.screen {
        Screen::Lobby => lobby::lobby(frame, app, body),
        Screen::Create => lobby::create(frame, &app.create, body),
        Screen::QuickPlay => lobby::quick(frame, &app.quick, body),
        Screen::Join => lobby::join(frame, app, body),
        Screen::Table => match &app.table {
            Some(table) => table::table_screen(frame, app, table, body),
            None => lobby::lobby(frame, app, body),
        },
        Screen::History => history::history(frame, app, body),
        Screen::Replay => match &app.replay {
            Some(replay) => history::replay_screen(frame, replay, body),
            None => history::history(frame, app, body),
        },
        Screen::Puzzle => match &app.puzzle {
            Some(model) => puzzle::puzzle_screen(frame, model, body),
            None => lobby::lobby(frame, app, body),
        },
        Screen::Tournaments => tournament::list(frame, app, body),
        Screen::Tournament => tournament::page(frame, app, body),
    }
    frame.render_widget(status_line(app), status);
    frame.render_widget(Paragraph::new(help_line(app)).style(dim()), help);
}

fn title_line(app: &App) -> String {
    let place = match (&app.screen, &app.table) {
        // Ids are long: the start is enough to tell tables apart here.
        (Screen::Table, Some(table)) => format!(
            " · table {} · {} ({} seats)",
            table.id.chars().take(8).collect::<String>(),
            table.summary.preset.name(),
            table.players()
        ),
        _ => String::new(),
    };
    format!(" Euchre · {} · {}{place}", app.name, app.server)
}

/// The connection's state wins over any other news: it is what matters.
fn status_line(app: &App) -> Paragraph<'static> {
    let (text, style) = match &app.connection {
        Connection::Reconnecting(reason) => (
            format!("Disconnected: reconnecting… ({reason})"),
            Style::new().fg(Color::Black).bg(Color::Yellow),
        ),
        Connection::Closed(reason) => (
            format!("Connection closed: {reason}. Press q to quit."),
            Style::new().fg(Color::White).bg(Color::Red),
        ),
        Connection::Online => match &app.status {
            Some(status) if status.kind == StatusKind::Error => {
                (status.text.clone(), Style::new().fg(Color::Red))
            }
            Some(status) => (status.text.clone(), Style::new()),
            None => (String::new(), Style::new()),
        },
    };
    Paragraph::new(text).style(style)
}

fn help_line(app: &App) -> String {
    match app.screen {
        Screen::Lobby => {
            // `r` (refresh), `f` (filter), `d` (the daily puzzle) and `q`
            // (quit) work too: 80 columns hold the rest only.
            " Enter sit · w watch · n new · j join · h history · z puzzles · t tournaments".into()
        }
        Screen::Puzzle => match &app.puzzle {
            Some(puzzle) if puzzle.solved.is_some() => {
                " ↑↓ scroll why · s see it played · n next puzzle · d daily · Esc back".into()
            }
            _ => " ←→/1-9 pick · Enter answer · n skip · d daily · Esc back".into(),
        },
        Screen::Tournaments => " ↑↓ pick · Enter open · r refresh · Esc back".into(),
        Screen::Tournament => {
            let mut keys = Vec::new();
            if let Some(view) = &app.tournament {
                let entered = crate::tournament::entered(view, &app.player_id);
                match view.status.as_str() {
                    "registering" if entered => keys.push("w withdraw"),
                    "registering" => keys.push("e register"),
                    _ => {}
                }
                if crate::tournament::your_table(view, &app.player_id).is_some() {
                    keys.push("o open your table");
                }
            }
            keys.extend(["r refresh", "Esc back"]);
            format!(" {}", keys.join(" · "))
        }
        Screen::History => " ↑↓ PgUp/PgDn pick · Enter resume or replay · Esc back".into(),
        Screen::Replay => " ←→ previous/next hand · Home/End first/last · Esc back".into(),
        Screen::Create => " ↑↓ field · ←→ change · Enter create and sit · Esc back".into(),
        Screen::QuickPlay => " ↑↓ field · ←→ change · Enter search · Esc back".into(),
        Screen::Join => " Enter join (a full table is watched) · Esc back".into(),
        Screen::Table if app.chat_input.is_some() => " Enter send · Esc cancel".into(),
        Screen::Table => {
            let mut keys = vec!["←→/1-9 pick", "Enter play"];
            if app.hint_offered() {
                keys.push("h hint");
            }
            if app.review_offered() {
                keys.push("v review");
            }
            keys.extend(["c chat", "l leave", "q quit"]);
            match &app.table {
                Some(table) if table.summary.status == TableStatus::Open => keys.push("s start"),
                Some(table) if table.finished() => keys.push("r rematch"),
                _ => {}
            }
            format!(" {}", keys.join(" · "))
        }
    }
}
