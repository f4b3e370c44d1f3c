//! How the world reaches a table: its handle and the messages it takes
//! (commands with everything needed to answer them), the outbox it answers
//! each connection through, and the timers and limits it is made with.

use std::sync::Arc;
use std::time::Duration;

use euchre_engine::Action;
use euchre_protocol::{CommandId, PlayerInfo, TableId, TableNotice};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::frame::Frame;

/// Identifies one WebSocket connection.
pub type ConnId = u64;

/// Where a connection's messages go. Sending never waits: a connection whose
/// queue is full is told it is too slow, and is dropped.
///
/// A table clones the outbox of every message it stages, several an action,
/// so a clone is one reference count: cloning the sender and the token
/// themselves took a lock in the token's tree each time.
#[derive(Clone, Debug)]
pub struct Outbox(Arc<OutboxInner>);

#[derive(Debug)]
struct OutboxInner {
    tx: mpsc::Sender<Frame>,
    too_slow: CancellationToken,
}

impl Outbox {
    pub fn new(tx: mpsc::Sender<Frame>, too_slow: CancellationToken) -> Outbox {
        Outbox(Arc::new(OutboxInner { tx, too_slow }))
    }

    /// How many more messages the connection's queue takes now.
    pub fn room(&self) -> usize {
        self.0.tx.capacity()
    }

    /// Queues `message`; false if the connection is gone or too slow.
    pub fn send(&self, message: impl Into<Frame>) -> bool {
        match self.0.tx.try_send(message.into()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.0.too_slow.cancel();
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// What a connection asks of a table (in a cluster, also sent to the
/// table's node as JSON).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Request {
    Sit {
        seat: Option<u8>,
        invite: Option<String>,
        /// Everyone a block stands between the player and
        /// ([`crate::social::Social::avoid`]): none of them may be seated
        /// here, nor host the table.
        #[serde(default)]
        avoid: Vec<String>,
    },
    Watch {
        invite: Option<String>,
    },
    Resume {
        last_seq: u64,
    },
    Leave,
    Start,
    Rematch,
    Act(Action),
    Chat(String),
    /// What the expert bot would do in the player's seat (practice tables only).
    Hint,
    /// The biggest mistake of a finished hand in the player's seat
    /// (practice tables only).
    Review {
        hand: u32,
    },
    /// Reports a player seen here: the table adds its match and the
    /// player's chat lines it keeps, and files it.
    Report {
        player: String,
        reason: euchre_protocol::ReportReason,
        details: String,
    },
    /// A quick-play pool seated the player here: subscribes the connection
    /// to their seat and sends the snapshot, with no acknowledgement (the
    /// connection asked for nothing; `quick_play_matched` came before).
    Matched,
}

/// A command with everything needed to answer it.
#[derive(Debug)]
pub struct TableCommand {
    pub id: CommandId,
    pub conn: ConnId,
    pub player: Arc<PlayerInfo>,
    pub outbox: Outbox,
    pub request: Request,
    /// When the connection read it: for the action-latency metric.
    pub received: std::time::Instant,
}

#[derive(Debug)]
pub enum TableMessage {
    Command(TableCommand),
    /// The connection closed: its subscriptions end, its player is away.
    Disconnected {
        conn: ConnId,
    },
    /// A tournament's table: its game begins now, whoever has come (a
    /// player not there is away, and a bot plays for them after the grace).
    Begin,
    /// A tournament's round clock ran out: the hand in play is the game's
    /// last (level then, it plays on until a side leads). Sent at every
    /// director's tick until the game ends, so a table restored after a
    /// crash hears it again.
    Settle,
    /// A game here was rated (see [`crate::ratings`]): the notice to publish.
    /// Sent by the table's own rating job, which it spawned at the game's end.
    Rated(TableNotice),
    /// The game `match_id`, which started at a rated table, will not be
    /// rated: why, to publish while that game is still being played.
    Unrated {
        match_id: String,
        notice: TableNotice,
    },
}

/// A cheap, cloneable way to reach a table.
#[derive(Clone, Debug)]
pub struct TableHandle {
    /// Shared, not a `String`: a connection takes a clone of the handle for
    /// every command it sends.
    pub id: Arc<str>,
    tx: mpsc::Sender<TableMessage>,
}

impl TableHandle {
    pub(super) fn new(id: TableId, tx: mpsc::Sender<TableMessage>) -> TableHandle {
        TableHandle { id: id.into(), tx }
    }

    /// Hands a message to the table without waiting; false if its mailbox
    /// is full or it has closed.
    pub fn try_send(&self, message: TableMessage) -> bool {
        self.tx.try_send(message).is_ok()
    }

    /// Whether the table has stopped (closed, or moved to another node).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Hands a message to the table, waiting for room; false if it has closed.
    pub async fn send(&self, message: TableMessage) -> bool {
        self.tx.send(message).await.is_ok()
    }
}

/// Timers and limits a table needs.
#[derive(Clone, Debug)]
pub struct TableConfig {
    pub event_ring: usize,
    pub bot_delay: Duration,
    pub reconnect_grace: Duration,
    /// How long a table with nobody connected stays open.
    pub idle_close: Duration,
    pub metrics: std::sync::Arc<crate::metrics::Metrics>,
    /// Where finished rated games go; `None`: no game is rated.
    pub ratings: Option<std::sync::Arc<crate::ratings::Ratings>>,
    /// Where finished matches go to be analysed; `None`: only on request.
    pub analyses: Option<std::sync::Arc<crate::analysis_queue::Analyses>>,
    /// Spectators the table takes; 0: no limit.
    pub spectators: usize,
    /// Where reports made at the table are filed; `None`: nowhere (tests).
    pub social: Option<std::sync::Arc<crate::social::Social>>,
    /// At a table without a host, how long the others have to ask for a
    /// rematch once one player has.
    pub rematch_wait: Duration,
}
