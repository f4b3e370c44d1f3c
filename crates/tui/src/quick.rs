//! Quick play: the small form that asks the server for a game with
//! strangers (the form, rated or casual, bots after a wait for a casual
//! game), and the request while it waits, shown on the lobby's searching
//! line until the server seats the player or the request ends.

use std::time::{Duration, Instant};

use euchre_engine::Preset;
use euchre_protocol::{QUICK_PLAY_BOTS_AFTER_MIN, QuickPlayRequest};

/// The forms quick play offers, as the browser does.
pub const QUICK_PRESETS: [Preset; 4] =
    [Preset::Standard, Preset::Cutthroat, Preset::ThreeHanded, Preset::TwoHandedPlain];

/// The waits before bots a casual request may choose (`None`: never).
pub const BOT_WAITS: [Option<u32>; 6] =
    [None, Some(QUICK_PLAY_BOTS_AFTER_MIN), Some(15), Some(30), Some(60), Some(120)];

/// One line of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickField {
    Preset,
    Rated,
    /// Casual only: a rated game is between people.
    BotsAfter,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickForm {
    /// Index into [`QUICK_PRESETS`].
    pub preset: usize,
    pub rated: bool,
    /// Index into [`BOT_WAITS`].
    pub bots_after: usize,
    /// The line with the cursor, an index into [`QuickForm::fields`].
    pub field: usize,
}

impl Default for QuickForm {
    fn default() -> QuickForm {
        QuickForm { preset: 0, rated: true, bots_after: 0, field: 0 }
    }
}

impl QuickForm {
    pub fn preset(&self) -> Preset {
        QUICK_PRESETS[self.preset % QUICK_PRESETS.len()]
    }

    /// The form's lines: no bots line for a rated game.
    pub fn fields(&self) -> Vec<QuickField> {
        let mut fields = vec![QuickField::Preset, QuickField::Rated];
        if !self.rated {
            fields.push(QuickField::BotsAfter);
        }
        fields
    }

    pub fn current(&self) -> QuickField {
        let fields = self.fields();
        fields[self.field.min(fields.len() - 1)]
    }

    pub fn move_cursor(&mut self, down: bool) {
        let count = self.fields().len();
        let at = self.field.min(count - 1);
        self.field = if down { (at + 1) % count } else { (at + count - 1) % count };
    }

    pub fn change(&mut self, forward: bool) {
        let step = |at: usize, count: usize| {
            if forward { (at + 1) % count } else { (at + count - 1) % count }
        };
        match self.current() {
            QuickField::Preset => self.preset = step(self.preset, QUICK_PRESETS.len()),
            QuickField::Rated => self.rated = !self.rated,
            QuickField::BotsAfter => self.bots_after = step(self.bots_after, BOT_WAITS.len()),
        }
    }

    /// Seconds before bots, for a casual request that wants them.
    pub fn bots_after_seconds(&self) -> Option<u32> {
        if self.rated { None } else { BOT_WAITS[self.bots_after % BOT_WAITS.len()] }
    }

    pub fn request(&self) -> QuickPlayRequest {
        QuickPlayRequest {
            bots_after_seconds: self.bots_after_seconds(),
            ..QuickPlayRequest::new(self.preset(), self.rated)
        }
    }
}

/// A quick-play request waiting for a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searching {
    pub preset: Preset,
    pub rated: bool,
    pub bots_after_seconds: Option<u32>,
    /// When it was asked for.
    pub since: Instant,
    /// Players waiting in its pool, as the server last said.
    pub waiting: Option<u32>,
    /// The server has queued it (its ack came).
    pub queued: bool,
}

impl Searching {
    pub fn new(request: &QuickPlayRequest, now: Instant) -> Searching {
        Searching {
            preset: request.preset,
            rated: request.rated,
            bots_after_seconds: request.bots_after_seconds,
            since: now,
            waiting: None,
            queued: false,
        }
    }

    /// "Searching: standard, rated · 0:07 · 5 waiting · x cancels".
    pub fn line(&self, now: Instant) -> String {
        let waited = now.saturating_duration_since(self.since);
        let kind = if self.rated { "rated" } else { "casual" };
        let mut parts = vec![format!("Searching: {}, {kind}", self.preset.name()), clock(waited)];
        if let Some(waiting) = self.waiting {
            parts.push(format!("{waiting} waiting"));
        }
        if let Some(seconds) = self.bots_after_seconds {
            parts.push(format!("bots after {seconds} s"));
        }
        parts.push("x cancels".into());
        parts.join(" · ")
    }
}

/// "0:07", "1:32".
fn clock(waited: Duration) -> String {
    let seconds = waited.as_secs();
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rated_request_has_no_bots_and_a_casual_one_may() {
        let mut form = QuickForm::default();
        assert_eq!(form.request(), QuickPlayRequest::new(Preset::Standard, true));
        assert_eq!(form.fields(), vec![QuickField::Preset, QuickField::Rated]);
        form.move_cursor(true);
        form.change(true);
        assert_eq!(form.fields().len(), 3, "casual: the bots line");
        form.move_cursor(true);
        form.change(true);
        assert_eq!(form.request().bots_after_seconds, Some(QUICK_PLAY_BOTS_AFTER_MIN));
        assert!(form.request().check().is_ok());
        // Rated again: the bots go, whatever was chosen.
        form.field = 1;
        form.change(true);
        assert_eq!(form.request().bots_after_seconds, None);
        assert!(form.request().check().is_ok());
    }

    #[test]
    fn the_searching_line_counts_the_time_waited() {
        let now = Instant::now();
        let mut searching = Searching::new(&QuickPlayRequest::new(Preset::Cutthroat, false), now);
        searching.waiting = Some(5);
        assert_eq!(
            searching.line(now + Duration::from_secs(67)),
            "Searching: cutthroat, casual · 1:07 · 5 waiting · x cancels"
        );
    }
}
