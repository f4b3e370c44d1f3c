//! Puzzles drawn from one analysed match: its decisions replayed, each
//! kept decision turned into a puzzle with its view, answers, themes and
//! the words of why.

use euchre_analysis::{Decision, GameAnalysis, options};
use euchre_engine::egn::describe;
use euchre_engine::sim::Solver;
use euchre_engine::{
    Action, Game, GameRecord, Hand, HandOutcome, HandRecord, NoEvents, Phase, ReplayError, Rules,
    Seat, Viewer,
};

use crate::line::play_out;
use crate::puzzle::{Kind, Line, OptionValue, Puzzle, Question, Solution, Source};
use crate::select::answers;
use crate::theme::themes;

/// One stored match to draw puzzles from.
#[derive(Clone, Copy, Debug)]
pub struct Match<'a> {
    /// The caller's name for it, kept in each puzzle's [`Source`].
    pub id: &'a str,
    pub record: &'a GameRecord,
    /// The record's analysis, with worlds ([`euchre_analysis::Settings::worlds`] > 0).
    pub analysis: &'a GameAnalysis,
    /// The seats people played. Their decisions alone are drawn from; in a
    /// match of bots only (none), every seat's are.
    pub humans: &'a [Seat],
}

/// Why a match gives no puzzles at all.
#[derive(Debug, thiserror::Error)]
pub enum MineError {
    #[error("the record does not replay: {0}")]
    Replay(#[from] ReplayError),
    #[error("the analysis was made without worlds: nothing says what the seat knew")]
    NoWorlds,
    #[error("the analysis does not match the record at hand {hand}, action {action}")]
    Mismatch { hand: u32, action: u32 },
}

/// Whether puzzles are drawn from games under `rules`: the four-handed
/// game without a joker or no trump, whose unseen cards a solver can
/// reason about as the puzzles' checks do.
pub fn supports(rules: &Rules) -> bool {
    rules.players == 4 && !rules.dummy && !rules.joker && !rules.allow_no_trump
}

/// Every puzzle in `game`, in the order of play (none for a form the
/// puzzles do not [`supports`]).
pub fn mine(game: &Match<'_>) -> Result<Vec<Puzzle>, MineError> {
    let record = game.record;
    if !supports(&record.rules) {
        return Ok(Vec::new());
    }
    if game.analysis.worlds == 0 {
        return Err(MineError::NoWorlds);
    }
    Game::replay(record)?;
    let deals = record.hands.iter().map(|hand| hand.deal).collect();
    let mut replay = Game::with_deals(record.rules, record.seed, record.start.clone(), deals)?;
    let mut solver = Solver::new();
    let mut puzzles = Vec::new();
    for (number, recorded) in record.hands.iter().enumerate() {
        let number = number as u32;
        let analysed = game.analysis.hands.iter().find(|hand| hand.number == number);
        for (index, step) in recorded.actions.iter().enumerate() {
            let index = index as u32;
            let decision = analysed
                .and_then(|hand| hand.decisions.iter().find(|decision| decision.index == index));
            if let Some(decision) = decision {
                if (decision.seat, decision.chosen) != (step.seat, step.action) {
                    return Err(MineError::Mismatch { hand: number, action: index });
                }
                let by_human = game.humans.contains(&step.seat);
                if by_human || game.humans.is_empty() {
                    let source = Source {
                        match_id: game.id.to_owned(),
                        hand: number,
                        action: index,
                        played: step.action,
                        by_human,
                    };
                    puzzles.extend(draw(&replay, decision, recorded, source, &mut solver));
                }
            }
            replay
                .apply_with(step.seat, step.action, &mut NoEvents)
                .map_err(|_| MineError::Mismatch { hand: number, action: index })?;
        }
    }
    Ok(puzzles)
}

/// Puzzles drawn from people's decisions first, then from bots' (a new
/// server has only bots' matches), each group in its own order.
pub fn human_first(puzzles: &mut [Puzzle]) {
    puzzles.sort_by_key(|puzzle| !puzzle.source.by_human);
}

/// The puzzle `decision` makes, if the rule keeps it, at its place in the
/// replayed match: `replay` stands just before it.
fn draw(
    replay: &Game,
    decision: &Decision,
    recorded: &HandRecord,
    source: Source,
    solver: &mut Solver,
) -> Option<Puzzle> {
    let answers = answers(decision)?;
    let known = decision.known.as_ref()?;
    let hand = replay.hand();
    let kind = kind_of(hand)?;
    // A hand played at no trump has no trump to reason about.
    if hand.no_trump() {
        return None;
    }
    let seat = decision.seat;
    let tricks = |action: Action| {
        let shown = decision.shown.as_ref()?;
        shown.options.iter().find(|option| option.action == action).map(|option| option.tricks)
    };
    let values: Vec<OptionValue> = known
        .options
        .iter()
        .map(|option| OptionValue {
            action: option.action,
            tricks: tricks(option.action),
            expected: option.expected,
        })
        .collect();
    let view = replay.view(Viewer::Seat(seat));
    let line = play_out(hand, seat, *answers.first()?, solver)?;
    let played = play_out(hand, seat, source.played, solver)?;
    let why = why(kind, seat, &answers, &values, &played, &line, known.worlds);
    let themes = themes(hand, &view, seat, kind, &answers);
    let before = recorded.actions.get(..source.action as usize)?.to_vec();
    Some(Puzzle {
        question: Question { kind, seat, view, options: options(hand, seat, source.played) },
        answers,
        themes,
        solution: Solution { deal: recorded.deal, before, values, worlds: known.worlds, line, why },
        source,
    })
}

/// What kind of decision the seat to act in `hand` faces.
fn kind_of(hand: &Hand) -> Option<Kind> {
    match hand.phase() {
        Phase::OrderingUp | Phase::Calling | Phase::DefendingAlone => Some(Kind::Bid),
        Phase::DealerDiscard | Phase::LonerDiscard => Some(Kind::Discard),
        Phase::Playing => Some(Kind::Card),
        _ => None,
    }
}

/// The words of why: with every card shown (cards), the answer's tricks
/// and the played card's; over the seat's worlds, the answer's expected
/// points and the best other option's; then the answer's line with every
/// card shown and how the hand ends.
fn why(
    kind: Kind,
    seat: Seat,
    answers: &[Action],
    values: &[OptionValue],
    played: &Line,
    line: &Line,
    worlds: u32,
) -> String {
    let answer = answers.iter().map(|action| name(*action)).collect::<Vec<_>>().join(" or ");
    let value = |action: Action| values.iter().find(|value| value.action == action);
    let Some(best) = value(line.first) else { return String::new() };
    let mut words = Vec::new();
    if kind == Kind::Card {
        words.push(format!(
            "With every card shown, {answer} takes {} tricks for your side; {} took {}.",
            line.tricks,
            name(played.first),
            played.tricks
        ));
    }
    let other = (values.iter())
        .filter(|value| !answers.contains(&value.action))
        .max_by(|a, b| a.expected.total_cmp(&b.expected));
    if let Some(other) = other {
        words.push(format!(
            "Over {worlds} deals of the cards you could not see, {} is worth {:+.2} points on \
             average; the best other choice, {}, {:+.2}.",
            name(line.first),
            best.expected,
            name(other.action),
            other.expected
        ));
    }
    if let Some(made) = line.made.filter(|_| kind != Kind::Card) {
        let trump = made.trump.map_or("no trump".to_owned(), |suit| suit.to_string());
        let you = made.maker == seat;
        let (makes, goes) = if you { ("make", "go") } else { ("makes", "goes") };
        let alone = if made.alone { format!(" and {goes} alone") } else { String::new() };
        words.push(format!(
            "Played out on the real cards, {} {makes} {trump}{alone}.",
            maker(made.maker, seat)
        ));
    }
    if !line.plays.is_empty() {
        let plays: Vec<String> =
            line.plays.iter().map(|(by, card)| format!("{} {card}", who(*by, seat))).collect();
        words.push(format!("Best play from here: {}.", plays.join(", ")));
    }
    words.push(ending(line));
    words.join(" ")
}

/// An action in a sentence: a card by its code, anything else in words.
fn name(action: Action) -> String {
    match action {
        Action::Play { card } => card.to_string(),
        other => describe(other),
    }
}

/// How the line's hand ends, for the seat's side.
fn ending(line: &Line) -> String {
    match &line.outcome {
        Some(HandOutcome::Played(_)) => {
            format!("Your side takes {} tricks: {:+} points net.", line.tricks, line.points)
        }
        Some(HandOutcome::ThrownIn(_)) => "Everybody passes: the hand is thrown in.".to_owned(),
        None => String::new(),
    }
}

/// The maker `by` as `seat` sees the table, in a sentence.
fn maker(by: Seat, seat: Seat) -> &'static str {
    ["you", "the opponent on your left", "your partner", "the opponent on your right"]
        [relative(by, seat)]
}

/// `by` as `seat` sees the table.
fn who(by: Seat, seat: Seat) -> &'static str {
    ["you", "left", "partner", "right"][relative(by, seat)]
}

/// Where `by` sits from `seat`: 0 itself, then clockwise (left, partner, right).
fn relative(by: Seat, seat: Seat) -> usize {
    usize::from((by.0 + 4 - seat.0) % 4)
}
