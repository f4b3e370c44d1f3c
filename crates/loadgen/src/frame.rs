//! The little a playing client reads of each server frame.
//!
//! A typed [`euchre_protocol::ServerMessage`] is costly to build: its tagged
//! enums buffer the whole object before they pick a variant, an untagged
//! table event tries each of its kinds in turn, and every card and name is
//! its own allocation. A client at a busy table reads about six frames an
//! action and only counts most of them, so on two shared cores that cost
//! came out of the server's share. A [`Frame`] takes the message's type
//! from the front of the text, then reads only the fields the load generator
//! acts on, borrowed from the text, skipping the rest without building it:
//! only a prompt's legal actions are typed.

use std::borrow::Cow;

use anyhow::Context;
use euchre_engine::Action;
use euchre_protocol::CommandId;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// What a playing client needs of one server message.
#[derive(Debug, PartialEq)]
pub enum Frame<'a> {
    /// A table event: `event` is its tag (`card_played`, `hand_ended`…), or
    /// `None` for one this seat may not see.
    Event {
        table: Cow<'a, str>,
        seq: u64,
        event: Option<EventFields<'a>>,
    },
    /// A snapshot of a table, with this seat's legal actions (often none).
    Snapshot {
        table: Cow<'a, str>,
        seq: u64,
        actions: Vec<Action>,
    },
    /// A prompt: this seat's legal actions as of `seq`.
    YourTurn {
        table: Cow<'a, str>,
        seq: u64,
        actions: Vec<Action>,
    },
    /// A command's acknowledgement (its reply is not read).
    Ack {
        id: CommandId,
    },
    Error {
        id: Option<CommandId>,
        code: Cow<'a, str>,
        message: Cow<'a, str>,
    },
    Shutdown,
    /// Anything else (`welcome`, the lobby's messages, quick play's).
    Other,
}

/// The fields of a table event the client reads.
#[derive(Debug, Deserialize, PartialEq)]
pub struct EventFields<'a> {
    /// The event's kind.
    #[serde(borrow)]
    pub event: Cow<'a, str>,
    /// A dealt hand's cards by seat (`hand_dealt` only): each seat must see
    /// its own at most, so only whether each is there is read.
    #[serde(default)]
    pub hands: Option<Vec<Option<IgnoredAny>>>,
}

impl EventFields<'_> {
    /// Whether the event can change whose turn it is or what they may do:
    /// game events can, and so can a game's start; the table's other notices
    /// cannot (the client library's rule, [`euchre_client::moves_game`], by
    /// the notice's tag).
    pub fn moves_game(&self) -> bool {
        !KEEP_THE_PROMPT.contains(&&*self.event)
    }
}

/// The table notices after which a prompt still stands.
const KEEP_THE_PROMPT: [&str; 9] = [
    "seat_taken",
    "seat_left",
    "presence",
    "chat",
    "rated",
    "unrated",
    "deal_committed",
    "deal_revealed",
    "rematch_vote",
];

/// A hidden event (`None`) moves the game: only game events are hidden.
pub fn moves_game(event: Option<&EventFields>) -> bool {
    event.is_none_or(EventFields::moves_game)
}

#[derive(Deserialize)]
struct Tagged<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

#[derive(Deserialize)]
struct EventMessage<'a> {
    #[serde(borrow)]
    table: Cow<'a, str>,
    seq: u64,
    #[serde(borrow, default)]
    event: Option<EventFields<'a>>,
}

#[derive(Deserialize)]
struct Prompt<'a> {
    #[serde(borrow)]
    table: Cow<'a, str>,
    seq: u64,
    actions: Vec<Action>,
}

#[derive(Deserialize)]
struct SnapshotMessage<'a> {
    #[serde(borrow)]
    table: Cow<'a, str>,
    seq: u64,
    state: StateActions,
}

#[derive(Deserialize)]
struct StateActions {
    #[serde(default)]
    actions: Vec<Action>,
}

#[derive(Deserialize)]
struct AckMessage {
    id: CommandId,
}

#[derive(Deserialize)]
struct ErrorMessage<'a> {
    #[serde(default)]
    id: Option<CommandId>,
    #[serde(borrow)]
    code: Cow<'a, str>,
    #[serde(borrow)]
    message: Cow<'a, str>,
}

