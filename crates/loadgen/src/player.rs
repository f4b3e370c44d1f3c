//! One seat's client: a WebSocket connection that plays a legal action as
//! soon as it is its turn, and times each action until its acknowledgement.
//!
//! The protocol is spoken by an [`euchre_client::Session`], driven from the
//! player's own task (one task per connection, as thousands of them need):
//! it says hello, numbers the commands and sets the tables up. Once play
//! begins the player reads the socket itself, only the fields it acts on of
//! each frame ([`Frame`]), so that the load generator costs as little as it
//! can beside the server it loads; it keeps each table's progress to tell a
//! current prompt from a stale one by the client library's rule.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use euchre_client::{Received, Session};
use euchre_engine::Action;
use euchre_protocol::{ClientMessage, Reply, TableSettings};
use futures_util::StreamExt;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::Think;
use crate::frame::{self, EventFields, Frame};
use crate::net::{self, Dial};
use crate::samples::Samples;

/// How long any one answer may take before the run counts as broken.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// How long to wait before acting again after a `rate_limited` refusal.
const RATE_LIMIT_BACKOFF: Duration = Duration::from_millis(100);

/// Where the run is: players act only in [`Phase::Run`]; in [`Phase::Stop`]
/// they finish the action in flight and hand themselves back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Setup,
    Run,
    Stop,
}

/// Counters shared by every player, which the run watches to stop at a
/// number of hands and to notice a stall.
#[derive(Debug, Default)]
pub struct Progress {
    pub actions: AtomicU64,
    pub hands: AtomicU64,
}

/// When each recent action at one table was sent, shared by the table's
/// clients: the others time how long the action took to reach them.
#[derive(Debug, Default)]
pub struct ActionClock {
    /// (the table's last seq when the action was sent, the acting seat,
    /// when it was sent),
    /// newest last.
    sent: Mutex<VecDeque<(u64, u8, Instant)>>,
}

impl ActionClock {
    /// Enough that a slow reader still finds the action it is reading of.
    const KEPT: usize = 64;

    fn sent(&self, seq: u64, seat: u8, at: Instant) {
        // A poisoned lock only means another client panicked: the run fails anyway.
        if let Ok(mut sent) = self.sent.lock() {
            if sent.len() == Self::KEPT {
                sent.pop_front();
            }
            sent.push_back((seq, seat, at));
        }
    }

    /// Who sent the action that `seq` is the first event of, and when, if
    /// a client of this table sent it.
    fn caused(&self, seq: u64) -> Option<(u8, Instant)> {
        let sent = self.sent.lock().ok()?;
        sent.iter().rev().find(|(at, _, _)| at + 1 == seq).map(|(_, seat, when)| (*seat, *when))
    }
}

/// What one client measured.
#[derive(Debug)]
pub struct Stats {
    /// Microseconds from sending each action to reading its `ack`.
    pub latency_us: Samples,
    /// Microseconds from another seat's client sending an action to this
    /// client reading the first event it caused.
    pub others_us: Samples,
    /// Actions acknowledged.
    pub actions: u64,
    /// Hands and games that ended at the table (counted by its host only,
    /// so each is counted once).
    pub hands: u64,
    pub games: u64,
    /// `error` messages received, by code.
    pub errors: BTreeMap<String, u64>,
    /// When this client had nothing left in flight after the stop.
    pub idle_at: Option<Instant>,
    /// Times it lost its connection and came back (with `--reconnect-for`).
    pub reconnects: u64,
    /// Tables that, coming back, showed a state older than an action this
    /// client had seen acknowledged: an acknowledged action lost.
    pub lost_acknowledged: u64,
}

impl Stats {
    fn new() -> anyhow::Result<Stats> {
        Ok(Stats {
            latency_us: Samples::new()?,
            others_us: Samples::new()?,
            actions: 0,
            hands: 0,
            games: 0,
            errors: BTreeMap::new(),
            idle_at: None,
            reconnects: 0,
            lost_acknowledged: 0,
        })
    }
}

/// One client: a connection, seated at one table or several.
#[derive(Debug)]
pub struct Player {
    session: Session,
    pub player_id: String,
    /// Where it sits: one seat at each of its tables.
    pub places: Vec<Place>,
    rng: ChaCha8Rng,
    think: Think,
    pub stats: Stats,
    progress: Arc<Progress>,
    /// How it came back as itself, and from where: to follow a
    /// `table_elsewhere`, or to come back after losing the connection.
    token: String,
    dial: Dial,
    url: String,
    /// How long to keep trying to come back after the connection is lost
    /// or the server says it is shutting down; `None`: the run fails then.
    reconnect_for: Option<Duration>,
    /// The server said it is shutting down (its connection is about to go).
    shutting_down: bool,
    /// A tournament's player: [`Player::play`] returns once the game at
    /// each of its places has ended, and nobody asks for a rematch.
    leave_after_game: bool,
}

