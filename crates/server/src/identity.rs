//! Guest identities: a display name and a bearer token. Only a hash of each
//! token is kept, so a leaked table of players gives nobody a way in.

use std::collections::HashMap;
use std::sync::Mutex;

use euchre_protocol::{ErrorCode, PlayerInfo};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The players the server knows.
#[derive(Debug, Default)]
pub struct Players {
    // A std mutex: held only for a map lookup or insert, never across an await.
    by_token: Mutex<HashMap<[u8; 32], PlayerInfo>>,
}

impl Players {
    /// Creates a guest named `name` and returns it with its new token.
    pub fn register(&self, name: &str) -> Result<(PlayerInfo, String), ErrorCode> {
        let name = parse_name(name)?;
        let player = PlayerInfo { id: Uuid::now_v7().to_string(), name };
        // 244 random bits from the operating system's generator.
        let token = format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
        self.lock().insert(hash(&token), player.clone());
        Ok((player, token))
    }

    /// The player holding `token`, if any.
    pub fn authenticate(&self, token: &str) -> Option<PlayerInfo> {
        self.lock().get(&hash(token)).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], PlayerInfo>> {
        // A panic while holding this lock cannot leave the map half-updated.
        self.by_token.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
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
    fn tokens_identify_their_player_and_nothing_else() {
        let players = Players::default();
        let (ann, token) = players.register("  Ann ").expect("a good name");
        assert_eq!(ann.name, "Ann");
        assert_eq!(players.authenticate(&token), Some(ann));
        assert_eq!(players.authenticate("nope"), None);
        let (_, other) = players.register("Bob").expect("a good name");
        assert_ne!(token, other);
    }

    #[test]
    fn bad_names_are_refused() {
        for name in ["", "   ", "a\u{7}b", &"x".repeat(33)] {
            assert_eq!(parse_name(name), Err(ErrorCode::BadName), "{name:?}");
        }
        assert_eq!(parse_name("Zoë ♠").as_deref(), Ok("Zoë ♠"));
    }
}
