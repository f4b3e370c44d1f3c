//! The shared action log: one JetStream stream per shard.
//!
//! A shard's stream holds its tables' records, one subject per table
//! (`{subjects}.{shard}.t.{table}`, so one table reads back alone and a
//! closed one can be purged alone), and the fences of its owners
//! (`{subjects}.{shard}.fence`). Every append carries the stream sequence
//! it expects to follow (`Nats-Expected-Last-Sequence`): JetStream stores it
//! only if nothing else was stored in the shard since, so a shard's log has
//! one writer at a time. A new owner first appends a fence, checked only
//! against the last fence (so an old owner still appending cannot hold it
//! off, and fences' epochs only grow), then reads everything before it: from
//! the fence on, every append of an older owner expects a sequence that is
//! no longer last, and is refused. The check covers the whole shard, tables
//! the new owner has not seen yet too.

use std::time::Duration;

use async_nats::jetstream::{self, consumer, context::PublishErrorKind, stream};
use async_nats::{HeaderMap, header};
use bytes::Bytes;
use futures_util::StreamExt;

use crate::Shard;

/// Where the shards' logs live; every node of a cluster uses the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogConfig {
    /// Streams are named `{stream_prefix}_{shard}`.
    pub stream_prefix: String,
    /// Subjects start `{subject_prefix}.{shard}.`.
    pub subject_prefix: String,
    /// Copies of each stream: 1 on one NATS server, 3 in a NATS cluster.
    pub replicas: usize,
}

impl Default for LogConfig {
    fn default() -> LogConfig {
        LogConfig {
            stream_prefix: "EUCHRE_LOG".to_owned(),
            subject_prefix: "euchre.log".to_owned(),
            replicas: 1,
        }
    }
}

impl LogConfig {
    fn stream(&self, shard: Shard) -> String {
        format!("{}_{shard}", self.stream_prefix)
    }

    fn table_subject(&self, shard: Shard, table: &str) -> String {
        format!("{}.{shard}.t.{table}", self.subject_prefix)
    }

    fn fence_subject(&self, shard: Shard) -> String {
        format!("{}.{shard}.fence", self.subject_prefix)
    }
}

/// One entry of a shard's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogEntry {
    /// A record a table's owner appended.
    Record { seq: u64, table: String, epoch: u64, body: Bytes },
    /// A new owner took the shard over from here on.
    Fence { seq: u64, node: String, epoch: u64 },
}

