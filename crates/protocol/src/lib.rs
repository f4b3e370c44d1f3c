//! The Euchre table protocol: JSON text frames over a WebSocket, one message
//! per frame, each an object tagged by its `type`.
//!
//! - The client opens with [`ClientMessage::Hello`]; the server answers
//!   [`ServerMessage::Welcome`] (or an error naming the versions it speaks).
//! - Every command carries a client-chosen `id` and is answered exactly once,
//!   by [`ServerMessage::Ack`] or [`ServerMessage::Error`] echoing that `id`.
//!   Events a command causes are sent before its acknowledgement.
//! - Every table event carries the table's `seq`, one more than the last.
//!   Each receiver gets every `seq`: an event it may not see arrives as a
//!   placeholder with its `seq` and no `event`. A client that reconnects
//!   sends [`ClientMessage::Resume`] with the last `seq` it saw and receives
//!   the events since, or a snapshot when they are no longer kept.
//!
//! `docs/protocol.md` walks through a whole hand frame by frame, and
//! `docs/protocol.schema.json` is the JSON Schema of every message,
//! generated from these types by [`schema`].
//!
//! The HTTP API's answers (match history, analyses, players, tables) are
//! here too, in [`api`], beside the WebSocket's messages: the server
//! writes them and the clients read them from the same declarations.

use euchre_engine::action::{ActionFields, ActionKind};
use euchre_engine::rules::RulesError;
use euchre_engine::{Action, Card, Commitment, Event, GameView, Preset, Rules, Salt, Suit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod api;
mod encode;
pub mod error;

pub use encode::server_message_json;

pub use error::{ErrorCode, Refusal};

/// The protocol version this crate describes. A `hello` naming another
/// version is refused with [`ErrorCode::UnsupportedVersion`].
pub const PROTOCOL_VERSION: u32 = 1;

/// A client's name for one of its commands, echoed in the answer.
pub type CommandId = u64;

/// Identifies a table (a short opaque string).
pub type TableId = String;

/// Identifies a player (a UUID string).
pub type PlayerId = String;

/// Every message a client may send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Opens the session. With a `token` from an earlier `welcome`, the
    /// player comes back as themselves (and to their seats); without one, a
    /// new guest named `name` is created.
    Hello {
        id: CommandId,
        protocol_version: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Keeps the connection alive; answered with a `pong` reply. Never rate limited.
    Ping {
        id: CommandId,
    },
    /// Lists a page of the public tables matching a filter, in the order of
    /// their ids, and subscribes to lobby updates of the tables matching it
    /// (a later `list_tables` replaces the filter). Without its optional
    /// fields: the first page of every public table.
    ListTables {
        id: CommandId,
        #[serde(flatten)]
        query: LobbyQuery,
    },
    /// Creates a table; the creator is its host.
    CreateTable {
        id: CommandId,
        #[serde(flatten)]
        settings: TableSettings,
    },
    /// Takes a seat (the first free one if `seat` is omitted). A private
    /// table needs its `invite` code.
    Sit {
        id: CommandId,
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    /// Leaves the table: the seat is freed before the game starts, or played
    /// by a bot once it has.
    Leave {
        id: CommandId,
        table: TableId,
    },
    /// Watches the table as a spectator (public information only).
    Watch {
        id: CommandId,
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    /// After a reconnection: sends the table's events after `last_seq`, or a
    /// snapshot if they are no longer kept.
    Resume {
        id: CommandId,
        table: TableId,
        last_seq: u64,
    },
    /// Starts the game (host only). Empty seats are given to bots.
    Start {
        id: CommandId,
        table: TableId,
    },
    /// After a game ends: starts another with the same seats (host only).
    Rematch {
        id: CommandId,
        table: TableId,
    },
    /// A game action: a bid, going alone, the discard, a card, a claim, a concession.
    Act {
        id: CommandId,
        table: TableId,
        #[serde(flatten)]
        action: Action,
    },
    /// Says something to the table.
    Chat {
        id: CommandId,
        table: TableId,
        text: String,
    },
    /// Asks what the expert bot would do in your seat now, at a practice
    /// table (every other seat a bot, so never rated): answered with a
    /// `hint` reply, or `hint_not_allowed` at any other table.
    Hint {
        id: CommandId,
        table: TableId,
    },
    /// Asks for the review of finished hand `hand` (numbered from 0, as
    /// `hand_dealt` numbers it) of the game in play, for your seat, at a
    /// practice table: answered with a `review` reply, or
    /// `hint_not_allowed` at any other table.
    Review {
        id: CommandId,
        table: TableId,
        hand: u32,
    },
    /// Asks for a game with strangers in the pool of (`preset`, `rated`):
    /// answered with a `queued` ack, then `quick_play_matched` (and the
    /// table's snapshot) once seated, or `quick_play_ended`.
    QuickPlay {
        id: CommandId,
        #[serde(flatten)]
        request: QuickPlayRequest,
    },
    /// Ends the player's quick-play request (and their team's).
    CancelQuickPlay {
        id: CommandId,
    },
    /// Hides `player`'s chat from you at every table, now and later: kept
    /// on your account, or for a guest while the server runs.
    Mute {
        id: CommandId,
        player: PlayerId,
    },
    Unmute {
        id: CommandId,
        player: PlayerId,
    },
    /// Blocks `player`: quick play never seats you together, neither of you
    /// may sit at a table the other hosts or sits at, and their chat is
    /// hidden from you. Kept as mutes are.
    Block {
        id: CommandId,
        player: PlayerId,
    },
    Unblock {
        id: CommandId,
        player: PlayerId,
    },
    /// Your mutes and blocks: answered with a `social` reply.
    Social {
        id: CommandId,
    },
    /// Reports `player` to the moderators. From a table (`table`): the
    /// server attaches the match in play and the player's chat lines it
    /// holds; from a replay (`match_id`): the match. At most a few a
    /// minute and a day, once per player and match.
    Report {
        id: CommandId,
        player: PlayerId,
        reason: ReportReason,
        /// Up to 500 characters.
        #[serde(default)]
        details: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table: Option<TableId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        match_id: Option<String>,
    },
    /// The player has read moderators' `warning` number `warning`: it is
    /// not shown again. Answered `done`, whoever's the number is.
    AcknowledgeWarning {
        id: CommandId,
        warning: i64,
    },
}

/// Why a player is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    AbusiveChat,
    CheatingOrCollusion,
    ThrowingGames,
    OffensiveName,
    Other,
}

impl ReportReason {
    /// The reason as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::AbusiveChat => "abusive_chat",
            ReportReason::CheatingOrCollusion => "cheating_or_collusion",
            ReportReason::ThrowingGames => "throwing_games",
            ReportReason::OffensiveName => "offensive_name",
            ReportReason::Other => "other",
        }
    }
}

