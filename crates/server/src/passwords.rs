//! Password hashing: argon2id (the `argon2` crate's defaults, the OWASP
//! minimum: 19 MiB, two passes) on a small pool of threads of its own, with
//! a cap on the hashes under way.
//!
//! Why a pool of its own: each hash holds 19 MiB and a core for tens of
//! milliseconds. On tokio's blocking pool (up to 512 threads) a few hundred
//! log-ins at once took gigabytes and queued the search bots' moves, which
//! also run there, behind them. Here at most `accounts.concurrent_hashes`
//! run at once, one per thread of the pool (`password-hash-N`); a request
//! that finds every thread busy is refused at once (`busy`, `503` with
//! `Retry-After`) rather than queued, so memory stays bounded and nothing
//! else waits behind a hash.
//!
//! The places are shared fairly: one address (an IPv6 /64) holds at most
//! `accounts.hashes_per_address` of them, and one name at most one, so
//! neither one address nor one account tried from many addresses keeps the
//! pool full for everyone else.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use prometheus_client::metrics::counter::Counter;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError, oneshot};

use crate::admission::address_key;

/// The prefix of the pool's thread names.
pub const THREAD_NAME: &str = "password-hash";

/// Why no hash was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    /// Every thread of the pool is hashing.
    #[error("every password-hashing thread is busy")]
    Busy,
    /// The hash failed or its thread is gone (a bug, not the client's doing).
    #[error("the password could not be hashed")]
    Failed,
}

type Job = Box<dyn FnOnce() + Send>;

/// The hashing threads and the count of their free places.
#[derive(Debug)]
pub struct Passwords {
    jobs: mpsc::Sender<Job>,
    free: Arc<Semaphore>,
    threads: usize,
    /// The most places one address holds at once.
    per_address: usize,
    /// Who holds the places taken.
    holders: Arc<Mutex<Holders>>,
    /// Hashes started, and requests refused `Busy` (the metrics').
    started: Counter,
    busy: Counter,
}

impl Passwords {
    /// A pool of `threads` threads (0: twice the cores), so at most that
    /// many hashes at once, `per_address` of them for one address (0: a
    /// quarter of the pool, at least one), counting into `started` and `busy`.
    pub fn new(threads: usize, per_address: usize, started: Counter, busy: Counter) -> Passwords {
        let threads = match threads {
            0 => 2 * std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        // One place per thread that started: a job never waits for a thread.
        let mut running = 0;
        for n in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{THREAD_NAME}-{n}"))
                .spawn(move || work(&queue));
            match spawned {
                Ok(_) => running += 1,
                Err(error) => tracing::error!(%error, "cannot start a password-hashing thread"),
            }
        }
        let threads = running;
        let per_address = match per_address {
            0 => (threads / 4).max(1),
            n => n,
        };
        Passwords {
            jobs,
            free: Arc::new(Semaphore::new(threads)),
            threads,
            per_address,
            holders: Arc::default(),
            started,
            busy,
        }
    }

    /// The most hashes under way at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Hashes started since the server started.
    pub fn started(&self) -> u64 {
        self.started.get()
    }

    /// A free place on the pool for a request from `address` about the
    /// account `name` (a name key; none for a claim), held until the slot
    /// is dropped and its last hash has ended; `Busy` if there is none, or
    /// the address holds its share already, or the name is being hashed
    /// for. Taken before anything else is spent on a request.
    pub fn slot(&self, address: IpAddr, name: Option<&str>) -> Result<Slot<'_>, HashError> {
        let address = address_key(address);
        let mut holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
        let by_address = holders.addresses.get(&address).copied().unwrap_or(0);
        let name_taken = name.is_some_and(|name| holders.names.contains_key(name));
        let permit = match self.free.clone().try_acquire_owned() {
            Ok(permit) if by_address < self.per_address && !name_taken => permit,
            Ok(_) | Err(TryAcquireError::NoPermits | TryAcquireError::Closed) => {
                self.busy.inc();
                return Err(HashError::Busy);
            }
        };
        *holders.addresses.entry(address).or_default() += 1;
        if let Some(name) = name {
            holders.names.insert(name.to_owned(), 1);
        }
        let place = Place {
            _permit: permit,
            holders: self.holders.clone(),
            address,
            name: name.map(str::to_owned),
        };
        Ok(Slot { passwords: self, place: Arc::new(place) })
    }

    /// Holds every place of the pool until the returned sender is dropped:
    /// a test's way to fill it.
    #[cfg(test)]
    pub fn hold_all(&self) -> mpsc::Sender<()> {
        let (release, released) = mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        for _ in 0..self.threads {
            let place = self.free.clone().try_acquire_owned().expect("a free place");
            let released = released.clone();
            let job: Job = Box::new(move || {
                let _place = place;
                let _ = released.lock().unwrap_or_else(|p| p.into_inner()).recv();
            });
            self.jobs.send(job).expect("the pool runs");
        }
        release
    }
}