impl LogEntry {
    /// The entry's stream sequence: its place in the shard's log.
    pub fn seq(&self) -> u64 {
        match self {
            LogEntry::Record { seq, .. } | LogEntry::Fence { seq, .. } => *seq,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// Another writer has appended since: this node no longer owns the shard.
    #[error("shard {0}'s log has a newer owner")]
    Fenced(Shard),
    /// The node's lease on the shard ran out (by its own clock) before the
    /// append: nothing was sent.
    #[error("the lease on shard {0} is no longer surely held here")]
    LeaseExpired(Shard),
    #[error("table id {0:?} cannot name a log subject")]
    BadTable(String),
    #[error("shard {0}'s log holds an entry this version cannot read: {1}")]
    Corrupt(Shard, String),
    /// The append may or may not be stored: take the shard over again,
    /// which reads what was, before appending more.
    #[error("NATS: {0}")]
    Nats(String),
}

fn nats(error: impl std::fmt::Display) -> LogError {
    LogError::Nats(error.to_string())
}

const EPOCH: &str = "Euchre-Epoch";
const NODE: &str = "Euchre-Node";

/// A shard's log, held by its owner: the only handle that appends.
#[derive(Debug)]
pub struct ShardLog {
    js: jetstream::Context,
    config: LogConfig,
    shard: Shard,
    epoch: u64,
    /// The stream sequence of this owner's last append (or of its fence).
    last: u64,
    /// Set once an append failed: this handle appends no more.
    stopped: Option<Stopped>,
}

/// Why a [`ShardLog`] appends no more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stopped {
    /// A newer owner has written.
    Fenced,
    /// An append may or may not be stored.
    Uncertain,
}

impl ShardLog {
    /// Takes `shard`'s log over for `node`, which holds the shard's lease at
    /// `epoch`: appends a fence, then reads every entry before it. Returns
    /// the log to append to, and those entries in order: what the new owner
    /// rebuilds its tables from. Every append an older owner was told is
    /// stored comes before the fence; every append it tries after fails.
    ///
    /// Refused ([`LogError::Fenced`]) if the log already has a fence of a
    /// later epoch: a newer owner exists.
    pub async fn take_over(
        js: &jetstream::Context,
        config: &LogConfig,
        shard: Shard,
        node: &str,
        epoch: u64,
    ) -> Result<(ShardLog, Vec<LogEntry>), LogError> {
        let stream = open_stream(js, config, shard).await?;
        let fence = loop {
            // Fences are checked against the last fence only, so an older
            // owner still appending records cannot hold the new one off; and
            // epochs only grow along the log, so a stale node cannot fence
            // out a newer owner.
            let last_fence = last_fence(&stream, config, shard).await?;
            if last_fence.is_some_and(|(_, last_epoch)| last_epoch > epoch) {
                return Err(LogError::Fenced(shard));
            }
            let mut headers = HeaderMap::new();
            headers.insert(EPOCH, epoch.to_string().as_str());
            headers.insert(NODE, node);
            let expect = Expect::LastFence(last_fence.map_or(0, |(seq, _)| seq));
            match publish(js, config.fence_subject(shard), headers, Bytes::new(), expect).await {
                Ok(seq) => break seq,
                // Another node fenced meanwhile: look again.
                Err(Appended::NotLast) => continue,
                Err(Appended::Failed(error)) => return Err(error),
            }
        };
        let mut entries = read(&stream, config, shard, None, 0).await?;
        // A newer owner may have fenced already; what follows ours is not ours to rebuild.
        entries.retain(|entry| entry.seq() < fence);
        let log = ShardLog {
            js: js.clone(),
            config: config.clone(),
            shard,
            epoch,
            last: fence,
            stopped: None,
        };
        Ok((log, entries))
    }

    pub fn shard(&self) -> Shard {
        self.shard
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The stream sequence of this owner's last append.
    pub fn last_sequence(&self) -> u64 {
        self.last
    }

    /// Appends one record of `table`; when it returns, the record is stored
    /// in JetStream (on a quorum of its servers). Returns its sequence.
    /// Fails with [`LogError::Fenced`] if anything else was appended to the
    /// shard since this owner's last append: then it must stop writing.
    pub async fn append(&mut self, table: &str, body: Bytes) -> Result<u64, LogError> {
        self.check_writable(table)?;
        let mut headers = HeaderMap::new();
        headers.insert(EPOCH, self.epoch.to_string().as_str());
        let subject = self.config.table_subject(self.shard, table);
        match publish(&self.js, subject, headers, body, Expect::Last(self.last)).await {
            Ok(seq) => {
                self.last = seq;
                Ok(seq)
            }
            Err(Appended::NotLast) => {
                self.stopped = Some(Stopped::Fenced);
                Err(LogError::Fenced(self.shard))
            }
            Err(Appended::Failed(error)) => {
                self.stopped = Some(Stopped::Uncertain);
                Err(error)
            }
        }
    }
}

impl ShardLog {
    /// Whether this handle may still write for `table`: not fenced, no
    /// append failed, and a well-formed table id.
    fn check_writable(&self, table: &str) -> Result<(), LogError> {
        match self.stopped {
            Some(Stopped::Fenced) => Err(LogError::Fenced(self.shard)),
            Some(Stopped::Uncertain) => {
                Err(LogError::Nats("an earlier append failed; take the shard over again".into()))
            }
            None if !valid_token(table) => Err(LogError::BadTable(table.to_owned())),
            None => Ok(()),
        }
    }

