//! What players do about one another, on this node: mutes and blocks, the
//! chat each connection is spared, and reports filed within their limits.
//!
//! An account's mutes and blocks are in the store, written before the
//! player is answered, and read into memory while the player has a
//! connection here; a guest's mutes live in memory alone, until the server
//! stops, and its blocks are stored as well (every node reads them when
//! someone asks to sit, [`Social::avoid`]).
//! Chat is filtered as it leaves for the reader's socket
//! ([`Social::spares`]), so a muted player's lines never reach them. A block
//! holds both ways and says nothing of who made it: whoever asks to sit is
//! refused alike, and the quick-play pools keep the two apart
//! ([`Social::avoid`] travels with every request, to whichever node owns
//! the pool). In a cluster an account's change is told to the other nodes,
//! which read its lists again (`node::social`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use euchre_protocol::{
    ErrorCode, ListedPlayer, Refusal, ReportReason, ServerMessage, TableEvent, TableNotice,
};
use euchre_store::{NewReport, Relation, ReportLimits, ReportOutcome, SocialLists, Store};
use tokio::sync::mpsc;

use crate::clock::now_ms;
use crate::frame::Frame;

/// Players one list holds at most: a mute list is not a way to fill the
/// database.
pub const LIST_MAX: usize = 500;
/// Reports one player may file: a few a minute, a few dozen a day, so that
/// no one reporter can bury the moderators.
pub const REPORT_LIMITS: ReportLimits = ReportLimits { per_minute: 3, per_day: 20 };
/// Characters a report's details may hold.
pub const DETAILS_MAX: usize = 500;
/// A table keeps this many recent chat lines for the reports made there.
pub const CHAT_KEPT: usize = 200;

/// One player's lists as this node holds them.
#[derive(Debug, Default)]
struct Lists {
    /// An account's lists mirror the store; a guest's are only here.
    account: bool,
    muted: HashSet<String>,
    blocked: HashSet<String>,
    /// This player's connections to this node.
    connections: u32,
}

/// The node's side of mutes, blocks and reports.
#[derive(Debug)]
pub struct Social {
    store: Arc<dyn Store>,
    // A std mutex: held for a lookup or an insert, never across an await.
    players: Mutex<HashMap<String, Lists>>,
    /// Cluster mode: the accounts whose lists changed here, for the other
    /// nodes (`node::social`).
    broadcast: OnceLock<mpsc::UnboundedSender<String>>,
}

impl Social {
    pub fn new(store: Arc<dyn Store>) -> Social {
        Social { store, players: Mutex::new(HashMap::new()), broadcast: OnceLock::new() }
    }

