//! The TCP door: every accepted connection is counted before a byte of it
//! is read, per address (by [`address_key`]: IPv6 by its /64, as the
//! WebSocket limits count) and in all. A connection past either cap is
//! closed at once, so one address cannot hold the server's files with
//! silent sockets, and the accept limit stays under the open-file limit
//! (`admission::accept_limit`), leaving files for the database, the journal
//! and the logs.
//!
//! The count is held by the connection's socket ([`Entry`], dropped with it),
//! so a WebSocket, which lives on in the upgraded socket, keeps its place:
//! the per-address TCP cap is its WebSockets and its HTTP requests. It is
//! therefore never under `connections_per_address` + [`HTTP_PER_ADDRESS`].
//!
//! At the accept limit a newcomer still gets in if a connection that has
//! not sent a byte yet can make room: the oldest such is closed (it would
//! be at its header-read timeout anyway). Silent sockets from many
//! addresses therefore cannot keep out a health check or a player who
//! speaks; a connection that has spoken (a player's WebSocket) is never
//! closed for room. While the closed ones go, the count may pass the limit
//! by at most [`EVICTING_MAX`], taken from the files kept in reserve.
//!
//! Behind a trusted proxy the TCP peer is the proxy, whose connections carry
//! every client's: it is not counted per address (a cap would shut out all
//! its clients together), only in all. The proxy must cap connections per
//! client itself; the WebSocket limits still count each forwarded client.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use ipnet::IpNet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use tokio_util::sync::CancellationToken;

use crate::admission::{accept_limit, address_key};
use crate::client_address;
use crate::config::Limits;
use crate::metrics::Metrics;

/// TCP connections one address may hold beyond its WebSockets: a browser
/// opens a few for the page and the API besides its socket.
pub const HTTP_PER_ADDRESS: usize = 16;
/// How far past the accept limit the count may go while silent connections
/// closed to make room are going (a quarter of the files kept in reserve).
pub const EVICTING_MAX: usize = crate::admission::RESERVED_FILES / 4;

/// Why an accepted connection is closed unread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turned {
    /// Its address holds `tcp_connections_per_address` already.
    TooManyFromAddress,
    /// The server holds its accept limit.
    Full,
}

/// Open TCP connections, per address and in all. One per server.
#[derive(Debug)]
pub struct Door {
    /// 0: no limit per address.
    per_address_max: usize,
    max_open: usize,
    open: AtomicUsize,
    // A std mutex: held for one map operation, never across an await.
    per_address: Mutex<HashMap<IpAddr, usize>>,
    proxies: Vec<IpNet>,
    /// For `/metrics`: `open`, and the connections turned away.
    gauge: Gauge,
    turned_away: Counter,
    /// Connections in the order they came, for room at the limit: those
    /// that have spoken or gone are dropped as they are met.
    silent: Mutex<VecDeque<Weak<Heard>>>,
}

/// Whether a connection has sent a byte, and how to close it for room.
#[derive(Debug, Default)]
pub struct Heard {
    spoke: AtomicBool,
    close: CancellationToken,
}

impl Heard {
    /// The connection sent a byte: it is never closed for room.
    pub fn spoke(&self) {
        self.spoke.store(true, Ordering::Relaxed);
    }

    /// Cancelled when the connection is closed to make room.
    pub fn closing(&self) -> CancellationToken {
        self.close.clone()
    }
}

impl Door {
    /// The door for `limits`, under `open_files`, counted in `metrics`.
    pub fn new(
        limits: &Limits,
        trusted_proxies: &[IpNet],
        open_files: Option<u64>,
        metrics: &Metrics,
    ) -> Door {
        Door {
            per_address_max: per_address_cap(
                limits.tcp_connections_per_address,
                limits.connections_per_address,
            ),
            max_open: accept_limit(limits.max_tcp_connections, open_files),
            open: AtomicUsize::new(0),
            per_address: Mutex::default(),
            proxies: trusted_proxies.to_vec(),
            gauge: metrics.tcp_open.clone(),
            turned_away: metrics.tcp_turned_away.clone(),
            silent: Mutex::default(),
        }
    }

