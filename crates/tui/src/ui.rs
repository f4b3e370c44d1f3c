//! Drawing: each screen is a pure function of the [`App`]'s state. Laid out
//! for 80x24 first; a larger terminal gets more room for the chat.

use euchre_engine::{
    Action, Card, GameForm, GameView, HandOutcome, Phase, Preset, Rules, Seat, Suit, Team, ThrowIn,
};
use euchre_protocol::{Occupant, TableStatus, TableSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::{App, Connection, CreateForm, Replay, Screen, StatusKind, signed};
use crate::form::{BOT_LEVELS, Field, SeatChoice, level_name};
use crate::history::MatchRow;
use crate::seal::{self, Verdict};
use crate::table::TableModel;
use euchre_engine::view::sorted_for_display;

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
        Screen::Lobby => lobby(frame, app, body),
        Screen::Create => create(frame, &app.create, body),
        Screen::Join => join(frame, app, body),
        Screen::Table => match &app.table {
            Some(table) => table_screen(frame, app, table, body),
            None => lobby(frame, app, body),
        },
        Screen::History => history(frame, app, body),
        Screen::Replay => match &app.replay {
            Some(replay) => replay_screen(frame, replay, body),
            None => history(frame, app, body),
        },
    }
    frame.render_widget(status_line(app), status);
    frame.render_widget(Paragraph::new(help_line(app)).style(dim()), help);
}

fn reversed() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
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
            // `r` (refresh) works too; the lobby is live, so it is not shown.
            " ↑↓ pick · Enter sit · w watch · n new · j join · h history · f filter · q quit".into()
        }
        Screen::History => " ↑↓ PgUp/PgDn pick · Enter replay · Esc back".into(),
        Screen::Replay => " ←→ previous/next hand · Home/End first/last · Esc back".into(),
        Screen::Create => " ↑↓ field · ←→ change · Enter create and sit · Esc back".into(),
        Screen::Join => " Enter join (a full table is watched) · Esc back".into(),
        Screen::Table if app.chat_input.is_some() => " Enter send · Esc cancel".into(),
        Screen::Table => {
            let mut keys = vec!["←→/1-9 pick", "Enter play", "c chat", "l leave", "q quit"];
            match &app.table {
                Some(table) if table.summary.status == TableStatus::Open => keys.push("s start"),
                Some(table) if table.finished() => keys.push("r rematch"),
                _ => {}
            }
            format!(" {}", keys.join(" · "))
        }
    }
}

/// The game form in a few words.
pub fn form_name(rules: &Rules) -> &'static str {
    match rules.form() {
        GameForm::Partnership => "4 players, partners",
        GameForm::ThreeHanded => "3 players, a dummy",
        GameForm::Cutthroat => "cutthroat, 3 players",
        GameForm::TwoHanded => "2 players, a dummy",
        GameForm::TwoHandedPlain => "2 players",
    }
}

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

fn fit(text: &str, width: usize) -> String {
    let mut out: String = text.chars().take(width).collect();
    while out.chars().count() < width {
        out.push(' ');
    }
    out
}

