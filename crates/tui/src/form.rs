//! The create-table form: the rules preset, who takes each other seat (a
//! bot, at the table's level or its own, or nobody until a friend sits),
//! the table's bot level, public or private, rated or not. What the
//! browser's lobby offers, but the rule overrides (`TableSettings.rules`)
//! and the turn timer.

use euchre_engine::Preset;
use euchre_protocol::{SeatBot, TableSettings};

/// The bot levels a table or a seat can have, easiest first: the server's
/// names (`basic` is shown as "easy", as the browser does).
pub const BOT_LEVELS: [&str; 5] = ["naive", "basic", "medium", "hard", "expert"];

/// A bot level as shown.
pub fn level_name(level: &str) -> &str {
    match level {
        "basic" => "easy",
        other => other,
    }
}

/// Who takes one of the seats other than the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatChoice {
    /// A bot at the table's level.
    Bot,
    /// A bot at a level of its own (an index into [`BOT_LEVELS`]).
    BotAt(usize),
    /// Nobody: the seat waits for a person (the host can start with bots).
    Open,
}

impl SeatChoice {
    /// Every choice, in the order the arrow keys go through them.
    const ALL: [SeatChoice; 6] = [
        SeatChoice::Bot,
        SeatChoice::BotAt(0),
        SeatChoice::BotAt(1),
        SeatChoice::BotAt(2),
        SeatChoice::BotAt(3),
        SeatChoice::Open,
    ];

    fn step(self, forward: bool) -> SeatChoice {
        let at = SeatChoice::ALL.iter().position(|choice| *choice == self).unwrap_or(0);
        let count = SeatChoice::ALL.len();
        SeatChoice::ALL[if forward { (at + 1) % count } else { (at + count - 1) % count }]
    }

    pub fn is_bot(self) -> bool {
        self != SeatChoice::Open
    }
}

/// One line of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Preset,
    /// Who takes this seat (1 to players − 1; the host sits in seat 0).
    Seat(u8),
    /// The table's bot level (it also plays for a player who is away).
    BotLevel,
    Private,
    Rated,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateForm {
    /// Index into `Preset::ALL`.
    pub preset: usize,
    /// Seats 1, 2, 3 (as many as the preset has players, less one, count).
    pub seats: [SeatChoice; 3],
    /// The table's bot level, an index into [`BOT_LEVELS`].
    pub level: usize,
    pub private: bool,
    /// Whether its games count for the players' ratings (only games
    /// between people ever do).
    pub rated: bool,
    /// The line with the cursor, an index into [`CreateForm::fields`].
    pub field: usize,
}

impl Default for CreateForm {
    fn default() -> CreateForm {
        CreateForm {
            preset: 0,
            seats: [SeatChoice::Bot; 3],
            level: 1,
            private: false,
            rated: true,
            field: 0,
        }
    }
}

impl CreateForm {
    pub fn preset(&self) -> Preset {
        Preset::ALL[self.preset % Preset::ALL.len()]
    }

    /// The other seats of the preset's game: 1 to players − 1.
    pub fn other_seats(&self) -> std::ops::Range<u8> {
        1..self.preset().rules().players
    }

    /// The form's lines, top to bottom.
    pub fn fields(&self) -> Vec<Field> {
        let mut fields = vec![Field::Preset];
        fields.extend(self.other_seats().map(Field::Seat));
        fields.extend([Field::BotLevel, Field::Private, Field::Rated]);
        fields
    }

    /// The line with the cursor.
    pub fn current(&self) -> Field {
        let fields = self.fields();
        fields[self.field.min(fields.len() - 1)]
    }

    pub fn seat(&self, seat: u8) -> SeatChoice {
        self.seats.get(usize::from(seat).wrapping_sub(1)).copied().unwrap_or(SeatChoice::Open)
    }

    /// Moves the cursor a line down (or up).
    pub fn move_cursor(&mut self, down: bool) {
        let count = self.fields().len();
        self.field = cycle(self.field.min(count - 1), count, down);
    }

