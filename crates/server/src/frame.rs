//! A message on its way to connections, encoded to JSON at most once however
//! many connections it goes to.
//!
//! Most table events look the same to every seat (a card played, a trick
//! won), so the table hands one [`Frame`] to each of them and the first
//! connection to write it does the encoding for all.

use std::sync::{Arc, OnceLock};

use axum::extract::ws::Utf8Bytes;
use euchre_protocol::ServerMessage;

/// A message and, once a connection has needed it, its JSON. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Frame(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    message: ServerMessage,
    json: OnceLock<Option<Utf8Bytes>>,
}

impl Frame {
    pub fn new(message: ServerMessage) -> Frame {
        Frame(Arc::new(Shared { message, json: OnceLock::new() }))
    }

    pub fn message(&self) -> &ServerMessage {
        &self.0.message
    }

    /// The message as JSON, encoded by whichever receiver asks first;
    /// `None` if it cannot be encoded (no message of ours fails to).
    pub fn json(&self) -> Option<Utf8Bytes> {
        let shared = &*self.0;
        shared
            .json
            .get_or_init(|| serde_json::to_string(&shared.message).ok().map(Utf8Bytes::from))
            .clone()
    }

    /// The message itself, copied only if another receiver still shares it.
    pub fn into_message(self) -> ServerMessage {
        match Arc::try_unwrap(self.0) {
            Ok(shared) => shared.message,
            Err(shared) => shared.message.clone(),
        }
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
        let expected = serde_json::to_string(frame.message()).expect("encodes");
        assert_eq!(first.as_str(), expected);
        drop(copy);
        assert!(matches!(frame.into_message(), ServerMessage::Ack { id: 7, .. }));
    }
}