/// A player on your list of mutes or blocks: the name is absent for a
/// guest the server no longer keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListedPlayer {
    pub id: PlayerId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ClientMessage {
    /// The command's id.
    pub fn id(&self) -> CommandId {
        match self {
            ClientMessage::Hello { id, .. }
            | ClientMessage::Ping { id }
            | ClientMessage::ListTables { id, .. }
            | ClientMessage::CreateTable { id, .. }
            | ClientMessage::Sit { id, .. }
            | ClientMessage::Leave { id, .. }
            | ClientMessage::Watch { id, .. }
            | ClientMessage::Resume { id, .. }
            | ClientMessage::Start { id, .. }
            | ClientMessage::Rematch { id, .. }
            | ClientMessage::Act { id, .. }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::Hint { id, .. }
            | ClientMessage::Review { id, .. }
            | ClientMessage::QuickPlay { id, .. }
            | ClientMessage::CancelQuickPlay { id }
            | ClientMessage::Mute { id, .. }
            | ClientMessage::Unmute { id, .. }
            | ClientMessage::Block { id, .. }
            | ClientMessage::Unblock { id, .. }
            | ClientMessage::Social { id }
            | ClientMessage::Report { id, .. } => *id,
            ClientMessage::AcknowledgeWarning { id, .. } => *id,
        }
    }

    /// Gives the command another id (a client numbering its commands).
    pub fn set_id(&mut self, new: CommandId) {
        match self {
            ClientMessage::Hello { id, .. }
            | ClientMessage::Ping { id }
            | ClientMessage::ListTables { id, .. }
            | ClientMessage::CreateTable { id, .. }
            | ClientMessage::Sit { id, .. }
            | ClientMessage::Leave { id, .. }
            | ClientMessage::Watch { id, .. }
            | ClientMessage::Resume { id, .. }
            | ClientMessage::Start { id, .. }
            | ClientMessage::Rematch { id, .. }
            | ClientMessage::Act { id, .. }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::Hint { id, .. }
            | ClientMessage::Review { id, .. }
            | ClientMessage::QuickPlay { id, .. }
            | ClientMessage::CancelQuickPlay { id }
            | ClientMessage::Mute { id, .. }
            | ClientMessage::Unmute { id, .. }
            | ClientMessage::Block { id, .. }
            | ClientMessage::Unblock { id, .. }
            | ClientMessage::Social { id }
            | ClientMessage::Report { id, .. } => *id = new,
            ClientMessage::AcknowledgeWarning { id, .. } => *id = new,
        }
    }
}

