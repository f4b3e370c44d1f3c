//! Who a bearer token belongs to: a guest (a display name and a token that
//! never expires) or an account's log-in session (a token that expires and
//! may be revoked; see [`crate::accounts`]). Only a hash of each token is
//! kept, in memory and in storage, so a leaked database gives nobody a way in.

use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use euchre_protocol::{ErrorCode, PlayerInfo, Refusal};
use euchre_store::writer::Recorder;
use euchre_store::{Millis, Store, Write};
use lru::LruCache;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

use crate::clock::now_ms;
use crate::revocation::{Open, Revocation, Watch};
use crate::sanctions::{Change, Sanctions, until_text};
use crate::table::ConnId;
use crate::text::name_key;
pub use crate::text::parse_name;
use crate::word_list::WordList;

/// Lookups in a row that a revocation overtook before one is refused as
/// `unavailable`: each means a revocation landed while the store was read.
const LOOKUPS: usize = 5;

/// The players the server knows: a cache in front of the store.
#[derive(Debug)]
pub struct Players {
    /// The most recently used tokens' players, at most `limits.known_tokens`:
    /// a guest's token never expires, so without a bound the map would grow
    /// with every guest ever seen. A token that fell out is looked up in the
    /// store at its next `hello`, once.
    // A std mutex: held only for a map lookup or insert, never across an await.
    by_token: Mutex<LruCache<String, Known>>,
    /// The accounts' names, as compared ([`name_key`]): no new guest takes one.
    claimed: Mutex<HashSet<String>>,
    store: Arc<dyn Store>,
    recorder: Recorder,
    /// In a cluster: a new guest is also written to the shared database
    /// before its welcome, so any node finds its token at once.
    write_through: std::sync::atomic::AtomicBool,
    /// This node's welcomed connections, cut when their token is revoked.
    open: Open,
    /// In a cluster: where this node's revocations go, for every node.
    broadcast: OnceLock<mpsc::UnboundedSender<Revocation>>,
    /// The bans and mutes in force: a banned player's token is refused.
    sanctions: Arc<Sanctions>,
    /// The operator's word list, for names and chat (set once, at start).
    words: OnceLock<WordList>,
}

/// A player let in on a connection.
#[derive(Debug)]
pub struct Admitted {
    pub player: PlayerInfo,
    /// A session's end; `None` for a guest's token.
    pub expires_at: Option<Millis>,
    /// Cuts the connection when its token is revoked.
    pub watch: Watch,
}

/// How long a session read from the store is trusted from memory. Other
/// nodes' revocations come over core NATS, at most once: one lost leaves
/// the token good here only until its next `hello` past this.
pub const SESSION_RECHECK: Duration = Duration::from_secs(60);

/// A token the server has seen, by its hash.
#[derive(Clone, Debug)]
struct Known {
    player: PlayerInfo,
    /// A session's end; `None` for a guest's token, which does not expire.
    expires_at: Option<Millis>,
    /// When it was read from the store (or made here).
    read_at: Instant,
}

impl Known {
    fn new(player: PlayerInfo, expires_at: Option<Millis>) -> Known {
        Known { player, expires_at, read_at: Instant::now() }
    }
}

impl Players {
    /// Players keeping at most `known_tokens` tokens in memory (at least one).
    pub fn new(store: Arc<dyn Store>, recorder: Recorder, known_tokens: usize) -> Players {
        let capacity = NonZeroUsize::new(known_tokens).unwrap_or(NonZeroUsize::MIN);
        Players {
            by_token: Mutex::new(LruCache::new(capacity)),
            claimed: Mutex::default(),
            store,
            recorder,
            write_through: Default::default(),
            open: Open::default(),
            broadcast: OnceLock::new(),
            sanctions: Arc::default(),
            words: OnceLock::new(),
        }
    }

    /// Refuses names and chat lines holding a word of `words` from now on.
    pub fn use_word_list(&self, words: WordList) {
        let _ = self.words.set(words);
    }

