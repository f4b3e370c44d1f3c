//! The guest identity kept between runs: the server's token and the name,
//! in `identity.toml` in the user's config directory, so that the player
//! comes back as themselves (and to their seats) next time. A token is
//! kept per server: each server knows its own players.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What is kept on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedIdentity {
    pub name: String,
    /// Each server's token, by its address: the token is the identity, so
    /// the file is readable by its owner only.
    #[serde(default)]
    pub tokens: BTreeMap<String, String>,
}

/// `$XDG_CONFIG_HOME/euchre`, else `$HOME/.config/euchre`.
pub fn default_config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("euchre"))
}

fn file(dir: &Path) -> PathBuf {
    dir.join("identity.toml")
}

/// The saved identity; `None` when there is none yet (or it cannot be read,
/// in which case the player simply starts as a new guest).
pub fn load(dir: &Path) -> Option<SavedIdentity> {
    let text = std::fs::read_to_string(file(dir)).ok()?;
    toml::from_str(&text).ok()
}

pub fn save(dir: &Path, identity: &SavedIdentity) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = toml::to_string(identity).map_err(std::io::Error::other)?;
    let path = file(dir);
    std::fs::write(&path, text)?;
    restrict(&path)
}

#[cfg(unix)]
fn restrict(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn restrict(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_survives_a_round_trip() {
        let dir = tempfile::tempdir().expect("a temp dir");
        assert_eq!(load(dir.path()), None);
        let tokens = BTreeMap::from([("ws://h:1/ws".to_owned(), "secret".to_owned())]);
        let identity = SavedIdentity { name: "Ann".into(), tokens };
        save(&dir.path().join("euchre"), &identity).expect("saved");
        assert_eq!(load(&dir.path().join("euchre")), Some(identity));
    }
}
