//! The lobby: which tables exist, how to reach them, and what the lobby shows.
//!
//! Only handles and public summaries live here; each table's state belongs
//! to its own task.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use euchre_protocol::{ServerMessage, TableId, TableSummary};
use tokio::sync::broadcast;

use crate::table::TableHandle;

#[derive(Debug)]
struct Entry {
    handle: TableHandle,
    summary: TableSummary,
    host_id: String,
}

/// Shared by every connection and table; cheap to clone.
#[derive(Clone, Debug)]
pub struct Registry {
    // A std mutex: held for map operations only, never across an await.
    tables: Arc<Mutex<HashMap<TableId, Entry>>>,
    lobby: broadcast::Sender<ServerMessage>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry { tables: Arc::default(), lobby: broadcast::channel(1024).0 }
    }
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<TableId, Entry>> {
        self.tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn insert(&self, handle: TableHandle, summary: TableSummary, host_id: &str) {
        self.announce(&summary);
        let entry = Entry { handle, summary, host_id: host_id.to_owned() };
        self.lock().insert(entry.summary.table.clone(), entry);
    }

    pub fn get(&self, table: &str) -> Option<TableHandle> {
        self.lock().get(table).map(|entry| entry.handle.clone())
    }

    /// Records a table's new summary and tells the lobby if it changed.
    pub fn update(&self, summary: TableSummary) {
        let changed = {
            let mut tables = self.lock();
            match tables.get_mut(&summary.table) {
                Some(entry) if entry.summary != summary => {
                    entry.summary = summary.clone();
                    true
                }
                _ => false,
            }
        };
        if changed {
            self.announce(&summary);
        }
    }

    pub fn remove(&self, table: &str) {
        let removed = self.lock().remove(table);
        if let Some(entry) = removed
            && !entry.summary.private
        {
            // Nobody listening is fine.
            let _ = self.lobby.send(ServerMessage::LobbyRemoved { table: table.to_owned() });
        }
    }

    fn announce(&self, summary: &TableSummary) {
        if !summary.private {
            let _ = self.lobby.send(ServerMessage::LobbyUpdate { table: summary.clone() });
        }
    }

    /// The public tables, newest last.
    pub fn public_tables(&self) -> Vec<TableSummary> {
        let mut tables: Vec<TableSummary> = self
            .lock()
            .values()
            .filter(|entry| !entry.summary.private)
            .map(|entry| entry.summary.clone())
            .collect();
        tables.sort_by(|a, b| a.table.cmp(&b.table));
        tables
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tables hosted by this player.
    pub fn hosted_by(&self, player_id: &str) -> usize {
        self.lock().values().filter(|entry| entry.host_id == player_id).count()
    }

    /// Lobby changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerMessage> {
        self.lobby.subscribe()
    }
}
