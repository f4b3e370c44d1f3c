//! Who may come in: WebSocket connections per address and in all, a short
//! penalty for an address whose connection was just closed for abuse, and
//! new guests per address.
//!
//! Everything here is keyed by [`address_key`]: an IPv4 address as it is,
//! an IPv6 address by its /64 prefix (one subscriber's network, which holds
//! more addresses than anyone could count against a limit one by one).
//!
//! **The penalty box.** A connection closed for flooding (1008) or for a
//! frame past the hard size cap (1009) puts its address in the box for
//! `limits.abuse_penalty_ms`: every new request from it, upgrades included,
//! is refused with `429 abuse_penalty` and a `Retry-After`, while the
//! address's other connections carry on. Only the address of a connection
//! that abused is boxed, and only for what that connection did: a well-behaved
//! client never gets there, so many clients on one address (the load
//! generator's, the tests', a household's) are not hurt by the penalty
//! unless one of them floods. The box holds at most [`PENALTY_ADDRESSES`]
//! addresses; past that, the one whose penalty ends first makes room. A
//! trusted proxy's own address is never boxed: every client behind it
//! would be shut out with it (its clients count by their own addresses).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ipnet::IpNet;

use crate::client_address;
use crate::config::Limits;

/// Addresses the penalty box holds at most (about 50 bytes each).
pub const PENALTY_ADDRESSES: usize = 10_000;
/// Keys the guest limiter holds before it drops those long refilled.
const GUEST_LIMITER_KEYS: usize = 10_000;
/// Open files kept free of connections: the database (SQLite's files, or
/// PostgreSQL's pool), the journal, NATS, the listener and the logs.
pub const RESERVED_FILES: usize = 256;
/// TCP connections kept free of WebSockets when their cap is automatic, so
/// that plain HTTP requests (the health checks, the API) find room: this
/// many, or half of a smaller accept limit.
pub const HTTP_ROOM: usize = 256;
/// Used when the open-file limit cannot be read (not Linux).
const FALLBACK_CONNECTIONS: usize = 10_000;

/// The key an address counts under: IPv4 as it is (an IPv4-mapped IPv6
/// address too), IPv6 by its /64 prefix.
pub fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        },
    }
}

/// Why a connection was not let in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The address is in the penalty box for this much longer.
    Penalized(Duration),
    /// The address holds `connections_per_address` already.
    TooManyFromAddress,
    /// The server holds its cap of connections.
    ServerFull,
}

/// The server's door. Cheap to share: one per server, behind an `Arc`.
#[derive(Debug)]
pub struct Admission {
    per_address_max: usize,
    max_connections: usize,
    penalty: Duration,
    /// Open connections in all; never past `max_connections`.
    open: AtomicUsize,
    // std mutexes: each held for one map operation, never across an await.
    per_address: Mutex<HashMap<IpAddr, usize>>,
    boxed: Mutex<PenaltyBox>,
    guests: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// The trusted proxies (`trusted_proxies`), never boxed.
    proxies: Vec<IpNet>,
}

impl Admission {
    pub fn new(limits: &Limits, trusted_proxies: &[IpNet]) -> Admission {
        let guests = NonZeroU32::new(limits.guests_per_minute)
            .map(|per_minute| RateLimiter::keyed(Quota::per_minute(per_minute)));
        Admission {
            per_address_max: limits.connections_per_address,
            max_connections: connection_cap(
                limits.max_connections,
                accept_limit(limits.max_tcp_connections, open_file_limit()),
            ),
            penalty: Duration::from_millis(limits.abuse_penalty_ms),
            open: AtomicUsize::new(0),
            per_address: Mutex::default(),
            boxed: Mutex::new(PenaltyBox::new(PENALTY_ADDRESSES)),
            guests,
            proxies: trusted_proxies.to_vec(),
        }
    }

    /// The cap on open connections in force.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// How long `address` is still refused for, if it is in the penalty box
    /// (never a trusted proxy, though a neighbour in its IPv6 /64 be boxed).
    pub fn penalized(&self, address: IpAddr) -> Option<Duration> {
        if client_address::is_trusted(&address, &self.proxies) {
            return None;
        }
        let mut boxed = self.boxed.lock().unwrap_or_else(|p| p.into_inner());
        boxed.remaining(address_key(address), Instant::now())
    }