fn lobby_row(summary: &TableSummary) -> String {
    format!(
        "{} {} {} {} {}",
        fit(&summary.table, 10),
        fit(&format!("{} · {}", summary.preset.name(), form_name(&summary.rules)), 40),
        fit(&format!("{}/{}", summary.seated, summary.rules.players), 5),
        fit(status_name(summary.status), 9),
        summary.host
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
    format!(" Public tables: {which} ({} of {}{more}) ", app.lobby.len(), app.lobby_total)
}

fn lobby(frame: &mut Frame, app: &App, area: Rect) {
    let header = format!(
        "{} {} {} {} host",
        fit("table", 10),
        fit("form", 40),
        fit("seats", 5),
        fit("status", 9)
    );
    let list = selectable_list(
        area,
        lobby_title(app),
        header,
        if app.lobby_open_only {
            "No open table has a free seat: press n to create one, f to see every table."
        } else {
            "No public tables yet: press n to create one."
        },
        &app.lobby,
        lobby_row,
        app.lobby_selected,
    );
    frame.render_widget(list, area);
}

/// A bordered list under a bold header: `empty` when there are no rows,
/// else the rows that fit, scrolled so that the `selected` one stays in view
/// (only those rows are formatted, by `row`).
fn selectable_list<T>(
    area: Rect,
    title: String,
    header: String,
    empty: &str,
    rows: &[T],
    row: impl Fn(&T) -> String,
    selected: usize,
) -> Paragraph<'static> {
    let mut lines = vec![Line::styled(header, bold())];
    if rows.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::raw(empty.to_owned()));
    }
    let room = usize::from(area.height.saturating_sub(3)).max(1);
    let first = selected.saturating_sub(room - 1);
    for (index, item) in rows.iter().enumerate().skip(first).take(room) {
        let style = if index == selected { reversed() } else { Style::new() };
        lines.push(Line::styled(row(item), style));
    }
    Paragraph::new(lines).block(Block::bordered().title(title))
}

fn create(frame: &mut Frame, form: &CreateForm, area: Rect) {
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
        (true, 0) => ("yes", "when every seat is a person"),
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

fn join(frame: &mut Frame, app: &App, area: Rect) {
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

/// A card as text, and its colour.
fn card_span(card: Card) -> Span<'static> {
    if card.is_joker() {
        return Span::styled("★JK", Style::new().fg(Color::Magenta));
    }
    let rank = match card.rank().letter() {
        'T' => "10".to_owned(),
        letter => letter.to_string(),
    };
    let text = format!("{rank}{}", card.suit().symbol());
    if card.suit().is_red() {
        Span::styled(text, Style::new().fg(Color::Red))
    } else {
        Span::raw(text)
    }
}

fn suit_text(suit: Suit) -> String {
    format!("{} {suit}", suit.symbol())
}

/// Who sits in `seat`, in a few letters.
fn seat_name(table: &TableModel, seat: Seat) -> String {
    let name = match table.seats.get(seat.index()) {
        Some(Some(Occupant::Player { player, .. })) => player.name.clone(),
        Some(Some(Occupant::Bot { .. })) => format!("Bot {}", seat.0),
        _ => "(empty)".to_owned(),
    };
    let short: String = name.chars().take(12).collect();
    if table.your_seat == Some(seat.0) { format!("{short} (you)") } else { short }
}

/// A side by its players: "Ann & Bot 2", or one name.
fn side_name(table: &TableModel, team: Team) -> String {
    let rules = table.rules();
    let names: Vec<String> = Seat::all(rules.players)
        .filter(|seat| rules.team_of(*seat) == team)
        .map(|seat| seat_name(table, seat))
        .collect();
    names.join(" & ")
}

fn action_text(action: Action) -> Vec<Span<'static>> {
    let alone =
        |text: &str, alone: bool| if alone { format!("{text} alone") } else { text.to_owned() };
    let with_card = |verb: &str, card: Card| vec![Span::raw(format!("{verb} ")), card_span(card)];
    match action {
        Action::Pass => vec![Span::raw("Pass")],
        Action::OrderUp { alone: lone } => vec![Span::raw(alone("Order up", lone))],
        Action::Call { suit, alone: lone } => {
            vec![Span::raw(alone(&format!("Call {}", suit.symbol()), lone))]
        }
        Action::CallNoTrump { alone: lone } => vec![Span::raw(alone("No trump", lone))],
        Action::Discard { card } => with_card("Discard", card),
        Action::Play { card } => with_card("Play", card),
        Action::FarmersHand => vec![Span::raw("Farmer's hand")],
        Action::Claim => vec![Span::raw("Claim the rest")],
        Action::Concede => vec![Span::raw("Concede")],
        Action::DefendAlone => vec![Span::raw("Defend alone")],
        Action::PassCard { card } => with_card("Pass", card),
        Action::NameSuit { suit } => vec![Span::raw(format!("Name {}", suit.symbol()))],
    }
}

