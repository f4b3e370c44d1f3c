//! What every connection shares: settings, players, the table registry,
//! metrics, and the handles for shutting down.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use euchre_bots::BotKind;
use euchre_protocol::{ErrorCode, PlayerInfo, Refusal, TableId, TableSettings};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use euchre_store::writer::Recorder;
use euchre_store::{CloseReason, LiveTable, Store, Write};

use crate::accounts::Accounts;
use crate::admission::Admission;
use crate::analysis_queue::Analyses;
use crate::api::limits::ApiLimits;
use crate::clock::now_ms;
use crate::config::{Settings, Timing};
use crate::identity::Players;
use crate::metrics::Metrics;
use crate::placement::{OneNode, Placement, RemotePools, RemoteTables, RemoteTournaments};
use crate::quick_play::QuickPlay;
use crate::ratings::Ratings;
use crate::registry::Registry;
use crate::social::Social;
use crate::table::{
    RestoreError, Table, TableConfig, TableHandle, TableMessage, TableSpec, quick_play_host,
    tournament_host,
};
use crate::tournaments::Tournaments;

/// The host id of the tables quick-play pools form: no player's.
pub use euchre_store::QUICK_PLAY_HOST;

/// What every connection, table and handler shares; cheap to clone (one
/// reference count), and one pointer in each connection's task rather than
/// a copy of every field.
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

/// The fields of [`AppState`], reached through it.
#[derive(Clone, Debug)]
pub struct Shared {
    pub settings: Arc<Settings>,
    pub players: Arc<Players>,
    pub accounts: Arc<Accounts>,
    pub ratings: Arc<Ratings>,
    pub registry: Registry,
    pub metrics: Arc<Metrics>,
    /// Every connection and table task, so shutdown can wait for them.
    pub tracker: TaskTracker,
    pub shutdown: CancellationToken,
    pub store: Arc<dyn Store>,
    pub recorder: Recorder,
    /// Where this node's tables live: their ids, where their writes become
    /// durable, what stops them ([`OneNode`] unless built otherwise).
    pub placement: Arc<dyn Placement>,
    /// The tables other nodes own, as this node's connections reach them
    /// (on one node, [`OneNode`]: none).
    pub tables_elsewhere: Arc<dyn RemoteTables>,
    /// The quick-play pools other nodes own (on one node, [`OneNode`]:
    /// none, this node owns them all).
    pub pools_elsewhere: Arc<dyn RemotePools>,
    /// The tournaments other nodes run, and the players connected there
    /// (on one node, [`OneNode`]: none).
    pub tournaments_elsewhere: Arc<dyn RemoteTournaments>,
    /// Connections per address and in all, the penalty box, new guests.
    pub admission: Arc<Admission>,
    /// The HTTP API's requests per address and imports.
    pub api_limits: Arc<ApiLimits>,
    /// Finished matches' analyses: stored, or queued for the blocking pool.
    pub analyses: Arc<Analyses>,
    /// The quick-play pools' mailbox ([`crate::quick_play`]).
    pub quick_play: QuickPlay,
    /// Mutes, blocks and reports ([`crate::social`]).
    pub social: Arc<Social>,
    /// The tournaments' director's mailbox ([`crate::tournaments`]).
    pub tournaments: Tournaments,
    /// The day's puzzle once chosen from those stored before the day (the
    /// UTC day's start, the puzzle's id): choosing it counts them, which
    /// every request need not do.
    pub daily_puzzle: Arc<std::sync::Mutex<Option<(i64, i64)>>>,
    next_conn: Arc<AtomicU64>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// The state of one node alone; [`AppState::with_placement`] places its
    /// tables otherwise (in a cluster).
    pub fn new(
        settings: Settings,
        shutdown: CancellationToken,
        store: Arc<dyn Store>,
        recorder: Recorder,
    ) -> AppState {
        let players =
            Arc::new(Players::new(store.clone(), recorder.clone(), settings.limits.known_tokens));
        let metrics = Arc::new(Metrics::default());
        let accounts =
            Arc::new(Accounts::new(store.clone(), players.clone(), &settings.accounts, &metrics));
        let registry = Registry::default();
        let ratings = Arc::new(Ratings::new(store.clone(), settings.ratings.clone()));
        let admission = Arc::new(Admission::new(&settings.limits, &settings.trusted_proxies));
        let api_limits = Arc::new(ApiLimits::new(&settings.api));
        let tracker = TaskTracker::new();
        let analyses = Arc::new(
            Analyses::new(
                store.clone(),
                settings.analysis.clone(),
                metrics.clone(),
                tracker.clone(),
                shutdown.clone(),
            )
            .waiting_for(recorder.health().clone()),
        );
        let quick_play = QuickPlay::new(settings.quick_play.mailbox);
        let social = Arc::new(Social::new(store.clone()));
        let one_node = Arc::new(OneNode::new(recorder.clone(), shutdown.clone()));
        AppState(Arc::new(Shared {
            quick_play,
            social,
            tournaments: Tournaments::default(),
            daily_puzzle: Arc::default(),
            settings: Arc::new(settings),
            players,
            accounts,
            ratings,
            store,
            placement: one_node.clone(),
            tables_elsewhere: one_node.clone(),
            pools_elsewhere: one_node.clone(),
            tournaments_elsewhere: one_node,
            recorder,
            registry,
            metrics,
            tracker,
            shutdown,
            admission,
            api_limits,
            analyses,
            next_conn: Arc::default(),
        }))
    }