    /// Boxes `address`: its connection was closed for abuse. Not a trusted
    /// proxy's own address, which would shut out every client behind it.
    pub fn penalize(&self, address: IpAddr) {
        if self.penalty.is_zero() || client_address::is_trusted(&address, &self.proxies) {
            return;
        }
        let now = Instant::now();
        let mut boxed = self.boxed.lock().unwrap_or_else(|p| p.into_inner());
        boxed.insert(address_key(address), now + self.penalty, now);
    }

    /// Counts a connection from `address`, or says why it may not open.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> Result<Slot, Refused> {
        if let Some(remaining) = self.penalized(address) {
            return Err(Refused::Penalized(remaining));
        }
        let key = address_key(address);
        let mut counts = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(key).or_default();
        if *count >= self.per_address_max {
            if *count == 0 {
                counts.remove(&key);
            }
            return Err(Refused::TooManyFromAddress);
        }
        // Under the address lock, so no two admissions pass the cap together.
        if self.open.load(Ordering::Relaxed) >= self.max_connections {
            if *count == 0 {
                counts.remove(&key);
            }
            return Err(Refused::ServerFull);
        }
        *count += 1;
        self.open.fetch_add(1, Ordering::Relaxed);
        Ok(Slot { key, admission: self.clone() })
    }

    /// Whether `address` may register one more guest now; if not, how long
    /// until it may.
    pub fn new_guest(&self, address: IpAddr) -> Result<(), Duration> {
        let Some(guests) = &self.guests else { return Ok(()) };
        if guests.len() > GUEST_LIMITER_KEYS {
            guests.retain_recent();
        }
        guests.check_key(&address_key(address)).map_err(|not_until| {
            let now = governor::clock::Clock::now(&governor::clock::DefaultClock::default());
            not_until.wait_time_from(now)
        })
    }
}

/// One open connection, counted for its address and in all; dropping it
/// frees both.
#[derive(Debug)]
pub struct Slot {
    key: IpAddr,
    admission: Arc<Admission>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.admission.per_address.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
        self.admission.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The cap on open TCP connections (the accept limit): `configured` (0:
/// automatic), never past the open-file limit less [`RESERVED_FILES`], so
/// that the database, the journal, NATS and the logs always find a file.
pub fn accept_limit(configured: usize, open_files: Option<u64>) -> usize {
    let ceiling = match open_files {
        Some(limit) => usize::try_from(limit).unwrap_or(usize::MAX).saturating_sub(RESERVED_FILES),
        None => FALLBACK_CONNECTIONS,
    };
    let cap = if configured == 0 { ceiling } else { configured.min(ceiling) };
    if configured > cap {
        tracing::warn!(
            configured,
            cap,
            "limits.max_tcp_connections is past the open-file limit less {RESERVED_FILES}: using {cap} (raise ulimit -n for more)"
        );
    }
    cap.max(1)
}

/// The cap on open WebSocket connections: `configured` (0: automatic),
/// never past `accept_limit` less [`HTTP_ROOM`] (or half of it), so that
/// WebSockets never take the room of plain HTTP requests.
pub fn connection_cap(configured: usize, accept_limit: usize) -> usize {
    let ceiling = accept_limit - HTTP_ROOM.min(accept_limit / 2);
    let cap = if configured == 0 { ceiling } else { configured.min(ceiling) };
    if configured > cap {
        tracing::warn!(
            configured,
            cap,
            "limits.max_connections is past the TCP accept limit less room for HTTP: using {cap}"
        );
    }
    cap.max(1)
}

/// The process's open-file limit (the soft one, `RLIMIT_NOFILE`), from
/// `/proc/self/limits`.
pub fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_open_file_limit(&limits)
}

/// "Max open files  20000  20000  files": the soft limit; `None` if unlimited or absent.
fn parse_open_file_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|line| line.starts_with("Max open files"))?;
    line.trim_start_matches("Max open files").split_whitespace().next()?.parse().ok()
}

/// Addresses refused until a moment each, at most `capacity` of them.
#[derive(Debug)]
struct PenaltyBox {
    until: HashMap<IpAddr, Instant>,
    capacity: usize,
}

impl PenaltyBox {
    fn new(capacity: usize) -> PenaltyBox {
        PenaltyBox { until: HashMap::new(), capacity: capacity.max(1) }
    }

