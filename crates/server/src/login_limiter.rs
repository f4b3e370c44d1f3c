//! How often an address may guess passwords: wrong ones are counted, right
//! ones never refused for what others did (docs/security.md, "Guessing
//! passwords").
//!
//! Every attempt that costs a hash counts as a failure when it starts and
//! is forgiven when the password proves right (a claim: when it succeeds).
//! Counting at the start means that attempts sent at once cannot outrun
//! the count, and an attempt whose request is dropped mid-hash stays
//! counted. Two counts, both keyed by [`address_key`] (IPv4 as it is, IPv6
//! by its /64):
//!
//! - per name and address: `login_free_failures` free, then that address
//!   waits 1 s before its next try at that name, 2 s after one more wrong
//!   one, 4 s … (at most `login_backoff_max_seconds`);
//! - per address, across all names: a budget of `login_failures_per_address`
//!   an hour (the burst too), which stops one address trying a few
//!   passwords on each of many names;
//! - per name, across all addresses: `login_failures_per_account` free
//!   (forgotten after an hour without one), then every address that never
//!   logged in to that account waits 1 s, 2 s, 4 s … (at most
//!   `login_backoff_max_seconds`), which slows a guesser spread over many
//!   addresses. An address that has logged in to the account is exempt
//!   (and its own failures are not counted here), so the owner is never
//!   slowed on a device he used before, and on a new one waits at most the
//!   capped delay.
//!
//! The first two counts are never touched by another address, so a right
//! password from an address that has not failed is never refused; the
//! third never touches an address that logged in before. Every table is
//! bounded ([`LIMITER_KEYS`] entries each).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::admission::address_key;
use crate::config::AccountSettings;

/// Entries each table holds at most (a name-and-address entry is about
/// 100 bytes, an address's about 50).
pub const LIMITER_KEYS: usize = 10_000;
/// The first wait after the free failures; each failure after doubles it.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// A name-and-address count left alone this long after its wait starts
/// over from nothing.
const FORGET_AFTER: Duration = Duration::from_secs(24 * 3600);
/// The window in which `login_failures_per_address` refill.
const BUDGET_WINDOW: Duration = Duration::from_secs(3600);

/// An attempt under way: forgive it if the password was right.
#[derive(Debug)]
#[must_use = "an attempt is forgiven only by `LoginLimiter::succeeded`"]
pub struct Attempt {
    address: IpAddr,
    name: Option<String>,
    /// Whether it counts against the name's budget across addresses.
    counted_for_name: bool,
}

/// The log-in limiter, one per server.
#[derive(Debug)]
pub struct LoginLimiter {
    free_failures: u32,
    max_backoff: Duration,
    /// Failures an address may make in [`BUDGET_WINDOW`]; 0: no budget.
    budget: u32,
    /// Failures a name may take from addresses that never logged in to it
    /// before they wait; 0: no budget.
    account_budget: u32,
    // A std mutex: held for a few map operations, never across an await.
    tables: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    pairs: HashMap<(String, IpAddr), Backoff>,
    budgets: HashMap<IpAddr, Budget>,
    /// Failures at each name from addresses that never logged in to it.
    names: HashMap<String, NameFailures>,
    /// The addresses that have logged in to each name, and when last.
    known: HashMap<(String, IpAddr), Instant>,
}

/// One name's failures from addresses new to it.
#[derive(Clone, Copy, Debug)]
struct NameFailures {
    failures: u32,
    /// The last one: an hour later they are forgotten.
    last: Instant,
    /// No attempt from an address new to the name before this.
    not_before: Instant,
}

/// One address's failures at one name.
#[derive(Clone, Copy, Debug)]
struct Backoff {
    failures: u32,
    /// No attempt before this.
    not_before: Instant,
}

/// One address's failures left to spend: a bucket refilled evenly over
/// [`BUDGET_WINDOW`].
#[derive(Clone, Copy, Debug)]
struct Budget {
    left: f64,
    at: Instant,
}

impl LoginLimiter {
    pub fn new(settings: &AccountSettings) -> LoginLimiter {
        LoginLimiter {
            free_failures: settings.login_free_failures,
            max_backoff: Duration::from_secs(settings.login_backoff_max_seconds),
            budget: settings.login_failures_per_address,
            account_budget: settings.login_failures_per_account,
            tables: Mutex::default(),
        }
    }