    /// This state with its tables placed by `node`, which also reaches the
    /// tables and pools other nodes own (in a cluster: `node::Node`):
    /// before any table starts.
    pub fn with_placement<N>(self, node: Arc<N>) -> AppState
    where
        N: Placement + RemoteTables + RemotePools + RemoteTournaments + 'static,
    {
        let shared = Arc::unwrap_or_clone(self.0);
        AppState(Arc::new(Shared {
            placement: node.clone(),
            tables_elsewhere: node.clone(),
            pools_elsewhere: node.clone(),
            tournaments_elsewhere: node,
            ..shared
        }))
    }

    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn table_config(&self) -> TableConfig {
        let timing = &self.settings.timing;
        TableConfig {
            event_ring: self.settings.limits.event_ring,
            bot_delay: Timing::ms(timing.bot_delay_ms),
            reconnect_grace: Timing::ms(timing.reconnect_grace_ms),
            idle_close: Timing::ms(timing.reconnect_grace_ms.max(timing.table_close_ms)),
            metrics: self.metrics.clone(),
            ratings: Some(self.ratings.clone()),
            analyses: Some(self.analyses.clone()),
            spectators: self.settings.limits.spectators_per_table,
            social: Some(self.social.clone()),
            rematch_wait: Duration::from_secs(u64::from(self.settings.quick_play.rematch_seconds)),
        }
    }