/// One seat at one table, and the state of play there.
#[derive(Debug)]
pub struct Place {
    pub table: String,
    seat: u8,
    /// Whether this client made the table: it counts the table's hands and
    /// asks for rematches.
    pub host: bool,
    /// Hands that ended at this table (counted by its host only).
    pub hands: u64,
    /// The latest prompt: its seq and legal actions.
    turn: Option<(u64, Vec<Action>)>,
    /// The last seq read of this table.
    last_seq: u64,
    /// The seq of the last event read that moved the game, or of the last
    /// snapshot: a prompt older than it is stale.
    moved: u64,
    /// Not before this instant (think time, or a back-off).
    act_at: Instant,
    /// The action awaiting its answer: command id, the seq it was chosen
    /// at, when sent, and the least seq its first event can have.
    in_flight: Option<(u64, u64, Instant, u64)>,
    /// Actions acknowledged here, and the least seq the table must have
    /// reached for the last of them to have happened.
    pub acked: u64,
    acked_through: u64,
    rematch_wanted: bool,
    /// The table's game has ended (noted for a tournament's player).
    game_over: bool,
    /// Shared with the other clients at this table.
    clock: Arc<ActionClock>,
}

impl Place {
    fn new(table: &str, seat: u8, host: bool, clock: Arc<ActionClock>) -> Place {
        Place {
            table: table.to_owned(),
            seat,
            host,
            hands: 0,
            turn: None,
            last_seq: 0,
            moved: 0,
            act_at: Instant::now(),
            in_flight: None,
            acked: 0,
            acked_through: 0,
            rematch_wanted: false,
            game_over: false,
            clock,
        }
    }

    /// When this place needs the loop to wake without a message: an
    /// action's answer overdue, or the end of a think time.
    fn wake_at(&self, phase: Phase) -> Option<Instant> {
        if let Some((_, _, sent, _)) = self.in_flight {
            return Some(sent + PATIENCE);
        }
        match &self.turn {
            Some((seq, _)) if phase == Phase::Run && self.prompt_stands(*seq) => Some(self.act_at),
            _ => None,
        }
    }

    /// Notes `seq` read, which `moved` the game or not.
    fn read(&mut self, seq: u64, moved: bool) {
        self.last_seq = seq;
        if moved {
            self.moved = seq;
        }
    }

    /// Whether a prompt sent at `seq` still stands: no event read since
    /// moved the game.
    fn prompt_stands(&self, seq: u64) -> bool {
        self.moved <= seq
    }

    /// Fails if a dealt hand shows this seat another seat's cards.
    fn check_secrets(&self, event: &EventFields) -> anyhow::Result<()> {
        let own = usize::from(self.seat);
        let shown = event.hands.iter().flatten().enumerate();
        if let Some((seat, _)) =
            shown.filter(|(seat, _)| *seat != own).find(|(_, hand)| hand.is_some())
        {
            bail!("{}: seat {} was sent seat {seat}'s cards", self.table, self.seat);
        }
        Ok(())
    }
}

impl Player {
    /// Connects and says hello as a new guest.
    pub async fn connect(
        url: &str,
        name: &str,
        seed: u64,
        think: Think,
        progress: Arc<Progress>,
        dial: Dial,
    ) -> anyhow::Result<Player> {
        let connecting = net::connect(url, dial);
        let socket = tokio::time::timeout(PATIENCE, connecting)
            .await
            .context("connecting took too long")?
            .with_context(|| {
                format!(
                    "connecting to {url} (over the server's per-address limit? \
                     raise EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS)"
                )
            })?;
        let mut session = Session::over(socket);
        let welcome = tokio::time::timeout(PATIENCE, session.hello(name, None))
            .await
            .context("no welcome in time")?
            .context("saying hello")?;
        Ok(Player {
            session,
            player_id: welcome.player.id,
            places: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            think,
            stats: Stats::new()?,
            progress,
            token: welcome.token,
            dial,
            url: url.to_owned(),
            reconnect_for: None,
            shutting_down: false,
            leave_after_game: false,
        })
    }

