//! The puzzle trainer: one puzzle at a time (the next for this player, or
//! the day's), its question drawn as the table screen draws a seat's view,
//! answered with one of its options; then the verdict, and "see it played":
//! the rest of the hand from the best answer and from the one given.

use euchre_engine::{Action, Card, HandOutcome, Preset, Seat, Suit};
use euchre_protocol::api::{PuzzleVerdict, PuzzleView};
use euchre_protocol::{Occupant, PlayerInfo, TableState, TableStatus, TableSummary};
use serde::Deserialize;

use crate::table::TableModel;

/// The narrowest the reasons' panel is drawn, inside its border.
pub const WHY_WIDTH: usize = 26;

/// Where the puzzle came from: the next one for this player, or the day's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Next,
    Daily,
}

/// What the position's panel shows once the puzzle is answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shown {
    /// The position as asked.
    #[default]
    Question,
    /// The rest of the hand from the best answer.
    BestLine,
    /// The rest of the hand from the answer given.
    YourLine,
}

impl Shown {
    /// The next view `s` ("see it played") goes to.
    pub fn next(self) -> Shown {
        match self {
            Shown::Question => Shown::BestLine,
            Shown::BestLine => Shown::YourLine,
            Shown::YourLine => Shown::Question,
        }
    }
}

/// The rest of a hand played out from one option, every card shown, as
/// the verdict carries it (`euchre-puzzles`' `Line`; the fields shown here).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PlayedLine {
    /// The option the line starts with.
    pub first: Action,
    /// Who made trump, in what, and alone or not (`None`: thrown in).
    #[serde(default)]
    pub made: Option<Made>,
    /// The cards played from the decision on, in order.
    pub plays: Vec<(Seat, Card)>,
    pub outcome: Option<HandOutcome>,
    /// The tricks the puzzle seat's side ends the hand with.
    pub tricks: u8,
    /// The points the hand brings the seat's side less the others'.
    pub points: f64,
}

/// Trump as the line made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Made {
    pub maker: Seat,
    pub trump: Option<Suit>,
    pub alone: bool,
}

/// The verdict on the answer given, with both lines read.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    pub verdict: PuzzleVerdict,
    /// The option this player chose.
    pub chosen: Action,
    /// `None` if the server's line could not be read (it is shown as such).
    pub best_line: Option<PlayedLine>,
    pub your_line: Option<PlayedLine>,
}

impl Solved {
    pub fn new(verdict: PuzzleVerdict, chosen: Action) -> Solved {
        let read = |line: &serde_json::Value| serde_json::from_value(line.clone()).ok();
        let best_line = read(&verdict.best_line);
        let your_line = read(&verdict.answer_line);
        Solved { verdict, chosen, best_line, your_line }
    }
}

/// A puzzle on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleModel {
    pub puzzle: PuzzleView,
    pub source: Source,
    /// The question as a table the table screen's drawing takes: the
    /// puzzle's seat is "you", the others named by where they sit.
    pub table: TableModel,
    /// Which option is picked.
    pub selected: usize,
    /// The answer is on its way.
    pub answering: bool,
    pub solved: Option<Solved>,
    pub shown: Shown,
    /// How far the solver's reasons are scrolled (they can be longer than
    /// their panel at 80x24).
    pub why_scroll: u16,
}

impl PuzzleModel {
    pub fn new(puzzle: PuzzleView, source: Source, your_name: &str) -> PuzzleModel {
        let seat = puzzle.seat;
        let rules = puzzle.view.rules;
        let seats = Seat::all(rules.players)
            .map(|other| {
                let name = if other == seat {
                    your_name.to_owned()
                } else {
                    place(seat, other).to_owned()
                };
                let player = PlayerInfo { id: String::new(), name };
                Some(Occupant::Player { player, connected: true })
            })
            .collect();
        let state = TableState {
            summary: TableSummary {
                table: format!("puzzle-{}", puzzle.id),
                host: String::new(),
                // Only drawn as the table's title, which the puzzle does not show.
                preset: Preset::Standard,
                rules,
                private: true,
                seated: rules.players,
                status: TableStatus::Playing,
                turn_seconds: None,
                chat: false,
            },
            seats,
            your_seat: Some(seat.0),
            game: Some(puzzle.view.clone()),
            deal_commitment: None,
            actions: puzzle.options.clone(),
            rematch_vote: None,
            stood_in: None,
        };
        let table = TableModel::from_snapshot(state.summary.table.clone(), 0, state);
        PuzzleModel {
            puzzle,
            source,
            table,
            selected: 0,
            answering: false,
            solved: None,
            shown: Shown::Question,
            why_scroll: 0,
        }
    }

    /// About how many lines the solver's reasons take in the narrowest
    /// panel they are drawn in: as far as scrolling them goes.
    pub fn why_lines(&self) -> u16 {
        let chars = self.solved.as_ref().map_or(0, |solved| solved.verdict.why.chars().count());
        u16::try_from(chars / WHY_WIDTH).unwrap_or(u16::MAX)
    }

    pub fn options(&self) -> &[Action] {
        &self.puzzle.options
    }

    /// The seat `other` as the puzzle's seat names it.
    pub fn place(&self, other: Seat) -> &'static str {
        place(self.puzzle.seat, other)
    }
}

/// Where `other` sits as `seat` sees the four-handed table.
fn place(seat: Seat, other: Seat) -> &'static str {
    match (other.0 + 4 - seat.0) % 4 {
        0 => "You",
        1 => "Left",
        2 => "Partner",
        _ => "Right",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_others_are_named_by_where_they_sit() {
        assert_eq!(place(Seat(1), Seat(2)), "Left");
        assert_eq!(place(Seat(1), Seat(3)), "Partner");
        assert_eq!(place(Seat(1), Seat(0)), "Right");
        assert_eq!(place(Seat(3), Seat(3)), "You");
    }

    #[test]
    fn a_line_reads_as_the_server_writes_it() {
        let line = serde_json::json!({
            "first": {"action": "play", "card": "AS"},
            "made": {"maker": 0, "trump": "spades", "alone": false},
            "plays": [[0, "AS"], [1, "KS"]],
            "outcome": null,
            "tricks": 3,
            "points": 1.0,
        });
        let read: Result<PlayedLine, _> = serde_json::from_value(line);
        let read = read.expect("a line");
        assert_eq!(read.plays.len(), 2);
        assert_eq!(read.made.map(|made| made.maker), Some(Seat(0)));
    }
}
