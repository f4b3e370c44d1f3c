//! The bans and chat mutes in force, kept in memory on every node so that
//! the door, `hello` and chat check them without the database. The store
//! holds the truth: it is read at start and again every
//! [`REFRESH`] (which also brings in changes the operator made with
//! `euchre-server admin`, and any a node missed); a moderator's change
//! reaches every node at once as a [`Change`] (in a cluster on
//! `euchre.sanctions`, `node/sanctions.rs`).
//!
//! Addresses are known only by a keyed hash ([`Sanctions::address_hash`]):
//! HMAC-SHA256 of an IPv4 address or an IPv6 /64, under a key the first
//! node made and keeps in the database. Moderators see these hashes, never
//! an address.
//!
//! Every open WebSocket holds an [`AddressWatch`]: an address banned (by a
//! change, or found in a refresh) cuts the connections from it at once, as
//! the door refuses new ones.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use euchre_store::{LiveSanctions, Millis, Store, StoreError};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::admission::address_key;
use crate::clock::now_ms;
use crate::identity::Players;
use crate::table::ConnId;

/// How often every node reads the bans and mutes from the store again.
pub const REFRESH: Duration = Duration::from_secs(5);
/// A ban or mute lasts a year at most (longer: a ban for good).
pub const MAX_MINUTES: u32 = 525_600;
/// An address is banned for a week at most: addresses change hands.
pub const MAX_ADDRESS_MINUTES: u32 = 10_080;

/// A moderator's change to the bans and mutes, as every node applies it
/// (JSON on the cluster's subject).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// `until` `None`: for good.
    AccountBan {
        player_id: String,
        until: Option<Millis>,
    },
    AccountUnban {
        player_id: String,
    },
    AddressBan {
        address_hash: String,
        until: Millis,
    },
    AddressUnban {
        address_hash: String,
    },
    Mute {
        player_id: String,
        until: Millis,
    },
    Unmute {
        player_id: String,
    },
    /// The player has a new warning to be shown at their next `hello`.
    Warned {
        player_id: String,
    },
}

/// The bans and mutes in force on this node.
#[derive(Debug, Default)]
pub struct Sanctions {
    // A std mutex: held for a map lookup or update, never across an await.
    live: Mutex<Live>,
    /// Counts the changes applied: a refresh read while one came is not
    /// kept (it may predate the change).
    generation: AtomicU64,
    key: OnceLock<Vec<u8>>,
    broadcast: OnceLock<mpsc::UnboundedSender<Change>>,
}

#[derive(Debug, Default)]
struct Live {
    accounts: HashMap<String, Option<Millis>>,
    addresses: HashMap<String, Millis>,
    mutes: HashMap<String, Millis>,
    /// Players with warnings not yet acknowledged (or lately so): only
    /// their `hello` reads the store for them.
    warned: HashSet<String>,
    /// This node's open connections, by the address each came from. Kept
    /// under the same lock as the bans, so that a connection opening as its
    /// address is banned is either refused or cut, never missed.
    open: HashMap<ConnId, OpenConnection>,
}

#[derive(Debug)]
struct OpenConnection {
    address: IpAddr,
    cut: CancellationToken,
    until: Arc<OnceLock<Millis>>,
}

/// An open connection's place among those an address ban cuts: `cut`
/// fires when its address is banned; dropping the watch takes it out.
#[derive(Debug)]
pub struct AddressWatch {
    conn: ConnId,
    cut: CancellationToken,
    until: Arc<OnceLock<Millis>>,
    sanctions: Arc<Sanctions>,
}

impl AddressWatch {
    /// Fires when the connection's address is banned.
    pub fn cut(&self) -> CancellationToken {
        self.cut.clone()
    }

    /// The end of the ban that cut it, once it is cut.
    pub fn until(&self) -> Arc<OnceLock<Millis>> {
        self.until.clone()
    }
}