    /// The token it came as, for the HTTP API.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Plays as a tournament's player: each [`Player::play`] ends with the
    /// game at its table.
    pub fn leaving_after_each_game(mut self) -> Player {
        self.leave_after_game = true;
        self
    }

    /// Opens the table a tournament seated it at, as the clients do: a
    /// seated player's `watch` sends its seat's snapshot, prompt included.
    /// The places of earlier rounds are forgotten.
    pub async fn open(
        &mut self,
        table: &str,
        seat: u8,
        host: bool,
        clock: Arc<ActionClock>,
    ) -> anyhow::Result<()> {
        self.places.clear();
        self.places.push(Place::new(table, seat, host, clock));
        let id = self.session.next_id();
        self.command(ClientMessage::Watch { id, table: table.to_owned(), invite: None }).await?;
        Ok(())
    }

    /// Reads (and drops) what comes, answering pings, until `until` is
    /// ready: a player between a tournament's tables.
    pub async fn idle_until<F: std::future::Future>(
        &mut self,
        until: F,
    ) -> anyhow::Result<F::Output> {
        tokio::pin!(until);
        loop {
            tokio::select! {
                output = &mut until => return Ok(output),
                received = next_text(self.session.socket()) => {
                    let (_, text) = received.context("reading from the server between tables")?;
                    if matches!(Frame::parse(text.as_str())?, Frame::Shutdown) {
                        bail!("the server is shutting down");
                    }
                }
            }
        }
    }

    /// Comes back for up to `limit` when the connection is lost or the
    /// server shuts down, instead of failing the run.
    pub fn reconnecting_for(mut self, limit: Option<Duration>) -> Player {
        self.reconnect_for = limit;
        self
    }

    /// Creates a table (whose host this client becomes when it sits).
    pub async fn create_table(&mut self, settings: TableSettings) -> anyhow::Result<String> {
        let id = self.session.next_id();
        match self.command(ClientMessage::CreateTable { id, settings }).await? {
            Reply::TableCreated { table, .. } => Ok(table),
            other => bail!("expected table_created, got {other:?}"),
        }
    }

    /// Takes `seat` at `table`; `clock` is shared by the table's clients.
    pub async fn sit(
        &mut self,
        table: &str,
        seat: u8,
        host: bool,
        clock: Arc<ActionClock>,
    ) -> anyhow::Result<()> {
        let id = self.session.next_id();
        let sit =
            ClientMessage::Sit { id, table: table.to_owned(), seat: Some(seat), invite: None };
        // The table's snapshot and first prompt, which come before the
        // answer, are read once play begins.
        self.places.push(Place::new(table, seat, host, clock));
        match self.command(sit).await? {
            Reply::Seated { .. } => Ok(()),
            other => bail!("expected seated at {table} seat {seat}, got {other:?}"),
        }
    }

    /// In a cluster: moves to the node that owns `table` when the server
    /// said where it lives (`table_elsewhere`), as a real client would, so
    /// that the table's messages stop crossing between nodes. A connection
    /// there says hello with the same token and watches the table (a seated
    /// player's `watch` sends the seat's snapshot, its prompt included),
    /// and only then is this one closed, so the seat never looks away.
    /// A client at several tables stays (they may live on several nodes),
    /// and one that cannot reach the node stays too, counted as an error.
    pub async fn follow_hint(&mut self, table: &str) -> anyhow::Result<()> {
        if self.places.len() != 1 {
            return Ok(());
        }
        // The node passes the hint on once the owner has answered the sit,
        // and the sit's own answer comes from the owner through NATS, so it
        // can come first: a ping's answer comes after anything the node
        // sent before it.
        let id = self.session.next_id();
        match self.command(ClientMessage::Ping { id }).await? {
            Reply::Pong => {}
            other => bail!("expected pong, got {other:?}"),
        }
        let Some(url) = self.session.elsewhere(table).map(str::to_owned) else { return Ok(()) };
        let opened = async {
            let socket = tokio::time::timeout(PATIENCE, net::connect(&url, self.dial))
                .await
                .context("connecting took too long")??;
            let mut session = Session::over(socket);
            tokio::time::timeout(PATIENCE, session.hello("", Some(&self.token)))
                .await
                .context("no welcome in time")??;
            anyhow::Ok(session)
        };
        let mut session = match opened.await {
            Ok(session) => session,
            // Played through this node all the same; the report shows it.
            Err(error) => {
                eprintln!("{table}: the table's node at {url} is out of reach: {error:#}");
                *self.stats.errors.entry("table_elsewhere_unreachable".into()).or_default() += 1;
                return Ok(());
            }
        };
        let id = session.next_id();
        let watch = ClientMessage::Watch { id, table: table.to_owned(), invite: None };
        let mut left = std::mem::replace(&mut self.session, session);
        self.command(watch).await?;
        left.close(Duration::from_secs(2)).await;
        Ok(())
    }