    /// Starts an attempt from `address`, at the account `name` (a name key)
    /// or, for a claim, at none; counted as failed until
    /// [`LoginLimiter::succeeded`]. Refused with the time to wait if this
    /// address must wait for this name, or has spent its budget.
    pub fn begin(
        &self,
        address: IpAddr,
        name: Option<&str>,
        now: Instant,
    ) -> Result<Attempt, Duration> {
        let address = address_key(address);
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        let pair = name.map(|name| (name.to_owned(), address));
        if let Some(pair) = &pair
            && let Some(backoff) = tables.pairs.get(pair)
            && backoff.not_before > now
        {
            return Err(backoff.not_before - now);
        }
        // The name's count across addresses, for an address new to it.
        let counted_for_name = self.account_budget > 0
            && pair.as_ref().is_some_and(|pair| !tables.known.contains_key(pair));
        let name_failures = match name.and_then(|name| tables.names.get(name)) {
            Some(kept) if counted_for_name && now < kept.last + BUDGET_WINDOW => Some(*kept),
            _ => None,
        };
        if let Some(kept) = name_failures
            && kept.not_before > now
        {
            return Err(kept.not_before - now);
        }
        if self.budget > 0 {
            let budget = self.refilled(tables.budgets.get(&address).copied(), now);
            if budget.left < 1.0 {
                return Err(self.refill_time(1.0 - budget.left));
            }
            tables.set_budget(address, Budget { left: budget.left - 1.0, at: now }, self.budget);
        }
        if let Some(pair) = pair {
            let failures = match tables.pairs.get(&pair) {
                Some(backoff) if now < backoff.not_before + FORGET_AFTER => backoff.failures,
                _ => 0,
            } + 1;
            let not_before = now + self.backoff(failures);
            tables.set_pair(pair, Backoff { failures, not_before }, now);
        }
        if counted_for_name && let Some(name) = name {
            let failures = name_failures.map_or(0, |kept| kept.failures) + 1;
            let wait = failures
                .checked_sub(self.account_budget)
                .map_or(Duration::ZERO, |over| self.doubling(over));
            let kept = NameFailures { failures, last: now, not_before: now + wait };
            tables.set_name(name, kept, now);
        }
        Ok(Attempt { address, name: name.map(str::to_owned), counted_for_name })
    }

    /// The attempt's password was right: its name starts over for this
    /// address, and its failure goes back to the address's budget.
    pub fn succeeded(&self, attempt: Attempt, now: Instant) {
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(name) = attempt.name {
            if attempt.counted_for_name
                && let Some(kept) = tables.names.get_mut(&name)
            {
                kept.failures = kept.failures.saturating_sub(1);
            }
            let pair = (name, attempt.address);
            tables.pairs.remove(&pair);
            // From now on this address is the owner's: never slowed for what others do.
            tables.set_known(pair, now);
        }
        if let Some(budget) = tables.budgets.get(&attempt.address).copied() {
            let budget = self.refilled(Some(budget), now);
            let left = (budget.left + 1.0).min(f64::from(self.budget));
            tables.set_budget(attempt.address, Budget { left, at: now }, self.budget);
        }
    }

    /// The wait after `failures` failures in a row: none while they are
    /// free, then 1 s, doubling with each one after.
    fn backoff(&self, failures: u32) -> Duration {
        let Some(over) = failures.checked_sub(self.free_failures) else {
            return Duration::ZERO;
        };
        self.doubling(over)
    }

    /// `address` has just claimed `name` (a name key): it is the owner's,
    /// never slowed for what other addresses do at that name.
    pub fn claimed(&self, address: IpAddr, name: &str, now: Instant) {
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        tables.set_known((name.to_owned(), address_key(address)), now);
    }

    /// 1 s, doubled `over` times, at most the longest wait.
    fn doubling(&self, over: u32) -> Duration {
        FIRST_BACKOFF.saturating_mul(1 << over.min(31)).min(self.max_backoff)
    }

    /// `budget` (a full one if none) refilled up to `now`.
    fn refilled(&self, budget: Option<Budget>, now: Instant) -> Budget {
        let full = f64::from(self.budget);
        let Some(budget) = budget else { return Budget { left: full, at: now } };
        let gained = now.saturating_duration_since(budget.at).as_secs_f64() * self.refill_rate();
        Budget { left: (budget.left + gained).min(full), at: now }
    }

    /// Failures regained a second.
    fn refill_rate(&self) -> f64 {
        f64::from(self.budget) / BUDGET_WINDOW.as_secs_f64()
    }

    /// How long until `missing` failures are regained.
    fn refill_time(&self, missing: f64) -> Duration {
        Duration::from_secs_f64(missing / self.refill_rate())
    }

    #[cfg(test)]
    fn sizes(&self) -> (usize, usize) {
        let tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        (tables.pairs.len(), tables.budgets.len())
    }
}

impl Tables {
    /// Keeps `kept` for `name`, making room first if the table is full:
    /// counts an hour old go, then the one left alone longest.
    fn set_name(&mut self, name: &str, kept: NameFailures, now: Instant) {
        if !self.names.contains_key(name) && self.names.len() >= LIMITER_KEYS {
            self.names.retain(|_, old| now < old.last + BUDGET_WINDOW);
            if self.names.len() >= LIMITER_KEYS {
                let oldest = self.names.iter().min_by_key(|(_, old)| old.last).map(|(k, _)| k);
                if let Some(oldest) = oldest.cloned() {
                    self.names.remove(&oldest);
                }
            }
        }
        self.names.insert(name.to_owned(), kept);
    }

