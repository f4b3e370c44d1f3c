//! Error codes of the protocol itself. Rule errors from the engine keep
//! their own codes (`not_your_turn`, `must_follow_suit`, …) and come in the
//! same `error` message.

use std::fmt;

use crate::{CommandId, ServerMessage};

/// A protocol-level failure, with its stable snake_case code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The frame is not valid JSON, or not a valid message of a known type.
    BadJson,
    /// The `type` field names no message.
    UnknownType,
    /// The frame is larger than the server accepts.
    TooLarge,
    /// Too many messages too fast.
    RateLimited,
    /// The `hello` named a protocol version the server does not speak.
    UnsupportedVersion,
    /// A command came before `hello`, or a second `hello`.
    HelloFirst,
    /// The token is unknown (or its session was logged out).
    BadToken,
    /// The log-in session has expired: log in again.
    SessionExpired,
    /// A display name must be 1 to 32 characters once normalised (NFKC,
    /// white space collapsed), show something, and hold no control,
    /// zero-width, bidi, private-use or unassigned character.
    BadName,
    /// The name, or one that looks the same, belongs to an account: log
    /// in, or play under another name.
    NameTaken,
    /// Binary frames are not part of the protocol.
    BinaryFrame,
    /// No such table (or it is private and the invite is wrong).
    NoSuchTable,
    /// The table's seats are all taken.
    TableFull,
    /// That seat is taken.
    SeatTaken,
    /// That seat does not exist.
    NoSuchSeat,
    /// You hold no seat at this table.
    NotSeated,
    /// You already sit at this table.
    AlreadySeated,
    /// Only the table's host may do that.
    NotHost,
    /// The game has not started.
    NotStarted,
    /// A game is in progress.
    GameInProgress,
    /// You host as many tables as a player may.
    TooManyTables,
    /// The table's settings are invalid (the message says which).
    BadSettings,
    /// Chat is off at this table.
    ChatDisabled,
    /// The chat message is empty (once control and format characters are
    /// removed) or too long.
    BadChat,
    /// A `list_tables` asked for a page the server does not give (the
    /// message says why).
    BadQuery,
    /// The server is shutting down.
    ShuttingDown,
    /// The table is busy; try again.
    Busy,
    /// The server cannot keep what you asked for right now (its storage
    /// failed); nothing changed.
    Unavailable,
    /// The command's fields do not fit together (the message says why).
    BadRequest,
    /// The player already has a quick-play request (on any connection).
    AlreadyQueued,
    /// The player sits at a live table a quick-play pool formed: one such game at a time.
    InQuickPlayGame,
    /// The player has no quick-play request to cancel.
    NotQueued,
    /// No live team request has that code (or it is your own, or its
    /// preset or `rated` differ: the message says which).
    BadTeam,
    /// Rated play is for accounts: claim your name (or ask a casual game).
    AccountNeeded,
    /// This account is not rated yet (too new, or too few games finished:
    /// the message says what is missing); casual play is open.
    RatedPlayLocked,
    /// The table has as many spectators as it takes, or the connection
    /// follows as many tables as it may (the message says which).
    WatchLimit,
    /// A block stands between you and a player at this table (whichever of
    /// you made it: the refusal is the same).
    Blocked,
    /// No such player (or not one you can report from there).
    NoSuchPlayer,
    /// The report's details are over 500 characters.
    BadReport,
    /// You reported this player for this match (or table) already.
    AlreadyReported,
    /// You have filed as many reports as a player may for now (the message
    /// says until when, roughly).
    ReportLimit,
    /// No rematch at this table: a rated game's rematch needs every player
    /// who played it, and one left.
    NoRematch,
    /// A moderator banned this account or address; the message says until
    /// when.
    Banned,
    /// A moderator muted this player's chat; the message says until when.
    ChatMuted,
    /// The name or chat line holds a word the server's word list refuses.
    BlockedWords,
    /// Hints and hand reviews are for practice games only: a table whose other seats are all
    /// bots (so never rated). Not at a rated table, a quick-play table with
    /// people, or any table with another person seated.
    HintNotAllowed,
}