    /// Plays until the phase is [`Phase::Stop`] and nothing is in flight,
    /// then returns itself, still connected: a table whose players vanish
    /// would soon be played on by bots, adding hands nobody counted.
    pub async fn play(mut self, mut phase: watch::Receiver<Phase>) -> anyhow::Result<Player> {
        // What the session read while the tables were set up, read as every
        // later frame is (re-encoded: a few frames a seat, once).
        for Received { at, message } in self.session.take_early() {
            let text = serde_json::to_string(&message).context("re-encoding a set-up message")?;
            self.observe(at, &text, *phase.borrow())?;
        }
        // One timer, moved as the next wake-up moves, rather than one made
        // and dropped for every frame read.
        let wake = tokio::time::sleep_until(Instant::now().into());
        tokio::pin!(wake);
        let mut was = Phase::Setup;
        loop {
            let now = *phase.borrow_and_update();
            if was == Phase::Setup && now == Phase::Run {
                self.think_afresh();
            }
            was = now;
            let idle = self.places.iter().all(|place| place.in_flight.is_none());
            let games_over = self.leave_after_game
                && self.places.iter().all(|place| place.game_over && place.in_flight.is_none());
            if (now == Phase::Stop && idle) || games_over {
                self.stats.idle_at = Some(Instant::now());
                return Ok(self);
            }
            if now == Phase::Run {
                for index in 0..self.places.len() {
                    self.maybe_act(index).await?;
                }
            }
            let next = self.next_wake(now).into();
            if wake.deadline() != next {
                wake.as_mut().reset(next);
            }
            tokio::select! {
                received = next_text(self.session.socket()) => {
                    match received {
                        Ok((at, text)) => self.observe(at, text.as_str(), now)?,
                        Err(error) if self.reconnect_for.is_some() => {
                            eprintln!("{}: connection lost ({error:#}): coming back", self.player_id);
                            self.shutting_down = true;
                        }
                        Err(error) => return Err(error.context("reading from the server")),
                    }
                    if self.shutting_down {
                        self.come_back().await?;
                    }
                }
                changed = phase.changed() => {
                    changed.context("the run ended without saying stop")?;
                }
                () = &mut wake => {
                    for place in &self.places {
                        if let Some((id, _, sent, _)) = place.in_flight
                            && sent.elapsed() >= PATIENCE
                        {
                            bail!("no answer to action {id} at {} in {PATIENCE:?}", place.table);
                        }
                    }
                }
            }
        }
    }

    /// Keeps trying to come back (a server restarting, a node killed behind
    /// a load balancer) for `--reconnect-for`: says hello with its token and
    /// watches each of its tables again, whose snapshot (the seat's prompt
    /// included) must not be older than any action acknowledged there.
    /// An action in flight is forgotten: its answer was lost, so the run
    /// never counts it as acknowledged.
    async fn come_back(&mut self) -> anyhow::Result<()> {
        let limit = self.reconnect_for.unwrap_or_default();
        let deadline = Instant::now() + limit;
        self.shutting_down = false;
        for place in &mut self.places {
            place.in_flight = None;
            place.turn = None;
        }
        let tables: Vec<String> = self.places.iter().map(|place| place.table.clone()).collect();
        loop {
            let attempt = async {
                let socket = tokio::time::timeout(PATIENCE, net::connect(&self.url, self.dial))
                    .await
                    .context("connecting took too long")??;
                let mut session = Session::over(socket);
                tokio::time::timeout(PATIENCE, session.hello("", Some(&self.token)))
                    .await
                    .context("no welcome in time")??;
                for table in &tables {
                    let id = session.next_id();
                    let watch = ClientMessage::Watch { id, table: table.clone(), invite: None };
                    tokio::time::timeout(PATIENCE, session.request(&watch))
                        .await
                        .context("no answer to watch in time")??;
                }
                anyhow::Ok(session)
            };
            match attempt.await {
                Ok(session) => {
                    self.session = session;
                    break;
                }
                Err(error) if Instant::now() < deadline => {
                    let _ = error;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(error) => {
                    return Err(error.context(format!("not back within {limit:?}")));
                }
            }
        }
        self.stats.reconnects += 1;
        for Received { at, message } in self.session.take_early() {
            let text = serde_json::to_string(&message).context("re-encoding a message")?;
            self.observe(at, &text, Phase::Run)?;
        }
        Ok(())
    }

    /// Says goodbye; errors do not matter any more.
    pub async fn close(mut self) {
        self.session.close(Duration::from_secs(2)).await;
    }

    /// Sends a set-up command and waits for its answer; what comes
    /// meanwhile is read once play begins.
    async fn command(&mut self, message: ClientMessage) -> anyhow::Result<Reply> {
        let id = message.id();
        tokio::time::timeout(PATIENCE, self.session.request(&message))
            .await
            .with_context(|| format!("no answer to command {id} in {PATIENCE:?}"))?
            .with_context(|| format!("command {id}"))
    }

    /// The next instant the loop must wake without a message.
    fn next_wake(&self, phase: Phase) -> Instant {
        self.places
            .iter()
            .filter_map(|place| place.wake_at(phase))
            .min()
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(3600))
    }