    /// Notes that `pair`'s address logged in to its name, making room
    /// first if the table is full: the log-in longest ago goes.
    fn set_known(&mut self, pair: (String, IpAddr), now: Instant) {
        if !self.known.contains_key(&pair) && self.known.len() >= LIMITER_KEYS {
            let oldest = self.known.iter().min_by_key(|(_, at)| **at).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.known.remove(&oldest);
            }
        }
        self.known.insert(pair, now);
    }

    /// Keeps `backoff` for `pair`, making room first if the table is full:
    /// counts long forgotten go, then the one whose wait ended longest ago.
    fn set_pair(&mut self, pair: (String, IpAddr), backoff: Backoff, now: Instant) {
        if !self.pairs.contains_key(&pair) && self.pairs.len() >= LIMITER_KEYS {
            self.pairs.retain(|_, kept| now < kept.not_before + FORGET_AFTER);
            if self.pairs.len() >= LIMITER_KEYS {
                let oldest =
                    self.pairs.iter().min_by_key(|(_, kept)| kept.not_before).map(|(k, _)| k);
                if let Some(oldest) = oldest.cloned() {
                    self.pairs.remove(&oldest);
                }
            }
        }
        self.pairs.insert(pair, backoff);
    }

    /// Keeps `budget` for `address` (or drops it, once full again: the
    /// same as none), making room first if the table is full: the fullest
    /// budget goes, as it is the nearest to none.
    fn set_budget(&mut self, address: IpAddr, budget: Budget, full: u32) {
        if budget.left >= f64::from(full) {
            self.budgets.remove(&address);
            return;
        }
        if !self.budgets.contains_key(&address) && self.budgets.len() >= LIMITER_KEYS {
            let fullest = self
                .budgets
                .iter()
                .max_by(|(_, a), (_, b)| a.left.total_cmp(&b.left))
                .map(|(key, _)| *key);
            if let Some(fullest) = fullest {
                self.budgets.remove(&fullest);
            }
        }
        self.budgets.insert(address, budget);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn limiter(change: impl FnOnce(&mut AccountSettings)) -> LoginLimiter {
        let mut settings = AccountSettings::default();
        change(&mut settings);
        LoginLimiter::new(&settings)
    }

    /// `count` failed attempts at `name` from `address` at `now`.
    fn fail(limiter: &LoginLimiter, address: &str, name: &str, count: usize, now: Instant) {
        for n in 0..count {
            let attempt = limiter.begin(ip(address), Some(name), now);
            assert!(attempt.is_ok(), "attempt {n} from {address} at {name}: {attempt:?}");
        }
    }

    /// One name guessed from many addresses, a few wrong passwords each:
    /// past the name's budget, each address new to it waits longer and
    /// longer, while the owner's address is never slowed and a new device
    /// of his waits at most the capped delay.
    #[test]
    fn a_name_guessed_from_many_addresses_slows_down_except_for_its_owner() {
        let limiter = limiter(|s| {
            s.login_failures_per_account = 3;
            s.login_failures_per_address = 0;
            s.login_backoff_max_seconds = 4;
        });
        let mut now = Instant::now();
        let owner = "192.0.2.7";
        let attempt = limiter.begin(ip(owner), Some("ann"), now).expect("a first log-in");
        limiter.succeeded(attempt, now);
        for n in 1..=3 {
            fail(&limiter, &format!("198.51.100.{n}"), "ann", 1, now);
        }
        let mut waits = Vec::new();
        for n in 4..=8 {
            let guesser = format!("198.51.100.{n}");
            let wait = limiter.begin(ip(&guesser), Some("ann"), now).expect_err("must wait");
            waits.push(wait.as_secs());
            // The owner, meanwhile, logs in at once, wrong password or right.
            let typo = limiter.begin(ip(owner), Some("ann"), now).expect("the owner is exempt");
            drop(typo);
            let right = limiter.begin(ip(owner), Some("ann"), now).expect("the owner is exempt");
            limiter.succeeded(right, now);
            now += wait;
            fail(&limiter, &guesser, "ann", 1, now);
        }
        assert_eq!(waits, [1, 2, 4, 4, 4], "doubling, capped");
        // Another name is not slowed; a new device of the owner's waits at
        // most the cap; an hour without failures forgets them.
        fail(&limiter, "198.51.100.9", "bob", 1, now);
        let new_device = limiter.begin(ip("203.0.113.1"), Some("ann"), now).expect_err("waits");
        assert!(new_device <= Duration::from_secs(4), "{new_device:?}");
        now += Duration::from_secs(3600);
        assert!(limiter.begin(ip("203.0.113.1"), Some("ann"), now).is_ok(), "forgotten");
    }

    #[test]
    fn failures_past_the_free_ones_wait_longer_each_time_up_to_the_cap() {
        let limiter = limiter(|s| {
            s.login_free_failures = 3;
            s.login_backoff_max_seconds = 10;
        });
        let mut now = Instant::now();
        let attacker = "203.0.113.5";
        fail(&limiter, attacker, "ann", 3, now);
        let mut waits = Vec::new();
        for _ in 0..6 {
            // Refused while it waits, then one more failure, and a longer wait.
            let wait = limiter.begin(ip(attacker), Some("ann"), now).expect_err("must wait");
            waits.push(wait.as_secs());
            now += wait;
            fail(&limiter, attacker, "ann", 1, now);
        }
        assert_eq!(waits, [1, 2, 4, 8, 10, 10], "doubling, capped");
        // A right password ends it: the count starts over.
        now += Duration::from_secs(10);
        let attempt = limiter.begin(ip(attacker), Some("ann"), now).expect("after the wait");
        limiter.succeeded(attempt, now);
        fail(&limiter, attacker, "ann", 3, now);
        assert!(limiter.begin(ip(attacker), Some("ann"), now).is_err());
        // So does a day's rest.
        let rested = now + FORGET_AFTER + Duration::from_secs(1);
        fail(&limiter, attacker, "ann", 3, rested);
    }

    #[test]
    fn another_address_failing_never_stops_the_owner() {
        let limiter = limiter(|s| s.login_free_failures = 2);
        let now = Instant::now();
        for n in 1..=12u8 {
            let _ = limiter.begin(IpAddr::from([198, 51, 100, n % 3]), Some("ann"), now);
        }
        for n in 0..12u16 {
            let address = IpAddr::from([0x2001, 0xdb8, 1, 2, 0, 0, 0, n]);
            let _ = limiter.begin(address, Some("ann"), now);
        }
        let owner = limiter.begin(ip("192.0.2.1"), Some("ann"), now).expect("not refused");
        limiter.succeeded(owner, now);
        // And again at once: a right password is not a failure.
        for _ in 0..10 {
            let owner = limiter.begin(ip("192.0.2.1"), Some("ann"), now).expect("not refused");
            limiter.succeeded(owner, now);
        }
    }

    #[test]
    fn an_ipv6_64_is_one_address() {
        let limiter = limiter(|s| s.login_free_failures = 2);
        let now = Instant::now();
        fail(&limiter, "2001:db8:1:2::1", "ann", 1, now);
        fail(&limiter, "2001:db8:1:2:ffff::9", "ann", 1, now);
        // Two from the /64: a third address in it is refused as if it were one.
        assert!(limiter.begin(ip("2001:db8:1:2::77"), Some("ann"), now).is_err());
        assert!(limiter.begin(ip("2001:db8:1:3::1"), Some("ann"), now).is_ok(), "another /64");
        assert!(limiter.begin(ip("2001:db8:1:2::77"), Some("bob"), now).is_ok(), "another name");
    }

    #[test]
    fn one_address_has_a_budget_across_all_names() {
        let limiter = limiter(|s| {
            s.login_free_failures = 100;
            s.login_failures_per_address = 6;
        });
        let now = Instant::now();
        for n in 0..6 {
            fail(&limiter, "203.0.113.5", &format!("name{n}"), 1, now);
        }
        let wait = limiter.begin(ip("203.0.113.5"), Some("fresh"), now).expect_err("spent");
        // Six an hour: one back every ten minutes.
        assert_eq!(wait.as_secs(), 600);
        assert!(limiter.begin(ip("203.0.113.6"), Some("fresh"), now).is_ok(), "another address");
        let later = now + Duration::from_secs(600);
        let attempt = limiter.begin(ip("203.0.113.5"), Some("fresh"), later).expect("refilled");
        // A right password gives its failure back.
        limiter.succeeded(attempt, later);
        assert!(limiter.begin(ip("203.0.113.5"), Some("fresh"), later).is_ok());
        // Claims (no name) spend the same budget.
        assert!(limiter.begin(ip("203.0.113.5"), None, later).is_err());
    }

    #[test]
    fn the_tables_are_bounded() {
        let limiter = limiter(|s| s.login_free_failures = 1);
        let now = Instant::now();
        for n in 0..(LIMITER_KEYS as u32 + 500) {
            let address = IpAddr::from(n.to_be_bytes());
            let _ = limiter.begin(address, Some("ann"), now);
        }
        let (pairs, budgets) = limiter.sizes();
        assert!(pairs <= LIMITER_KEYS && budgets <= LIMITER_KEYS, "{pairs} {budgets}");
    }
}