fn table_screen(frame: &mut Frame, app: &App, table: &TableModel, area: Rect) {
    let [main, actions] = Layout::vertical([Constraint::Min(0), Constraint::Length(5)]).areas(area);
    // The chat takes what the table does not need.
    let chat_width = area.width.saturating_sub(54).max(24);
    let [left, right] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(chat_width)]).areas(main);
    let lines = match &table.game {
        Some(game) => game_lines(table, game),
        None => waiting_lines(app, table),
    };
    let timer = table.summary.turn_seconds.map_or_else(String::new, |s| format!(" · {s} s a turn"));
    let block = Block::bordered().title(format!(" {}{timer} ", form_name(table.rules())));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), left);
    chat(frame, app, table, right);
    action_bar(frame, app, table, actions);
}

fn waiting_lines(app: &App, table: &TableModel) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(format!(
        "Waiting for players: {}/{} seated.",
        table.summary.seated,
        table.players()
    ))];
    for seat in Seat::all(table.players()) {
        lines.push(Line::raw(format!("  seat {}: {}", seat.0, seat_name(table, seat))));
    }
    lines.push(Line::raw(""));
    if table.summary.host == app.name {
        lines.push(Line::raw("Press s to start: bots take the empty seats."));
    } else {
        lines.push(Line::raw(format!("{} (the host) starts the game.", table.summary.host)));
    }
    // The whole id, to join by (the lobby's column shows its start).
    lines.push(Line::raw(format!("Table id: {}", table.id)));
    if let Some(link) = app.invite_link() {
        lines.push(Line::raw("Invite link:"));
        lines.push(Line::styled(link, bold()));
    }
    lines
}

fn phase_text(phase: Phase) -> &'static str {
    match phase {
        Phase::NamingJokerSuit => "naming the joker's suit",
        Phase::OrderingUp => "bidding, round one",
        Phase::DealerDiscard => "the dealer discards",
        Phase::DummyDiscard => "the maker discards for the dummy",
        Phase::Calling => "bidding, round two",
        Phase::DefendingAlone => "defend alone?",
        Phase::PassingBest => "passing the best card",
        Phase::LonerDiscard => "the loner discards",
        Phase::Playing => "playing",
        Phase::Finished => "hand over",
    }
}