impl<'a> Frame<'a> {
    /// Reads a server frame's text.
    pub fn parse(text: &'a str) -> anyhow::Result<Frame<'a>> {
        let read = || -> serde_json::Result<Frame<'a>> {
            Ok(match &*kind(text)? {
                "event" => {
                    let EventMessage { table, seq, event } = serde_json::from_str(text)?;
                    Frame::Event { table, seq, event }
                }
                "your_turn" => {
                    let Prompt { table, seq, actions } = serde_json::from_str(text)?;
                    Frame::YourTurn { table, seq, actions }
                }
                "snapshot" => {
                    let SnapshotMessage { table, seq, state } = serde_json::from_str(text)?;
                    Frame::Snapshot { table, seq, actions: state.actions }
                }
                "ack" => Frame::Ack { id: serde_json::from_str::<AckMessage>(text)?.id },
                "error" => {
                    let ErrorMessage { id, code, message } = serde_json::from_str(text)?;
                    Frame::Error { id, code, message }
                }
                "shutdown" => Frame::Shutdown,
                _ => Frame::Other,
            })
        };
        read().with_context(|| format!("unreadable frame: {text}"))
    }
}

/// The message's type: the server writes it first, so it is read from the
/// front of the text; a frame that puts it elsewhere is read whole for it.
fn kind(text: &str) -> serde_json::Result<Cow<'_, str>> {
    let front = text.strip_prefix(r#"{"type":""#).and_then(|rest| rest.split_once('"'));
    match front {
        Some((kind, _)) if !kind.contains('\\') => Ok(Cow::Borrowed(kind)),
        _ => serde_json::from_str::<Tagged>(text).map(|tagged| tagged.kind),
    }
}

#[cfg(test)]
mod tests {
    use euchre_engine::{Card, Event, Rules, Seat};
    use euchre_protocol::{
        Occupant, PlayerInfo, Reply, SeatRating, ServerMessage, TableEvent, TableNotice,
    };

    use super::*;

    fn text(message: &ServerMessage) -> anyhow::Result<String> {
        Ok(serde_json::to_string(message)?)
    }

    fn event(event: Option<TableEvent>) -> ServerMessage {
        ServerMessage::Event { table: "t1".to_owned(), seq: 12, event }
    }

    /// One of each table notice; the match fails to build when a notice is
    /// added, so that the rule above is looked at again.
    fn notices() -> Vec<TableNotice> {
        let notices = vec![
            TableNotice::SeatTaken { seat: 1, occupant: Occupant::Bot { bot: "basic".to_owned() } },
            TableNotice::SeatLeft { seat: 1 },
            TableNotice::Presence { seat: 2, connected: false, grace_ms: Some(30_000) },
            TableNotice::GameStarted { game: 2, rules: Rules::default() },
            TableNotice::Chat {
                from: "Ann".to_owned(),
                text: "gg \"all\"".to_owned(),
                from_id: None,
            },
            TableNotice::Rated {
                form: "partnership".to_owned(),
                ratings: vec![SeatRating {
                    seat: 0,
                    player_id: "p1".to_owned(),
                    rating: 1_600,
                    change: 12,
                }],
            },
            TableNotice::Unrated {
                reason: euchre_protocol::UnratedReason::DailyCap,
                message: "two opponents here have played 5 rated games".to_owned(),
            },
            TableNotice::RematchVote { asked: vec![0, 2], deadline_ms: Some(30_000) },
        ];
        for notice in &notices {
            match notice {
                TableNotice::SeatTaken { .. }
                | TableNotice::SeatLeft { .. }
                | TableNotice::Presence { .. }
                | TableNotice::GameStarted { .. }
                | TableNotice::Chat { .. }
                | TableNotice::Rated { .. }
                | TableNotice::Unrated { .. }
                | TableNotice::DealCommitted { .. }
                | TableNotice::DealRevealed { .. }
                | TableNotice::RematchVote { .. } => {}
            }
        }
        notices
    }

