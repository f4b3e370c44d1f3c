//! The table screen: the deal, each seat and its card in the trick, the
//! tricks and the score, how the last hand or the game went, the ratings and
//! the deal's seal; the chat beside it and the player's choices below.

use euchre_engine::fairness::Verdict;
use euchre_engine::{GameView, HandOutcome, Phase, Seat, Suit, Team, ThrowIn};
use euchre_protocol::Occupant;
use euchre_protocol::api::Mark;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::text::{action_text, bold, card_span, dim, fit, form_name, made_words, reversed};
use crate::app::{App, ShownReview, signed};
use crate::seal;
use crate::table::TableModel;

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

/// At a table without a host, where the asking for a rematch stands and
/// the keys: every person still seated asks, then the next game starts.
fn rematch_words(table: &TableModel, vote: &euchre_protocol::RematchVote) -> String {
    let asked = |seat: u8| vote.asked.contains(&seat);
    let people: Vec<u8> = (0u8..)
        .zip(&table.seats)
        .filter(|(_, occupant)| matches!(occupant, Some(Occupant::Player { .. })))
        .map(|(seat, _)| seat)
        .collect();
    let names = |seats: Vec<u8>| {
        seats.into_iter().map(|seat| seat_name(table, Seat(seat))).collect::<Vec<_>>().join(", ")
    };
    let seconds = vote.deadline_ms.map_or(String::new(), |ms| format!(" ({} s)", ms / 1000));
    match table.your_seat {
        Some(mine) if asked(mine) => {
            let waiting: Vec<u8> = people.into_iter().filter(|seat| !asked(*seat)).collect();
            format!(
                "You asked for a rematch: waiting for {}{seconds}. l: back to the lobby",
                names(waiting)
            )
        }
        Some(_) if !vote.asked.is_empty() => {
            format!(
                "{} asked for a rematch{seconds}. r: rematch · l: back to the lobby",
                names(vote.asked.clone())
            )
        }
        Some(_) => "r: rematch · l: back to the lobby".to_owned(),
        None => "l: back to the lobby".to_owned(),
    }
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

pub(super) fn table_screen(frame: &mut Frame, app: &App, table: &TableModel, area: Rect) {
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
    // The option's state, where it can be changed (`v`).
    let review = if app.review_each_hand && app.review_offered() { " · review on" } else { "" };
    let title = format!(" {}{timer}{review} ", form_name(table.rules()));
    let block = Block::bordered().title(title);
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

pub(super) fn game_lines(table: &TableModel, game: &GameView) -> Vec<Line<'static>> {
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
    let per_side = |counts: &[u16]| {
        let entries: Vec<String> = sides
            .iter()
            .map(|team| {
                let count = counts.get(team.index()).copied().unwrap_or(0);
                format!("{} {count}", short_side(table, *team))
            })
            .collect();
        entries.join(" · ")
    };
    let tricks: Vec<u16> = game.tricks_won.as_slice().iter().map(|&n| u16::from(n)).collect();
    lines.push(Line::raw(format!("Tricks: {}", per_side(&tricks))));
    let goal = match rules.game_hands {
        Some(hands) => format!("{hands} hands"),
        None => format!("to {}", rules.points_to_win),
    };
    let mut score = format!("Score: {} ({goal})", per_side(game.scores.as_slice()));
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
    if let Some(why) = &table.unrated {
        return Some(Line::styled(format!("Not rated: {why}"), Style::new().fg(Color::Cyan)));
    }
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
    if let Some((_, commitment)) = table.deals.commitment() {
        spans.push(Span::styled(format!("Deal sealed #{}", seal::short(&commitment)), dim()));
    }
    if let Some((hand, verdict)) = table.deals.checked() {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", dim()));
        }
        spans.push(Span::styled(format!("hand {}: ", hand + 1), dim()));
        spans.push(match verdict {
            Verdict::Verified => Span::styled("deal verified ✓", Style::new().fg(Color::Green)),
            Verdict::Mismatch(_) => Span::styled(
                "deal MISMATCH ✗",
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            // Why, in the status line.
            Verdict::NotChecked(_) => Span::styled("deal not checked", dim()),
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
            let made = made_words(&played);
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
    let mut lines = if !actions.is_empty() {
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
        let mut lines = vec![Line::from(spans)];
        if let Some(hint) = app.current_hint() {
            let mut spans = vec![Span::styled("Hint: ", Style::new().fg(Color::Cyan))];
            spans.extend(action_text(hint.action));
            spans.push(Span::styled(format!(" · {}", hint.why), Style::new().fg(Color::Cyan)));
            lines.push(Line::from(spans));
        } else if app.hint_asked.is_some() {
            lines.push(Line::styled("Asking the expert bot…", dim()));
        }
        lines
    } else if table.finished() {
        let host = table.summary.host == app.name;
        let rating = table.your_rating().map_or_else(String::new, |mine| {
            format!(" Your rating: {} ({}).", mine.rating, signed(mine.change))
        });
        let keys = match &table.rematch_vote {
            Some(vote) => rematch_words(table, vote),
            None if host => "r: rematch · l: back to the lobby".to_owned(),
            None => "The host may start a rematch. l: back to the lobby".to_owned(),
        };
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
    // Last: a prompt that wraps keeps its choices, and loses the review's tail.
    if let Some(review) = app.current_review() {
        lines.push(review_line(review));
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(Block::bordered()),
        area,
    );
}

/// A hand's review in a line: the player's biggest mistake and the better
/// choice, in the words of the choices offered, or that there was none.
fn review_line(review: &ShownReview) -> Line<'static> {
    let accent = Style::new().fg(Color::Cyan);
    let mut spans = vec![Span::styled(format!("Hand {} review: ", review.hand + 1), accent)];
    match &review.mistake {
        None => spans.push(Span::raw("no choice cost you a quarter of a point.")),
        Some(mistake) => {
            let mark = match mistake.mark {
                Mark::Inaccuracy => ", an inaccuracy",
                Mark::Mistake => ", a mistake",
                Mark::Blunder => ", a blunder",
                Mark::Best | Mark::Good => "",
            };
            spans.push(Span::raw("you chose "));
            spans.extend(action_text(mistake.chosen));
            spans.push(Span::raw("; "));
            spans.extend(action_text(mistake.better));
            spans.push(Span::raw(format!(
                " was better (−{:.1} points{mark}).",
                mistake.points_lost
            )));
        }
    }
    Line::from(spans)
}
