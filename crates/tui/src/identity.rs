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

/// Writes the identity to a new private file, then puts it in place of
/// the old one: the tokens are never in a file others may read, not even
/// for a moment, whatever the old file's mode was.
pub fn save(dir: &Path, identity: &SavedIdentity) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let text = toml::to_string(identity).map_err(std::io::Error::other)?;
    let path = file(dir);
    let fresh = path.with_extension("toml.new");
    let mut written = create_private(&fresh)?;
    written.write_all(text.as_bytes())?;
    written.sync_all()?;
    std::fs::rename(&fresh, &path)
}

/// A new, empty file that only its owner may read and write, from its
/// creation on (mode 0600 on unix); one left over by a crash is replaced.
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    options.open(path)
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

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).expect("a file").permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_private_before_anything_is_written_to_it() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("identity.toml.new");
        // Left over, readable by all, by a crash: replaced, not reused.
        std::fs::write(&path, "stale").expect("written");
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .expect("made public");
        let file = create_private(&path).expect("created");
        assert_eq!(file.metadata().expect("metadata").len(), 0, "a new file, empty");
        assert_eq!(mode(&path), 0o600, "private before the first byte");
    }

    #[cfg(unix)]
    #[test]
    fn saving_over_a_public_identity_file_leaves_a_private_one() {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(file(dir.path()), "name = \"old\"\n").expect("written");
        std::fs::set_permissions(
            file(dir.path()),
            std::os::unix::fs::PermissionsExt::from_mode(0o644),
        )
        .expect("made public");
        let tokens = BTreeMap::from([("ws://h:1/ws".to_owned(), "secret".to_owned())]);
        let identity = SavedIdentity { name: "Ann".into(), tokens };
        save(dir.path(), &identity).expect("saved");
        assert_eq!(mode(&file(dir.path())), 0o600);
        assert_eq!(load(dir.path()), Some(identity));
        assert!(!dir.path().join("identity.toml.new").exists());
    }
}