    /// Acts on the current prompt at one place, if any, keeping one action
    /// in flight there.
    async fn maybe_act(&mut self, index: usize) -> anyhow::Result<()> {
        let place = &mut self.places[index];
        if place.in_flight.is_some() {
            return Ok(());
        }
        if place.rematch_wanted {
            place.rematch_wanted = false;
            let table = place.table.clone();
            let id = self.session.next_id();
            self.send(&ClientMessage::Rematch { id, table }).await?;
        }
        let place = &self.places[index];
        let Some((seq, actions)) = &place.turn else { return Ok(()) };
        // A prompt the game has moved past is stale (the client library's rule).
        if !place.prompt_stands(*seq) || Instant::now() < place.act_at {
            return Ok(());
        }
        let seq = *seq;
        let action = pick(actions, &mut self.rng);
        let table = place.table.clone();
        let id = self.session.next_id();
        // The action's first event follows the last one read (a table's
        // notice may have come after the prompt).
        let last = place.last_seq.max(seq);
        let act = ClientMessage::Act { id, table, action };
        let sent = self.send(&act).await?;
        let place = &mut self.places[index];
        place.clock.sent(last, place.seat, sent);
        place.in_flight = Some((id, seq, sent, last + 1));
        Ok(())
    }

    /// Sends a message, returning when it was written.
    async fn send(&mut self, message: &ClientMessage) -> anyhow::Result<Instant> {
        self.session.send(message).await.context("sending to the server")
    }

    /// The place at `table`, if this client sits there.
    fn place(&mut self, table: &str) -> Option<&mut Place> {
        self.places.iter_mut().find(|place| place.table == table)
    }

    /// A think time drawn afresh.
    fn pause(&mut self) -> Duration {
        match self.think {
            Think::Fixed(pause) => pause,
            // Inverse transform: -ln(1 - u) is exponential with mean 1.
            Think::Exponential(mean) => mean.mul_f64(-(1.0 - self.rng.random::<f64>()).ln()),
        }
    }

    fn offer(&mut self, table: &str, seq: u64, actions: Vec<Action>) {
        let pause = self.pause();
        if let Some(place) = self.place(table) {
            place.turn = Some((seq, actions));
            place.act_at = Instant::now() + pause;
        }
    }

    /// As the run begins, the turns offered during set-up start thinking
    /// then. Their think times ran out long ago, and every table acting in
    /// the same instant is a burst no human crowd makes: it measured the
    /// queue behind it, not the paced load.
    fn think_afresh(&mut self) {
        let start = Instant::now();
        for index in 0..self.places.len() {
            if self.places[index].turn.is_some() {
                let pause = self.pause();
                self.places[index].act_at = start + pause;
            }
        }
    }