/// The `type` of every client message.
pub const CLIENT_TYPES: [&str; 22] = [
    "hello",
    "ping",
    "list_tables",
    "create_table",
    "sit",
    "leave",
    "watch",
    "resume",
    "start",
    "rematch",
    "act",
    "chat",
    "hint",
    "quick_play",
    "cancel_quick_play",
    "mute",
    "unmute",
    "block",
    "unblock",
    "social",
    "report",
    "acknowledge_warning",
];

/// A frame the server could not take as a command.
#[derive(Clone, Debug, PartialEq)]
pub struct BadFrame {
    /// The frame's `id`, when it had a readable one.
    pub id: Option<CommandId>,
    pub code: ErrorCode,
    pub message: String,
}

impl BadFrame {
    pub fn to_message(&self) -> ServerMessage {
        self.code.with_message(self.id, self.message.clone())
    }
}

/// An `act` frame's fields, read in one pass.
#[derive(Deserialize)]
struct ActFrame<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    id: CommandId,
    table: TableId,
    // The action's own fields, not flattened: flattening buffers them.
    action: ActionKind,
    #[serde(default)]
    alone: bool,
    suit: Option<Suit>,
    card: Option<Card>,
}

/// Reads one client frame, telling malformed JSON (`bad_json`) from an
/// unknown `type` (`unknown_type`), and keeping the `id` when it can.
pub fn parse_client_message(text: &str) -> Result<ClientMessage, BadFrame> {
    // Actions, most of what clients send, are read field by field; the
    // derive for `act` (tagged, with the action flattened in) buffers every
    // field twice. Anything else, or an `act` this does not read, takes the
    // general path, whose answer stands.
    if let Ok(act) = serde_json::from_str::<ActFrame<'_>>(text)
        && act.kind == "act"
        && let Ok(action) =
            (ActionFields { action: act.action, alone: act.alone, suit: act.suit, card: act.card })
                .action()
    {
        return Ok(ClientMessage::Act { id: act.id, table: act.table, action });
    }
    // Well-formed messages, nearly all of them, parse in one pass; only a
    // refused one is read again as a plain value to say what is wrong.
    if let Ok(message) = serde_json::from_str(text) {
        return Ok(message);
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|error| BadFrame {
        id: None,
        code: ErrorCode::BadJson,
        message: format!("not JSON: {error}"),
    })?;
    let id = value.get("id").and_then(serde_json::Value::as_u64);
    let Some(kind) = value.get("type").and_then(serde_json::Value::as_str).map(str::to_owned)
    else {
        return Err(BadFrame {
            id,
            code: ErrorCode::BadJson,
            message: "a message is a JSON object with a string \"type\"".to_owned(),
        });
    };
    if !CLIENT_TYPES.contains(&kind.as_str()) {
        return Err(BadFrame {
            id,
            code: ErrorCode::UnknownType,
            message: format!("unknown message type {kind:?}"),
        });
    }
    serde_json::from_value(value).map_err(|error| BadFrame {
        id,
        code: ErrorCode::BadJson,
        message: format!("invalid {kind}: {error}"),
    })
}