    /// Cluster mode: the players whose stored lists change on this node
    /// (an account's, a guest's blocks) are sent on the returned channel,
    /// for the other nodes.
    pub fn broadcast_changes(&self) -> Option<mpsc::UnboundedReceiver<String>> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.broadcast.set(sender).ok()?;
        Some(receiver)
    }

    /// Another node changed `player_id`'s lists: an account's held here
    /// is read again from the store, and a guest's blocks (its mutes are
    /// only ever this node's).
    pub async fn reload(&self, player_id: &str) {
        if !self.players().contains_key(player_id) {
            return;
        }
        // Held here as a guest's, the name claimed since: what it holds
        // here is stored first.
        if !self.is_account(player_id).await.unwrap_or(false) {
            match self.store.guest_blocks(player_id).await {
                Ok(blocked) => {
                    if let Some(lists) = self.players().get_mut(player_id) {
                        lists.blocked = blocked.into_iter().collect();
                    }
                }
                Err(error) => tracing::warn!(%error, "a guest's blocks could not be read again"),
            }
            return;
        }
        let stored = match self.store.social_lists(player_id).await {
            Ok(stored) => stored,
            Err(error) => {
                tracing::warn!(%error, "a player's mutes and blocks could not be read again");
                return;
            }
        };
        if let Some(lists) = self.players().get_mut(player_id) {
            lists.muted = stored.muted.into_iter().map(|listed| listed.id).collect();
            lists.blocked = stored.blocked.into_iter().map(|listed| listed.id).collect();
        }
    }

    fn players(&self) -> MutexGuard<'_, HashMap<String, Lists>> {
        self.players.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A connection of `player_id` was welcomed: an account's lists are
    /// read from the store if none of its connections has them here.
    pub async fn attach(&self, player_id: &str, account: bool) {
        let held = self.players().get_mut(player_id).map(|lists| {
            lists.connections += 1;
            lists.account
        });
        match held {
            // A guest's lists, and the name claimed since.
            Some(false) if account => return self.reload(player_id).await,
            Some(_) => return,
            None => {}
        }
        let unread = |error: euchre_store::StoreError| {
            tracing::warn!(%error, "a player's mutes and blocks could not be read");
        };
        let (muted, blocked): (HashSet<String>, HashSet<String>) = if account {
            let stored = self.store.social_lists(player_id).await.unwrap_or_else(|error| {
                unread(error);
                SocialLists::default()
            });
            let ids = |list: Vec<euchre_store::Listed>| list.into_iter().map(|l| l.id).collect();
            (ids(stored.muted), ids(stored.blocked))
        } else {
            // A guest's blocks are stored (made on another node, or before
            // a restart); its mutes are not.
            let blocked = self.store.guest_blocks(player_id).await.unwrap_or_else(|error| {
                unread(error);
                Vec::new()
            });
            (HashSet::new(), blocked.into_iter().collect())
        };
        let mut players = self.players();
        let lists = players.entry(player_id.to_owned()).or_insert_with(|| Lists {
            account,
            muted,
            blocked,
            connections: 0,
        });
        lists.connections += 1;
    }

    /// A connection of `player_id` closed. An account's lists are dropped
    /// with its last connection (the store has them); a guest's are kept
    /// while they hold anyone.
    pub fn detach(&self, player_id: &str) {
        let mut players = self.players();
        let Some(lists) = players.get_mut(player_id) else { return };
        lists.connections = lists.connections.saturating_sub(1);
        let empty = lists.muted.is_empty() && lists.blocked.is_empty();
        if lists.connections == 0 && (lists.account || empty) {
            players.remove(player_id);
        }
    }

    /// Puts `other` on `player_id`'s list of `relation` (`on`) or takes
    /// them off: stored first for an account, so an answered mute outlives
    /// a crash.
    pub async fn set(
        &self,
        player_id: &str,
        relation: Relation,
        other: &str,
        on: bool,
    ) -> Result<(), Refusal> {
        if uuid::Uuid::parse_str(other).is_err() {
            return Err(ErrorCode::NoSuchPlayer.into());
        }
        if other == player_id {
            return Err(ErrorCode::BadRequest.refusal("that is you"));
        }
        let account = self.is_account(player_id).await?;
        {
            let mut players = self.players();
            let lists = players.entry(player_id.to_owned()).or_default();
            let list = match relation {
                Relation::Mute => &lists.muted,
                Relation::Block => &lists.blocked,
            };
            if on && !list.contains(other) && list.len() >= LIST_MAX {
                return Err(ErrorCode::BadRequest
                    .refusal(format!("a list holds {LIST_MAX} players at most: take some off")));
            }
        }
        let at = on.then(now_ms);
        let stored = match (account, relation) {
            (true, _) => self.store.set_relation(player_id, relation, other, at).await,
            // A guest's block is stored too: the node where the other
            // asks to sit may not be this one.
            (false, Relation::Block) => self.store.set_guest_block(player_id, other, at).await,
            (false, Relation::Mute) => Ok(()),
        };
        stored.map_err(|error| {
            tracing::error!(%error, "a mute or block could not be stored");
            Refusal::from(ErrorCode::Unavailable)
        })?;
        let mut players = self.players();
        let lists = players.entry(player_id.to_owned()).or_default();
        let list = match relation {
            Relation::Mute => &mut lists.muted,
            Relation::Block => &mut lists.blocked,
        };
        if on {
            list.insert(other.to_owned());
        } else {
            list.remove(other);
        }
        let stored = account || relation == Relation::Block;
        if stored && let Some(broadcast) = self.broadcast.get() {
            let _ = broadcast.send(player_id.to_owned());
        }
        Ok(())
    }

    /// Whether `player_id` holds an account. A guest that claimed its name
    /// since its connection said hello becomes one here: its lists so far
    /// are stored, to last as an account's do.
    async fn is_account(&self, player_id: &str) -> Result<bool, Refusal> {
        if self.players().get(player_id).is_some_and(|lists| lists.account) {
            return Ok(true);
        }
        let unavailable = |error: euchre_store::StoreError| {
            tracing::error!(%error, "mutes and blocks could not be read or stored");
            Refusal::from(ErrorCode::Unavailable)
        };
        if self.store.account_by_player(player_id).await.map_err(unavailable)?.is_none() {
            return Ok(false);
        }
        let kept: Vec<(Relation, String)> = match self.players().get(player_id) {
            Some(lists) => {
                let muted = lists.muted.iter().map(|id| (Relation::Mute, id.clone()));
                muted.chain(lists.blocked.iter().map(|id| (Relation::Block, id.clone()))).collect()
            }
            None => Vec::new(),
        };
        let at = now_ms();
        for (relation, other) in kept {
            self.store
                .set_relation(player_id, relation, &other, Some(at))
                .await
                .map_err(unavailable)?;
        }
        self.players().entry(player_id.to_owned()).or_default().account = true;
        Ok(true)
    }

    /// `player_id`'s mutes and blocks: an account's from the store, with
    /// the names players go by now; a guest's from memory, by id.
    pub async fn lists(
        &self,
        player_id: &str,
    ) -> Result<(Vec<ListedPlayer>, Vec<ListedPlayer>), Refusal> {
        let account = self.is_account(player_id).await?;
        let guest = {
            let players = self.players();
            match players.get(player_id) {
                Some(lists) if !account => {
                    let listed = |ids: &HashSet<String>| {
                        let mut ids: Vec<&String> = ids.iter().collect();
                        ids.sort();
                        ids.into_iter()
                            .map(|id| ListedPlayer { id: id.clone(), name: None })
                            .collect::<Vec<_>>()
                    };
                    Some((listed(&lists.muted), listed(&lists.blocked)))
                }
                None if !account => Some((Vec::new(), Vec::new())),
                _ => None,
            }
        };
        if let Some(lists) = guest {
            return Ok(lists);
        }
        let stored = self.store.social_lists(player_id).await.map_err(|error| {
            tracing::error!(%error, "a player's mutes and blocks could not be read");
            Refusal::from(ErrorCode::Unavailable)
        })?;
        let listed = |list: Vec<euchre_store::Listed>| {
            list.into_iter().map(|l| ListedPlayer { id: l.id, name: l.name }).collect()
        };
        Ok((listed(stored.muted), listed(stored.blocked)))
    }

    /// Whether `reader` has muted or blocked `writer`.
    pub fn hides(&self, reader: &str, writer: &str) -> bool {
        self.players()
            .get(reader)
            .is_some_and(|lists| lists.muted.contains(writer) || lists.blocked.contains(writer))
    }

    /// `frame` as `reader` may have it: a chat line by a player they
    /// muted or blocked comes as its event with nothing in it, keeping its
    /// seq; `None` for any other frame, which goes as it is.
    pub fn spares(&self, reader: &str, frame: &Frame) -> Option<Frame> {
        let relayed;
        let message = match frame.message() {
            Some(message) => message,
            None => {
                // Relayed from another node as JSON: only a chat line is
                // worth reading back.
                let json = frame.json()?;
                if !json.as_str().contains(r#""event":"chat""#) {
                    return None;
                }
                relayed = serde_json::from_str::<ServerMessage>(json.as_str()).ok()?;
                &relayed
            }
        };
        let ServerMessage::Event { table, seq, event: Some(TableEvent::Table(notice)) } = message
        else {
            return None;
        };
        let TableNotice::Chat { from_id: Some(writer), .. } = notice else { return None };
        if !self.hides(reader, writer) {
            return None;
        }
        let hidden = ServerMessage::Event { table: table.clone(), seq: *seq, event: None };
        Some(match frame.joins() {
            Some(joins) => Frame::joining(joins.clone(), Frame::new(hidden)),
            None => Frame::new(hidden),
        })
    }

    /// Every player a block stands between `player_id` and, whichever of
    /// them made it: the stored blocks (accounts' and guests'), and those of
    /// guests on this node (stored too, unless from before the guests'
    /// were).
    pub async fn avoid(&self, player_id: &str) -> Result<Vec<String>, Refusal> {
        let stored = self.store.blocked_either_way(player_id).await.map_err(|error| {
            tracing::error!(%error, "blocks could not be read");
            Refusal::from(ErrorCode::Unavailable)
        })?;
        let mut avoid: HashSet<String> = stored.into_iter().collect();
        for (id, lists) in self.players().iter() {
            if id == player_id {
                avoid.extend(lists.blocked.iter().cloned());
            } else if !lists.account && lists.blocked.contains(player_id) {
                avoid.insert(id.clone());
            }
        }
        Ok(avoid.into_iter().collect())
    }

    /// Files `report`, or says which limit it met.
    pub async fn file(&self, report: NewReport) -> Result<(), Refusal> {
        let outcome = self.store.file_report(&report, REPORT_LIMITS).await.map_err(|error| {
            tracing::error!(%error, "a report could not be stored");
            Refusal::from(ErrorCode::Unavailable)
        })?;
        match outcome {
            ReportOutcome::Filed(id) => {
                tracing::info!(report = id, reason = %report.reason, "a player was reported");
                Ok(())
            }
            ReportOutcome::Duplicate => Err(ErrorCode::AlreadyReported.into()),
            ReportOutcome::TooSoon => Err(ErrorCode::ReportLimit
                .refusal("you have sent several reports this minute: wait a minute")),
            ReportOutcome::DailyCap => Err(ErrorCode::ReportLimit
                .refusal("you have sent as many reports as you may today: try again tomorrow")),
        }
    }
}

