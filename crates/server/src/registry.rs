//! The lobby: which tables exist, how to reach them, and what the lobby shows.
//!
//! Only handles and public summaries live here; each table's state belongs
//! to its own task. In a cluster it also lists the other nodes' tables
//! (without a handle: their commands go over NATS), and mirrors this node's
//! changes out ([`Registry::mirror_to`]) for the other nodes to list.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use euchre_protocol::{ServerMessage, TableId, TableSummary};
use tokio::sync::{broadcast, mpsc};

use crate::frame::Frame;
use crate::table::TableHandle;

#[derive(Debug)]
struct Entry {
    /// `None`: another node of the cluster hosts the table.
    handle: Option<TableHandle>,
    summary: TableSummary,
    host_id: String,
}

/// Shared by every connection and table; cheap to clone.
#[derive(Clone, Debug)]
pub struct Registry {
    // A std mutex: held for map operations only, never across an await.
    tables: Arc<Mutex<HashMap<TableId, Entry>>>,
    lobby: broadcast::Sender<ServerMessage>,
    /// The whole lobby as one message, kept until a table changes: the
    /// connections that ask meanwhile share it, built and encoded once (the
    /// lobby of a busy server is megabytes of JSON). Its lock is taken
    /// before the tables' while it is built, and after theirs is let go
    /// when a change clears it, so a listing built from the tables as they
    /// were before a change never outlives the change.
    listing: Arc<Mutex<Option<Frame>>>,
    /// In a cluster: where this node's tables' changes go, for the others.
    mirror: Arc<OnceLock<mpsc::UnboundedSender<Mirrored>>>,
}