/// How a new table is set up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableSettings {
    /// The rules preset the table starts from.
    #[serde(default = "default_preset")]
    pub preset: Preset,
    /// Options that override the preset (any `Rules` field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<serde_json::Map<String, serde_json::Value>>,
    /// A private table is not listed in the lobby and needs its invite code.
    #[serde(default)]
    pub private: bool,
    /// Seats that bots take from the start.
    #[serde(default)]
    pub bot_seats: Vec<u8>,
    /// The table's bot level: it plays the bot seats not named in
    /// `seat_bots`, and stands in for absent players. `expert`, `hard`,
    /// `medium`, `basic` (the easy level; `easy` is read as `basic`),
    /// `naive` or `random`.
    #[serde(default = "default_bot")]
    pub bot: String,
    /// Another level for some of the bot seats, seat by seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_bots: Vec<SeatBot>,
    /// Seconds a player has for each turn before a bot acts for them; none
    /// for no limit (a rated table without bot seats gets the server's
    /// rated timer instead: every rated game has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_seconds: Option<u32>,
    /// Whether the table has chat.
    #[serde(default = "yes")]
    pub chat: bool,
    /// Whether its games count for the players' ratings. Only games between
    /// accounts are rated (a guest in a seat, an account not rated yet, or
    /// two opponents past the day's cap make the game casual, and
    /// `unrated` says so as it starts and at its end): a table with a bot seat never is.
    #[serde(default = "yes")]
    pub rated: bool,
}

/// The shortest `bots_after_seconds` a quick-play request may ask for.
pub const QUICK_PLAY_BOTS_AFTER_MIN: u32 = 5;
/// The longest `bots_after_seconds` a quick-play request may ask for.
pub const QUICK_PLAY_BOTS_AFTER_MAX: u32 = 300;
/// The longest team code the server reads (its codes are shorter).
pub const TEAM_CODE_MAX_LEN: usize = 64;

/// What a `quick_play` asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QuickPlayRequest {
    /// The form and rules of the game: one pool per preset and `rated`.
    pub preset: Preset,
    /// A rated pool pairs by rating and its games count; a casual one does not.
    pub rated: bool,
    /// Casual only: after this many seconds unmatched (5 to 300), bots take
    /// the seats still missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = QUICK_PLAY_BOTS_AFTER_MIN, max = QUICK_PLAY_BOTS_AFTER_MAX))]
    pub bots_after_seconds: Option<u32>,
    /// Ask as a team of two: the ack carries a `team` code for the partner,
    /// and the request waits for them. Partnership presets only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub invite_partner: bool,
    /// Join a partner's request with the code from their ack: the two are
    /// matched together and seated opposite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl QuickPlayRequest {
    /// A request alone, with no bots.
    pub fn new(preset: Preset, rated: bool) -> QuickPlayRequest {
        QuickPlayRequest {
            preset,
            rated,
            bots_after_seconds: None,
            invite_partner: false,
            team: None,
        }
    }

    /// Whether the request's fields fit together, or why not (`bad_request`;
    /// a team code of impossible length is `bad_team`). Whether a team code
    /// names a live request is the server's to say.
    pub fn check(&self) -> Result<(), Refusal> {
        let bad = |message: String| Err(ErrorCode::BadRequest.refusal(message));
        if let Some(seconds) = self.bots_after_seconds {
            if self.rated {
                return bad(
                    "a rated game has no bots: bots_after_seconds is for casual play".into()
                );
            }
            if !(QUICK_PLAY_BOTS_AFTER_MIN..=QUICK_PLAY_BOTS_AFTER_MAX).contains(&seconds) {
                return bad(format!(
                    "bots_after_seconds must be {QUICK_PLAY_BOTS_AFTER_MIN} to {QUICK_PLAY_BOTS_AFTER_MAX}, not {seconds}"
                ));
            }
        }
        let rules = self.preset.rules();
        if self.invite_partner || self.team.is_some() {
            if !rules.partnerships() {
                return bad(format!(
                    "{:?} has no partners: only four-handed presets take a team",
                    self.preset
                ));
            }
            if rules.first_dealer == euchre_engine::FirstDealer::Draw {
                return bad(format!(
                    "{:?} draws for partners at the start: a team cannot be kept together",
                    self.preset
                ));
            }
        }
        if self.invite_partner && self.team.is_some() {
            return bad("either invite_partner or team, not both".into());
        }
        if let Some(code) = &self.team
            && (code.is_empty() || code.len() > TEAM_CODE_MAX_LEN)
        {
            return Err(ErrorCode::BadTeam.refusal("no team has that code"));
        }
        Ok(())
    }
}

/// The bot that plays one of the bot seats (see `TableSettings::seat_bots`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatBot {
    pub seat: u8,
    pub bot: String,
}