impl Drop for AddressWatch {
    fn drop(&mut self) {
        self.sanctions.lock().open.remove(&self.conn);
    }
}

impl Sanctions {
    /// Loads the address key from the store (making it on the first start).
    pub async fn load_key(&self, store: &dyn Store) -> Result<(), StoreError> {
        let key = address_key_of(store).await?;
        let _ = self.key.set(key);
        Ok(())
    }

    /// Cluster mode: this node's changes are sent on the returned channel,
    /// for the other nodes.
    pub fn broadcast_changes(&self) -> Option<mpsc::UnboundedReceiver<Change>> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.broadcast.set(sender).ok()?;
        Some(receiver)
    }

    /// Applies `change` here and (in a cluster) on every other node.
    pub fn publish(&self, change: Change) {
        self.apply(&change);
        if let Some(broadcast) = self.broadcast.get() {
            let _ = broadcast.send(change);
        }
    }

    /// Applies `change` on this node.
    pub fn apply(&self, change: &Change) {
        let mut live = self.lock();
        self.generation.fetch_add(1, Ordering::SeqCst);
        match change {
            Change::AccountBan { player_id, until } => {
                live.accounts.insert(player_id.clone(), *until);
            }
            Change::AccountUnban { player_id } => {
                live.accounts.remove(player_id);
            }
            Change::AddressBan { address_hash, until } => {
                live.addresses.insert(address_hash.clone(), *until);
                self.cut_address(&mut live, address_hash, *until);
            }
            Change::AddressUnban { address_hash } => {
                live.addresses.remove(address_hash);
            }
            Change::Mute { player_id, until } => {
                live.mutes.insert(player_id.clone(), *until);
            }
            Change::Unmute { player_id } => {
                live.mutes.remove(player_id);
            }
            Change::Warned { player_id } => {
                live.warned.insert(player_id.clone());
            }
        }
    }

    /// The changes applied so far: read before the store is, given to
    /// [`Sanctions::replace`] after.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Keeps `read` from the store as what is in force, unless a change came
    /// since `seen` (what was read may predate it). Returns the players
    /// banned now who were not before (banned from the command line, or by
    /// a message this node missed), with the end of each ban.
    pub fn replace(&self, seen: u64, read: LiveSanctions) -> Vec<(String, Option<Millis>)> {
        let mut live = self.lock();
        if self.generation.load(Ordering::SeqCst) != seen {
            return Vec::new();
        }
        let newly: Vec<(String, Option<Millis>)> = read
            .account_bans
            .iter()
            .filter(|(player, _)| !live.accounts.contains_key(player))
            .cloned()
            .collect();
        // Addresses banned from the command line (or by a message missed).
        for (hash, until) in &read.address_bans {
            if !live.addresses.contains_key(hash) {
                self.cut_address(&mut live, hash, *until);
            }
        }
        live.accounts = read.account_bans.into_iter().collect();
        live.addresses = read.address_bans.into_iter().collect();
        live.mutes = read.chat_mutes.into_iter().collect();
        live.warned = read.warned_players.into_iter().collect();
        newly
    }

    /// Watches a connection just opened from `address`: cut at once if the
    /// address is banned already (banned between the door and here).
    pub fn watch_address(self: &Arc<Self>, conn: ConnId, address: IpAddr) -> AddressWatch {
        let (cut, until) = (CancellationToken::new(), Arc::new(OnceLock::new()));
        let mut live = self.lock();
        // The common case, no address banned, hashes nothing.
        let banned = (!live.addresses.is_empty())
            .then(|| self.address_hash(address))
            .flatten()
            .and_then(|hash| live.addresses.get(&hash).copied());
        if let Some(end) = banned.filter(|end| *end > now_ms()) {
            let _ = until.set(end);
            cut.cancel();
        }
        let open = OpenConnection { address, cut: cut.clone(), until: until.clone() };
        live.open.insert(conn, open);
        AddressWatch { conn, cut, until, sanctions: self.clone() }
    }

    /// Cuts this node's connections from the address `hash` names, if the
    /// ban has not ended. Bans are rare: each open address is hashed then.
    fn cut_address(&self, live: &mut Live, hash: &str, until: Millis) {
        let Some(key) = self.key.get() else { return };
        if until <= now_ms() {
            return;
        }
        live.open.retain(|_, connection| {
            let cut = keyed_hash(key, connection.address) == hash;
            if cut {
                let _ = connection.until.set(until);
                connection.cut.cancel();
            }
            !cut
        });
    }

    /// The end of the player's ban in force (`Some(None)`: for good).
    pub fn banned(&self, player_id: &str) -> Option<Option<Millis>> {
        let until = *self.lock().accounts.get(player_id)?;
        until.is_none_or(|end| end > now_ms()).then_some(until)
    }

    /// The end of the ban in force on `address`'s /64 (or IPv4 address).
    pub fn address_banned(&self, address: IpAddr) -> Option<Millis> {
        // The common case, no address banned, hashes nothing.
        if self.lock().addresses.is_empty() {
            return None;
        }
        let hash = self.address_hash(address)?;
        let until = *self.lock().addresses.get(&hash)?;
        (until > now_ms()).then_some(until)
    }

    /// The end of the player's chat mute in force.
    pub fn muted(&self, player_id: &str) -> Option<Millis> {
        let until = *self.lock().mutes.get(player_id)?;
        (until > now_ms()).then_some(until)
    }

    /// Whether the player may have warnings to be shown.
    pub fn warned(&self, player_id: &str) -> bool {
        self.lock().warned.contains(player_id)
    }

    /// The keyed hash of `address`'s key (IPv6 by its /64); `None` before
    /// the key is loaded.
    pub fn address_hash(&self, address: IpAddr) -> Option<String> {
        Some(keyed_hash(self.key.get()?, address))
    }

    fn lock(&self) -> MutexGuard<'_, Live> {
        // A panic while holding this lock cannot leave the maps half-updated.
        self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Reads the sanctions from the store every [`REFRESH`] until `stop`.