fn game_lines(table: &TableModel, game: &GameView) -> Vec<Line<'static>> {
    let rules = game.rules;
    let mut lines = Vec::new();
    // The deal: hand, dealer, up-card, trump.
    let mut deal = vec![
        Span::raw(format!(
            "Hand {} · dealer {} · up ",
            game.hand_number + 1,
            seat_name(table, game.dealer)
        )),
        card_span(game.up_card),
    ];
    if let Some(suit) = game.joker_suit {
        deal.push(Span::raw(format!(" as {}", suit.symbol())));
    }
    if game.turned_down.is_some() {
        deal.push(Span::raw(" (turned down)"));
    } else if game.up_card_picked_up {
        deal.push(Span::raw(" (picked up)"));
    }
    lines.push(Line::from(deal));
    let contract = match (game.maker, game.trump) {
        (Some(maker), trump) => {
            let what = match trump {
                Some(suit) => format!("Trump {}", suit_text(suit)),
                None => "No trump".to_owned(),
            };
            let alone = if game.alone { " alone" } else { "" };
            format!("{what}, called by {}{alone}", seat_name(table, maker))
        }
        (None, _) => format!("No trump yet: {}", phase_text(game.phase)),
    };
    let dummy = match (rules.dummy, game.dummy_taken) {
        (true, true) => " · dummy taken",
        (true, false) => " · dummy: 3 cards",
        _ => "",
    };
    lines.push(Line::styled(format!("{contract}{dummy}"), bold()));
    lines.push(Line::raw(""));
    // One row a seat: whose turn, cards held, the card in the current trick.
    let trick =
        game.tricks.last().filter(|trick| trick.winner.is_none()).or(table.last_trick.as_ref());
    for seat in Seat::all(rules.players) {
        let turn = game.turn == Some(seat) && game.winner.is_none();
        let marker = if turn { "▶ " } else { "  " };
        let out = game.sitting_out == Some(seat)
            || game.lone_defender.is_some_and(|defender| defender.partner() == seat);
        let mut row = vec![
            Span::styled(
                format!("{marker}{}", fit(&seat_name(table, seat), 19)),
                if turn { bold() } else { Style::new() },
            ),
            Span::raw(fit(&format!("{} cards", game.hand_sizes[seat.index()]), 9)),
        ];
        if out {
            row.push(Span::styled("sits out", dim()));
        } else if let Some((_, card)) =
            trick.and_then(|trick| trick.cards.iter().find(|(played, _)| *played == seat))
        {
            row.push(card_span(*card));
            if trick.and_then(|trick| trick.winner) == Some(seat) {
                row.push(Span::raw(" takes it"));
            }
        }
        lines.push(Line::from(row));
    }
    lines.push(Line::raw(""));
    // Tricks this hand and the score, one entry per side.
    let sides: Vec<Team> = (0..rules.teams()).map(Team).collect();
    let tricks: Vec<String> = sides
        .iter()
        .map(|team| {
            format!(
                "{} {}",
                short_side(table, *team),
                game.tricks_won.as_slice().get(team.index()).copied().unwrap_or(0)
            )
        })
        .collect();
    lines.push(Line::raw(format!("Tricks: {}", tricks.join(" · "))));
    let scores: Vec<String> = sides
        .iter()
        .map(|team| {
            format!(
                "{} {}",
                short_side(table, *team),
                game.scores.as_slice().get(team.index()).copied().unwrap_or(0)
            )
        })
        .collect();
    let mut score = format!("Score: {} (to {})", scores.join(" · "), rules.points_to_win);
    if rules.rubber {
        let won: Vec<String> = sides
            .iter()
            .map(|team| {
                game.games.iter().filter(|result| result.winner == *team).count().to_string()
            })
            .collect();
        score.push_str(&format!(" · games {}", won.join("–")));
    }
    lines.push(Line::styled(score, bold()));
    lines.push(result_line(table, game));
    lines.extend(rated_line(table, game));
    lines.extend(seal_line(table));
    // The player's own hand, as the server sorts it (none left at the end).
    if let Some(hand) = game.hand.as_ref().filter(|hand| !hand.is_empty() || game.winner.is_none())
    {
        let mut spans = vec![Span::raw("Your hand: ")];
        for card in hand {
            spans.push(card_span(*card));
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// Each seat's new rating after a rated game: this one when it is over,
/// else the last one (the rating can come after a quick rematch began).
fn rated_line(table: &TableModel, game: &GameView) -> Option<Line<'static>> {
    let ratings = table.rated.as_ref()?;
    let entries: Vec<String> = ratings
        .iter()
        .map(|rating| {
            let who = if table.your_seat == Some(rating.seat) {
                "you".to_owned()
            } else {
                seat_name(table, Seat(rating.seat))
            };
            format!("{who} {} ({})", rating.rating, signed(rating.change))
        })
        .collect();
    let what = if game.winner.is_some() { "Rated" } else { "Last game rated" };
    Some(Line::styled(format!("{what}: {}", entries.join(" · ")), Style::new().fg(Color::Cyan)))
}

/// The deal's commitment (sent before the bidding) and how the last
/// revealed deal checked out here.
fn seal_line(table: &TableModel) -> Option<Line<'static>> {
    let mut spans = Vec::new();
    if let Some((_, commitment)) = table.seals.current() {
        spans.push(Span::styled(format!("Deal sealed #{}", seal::short(&commitment)), dim()));
    }
    if let Some((hand, verdict)) = table.seals.checked {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", dim()));
        }
        spans.push(Span::styled(format!("hand {}: ", hand + 1), dim()));
        spans.push(match verdict {
            Verdict::Verified => Span::styled("deal verified ✓", Style::new().fg(Color::Green)),
            Verdict::Mismatch => Span::styled(
                "deal MISMATCH ✗",
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            Verdict::Unchecked => Span::styled("deal not checked (no commitment seen)", dim()),
        });
    }
    (!spans.is_empty()).then(|| Line::from(spans))
}

