//! Quick play: the small form that asks the server for a game with
//! strangers (the form, rated or casual, bots after a wait for a casual
//! game, alone or with a partner), and the request while it waits, shown on
//! the lobby's searching lines until the server seats the player or the
//! request ends.

use std::time::{Duration, Instant};

use euchre_engine::Preset;
use euchre_protocol::{QUICK_PLAY_BOTS_AFTER_MIN, QuickPlayRequest};

use crate::form::cycle;

/// The forms quick play offers, as the browser does.
pub const QUICK_PRESETS: [Preset; 4] =
    [Preset::Standard, Preset::Cutthroat, Preset::ThreeHanded, Preset::TwoHandedPlain];

/// The waits before bots a casual request may choose (`None`: never).
pub const BOT_WAITS: [Option<u32>; 6] =
    [None, Some(QUICK_PLAY_BOTS_AFTER_MIN), Some(15), Some(30), Some(60), Some(120)];

/// The longest team code the form takes (the server's are shorter).
pub const TEAM_CODE_MAX: usize = 32;

/// One line of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickField {
    Preset,
    Rated,
    /// Casual only: a rated game is between people.
    BotsAfter,
    /// Partnership forms only: alone, inviting a partner, or joining one.
    Partner,
    /// When joining a partner: the code they were given.
    TeamCode,
}

/// Whether the player asks alone or as a team of two (sat opposite).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partner {
    #[default]
    Alone,
    /// Ask first: the server gives a team code to pass on.
    Invite,
    /// Join the partner who asked first, with the code they passed on.
    Join,
}

impl Partner {
    const ALL: [Partner; 3] = [Partner::Alone, Partner::Invite, Partner::Join];