fn default_preset() -> Preset {
    Preset::Standard
}

fn default_bot() -> String {
    "basic".to_owned()
}

fn yes() -> bool {
    true
}

impl Default for TableSettings {
    fn default() -> TableSettings {
        TableSettings {
            preset: Preset::Standard,
            rules: None,
            private: false,
            bot_seats: Vec::new(),
            bot: default_bot(),
            seat_bots: Vec::new(),
            turn_seconds: None,
            chat: true,
            rated: true,
        }
    }
}

impl TableSettings {
    /// The preset's rules with the overrides applied, or why they do not apply.
    pub fn resolve_rules(&self) -> Result<Rules, SettingsError> {
        let options = |error: serde_json::Error| SettingsError::Options(error.to_string());
        let mut value = serde_json::to_value(self.preset.rules()).map_err(options)?;
        if let (Some(overrides), Some(base)) = (&self.rules, value.as_object_mut()) {
            for (key, option) in overrides {
                base.insert(key.clone(), option.clone());
            }
        }
        let rules: Rules = serde_json::from_value(value).map_err(options)?;
        rules.validate()?;
        Ok(rules)
    }
}

/// Why a table's settings make no rules; its text is the `bad_settings`
/// refusal's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// An override names no rule option, or gives one a value of the wrong
    /// type (serde's words, which name the option).
    #[error("{0}")]
    Options(String),
    /// The options together make rules the engine cannot play.
    #[error(transparent)]
    Rules(#[from] RulesError),
}

/// Every message the server sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to `hello`: who you are, and the token to come back with.
    Welcome {
        id: CommandId,
        protocol_version: u32,
        player: PlayerInfo,
        /// Keep this secret: it is how you reclaim your identity and seats.
        token: String,
    },
    /// A command succeeded.
    Ack {
        id: CommandId,
        #[serde(flatten)]
        reply: Reply,
    },
    /// A command (or a frame that was not one) failed. Nothing changed.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<CommandId>,
        code: String,
        message: String,
    },
    /// A table event, or a placeholder (no `event`) for one this receiver may not see.
    Event {
        table: TableId,
        seq: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<TableEvent>,
    },
    /// Everything this receiver may know of a table, as of `seq`.
    Snapshot {
        table: TableId,
        seq: u64,
        /// Boxed: by far the largest message.
        state: Box<TableState>,
    },
    /// It is your turn at `table`: these are your legal actions.
    YourTurn {
        table: TableId,
        seq: u64,
        actions: Vec<Action>,
        /// Milliseconds left before a bot acts for you, if the table has a turn timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// A page of the public tables matching the filter (after
    /// `list_tables`; or its first page again, to resynchronize a client
    /// that fell behind on updates).
    Lobby(LobbyPage),
    /// A public table matching the subscriber's filter changed or appeared.
    LobbyUpdate { table: TableSummary },
    /// A public table closed, or stopped matching the subscriber's filter.
    LobbyRemoved { table: TableId },
    /// The server is going down; reconnect after this many milliseconds.
    Shutdown { reconnect_after_ms: u64 },
    /// A moderator's warning, sent after `welcome` at every `hello` until
    /// the player sends `acknowledge_warning` with its number. A name a
    /// moderator changed is told this way too.
    Warning {
        /// The number to acknowledge.
        warning: i64,
        /// When it was given (milliseconds since the Unix epoch).
        at: i64,
        message: String,
        /// It tells of a name a moderator took away: the player may pick a
        /// new one (`PUT /api/accounts/name`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rename: bool,
    },
    /// In a cluster: `table`, just joined through this node, lives on
    /// another node, which clients reach at `url` (from the servers'
    /// configuration, never from a client). A client may open a connection
    /// there, say `hello` with its token, `resume` (or `watch`) the table,
    /// then close this one: the table's messages then stop going between
    /// nodes. Ignoring it is fine: everything keeps working through here.
    TableElsewhere { table: TableId, url: String },
    /// Progress of a quick-play request: when the partner joins, and now
    /// and then while waiting (`waiting`: players waiting in the pool).
    QuickPlayWaiting {
        preset: Preset,
        rated: bool,
        waiting: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partner: Option<PlayerInfo>,
    },
    /// The quick-play request was answered: the player sits at `table` in
    /// `seat`, this connection is subscribed, and the table's `snapshot`
    /// follows. `request` is the id its `queued` ack gave it.
    QuickPlayMatched {
        table: TableId,
        seat: u8,
        #[serde(default)]
        request: u64,
    },
    /// The quick-play request ended without a table, and not by this
    /// connection's own `cancel_quick_play`. `request` is the id its
    /// `queued` ack gave it: a late notice of an earlier request names
    /// another.
    QuickPlayEnded {
        reason: QuickPlayEndReason,
        message: String,
        #[serde(default)]
        request: u64,
    },
    /// To a lobby subscriber: the tables where the player holds a seat
    /// changed (they sat, left, or one of them changed or closed); the
    /// whole list, as a first page's `yours` would give it now.
    LobbyYours { tables: Vec<TableSummary> },
    /// A round of a tournament the player entered seats them at `table`, in
    /// `seat`: sent to each of their connections as the round starts.
    /// `resume` the table to play there; until then they are away, and a
    /// bot plays for them after the reconnect grace. Not sent for a round
    /// that found them absent (a bot plays that round for them).
    TournamentSeated {
        tournament: String,
        /// The tournament's name, to show.
        name: String,
        /// The round, from 1.
        round: u32,
        table: TableId,
        seat: u8,
    },
}