    /// Keeps track of the tables and of the answers to actions, from a
    /// frame's text read at `arrived`.
    fn observe(&mut self, arrived: Instant, text: &str, phase: Phase) -> anyhow::Result<()> {
        let micros_since =
            |sent: Instant| u64::try_from((arrived - sent).as_micros()).unwrap_or(u64::MAX).max(1);
        match Frame::parse(text)? {
            Frame::Event { table, seq, event } => {
                let Some(place) = self.places.iter_mut().find(|place| place.table == table) else {
                    return Ok(());
                };
                place.read(seq, frame::moves_game(event.as_ref()));
                if let Some((actor, sent)) = place.clock.caused(seq)
                    && actor != place.seat
                {
                    self.stats.others_us.record(micros_since(sent));
                }
                let Some(event) = event else { return Ok(()) };
                match &*event.event {
                    "hand_dealt" => place.check_secrets(&event)?,
                    "hand_ended" if place.host => {
                        place.hands += 1;
                        self.stats.hands += 1;
                        self.progress.hands.fetch_add(1, Ordering::Relaxed);
                    }
                    "game_won" if self.leave_after_game => {
                        place.game_over = true;
                        self.stats.games += u64::from(place.host);
                    }
                    "game_won" if place.host => {
                        self.stats.games += 1;
                        place.rematch_wanted = phase != Phase::Stop;
                    }
                    _ => {}
                }
            }
            Frame::Snapshot { table, seq, actions } => {
                let mut lost = false;
                if let Some(place) = self.place(&table) {
                    lost = seq < place.acked_through;
                    if lost {
                        eprintln!(
                            "{table}: back at seq {seq}, before an action acknowledged at seq {}",
                            place.acked_through
                        );
                    }
                    place.read(seq, true);
                }
                self.stats.lost_acknowledged += u64::from(lost);
                if !actions.is_empty() {
                    self.offer(&table, seq, actions);
                }
            }
            Frame::YourTurn { table, seq, actions } => self.offer(&table, seq, actions),
            Frame::Ack { id } => {
                let answered = self.places.iter_mut().find_map(|place| match place.in_flight {
                    Some((sent_id, seq, sent, first)) if sent_id == id => {
                        Some((place, seq, sent, first))
                    }
                    _ => None,
                });
                if let Some((place, seq, sent, first)) = answered {
                    self.stats.latency_us.record(micros_since(sent));
                    self.stats.actions += 1;
                    self.progress.actions.fetch_add(1, Ordering::Relaxed);
                    place.in_flight = None;
                    place.acked += 1;
                    place.acked_through = place.acked_through.max(first);
                    if place.turn.as_ref().is_some_and(|(at, _)| *at == seq) {
                        place.turn = None;
                    }
                }
            }
            Frame::Error { id, code, message } => {
                *self.stats.errors.entry(code.clone().into_owned()).or_default() += 1;
                let refused = self.places.iter_mut().find_map(|place| match place.in_flight {
                    Some((sent_id, seq, _, _)) if Some(sent_id) == id => Some((place, seq)),
                    _ => None,
                });
                if let Some((place, seq)) = refused {
                    place.in_flight = None;
                    if code == "rate_limited" {
                        // The action did not happen: try it again a little later.
                        place.act_at = Instant::now() + RATE_LIMIT_BACKOFF;
                    } else if place.turn.as_ref().is_some_and(|(at, _)| *at == seq) {
                        // A legal action refused is a server bug; the run
                        // reports it, and this seat waits for a new prompt.
                        eprintln!("{}: action refused: {code}: {message}", place.table);
                        place.turn = None;
                    }
                }
            }
            Frame::Shutdown if self.reconnect_for.is_some() => self.shutting_down = true,
            Frame::Shutdown => bail!("the server is shutting down"),
            Frame::Other => {}
        }
        Ok(())
    }
}

/// The next text frame on `socket`, with the instant it was read; pings are
/// answered underneath. Cancel-safe, as the socket's stream is.
async fn next_text(socket: &mut euchre_client::Socket) -> anyhow::Result<(Instant, Utf8Bytes)> {
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => return Ok((Instant::now(), text)),
            Some(Ok(Message::Close(frame))) => {
                let why = frame.map_or_else(String::new, |f| format!(": {} {}", f.code, f.reason));
                bail!("closed by the server{why}");
            }
            Some(Ok(_)) => {}
            Some(Err(error)) => return Err(error.into()),
            None => bail!("the server closed the connection"),
        }
    }
}

/// A random legal action that keeps the game moving: never a concession,
/// and making trump twice as often as passing, so that few hands are
/// thrown in.
fn pick(actions: &[Action], rng: &mut ChaCha8Rng) -> Action {
    let useful: Vec<Action> =
        actions.iter().copied().filter(|a| !matches!(a, Action::Concede | Action::Pass)).collect();
    let may_pass = actions.contains(&Action::Pass);
    if !useful.is_empty() && (!may_pass || rng.random_range(0..3) > 0) {
        useful[rng.random_range(0..useful.len())]
    } else {
        actions.first().copied().unwrap_or(Action::Pass)
    }
}