    /// Records, in the background, that the account `player_id` came from
    /// `address` (as its keyed hash): the moderators' view counts the
    /// accounts seen from one address.
    pub fn seen_from(&self, player_id: &str, address: std::net::IpAddr) {
        let Some(hash) = self.sanctions.address_hash(address) else { return };
        let (store, player_id) = (self.store.clone(), player_id.to_owned());
        tokio::spawn(async move {
            if let Err(error) = store.record_sighting(&player_id, &hash, now_ms()).await {
                tracing::warn!(%error, "an address seen was not recorded");
            }
        });
    }

    /// Whether `text` holds a word of the operator's list.
    pub fn blocked_words(&self, text: &str) -> bool {
        self.words.get().is_some_and(|words| words.blocks(text))
    }

    /// The bans and mutes in force on this node.
    pub fn sanctions(&self) -> &Arc<Sanctions> {
        &self.sanctions
    }

    /// Reads the bans and mutes from the store again, and cuts the players
    /// banned since that this node did not hear of (banned from the command
    /// line, or a message it missed).
    pub async fn refresh_sanctions(&self) -> Result<(), euchre_store::StoreError> {
        let seen = self.sanctions.generation();
        let read = self.store.live_sanctions(now_ms()).await?;
        // Names moderators took away are nobody's to take.
        let reserved = read.reserved_name_keys.iter().cloned();
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).extend(reserved);
        for (player_id, until) in self.sanctions.replace(seen, read) {
            self.apply(&Revocation::Banned { player_id, until });
        }
        Ok(())
    }

    /// Cluster mode: this node's revocations are sent on the returned
    /// channel, for the other nodes.
    pub fn broadcast_revocations(&self) -> Option<mpsc::UnboundedReceiver<Revocation>> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.broadcast.set(sender).ok()?;
        Some(receiver)
    }

    /// Cluster mode: new guests go to the shared database at once as well.
    pub fn write_guests_through(&self) {
        self.write_through.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Learns the claimed names, at start-up, once their stored keys are
    /// today's.
    pub async fn load_claimed_names(&self) -> Result<(), euchre_store::StoreError> {
        let names = crate::accounts::update_name_keys(&*self.store).await?;
        // And deleted accounts' names, held through their cooling-off.
        let held = self.store.held_names().await?;
        self.claimed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(names.into_iter().chain(held));
        Ok(())
    }

    /// Whether a name (its key, [`name_key`]) is an account's or reserved.
    pub fn is_claimed(&self, name_key: &str) -> bool {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).contains(name_key)
    }

    /// A name just claimed, as compared ([`name_key`]).
    pub fn claimed(&self, name_key: String) {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).insert(name_key);
    }

    /// Creates a guest named `name` and returns it with its new token, once
    /// it is durable.
    pub async fn register(&self, name: &str) -> Result<(PlayerInfo, String), Refusal> {
        let name = parse_name(name)?;
        if self.blocked_words(&name) {
            return Err(ErrorCode::BlockedWords.into());
        }
        let key = name_key(&name);
        // A set lookup: the guest path stays free of the database.
        if self.claimed.lock().unwrap_or_else(|p| p.into_inner()).contains(&key) {
            return Err(ErrorCode::NameTaken.into());
        }
        let player = PlayerInfo { id: Uuid::now_v7().to_string(), name };
        let token = new_token();
        let token_hash = hash(&token);
        let write = Write::Player {
            id: player.id.clone(),
            name: player.name.clone(),
            token_hash: token_hash.clone(),
            at: now_ms(),
        };
        let unavailable = || Refusal::from(ErrorCode::Unavailable);
        if self.write_through.load(std::sync::atomic::Ordering::Relaxed) {
            self.store.apply(std::slice::from_ref(&write)).await.map_err(|_| unavailable())?;
        }
        self.recorder.record_and_wait(vec![write]).await.map_err(|_| unavailable())?;
        self.lock().put(token_hash, Known::new(player.clone(), None));
        Ok((player, token))
    }

    /// The player holding `token`, a guest's or a session's, if any. An
    /// expired session is refused with `session_expired`, a revoked one is
    /// unknown.
    pub async fn authenticate(&self, token: &str) -> Result<Option<PlayerInfo>, Refusal> {
        Ok(self.look_up(token, None).await?.map(|(known, _)| known.player))
    }

    /// [`Players::authenticate`] for connection `conn`'s `hello`, watching
    /// the connection from then on so that a revocation of its token cuts it.
    pub async fn admit(&self, token: &str, conn: ConnId) -> Result<Option<Admitted>, Refusal> {
        let Some((known, watch)) = self.look_up(token, Some(conn)).await? else {
            return Ok(None);
        };
        let watch = watch.ok_or(ErrorCode::Unavailable)?;
        Ok(Some(Admitted { player: known.player, expires_at: known.expires_at, watch }))
    }

    /// Watches connection `conn` of a guest [`Players::register`] just made.
    pub fn admit_new(&self, conn: ConnId, token: &str, player: &PlayerInfo) -> Admitted {
        let watch = self.open.watch(conn, &hash(token), &player.id);
        Admitted { player: player.clone(), expires_at: None, watch }
    }

    /// The token's player, cached, and its connection watched if given.
    ///
    /// The race this guards against: the store is read (the session is
    /// valid), a revocation lands (here, or on another node and then here
    /// over the cluster), then what was read is cached, and the revoked
    /// session would be let in until the cache dropped it. So the
    /// revocations' generation is read before the lookup and compared
    /// after it, under the lock that every revocation takes to forget its
    /// tokens: if one came between, whatever was read may be stale and the
    /// lookup starts again. A revocation written to the store before the
    /// read began is seen by the read itself.
    async fn look_up(
        &self,
        token: &str,
        conn: Option<ConnId>,
    ) -> Result<Option<(Known, Option<Watch>)>, Refusal> {
        let token_hash = hash(token);
        for _ in 0..LOOKUPS {
            let seen = self.open.generation();
            let Some(known) = self.find(&token_hash).await? else { return Ok(None) };
            if let Some(until) = self.sanctions.banned(&known.player.id) {
                return Err(banned(until));
            }
            let conn = conn.map(|conn| (conn, token_hash.as_str(), known.player.id.as_str()));
            let kept = self.open.if_unrevoked(seen, conn, || {
                self.lock().put(token_hash.clone(), known.clone());
            });
            if let Some(watch) = kept {
                return Ok(Some((known, watch)));
            }
        }
        Err(ErrorCode::Unavailable.into())
    }

    /// The token's player, from memory or else from the store.
    async fn find(&self, token_hash: &str) -> Result<Option<Known>, Refusal> {
        let known = self.lock().get(token_hash).cloned();
        if let Some(known) = known {
            if known.expires_at.is_some_and(|end| end <= now_ms()) {
                self.lock().pop(token_hash);
                return Err(ErrorCode::SessionExpired.into());
            }
            // A guest's token ends only by its claim, after which the same
            // player goes on as the account: nothing to read again for it.
            if known.expires_at.is_none() || known.read_at.elapsed() < SESSION_RECHECK {
                return Ok(Some(known));
            }
        }
        let unavailable = |_| Refusal::from(ErrorCode::Unavailable);
        // Guests first: their path is the common one and stays one lookup.
        if let Some(row) = self.store.player_by_token_hash(token_hash).await.map_err(unavailable)? {
            let player = PlayerInfo { id: row.id, name: row.name };
            return Ok(Some(Known::new(player, None)));
        }
        let Some(session) =
            self.store.session_by_token_hash(token_hash).await.map_err(unavailable)?
        else {
            return Ok(None);
        };
        if session.revoked_at.is_some() {
            return Ok(None);
        }
        if session.expires_at <= now_ms() {
            return Err(ErrorCode::SessionExpired.into());
        }
        let player = PlayerInfo { id: session.player.id, name: session.player.name };
        Ok(Some(Known::new(player, Some(session.expires_at))))
    }

    /// A session just started, so its first `hello` needs no lookup.
    pub fn remember_session(&self, token_hash: &str, player: &PlayerInfo, expires_at: Millis) {
        self.lock().put(token_hash.to_owned(), Known::new(player.clone(), Some(expires_at)));
    }

    /// Ends what `revocation` ends, on this node and (in a cluster) on
    /// every other.
    pub fn revoke(&self, revocation: Revocation) {
        self.apply(&revocation);
        if let Some(broadcast) = self.broadcast.get() {
            let _ = broadcast.send(revocation);
        }
    }

    /// Ends what `revocation` ends on this node: its tokens leave the
    /// cache, its connections are cut, a claimed name is no guest's.
    pub fn apply(&self, revocation: &Revocation) {
        match revocation {
            Revocation::Claimed { name_key, .. } => self.claimed(name_key.clone()),
            Revocation::NameFreed { name_key } => {
                self.claimed.lock().unwrap_or_else(|p| p.into_inner()).remove(name_key);
            }

            Revocation::Banned { player_id, until } => {
                let player_id = player_id.clone();
                self.sanctions.apply(&Change::AccountBan { player_id, until: *until });
            }
            _ => {}
        }
        self.open.revoke(revocation, || {
            self.forget_where(|token, player_id| revocation.ends(token, player_id));
        });
    }

    /// The players connected to this node now.
    pub fn connected(&self) -> HashSet<String> {
        self.open.players()
    }

    /// Forgets purged guests' tokens.
    pub fn forget_players(&self, player_ids: &HashSet<String>) {
        self.forget_where(|_, player_id| player_ids.contains(player_id));
    }

    /// Forgets the tokens `gone(token_hash, player_id)` picks.
    fn forget_where(&self, gone: impl Fn(&str, &str) -> bool) {
        let mut known = self.lock();
        let tokens: Vec<String> = known
            .iter()
            .filter(|(token, known)| gone(token, &known.player.id))
            .map(|(token, _)| token.clone())
            .collect();
        for token in tokens {
            known.pop(&token);
        }
    }

    fn lock(&self) -> MutexGuard<'_, LruCache<String, Known>> {
        // A panic while holding this lock cannot leave the map half-updated.
        self.by_token.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The refusal of a banned player's token, saying until when.