    #[test]
    fn events_move_the_game_as_the_client_library_says() -> anyhow::Result<()> {
        let mut events: Vec<Option<TableEvent>> =
            notices().into_iter().map(|notice| Some(TableEvent::Table(notice))).collect();
        events.push(Some(TableEvent::Game(Event::CardPlayed {
            seat: Seat(3),
            card: Card::from_index(5),
        })));
        events.push(None);
        for table_event in events {
            let message = text(&event(table_event.clone()))?;
            let Frame::Event { table, seq, event } = Frame::parse(&message)? else {
                panic!("not read as an event: {message}");
            };
            assert_eq!((&*table, seq), ("t1", 12));
            assert_eq!(
                moves_game(event.as_ref()),
                euchre_client::moves_game(table_event.as_ref()),
                "{message}"
            );
        }
        // The deal's commitment and reveal, by their tags (their fields are
        // the server's own types).
        for tag in ["deal_committed", "deal_revealed"] {
            let fields = EventFields { event: tag.into(), hands: None };
            assert!(!fields.moves_game(), "{tag}");
        }
        Ok(())
    }

    #[test]
    fn prompts_acks_and_errors_read_as_the_typed_messages() -> anyhow::Result<()> {
        let actions = vec![Action::Play { card: Card::from_index(3) }, Action::Concede];
        let prompt = ServerMessage::YourTurn {
            table: "t1".to_owned(),
            seq: 9,
            actions: actions.clone(),
            deadline_ms: Some(20_000),
        };
        assert_eq!(
            Frame::parse(&text(&prompt)?)?,
            Frame::YourTurn { table: "t1".into(), seq: 9, actions }
        );
        let ack =
            ServerMessage::Ack { id: 4, reply: Reply::Seated { table: "t1".to_owned(), seat: 2 } };
        assert_eq!(Frame::parse(&text(&ack)?)?, Frame::Ack { id: 4 });
        let error = ServerMessage::Error {
            id: Some(5),
            code: "not_your_turn".to_owned(),
            message: "wait for \"your_turn\"".to_owned(),
        };
        assert_eq!(
            Frame::parse(&text(&error)?)?,
            Frame::Error {
                id: Some(5),
                code: "not_your_turn".into(),
                message: "wait for \"your_turn\"".into()
            }
        );
        let welcome = ServerMessage::Welcome {
            id: 1,
            protocol_version: 1,
            player: PlayerInfo { id: "p1".to_owned(), name: "Ann".to_owned() },
            token: "x".to_owned(),
        };
        assert_eq!(Frame::parse(&text(&welcome)?)?, Frame::Other);
        assert_eq!(
            Frame::parse(&text(&ServerMessage::Shutdown { reconnect_after_ms: 5 })?)?,
            Frame::Shutdown
        );
        Ok(())
    }

    #[test]
    fn the_type_is_found_wherever_it_is_and_a_bad_frame_is_an_error() -> anyhow::Result<()> {
        assert_eq!(
            Frame::parse(r#"{"id":7, "type" : "ack","reply":"done"}"#)?,
            Frame::Ack { id: 7 }
        );
        assert_eq!(Frame::parse(r#"{"type":"ack","id":3,"reply":"done"}"#)?, Frame::Ack { id: 3 });
        for bad in ["", "{", r#"{"type":"ack"}"#, r#"{"type":"event","table":"t1"}"#, "[]"] {
            assert!(Frame::parse(bad).is_err(), "{bad}");
        }
        Ok(())
    }

    #[test]
    fn a_dealt_hand_shows_which_seats_have_cards() -> anyhow::Result<()> {
        let frame = r#"{"type":"event","table":"t1","seq":3,"event":{"event":"hand_dealt","number":0,"dealer":1,"up_card":"Ks","hands":[["Qs","Th","9c","Kc","Ac"],null,null,null]}}"#;
        let Frame::Event { event: Some(fields), .. } = Frame::parse(frame)? else {
            panic!("not an event");
        };
        assert_eq!(fields.event, "hand_dealt");
        let seen: Vec<bool> =
            fields.hands.context("no hands")?.iter().map(Option::is_some).collect();
        assert_eq!(seen, [true, false, false, false]);
        Ok(())
    }
}