/// One thread's life: jobs until the pool is dropped. A job that panics
/// costs its answer, not the thread.
fn work(queue: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        // The lock is held only while waiting for the next job.
        let job = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(job) = job else { return };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    }
}

/// Who holds the places taken: counts by address, and the names hashed for.
#[derive(Debug, Default)]
struct Holders {
    addresses: HashMap<IpAddr, usize>,
    names: HashMap<String, usize>,
}

/// One place taken, and by whom: given back when the last of the slot and
/// its hash under way lets go.
#[derive(Debug)]
struct Place {
    _permit: OwnedSemaphorePermit,
    holders: Arc<Mutex<Holders>>,
    address: IpAddr,
    name: Option<String>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = holders.addresses.get_mut(&self.address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                holders.addresses.remove(&self.address);
            }
        }
        if let Some(name) = &self.name {
            holders.names.remove(name);
        }
    }
}

/// A place on the pool for one request: its hashes run there one after
/// the other.
#[derive(Debug)]
pub struct Slot<'a> {
    passwords: &'a Passwords,
    /// Shared with the hash under way, so that the place stays taken until
    /// it ends, even if the request that wanted it is dropped meanwhile.
    place: Arc<Place>,
}

impl Slot<'_> {
    /// argon2id of `password` with a random salt, as a PHC string.
    pub async fn hash(&self, password: &str) -> Result<String, HashError> {
        let password = password.to_owned();
        self.run(move || hash(&password)).await?.ok_or(HashError::Failed)
    }

    /// Whether `password` matches the PHC string `stored`; without one, a
    /// dummy hash is checked instead, so that both refusals cost the same.
    pub async fn verify(&self, stored: Option<String>, password: &str) -> Result<bool, HashError> {
        let password = password.to_owned();
        self.run(move || {
            let stored = match &stored {
                Some(stored) => stored.as_str(),
                None => dummy_hash().unwrap_or_default(),
            };
            PasswordHash::new(stored).is_ok_and(|hash| {
                Argon2::default().verify_password(password.as_bytes(), &hash).is_ok()
            })
        })
        .await
    }

    /// Runs `job` on a thread of the pool, in this slot's place.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let (answer, answered) = oneshot::channel();
        let place = self.place.clone();
        let job: Job = Box::new(move || {
            let done = job();
            // Given back before the answer: the same address's next
            // request, sent once this one is answered, finds it free.
            drop(place);
            let _ = answer.send(done);
        });
        self.passwords.started.inc();
        self.passwords.jobs.send(job).map_err(|_| HashError::Failed)?;
        answered.await.map_err(|_| HashError::Failed)
    }
}

/// argon2id with a random salt, as a PHC string.
fn hash(password: &str) -> Option<String> {
    Argon2::default().hash_password(password.as_bytes()).map(|hash| hash.to_string()).ok()
}