/// Why a quick-play request ended without a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuickPlayEndReason {
    /// The player cancelled it (from another connection).
    Cancelled,
    /// The partner cancelled the team's request.
    PartnerCancelled,
    /// The partner's connection was gone longer than the grace.
    PartnerLeft,
    /// The request waited as long as a request may (a team invite nobody
    /// joined, or the pool's longest wait).
    Expired,
    /// The server is shutting down.
    Shutdown,
    /// The node holding the pool went away: ask again.
    OwnerLost,
    /// The table could not be made (storage failed): ask again.
    Unavailable,
}

/// What a successful command returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// Done; nothing more to say.
    Done,
    Pong,
    TableCreated {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    Seated {
        table: TableId,
        seat: u8,
    },
    Watching {
        table: TableId,
    },
    /// Events after `last_seq` follow (or preceded this) as `event` messages,
    /// or a `snapshot` was sent instead.
    Resumed {
        table: TableId,
        snapshot: bool,
    },
    /// A `quick_play` request waits in its pool; `team` (with
    /// `invite_partner`) is the code the partner joins with; `request`
    /// names it in its `quick_play_ended`.
    Queued {
        preset: Preset,
        rated: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        team: Option<String>,
        #[serde(default)]
        request: u64,
    },
    /// Your mutes and blocks, newest first.
    Social {
        muted: Vec<ListedPlayer>,
        blocked: Vec<ListedPlayer>,
    },
    /// What the expert bot would do in your seat (a `hint`), and why in
    /// one line. The table is as it was: the action is not taken.
    Hint {
        table: TableId,
        action: Action,
        why: String,
    },
    /// Your biggest mistake in hand `hand` (a `review`), valued with what
    /// your seat knew; `null` when every choice was within a quarter of a
    /// point of the best.
    Review {
        table: TableId,
        hand: u32,
        mistake: Option<ReviewedChoice>,
    },
}

/// A choice a review found wanting, and the better one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewedChoice {
    /// The action's place among the hand's actions, from 0.
    pub index: u32,
    pub chosen: Action,
    /// The best option (the first, where several are as good).
    pub better: Action,
    /// Expected points the choice gave up against it.
    pub points_lost: f64,
    /// `inaccuracy`, `mistake` or `blunder`.
    pub mark: api::Mark,
}

/// A player as others see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerInfo {
    pub id: PlayerId,
    pub name: String,
}

/// Something that happened at a table: a game event (see the engine's
/// `Event`) or a table notice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TableEvent {
    Game(Event),
    Table(TableNotice),
}