/// A side in a word or two, for the tricks and score lines.
fn short_side(table: &TableModel, team: Team) -> String {
    let rules = table.rules();
    if rules.partnerships() {
        let mine = table.your_seat.is_some_and(|seat| rules.team_of(Seat(seat)) == team);
        let seats = if team.0 == 0 { "0+2" } else { "1+3" };
        return if mine { format!("us ({seats})") } else { format!("seats {seats}") };
    }
    let name = seat_name(table, Seat(team.0));
    name.replace(" (you)", "*")
}

/// The game's end, a rubber's break between games, or how the last hand went.
fn result_line(table: &TableModel, game: &GameView) -> Line<'static> {
    let over = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
    if let (Some(team), Some(result)) = (game.winner, table.rubber.filter(|_| game.rules.rubber)) {
        let won = |side: Team| game.games.iter().filter(|done| done.winner == side).count();
        let points = result.rubber_points.as_slice();
        let losers = (0..game.rules.teams()).map(Team).filter(|side| *side != team);
        let lost_games = losers.clone().map(won).max().unwrap_or(0);
        let lost_points = losers.filter_map(|side| points.get(side.index())).max().unwrap_or(&0);
        return Line::styled(
            format!(
                "Game over: {} won the rubber, {} games to {lost_games}; rubber points {} to {lost_points}, a margin of {}.",
                side_name(table, team),
                won(team),
                points.get(team.index()).unwrap_or(&0),
                result.margin
            ),
            over,
        );
    }
    if let Some(team) = game.winner {
        let scores: Vec<String> = game.scores.iter().map(u16::to_string).collect();
        return Line::styled(
            format!("Game over: {} won, {}.", side_name(table, team), scores.join("–")),
            over,
        );
    }
    if let Some(banner) = rubber_banner(table, game) {
        return Line::styled(banner, Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD));
    }
    let text = match game.last_outcome {
        Some(HandOutcome::Played(played))
            if game.phase == Phase::Finished || game.tricks.is_empty() =>
        {
            let who = seat_name(table, played.maker);
            let made = if played.euchred() {
                "was euchred"
            } else if played.march() {
                "marched"
            } else {
                "made it"
            };
            format!("Last hand: {who} {made}.")
        }
        Some(HandOutcome::ThrownIn(ThrowIn::AllPassed)) if game.tricks.is_empty() => {
            "Last hand: all passed.".into()
        }
        Some(HandOutcome::ThrownIn(ThrowIn::FarmersHand { seat })) if game.tricks.is_empty() => {
            format!("Last hand: {} threw in a farmer's hand.", seat_name(table, seat))
        }
        _ => String::new(),
    };
    Line::styled(text, dim())
}

/// Playing rubbers, after a game is won and until the next one's first
/// hand is scored: which game went to whom, and what comes next.
fn rubber_banner(table: &TableModel, game: &GameView) -> Option<String> {
    let last = game.games.last().filter(|_| game.rules.rubber)?;
    let fresh = table.between_games || game.scores.iter().all(|score| *score == 0);
    if !fresh {
        return None;
    }
    let scores = last.scores.as_slice();
    let winners = scores.get(last.winner.index()).copied().unwrap_or(0);
    let losers = (0..scores.len()).filter(|side| *side != last.winner.index());
    let losers = losers.filter_map(|side| scores.get(side)).max().copied().unwrap_or(0);
    let number = game.games.len();
    // Short enough for one line at 80 columns.
    Some(format!(
        "Game {number} to {}, {winners}–{losers}; game {} begins at 0.",
        short_side(table, last.winner),
        number + 1
    ))
}

