//! The lobby: which tables exist, how to reach them, and what the lobby shows.
//!
//! Only handles and public summaries live here; each table's state belongs
//! to its own task. In a cluster it also lists the other nodes' tables
//! (without a handle: their commands go over NATS), and mirrors this node's
//! changes out ([`Registry::mirror_to`]) for the other nodes to list.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use euchre_protocol::{LobbyFilter, LobbyPage, LobbyQuery, ServerMessage, TableId, TableSummary};
use tokio::sync::{broadcast, mpsc};

use crate::frame::Frame;
use crate::table::mailbox::TableHandle;

#[derive(Debug)]
struct Entry {
    /// `None`: another node of the cluster hosts the table.
    handle: Option<TableHandle>,
    summary: TableSummary,
    host_id: String,
    /// The people who hold a seat (present or away), for their lobbies'
    /// "your games"; never sent to anyone else.
    players: Vec<String>,
}

/// The most tables a lobby lists as the player's own.
pub const YOURS_MAX: usize = 50;

/// Shared by every connection and table; cheap to clone.
#[derive(Clone, Debug)]
pub struct Registry {
    // A std mutex: held for map operations only, never across an await.
    // Ordered by id, the order of the lobby's pages.
    tables: Arc<Mutex<BTreeMap<TableId, Entry>>>,
    lobby: broadcast::Sender<LobbyChange>,
    /// In a cluster: where this node's tables' changes go, for the others.
    mirror: Arc<OnceLock<mpsc::UnboundedSender<Mirrored>>>,
}

/// A change to one of this node's tables, for the other nodes' lobbies.
#[derive(Clone, Debug)]
pub enum Mirrored {
    Listed { summary: TableSummary, host_id: String, players: Vec<String> },
    Closed { table: TableId },
}

/// A table as it was and as it is now, for every lobby subscriber: each
/// one's filter picks what it is sent, and the frames are shared, so a
/// change is encoded once however many subscribers it reaches. The people
/// who hold (or held) a seat at it are named too: their own lists of
/// tables ("your games") may have changed, private tables' included.
#[derive(Clone, Debug)]
pub struct LobbyChange(Arc<Change>);

#[derive(Debug)]
struct Change {
    /// The public table as it was (`None`: not listed).
    before: Option<TableSummary>,
    /// The public table as it is now, and its `lobby_update`; `None` once
    /// closed or unlisted.
    after: Option<(TableSummary, Frame)>,
    removed: Frame,
    /// Who held a seat before or after the change.
    seated: Vec<String>,
}

impl LobbyChange {
    /// `None` when no lobby lists the table, before or after (a private
    /// one), and nobody holds a seat there.
    fn new(
        table: &str,
        before: Option<TableSummary>,
        after: Option<TableSummary>,
        seated: Vec<String>,
    ) -> Option<LobbyChange> {
        let listed = |summary: &Option<TableSummary>| summary.as_ref().is_some_and(|s| !s.private);
        let (before, after) =
            if listed(&before) || listed(&after) { (before, after) } else { (None, None) };
        if before.is_none() && after.is_none() && seated.is_empty() {
            return None;
        }
        let after = after.map(|summary| {
            let update = Frame::new(ServerMessage::LobbyUpdate { table: summary.clone() });
            (summary, update)
        });
        let removed = Frame::new(ServerMessage::LobbyRemoved { table: table.to_owned() });
        Some(LobbyChange(Arc::new(Change { before, after, removed, seated })))
    }

    /// Whether `player`'s own tables may have changed.
    pub fn concerns(&self, player: &str) -> bool {
        self.0.seated.iter().any(|seated| seated == player)
    }

    /// What a subscriber with `filter` is sent: the table if it matches
    /// now, its removal if it matched before but no longer does, else nothing.
    pub fn for_filter(&self, filter: &LobbyFilter) -> Option<Frame> {
        let change = &*self.0;
        match &change.after {
            Some((summary, update)) if filter.matches(summary) => Some(update.clone()),
            _ if change.before.as_ref().is_some_and(|before| filter.matches(before)) => {
                Some(change.removed.clone())
            }
            _ => None,
        }
    }
}

fn yours_in(tables: &BTreeMap<TableId, Entry>, player: &str) -> Vec<TableSummary> {
    tables
        .values()
        .filter(|entry| entry.players.iter().any(|seated| seated == player))
        .take(YOURS_MAX)
        .map(|entry| entry.summary.clone())
        .collect()
}

