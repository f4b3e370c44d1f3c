//! What has been delivered of each table: a [`Record`] kept by a
//! [`crate::Session`] of what it has returned, and a [`Progress`] shared by
//! the connection task (which notes each update as it delivers it) and
//! [`crate::Updates`] (which drops a prompt the game has moved past by the
//! time it is read).
//!
//! A prompt lists the actions legal as of its `seq`. Only an event that
//! moves the game makes it stale: a table's own notices (a rating, a deal's
//! commitment or reveal, chat, a seat's presence) come between the game's
//! events without changing whose turn it is or what they may do, and the
//! server sends no new prompt after them. A rating in particular arrives a
//! moment after `game_won`, often after the next game's first prompt; a
//! client that judged that prompt stale would wait for ever.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use euchre_protocol::{TableEvent, TableId, TableNotice};

use crate::Update;

/// Whether an event (as delivered: `None` is one this client may not see)
/// can change whose turn it is or what they may do.
///
/// Game events can, and so can a hidden one (only game events are ever
/// hidden) and the start of a game; the table's other notices cannot.
pub fn moves_game(event: Option<&TableEvent>) -> bool {
    match event {
        None | Some(TableEvent::Game(_)) => true,
        Some(TableEvent::Table(notice)) => match notice {
            TableNotice::GameStarted { .. } => true,
            TableNotice::SeatTaken { .. }
            | TableNotice::SeatLeft { .. }
            | TableNotice::Presence { .. }
            | TableNotice::Chat { .. }
            | TableNotice::Rated { .. }
            | TableNotice::Unrated { .. }
            | TableNotice::DealCommitted { .. }
            | TableNotice::DealRevealed { .. }
            | TableNotice::RematchVote { .. } => false,
        },
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Table {
    /// The last seq delivered.
    seq: u64,
    /// The seq of the last delivered event that moved the game, or of the
    /// last snapshot.
    moved: u64,
}

/// What has been delivered of each table, for one reader.
#[derive(Debug, Default)]
pub(crate) struct Record {
    tables: HashMap<TableId, Table>,
}

impl Record {
    /// Notes the delivery of `table`'s `seq`, which `moved` the game or not.
    pub(crate) fn note(&mut self, table: &str, seq: u64, moved: bool) {
        // Looked up before inserting: a table's name is copied only once.
        let entry = match self.tables.get_mut(table) {
            Some(entry) => entry,
            None => self.tables.entry(table.to_owned()).or_default(),
        };
        entry.seq = seq;
        if moved {
            entry.moved = seq;
        }
    }

    /// The last seq delivered for `table`.
    pub(crate) fn delivered(&self, table: &str) -> Option<u64> {
        self.tables.get(table).map(|entry| entry.seq)
    }

    /// Whether a prompt of `table` at `seq` is stale: a later delivered
    /// event moved the game.
    pub(crate) fn overtaken(&self, table: &str, seq: u64) -> bool {
        self.tables.get(table).is_some_and(|entry| entry.moved > seq)
    }
}

/// A [`Record`] shared by a writer and a reader; clones share it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Progress {
    // A std mutex: held for a lookup, never across an await.
    record: Arc<Mutex<Record>>,
}

impl Progress {
    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes `update` as delivered.
    pub(crate) fn note(&self, update: &Update) {
        match update {
            Update::Event { table, seq, event } => {
                self.record().note(table, *seq, moves_game(event.as_ref()))
            }
            // The server prompts again after any request that sends a
            // snapshot, so a prompt older than one is never the last word.
            Update::Snapshot { table, seq, .. } => self.record().note(table, *seq, true),
            _ => {}
        }
    }

    /// The last seq delivered for `table`.
    pub(crate) fn delivered(&self, table: &str) -> Option<u64> {
        self.record().delivered(table)
    }

    /// Whether `update` is a prompt that a later event of its table made stale.
    pub(crate) fn overtaken(&self, update: &Update) -> bool {
        let Update::YourTurn { table, seq, .. } = update else { return false };
        self.record().overtaken(table, *seq)
    }
}