    /// How long `key` is still refused for at `now`; an expired entry goes.
    fn remaining(&mut self, key: IpAddr, now: Instant) -> Option<Duration> {
        let until = *self.until.get(&key)?;
        if until <= now {
            self.until.remove(&key);
            return None;
        }
        Some(until - now)
    }

    /// Refuses `key` until `until` (or later, if it already was); `now` to
    /// clear out expired entries when full.
    fn insert(&mut self, key: IpAddr, until: Instant, now: Instant) {
        if !self.until.contains_key(&key) && self.until.len() >= self.capacity {
            self.until.retain(|_, end| *end > now);
            if self.until.len() >= self.capacity {
                // Still full of live penalties: the one ending first makes room.
                let first = self.until.iter().min_by_key(|(_, end)| **end).map(|(key, _)| *key);
                if let Some(first) = first {
                    self.until.remove(&first);
                }
            }
        }
        let end = self.until.entry(key).or_insert(until);
        *end = (*end).max(until);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.until.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn ipv6_counts_by_its_64_prefix_and_mapped_ipv4_as_ipv4() {
        assert_eq!(address_key(ip("203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(address_key(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(address_key(ip("2001:db8:1:2:ffff:1:2:3")), ip("2001:db8:1:2::"));
        assert_ne!(address_key(ip("2001:db8:1:3::1")), ip("2001:db8:1:2::"));
        assert_eq!(address_key(ip("::ffff:198.51.100.4")), ip("198.51.100.4"));
    }

    #[test]
    fn a_penalty_expires() {
        let mut boxed = PenaltyBox::new(4);
        let now = Instant::now();
        let (a, b) = (ip("127.2.0.1"), ip("127.2.0.2"));
        boxed.insert(a, now + Duration::from_secs(10), now);
        assert_eq!(boxed.remaining(a, now), Some(Duration::from_secs(10)));
        assert_eq!(boxed.remaining(a, now + Duration::from_secs(4)), Some(Duration::from_secs(6)));
        assert_eq!(boxed.remaining(b, now), None, "only the boxed address");
        assert_eq!(boxed.remaining(a, now + Duration::from_secs(10)), None);
        assert_eq!(boxed.len(), 0, "an expired entry is dropped");
        // Boxed again while boxed: the later end holds.
        boxed.insert(a, now + Duration::from_secs(10), now);
        boxed.insert(a, now + Duration::from_secs(5), now);
        assert_eq!(boxed.remaining(a, now), Some(Duration::from_secs(10)));
    }

    #[test]
    fn the_penalty_box_is_bounded() {
        let mut boxed = PenaltyBox::new(3);
        let now = Instant::now();
        let address = |n: u8| IpAddr::from([127, 2, 0, n]);
        for n in 1..=3 {
            boxed.insert(address(n), now + Duration::from_secs(u64::from(n) * 10), now);
        }
        // Full of live penalties: the one ending first (1) makes room.
        boxed.insert(address(4), now + Duration::from_secs(60), now);
        assert_eq!(boxed.len(), 3);
        assert_eq!(boxed.remaining(address(1), now), None);
        assert!(boxed.remaining(address(4), now).is_some());
        // Expired ones go first, before any live one.
        let later = now + Duration::from_secs(1_000);
        boxed.insert(address(5), later + Duration::from_secs(10), later);
        assert_eq!(boxed.len(), 1, "the three expired entries were dropped");
        assert!(boxed.remaining(address(5), later).is_some());
    }

    #[test]
    fn the_caps_stay_under_the_open_file_limit() {
        let accepted = 20_000 - RESERVED_FILES;
        assert_eq!(accept_limit(0, Some(20_000)), accepted);
        assert_eq!(accept_limit(5_000, Some(20_000)), 5_000);
        assert_eq!(accept_limit(100_000, Some(20_000)), accepted);
        assert_eq!(accept_limit(0, None), FALLBACK_CONNECTIONS);
        assert_eq!(accept_limit(0, Some(100)), 1, "a tiny limit still lets one in");
        // WebSockets leave room for plain HTTP under the accept limit.
        assert_eq!(connection_cap(0, accepted), accepted - HTTP_ROOM);
        assert_eq!(connection_cap(5_000, accepted), 5_000);
        assert_eq!(connection_cap(100_000, accepted), accepted - HTTP_ROOM);
        assert_eq!(connection_cap(0, 256), 128, "half of a small accept limit");
        assert_eq!(connection_cap(0, 1), 1);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max open files            20000                524288               files     \n";
        assert_eq!(parse_open_file_limit(limits), Some(20_000));
        assert_eq!(parse_open_file_limit("Max open files  unlimited  unlimited  files"), None);
    }

    fn limits(change: impl FnOnce(&mut Limits)) -> Arc<Admission> {
        let mut limits = Limits::default();
        change(&mut limits);
        Arc::new(Admission::new(&limits, &[]))
    }

    #[test]
    fn connections_count_per_address_and_in_all() {
        let door = limits(|l| {
            l.connections_per_address = 2;
            l.max_connections = 3;
        });
        let (a, b) = (ip("127.1.0.1"), ip("127.1.0.2"));
        let a1 = door.admit(a).expect("first");
        let _a2 = door.admit(a).expect("second");
        assert_eq!(door.admit(a).err(), Some(Refused::TooManyFromAddress));
        let _b1 = door.admit(b).expect("another address");
        assert_eq!(door.admit(b).err(), Some(Refused::ServerFull));
        drop(a1);
        assert!(door.admit(b).is_ok(), "a closed connection frees its place");
        // An IPv6 /64 is one address.
        let door = limits(|l| l.connections_per_address = 1);
        let _one = door.admit(ip("2001:db8::1")).expect("first");
        assert_eq!(door.admit(ip("2001:db8::2")).err(), Some(Refused::TooManyFromAddress));
    }

    #[test]
    fn a_boxed_address_is_refused_and_others_are_not() {
        let door = limits(|l| l.abuse_penalty_ms = 60_000);
        let (abuser, other) = (ip("127.2.0.1"), ip("127.2.0.2"));
        let _held = door.admit(abuser).expect("before");
        door.penalize(abuser);
        match door.admit(abuser) {
            Err(Refused::Penalized(left)) => assert!(left > Duration::from_secs(59), "{left:?}"),
            other => panic!("expected a penalty, got {other:?}"),
        }
        assert!(door.admit(other).is_ok());
        // Off at 0.
        let door = limits(|l| l.abuse_penalty_ms = 0);
        door.penalize(abuser);
        assert!(door.admit(abuser).is_ok());
    }

    #[test]
    fn a_trusted_proxys_own_address_is_never_boxed() {
        let settings = Limits { abuse_penalty_ms: 60_000, ..Limits::default() };
        let proxies: Vec<IpNet> = ["10.0.0.0/24", "2001:db8::1/128"]
            .iter()
            .map(|net| net.parse().expect("a network"))
            .collect();
        let door = Arc::new(Admission::new(&settings, &proxies));
        for proxy in ["10.0.0.1", "::ffff:10.0.0.2", "2001:db8::1"] {
            door.penalize(ip(proxy));
            assert_eq!(door.penalized(ip(proxy)), None, "{proxy}");
            assert!(door.admit(ip(proxy)).is_ok(), "{proxy}");
        }
        // A client next to it is boxed as ever, and the proxy is not boxed
        // with it even where they share an IPv6 /64.
        door.penalize(ip("10.0.1.1"));
        assert!(door.penalized(ip("10.0.1.1")).is_some());
        door.penalize(ip("2001:db8::5"));
        assert!(door.penalized(ip("2001:db8::5")).is_some());
        assert_eq!(door.penalized(ip("2001:db8::1")), None);
    }

    #[test]
    fn new_guests_are_limited_per_address() {
        let door = limits(|l| l.guests_per_minute = 3);
        let (a, b) = (ip("127.1.0.1"), ip("127.1.0.2"));
        for _ in 0..3 {
            door.new_guest(a).expect("within the limit");
        }
        let wait = door.new_guest(a).expect_err("the fourth in a minute");
        assert!(wait > Duration::from_secs(15) && wait <= Duration::from_secs(20), "{wait:?}");
        assert!(door.new_guest(b).is_ok(), "another address has its own");
        // Off at 0.
        let door = limits(|l| l.guests_per_minute = 0);
        for _ in 0..100 {
            door.new_guest(a).expect("no limit");
        }
    }
}