/// A report's details as kept: cleaned as a chat line is, at most
/// [`DETAILS_MAX`] characters; none is fine.
pub fn details(raw: &str) -> Result<String, Refusal> {
    if raw.trim().is_empty() {
        return Ok(String::new());
    }
    if raw.chars().count() > DETAILS_MAX {
        return Err(ErrorCode::BadReport.into());
    }
    crate::text::chat_line(raw).map_err(|_| ErrorCode::BadReport.into())
}

/// A report by `reporter` of `reported`, with the table, match and chat
/// filled in by the caller from what the server holds.
pub fn report(reporter: &str, reported: &str, reason: ReportReason, details: String) -> NewReport {
    NewReport {
        at: now_ms(),
        reporter: reporter.to_owned(),
        reported: reported.to_owned(),
        reason: reason.as_str().to_owned(),
        details,
        table_id: None,
        match_id: None,
        chat: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(from_id: &str) -> Frame {
        Frame::new(ServerMessage::Event {
            table: "t".into(),
            seq: 7,
            event: Some(TableEvent::Table(TableNotice::Chat {
                from: "Bob".into(),
                text: "hi".into(),
                from_id: Some(from_id.into()),
            })),
        })
    }

    async fn social() -> (Social, tempfile::TempDir) {
        let data = tempfile::tempdir().expect("a folder");
        let url = format!("sqlite://{}/euchre.db", data.path().display());
        let store: Arc<dyn Store> = Arc::from(euchre_store::connect(&url).await.expect("a store"));
        store.migrate().await.expect("migrated");
        (Social::new(store), data)
    }

    #[tokio::test]
    async fn a_guests_mute_hides_a_chat_line_local_or_relayed_and_keeps_its_seq() {
        let (social, _data) = social().await;
        let (ann, bob) = (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string());
        social.attach(&ann, false).await;
        assert!(social.spares(&ann, &chat(&bob)).is_none(), "nothing muted yet");
        social.set(&ann, Relation::Mute, &bob, true).await.expect("muted");
        let relayed = Frame::encoded(chat(&bob).json().expect("json"));
        for frame in [chat(&bob), relayed] {
            let spared = social.spares(&ann, &frame).expect("hidden");
            let json = spared.json().expect("json");
            assert_eq!(json.as_str(), r#"{"type":"event","table":"t","seq":7}"#);
        }
        // Only Ann's view changes, and only Bob's lines.
        assert!(social.spares(&bob, &chat(&bob)).is_none());
        assert!(social.spares(&ann, &chat(&ann)).is_none());
        // A guest's list outlives its connection, for the session.
        social.detach(&ann);
        assert!(social.hides(&ann, &bob));
        social.set(&ann, Relation::Mute, &bob, false).await.expect("unmuted");
        assert!(!social.hides(&ann, &bob));
        let refused = social.set(&ann, Relation::Block, "not an id", true).await;
        assert_eq!(refused.map_err(|r| r.code), Err("no_such_player"));
    }

    #[tokio::test]
    async fn a_guests_block_stands_between_the_two_both_ways() {
        let (social, _data) = social().await;
        let (ann, bob) = (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string());
        social.attach(&ann, false).await;
        social.attach(&bob, false).await;
        social.set(&ann, Relation::Block, &bob, true).await.expect("blocked");
        assert_eq!(social.avoid(&ann).await.expect("read"), std::slice::from_ref(&bob));
        assert_eq!(social.avoid(&bob).await.expect("read"), std::slice::from_ref(&ann));
        assert!(social.hides(&ann, &bob) && !social.hides(&bob, &ann));
    }

    /// Two nodes over one database: a guest's block made on one is known
    /// on the other, where the guest has no connection, and lifted alike.
    #[tokio::test]
    async fn a_guests_block_is_known_on_a_node_the_guest_is_not_on() {
        let (here, _data) = social().await;
        let there = Social::new(here.store.clone());
        let (ann, bob) = (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string());
        here.attach(&ann, false).await;
        there.attach(&bob, false).await;
        here.set(&ann, Relation::Block, &bob, true).await.expect("blocked");
        assert_eq!(there.avoid(&bob).await.expect("read"), std::slice::from_ref(&ann));
        // She comes back on the other node (or after a restart): her block
        // is hers there too, listed and hiding his chat.
        there.attach(&ann, false).await;
        assert!(there.hides(&ann, &bob));
        let (_, blocked) = there.lists(&ann).await.expect("her lists");
        assert_eq!(blocked.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(), [bob.as_str()]);
        there.set(&ann, Relation::Block, &bob, false).await.expect("unblocked there");
        // Told on `euchre.social`, the first node reads her blocks again.
        here.reload(&ann).await;
        assert!(!here.hides(&ann, &bob));
        assert!(here.avoid(&bob).await.expect("read").is_empty());
    }

    #[test]
    fn details_are_cleaned_and_capped() {
        assert_eq!(details("  ").map_err(|r| r.code), Ok(String::new()));
        assert_eq!(details(" rude\nagain ").map_err(|r| r.code), Ok("rude again".into()));
        assert_eq!(details(&"x".repeat(501)).map_err(|r| r.code), Err("bad_report"));
    }
}
