//! Server messages as JSON, the three that go out with every action written
//! directly, for speed: the `ack`, the `event` of a card played, a trick
//! won or a pass, and the `your_turn` prompt with its actions.
//!
//! Through serde they cost about 1,000, 2,400 and 6,000 instructions: the
//! tagged enums' machinery, and serde_json scanning every key and string
//! for characters to escape. Their keys are constants and their strings are
//! card codes, suit names and table ids, which need escaping only if a table
//! id holds a quote, a backslash or a control character; then (and for any
//! other message or event) serde writes it. The output is serde's, byte for
//! byte: `tests/it/messages.rs` checks it over every event and prompt of whole
//! games of every preset.

use euchre_engine::{Action, Card, Event, Suit};

use crate::{Reply, ServerMessage, TableEvent};

/// `message` as JSON, as `serde_json::to_string` writes it.
pub fn server_message_json(message: &ServerMessage) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    if write_hot(message, &mut out)? {
        return Ok(out);
    }
    serde_json::to_string(message)
}

/// Writes `message` if it is one of the three; false (and nothing written)
/// if not.
fn write_hot(message: &ServerMessage, out: &mut String) -> Result<bool, serde_json::Error> {
    match message {
        ServerMessage::Ack { id, reply: Reply::Done } => {
            out.reserve(64);
            out.push_str(r#"{"type":"ack","id":"#);
            number(out, *id);
            out.push_str(r#","reply":"done"}"#);
        }
        ServerMessage::Event { table, seq, event: Some(TableEvent::Game(event)) }
            if plain(table) =>
        {
            out.reserve(96 + table.len());
            head(out, "event", table, *seq);
            out.push_str(r#","event":"#);
            match event {
                Event::CardPlayed { seat, card } => {
                    out.push_str(r#"{"event":"card_played","seat":"#);
                    number(out, u64::from(seat.0));
                    out.push_str(r#","card":"#);
                    card_code(out, *card);
                    out.push('}');
                }
                Event::TrickWon { seat, number: trick } => {
                    out.push_str(r#"{"event":"trick_won","seat":"#);
                    number(out, u64::from(seat.0));
                    out.push_str(r#","number":"#);
                    number(out, u64::from(*trick));
                    out.push('}');
                }
                Event::Passed { seat } => {
                    out.push_str(r#"{"event":"passed","seat":"#);
                    number(out, u64::from(seat.0));
                    out.push('}');
                }
                other => out.push_str(&serde_json::to_string(other)?),
            }
            out.push('}');
        }
        ServerMessage::YourTurn { table, seq, actions, deadline_ms } if plain(table) => {
            // An action takes 40 bytes at most, but for a call (about 50).
            out.reserve(96 + table.len() + 40 * actions.len());
            head(out, "your_turn", table, *seq);
            out.push_str(r#","actions":["#);
            for (index, action) in actions.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_action(out, action)?;
            }
            out.push(']');
            if let Some(deadline_ms) = deadline_ms {
                out.push_str(r#","deadline_ms":"#);
                number(out, *deadline_ms);
            }
            out.push('}');
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// A table message's first fields: `{"type":…,"table":…,"seq":…` (the
/// table plain, see [`plain`]).
fn head(out: &mut String, kind: &str, table: &str, seq: u64) {
    out.push_str(r#"{"type":""#);
    out.push_str(kind);
    out.push_str(r#"","table":""#);
    out.push_str(table);
    out.push_str(r#"","seq":"#);
    number(out, seq);
}

fn write_action(out: &mut String, action: &Action) -> Result<(), serde_json::Error> {
    let alone = |out: &mut String, alone: bool| {
        out.push_str(if alone { r#","alone":true}"# } else { r#","alone":false}"# });
    };
    match *action {
        Action::Pass => out.push_str(r#"{"action":"pass"}"#),
        Action::Concede => out.push_str(r#"{"action":"concede"}"#),
        Action::Play { card } => {
            out.push_str(r#"{"action":"play","card":"#);
            card_code(out, card);
            out.push('}');
        }
        Action::Discard { card } => {
            out.push_str(r#"{"action":"discard","card":"#);
            card_code(out, card);
            out.push('}');
        }
        Action::OrderUp { alone: going_alone } => {
            out.push_str(r#"{"action":"order_up""#);
            alone(out, going_alone);
        }
        Action::Call { suit, alone: going_alone } => {
            out.push_str(r#"{"action":"call","suit":""#);
            out.push_str(suit_name(suit));
            out.push('"');
            alone(out, going_alone);
        }
        ref other => out.push_str(&serde_json::to_string(other)?),
    }
    Ok(())
}

/// A card's code, quoted: two ASCII letters or digits.
fn card_code(out: &mut String, card: Card) {
    let [rank, suit] = card.code();
    out.extend(['"', char::from(rank), char::from(suit), '"']);
}

/// A suit as serde names it (`rename_all = "snake_case"`).
fn suit_name(suit: Suit) -> &'static str {
    match suit {
        Suit::Spades => "spades",
        Suit::Hearts => "hearts",
        Suit::Clubs => "clubs",
        Suit::Diamonds => "diamonds",
    }
}

fn number(out: &mut String, value: u64) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Whether `text` is written in JSON as it is: printable ASCII without a
/// quote or a backslash (server-made table ids always are).
fn plain(text: &str) -> bool {
    text.bytes().all(|byte| (0x20..0x7f).contains(&byte) && byte != b'"' && byte != b'\\')
}
