//! Guest identities: a display name and a bearer token. Only a hash of each
//! token is kept, in memory and in storage, so a leaked database gives
//! nobody a way in.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use euchre_protocol::{ErrorCode, PlayerInfo, Refusal};
use euchre_store::writer::Recorder;
use euchre_store::{Store, Write};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::table::now_ms;

/// The players the server knows: a cache in front of the store.
#[derive(Debug)]
pub struct Players {
    // A std mutex: held only for a map lookup or insert, never across an await.
    by_token: Mutex<HashMap<String, PlayerInfo>>,
    store: Arc<dyn Store>,
    recorder: Recorder,
}

impl Players {
    pub fn new(store: Arc<dyn Store>, recorder: Recorder) -> Players {
        Players { by_token: Mutex::default(), store, recorder }
    }

    /// Creates a guest named `name` and returns it with its new token, once
    /// it is durable.
    pub async fn register(&self, name: &str) -> Result<(PlayerInfo, String), Refusal> {
        let name = parse_name(name)?;
        let player = PlayerInfo { id: Uuid::now_v7().to_string(), name };
        // 244 random bits from the operating system's generator.
        let token = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        let token_hash = hash(&token);
        let write = Write::Player {
            id: player.id.clone(),
            name: player.name.clone(),
            token_hash: token_hash.clone(),
            at: now_ms(),
        };
        self.recorder
            .record_and_wait(vec![write])
            .await
            .map_err(|_| Refusal::from(ErrorCode::Unavailable))?;
        self.lock().insert(token_hash, player.clone());
        Ok((player, token))
    }

    /// The player holding `token`, if any.
    pub async fn authenticate(&self, token: &str) -> Result<Option<PlayerInfo>, Refusal> {
        let token_hash = hash(token);
        if let Some(player) = self.lock().get(&token_hash).cloned() {
            return Ok(Some(player));
        }
        let stored = self
            .store
            .player_by_token_hash(&token_hash)
            .await
            .map_err(|_| Refusal::from(ErrorCode::Unavailable))?;
        let player = stored.map(|row| PlayerInfo { id: row.id, name: row.name });
        if let Some(player) = &player {
            self.lock().insert(token_hash, player.clone());
        }
        Ok(player)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, PlayerInfo>> {
        // A panic while holding this lock cannot leave the map half-updated.
        self.by_token.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The SHA-256 of a token, in hex.
fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A display name: 1 to 32 characters once trimmed, no control characters.
pub fn parse_name(raw: &str) -> Result<String, ErrorCode> {
    let name = raw.trim();
    let length = name.chars().count();
    if length == 0 || length > 32 || name.chars().any(char::is_control) {
        return Err(ErrorCode::BadName);
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_names_are_refused() {
        for name in ["", "   ", "a\u{7}b", &"x".repeat(33)] {
            assert_eq!(parse_name(name), Err(ErrorCode::BadName), "{name:?}");
        }
        assert_eq!(parse_name("Zoë ♠").as_deref(), Ok("Zoë ♠"));
    }

    #[test]
    fn tokens_are_stored_only_as_hashes() {
        let token = "a".repeat(64);
        let hashed = hash(&token);
        assert_eq!(hashed.len(), 64);
        assert_ne!(hashed, token);
        assert_eq!(hashed, hash(&token));
    }
}