pub fn banned(until: Option<Millis>) -> Refusal {
    ErrorCode::Banned.refusal(until_text("this account is banned", until))
}

/// A new bearer token: 244 random bits from the operating system's generator.
pub fn new_token() -> String {
    format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple())
}

/// The SHA-256 of a token, in hex.
pub fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_keeps_only_the_latest_tokens_and_the_store_the_rest() {
        let data = tempfile::tempdir().expect("a folder");
        let url = format!("sqlite://{}/euchre.db", data.path().display());
        let store: Arc<dyn Store> = Arc::from(euchre_store::connect(&url).await.expect("a store"));
        store.migrate().await.expect("migrated");
        let (recorder, writer) =
            euchre_store::writer::start(store.clone(), data.path().join("journal"), 16)
                .await
                .expect("the writer starts");
        let stop = tokio_util::sync::CancellationToken::new();
        let _writer = tokio::spawn(writer.run(stop.clone()));
        let players = Players::new(store.clone(), recorder, 2);
        let mut guests = Vec::new();
        for name in ["Ann", "Bob", "Cat"] {
            guests.push(players.register(name).await.expect("registered"));
        }
        assert_eq!(players.lock().len(), 2, "memory holds two tokens, not three");
        let (ann, ann_token) = &guests[0];
        assert!(!players.lock().contains(&hash(ann_token)), "the least recently used went");
        // Once the writer has stored Ann, her token still lets her in, from the store.
        for _ in 0..500 {
            if store.player_by_token_hash(&hash(ann_token)).await.expect("reads").is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let found = players.authenticate(ann_token).await.expect("no error");
        assert_eq!(found.as_ref().map(|p| &p.id), Some(&ann.id));
        assert!(players.lock().contains(&hash(ann_token)), "and she is remembered again");
        assert_eq!(players.lock().len(), 2);
        players.forget_players(&HashSet::from([ann.id.clone()]));
        assert!(!players.lock().contains(&hash(ann_token)));
        stop.cancel();
    }

    #[test]
    fn tokens_are_stored_only_as_hashes() {
        let token = "a".repeat(64);
        let hashed = hash(&token);
        assert_eq!(hashed.len(), 64);
        assert_ne!(hashed, token);
        assert_eq!(hashed, hash(&token));
    }
}
