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
//!   passwords on each of many names.
//!
//! Neither count is ever touched by another address, so a right password
//! from an address that has not failed is never refused. Both tables are
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
}

/// The log-in limiter, one per server.
#[derive(Debug)]
pub struct LoginLimiter {
    free_failures: u32,
    max_backoff: Duration,
    /// Failures an address may make in [`BUDGET_WINDOW`]; 0: no budget.
    budget: u32,
    // A std mutex: held for a few map operations, never across an await.
    tables: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    pairs: HashMap<(String, IpAddr), Backoff>,
    budgets: HashMap<IpAddr, Budget>,
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
        Ok(Attempt { address, name: name.map(str::to_owned) })
    }

    /// The attempt's password was right: its name starts over for this
    /// address, and its failure goes back to the address's budget.
    pub fn succeeded(&self, attempt: Attempt, now: Instant) {
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(name) = attempt.name {
            tables.pairs.remove(&(name, attempt.address));
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
