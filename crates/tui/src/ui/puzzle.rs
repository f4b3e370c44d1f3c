//! The puzzle trainer's screen: the seat's view drawn as the table screen
//! draws it, the bids and tricks so far beside it, the options below; then
//! the verdict and the solver's reasons, and "see it played" in place of
//! the position.

use euchre_engine::Action;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::table::game_lines;
use super::text::{action_text, bold, card_span, dim, reversed};
use crate::puzzle::{PlayedLine, PuzzleModel, Shown, Solved, Source, WHY_WIDTH};

pub(super) fn puzzle_screen(frame: &mut Frame, puzzle: &PuzzleModel, area: Rect) {
    let [main, bar] = Layout::vertical([Constraint::Min(0), Constraint::Length(5)]).areas(area);
    let side_width = area.width.saturating_sub(50).max(WHY_WIDTH as u16 + 2);
    let [left, right] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(side_width)]).areas(main);
    let source = match puzzle.source {
        Source::Next => "Puzzle",
        Source::Daily => "Puzzle of the day",
    };
    let title = format!(" {source} #{} · rated {} ", puzzle.puzzle.id, puzzle.puzzle.rating);
    let (lines, title) = match (&puzzle.solved, puzzle.shown) {
        (Some(solved), Shown::BestLine) => {
            (line_lines(puzzle, solved.best_line.as_ref()), " See it played: the best ".into())
        }
        (Some(solved), Shown::YourLine) => {
            (line_lines(puzzle, solved.your_line.as_ref()), " See it played: yours ".into())
        }
        _ => match &puzzle.table.game {
            Some(game) => (game_lines(&puzzle.table, game), title),
            None => (Vec::new(), title),
        },
    };
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(Block::bordered().title(title)),
        left,
    );
    let (side, side_title) = match &puzzle.solved {
        Some(solved) => (vec![Line::raw(solved.verdict.why.clone())], " Why (↑↓) "),
        None => (story_lines(puzzle), " So far "),
    };
    // Scrolled no further than about its last line at the top (words
    // wrap, so a line holds a little less than the width).
    let width = usize::from(right.width.saturating_sub(2)).max(1);
    let chars: usize = side.iter().map(Line::width).sum();
    let last = u16::try_from(chars / width).unwrap_or(u16::MAX);
    let side = Paragraph::new(side).wrap(Wrap { trim: false });
    let side = side.scroll((puzzle.why_scroll.min(last), 0));
    frame.render_widget(side.block(Block::bordered().title(side_title)), right);
    let lines = match &puzzle.solved {
        Some(solved) => verdict_lines(solved),
        None => options_lines(puzzle),
    };
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(Block::bordered()),
        bar,
    );
}

/// The bids so far, then each trick of the hand so far.
fn story_lines(puzzle: &PuzzleModel) -> Vec<Line<'static>> {
    let view = &puzzle.puzzle.view;
    let mut lines = vec![Line::styled(question(&puzzle.puzzle.kind), bold())];
    if !view.bids.is_empty() {
        lines.push(Line::raw("Bids:"));
        for (seat, bid) in &view.bids {
            let mut spans = vec![Span::raw(format!(" {}: ", puzzle.place(*seat)))];
            spans.extend(action_text(*bid));
            lines.push(Line::from(spans));
        }
    }
    let done: Vec<_> = view.tricks.iter().filter(|trick| trick.winner.is_some()).collect();
    for (number, trick) in done.iter().enumerate() {
        let mut spans = vec![Span::raw(format!("Trick {}: ", number + 1))];
        for (_, card) in &trick.cards {
            spans.push(card_span(*card));
            spans.push(Span::raw(" "));
        }
        if let Some(winner) = trick.winner {
            spans.push(Span::styled(puzzle.place(winner), dim()));
        }
        lines.push(Line::from(spans));
    }
    lines
}

fn question(kind: &str) -> &'static str {
    match kind {
        "bid" => "What do you bid?",
        "discard" => "What do you discard?",
        _ => "What do you play?",
    }
}

