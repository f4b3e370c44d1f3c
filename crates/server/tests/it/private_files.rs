//! The server's files are its own: the journal holds live deals and their
//! salts, the database invite codes and token hashes; no other local user
//! may read them.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use euchre_engine::Preset;
use euchre_protocol::TableSettings;

use crate::support::binary::{Server, Stop};
use crate::support::{Client, play_to_the_end};

/// Every file and folder under `dir`, `dir` too.
fn everything_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![dir.to_owned()];
    let mut at = 0;
    while at < found.len() {
        if found[at].is_dir() {
            let entries = std::fs::read_dir(&found[at]).expect("a folder");
            found.extend(entries.map(|entry| entry.expect("an entry").path()));
        }
        at += 1;
    }
    found
}

#[tokio::test]
async fn the_data_folder_journal_and_database_are_for_the_servers_user_alone() {
    let parent = tempfile::tempdir().expect("a folder");
    // Not there yet: the server makes it.
    let data = parent.path().join("data");
    let database = format!("sqlite://{}/euchre.db", data.display());
    let server = Server::start(&data, &database, &[]);
    let mut ann = Client::connect_at(server.address, [127, 0, 0, 1], None).await.expect("let in");
    ann.hello("Ann").await;
    let settings =
        TableSettings { preset: Preset::Standard, bot_seats: vec![1, 2, 3], ..Default::default() };
    let table = ann.create_table(settings).await;
    ann.sit(&table, Some(0)).await;
    drop(play_to_the_end(ann, table, 3).await);

    let paths = everything_under(&data);
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    for wanted in ["journal", "euchre.db", "euchre.db-wal"] {
        assert!(names.iter().any(|name| name.ends_with(wanted)), "no {wanted} in {names:#?}");
    }
    let open: Vec<String> = paths
        .iter()
        .map(|path| (path, std::fs::metadata(path).expect("there").permissions().mode() & 0o777))
        .filter(|(_, mode)| mode & 0o077 != 0)
        .map(|(path, mode)| format!("{} {mode:o}", path.display()))
        .collect();
    assert!(open.is_empty(), "open to other users: {open:#?}");
    server.stop(Stop::Term);
}
