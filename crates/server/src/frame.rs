//! A message on its way to connections, encoded to JSON at most once however
//! many connections it goes to.
//!
//! Most table events look the same to every seat (a card played, a trick
//! won), so the table hands one [`Frame`] to each of them and the first
//! connection to write it does the encoding for all.
//!
//! A frame may also join the connection it reaches to a table
//! ([`Frame::joining`]): that is how a quick-play pool, which seats a
//! player without the connection asking the table, tells the connection
//! which table to say goodbye to when it closes.

use std::sync::{Arc, OnceLock};

use axum::extract::ws::Utf8Bytes;
use euchre_protocol::{ServerMessage, TableId, server_message_json};

/// A message and, once a connection has needed it, its JSON; or, relayed
/// from another node of a cluster, only its JSON; perhaps with a table it
/// joins its connection to. Cheap to clone, and one pointer wide, as every
/// connection's queue holds them.
#[derive(Clone, Debug)]
pub struct Frame(Arc<Shared>);

#[derive(Debug)]
enum Shared {
    Message {
        message: ServerMessage,
        json: OnceLock<Option<Utf8Bytes>>,
    },
    /// Encoded by the node that owns the table, for one connection here:
    /// written to the socket as it came, never decoded and encoded again.
    Encoded(Utf8Bytes),
    /// `frame`, joining the connection that takes it to `table`.
    Joining {
        table: TableId,
        frame: Frame,
    },
}

impl Frame {
    pub fn new(message: ServerMessage) -> Frame {
        Frame(Arc::new(Shared::Message { message, json: OnceLock::new() }))
    }

    /// A message another node encoded (its UTF-8 JSON), to relay as it is.
    pub fn encoded(json: Utf8Bytes) -> Frame {
        Frame(Arc::new(Shared::Encoded(json)))
    }

    /// `frame`, which also joins the connection that takes it to `table`:
    /// the connection tells the table when it closes. For a seat taken on
    /// the player's behalf (a quick-play match), where the connection sent
    /// the table no command of its own.
    pub fn joining(table: TableId, frame: Frame) -> Frame {
        Frame(Arc::new(Shared::Joining { table, frame }))
    }

    /// The table this frame joins its connection to, if any.
    pub fn joins(&self) -> Option<&TableId> {
        match &*self.0 {
            Shared::Joining { table, .. } => Some(table),
            Shared::Message { .. } | Shared::Encoded(_) => None,
        }
    }

    /// The message; `None` for one relayed from another node as JSON.
    pub fn message(&self) -> Option<&ServerMessage> {
        match &*self.0 {
            Shared::Message { message, .. } => Some(message),
            Shared::Encoded(_) => None,
            Shared::Joining { frame, .. } => frame.message(),
        }
    }

    /// The message as JSON, encoded by whichever receiver asks first;
    /// `None` if it cannot be encoded (no message of ours fails to).
    pub fn json(&self) -> Option<Utf8Bytes> {
        match &*self.0 {
            Shared::Message { message, json } => {
                json.get_or_init(|| server_message_json(message).ok().map(Utf8Bytes::from)).clone()
            }
            Shared::Encoded(json) => Some(json.clone()),
            Shared::Joining { frame, .. } => frame.json(),
        }
    }

    /// The message itself, copied only if another receiver still shares it;
    /// for a relayed one, read from its JSON (`None` if that is not a
    /// server message).
    pub fn into_message(self) -> Option<ServerMessage> {
        match Arc::try_unwrap(self.0) {
            Ok(Shared::Message { message, .. }) => Some(message),
            Ok(Shared::Encoded(json)) => serde_json::from_str(json.as_str()).ok(),
            Ok(Shared::Joining { frame, .. }) => frame.into_message(),
            Err(shared) => match &*shared {
                Shared::Message { message, .. } => Some(message.clone()),
                Shared::Encoded(json) => serde_json::from_str(json.as_str()).ok(),
                Shared::Joining { frame, .. } => frame.clone().into_message(),
            },
        }
    }
}

#[cfg(test)]
impl Frame {
    /// Whether both are the one frame (not merely equal).
    pub fn same(&self, other: &Frame) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<ServerMessage> for Frame {
    fn from(message: ServerMessage) -> Frame {
        Frame::new(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_frame_is_encoded_once_and_reads_the_same_everywhere() {
        let frame = Frame::new(ServerMessage::Ack { id: 7, reply: euchre_protocol::Reply::Done });
        let copy = frame.clone();
        let first = frame.json().expect("encodes");
        let second = copy.json().expect("encodes");
        assert_eq!(first.as_str(), second.as_str());
        // The same bytes, not a second encoding.
        assert_eq!(first.as_str().as_ptr(), second.as_str().as_ptr());
        let expected = serde_json::to_string(frame.message().expect("a message")).expect("encodes");
        assert_eq!(first.as_str(), expected);
        drop(copy);
        assert!(matches!(frame.into_message(), Some(ServerMessage::Ack { id: 7, .. })));
    }

    #[test]
    fn a_relayed_frame_is_written_as_it_came() {
        let ack = ServerMessage::Ack { id: 7, reply: euchre_protocol::Reply::Done };
        let json = Utf8Bytes::from(serde_json::to_string(&ack).expect("encodes"));
        let frame = Frame::encoded(json.clone());
        assert!(frame.message().is_none());
        let written = frame.json().expect("the relayed bytes");
        assert_eq!(written.as_str().as_ptr(), json.as_str().as_ptr(), "not copied");
        assert_eq!(frame.into_message(), Some(ack));
        assert!(Frame::encoded(Utf8Bytes::from("not json")).into_message().is_none());
    }

    #[test]
    fn a_joining_frame_names_its_table_and_reads_as_its_message() {
        let ack = ServerMessage::Ack { id: 7, reply: euchre_protocol::Reply::Done };
        let plain = Frame::new(ack.clone());
        assert_eq!(plain.joins(), None);
        let joining = Frame::joining("t1".to_owned(), plain.clone());
        assert_eq!(joining.joins().map(String::as_str), Some("t1"));
        assert_eq!(joining.message(), Some(&ack));
        let json = joining.json().expect("encodes");
        assert_eq!(json.as_str(), plain.json().expect("encodes").as_str());
        assert_eq!(joining.into_message(), Some(ack));
    }
}