/// Table events that are not part of the game itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TableNotice {
    /// A seat was taken (by a person or a bot).
    SeatTaken { seat: u8, occupant: Occupant },
    /// A seat was given up.
    SeatLeft { seat: u8 },
    /// A seated player connected or disconnected. While away, a bot plays
    /// for them after `grace_ms`.
    Presence {
        seat: u8,
        connected: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grace_ms: Option<u64>,
    },
    /// A game began; the first hand follows.
    GameStarted { game: u32, rules: Rules },
    /// A line of chat. A player who muted or blocked its writer is sent
    /// the event without it (`event` absent), keeping the seq.
    Chat {
        from: String,
        text: String,
        /// The writer's player id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_id: Option<PlayerId>,
    },
    /// A rated game ended: each player's new rating in the game's form
    /// (`partnership`, `cutthroat`, `three_handed`, `two_handed`,
    /// `two_handed_plain`). Comes a moment after `game_won`.
    Rated { form: String, ratings: Vec<SeatRating> },
    /// A game set up rated will not be rated: sent a moment after its
    /// `game_started`, and again when it ends (instead of `rated`).
    /// `reason` says why, `message` in words.
    Unrated { reason: UnratedReason, message: String },
    /// At a table quick play formed (no host): who asked for a rematch
    /// of the game just over (`rematch`), and when the others' time to
    /// answer runs out. Sent when a player asks, leaves, or the time runs
    /// out (`asked` empty: the asks lapsed). Once every person still
    /// seated has asked, the next game starts (`game_started`).
    RematchVote {
        asked: Vec<u8>,
        /// Milliseconds left to answer, while anyone has asked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// Sent right after each hand is dealt, before anyone bids: the
    /// SHA-256 commitment to the whole deal (docs/security.md). Keep it to
    /// check the reveal.
    DealCommitted {
        /// The hand's number in the match, counting from 0, as in `hand_dealt`.
        hand: u32,
        commitment: Commitment,
    },
    /// Sent once the hand has ended (never before): the deck in the
    /// committed order (each seat's hand, the dummy, the up-card, the rest
    /// of the kitty) and the salt. SHA-256 of
    /// `euchre-deal-v1:<deck joined by ",">:<salt>` is the commitment.
    DealRevealed { hand: u32, deck: Vec<Card>, salt: Salt },
}

/// Why a game at a rated table was not rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnratedReason {
    /// A guest sat in it: only accounts are rated.
    Guest,
    /// An account in it is not rated yet (too new, or too few games).
    NewAccount,
    /// Two of its opponents played as many rated games against each other
    /// today as the server allows.
    DailyCap,
}

/// One player's rating after a rated game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatRating {
    pub seat: u8,
    pub player_id: String,
    /// The Glicko-2 rating, rounded.
    pub rating: i32,
    /// What the game changed it by, rounded (from 1500 in a first rated game).
    pub change: i32,
}

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Occupant {
    Player { player: PlayerInfo, connected: bool },
    Bot { bot: String },
}

/// A table as a receiver may know it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableState {
    pub summary: TableSummary,
    /// Seat `i`'s occupant, if any.
    pub seats: Vec<Option<Occupant>>,
    /// The receiver's seat, if seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub your_seat: Option<u8>,
    /// The game in progress or just finished, as the receiver may see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameView>,
    /// The commitment to the deal of the hand in play (or the last hand),
    /// as `deal_committed` announced it: for a receiver that joins or
    /// resumes mid-hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_commitment: Option<Commitment>,
    /// The receiver's legal actions (empty unless it is their turn).
    pub actions: Vec<Action>,
    /// At a table quick play formed, which has no host: the rematch is
    /// asked for by the players (`rematch`, `rematch_vote`), and this is
    /// where the asking stands (nobody has asked: empty). Absent at a
    /// hosted table, where the host starts a rematch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_vote: Option<RematchVote>,
    /// To the receiver's seat only: a bot has played it for them since they
    /// were last away past the grace, and they have not acted since; so a
    /// player back on any device learns what was played without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stood_in: Option<StoodIn>,
}

/// Since when a bot has stood in for the receiver (`TableState::stood_in`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StoodIn {
    /// The hand (counted from 0) in which the bot first acted for them.
    pub from_hand: u32,
    /// The scores when that hand began.
    pub scores: euchre_engine::PerTeam<u16>,
}

/// Who asked for a rematch at a table without a host (`TableState`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RematchVote {
    /// The seats whose player asked.
    pub asked: Vec<u8>,
    /// Milliseconds left for the others to ask, while anyone has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// A table as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableSummary {
    pub table: TableId,
    pub host: String,
    pub preset: Preset,
    pub rules: Rules,
    pub private: bool,
    /// Seats taken, by people or bots.
    pub seated: u8,
    pub status: TableStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_seconds: Option<u32>,
    pub chat: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Waiting for players.
    Open,
    Playing,
    /// A game ended; a rematch may follow.
    Finished,
}