impl ErrorCode {
    pub fn code(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::HelloFirst => "hello_first",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::SessionExpired => "session_expired",
            ErrorCode::BadName => "bad_name",
            ErrorCode::NameTaken => "name_taken",
            ErrorCode::BinaryFrame => "binary_frame",
            ErrorCode::NoSuchTable => "no_such_table",
            ErrorCode::TableFull => "table_full",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::NoSuchSeat => "no_such_seat",
            ErrorCode::NotSeated => "not_seated",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::NotHost => "not_host",
            ErrorCode::NotStarted => "not_started",
            ErrorCode::GameInProgress => "game_in_progress",
            ErrorCode::TooManyTables => "too_many_tables",
            ErrorCode::BadSettings => "bad_settings",
            ErrorCode::ChatDisabled => "chat_disabled",
            ErrorCode::BadChat => "bad_chat",
            ErrorCode::BadQuery => "bad_query",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Busy => "busy",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::AlreadyQueued => "already_queued",
            ErrorCode::InQuickPlayGame => "in_quick_play_game",
            ErrorCode::NotQueued => "not_queued",
            ErrorCode::BadTeam => "bad_team",
            ErrorCode::AccountNeeded => "account_needed",
            ErrorCode::RatedPlayLocked => "rated_play_locked",
            ErrorCode::WatchLimit => "watch_limit",
            ErrorCode::Blocked => "blocked",
            ErrorCode::NoSuchPlayer => "no_such_player",
            ErrorCode::BadReport => "bad_report",
            ErrorCode::AlreadyReported => "already_reported",
            ErrorCode::ReportLimit => "report_limit",
            ErrorCode::NoRematch => "no_rematch",
            ErrorCode::Banned => "banned",
            ErrorCode::ChatMuted => "chat_muted",
            ErrorCode::BlockedWords => "blocked_words",
            ErrorCode::HintNotAllowed => "hint_not_allowed",
        }
    }

    /// A default human message.
    pub fn message(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "the frame is not a valid message",
            ErrorCode::UnknownType => "unknown message type",
            ErrorCode::TooLarge => "the frame is too large",
            ErrorCode::RateLimited => "too many messages; slow down",
            ErrorCode::UnsupportedVersion => "unsupported protocol version",
            ErrorCode::HelloFirst => "send hello once, before anything else",
            ErrorCode::BadToken => "unknown token",
            ErrorCode::SessionExpired => "your session has expired; log in again",
            ErrorCode::BadName => {
                "a name must be 1 to 32 visible characters, with no control, invisible or bidi ones"
            }
            ErrorCode::NameTaken => {
                "that name (or one that looks the same) belongs to an account: log in, or pick another"
            }
            ErrorCode::BinaryFrame => "binary frames are not supported; send JSON text",
            ErrorCode::NoSuchTable => "no such table",
            ErrorCode::TableFull => "the table is full",
            ErrorCode::SeatTaken => "that seat is taken",
            ErrorCode::NoSuchSeat => "no such seat",
            ErrorCode::NotSeated => "you have no seat at this table",
            ErrorCode::AlreadySeated => "you already sit at this table",
            ErrorCode::NotHost => "only the host may do that",
            ErrorCode::NotStarted => "the game has not started",
            ErrorCode::GameInProgress => "a game is in progress",
            ErrorCode::TooManyTables => "you host too many tables",
            ErrorCode::BadSettings => "invalid table settings",
            ErrorCode::ChatDisabled => "chat is off at this table",
            ErrorCode::BadChat => "a chat message must be 1 to 500 characters",
            ErrorCode::BadQuery => "invalid lobby query",
            ErrorCode::ShuttingDown => "the server is shutting down",
            ErrorCode::Busy => "the table is busy; try again",
            ErrorCode::Unavailable => "the server cannot store this right now; try again",
            ErrorCode::BadRequest => "the command's fields do not fit together",
            ErrorCode::AlreadyQueued => "you already asked for a quick-play game",
            ErrorCode::InQuickPlayGame => {
                "you are already in a quick-play game: finish it before asking for another"
            }
            ErrorCode::NotQueued => "you have no quick-play request",
            ErrorCode::BadTeam => "no team waits with that code",
            ErrorCode::AccountNeeded => {
                "rated play needs an account: claim your name with a password, or play casual"
            }
            ErrorCode::RatedPlayLocked => "your account is not rated yet; casual play is open",
            ErrorCode::WatchLimit => "no more watching here: leave a table first",
            ErrorCode::Blocked => "a block between you and a player at this table keeps you out",
            ErrorCode::NoSuchPlayer => "no such player",
            ErrorCode::BadReport => "a report's details are at most 500 characters",
            ErrorCode::AlreadyReported => "you have reported this player for this game already",
            ErrorCode::ReportLimit => "you have sent as many reports as you may for now",
            ErrorCode::NoRematch => "a player left this rated game: no rated rematch here",
            ErrorCode::Banned => "a moderator banned this account",
            ErrorCode::ChatMuted => "a moderator muted your chat for a while",
            ErrorCode::BlockedWords => "that holds a word this server does not allow",
            ErrorCode::HintNotAllowed => {
                "hints and reviews are for practice games only: every other seat a bot"
            }
        }
    }

    /// The error message for command `id`, with the default text.
    pub fn to_message(self, id: Option<CommandId>) -> ServerMessage {
        self.with_message(id, self.message())
    }

    /// The error message for command `id`, with a specific text.
    pub fn with_message(self, id: Option<CommandId>, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error { id, code: self.code().to_owned(), message: message.into() }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why a command was refused: a stable code (protocol or rule) and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
}

impl Refusal {
    /// The `error` message answering command `id`.
    pub fn into_message(self, id: Option<CommandId>) -> ServerMessage {
        ServerMessage::Error { id, code: self.code.to_owned(), message: self.message }
    }
}

impl ErrorCode {
    /// A refusal with this code and a specific message.
    pub fn refusal(self, message: impl Into<String>) -> Refusal {
        Refusal { code: self.code(), message: message.into() }
    }
}

impl From<ErrorCode> for Refusal {
    fn from(code: ErrorCode) -> Refusal {
        code.refusal(code.message())
    }
}

impl From<euchre_engine::RuleError> for Refusal {
    fn from(error: euchre_engine::RuleError) -> Refusal {
        Refusal { code: error.code(), message: error.to_string() }
    }
}