pub async fn keep_fresh(players: Arc<Players>, stop: CancellationToken) {
    let mut every = tokio::time::interval(REFRESH);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            () = stop.cancelled() => return,
        }
        if let Err(error) = players.refresh_sanctions().await {
            tracing::warn!(%error, "bans and mutes not read again; kept as they were");
        }
    }
}

/// The store's address key, made now if it has none.
pub async fn address_key_of(store: &dyn Store) -> Result<Vec<u8>, StoreError> {
    let fresh: String = (0..2).map(|_| uuid::Uuid::new_v4().simple().to_string()).collect();
    let key = store.moderation_key("address", &fresh).await?;
    Ok(key.into_bytes())
}

/// An address as a moderator or the operator types it: IPv4, or IPv6 with
/// or without `/64`.
pub fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    text.strip_suffix("/64").unwrap_or(text).parse().ok()
}

/// HMAC-SHA256 of `address`'s key under `key`, its first 128 bits in hex.
pub fn keyed_hash(key: &[u8], address: IpAddr) -> String {
    // HMAC takes a key of any length.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else { return String::new() };
    mac.update(address_key(address).to_string().as_bytes());
    mac.finalize().into_bytes().iter().take(16).map(|byte| format!("{byte:02x}")).collect()
}

/// `until` for people: `banned until 2026-12-08T13:00:00Z`, or `banned`
/// (for good), after `what`.
pub fn until_text(what: &str, until: Option<Millis>) -> String {
    match until {
        Some(end) => format!("{what} until {}", rfc3339(end)),
        None => what.to_owned(),
    }
}