    /// The accept limit in force.
    pub fn max_open(&self) -> usize {
        self.max_open
    }

    /// The cap per address in force (0: none).
    pub fn per_address_max(&self) -> usize {
        self.per_address_max
    }

    /// Open TCP connections now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Counts a connection from `peer`, or says why it must close.
    pub fn enter(self: &Arc<Self>, peer: IpAddr) -> Result<Entry, Turned> {
        let entered = self.try_enter(peer);
        if entered.is_err() {
            self.turned_away.inc();
        }
        entered
    }

    fn try_enter(self: &Arc<Self>, peer: IpAddr) -> Result<Entry, Turned> {
        let counted = self.per_address_max > 0 && !client_address::is_trusted(&peer, &self.proxies);
        let key = counted.then(|| address_key(peer));
        let mut counts = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(key) = key
            && counts.get(&key).copied().unwrap_or(0) >= self.per_address_max
        {
            return Err(Turned::TooManyFromAddress);
        }
        // Under the lock, so no two connections pass the limit together.
        let open = self.open.load(Ordering::Relaxed);
        if open >= self.max_open && (open >= self.max_open + EVICTING_MAX || !self.make_room()) {
            return Err(Turned::Full);
        }
        if let Some(key) = key {
            *counts.entry(key).or_default() += 1;
        }
        self.open.fetch_add(1, Ordering::Relaxed);
        self.gauge.inc();
        let heard = Arc::new(Heard::default());
        self.note(&heard);
        Ok(Entry { key, door: self.clone(), heard })
    }

    /// Keeps `heard` in line for room; the line is pruned of those that
    /// spoke or went whenever it grows past twice the limit.
    fn note(&self, heard: &Arc<Heard>) {
        let mut silent = self.silent.lock().unwrap_or_else(|p| p.into_inner());
        if silent.len() >= self.max_open.saturating_mul(2).max(64) {
            silent.retain(|w| w.upgrade().is_some_and(|h| !h.spoke.load(Ordering::Relaxed)));
        }
        silent.push_back(Arc::downgrade(heard));
    }

    /// Closes the oldest connection that has not sent a byte; false if
    /// there is none.
    fn make_room(&self) -> bool {
        let mut silent = self.silent.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(oldest) = silent.pop_front() {
            let Some(heard) = oldest.upgrade() else { continue };
            if heard.spoke.load(Ordering::Relaxed) || heard.close.is_cancelled() {
                continue;
            }
            heard.close.cancel();
            return true;
        }
        false
    }
}

/// The cap per address: `configured` (0: none), never under the
/// WebSockets' cap plus [`HTTP_PER_ADDRESS`], whose connections it counts.
pub fn per_address_cap(configured: usize, websockets_per_address: usize) -> usize {
    if configured == 0 {
        return 0;
    }
    let floor = websockets_per_address.saturating_add(HTTP_PER_ADDRESS);
    if configured < floor {
        tracing::warn!(
            configured,
            floor,
            "limits.tcp_connections_per_address is under connections_per_address + {HTTP_PER_ADDRESS}: using {floor}"
        );
    }
    configured.max(floor)
}

/// One open TCP connection, counted; dropping it (with the socket) frees
/// its place.
#[derive(Debug)]
pub struct Entry {
    /// `None`: not counted per address (a trusted proxy, or no cap).
    key: Option<IpAddr>,
    door: Arc<Door>,
    heard: Arc<Heard>,
}