    /// Changes the value on the cursor's line to the next (or previous) one.
    pub fn change(&mut self, forward: bool) {
        let step = |at: usize, count: usize| cycle(at, count, forward);
        match self.current() {
            Field::Preset => {
                self.preset = step(self.preset, Preset::ALL.len());
                // The cursor stays on the preset, whatever lines follow now.
                self.field = 0;
            }
            Field::Seat(seat) => {
                if let Some(choice) = self.seats.get_mut(usize::from(seat) - 1) {
                    *choice = choice.step(forward);
                }
            }
            Field::BotLevel => self.level = step(self.level, BOT_LEVELS.len()),
            Field::Private => self.private = !self.private,
            Field::Rated => self.rated = !self.rated,
        }
    }

    /// The table's bot level, as the server names it.
    pub fn bot_level(&self) -> &'static str {
        BOT_LEVELS[self.level % BOT_LEVELS.len()]
    }

    /// The seats bots take from the start.
    pub fn bot_seats(&self) -> Vec<u8> {
        self.other_seats().filter(|seat| self.seat(*seat).is_bot()).collect()
    }

    pub fn settings(&self) -> TableSettings {
        let seat_bots = self
            .other_seats()
            .filter_map(|seat| match self.seat(seat) {
                SeatChoice::BotAt(level) => {
                    Some(SeatBot { seat, bot: BOT_LEVELS[level % BOT_LEVELS.len()].to_owned() })
                }
                SeatChoice::Bot | SeatChoice::Open => None,
            })
            .collect();
        TableSettings {
            preset: self.preset(),
            private: self.private,
            bot_seats: self.bot_seats(),
            bot: self.bot_level().to_owned(),
            seat_bots,
            rated: self.rated,
            ..TableSettings::default()
        }
    }
}

/// The next of `count` choices after `at` (or the one before), wrapping
/// round: how every line of the terminal's forms moves.
pub(crate) fn cycle(at: usize, count: usize, forward: bool) -> usize {
    if forward { (at + 1) % count } else { (at + count - 1) % count }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_standard_game_against_easy_bots_rated() {
        let settings = CreateForm::default().settings();
        assert_eq!(settings.preset, Preset::Standard);
        assert_eq!(settings.bot_seats, vec![1, 2, 3]);
        assert_eq!(settings.bot, "basic");
        assert!(settings.seat_bots.is_empty());
        assert!(settings.rated);
        assert!(!settings.private);
    }

    #[test]
    fn each_seat_has_its_own_line_and_levels() {
        let mut form = CreateForm::default();
        assert_eq!(form.fields().len(), 1 + 3 + 3);
        form.move_cursor(true);
        assert_eq!(form.current(), Field::Seat(1));
        form.change(true);
        form.change(true);
        form.change(true);
        form.change(true);
        assert_eq!(form.seat(1), SeatChoice::BotAt(3));
        form.move_cursor(true);
        form.change(false);
        assert_eq!(form.seat(2), SeatChoice::Open);
        let settings = form.settings();
        assert_eq!(settings.bot_seats, vec![1, 3]);
        assert_eq!(settings.seat_bots, vec![SeatBot { seat: 1, bot: "hard".into() }]);
        // Up from the top goes round to the bottom line.
        form.field = 0;
        form.move_cursor(false);
        assert_eq!(form.current(), Field::Rated);
        form.change(true);
        assert!(!form.settings().rated);
    }

    #[test]
    fn a_smaller_game_has_fewer_seat_lines() {
        let mut form = CreateForm::default();
        while form.preset() != Preset::TwoHanded {
            form.change(true);
        }
        assert_eq!(
            form.fields(),
            vec![Field::Preset, Field::Seat(1), Field::BotLevel, Field::Private, Field::Rated]
        );
        assert_eq!(form.settings().bot_seats, vec![1]);
    }
}
