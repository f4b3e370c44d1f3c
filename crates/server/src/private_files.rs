//! The server's files are its own: the journal holds live deals and their
//! salts, the SQLite files hold invite codes and token hashes. Every file
//! and folder the process creates is for its user alone (umask 077: files
//! 0600, folders 0700), and the data folder is made 0700 if it was not, so
//! that files an older version left readable are out of reach too.

use std::path::Path;

/// From now on, what the process creates is its user's alone (Unix).
pub fn keep_new_files_private() {
    #[cfg(unix)]
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
}

/// Creates the data folder `dir` for the server's user alone, or closes an
/// existing one to others. A folder the server may not change (another
/// user's) is left as it is, with a warning.
pub fn private_folder(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let mode = std::fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            let private = std::fs::Permissions::from_mode(mode & 0o700);
            match std::fs::set_permissions(dir, private) {
                Ok(()) => {
                    tracing::info!(folder = %dir.display(), "the data folder is now for the server's user alone")
                }
                Err(error) => {
                    tracing::warn!(folder = %dir.display(), %error, "cannot close the data folder to other users")
                }
            }
        }
        Ok(())
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).expect("there").permissions().mode() & 0o777
    }

    #[test]
    fn the_data_folder_is_made_or_closed_for_the_user_alone() {
        let parent = tempfile::tempdir().expect("a folder");
        let new = parent.path().join("data/inner");
        private_folder(&new).expect("made");
        assert_eq!(mode(&new), 0o700);
        let open = parent.path().join("open");
        std::fs::create_dir(&open).expect("made");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("opened");
        private_folder(&open).expect("closed");
        assert_eq!(mode(&open), 0o700);
    }
}