fn chat(frame: &mut Frame, app: &App, table: &TableModel, area: Rect) {
    let inner = usize::from(area.height.saturating_sub(2));
    let mut lines: Vec<Line> = table
        .chat
        .iter()
        .map(|line| {
            Line::from(vec![
                Span::styled(format!("{}: ", line.from), bold()),
                Span::raw(line.text.clone()),
            ])
        })
        .collect();
    if let Some(input) = &app.chat_input {
        lines.push(Line::styled(format!("> {input}█"), Style::new().fg(Color::Cyan)));
    }
    // The newest lines, as many as fit (a long one wraps and takes more).
    let skip = lines.len().saturating_sub(inner);
    let shown: Vec<Line> = lines.into_iter().skip(skip).collect();
    let title = if table.summary.chat { " Chat (c) " } else { " Chat (off) " };
    frame.render_widget(
        Paragraph::new(shown).wrap(Wrap { trim: false }).block(Block::bordered().title(title)),
        area,
    );
}

fn action_bar(frame: &mut Frame, app: &App, table: &TableModel, area: Rect) {
    let actions = app.actions();
    let lines = if !actions.is_empty() {
        let mut spans = vec![Span::styled("Your turn", bold())];
        if let Some(left) = app.time_left() {
            // Whole seconds, rounded up: "0 s" only once time is up.
            let seconds = left.as_millis().div_ceil(1000);
            let style = if seconds <= 5 {
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::new().fg(Color::Yellow)
            };
            spans.push(Span::styled(format!(" ({seconds} s left)"), style));
        }
        spans.push(Span::styled(": ", bold()));
        for (index, action) in actions.iter().enumerate() {
            let style = if index == app.selected { reversed() } else { Style::new() };
            let mut label = vec![Span::styled(format!("{} ", index + 1), style)];
            label.extend(action_text(*action).into_iter().map(|span| span.patch_style(style)));
            spans.extend(label);
            spans.push(Span::raw("  "));
        }
        vec![Line::from(spans)]
    } else if table.finished() {
        let host = table.summary.host == app.name;
        let rating = table.your_rating().map_or_else(String::new, |mine| {
            format!(" Your rating: {} ({}).", mine.rating, signed(mine.change))
        });
        let keys = if host { "r: rematch · l: back to the lobby" } else { "l: back to the lobby" };
        vec![Line::raw(format!("The game is over.{rating} {keys}"))]
    } else if app.acting {
        vec![Line::styled("Sending…", dim())]
    } else {
        let waiting =
            table.game.as_ref().and_then(|game| game.turn).map(|seat| seat_name(table, seat));
        match (table.your_seat, waiting) {
            (None, _) => vec![Line::styled("Watching.", dim())],
            (Some(_), Some(name)) => vec![Line::styled(format!("Waiting for {name}…"), dim())],
            (Some(_), None) => vec![Line::styled("Waiting…", dim())],
        }
    };
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(Block::bordered()),
        area,
    );
}

fn history(frame: &mut Frame, app: &App, area: Rect) {
    let header = format!("{} {} {} players", fit("match", 10), fit("form", 22), fit("score", 11));
    let history_row = |row: &MatchRow| {
        let scores: Vec<String> = row.scores.iter().map(u16::to_string).collect();
        let score =
            if row.finished { scores.join("–") } else { format!("{} …", scores.join("–")) };
        let names: Vec<&str> = row.seats.iter().map(|seat| seat.name.as_str()).collect();
        format!(
            "{} {} {} {}",
            fit(&row.id, 10),
            fit(form_name(&row.rules), 22),
            fit(&score, 11),
            names.join(", ")
        )
    };
    let title = match (&app.history_next, app.history_loading) {
        (_, true) if !app.history.is_empty() => {
            format!(" Your matches ({}, loading more…) ", app.history.len())
        }
        (Some(_), _) => format!(" Your matches ({}, ↓ at the end for more) ", app.history.len()),
        _ => format!(" Your matches ({}) ", app.history.len()),
    };
    let list = selectable_list(
        area,
        title,
        header,
        "No matches yet (or still loading).",
        &app.history,
        history_row,
        app.history_selected,
    );
    frame.render_widget(list, area);
}