/// The moderation log's reason for something that lasts: when it ends
/// first (`until 2026-12-08T13:00:00Z: spam`, `for good: spam`).
pub fn lasting(until: Option<Millis>, reason: &str) -> String {
    let ends = until_text("", until);
    let ends = if ends.is_empty() { "for good".to_owned() } else { ends.trim().to_owned() };
    if reason.is_empty() { ends } else { format!("{ends}: {reason}") }
}

/// A time as RFC 3339 in UTC, to the second.
pub fn rfc3339(at: Millis) -> String {
    let seconds = at.div_euclid(1000);
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
}

/// Howard Hinnant's days-to-civil: the proleptic Gregorian date of a day
/// counted from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_734_800_000), "2026-12-08T13:00:00Z");
        assert_eq!(until_text("banned", None), "banned");
    }

    #[test]
    fn an_ipv6_64_hashes_as_one_and_the_key_matters() {
        let a: IpAddr = "2001:db8:1:2::1".parse().expect("an address");
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().expect("an address");
        let c: IpAddr = "2001:db8:1:3::1".parse().expect("an address");
        assert_eq!(keyed_hash(b"k", a), keyed_hash(b"k", b));
        assert_ne!(keyed_hash(b"k", a), keyed_hash(b"k", c));
        assert_ne!(keyed_hash(b"k", a), keyed_hash(b"other", a));
        assert_eq!(keyed_hash(b"k", a).len(), 32);
    }

    #[test]
    fn a_ban_holds_until_its_end_and_a_lift_ends_it() {
        let sanctions = Sanctions::default();
        let _ = sanctions.key.set(b"k".to_vec());
        let address: IpAddr = "192.0.2.7".parse().expect("an address");
        let hash = sanctions.address_hash(address).expect("keyed");
        sanctions
            .apply(&Change::AddressBan { address_hash: hash.clone(), until: now_ms() + 60_000 });
        sanctions.apply(&Change::AccountBan { player_id: "ann".into(), until: None });
        sanctions.apply(&Change::Mute { player_id: "bob".into(), until: now_ms() - 1 });
        assert!(sanctions.address_banned(address).is_some());
        assert_eq!(sanctions.banned("ann"), Some(None));
        assert_eq!(sanctions.muted("bob"), None, "an ended mute holds no more");
        sanctions.apply(&Change::AddressUnban { address_hash: hash });
        assert_eq!(sanctions.address_banned(address), None);
    }

    #[test]
    fn an_address_banned_cuts_its_open_connections_and_no_other() {
        let sanctions = Arc::new(Sanctions::default());
        let _ = sanctions.key.set(b"k".to_vec());
        let at = |text: &str| -> IpAddr { text.parse().expect("an address") };
        let first = sanctions.watch_address(1, at("2001:db8:1:2::1"));
        let same_64 = sanctions.watch_address(2, at("2001:db8:1:2::99"));
        let other = sanctions.watch_address(3, at("192.0.2.8"));
        let hash = sanctions.address_hash(at("2001:db8:1:2::5")).expect("keyed");
        let until = now_ms() + 60_000;
        sanctions.apply(&Change::AddressBan { address_hash: hash, until });
        assert!(first.cut().is_cancelled() && same_64.cut().is_cancelled());
        assert_eq!(first.until().get(), Some(&until), "the close says until when");
        assert!(!other.cut().is_cancelled());
        let late = sanctions.watch_address(4, at("2001:db8:1:2::7"));
        assert!(late.cut().is_cancelled(), "one opened after the ban is cut at once");

        // A ban read from the store (the command line's) cuts too.
        let seen = sanctions.generation();
        let read = LiveSanctions {
            address_bans: vec![(sanctions.address_hash(at("192.0.2.8")).expect("keyed"), until)],
            ..LiveSanctions::default()
        };
        sanctions.replace(seen, read);
        assert!(other.cut().is_cancelled());
        drop((first, same_64, other, late));
        assert!(sanctions.lock().open.is_empty(), "a dropped watch is taken out");
    }
}