    fn index(self) -> usize {
        Partner::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickForm {
    /// Index into [`QUICK_PRESETS`].
    pub preset: usize,
    pub rated: bool,
    /// Index into [`BOT_WAITS`].
    pub bots_after: usize,
    /// Alone or with a partner (in a partnership form).
    pub partner: Partner,
    /// The partner's team code, as typed, when joining them.
    pub team_code: String,
    /// The line with the cursor, an index into [`QuickForm::fields`].
    pub field: usize,
}

impl Default for QuickForm {
    fn default() -> QuickForm {
        QuickForm {
            preset: 0,
            // Casual: this client plays as a guest, and rated play needs an account.
            rated: false,
            bots_after: 0,
            partner: Partner::Alone,
            team_code: String::new(),
            field: 0,
        }
    }
}

impl QuickForm {
    pub fn preset(&self) -> Preset {
        QUICK_PRESETS[self.preset % QUICK_PRESETS.len()]
    }

    /// Whether the form chosen is played by partners, so that one can be
    /// brought along.
    pub fn offers_partner(&self) -> bool {
        self.preset().rules().partnerships()
    }

    /// Alone or with a partner, as the request goes: always alone in a
    /// form without partnerships.
    pub fn partner(&self) -> Partner {
        if self.offers_partner() { self.partner } else { Partner::Alone }
    }

    /// The form's lines: no bots line for a rated game, no partner line
    /// for a form without partnerships, the code line only when joining.
    pub fn fields(&self) -> Vec<QuickField> {
        let mut fields = vec![QuickField::Preset, QuickField::Rated];
        if !self.rated {
            fields.push(QuickField::BotsAfter);
        }
        if self.offers_partner() {
            fields.push(QuickField::Partner);
            if self.partner == Partner::Join {
                fields.push(QuickField::TeamCode);
            }
        }
        fields
    }

    pub fn current(&self) -> QuickField {
        let fields = self.fields();
        fields[self.field.min(fields.len() - 1)]
    }

    pub fn move_cursor(&mut self, down: bool) {
        let count = self.fields().len();
        self.field = cycle(self.field.min(count - 1), count, down);
    }

    pub fn change(&mut self, forward: bool) {
        let step = |at: usize, count: usize| cycle(at, count, forward);
        match self.current() {
            QuickField::Preset => self.preset = step(self.preset, QUICK_PRESETS.len()),
            QuickField::Rated => self.rated = !self.rated,
            QuickField::BotsAfter => self.bots_after = step(self.bots_after, BOT_WAITS.len()),
            QuickField::Partner => {
                self.partner = Partner::ALL[step(self.partner.index(), Partner::ALL.len())]
            }
            QuickField::TeamCode => {}
        }
    }

    /// A character typed on the code line: letters and digits only, as the
    /// server writes its codes (it reads them in any case).
    pub fn type_code(&mut self, c: char) {
        if c.is_ascii_alphanumeric() && self.team_code.len() < TEAM_CODE_MAX {
            self.team_code.push(c.to_ascii_uppercase());
        }
    }

    /// Joining a partner, but no code typed yet.
    pub fn lacks_code(&self) -> bool {
        self.partner() == Partner::Join && self.team_code.is_empty()
    }

    /// Seconds before bots, for a casual request that wants them.
    pub fn bots_after_seconds(&self) -> Option<u32> {
        if self.rated { None } else { BOT_WAITS[self.bots_after % BOT_WAITS.len()] }
    }

    pub fn request(&self) -> QuickPlayRequest {
        let partner = self.partner();
        QuickPlayRequest {
            bots_after_seconds: self.bots_after_seconds(),
            invite_partner: partner == Partner::Invite,
            team: (partner == Partner::Join).then(|| self.team_code.clone()),
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
    /// Asked as the first of a team: the partner is still to join.
    pub invites: bool,
    /// The code to pass on to the partner, from the server's ack.
    pub team: Option<String>,
    /// The partner's name, once they have joined.
    pub partner: Option<String>,
    /// A request of the player's that this client did not make (from
    /// before a restart, or another terminal): the server refused a new
    /// one with `already_queued`; shown so that it can be cancelled.
    pub unknown: bool,
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
            invites: request.invite_partner,
            team: None,
            partner: None,
            unknown: false,
        }
    }

    /// The player's request the server already holds, unknown here.
    pub fn already_waiting(now: Instant) -> Searching {
        let request = QuickPlayRequest::new(Preset::Standard, true);
        Searching { unknown: true, queued: true, ..Searching::new(&request, now) }
    }

    /// Whether a notice of the pool (`preset`, `rated`) is about this
    /// request: a request unknown here takes the first one as its own.
    pub fn is_for(&self, preset: Preset, rated: bool) -> bool {
        self.unknown || (self.preset == preset && self.rated == rated)
    }

    /// Waiting for the partner invited to join with the team code.
    pub fn awaits_partner(&self) -> bool {
        self.invites && self.partner.is_none()
    }

    /// The searching line, and while the invited partner has not joined a
    /// second one with the code to pass on.
    pub fn lines(&self, now: Instant) -> Vec<String> {
        let mut lines = vec![self.line(now)];
        if self.awaits_partner() {
            lines.push(match &self.team {
                Some(code) => format!(
                    "Give your partner this team code: {} · they join with it in p",
                    code.to_uppercase()
                ),
                None => "Asking the server for a team code…".to_owned(),
            });
        }
        lines
    }

    /// "Searching: standard, rated · 0:07 · 5 waiting · x cancels".
    pub fn line(&self, now: Instant) -> String {
        let waited = now.saturating_duration_since(self.since);
        let kind = if self.rated { "rated" } else { "casual" };
        if self.unknown {
            return "Searching: a request of yours was already waiting · x cancels".to_owned();
        }
        let what = match (&self.partner, self.invites) {
            (Some(name), _) => format!("Searching: {}, {kind}, with {name}", self.preset.name()),
            (None, true) => format!("Waiting for your partner: {}, {kind}", self.preset.name()),
            (None, false) => format!("Searching: {}, {kind}", self.preset.name()),
        };
        let mut parts = vec![what, clock(waited)];
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
        assert_eq!(form.request(), QuickPlayRequest::new(Preset::Standard, false), "casual first");
        assert_eq!(form.fields()[2], QuickField::BotsAfter, "casual: the bots line");
        form.move_cursor(true);
        form.move_cursor(true);
        form.change(true);
        assert_eq!(form.request().bots_after_seconds, Some(QUICK_PLAY_BOTS_AFTER_MIN));
        assert!(form.request().check().is_ok());
        // Rated: the bots go, whatever was chosen.
        form.field = 1;
        form.change(true);
        assert_eq!(form.fields(), vec![QuickField::Preset, QuickField::Rated, QuickField::Partner]);
        assert_eq!(form.request(), QuickPlayRequest::new(Preset::Standard, true));
        assert!(form.request().check().is_ok());
    }

    #[test]
    fn a_partner_is_offered_only_in_a_partnership_form() {
        let mut form = QuickForm::default();
        assert_eq!(form.fields().last(), Some(&QuickField::Partner));
        form.field = 3;
        form.change(true);
        assert_eq!(form.partner, Partner::Invite);
        assert!(form.request().invite_partner);
        form.change(true);
        assert_eq!(form.fields().last(), Some(&QuickField::TeamCode));
        assert!(form.lacks_code());
        for c in " q7-mz2k9xvt".chars() {
            form.type_code(c);
        }
        let request = form.request();
        assert_eq!((request.invite_partner, request.team.as_deref()), (false, Some("Q7MZ2K9XVT")));
        assert!(request.check().is_ok());
        // Cutthroat has no partners: the request goes alone.
        form.field = 0;
        form.change(true);
        assert!(!form.fields().contains(&QuickField::Partner));
        assert_eq!(form.request(), QuickPlayRequest::new(Preset::Cutthroat, false));
        assert!(!form.lacks_code());
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