    /// Removes every record of `table`, a table that has closed and whose
    /// history is stored elsewhere (PostgreSQL), from the shard's log: a
    /// purge of its subject. Returns how many records went. Refused, sending
    /// nothing, once this handle appends no more (fenced, or an append
    /// failed): a purge is for the shard's owner, and the caller checks the
    /// lease as for an append. Why it needs no single-writer check of its
    /// own: docs/architecture.md, "Compaction".
    pub async fn purge_table(&mut self, table: &str) -> Result<u64, LogError> {
        self.purge(table, None).await
    }

    /// Removes every record of `table` but its last: for what each record
    /// holds whole (a tournament's versions), so an earlier one says nothing
    /// the last does not. Refused as [`ShardLog::purge_table`] is.
    pub async fn purge_before_last(&mut self, table: &str) -> Result<u64, LogError> {
        self.purge(table, Some(1)).await
    }

    async fn purge(&mut self, table: &str, keep: Option<u64>) -> Result<u64, LogError> {
        self.check_writable(table)?;
        let stream = open_stream(&self.js, &self.config, self.shard).await?;
        let subject = self.config.table_subject(self.shard, table);
        let purged = match keep {
            Some(keep) => stream.purge().filter(subject).keep(keep).await,
            None => stream.purge().filter(subject).await,
        };
        Ok(purged.map_err(nats)?.purged)
    }
}

/// Every entry of `shard`'s log after `after`, in order.
pub async fn read_shard(
    js: &jetstream::Context,
    config: &LogConfig,
    shard: Shard,
    after: u64,
) -> Result<Vec<LogEntry>, LogError> {
    let stream = open_stream(js, config, shard).await?;
    read(&stream, config, shard, None, after).await
}

/// Every record of one table, in order.
pub async fn read_table(
    js: &jetstream::Context,
    config: &LogConfig,
    shard: Shard,
    table: &str,
) -> Result<Vec<LogEntry>, LogError> {
    if !valid_token(table) {
        return Err(LogError::BadTable(table.to_owned()));
    }
    let stream = open_stream(js, config, shard).await?;
    read(&stream, config, shard, Some(table), 0).await
}

/// Why an append was not stored.
enum Appended {
    /// Something else was appended after the sequence it expected.
    NotLast,
    Failed(LogError),
}

/// What an append expects to follow.
enum Expect {
    /// This stream sequence is the shard's last: nothing else was appended.
    Last(u64),
    /// This is the shard's last fence (0: there is none).
    LastFence(u64),
}

async fn publish(
    js: &jetstream::Context,
    subject: String,
    mut headers: HeaderMap,
    body: Bytes,
    expect: Expect,
) -> Result<u64, Appended> {
    let (header, seq) = match expect {
        Expect::Last(seq) => (header::NATS_EXPECTED_LAST_SEQUENCE, seq),
        Expect::LastFence(seq) => (header::NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, seq),
    };
    headers.insert(header, seq.to_string().as_str());
    let sent = js.publish_with_headers(subject, headers, body).await;
    let ack = match sent {
        Ok(ack) => ack.await,
        Err(error) => return Err(Appended::Failed(nats(error))),
    };
    match ack {
        Ok(ack) => Ok(ack.sequence),
        Err(error) if error.kind() == PublishErrorKind::WrongLastSequence => Err(Appended::NotLast),
        Err(error) => Err(Appended::Failed(nats(error))),
    }
}

/// The sequence and epoch of the shard's last fence, if it has one.
async fn last_fence(
    stream: &stream::Stream,
    config: &LogConfig,
    shard: Shard,
) -> Result<Option<(u64, u64)>, LogError> {
    match stream.get_last_raw_message_by_subject(&config.fence_subject(shard)).await {
        Ok(message) => {
            let epoch = message.headers.get(EPOCH).and_then(|e| e.as_str().parse().ok());
            let epoch = epoch
                .ok_or_else(|| LogError::Corrupt(shard, "a fence without its epoch".into()))?;
            Ok(Some((message.sequence, epoch)))
        }
        Err(error) if error.kind() == stream::LastRawMessageErrorKind::NoMessageFound => Ok(None),
        Err(error) => Err(nats(error)),
    }
}

async fn open_stream(
    js: &jetstream::Context,
    config: &LogConfig,
    shard: Shard,
) -> Result<stream::Stream, LogError> {
    crate::open_stream(
        js,
        stream::Config {
            name: config.stream(shard),
            description: Some(format!("Euchre action log, shard {shard}")),
            subjects: vec![format!("{}.{shard}.>", config.subject_prefix)],
            storage: stream::StorageType::File,
            num_replicas: config.replicas,
            // Entries leave only with their table (a purge of its subject), never one by one.
            deny_delete: true,
            ..Default::default()
        },
    )
    .await
    .map_err(nats)
}

/// Reads the entries after `after` (one table's, or all), up to the last
/// one stored when the read began.
async fn read(
    stream: &stream::Stream,
    config: &LogConfig,
    shard: Shard,
    table: Option<&str>,
    after: u64,
) -> Result<Vec<LogEntry>, LogError> {
    let filter_subject = match table {
        Some(table) => config.table_subject(shard, table),
        None => format!("{}.{shard}.>", config.subject_prefix),
    };
    let mut consumer = stream
        .create_consumer(consumer::pull::Config {
            deliver_policy: consumer::DeliverPolicy::ByStartSequence { start_sequence: after + 1 },
            ack_policy: consumer::AckPolicy::None,
            filter_subject,
            inactive_threshold: Duration::from_secs(60),
            ..Default::default()
        })
        .await
        .map_err(nats)?;
    let info = consumer.info().await.map_err(nats)?;
    let (name, mut pending) = (info.name.clone(), info.num_pending);
    let mut entries = Vec::with_capacity(pending as usize);
    while pending > 0 {
        let mut batch = consumer
            .batch()
            .max_messages(pending.min(1_000) as usize)
            .expires(Duration::from_secs(5))
            .messages()
            .await
            .map_err(nats)?;
        let before = entries.len();
        while let Some(message) = batch.next().await {
            entries.push(entry(config, shard, message.map_err(nats)?)?);
        }
        let got = (entries.len() - before) as u64;
        if got == 0 {
            return Err(LogError::Nats(format!("shard {shard}'s log stopped delivering")));
        }
        pending = pending.saturating_sub(got);
    }
    // An ephemeral consumer also goes by itself once inactive.
    let _ = stream.delete_consumer(&name).await;
    Ok(entries)
}

fn entry(
    config: &LogConfig,
    shard: Shard,
    message: jetstream::Message,
) -> Result<LogEntry, LogError> {
    let corrupt = |what: &str| LogError::Corrupt(shard, what.to_owned());
    let seq = message.info().map_err(|e| corrupt(&e.to_string()))?.stream_sequence;
    let header = |name: &str| {
        message.headers.as_ref().and_then(|h| h.get(name)).map(|v| v.as_str().to_owned())
    };
    let epoch = header(EPOCH).and_then(|e| e.parse().ok()).ok_or_else(|| corrupt("no epoch"))?;
    let subject = message.subject.as_str();
    if subject == config.fence_subject(shard) {
        let node = header(NODE).ok_or_else(|| corrupt("a fence without its node"))?;
        return Ok(LogEntry::Fence { seq, node, epoch });
    }
    let prefix = config.table_subject(shard, "");
    let table = subject.strip_prefix(&prefix).ok_or_else(|| corrupt(subject))?.to_owned();
    Ok(LogEntry::Record { seq, table, epoch, body: message.payload.clone() })
}

/// Whether `id` is one subject token: not empty, no dots, wildcards or spaces.
fn valid_token(id: &str) -> bool {
    !id.is_empty()
        && !id
            .chars()
            .any(|c| c == '.' || c == '*' || c == '>' || c.is_whitespace() || c.is_control())
}