/// The hash an unknown name is checked against: made once, on the pool.
fn dummy_hash() -> Option<&'static str> {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    DUMMY.get_or_init(|| hash("no account has this password")).as_deref()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn pool(threads: usize) -> Passwords {
        Passwords::new(threads, threads, Counter::default(), Counter::default())
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    const HERE: &str = "192.0.2.1";

    #[tokio::test]
    async fn hashes_are_argon2id_salted_and_verify() {
        let passwords = pool(1);
        let slot = passwords.slot(ip(HERE), None).expect("a free place");
        let first = slot.hash("correct horse").await.expect("hashed");
        let second = slot.hash("correct horse").await.expect("hashed");
        assert!(first.starts_with("$argon2id$"), "{first}");
        assert_ne!(first, second, "a fresh salt each time");
        assert!(!first.contains("correct horse"));
        assert_eq!(slot.verify(Some(first.clone()), "correct horse").await, Ok(true));
        assert_eq!(slot.verify(Some(first), "wrong horse").await, Ok(false));
        assert_eq!(slot.verify(None, "no account has this password").await, Ok(true));
        assert_eq!(passwords.started(), 5);
    }

    /// Hashes run on the pool's own named threads, never on tokio's
    /// blocking pool: with the runtime's only blocking thread taken until
    /// the hash is done, the hash is still done.
    #[test]
    fn hashes_run_on_threads_of_their_own_not_on_the_blocking_pool() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let passwords = pool(2);
            let (done, until_done) = mpsc::channel::<()>();
            let blocked = tokio::task::spawn_blocking(move || until_done.recv());
            let slot = passwords.slot(ip(HERE), None).expect("a free place");
            let hash =
                slot.hash("correct horse").await.expect("hashed with the blocking pool full");
            assert!(hash.starts_with("$argon2id$"));
            let thread = slot.run(|| std::thread::current().name().map(str::to_owned)).await;
            let thread = thread.expect("ran").expect("a named thread");
            assert!(thread.starts_with(THREAD_NAME), "{thread}");
            done.send(()).expect("the blocking task waits");
            blocked.await.expect("the blocking task ends").expect("told");
        });
    }

    /// With every place taken, a request is refused at once, and blocking
    /// work (a search bot's move) still runs straight away.
    #[tokio::test]
    async fn a_full_pool_refuses_at_once_and_blocking_work_goes_on() {
        let busy = Counter::default();
        let passwords = Passwords::new(2, 2, Counter::default(), busy.clone());
        let held = passwords.hold_all();
        assert_eq!(passwords.slot(ip(HERE), None).err(), Some(HashError::Busy));
        assert_eq!(busy.get(), 1);
        assert_eq!(tokio::task::spawn_blocking(|| 7).await.expect("ran"), 7);
        drop(held);
        let slot =
            euchre_testkit::eventually("a free place", Duration::from_secs(10), async || {
                passwords.slot(ip(HERE), None).ok()
            })
            .await;
        assert!(slot.hash("correct horse").await.is_ok());
    }

    /// One account tried from eight addresses held the whole pool, and a
    /// ninth address got `busy`: now one address holds its share, one name
    /// one place, and the rest stays free for others.
    #[test]
    fn one_address_and_one_name_hold_only_their_share_of_the_pool() {
        let passwords = Passwords::new(4, 0, Counter::default(), Counter::default());
        let ann = passwords.slot(ip("192.0.2.1"), Some("ann")).expect("a free place");
        assert_eq!(passwords.slot(ip("192.0.2.1"), Some("bob")).err(), Some(HashError::Busy));
        let same_64 = ip("2001:db8::1");
        let first = passwords.slot(same_64, Some("bob")).expect("a free place");
        assert_eq!(passwords.slot(ip("2001:db8::2"), None).err(), Some(HashError::Busy), "a /64");
        for n in 2..9 {
            let elsewhere = ip(&format!("198.51.100.{n}"));
            assert_eq!(passwords.slot(elsewhere, Some("ann")).err(), Some(HashError::Busy));
        }
        let ninth = passwords.slot(ip("203.0.113.9"), None).expect("room for another address");
        drop((ann, first, ninth));
        let again = passwords.slot(ip("198.51.100.2"), Some("ann"));
        assert!(again.is_ok(), "given back when the slot is dropped");
    }

    #[test]
    fn the_pool_is_twice_the_cores_unless_set() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(pool(0).threads(), 2 * cores);
        assert_eq!(pool(3).threads(), 3);
    }
}