/// Tables in a lobby page when `list_tables` names no `limit`.
pub const LOBBY_PAGE_DEFAULT: u32 = 50;
/// The largest `limit` a `list_tables` may ask for.
pub const LOBBY_PAGE_MAX: u32 = 200;

/// Which public tables `list_tables` lists, and which page of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyQuery {
    #[serde(flatten)]
    pub filter: LobbyFilter,
    /// Tables in the page: 1 to 200 (`LOBBY_PAGE_MAX`); 50
    /// (`LOBBY_PAGE_DEFAULT`) if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = LOBBY_PAGE_MAX))]
    pub limit: Option<u32>,
    /// The page after this table id: the previous page's `next`. Omitted:
    /// the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<TableId>,
}

impl LobbyQuery {
    /// The page's size, or why the `limit` is refused (`bad_query`).
    pub fn page_size(&self) -> Result<usize, Refusal> {
        match self.limit.unwrap_or(LOBBY_PAGE_DEFAULT) {
            limit @ 1..=LOBBY_PAGE_MAX => Ok(limit as usize),
            limit => Err(ErrorCode::BadQuery
                .refusal(format!("limit must be 1 to {LOBBY_PAGE_MAX}, not {limit}"))),
        }
    }
}

/// Which public tables a lobby lists; every field left out lets all through.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyFilter {
    /// Only tables in this state (`open`: waiting for players).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TableStatus>,
    /// Only tables of this preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Only tables with a seat nobody (person or bot) has taken.
    #[serde(default, skip_serializing_if = "is_false")]
    pub free_seat: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl LobbyFilter {
    /// Whether the lobby lists `table` under this filter (never a private one).
    pub fn matches(&self, table: &TableSummary) -> bool {
        !table.private
            && self.status.is_none_or(|status| status == table.status)
            && self.preset.is_none_or(|preset| preset == table.preset)
            && (!self.free_seat || table.seated < table.rules.players)
    }
}

/// One page of the lobby, in the order of the tables' ids.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LobbyPage {
    pub tables: Vec<TableSummary>,
    /// On a first page: the live tables where the player holds a seat
    /// (present or away, private ones too), whatever the filter, at most
    /// 50, in the order of their ids: "your games", to resume. Omitted
    /// when there are none, and on later pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub yours: Vec<TableSummary>,
    /// How many public tables match the filter, on every page.
    #[serde(default)]
    pub total: u64,
    /// The `after` this page answers; omitted for a first page, which
    /// replaces whatever a client listed before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<TableId>,
    /// When more tables match: the `after` that asks for the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<TableId>,
}

/// WebSocket close codes the server uses.
pub mod close {
    /// Normal closure.
    pub const NORMAL: u16 = 1000;
    /// The server is shutting down: reconnect later.
    pub const GOING_AWAY: u16 = 1001;
    /// A policy was broken: too many refused messages (a flood).
    pub const POLICY: u16 = 1008;
    /// A frame was larger than the limit.
    pub const TOO_LARGE: u16 = 1009;
    /// The client fell too far behind; reconnect and resume.
    pub const TOO_SLOW: u16 = 4000;
    /// No `hello` in time, or no pong to the server's pings.
    pub const IDLE: u16 = 4001;
    /// Reserved for "the same player connected again elsewhere; this
    /// connection was replaced". Never sent: a player may hold several
    /// connections at once (two tabs), see docs/security.md.
    pub const REPLACED: u16 = 4002;
    /// The session the connection said hello with ended: logged out, the
    /// password changed, or expired. Log in again.
    pub const SESSION_ENDED: u16 = 4003;
    /// A moderator banned the account (or its address): the reason says
    /// until when (`banned until 2026-12-08T13:00:00Z`, or `banned`, for
    /// good). A `hello` is refused `banned` until then.
    pub const BANNED: u16 = 4004;
}

/// The JSON Schema of every message in both directions.
pub fn schema() -> serde_json::Value {
    #[derive(JsonSchema)]
    #[allow(dead_code, clippy::large_enum_variant)]
    /// A frame of the Euchre table protocol, in either direction.
    enum Frame {
        FromClient(ClientMessage),
        FromServer(ServerMessage),
    }
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Frame>();
    schema.to_value()
}