/// A change to one of this node's tables, for the other nodes' lobbies.
#[derive(Clone, Debug)]
pub enum Mirrored {
    Listed { summary: TableSummary, host_id: String },
    Closed { table: TableId },
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            tables: Arc::default(),
            lobby: broadcast::channel(1024).0,
            listing: Arc::default(),
            mirror: Arc::default(),
        }
    }
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<TableId, Entry>> {
        self.tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn insert(&self, handle: TableHandle, summary: TableSummary, host_id: &str) {
        self.announce(&summary);
        self.mirror(|| Mirrored::Listed { summary: summary.clone(), host_id: host_id.to_owned() });
        let entry = Entry { handle: Some(handle), summary, host_id: host_id.to_owned() };
        self.lock().insert(entry.summary.table.clone(), entry);
        self.relist();
    }

    /// The handle of a table this node hosts.
    pub fn get(&self, table: &str) -> Option<TableHandle> {
        self.lock().get(table).and_then(|entry| entry.handle.clone())
    }

    /// Whether the table exists here or on another node.
    pub fn contains(&self, table: &str) -> bool {
        self.lock().contains_key(table)
    }

    /// The table's summary, wherever it is hosted.
    pub fn summary(&self, table: &str) -> Option<TableSummary> {
        self.lock().get(table).map(|entry| entry.summary.clone())
    }

    /// In a cluster: sends this node's tables' changes to `mirror` from now on.
    pub fn mirror_to(&self, mirror: mpsc::UnboundedSender<Mirrored>) {
        let _ = self.mirror.set(mirror);
    }

    fn mirror(&self, change: impl FnOnce() -> Mirrored) {
        if let Some(mirror) = self.mirror.get() {
            let _ = mirror.send(change());
        }
    }

    /// Another node's table, as its owner listed it (a local table wins).
    pub fn insert_remote(&self, summary: TableSummary, host_id: &str) {
        let changed = {
            let mut tables = self.lock();
            match tables.get_mut(&summary.table) {
                Some(entry) if entry.handle.is_some() => false,
                Some(entry) => {
                    let changed = entry.summary != summary;
                    entry.summary = summary.clone();
                    changed
                }
                None => {
                    let entry = Entry {
                        handle: None,
                        summary: summary.clone(),
                        host_id: host_id.to_owned(),
                    };
                    tables.insert(summary.table.clone(), entry);
                    true
                }
            }
        };
        if changed {
            self.relist();
            self.announce(&summary);
        }
    }

    /// Another node's table closed for good.
    pub fn remove_remote(&self, table: &str) {
        let removed = {
            let mut tables = self.lock();
            match tables.get(table) {
                Some(entry) if entry.handle.is_none() => tables.remove(table),
                _ => None,
            }
        };
        if removed.is_some() {
            self.relist();
        }
        if let Some(entry) = removed
            && !entry.summary.private
        {
            let _ = self.lobby.send(ServerMessage::LobbyRemoved { table: table.to_owned() });
        }
    }

    /// This node's tables' ids, with their summaries.
    pub fn local_tables(&self) -> Vec<TableId> {
        self.lock()
            .values()
            .filter(|e| e.handle.is_some())
            .map(|e| e.summary.table.clone())
            .collect()
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
            self.relist();
            self.mirror(|| {
                let host_id = self.lock().get(&summary.table).map(|e| e.host_id.clone());
                Mirrored::Listed { summary: summary.clone(), host_id: host_id.unwrap_or_default() }
            });
            self.announce(&summary);
        }
    }

    /// A table stopped here without closing (shutdown, or another node owns
    /// it now). On one node it is gone; in a cluster it stays listed, as
    /// another node's, until its new owner lists it again.
    pub fn unload(&self, table: &str) {
        if self.mirror.get().is_none() {
            return self.remove(table);
        }
        if let Some(entry) = self.lock().get_mut(table) {
            entry.handle = None;
        }
    }

    /// A table closed for good.
    pub fn remove(&self, table: &str) {
        self.mirror(|| Mirrored::Closed { table: table.to_owned() });
        let removed = self.lock().remove(table);
        if removed.is_some() {
            self.relist();
        }
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

    /// The `lobby` message: every public table, by id.
    pub fn listing(&self) -> Frame {
        let mut listing = self.listing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        listing
            .get_or_insert_with(|| {
                Frame::new(ServerMessage::Lobby { tables: self.public_tables() })
            })
            .clone()
    }

    /// Clears the listing after a change to the tables.
    fn relist(&self) {
        *self.listing.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
    }

    /// The public tables, newest last (ids sort by creation).
    fn public_tables(&self) -> Vec<TableSummary> {
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

#[cfg(test)]
mod tests {
    use euchre_engine::{Preset, Rules};
    use euchre_protocol::TableStatus;

    use super::*;

    fn summary(table: &str, private: bool, seated: u8) -> TableSummary {
        TableSummary {
            table: table.into(),
            host: "Ann".into(),
            preset: Preset::Standard,
            rules: Rules::default(),
            private,
            seated,
            status: TableStatus::Open,
            turn_seconds: None,
            chat: true,
        }
    }

    fn listed(listing: &Frame) -> Vec<(String, u8)> {
        match listing.message() {
            Some(ServerMessage::Lobby { tables }) => {
                tables.iter().map(|t| (t.table.clone(), t.seated)).collect()
            }
            other => panic!("not a lobby: {other:?}"),
        }
    }

    #[test]
    fn the_listing_is_shared_until_a_table_changes() {
        let registry = Registry::default();
        registry.insert_remote(summary("t1", false, 1), "h1");
        registry.insert_remote(summary("t2", true, 1), "h2");
        let first = registry.listing();
        assert_eq!(listed(&first), vec![("t1".into(), 1)], "the private table is not listed");
        assert!(first.same(&registry.listing()), "asked again, the same frame");
        // Each change is in the next listing, never an older one.
        registry.insert_remote(summary("t1", false, 2), "h1");
        let second = registry.listing();
        assert!(!second.same(&first));
        assert_eq!(listed(&second), vec![("t1".into(), 2)]);
        registry.insert_remote(summary("t3", false, 1), "h3");
        assert_eq!(listed(&registry.listing()), vec![("t1".into(), 2), ("t3".into(), 1)]);
        registry.remove_remote("t1");
        assert_eq!(listed(&registry.listing()), vec![("t3".into(), 1)]);
        // A summary sent again unchanged keeps the listing.
        let kept = registry.listing();
        registry.insert_remote(summary("t3", false, 1), "h3");
        assert!(kept.same(&registry.listing()));
    }
}