/// Everyone in `before` or `after`, once.
fn either(before: Option<&[String]>, after: &[String]) -> Vec<String> {
    let mut all = after.to_vec();
    for player in before.unwrap_or_default() {
        if !all.contains(player) {
            all.push(player.clone());
        }
    }
    all
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            tables: Arc::default(),
            lobby: broadcast::channel(1024).0,
            mirror: Arc::default(),
        }
    }
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<TableId, Entry>> {
        self.tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells the lobby's subscribers that `table` changed, and whom it
    /// seats (`seated`: before and after). Called with the tables locked,
    /// after the change: a connection subscribes before it reads a page, so
    /// it either reads the change there or receives it, and a table's
    /// changes go out in the order they were made.
    fn announce(
        &self,
        table: &str,
        before: Option<TableSummary>,
        after: Option<TableSummary>,
        seated: Vec<String>,
    ) {
        if let Some(change) = LobbyChange::new(table, before, after, seated) {
            // Nobody listening is fine.
            let _ = self.lobby.send(change);
        }
    }

    pub fn insert(
        &self,
        handle: TableHandle,
        summary: TableSummary,
        host_id: &str,
        players: Vec<String>,
    ) {
        self.mirror(|| Mirrored::Listed {
            summary: summary.clone(),
            host_id: host_id.to_owned(),
            players: players.clone(),
        });
        let host_id = host_id.to_owned();
        let seated = players.clone();
        let entry = Entry { handle: Some(handle), summary: summary.clone(), host_id, players };
        let mut tables = self.lock();
        let before = tables.insert(summary.table.clone(), entry);
        let seated = either(before.as_ref().map(|e| e.players.as_slice()), &seated);
        self.announce(&summary.table, before.map(|e| e.summary), Some(summary.clone()), seated);
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
    pub fn insert_remote(&self, summary: TableSummary, host_id: &str, players: Vec<String>) {
        let mut tables = self.lock();
        let (before, seated) = match tables.get_mut(&summary.table) {
            Some(entry) if entry.handle.is_some() => return,
            Some(entry) if entry.summary == summary && entry.players == players => return,
            Some(entry) if entry.summary == summary => {
                let seated = either(Some(entry.players.as_slice()), &players);
                entry.players = players;
                // Only who sits changed: no public listing changed.
                self.announce(&summary.table, None, None, seated);
                return;
            }
            Some(entry) => {
                let seated = either(Some(entry.players.as_slice()), &players);
                entry.players = players;
                (Some(std::mem::replace(&mut entry.summary, summary.clone())), seated)
            }
            None => {
                let host_id = host_id.to_owned();
                let seated = players.clone();
                let entry = Entry { handle: None, summary: summary.clone(), host_id, players };
                tables.insert(summary.table.clone(), entry);
                (None, seated)
            }
        };
        self.announce(&summary.table, before, Some(summary.clone()), seated);
    }

    /// Another node's table closed for good.
    pub fn remove_remote(&self, table: &str) {
        let mut tables = self.lock();
        if tables.get(table).is_some_and(|entry| entry.handle.is_none())
            && let Some(entry) = tables.remove(table)
        {
            self.announce(table, Some(entry.summary), None, entry.players);
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
        let mut tables = self.lock();
        let Some(entry) = tables.get_mut(&summary.table).filter(|e| e.summary != summary) else {
            return;
        };
        let before = std::mem::replace(&mut entry.summary, summary.clone());
        self.mirror(|| Mirrored::Listed {
            summary: summary.clone(),
            host_id: entry.host_id.clone(),
            players: entry.players.clone(),
        });
        let seated = entry.players.clone();
        self.announce(&summary.table, Some(before), Some(summary.clone()), seated);
    }

    /// Records who holds a seat at a table now (its seats changed). The
    /// lobby's pages show nobody else this: only those who sat or left
    /// are told (their own tables changed).
    pub fn seat_players(&self, table: &str, players: Vec<String>) {
        let mut tables = self.lock();
        let Some(entry) = tables.get_mut(table).filter(|e| e.players != players) else {
            return;
        };
        let seated = either(Some(entry.players.as_slice()), &players);
        entry.players = players;
        self.mirror(|| Mirrored::Listed {
            summary: entry.summary.clone(),
            host_id: entry.host_id.clone(),
            players: entry.players.clone(),
        });
        self.announce(table, None, None, seated);
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
        let mut tables = self.lock();
        if let Some(entry) = tables.remove(table) {
            self.announce(table, Some(entry.summary), None, entry.players);
        }
    }

    /// A page of the public tables matching `query`, of at most `limit`
    /// (checked by the caller), and on a first page the tables where
    /// `player` holds a seat, private ones too, whatever the filter. One
    /// pass over the tables' summaries, which also counts every match;
    /// only the page's are copied.
    pub fn page(&self, query: &LobbyQuery, limit: usize, player: Option<&str>) -> LobbyPage {
        let tables = self.lock();
        let mut page = LobbyPage { after: query.after.clone(), ..LobbyPage::default() };
        let mut more = false;
        if query.after.is_none()
            && let Some(player) = player
        {
            page.yours = yours_in(&tables, player);
        }
        for (id, entry) in tables.iter().filter(|(_, e)| query.filter.matches(&e.summary)) {
            page.total += 1;
            if query.after.as_ref().is_some_and(|after| id <= after) {
                continue;
            }
            if page.tables.len() < limit {
                page.tables.push(entry.summary.clone());
            } else {
                more = true;
            }
        }
        if more {
            page.next = page.tables.last().map(|last| last.table.clone());
        }
        page
    }

    /// The tables where `player` holds a seat, private ones too (at most
    /// [`YOURS_MAX`]): the lobby's "your games".
    pub fn yours(&self, player: &str) -> Vec<TableSummary> {
        yours_in(&self.lock(), player)
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
    pub fn subscribe(&self) -> broadcast::Receiver<LobbyChange> {
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

    fn ids(page: &LobbyPage) -> Vec<&str> {
        page.tables.iter().map(|t| t.table.as_str()).collect()
    }

    #[test]
    fn pages_follow_the_ids_from_a_cursor_and_count_every_match() {
        let registry = Registry::default();
        // Listed out of order; t3 is private.
        for (table, private) in
            [("t4", false), ("t1", false), ("t3", true), ("t2", false), ("t5", false)]
        {
            registry.insert_remote(summary(table, private, 1), "h", Vec::new());
        }
        let query = |after: Option<&str>| LobbyQuery {
            after: after.map(Into::into),
            ..LobbyQuery::default()
        };
        let first = registry.page(&query(None), 2, None);
        assert_eq!(
            (ids(&first), first.total, first.next.as_deref()),
            (vec!["t1", "t2"], 4, Some("t2"))
        );
        assert_eq!(first.after, None);
        let second = registry.page(&query(first.next.as_deref()), 2, None);
        assert_eq!(
            (ids(&second), second.total, second.next.as_deref()),
            (vec!["t4", "t5"], 4, None)
        );
        assert_eq!(second.after.as_deref(), Some("t2"));
        // A cursor need not be a table that still exists.
        let page = registry.page(&query(Some("t3")), 10, None);
        assert_eq!((ids(&page), page.next.as_deref()), (vec!["t4", "t5"], None));
        assert!(registry.page(&query(Some("t9")), 10, None).tables.is_empty());
    }

    #[test]
    fn a_filter_picks_the_page_and_the_total() {
        let registry = Registry::default();
        registry.insert_remote(summary("t1", false, 4), "h", Vec::new());
        registry.insert_remote(
            TableSummary { status: TableStatus::Playing, ..summary("t2", false, 4) },
            "h",
            Vec::new(),
        );
        registry.insert_remote(summary("t3", false, 1), "h", Vec::new());
        registry.insert_remote(
            TableSummary { preset: Preset::Cutthroat, ..summary("t4", false, 1) },
            "h",
            Vec::new(),
        );
        let page = |filter: LobbyFilter| {
            registry.page(&LobbyQuery { filter, ..LobbyQuery::default() }, 50, None)
        };
        let open = LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() };
        let found = page(open.clone());
        assert_eq!((ids(&found), found.total), (vec!["t1", "t3", "t4"], 3));
        let free = page(LobbyFilter { free_seat: true, ..open });
        assert_eq!(ids(&free), vec!["t3", "t4"]);
        let cutthroat =
            page(LobbyFilter { preset: Some(Preset::Cutthroat), ..LobbyFilter::default() });
        assert_eq!((ids(&cutthroat), cutthroat.total), (vec!["t4"], 1));
    }

    /// The lobby's size at 10,000 public tables, paged and whole (as it was
    /// sent before it was paged), for BENCHMARKS.md:
    /// `cargo test -p euchre-server --lib lobby_at_10000 -- --nocapture`.
    #[test]
    fn the_lobby_at_10000_tables_is_a_page_not_megabytes() {
        let registry = Registry::default();
        for n in 0..10_000u32 {
            // Ids as the server makes them (32 hex digits); one table in ten waiting.
            let status = if n % 10 == 0 { TableStatus::Open } else { TableStatus::Playing };
            let table = TableSummary {
                host: format!("Player {n}"),
                status,
                ..summary(&format!("{n:032x}"), false, 4)
            };
            registry.insert_remote(table, "h", Vec::new());
        }
        let bytes = |filter: LobbyFilter, limit: usize| {
            let page = registry.page(&LobbyQuery { filter, ..LobbyQuery::default() }, limit, None);
            serde_json::to_string(&ServerMessage::Lobby(page)).expect("encodes").len()
        };
        let open = LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() };
        let whole = bytes(LobbyFilter::default(), usize::MAX);
        let first = bytes(LobbyFilter::default(), euchre_protocol::LOBBY_PAGE_DEFAULT as usize);
        let largest = bytes(LobbyFilter::default(), euchre_protocol::LOBBY_PAGE_MAX as usize);
        let first_open = bytes(open, euchre_protocol::LOBBY_PAGE_DEFAULT as usize);
        println!(
            "lobby at 10,000 tables: all in one message {whole} bytes; first page of 50 \
             {first} bytes; of 200 {largest} bytes; first page of the open ones {first_open} bytes"
        );
        assert!(whole > 5_000_000, "{whole}");
        assert!(first < whole / 150 && largest < 200_000, "{first} {largest}");
    }

    #[test]
    fn a_first_page_lists_the_players_own_tables_whatever_the_filter() {
        let registry = Registry::default();
        let ann = vec!["ann".to_owned()];
        registry.insert_remote(summary("t1", false, 1), "h", Vec::new());
        // Ann's: a private table, and a full one a free-seat filter hides.
        registry.insert_remote(summary("t2", true, 1), "h", ann.clone());
        registry.insert_remote(summary("t3", false, 4), "h", Vec::new());
        registry.seat_players("t3", vec!["bob".to_owned(), "ann".to_owned()]);
        let open = LobbyQuery {
            filter: LobbyFilter { free_seat: true, ..LobbyFilter::default() },
            ..LobbyQuery::default()
        };
        let page = registry.page(&open, 50, Some("ann"));
        assert_eq!(ids(&page), vec!["t1"]);
        let yours: Vec<&str> = page.yours.iter().map(|t| t.table.as_str()).collect();
        assert_eq!(yours, vec!["t2", "t3"]);
        // Nobody else's; and only on a first page.
        assert!(registry.page(&open, 50, Some("bob")).yours.len() == 1);
        assert!(registry.page(&open, 50, None).yours.is_empty());
        let later = LobbyQuery { after: Some("t1".into()), ..open.clone() };
        assert!(registry.page(&later, 50, Some("ann")).yours.is_empty());
        // Gone from her list once she leaves the table.
        registry.seat_players("t3", vec!["bob".to_owned()]);
        assert_eq!(registry.page(&open, 50, Some("ann")).yours.len(), 1);
    }

    /// What a subscriber with `filter` is sent of `change`.
    fn sent(change: &LobbyChange, filter: &LobbyFilter) -> Option<ServerMessage> {
        change.for_filter(filter).and_then(Frame::into_message)
    }

    #[test]
    fn a_subscriber_is_sent_the_changes_its_filter_lets_through() {
        let registry = Registry::default();
        let mut changes = registry.subscribe();
        let mut next = || changes.try_recv().expect("a change");
        let all = LobbyFilter::default();
        let open = LobbyFilter { status: Some(TableStatus::Open), free_seat: true, preset: None };
        let update = |summary: &TableSummary| ServerMessage::LobbyUpdate { table: summary.clone() };
        let removed = ServerMessage::LobbyRemoved { table: "t1".into() };

        let waiting = summary("t1", false, 1);
        registry.insert_remote(waiting.clone(), "h", Vec::new());
        let change = next();
        assert_eq!(sent(&change, &all), Some(update(&waiting)));
        assert_eq!(sent(&change, &open), Some(update(&waiting)));
        let (one, other) = (change.for_filter(&all), change.for_filter(&open));
        assert!(one.zip(other).is_some_and(|(a, b)| a.same(&b)), "one frame for all");
        // Full: gone from the open tables, still in the whole lobby.
        let full = summary("t1", false, 4);
        registry.insert_remote(full.clone(), "h", Vec::new());
        let change = next();
        assert_eq!(sent(&change, &all), Some(update(&full)));
        assert_eq!(sent(&change, &open), Some(removed.clone()));
        // A change outside the filter, before and after: nothing.
        let playing = TableSummary { status: TableStatus::Playing, ..full };
        registry.insert_remote(playing.clone(), "h", Vec::new());
        let change = next();
        assert_eq!(sent(&change, &all), Some(update(&playing)));
        assert_eq!(sent(&change, &open), None);
        registry.remove_remote("t1");
        let change = next();
        assert_eq!(sent(&change, &all), Some(removed));
        assert_eq!(sent(&change, &open), None);
        // A private table is never announced; one sent again unchanged neither.
        registry.insert_remote(summary("t2", true, 1), "h", Vec::new());
        let listed = summary("t3", false, 1);
        registry.insert_remote(listed.clone(), "h", Vec::new());
        registry.insert_remote(listed.clone(), "h", Vec::new());
        assert_eq!(sent(&next(), &all), Some(update(&listed)));
        assert!(changes.try_recv().is_err(), "nothing more");
    }
}
