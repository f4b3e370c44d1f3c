//! Shard leases in a JetStream key-value bucket.
//!
//! The bucket keeps one key per shard, whose value names the holding node
//! and its epoch. The bucket's `max_age` is the lease's time to live: a key
//! not rewritten within it is removed by the NATS server, on the NATS
//! server's clock alone (no node compares clocks with another). Taking a
//! lease creates the key only if it is absent; renewing rewrites it only if
//! its revision is still the one this holder wrote, so a holder that lost
//! the key (expired, taken over) finds out on its next renewal.
//!
//! The epoch is the key's revision when the lease was taken. Revisions are
//! sequence numbers of the bucket's stream, so every new holder's epoch is
//! higher than every earlier one's: the fencing token the shared log records.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::{self, kv};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// The leases of one cluster: a key-value bucket.
#[derive(Clone, Debug)]
pub struct Leases {
    bucket: kv::Store,
    ttl: Duration,
}

/// Who holds a lease, as stored in its key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub node: String,
    /// The revision at which the holder took the lease: its fencing token.
    pub epoch: u64,
}

/// A lease this node holds.
#[derive(Debug)]
pub struct Lease {
    key: String,
    holder: Holder,
    /// The key's revision as this holder last wrote it.
    revision: u64,
    /// Until when the lease is surely still ours: the time to live counted
    /// from before the last write was sent (the server counts from when it
    /// stored it, later).
    valid_until: Instant,
}

#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// The key changed or expired since this holder last wrote it.
    #[error("the lease {0} was lost")]
    Lost(String),
    #[error("lease name {0:?} is not a valid key")]
    BadName(String),
    #[error("NATS: {0}")]
    Nats(String),
}

fn nats(error: impl std::fmt::Display) -> LeaseError {
    LeaseError::Nats(error.to_string())
}

impl Leases {
    /// Opens the bucket `name`, creating it with `ttl` as the time to live
    /// (`replicas` copies: 1 on one NATS server, 3 in a NATS cluster). Every
    /// node must use the same `ttl`: an existing bucket keeps its own.
    pub async fn open(
        js: &jetstream::Context,
        name: &str,
        ttl: Duration,
        replicas: usize,
    ) -> Result<Leases, LeaseError> {
        let bucket = crate::open_bucket(
            js,
            name,
            "Euchre leases: which node holds each key",
            Some(ttl),
            replicas,
        )
        .await
        .map_err(nats)?;
        let ttl = bucket.status().await.map_err(nats)?.max_age();
        Ok(Leases { bucket, ttl })
    }

    /// The time to live: a lease not renewed within it expires.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Takes the lease `name` for `node` if nobody holds it; `None` if somebody does.
    pub async fn try_acquire(&self, name: &str, node: &str) -> Result<Option<Lease>, LeaseError> {
        let sent = Instant::now();
        // The epoch is the revision this create gets, which is not known
        // before it: the key is created with a placeholder, and the same
        // holder rewrites it with its epoch at once (a renewal).
        let placeholder = Holder { node: node.to_owned(), epoch: 0 };
        let revision = match self.bucket.create(name, encode(&placeholder)).await {
            Ok(revision) => revision,
            Err(error) if error.kind() == kv::CreateErrorKind::AlreadyExists => return Ok(None),
            Err(error) if error.kind() == kv::CreateErrorKind::InvalidKey => {
                return Err(LeaseError::BadName(name.to_owned()));
            }
            Err(error) => return Err(nats(error)),
        };
        let holder = Holder { node: node.to_owned(), epoch: revision };
        let mut lease =
            Lease { key: name.to_owned(), holder, revision, valid_until: sent + self.ttl };
        self.renew(&mut lease).await?;
        Ok(Some(lease))
    }

