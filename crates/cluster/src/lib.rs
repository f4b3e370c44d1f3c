//! The parts a cluster of Euchre servers shares, on NATS JetStream.
//!
//! Tables are grouped into shards ([`shard_of`]); a shard is the unit of
//! ownership, of the shared log, and of failover. docs/architecture.md has
//! the whole design; this crate holds its two foundations:
//!
//! - [`lease`]: which node owns a shard, as a key in a JetStream key-value
//!   bucket that expires unless its holder renews it. Each new holder gets a
//!   higher *epoch* (the key's revision when it was taken): the fencing token.
//! - [`log`]: the shared action log, one JetStream stream per shard. Every
//!   append says which stream sequence it expects to follow, so only one
//!   writer can extend a shard's log; a new owner's first append (its fence)
//!   makes every later append of an old owner fail.
//! - [`durable`]: [`ShardLogs`], the cluster's `Durability`: each table
//!   step's writes appended to its shard's log, in order, before anything
//!   they caused is sent; closed tables purged from it once their history
//!   is stored; and [`tables_in`], each table's writes read back.
//! - [`ownership`]: a node's lease loop: its heartbeat, and its fair share
//!   of the shards, reported as gained and lost.
//!
//! Safety rests on the log alone: a lease only decides who should write, and
//! an owner that outlives its lease (paused, cut off) is stopped by the log.

pub mod durable;
pub mod lease;
pub mod log;
pub mod ownership;
#[cfg(feature = "testing")]
pub mod testing;

pub use durable::{ShardLogs, tables_in};
pub use lease::{Holder, Lease, LeaseError, Leases, Validity};
pub use log::{LogConfig, LogEntry, LogError, ShardLog};
pub use ownership::{Change, Ownership};

/// A shard's number: `0..shards`.
pub type Shard = u16;

/// The shard a table belongs to: stable across nodes, restarts and versions
/// (CRC-32 of the table's id), so any node finds a table's shard, and so its
/// owner and its log, from the id alone.
pub fn shard_of(table_id: &str, shards: Shard) -> Shard {
    (crc32fast::hash(table_id.as_bytes()) % u32::from(shards.max(1))) as Shard
}

/// Why a stream or a key-value bucket did not open.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// It was missing and could not be made (nor read back, made by
    /// another node meanwhile).
    #[error(transparent)]
    Create(#[from] async_nats::jetstream::context::CreateStreamError),
    /// The bucket's stream is there, but cannot be read as a bucket.
    #[error(transparent)]
    Bucket(#[from] async_nats::jetstream::context::KeyValueError),
}

/// Opens the key-value bucket `name`, creating it if it is missing; with
/// `max_age`, a key not rewritten within it is removed.
pub async fn open_bucket(
    js: &async_nats::jetstream::Context,
    name: &str,
    description: &str,
    max_age: Option<std::time::Duration>,
    replicas: usize,
) -> Result<async_nats::jetstream::kv::Store, OpenError> {
    use async_nats::jetstream::stream;
    if let Ok(bucket) = js.get_key_value(name).await {
        return Ok(bucket);
    }
    // The bucket's stream, made the way a key-value bucket is:
    // `create_key_value` first reads account fields that NATS servers
    // before 2.10 (Debian's 2.9) do not send.
    open_stream(
        js,
        stream::Config {
            name: format!("KV_{name}"),
            description: Some(description.to_owned()),
            subjects: vec![format!("$KV.{name}.>")],
            max_messages_per_subject: 1,
            max_age: max_age.unwrap_or_default(),
            storage: stream::StorageType::File,
            num_replicas: replicas,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            discard: stream::DiscardPolicy::New,
            ..Default::default()
        },
    )
    .await?;
    Ok(js.get_key_value(name).await?)
}

/// Opens the stream `config.name`, creating it if it is missing. Nodes
/// starting together may all find it missing and all create it; NATS lets
/// one create win and refuses the others (its subjects now overlap an
/// existing stream), so a refused create reads the winner's stream back.
pub async fn open_stream(
    js: &async_nats::jetstream::Context,
    config: async_nats::jetstream::stream::Config,
) -> Result<async_nats::jetstream::stream::Stream, OpenError> {
    let name = config.name.clone();
    match js.get_or_create_stream(config).await {
        Ok(stream) => Ok(stream),
        Err(create) => js.get_stream(&name).await.map_err(|_| OpenError::Create(create)),
    }
}

/// Connects to NATS and opens its JetStream context.
pub async fn connect(
    url: &str,
) -> Result<async_nats::jetstream::Context, async_nats::ConnectError> {
    let client = async_nats::connect(url).await?;
    Ok(async_nats::jetstream::new(client))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_always_falls_in_the_same_shard_and_shards_are_used_evenly() {
        // Pinned (CRC-32, as zlib computes it): a change of hash would move
        // live tables to other owners and other logs.
        assert_eq!(shard_of("0193a8f2c4e07b3d9f1a2b3c4d5e6f70", 256), 220);
        assert_eq!(shard_of("table", 256), 70);
        assert_eq!(shard_of("anything", 1), 0);
        assert_eq!(shard_of("anything", 0), 0, "no shards counts as one");
        let mut counts = [0u32; 16];
        for n in 0..16_000 {
            counts[usize::from(shard_of(&format!("{n:032x}"), 16))] += 1;
        }
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
    }
}
