//! The pieces every screen shares: the styles, text cut or padded to a
//! column, a card and an action as coloured spans, the game form's name, how
//! a played hand went, and the scrolled list the lobby and the history both
//! show.

use euchre_engine::{Action, Card, GameForm, PlayedHand, Rules};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

pub(super) fn reversed() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

pub(super) fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub(super) fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
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

pub(super) fn fit(text: &str, width: usize) -> String {
    let mut out: String = text.chars().take(width).collect();
    while out.chars().count() < width {
        out.push(' ');
    }
    out
}

/// A bordered list under a bold header: `empty` when there are no rows,
/// else the rows that fit, scrolled so that the `selected` one stays in view
/// (only those rows are formatted, by `row`).
pub(super) fn selectable_list<T>(
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
    // A selection past the end (none) shows the list from its top.
    let first = if selected < rows.len() { selected.saturating_sub(room - 1) } else { 0 };
    for (index, item) in rows.iter().enumerate().skip(first).take(room) {
        let style = if index == selected { reversed() } else { Style::new() };
        lines.push(Line::styled(row(item), style));
    }
    Paragraph::new(lines).block(Block::bordered().title(title))
}

/// A card as text, and its colour.
pub(super) fn card_span(card: Card) -> Span<'static> {
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

pub(super) fn action_text(action: Action) -> Vec<Span<'static>> {
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

/// How a played hand went for its maker, as the table and a replay say it.
pub(super) fn made_words(played: &PlayedHand) -> &'static str {
    if played.euchred() {
        "was euchred"
    } else if played.march() {
        "marched"
    } else {
        "made it"
    }
}
