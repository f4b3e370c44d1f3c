//! The player's matches (from the HTTP API) and a finished match replayed
//! hand by hand: the deal, the bidding, the tricks and the outcome, with
//! the solver's marks on each card and bid and each player's accuracy.

use euchre_engine::view::sorted_for_display;
use euchre_engine::{Action, HandOutcome, Seat};
use euchre_protocol::api::{Decision, HandAnalysis, Mark, MatchSummaryView};
use euchre_protocol::{TableStatus, TableSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::lobby::{NAME_WIDTH, table_name};
use super::text::{action_text, bold, card_span, fit, form_name, made_words, selectable_list};
use crate::app::{App, Replay};

pub(super) fn history(frame: &mut Frame, app: &App, area: Rect) {
    let header = format!("{} {} {} players", fit("match", 10), fit("form", 22), fit("score", 15));
    let history_row = |row: &MatchSummaryView| {
        let scores: Vec<String> = row.scores.iter().map(u16::to_string).collect();
        let score = match (row.finished, &row.abandoned) {
            (true, _) => scores.join("–"),
            (false, Some(_)) => format!("{} Abandoned", scores.join("–")),
            (false, None) => format!("{} …", scores.join("–")),
        };
        let names: Vec<&str> = row.seats.iter().map(|seat| seat.name.as_str()).collect();
        format!(
            "{} {} {} {}",
            fit(&row.id, 10),
            fit(form_name(&row.rules), 22),
            fit(&score, 15),
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
    let area = your_games(frame, app, area);
    // Past the live tables: the matches' own index (none selected while
    // the cursor is on a live table, which puts it past their end).
    let selected = app.history_selected.checked_sub(app.yours.len()).unwrap_or(usize::MAX);
    let list = selectable_list(
        area,
        title,
        header,
        "No matches yet (or still loading).",
        &app.history,
        history_row,
        selected,
    );
    frame.render_widget(list, area);
}

/// The player's live tables, above the matches, each resumed with Enter;
/// the area left for the matches.
fn your_games(frame: &mut Frame, app: &App, area: Rect) -> Rect {
    if app.yours.is_empty() {
        return area;
    }
    // Up to four rows shown (more scroll), under a header, in a border.
    let height = u16::try_from(app.yours.len().min(4)).unwrap_or(4) + 3;
    let [games, rest] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    let header = format!("{} {} status", fit("table", NAME_WIDTH), fit("form", 22));
    let row = |table: &TableSummary| {
        let status = match table.status {
            TableStatus::Open => "waiting for players",
            TableStatus::Playing => "playing",
            TableStatus::Finished => "game over",
        };
        format!(
            "{} {} {status}",
            fit(&table_name(table), NAME_WIDTH),
            fit(form_name(&table.rules), 22)
        )
    };
    // None picked (past the end) while the cursor is on the matches.
    let list = selectable_list(
        games,
        " Your games: Enter resumes ".to_owned(),
        header,
        "",
        &app.yours,
        row,
        app.history_selected,
    );
    frame.render_widget(list, games);
    rest
}

pub(super) fn replay_screen(frame: &mut Frame, replay: &Replay, area: Rect) {
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
    // The solver's verdicts on this hand's decisions, by action.
    let analysed = replay
        .analysis
        .as_ref()
        .and_then(|analysis| analysis.hands.iter().find(|h| h.number as usize == replay.hand));
    let decision = |index: usize| {
        analysed.and_then(|hand| hand.decisions.iter().find(|d| d.index as usize == index))
    };
    // The bidding, then the tricks, each led by its first card.
    let mut bids = vec![Span::raw("Bids: ")];
    let mut plays = Vec::new();
    let mut out = 0;
    for (index, step) in hand.actions.iter().enumerate() {
        match step.action {
            Action::Play { card } => plays.push((step.seat, card, index)),
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
                bids.extend(decision(index).and_then(mark_span));
                bids.push(Span::raw(" · "));
            }
        }
    }
    bids.pop();
    lines.push(Line::from(bids));
    let per_trick = usize::from(rules.players).saturating_sub(out).max(1);
    for (number, trick) in plays.chunks(per_trick).enumerate() {
        let mut spans = vec![Span::raw(format!("  {}. ", number + 1))];
        for (seat, card, index) in trick {
            spans.push(Span::raw(format!("{} ", name(*seat))));
            spans.push(card_span(*card));
            spans.extend(decision(*index).and_then(mark_span));
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
            let made = made_words(&played);
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
    lines.extend(analysis_lines(replay, analysed, &name));
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

/// The worse of a decision's two marks.
fn worst_mark(decision: &Decision) -> Mark {
    let marks = [decision.shown.as_ref().map(|s| s.mark), decision.known.as_ref().map(|k| k.mark)];
    marks.into_iter().flatten().max_by_key(|mark| severity(*mark)).unwrap_or(Mark::Best)
}

fn severity(mark: Mark) -> u8 {
    match mark {
        Mark::Best => 0,
        Mark::Good => 1,
        Mark::Inaccuracy => 2,
        Mark::Mistake => 3,
        Mark::Blunder => 4,
    }
}

/// A decision's mark after its card or bid, as chess writes them: `?!` an
/// inaccuracy, `?` a mistake, `??` a blunder; nothing within tolerance.
fn mark_span(decision: &Decision) -> Option<Span<'static>> {
    let (sign, colour) = match worst_mark(decision) {
        Mark::Best | Mark::Good => return None,
        Mark::Inaccuracy => ("?!", Color::Yellow),
        Mark::Mistake => ("?", Color::LightRed),
        Mark::Blunder => ("??", Color::Red),
    };
    Some(Span::styled(sign, Style::new().fg(colour).add_modifier(Modifier::BOLD)))
}

/// Notes shown under a hand at most: the screen is 24 lines.
const NOTES: usize = 2;

/// Under the hand: what the worst decisions should have been, and each
/// player's accuracy over the match; or that the analysis is coming.
fn analysis_lines(
    replay: &Replay,
    analysed: Option<&HandAnalysis>,
    name: &dyn Fn(Seat) -> String,
) -> Vec<Line<'static>> {
    let Some(analysis) = &replay.analysis else {
        return vec![Line::styled(
            "Analysing… (the solver's marks follow)",
            Style::new().fg(Color::DarkGray),
        )];
    };
    let mut lines = Vec::new();
    let mut marked: Vec<&Decision> = analysed
        .map(|hand| hand.decisions.iter().filter(|d| severity(worst_mark(d)) >= 2).collect())
        .unwrap_or_default();
    marked.sort_by_key(|d| std::cmp::Reverse(severity(worst_mark(d))));
    for decision in marked.iter().take(NOTES) {
        let mut spans = Vec::new();
        spans.extend(mark_span(decision));
        spans.push(Span::raw(format!(" {} ", name(decision.seat))));
        spans.extend(action_text(decision.chosen));
        if let Some(shown) = decision.shown.as_ref().filter(|s| s.mark != Mark::Best)
            && let Some(best) = shown
                .options
                .iter()
                .max_by(|a, b| a.points.total_cmp(&b.points).then(a.tricks.cmp(&b.tricks)))
        {
            spans.push(Span::raw(": best "));
            spans.extend(action_text(best.action));
            let tricks = shown.tricks_lost;
            spans.push(Span::raw(match tricks {
                0 => format!(" (+{:.1})", shown.points_lost),
                1 => " (+1 trick)".to_owned(),
                _ => format!(" (+{tricks} tricks)"),
            }));
        }
        if let Some(known) = decision.known.as_ref().filter(|k| k.mark != Mark::Best)
            && let Some(best) =
                known.options.iter().max_by(|a, b| a.expected.total_cmp(&b.expected))
        {
            spans.push(Span::raw("; with what they knew: "));
            spans.extend(action_text(best.action));
            spans.push(Span::raw(format!(" +{:.1}", known.points_lost)));
        }
        lines.push(Line::from(spans));
    }
    if marked.len() > NOTES {
        lines.push(Line::raw(format!("  … and {} more marked", marked.len() - NOTES)));
    }
    let accuracy: Vec<String> = analysis
        .players
        .iter()
        .map(|player| {
            let percent =
                player.accuracy.map_or("–".to_owned(), |a| format!("{:.0}%", a * 100.0));
            format!("{} {percent} −{:.1}", name(player.seat), player.points_lost)
        })
        .collect();
    lines.push(Line::raw(format!("Accuracy, points lost: {}", accuracy.join(" · "))));
    lines
}