    /// Rewrites the lease's key, which starts its time to live again; fails
    /// with [`LeaseError::Lost`] if somebody else has it now, or it expired.
    pub async fn renew(&self, lease: &mut Lease) -> Result<(), LeaseError> {
        let sent = Instant::now();
        match self.bucket.update(&lease.key, encode(&lease.holder), lease.revision).await {
            Ok(revision) => {
                lease.revision = revision;
                lease.valid_until = sent + self.ttl;
                Ok(())
            }
            Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                Err(LeaseError::Lost(lease.key.clone()))
            }
            Err(error) => Err(nats(error)),
        }
    }

    /// Gives the lease up at once (on a clean shutdown), if it is still ours.
    pub async fn release(&self, lease: Lease) -> Result<(), LeaseError> {
        match self.bucket.delete_expect_revision(&lease.key, Some(lease.revision)).await {
            Ok(()) => Ok(()),
            // Gone or taken already: nothing of ours to give up.
            Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => Ok(()),
            Err(error) => Err(nats(error)),
        }
    }

    /// How many leases are held now: distinct names, for a listing can
    /// bring a key rewritten meanwhile (a renewal) twice. (It can also miss
    /// one: a count may come short, never over.) Given up after `within`,
    /// as a listing can wait for a key that expired meanwhile.
    pub async fn count(&self, within: Duration) -> Result<usize, LeaseError> {
        Ok(self.listing(within).await?.len())
    }

    /// The names of the leases held now (in the nodes' bucket: the live
    /// nodes), given up after a lease's lifetime.
    pub async fn names(&self) -> Result<HashSet<String>, LeaseError> {
        self.listing(self.ttl).await
    }

    async fn listing(&self, within: Duration) -> Result<HashSet<String>, LeaseError> {
        use futures_util::TryStreamExt;
        let listing = async {
            let keys = self.bucket.keys().await.map_err(nats)?;
            keys.try_collect().await.map_err(nats)
        };
        // The listing ends with the last key it was told of; a key that
        // expires meanwhile never comes, and it waits for the consumer's
        // next idle heartbeat (seconds; seen in the three-node tests).
        match tokio::time::timeout(within, listing).await {
            Ok(names) => names,
            Err(_) => Err(LeaseError::Nats("listing the leases timed out".into())),
        }
    }

    /// Who holds `name` now, if anybody.
    pub async fn holder(&self, name: &str) -> Result<Option<Holder>, LeaseError> {
        let Some(value) = self.bucket.get(name).await.map_err(nats)? else { return Ok(None) };
        let holder: Holder = serde_json::from_slice(&value).map_err(nats)?;
        // A key just created, not yet stamped with its epoch, is held all the same.
        Ok(Some(holder))
    }
}

impl Lease {
    pub fn name(&self) -> &str {
        &self.key
    }

    pub fn holder(&self) -> &Holder {
        &self.holder
    }

    /// The fencing token: higher for every later holder.
    pub fn epoch(&self) -> u64 {
        self.holder.epoch
    }

    /// Until when the lease is surely still ours (if it has not been renewed
    /// by then, act as if it were lost).
    pub fn valid_until(&self) -> Instant {
        self.valid_until
    }
}

fn encode(holder: &Holder) -> bytes::Bytes {
    serde_json::to_vec(holder).unwrap_or_default().into()
}

/// Until when this node surely holds each shard's lease, and at which
/// epoch: set by the lease loop at each renewal, read by the shard logs'
/// writers before each append. A node whose lease has run out by its own
/// clock (NATS unreachable, the loop stalled) appends nothing, even before
/// the loop reports the loss or another node fences the log.
#[derive(Clone, Debug, Default)]
pub struct Validity {
    shards: Arc<Mutex<HashMap<crate::Shard, (u64, Instant)>>>,
}

impl Validity {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<crate::Shard, (u64, Instant)>> {
        self.shards.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The shard's lease, at `epoch`, is ours until `until`.
    pub fn set(&self, shard: crate::Shard, epoch: u64, until: Instant) {
        self.lock().insert(shard, (epoch, until));
    }

    /// The shard's lease is ours no more.
    pub fn clear(&self, shard: crate::Shard) {
        self.lock().remove(&shard);
    }

    /// The epoch at which this node holds the shard's lease, surely or not
    /// (`None` once it knows it lost it).
    pub fn epoch(&self, shard: crate::Shard) -> Option<u64> {
        self.lock().get(&shard).map(|&(epoch, _)| epoch)
    }

    /// Whether the shard's lease at `epoch` is surely ours now.
    pub fn holds(&self, shard: crate::Shard, epoch: u64) -> bool {
        self.lock()
            .get(&shard)
            .is_some_and(|&(held, until)| held == epoch && Instant::now() < until)
    }
}