    /// Creates and starts a table hosted by `host`, once its opening is durable.
    pub async fn create_table(
        &self,
        host: &PlayerInfo,
        mut settings: TableSettings,
    ) -> Result<(TableId, Option<String>), Refusal> {
        let bad = |message: String| ErrorCode::BadSettings.refusal(message);
        let rules = settings.resolve_rules().map_err(|error| bad(error.to_string()))?;
        let known = |name: &str| {
            BotKind::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = BotKind::ALL.iter().map(|kind| kind.name()).collect();
                bad(format!("unknown bot {name:?}; choose {} (or easy)", names.join(", ")))
            })
        };
        let bot_kind = known(&settings.bot)?;
        for seat_bot in &settings.seat_bots {
            known(&seat_bot.bot)?;
            let repeated = settings.seat_bots.iter().filter(|other| other.seat == seat_bot.seat);
            if !settings.bot_seats.contains(&seat_bot.seat) || repeated.count() > 1 {
                let seat = seat_bot.seat;
                return Err(bad(format!("seat_bots names seat {seat}: not a bot seat, or twice")));
            }
        }
        let mut seen = vec![false; usize::from(rules.players)];
        for seat in &settings.bot_seats {
            match seen.get_mut(usize::from(*seat)) {
                Some(taken) if !*taken => *taken = true,
                _ => {
                    let last = rules.players - 1;
                    return Err(bad(format!("bot seat {seat} is not a free seat 0 to {last}")));
                }
            }
        }
        if let Some(seconds) = settings.turn_seconds
            && !(5..=600).contains(&seconds)
        {
            return Err(bad("turn_seconds must be 5 to 600".to_owned()));
        }
        // Every rated game has a turn timer: nobody holds one hostage by
        // not acting (see `ratings`: running out of time too often forfeits).
        if settings.rated && settings.bot_seats.is_empty() && settings.turn_seconds.is_none() {
            settings.turn_seconds = Some(self.settings.ratings.turn_seconds.clamp(5, 600));
        }
        let limits = &self.settings.limits;
        if self.registry.hosted_by(&host.id) >= limits.tables_per_player
            || self.registry.len() >= limits.max_tables
        {
            return Err(ErrorCode::TooManyTables.into());
        }
        let (table_id, invite, _) =
            self.open_table(None, host, settings, rules, bot_kind, &[]).await?;
        Ok((table_id, invite))
    }

    /// Creates and starts a table for players a quick-play pool matched
    /// (`seats`: each seat's player, `None` for a bot), once its opening is
    /// durable. Hosted by nobody who plays (so nobody may rematch or start
    /// it by hand), private (no stranger may sit or watch: its invite is
    /// given to nobody), with a turn timer (no stranger can stall it).
    pub async fn create_pool_table(
        &self,
        preset: euchre_engine::Preset,
        rated: bool,
        seats: &[Option<PlayerInfo>],
    ) -> Result<(TableId, TableHandle), Refusal> {
        let pool = &self.settings.quick_play;
        let settings = TableSettings {
            preset,
            private: true,
            bot_seats: (0u8..).zip(seats).filter(|(_, p)| p.is_none()).map(|(s, _)| s).collect(),
            bot: pool.bot.clone(),
            turn_seconds: Some(pool.turn_seconds),
            rated,
            chat: self.settings.moderation.quick_play_chat,
            ..TableSettings::default()
        };
        let rules =
            settings.resolve_rules().map_err(|e| ErrorCode::BadSettings.refusal(e.to_string()))?;
        let bot_kind = BotKind::from_name(&settings.bot).unwrap_or(BotKind::Basic);
        if self.registry.len() >= self.settings.limits.max_tables {
            return Err(ErrorCode::Busy.refusal("the server has as many tables as it may"));
        }
        let host = quick_play_host();
        let (table_id, _, handle) =
            self.open_table(None, &host, settings, rules, bot_kind, seats).await?;
        Ok((table_id, handle))
    }

    /// Creates and starts a table of a tournament's round (`seats`: each
    /// seat's player, `None` for a bot), once its opening is durable; its
    /// game begins when the director says (`TableMessage::Begin`), once the
    /// round is saved: then a player not there is away, and a bot plays for
    /// them after the grace. Hosted by the director (no rematch), public
    /// (anyone may watch a tournament's games, and their history is
    /// everyone's; every seat is taken), with a turn timer; `rules` are
    /// the tournament's options over the preset (a round's hands, a best of
    /// three); `rated` as the tournament is (a bot in a seat makes the game
    /// casual anyway). In a cluster it lives in `tournament`'s shard, so
    /// it moves with the tournament.
    pub async fn create_tournament_table(
        &self,
        tournament: &str,
        preset: euchre_engine::Preset,
        rules: Option<serde_json::Map<String, serde_json::Value>>,
        rated: bool,
        seats: &[Option<PlayerInfo>],
    ) -> Result<TableId, Refusal> {
        let pool = &self.settings.quick_play;
        let settings = TableSettings {
            preset,
            rules,
            rated,
            private: false,
            bot_seats: (0u8..).zip(seats).filter(|(_, p)| p.is_none()).map(|(s, _)| s).collect(),
            bot: pool.bot.clone(),
            turn_seconds: Some(pool.turn_seconds),
            chat: self.settings.moderation.quick_play_chat,
            ..TableSettings::default()
        };
        let rules =
            settings.resolve_rules().map_err(|e| ErrorCode::BadSettings.refusal(e.to_string()))?;
        let bot_kind = BotKind::from_name(&settings.bot).unwrap_or(BotKind::Basic);
        let host = tournament_host();
        let (table_id, ..) =
            self.open_table(Some(tournament), &host, settings, rules, bot_kind, seats).await?;
        Ok(table_id)
    }

    /// Makes a table (its human `seats`, if any, already taken), stores its
    /// opening and starts it; `beside` what it lives with, if anything
    /// ([`Placement::new_table_id_beside`]).
    async fn open_table(
        &self,
        beside: Option<&str>,
        host: &PlayerInfo,
        settings: TableSettings,
        rules: euchre_engine::Rules,
        bot_kind: BotKind,
        seats: &[Option<PlayerInfo>],
    ) -> Result<(TableId, Option<String>, TableHandle), Refusal> {
        let bad = |message: String| ErrorCode::BadSettings.refusal(message);
        if self.shutdown.is_cancelled() {
            return Err(ErrorCode::ShuttingDown.into());
        }
        let table_id = match beside {
            Some(beside) => self.placement.new_table_id_beside(beside),
            None => self.placement.new_table_id(),
        };
        let table_id = table_id.ok_or(ErrorCode::Unavailable)?;
        let invite = settings.private.then(|| Uuid::new_v4().simple().to_string()[..10].to_owned());
        let opened = Write::TableOpened {
            id: table_id.clone(),
            host_id: host.id.clone(),
            settings: serde_json::to_value(&settings).map_err(|e| bad(e.to_string()))?,
            invite: invite.clone(),
            at: now_ms(),
        };
        let durability = self.placement.durability();
        let spec = TableSpec {
            id: table_id.clone(),
            host: host.clone(),
            settings,
            rules,
            bot_kind,
            invite: invite.clone(),
        };
        let (mut table, handle, mailbox) =
            Table::new(spec, self.table_config(), self.registry.clone(), Some(durability.clone()));
        table.seat_matched(seats);
        let seats = Write::TableSeats { id: table_id.clone(), seats: table.stored_seats() };
        let kept = durability.keep_and_wait(&table_id, vec![opened, seats]).await;
        kept.map_err(|_| Refusal::from(ErrorCode::Unavailable))?;
        self.spawn_table(table, handle.clone(), mailbox, &host.id);
        Ok((table_id, invite, handle))
    }

    /// Brings back a table that was open when the server stopped.
    /// One that cannot be restored is set aside ([`AppState::set_aside`]).
    pub fn restore_table(&self, live: LiveTable) -> Result<(), RestoreError> {
        // Its latest game may be over (awaiting a rematch): not unfinished.
        let unfinished = live.game.as_ref().filter(|game| game.record.winner.is_none());
        let (table_id, unfinished) = (live.id.clone(), unfinished.map(|game| game.id.clone()));
        let host_id = live.host.id().to_owned();
        let restored = Table::restore(
            live,
            self.table_config(),
            self.registry.clone(),
            Some(self.placement.durability()),
        );
        match restored {
            Ok((table, handle, mailbox)) => {
                self.spawn_table(table, handle, mailbox, &host_id);
                Ok(())
            }
            Err(error) => {
                self.set_aside(&table_id, unfinished, &error);
                Err(error)
            }
        }
    }

    /// Closes an open table that cannot be restored, so that it never stops
    /// the server, nor is tried again: its game in progress is abandoned,
    /// and its link and its players' history say that it was lost. Logged
    /// with its id and counted (`euchre_tables_set_aside`).
    pub fn set_aside(&self, table_id: &str, unfinished: Option<String>, error: &dyn fmt::Display) {
        tracing::error!(table = %table_id, unfinished = ?unfinished, %error,
            "cannot restore a table: closed as lost, its game abandoned");
        self.metrics.tables_set_aside.inc();
        let at = now_ms();
        let reason = CloseReason::Lost;
        let id = table_id.to_owned();
        let lost = vec![
            Write::TableAbandoned { id: id.clone(), reason, unfinished, at },
            Write::TableClosed { id, at },
        ];
        // Not waited for: should the write fail, the table is tried (and
        // set aside) again at the next start.
        self.placement.durability().keep(table_id, lost, Box::new(|_| {}));
    }

    fn spawn_table(
        &self,
        table: Table,
        handle: TableHandle,
        mailbox: tokio::sync::mpsc::Receiver<TableMessage>,
        host_id: &str,
    ) {
        let table_id = handle.id.to_string();
        self.registry.insert(handle, table.summary(), host_id, table.seated_players());
        self.metrics.tables_created.inc();
        let metrics = self.metrics.clone();
        // In a cluster a table also stops when its shard moves to another node.
        let shutdown = self.placement.stop_token(&table_id);
        metrics.tables_open.inc();
        self.tracker.spawn(async move {
            table.run(mailbox, shutdown).await;
            metrics.tables_open.dec();
        });
    }
}