fn replay_screen(frame: &mut Frame, replay: &Replay, area: Rect) {
    let record = &replay.record;
    let rules = record.rules;
    let name = |seat: Seat| {
        let name = replay.names.get(seat.index()).filter(|name| !name.is_empty());
        name.cloned().unwrap_or_else(|| format!("seat {}", seat.0))
    };
    let mut lines = Vec::new();
    let Some(hand) = record.hands.get(replay.hand) else {
        frame.render_widget(
            Paragraph::new("No hands in this match.").block(Block::bordered()),
            area,
        );
        return;
    };
    lines.push(Line::from(vec![
        Span::raw(format!("Dealer {} · up-card ", name(hand.deal.dealer))),
        card_span(hand.deal.up_card),
    ]));
    for seat in Seat::all(rules.players) {
        let mut spans = vec![Span::raw(format!("  {}", fit(&name(seat), 14)))];
        for card in sorted_for_display(hand.deal.hands[seat.index()].to_vec(), None) {
            spans.push(card_span(card));
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    }
    // The bidding, then the tricks, each led by its first card.
    let mut bids = vec![Span::raw("Bids: ")];
    let mut plays = Vec::new();
    let mut out = 0;
    for step in &hand.actions {
        match step.action {
            Action::Play { card } => plays.push((step.seat, card)),
            action => {
                if matches!(
                    action,
                    Action::OrderUp { alone: true }
                        | Action::Call { alone: true, .. }
                        | Action::CallNoTrump { alone: true }
                ) && rules.partnerships()
                {
                    out += 1;
                }
                if action == Action::DefendAlone {
                    out += 1;
                }
                bids.push(Span::raw(format!("{} ", name(step.seat))));
                bids.extend(action_text(action));
                bids.push(Span::raw(" · "));
            }
        }
    }
    bids.pop();
    lines.push(Line::from(bids));
    let per_trick = usize::from(rules.players).saturating_sub(out).max(1);
    for (number, trick) in plays.chunks(per_trick).enumerate() {
        let mut spans = vec![Span::raw(format!("  {}. ", number + 1))];
        for (seat, card) in trick {
            spans.push(Span::raw(format!("{} ", name(*seat))));
            spans.push(card_span(*card));
            spans.push(Span::raw("  "));
        }
        lines.push(Line::from(spans));
    }
    let points = |upto: usize| {
        let mut total = vec![0u32; usize::from(rules.teams())];
        for played in record.hands[..upto].iter().filter_map(|hand| hand.outcome) {
            if let Some(points) = played.points() {
                for (sum, point) in total.iter_mut().zip(points.iter()) {
                    *sum += u32::from(*point);
                }
            }
        }
        total.iter().map(u32::to_string).collect::<Vec<_>>().join("–")
    };
    let outcome = match hand.outcome {
        Some(HandOutcome::Played(played)) => {
            let made = if played.euchred() {
                "was euchred"
            } else if played.march() {
                "marched"
            } else {
                "made it"
            };
            let tricks: Vec<String> = played.tricks.iter().map(u8::to_string).collect();
            format!("{} {made} ({} tricks)", name(played.maker), tricks.join("–"))
        }
        Some(HandOutcome::ThrownIn(_)) => "Thrown in.".to_owned(),
        None => "Not finished.".to_owned(),
    };
    // Rubbers start each game at 0: the running total would mislead there.
    let score =
        if rules.rubber { String::new() } else { format!(" · score {}", points(replay.hand + 1)) };
    lines.push(Line::styled(format!("{outcome}{score}"), bold()));
    let title = format!(
        " Replay · match {} · hand {} of {} ",
        replay.id.chars().take(8).collect::<String>(),
        replay.hand + 1,
        record.hands.len()
    );
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(Block::bordered().title(title)),
        area,
    );
}