impl Entry {
    /// Whether the connection has spoken, and its closing for room.
    pub fn heard(&self) -> &Arc<Heard> {
        &self.heard
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            let mut counts = self.door.per_address.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(count) = counts.get_mut(&key) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    counts.remove(&key);
                }
            }
        }
        self.door.open.fetch_sub(1, Ordering::Relaxed);
        self.door.gauge.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    /// `entry`, having sent a byte: never closed for room.
    fn spoken(entry: Entry) -> Entry {
        entry.heard().spoke();
        entry
    }

    fn door_with(change: impl FnOnce(&mut Limits), proxies: &[&str]) -> Arc<Door> {
        let mut limits = Limits { connections_per_address: 2, ..Limits::default() };
        change(&mut limits);
        let proxies: Vec<IpNet> = proxies.iter().map(|p| p.parse().expect("a network")).collect();
        Arc::new(Door::new(&limits, &proxies, Some(100_000), &Metrics::default()))
    }

    #[test]
    fn connections_count_per_address_and_in_all() {
        let door = door_with(
            |l| {
                l.tcp_connections_per_address = 5;
                l.max_tcp_connections = 30;
            },
            &[],
        );
        assert_eq!(door.per_address_max(), 2 + HTTP_PER_ADDRESS, "raised to the floor");
        let (a, b) = (ip("127.3.0.1"), ip("127.3.0.2"));
        let mut held: Vec<Entry> =
            (0..door.per_address_max()).map(|_| spoken(door.enter(a).expect("within"))).collect();
        assert_eq!(door.enter(a).err(), Some(Turned::TooManyFromAddress));
        let from_b: Vec<Entry> =
            (0..30 - held.len()).map(|_| spoken(door.enter(b).expect("b"))).collect();
        assert_eq!(door.open(), 30);
        assert_eq!(door.enter(ip("127.3.0.3")).err(), Some(Turned::Full));
        held.pop();
        assert!(door.enter(ip("127.3.0.3")).is_ok(), "a closed connection frees its place");
        drop(from_b);
        assert_eq!(door.open(), held.len());
        assert_eq!(door.gauge.get(), held.len() as i64, "the gauge follows");
        assert_eq!(door.turned_away.get(), 2, "each closed connection counted");
        // An IPv6 /64 is one address.
        let door = door_with(|_| {}, &[]);
        let _held: Vec<Entry> = (0..door.per_address_max())
            .map(|n| door.enter(ip(&format!("2001:db8::{n:x}"))).expect("within"))
            .collect();
        assert_eq!(door.enter(ip("2001:db8::ffff")).err(), Some(Turned::TooManyFromAddress));
        assert!(door.enter(ip("2001:db8:0:1::1")).is_ok(), "another /64");
    }

    #[test]
    fn a_trusted_proxy_is_counted_in_all_only_and_zero_is_no_limit() {
        let door = door_with(|l| l.max_tcp_connections = 100, &["10.0.0.1/32"]);
        let held: Vec<Entry> =
            (0..100).map(|_| spoken(door.enter(ip("10.0.0.1")).expect("a proxy"))).collect();
        assert_eq!(door.enter(ip("10.0.0.1")).err(), Some(Turned::Full));
        drop(held);
        let door = door_with(|l| l.tcp_connections_per_address = 0, &[]);
        let _held: Vec<Entry> =
            (0..200).map(|_| door.enter(ip("127.3.0.1")).expect("no cap")).collect();
    }

    #[test]
    fn at_the_limit_the_oldest_silent_connection_makes_room() {
        let door = door_with(|l| l.max_tcp_connections = 3, &[]);
        let address = |n: u8| IpAddr::from([127, 4, 0, n]);
        let first = door.enter(address(1)).expect("room");
        let spoke = spoken(door.enter(address(2)).expect("room"));
        let third = door.enter(address(3)).expect("room");
        // Full: the oldest that has not spoken is closed, the newcomer let in.
        let newcomer = spoken(door.enter(address(4)).expect("room made"));
        assert!(first.heard().closing().is_cancelled(), "the oldest silent one");
        assert!(!spoke.heard().closing().is_cancelled() && !third.heard().closing().is_cancelled());
        assert_eq!(door.open(), 4, "past the limit while the closed one goes");
        drop(first);
        // The next silent one goes for the next newcomer; then nobody is left to go.
        let _fifth = spoken(door.enter(address(5)).expect("room made"));
        assert!(third.heard().closing().is_cancelled());
        drop(third);
        assert_eq!(door.enter(address(6)).err(), Some(Turned::Full), "all have spoken");
        drop((spoke, newcomer));
    }
}
