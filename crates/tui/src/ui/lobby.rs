//! The screens before a table: the lobby's list of tables, the form for a
//! new table, and joining one by its id or an invite link.

use euchre_engine::Preset;
use euchre_protocol::{TableStatus, TableSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::text::{bold, dim, fit, form_name, reversed, selectable_list};
use crate::app::{App, CreateForm};
use crate::form::{BOT_LEVELS, Field, SeatChoice, level_name};
use crate::quick::{Partner, QuickField, QuickForm};

fn describe_preset(preset: Preset) -> &'static str {
    match preset {
        Preset::Standard => "our defaults",
        Preset::StickTheDealer => "the dealer must call in round two",
        Preset::Tournament => "club rules: the up-card cannot be discarded",
        Preset::Classic => "the draw picks partners and the first dealer",
        Preset::Farmers => "a farmer's hand may be thrown in",
        Preset::Online => "stick the dealer, left of the loner leads",
        Preset::ThreeHanded => "three players and a dummy hand",
        Preset::Cutthroat => "three players, the maker against the others",
        Preset::TwoHanded => "two players, a dummy, nines out",
        Preset::TwoHandedPlain => "two players, the 24-card pack",
        Preset::ClassicPiquet => "classic with the 32-card pack",
        Preset::ClassicJoker => "classic with the joker",
        Preset::ClassicRubber => "classic, best of three games",
        Preset::FarmersEights => "farmer's hands, eights added",
    }
}

fn status_name(status: TableStatus) -> &'static str {
    match status {
        TableStatus::Open => "open",
        TableStatus::Playing => "playing",
        TableStatus::Finished => "finished",
    }
}

/// Width of the lobby's table column.
pub(super) const NAME_WIDTH: usize = 22;

/// A table's name in the lobby: its host's ("Ada's table"), not an id
/// nobody reads (the form follows in its own column). Pool tables are
/// hosted by no player (the server names their host "Quick play").
pub(super) fn table_name(summary: &TableSummary) -> String {
    match summary.host.as_str() {
        "Quick play" => "Quick play table".to_owned(),
        host => format!("{host}'s table"),
    }
}

fn lobby_row(summary: &TableSummary, yours: bool) -> String {
    format!(
        "{}{} {} {} {}",
        if yours { "▶ " } else { "" },
        fit(&table_name(summary), if yours { NAME_WIDTH - 2 } else { NAME_WIDTH }),
        fit(&format!("{} · {}", summary.preset.name(), form_name(&summary.rules)), 40),
        fit(&format!("{}/{}", summary.seated, summary.rules.players), 5),
        status_name(summary.status),
    )
}

/// "Public tables: open, a seat free (50 of 120; ↓ for more)".
fn lobby_title(app: &App) -> String {
    let which = if app.lobby_open_only { "open, a seat free" } else { "all" };
    let more = match (&app.lobby_next, app.lobby_loading) {
        (_, true) => "; loading…",
        (Some(_), false) => "; ↓ for more",
        (None, false) => "",
    };
    let yours = match app.yours.len() {
        0 => String::new(),
        1 => "Your game ▶ first, Enter resumes · ".to_owned(),
        n => format!("Your {n} games ▶ first, Enter resumes · "),
    };
    format!(" {yours}Public tables: {which} ({} of {}{more}) ", app.lobby.len(), app.lobby_total)
}

pub(super) fn lobby(frame: &mut Frame, app: &App, area: Rect) {
    // Above the tables: quick play's searching lines (with the team code
    // to pass on), or its key.
    let lines = match &app.searching {
        Some(searching) => searching
            .lines(app.now)
            .into_iter()
            .map(|line| Line::styled(format!(" {line}"), bold()))
            .collect(),
        None => vec![Line::styled(" p: quick play, a game with players near your rating", dim())],
    };
    let height = u16::try_from(lines.len()).unwrap_or(1);
    let [quick, area] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(lines), quick);
    let header =
        format!("{} {} {} status", fit("table", NAME_WIDTH), fit("form", 40), fit("seats", 5));
    let list = selectable_list(
        area,
        lobby_title(app),
        header,
        if app.lobby_open_only {
            "No open table has a free seat: press n to create one, f to see every table."
        } else {
            "No public tables yet: press n to create one."
        },
        &app.lobby_rows(),
        |summary| lobby_row(summary, app.is_yours(&summary.table)),
        app.lobby_selected,
    );
    frame.render_widget(list, area);
}