fn options_lines(puzzle: &PuzzleModel) -> Vec<Line<'static>> {
    if puzzle.answering {
        return vec![Line::styled("Checking your answer…", dim())];
    }
    let mut spans = vec![Span::styled("Your choice: ", bold())];
    for (index, action) in puzzle.options().iter().enumerate() {
        let style = if index == puzzle.selected { reversed() } else { Style::new() };
        spans.push(Span::styled(format!("{} ", index + 1), style));
        spans.extend(action_text(*action).into_iter().map(|span| span.patch_style(style)));
        spans.push(Span::raw("  "));
    }
    vec![Line::from(spans)]
}

/// Actions as "A or B", each as the table writes it.
fn actions_spans(actions: &[Action]) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        if index > 0 {
            spans.push(Span::raw(" or "));
        }
        spans.extend(action_text(*action));
    }
    spans
}

fn verdict_lines(solved: &Solved) -> Vec<Line<'static>> {
    let verdict = &solved.verdict;
    let mut first = if verdict.correct {
        vec![Span::styled("✓ Right! ", Style::new().fg(Color::Green).add_modifier(Modifier::BOLD))]
    } else {
        vec![
            Span::styled(
                "✗ Not the best: ",
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            Span::raw("you chose "),
        ]
    };
    if !verdict.correct {
        first.extend(action_text(solved.chosen));
        first.push(Span::raw(". "));
    }
    first.push(Span::raw("Best: "));
    first.extend(actions_spans(&verdict.answers));
    let rating = match &verdict.rating {
        Some(change) => format!(
            "Puzzle rating {} → {} · streak {} (best {})",
            change.before, change.after, change.streak, change.best_streak
        ),
        None => "Not rated (a guest's answer, or one answered before)".to_owned(),
    };
    vec![Line::from(first), Line::styled(rating, Style::new().fg(Color::Cyan))]
}

/// The rest of the hand from one option: trump as made, each trick's
/// cards by who played them, and how it ends for the puzzle's side.
fn line_lines(puzzle: &PuzzleModel, line: Option<&PlayedLine>) -> Vec<Line<'static>> {
    let Some(line) = line else {
        return vec![Line::raw("This line could not be read.")];
    };
    let mut first = vec![Span::raw("From ")];
    first.extend(action_text(line.first));
    let mut lines = vec![Line::from(first)];
    match line.made {
        Some(made) => {
            let trump = made
                .trump
                .map_or("no trump".to_owned(), |suit| format!("trump {} {suit}", suit.symbol()));
            let alone = if made.alone { ", alone" } else { "" };
            lines.push(Line::raw(format!("{} makes it: {trump}{alone}", puzzle.place(made.maker))));
        }
        None => lines.push(Line::raw("Thrown in: nobody made trump.")),
    }
    // A lone hand's partner sits out: three cards a trick.
    let players = usize::from(puzzle.puzzle.view.rules.players);
    let per_trick =
        if line.made.is_some_and(|made| made.alone) { players.saturating_sub(1) } else { players };
    let view = &puzzle.puzzle.view;
    let under_way = view.tricks.last().filter(|trick| trick.winner.is_none());
    let mut number = view.tricks.iter().filter(|trick| trick.winner.is_some()).count() + 1;
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut in_trick = 0;
    // The trick under way at the decision: its cards so far, dimmed, then the line's.
    if let Some(trick) = under_way.filter(|trick| !trick.cards.is_empty()) {
        row.push(Span::styled(format!("{number}. "), dim()));
        for (seat, card) in &trick.cards {
            row.push(Span::styled(format!("{} ", puzzle.place(*seat)), dim()));
            row.push(card_span(*card).patch_style(Modifier::DIM));
            row.push(Span::raw("  "));
        }
        in_trick = trick.cards.len();
    }
    for (seat, card) in &line.plays {
        if row.is_empty() {
            row.push(Span::styled(format!("{number}. "), dim()));
        }
        row.push(Span::raw(format!("{} ", puzzle.place(*seat))));
        row.push(card_span(*card));
        row.push(Span::raw("  "));
        in_trick += 1;
        if in_trick >= per_trick {
            lines.push(Line::from(std::mem::take(&mut row)));
            in_trick = 0;
            number += 1;
        }
    }
    if !row.is_empty() {
        lines.push(Line::from(row));
    }
    lines.push(Line::styled(
        format!("Your side takes {} tricks: {:+} points net.", line.tricks, line.points),
        bold(),
    ));
    lines
}