pub(super) fn create(frame: &mut Frame, form: &CreateForm, area: Rect) {
    let preset = form.preset();
    let rules = preset.rules();
    let cursor = form.current();
    let line = |field: Field, label: String, value: String, note: &str| {
        let style = if cursor == field { reversed() } else { Style::new() };
        Line::from(vec![
            Span::raw(format!("  {label:<10}")),
            Span::styled(format!("‹ {value} ›"), style),
            Span::styled(format!(" {note}"), dim()),
        ])
    };
    let table_level = level_name(form.bot_level());
    let mut lines = vec![
        Line::raw(""),
        line(Field::Preset, "Rules".into(), preset.name().to_owned(), ""),
        Line::styled(
            format!("            {} · {}", form_name(&rules), describe_preset(preset)),
            dim(),
        ),
        Line::raw(""),
    ];
    for seat in form.other_seats() {
        let value = match form.seat(seat) {
            SeatChoice::Bot => format!("bot, the table's level ({table_level})"),
            SeatChoice::BotAt(level) => {
                format!("bot, {}", level_name(BOT_LEVELS[level % BOT_LEVELS.len()]))
            }
            SeatChoice::Open => "empty, for a person".into(),
        };
        lines.push(line(Field::Seat(seat), format!("Seat {seat}"), value, ""));
    }
    lines.push(line(
        Field::BotLevel,
        "Bot level".into(),
        table_level.into(),
        "also plays for anyone away",
    ));
    let bots = form.bot_seats().len();
    let open = form.other_seats().len() - bots;
    // At most 66 characters: under the values, within 80 columns.
    let seats_note = match (bots, open) {
        (_, 0) => format!("Seat 0 is yours, bots in the other {bots}: it starts at once."),
        (0, _) => "Seat 0 is yours; the rest wait for people (s starts with bots).".into(),
        (_, 1) => "Seat 0 is yours; 1 seat waits for a person (s starts with bots).".into(),
        _ => format!("Seat 0 is yours; {open} seats wait for people (s starts with bots)."),
    };
    let seats_note = format!("            {seats_note}");
    lines.push(Line::styled(seats_note, dim()));
    lines.push(Line::raw(""));
    let visibility = if form.private { "private: invite only" } else { "public: in the lobby" };
    lines.push(line(Field::Private, "Table".into(), visibility.into(), ""));
    let (rated, note) = match (form.rated, bots) {
        (false, _) => ("no", ""),
        (true, 0) => ("yes", "when every seat is an account"),
        (true, _) => ("yes", "but a game with a bot never is"),
    };
    lines.push(line(Field::Rated, "Rated".into(), rated.into(), note));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("  {} rule presets: ←→ go through them all.", Preset::ALL.len()),
        dim(),
    ));
    frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(" New table ")), area);
}

pub(super) fn quick(frame: &mut Frame, form: &QuickForm, area: Rect) {
    let cursor = form.current();
    let line = |field: QuickField, label: &str, value: String, note: &str| {
        let style = if cursor == field { reversed() } else { Style::new() };
        Line::from(vec![
            Span::raw(format!("  {label:<10}")),
            Span::styled(format!("‹ {value} ›"), style),
            Span::styled(format!(" {note}"), dim()),
        ])
    };
    let preset = form.preset();
    let mut lines = vec![
        Line::raw(""),
        line(QuickField::Preset, "Game", preset.name().to_owned(), ""),
        Line::styled(
            format!("            {} · {}", form_name(&preset.rules()), describe_preset(preset)),
            dim(),
        ),
        Line::raw(""),
    ];
    if form.rated {
        lines.push(line(QuickField::Rated, "Rated", "yes".into(), "people only, near your rating"));
    } else {
        lines.push(line(QuickField::Rated, "Rated", "no".into(), "casual: counts for nothing"));
        let bots = match form.bots_after_seconds() {
            Some(seconds) => format!("after {seconds} s"),
            None => "never: wait for people".into(),
        };
        lines.push(line(QuickField::BotsAfter, "Bots", bots, "fill the seats still missing"));
    }
    if form.offers_partner() {
        let (value, note) = match form.partner {
            Partner::Alone => ("alone", "or with a partner, sat opposite"),
            Partner::Invite => ("invite a partner", "you get a team code to give them"),
            Partner::Join => ("join with a code", "your partner asked first"),
        };
        lines.push(line(QuickField::Partner, "Partner", value.into(), note));
        if form.partner == Partner::Join {
            let style = if cursor == QuickField::TeamCode { reversed() } else { Style::new() };
            lines.push(Line::from(vec![
                Span::raw(format!("  {:<10}", "Team code")),
                Span::styled(format!("{}█", form.team_code), style),
                Span::styled(" type it", dim()),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "  The server seats you at a table as soon as it finds players.",
        dim(),
    ));
    frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Quick play ")), area);
}

pub(super) fn join(frame: &mut Frame, app: &App, area: Rect) {
    let lines = vec![
        Line::raw(""),
        Line::raw("  A table id, a table id and its invite code, or an invite link:"),
        Line::raw(""),
        Line::from(vec![Span::raw("  > "), Span::styled(format!("{}█", app.join_input), bold())]),
        Line::raw(""),
        Line::styled("  e.g.  t3   ·   t3 k9x2   ·   http://host/#/table/t3?invite=k9x2", dim()),
    ];
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Join a table ")),
        area,
    );
}
