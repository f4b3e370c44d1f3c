//! The pools' task: the requests waiting in each pool, the teams forming,
//! the waves, and the tables being made for those matched.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use euchre_engine::Preset;
use euchre_matcher::{Entry, Millis, Policy, Shape};
use euchre_protocol::{
    ErrorCode, PlayerInfo, QuickPlayEndReason, Refusal, Reply, ServerMessage, TableId, TableStatus,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Ask, PoolMessage};
use crate::config::{QuickPlaySettings, Timing};
use crate::frame::Frame;
use crate::state::AppState;
use crate::table::{ConnId, Outbox, Request, TableCommand, TableMessage};

/// One pool: a preset, rated or casual.
type PoolKey = (Preset, bool);

/// Connections that may hold one request: a player's tabs and devices.
const HOLDERS_MAX: usize = 8;
/// Characters of a team code, from [`CODE_ALPHABET`]: 50 random bits.
const CODE_LEN: usize = 10;
/// No look-alikes (0/o, 1/l/i).
const CODE_ALPHABET: &[u8; 32] = b"23456789abcdefghjkmnpqrstuvwxyz_";
/// Waves of one pool at least this far apart, however many requests come.
const MIN_WAVE_GAP: Duration = Duration::from_millis(100);

/// A matched player, their request's id and the connections holding it.
struct Matched {
    player: PlayerInfo,
    request_id: u64,
    holders: Vec<(ConnId, Outbox)>,
}

/// A seat's matched player, or `None` for a seat a bot takes.
type Seating = Option<Matched>;

/// A player's side of a team.
#[derive(Clone, Debug, PartialEq)]
enum Team {
    Alone,
    /// Asked with `invite_partner`: the code, and the partner once joined.
    Inviting {
        code: String,
        partner: Option<String>,
    },
    /// Joined `inviter`'s request with its code.
    Joined {
        inviter: String,
    },
}

/// A waiting request.
#[derive(Debug)]
struct Waiting {
    player: PlayerInfo,
    /// Its id, which its ack and its end name.
    request_id: u64,
    pool: PoolKey,
    /// The player's connections that get its notices.
    holders: Vec<(ConnId, Outbox)>,
    rating: f64,
    deviation: f64,
    since: Millis,
    bots_after: Option<Millis>,
    team: Team,
    /// Since when the player has had no connection.
    gone_since: Option<Millis>,
    /// The client's address as the pool counts it (`admission::address_key`).
    address: Option<IpAddr>,
    /// When the player was last told how many wait.
    noticed: Millis,
    /// Everyone a block stands between the player and: never seated with them.
    avoid: HashSet<String>,
}

impl Waiting {
    fn tell(&self, message: &ServerMessage, except: Option<ConnId>) {
        for (conn, outbox) in &self.holders {
            if Some(*conn) != except {
                outbox.send(message.clone());
            }
        }
    }
}

struct Pools {
    state: AppState,
    settings: QuickPlaySettings,
    policy: Policy,
    grace: Millis,
    started: Instant,
    requests: HashMap<String, Waiting>,
    /// The players whose requests are matched in each pool: those alone and
    /// those inviting (a team is matched once its partner joined).
    pools: HashMap<PoolKey, HashSet<String>>,
    codes: HashMap<String, String>,
    /// Requests in each pool from each address, gone connections' too.
    per_address: HashMap<(PoolKey, IpAddr), usize>,
    /// Players seated by a pool, with their requests' ids, at the table
    /// (`None`: being made).
    live: HashMap<String, (u64, Option<TableId>)>,
    due: HashSet<PoolKey>,
    last_wave: HashMap<PoolKey, Instant>,
    seated: mpsc::Sender<PoolMessage>,
}

/// Runs the pools of `state` until the server shuts down; every request
/// still waiting then ends with `shutdown`.
pub async fn run(state: AppState) {
    let Some(mut mailbox) = state.quick_play.take_mailbox() else { return };
    let settings = state.settings.quick_play.clone();
    let mut pools = Pools {
        grace: state.settings.timing.reconnect_grace_ms,
        seated: state.quick_play.sender(),
        policy: Policy::default(),
        started: Instant::now(),
        requests: HashMap::new(),
        pools: HashMap::new(),
        codes: HashMap::new(),
        per_address: HashMap::new(),
        live: HashMap::new(),
        due: HashSet::new(),
        last_wave: HashMap::new(),
        settings,
        state,
    };
    let shutdown = pools.state.shutdown.clone();
    let every = Timing::ms(pools.settings.wave_ms.max(1));
    let mut waves = tokio::time::interval(every);
    waves.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let next_due = pools.next_due();
        tokio::select! {
            message = mailbox.recv() => match message {
                Some(message) => pools.handle(message),
                None => break,
            },
            _ = waves.tick() => pools.tick(),
            () = sleep_until(next_due) => pools.run_due(),
            () = shutdown.cancelled() => break,
        }
    }
    pools.end_all();
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The `quick_play_ended` notice of request `request` for `reason`.
pub fn ended(reason: QuickPlayEndReason, request: u64) -> ServerMessage {
    let message = match reason {
        QuickPlayEndReason::Cancelled => "you cancelled quick play",
        QuickPlayEndReason::PartnerCancelled => "your partner cancelled quick play",
        QuickPlayEndReason::PartnerLeft => "your partner left",
        QuickPlayEndReason::Expired => "nobody was found in time; ask again",
        QuickPlayEndReason::Shutdown => "the server is shutting down; ask again after reconnecting",
        QuickPlayEndReason::OwnerLost => "the server holding the pool went away; ask again",
        QuickPlayEndReason::Unavailable => "the table could not be made; ask again",
    };
    ServerMessage::QuickPlayEnded { reason, message: message.to_owned(), request }
}

fn new_team_code() -> String {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes.iter().take(CODE_LEN).map(|b| char::from(CODE_ALPHABET[usize::from(b & 31)])).collect()
}

fn shape(pool: PoolKey) -> Shape {
    let rules = pool.0.rules();
    Shape { seats: rules.players, partnerships: rules.partnerships() }
}

impl Pools {
    fn now(&self) -> Millis {
        self.started.elapsed().as_millis() as Millis
    }

    /// Ends every request with `shutdown`.
    fn end_all(&mut self) {
        let everyone: Vec<String> = self.requests.keys().cloned().collect();
        for player in everyone {
            self.end(&player, QuickPlayEndReason::Shutdown, None);
        }
    }

    fn handle(&mut self, message: PoolMessage) {
        match message {
            PoolMessage::Close { done } => {
                self.end_all();
                let _ = done.send(());
            }
            PoolMessage::Ask(ask) => {
                let (id, outbox) = (ask.id, ask.outbox.clone());
                let claimed = (ask.player.id.clone(), ask.request_id);
                let answer = match self.ask(ask) {
                    Ok(reply) => ServerMessage::Ack { id, reply },
                    Err(refusal) => {
                        self.release(&claimed.0, claimed.1);
                        refusal.into_message(Some(id))
                    }
                };
                outbox.send(answer);
            }
            PoolMessage::Cancel { id, conn, player_id, outbox } => {
                if !self.requests.contains_key(&player_id) {
                    outbox.send(ErrorCode::NotQueued.to_message(Some(id)));
                    return;
                }
                self.end_team(&player_id, QuickPlayEndReason::PartnerCancelled);
                self.end(&player_id, QuickPlayEndReason::Cancelled, Some(conn));
                let done = ServerMessage::Ack { id, reply: Reply::Done };
                match self.state.quick_play.claims() {
                    // Answered once the claim's release is written, so that
                    // the player may ask at once in a pool of another node.
                    Some(claims) => {
                        let written = claims.written();
                        tokio::spawn(async move {
                            written.await;
                            outbox.send(done);
                        });
                    }
                    None => {
                        outbox.send(done);
                    }
                }
            }
            PoolMessage::Attach { conn, player_id, outbox } => {
                if let Some(waiting) = self.requests.get_mut(&player_id)
                    && waiting.holders.len() < HOLDERS_MAX
                    && !waiting.holders.iter().any(|(held, _)| *held == conn)
                {
                    waiting.holders.push((conn, outbox));
                    waiting.gone_since = None;
                }
            }
            PoolMessage::Gone { conn, player_id } => {
                let now = self.now();
                if let Some(waiting) = self.requests.get_mut(&player_id) {
                    waiting.holders.retain(|(held, _)| *held != conn);
                    if waiting.holders.is_empty() {
                        waiting.gone_since.get_or_insert(now);
                    }
                }
            }
            PoolMessage::Disown { shard, shards } => {
                let lost: Vec<String> = self
                    .requests
                    .iter()
                    .filter(|(_, waiting)| {
                        let (preset, rated) = waiting.pool;
                        euchre_cluster::shard_of(&super::pool_name(preset, rated), shards) == shard
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                for id in lost {
                    self.end(&id, QuickPlayEndReason::OwnerLost, None);
                }
            }
            PoolMessage::Seated { players, table } => {
                for (player, request_id) in players {
                    match &table {
                        Some(table) => {
                            if let Some(claims) = self.state.quick_play.claims() {
                                claims.seat(&player, request_id, table);
                            }
                            self.live.insert(player, (request_id, Some(table.clone())));
                        }
                        None => {
                            self.live.remove(&player);
                            self.release(&player, request_id);
                        }
                    }
                }
            }
        }
    }

    /// Whether the player sits at a live table a pool formed (or one being made).
    fn in_pool_game(&mut self, player_id: &str) -> bool {
        let Some((request_id, table)) = self.live.get(player_id) else { return false };
        let live = table.as_ref().is_none_or(|table| self.table_lives(table));
        if !live {
            let request_id = *request_id;
            self.live.remove(player_id);
            self.release(player_id, request_id);
        }
        live
    }

    fn table_lives(&self, table: &TableId) -> bool {
        self.state.registry.summary(table).is_some_and(|s| s.status != TableStatus::Finished)
    }

    /// Lets the cluster know the player's request `request_id` (or its
    /// table) is over.
    fn release(&self, player_id: &str, request_id: u64) {
        if let Some(claims) = self.state.quick_play.claims() {
            claims.release(player_id, request_id);
        }
    }

    fn ask(&mut self, ask: Ask) -> Result<Reply, Refusal> {
        let Ask { conn, player, outbox, request, rating, request_id, address, avoid, .. } = ask;
        request.check()?;
        if self.requests.contains_key(&player.id) {
            return Err(ErrorCode::AlreadyQueued.into());
        }
        if self.in_pool_game(&player.id) {
            return Err(ErrorCode::InQuickPlayGame.into());
        }
        if self.state.shutdown.is_cancelled() {
            return Err(ErrorCode::ShuttingDown.into());
        }
        let pool = (request.preset, request.rated);
        let address = address.map(crate::admission::address_key);
        let cap = self.settings.requests_per_address;
        if let Some(address) = address
            && cap > 0
            && self.per_address.get(&(pool, address)).copied().unwrap_or(0) >= cap
        {
            return Err(ErrorCode::Busy.refusal(
                "this address has as many requests in this pool as it may; wait for one",
            ));
        }
        let members = self.pools.get(&pool).map_or(0, HashSet::len);
        if members >= self.settings.max_waiting_per_pool && !self.make_room(pool) {
            return Err(ErrorCode::Busy.refusal("this pool is full; try again in a moment"));
        }
        let now = self.now();
        let team = match (&request.team, request.invite_partner) {
            (Some(code), _) => {
                let inviter = self.team_to_join(code, &player.id, pool)?;
                Team::Joined { inviter }
            }
            (None, true) => {
                let code = loop {
                    let code = new_team_code();
                    if !self.codes.contains_key(&code) {
                        break code;
                    }
                };
                self.codes.insert(code.clone(), player.id.clone());
                Team::Inviting { code, partner: None }
            }
            (None, false) => Team::Alone,
        };
        let (rating, deviation) = rating.unwrap_or((1500.0, 350.0));
        let waiting = Waiting {
            player: player.clone(),
            request_id,
            pool,
            holders: vec![(conn, outbox)],
            rating,
            deviation,
            since: now,
            bots_after: request.bots_after_seconds.map(|s| Millis::from(s) * 1000),
            team: team.clone(),
            gone_since: None,
            address,
            noticed: now,
            avoid: avoid.into_iter().collect(),
        };
        if let Some(address) = address {
            *self.per_address.entry((pool, address)).or_default() += 1;
        }
        let code = match &team {
            Team::Inviting { code, .. } => Some(code.clone()),
            _ => None,
        };
        self.requests.insert(player.id.clone(), waiting);
        match team {
            Team::Joined { inviter } => {
                if let Some(lead) = self.requests.get_mut(&inviter) {
                    // The code is used: nobody else may join with it.
                    if let Team::Inviting { code, .. } = &lead.team {
                        self.codes.remove(code);
                    }
                    lead.team =
                        Team::Inviting { code: String::new(), partner: Some(player.id.clone()) };
                    // The team waits from now: its wait starts when it is whole.
                    lead.since = now;
                }
                self.tell_partners(&inviter, &player.id);
            }
            Team::Inviting { .. } | Team::Alone => {
                self.pools.entry(pool).or_default().insert(player.id.clone());
            }
        }
        // At most two players a member (a team): enough, perhaps, for a
        // table at once. Waves are at least `MIN_WAVE_GAP` apart however
        // often this says so, and it costs no walk over the pool.
        let members = self.pools.get(&pool).map_or(0, HashSet::len);
        if members * 2 >= usize::from(shape(pool).seats) {
            self.due.insert(pool);
        }
        Ok(Reply::Queued {
            preset: request.preset,
            rated: request.rated,
            team: code,
            request: request_id,
        })
    }

    /// Ends the request in the full `pool` whose player has had no
    /// connection the longest, as the grace would: a request nobody holds
    /// keeps no place from one who is here. False if every player is here.
    fn make_room(&mut self, pool: PoolKey) -> bool {
        let Some(members) = self.pools.get(&pool) else { return false };
        let longest_gone = members
            .iter()
            .filter_map(|id| Some((self.requests.get(id)?.gone_since?, id)))
            .min()
            .map(|(_, id)| id.clone());
        let Some(id) = longest_gone else { return false };
        self.end_team(&id, QuickPlayEndReason::PartnerLeft);
        if let Some(waiting) = self.remove(&id) {
            self.release(&id, waiting.request_id);
        }
        true
    }

    /// The inviter whose team `code` lets `player_id` join in `pool`.
    fn team_to_join(&self, code: &str, player_id: &str, pool: PoolKey) -> Result<String, Refusal> {
        let unknown = || ErrorCode::BadTeam.refusal("no team waits with that code");
        // Codes are written in lower case; the browser shows them in capitals.
        let code = code.trim().to_ascii_lowercase();
        let inviter = self.codes.get(&code).ok_or_else(unknown)?;
        let lead = self.requests.get(inviter).ok_or_else(unknown)?;
        if inviter == player_id {
            return Err(
                ErrorCode::BadTeam.refusal("that is your own team code: give it to your partner")
            );
        }
        if !matches!(&lead.team, Team::Inviting { partner: None, .. }) {
            return Err(unknown());
        }
        if lead.pool != pool {
            let (preset, rated) = lead.pool;
            let kind = if rated { "rated" } else { "casual" };
            return Err(ErrorCode::BadTeam.refusal(format!(
                "your partner asked for a {kind} game of {preset:?}: ask for the same"
            )));
        }
        Ok(inviter.clone())
    }

    fn tell_partners(&mut self, inviter: &str, partner: &str) {
        let waiting =
            self.requests.get(inviter).map(|lead| self.players_in(lead.pool)).unwrap_or(0);
        for (to, other) in [(inviter, partner), (partner, inviter)] {
            let (Some(to), Some(other)) = (self.requests.get(to), self.requests.get(other)) else {
                continue;
            };
            let (preset, rated) = to.pool;
            to.tell(
                &ServerMessage::QuickPlayWaiting {
                    preset,
                    rated,
                    waiting: waiting as u32,
                    partner: Some(other.player.clone()),
                },
                None,
            );
        }
    }

    /// Players waiting in `pool`, partners included.
    fn players_in(&self, pool: PoolKey) -> usize {
        let Some(members) = self.pools.get(&pool) else { return 0 };
        members
            .iter()
            .map(|id| match self.requests.get(id).map(|w| &w.team) {
                Some(Team::Inviting { partner: Some(_), .. }) => 2,
                _ => 1,
            })
            .sum()
    }

    /// The partner of `player_id`, if their team is whole.
    fn partner_of(&self, player_id: &str) -> Option<String> {
        match &self.requests.get(player_id)?.team {
            Team::Inviting { partner, .. } => partner.clone(),
            Team::Joined { inviter } => Some(inviter.clone()),
            Team::Alone => None,
        }
    }

    /// Ends the request of `player_id`'s partner, telling them `reason`.
    fn end_team(&mut self, player_id: &str, reason: QuickPlayEndReason) {
        if let Some(partner) = self.partner_of(player_id) {
            if let Some(waiting) = self.requests.get_mut(&partner) {
                // Unlinked first, so ending the partner does not come back here.
                waiting.team = Team::Alone;
            }
            self.end(&partner, reason, None);
        }
    }

    /// Ends `player_id`'s request with no table; tells its holders (but
    /// `except`) why.
    fn end(&mut self, player_id: &str, reason: QuickPlayEndReason, except: Option<ConnId>) {
        if let Some(waiting) = self.remove(player_id) {
            waiting.tell(&ended(reason, waiting.request_id), except);
            self.release(player_id, waiting.request_id);
        }
    }

    /// Ends `player_id`'s request with no word to the player (who left, or
    /// was matched: the table's news comes next).
    fn remove(&mut self, player_id: &str) -> Option<Waiting> {
        let waiting = self.requests.remove(player_id)?;
        if let Some(members) = self.pools.get_mut(&waiting.pool) {
            members.remove(player_id);
        }
        if let Some(address) = waiting.address
            && let Some(count) = self.per_address.get_mut(&(waiting.pool, address))
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.per_address.remove(&(waiting.pool, address));
            }
        }
        // A player holds at most the code of their own request.
        if let Team::Inviting { code, .. } = &waiting.team {
            self.codes.remove(code);
        }
        match &waiting.team {
            // A partner who joined leaves the inviter waiting for another.
            Team::Joined { inviter } => {
                if let Some(lead) = self.requests.get_mut(inviter)
                    && lead.team != Team::Alone
                {
                    lead.team = Team::Alone;
                }
            }
            Team::Inviting { partner: Some(partner), .. } => {
                if let Some(joined) = self.requests.get_mut(partner) {
                    joined.team = Team::Alone;
                    let pool = joined.pool;
                    self.pools.entry(pool).or_default().insert(partner.clone());
                }
            }
            _ => {}
        }
        Some(waiting)
    }

    /// The periodic work: requests whose time is up end, every pool has a
    /// wave, and the waiting are told how many wait.
    fn tick(&mut self) {
        let now = self.now();
        let mut expired = Vec::new();
        let mut left = Vec::new();
        for (id, waiting) in &self.requests {
            if waiting.gone_since.is_some_and(|gone| now.saturating_sub(gone) >= self.grace) {
                left.push(id.clone());
            } else if now.saturating_sub(waiting.since) >= self.settings.max_wait_ms
                || matches!(waiting.team, Team::Inviting { partner: None, .. })
                    && now.saturating_sub(waiting.since) >= self.settings.team_code_ms
            {
                expired.push(id.clone());
            }
        }
        for id in left {
            self.end_team(&id, QuickPlayEndReason::PartnerLeft);
            if let Some(waiting) = self.remove(&id) {
                self.release(&id, waiting.request_id);
            }
        }
        for id in expired {
            self.end_team(&id, QuickPlayEndReason::Expired);
            self.end(&id, QuickPlayEndReason::Expired, None);
        }
        let pools: Vec<PoolKey> = self.pools.keys().copied().collect();
        for pool in pools {
            self.wave(pool);
        }
        self.pools.retain(|_, members| !members.is_empty());
        self.notify_waiting(now);
        let over: Vec<(String, u64)> = self
            .live
            .iter()
            .filter(|(_, (_, table))| table.as_ref().is_some_and(|table| !self.table_lives(table)))
            .map(|(player, (request_id, _))| (player.clone(), *request_id))
            .collect();
        for (player, request_id) in over {
            self.live.remove(&player);
            self.release(&player, request_id);
        }
    }

    fn notify_waiting(&mut self, now: Millis) {
        let counts: HashMap<PoolKey, usize> =
            self.pools.keys().map(|&pool| (pool, self.players_in(pool))).collect();
        let every = self.settings.waiting_notice_ms;
        let mut told = Vec::new();
        for (id, waiting) in &self.requests {
            if now.saturating_sub(waiting.noticed) < every {
                continue;
            }
            let partner =
                self.partner_of(id).and_then(|p| self.requests.get(&p)).map(|p| p.player.clone());
            let (preset, rated) = waiting.pool;
            let count = counts.get(&waiting.pool).copied().unwrap_or(0) as u32;
            waiting.tell(
                &ServerMessage::QuickPlayWaiting { preset, rated, waiting: count, partner },
                None,
            );
            told.push(id.clone());
        }
        for id in told {
            if let Some(waiting) = self.requests.get_mut(&id) {
                waiting.noticed = now;
            }
        }
    }

    fn next_due(&self) -> Option<Instant> {
        self.due
            .iter()
            .map(|pool| {
                self.last_wave.get(pool).map_or_else(Instant::now, |last| *last + MIN_WAVE_GAP)
            })
            .min()
    }

    fn run_due(&mut self) {
        let now = Instant::now();
        let ready: Vec<PoolKey> = self
            .due
            .iter()
            .copied()
            .filter(|pool| self.last_wave.get(pool).is_none_or(|last| *last + MIN_WAVE_GAP <= now))
            .collect();
        for pool in ready {
            self.wave(pool);
        }
    }

    /// Forms what tables the pool can now, and has them made.
    fn wave(&mut self, pool: PoolKey) {
        self.due.remove(&pool);
        self.last_wave.insert(pool, Instant::now());
        let Some(members) = self.pools.get(&pool) else { return };
        let mut leads: Vec<String> = Vec::with_capacity(members.len());
        let mut entries: Vec<Entry> = Vec::with_capacity(members.len());
        // Each entry's players, for keeping those a block stands between apart.
        let mut players: Vec<[Option<&Waiting>; 2]> = Vec::with_capacity(members.len());
        for id in members {
            let Some(lead) = self.requests.get(id) else { continue };
            let partner = match &lead.team {
                Team::Inviting { partner: None, .. } => continue,
                Team::Inviting { partner: Some(partner), .. } => self.requests.get(partner),
                _ => None,
            };
            // Nobody is seated while away: they may be back within the grace.
            if lead.gone_since.is_some() || partner.is_some_and(|p| p.gone_since.is_some()) {
                continue;
            }
            let bots_at = |w: &Waiting| w.bots_after.map(|after| lead.since + after);
            let entry = match partner {
                None => Entry {
                    rating: lead.rating,
                    deviation: lead.deviation,
                    size: 1,
                    since: lead.since,
                    bots_at: bots_at(lead),
                },
                Some(partner) => Entry {
                    rating: (lead.rating + partner.rating) / 2.0,
                    deviation: ((lead.deviation.powi(2) + partner.deviation.powi(2)) / 2.0).sqrt(),
                    size: 2,
                    since: lead.since,
                    // Bots only if both allowed them, after the longer wait.
                    bots_at: bots_at(lead).zip(bots_at(partner)).map(|(a, b)| a.max(b)),
                },
            };
            leads.push(id.clone());
            entries.push(entry);
            players.push([Some(lead), partner]);
        }
        let apart = |a: usize, b: usize| {
            let shuns = |x: &Waiting, y: &Waiting| {
                x.avoid.contains(&y.player.id) || y.avoid.contains(&x.player.id)
            };
            let (a, b) = (&players[a], &players[b]);
            a.iter().flatten().any(|x| b.iter().flatten().any(|y| shuns(x, y)))
        };
        let (shape, now) = (shape(pool), self.now());
        let formed = euchre_matcher::wave_apart(&entries, shape, pool.1, &self.policy, now, &apart);
        drop(players);
        for table in formed {
            let mut seats: Vec<Seating> = Vec::new();
            for placed in &table.seats {
                let seat = placed.and_then(|placed| {
                    let lead = &leads[placed.entry];
                    let id = if placed.member == 0 {
                        Some(lead.clone())
                    } else {
                        self.partner_of(lead)
                    }?;
                    let waiting = self.requests.get(&id)?;
                    Some(Matched {
                        player: waiting.player.clone(),
                        request_id: waiting.request_id,
                        holders: waiting.holders.clone(),
                    })
                });
                seats.push(seat);
            }
            for matched in seats.iter().flatten() {
                // Matched: gone from the pool without a word (the table's
                // news comes next); the claim stays, for the table.
                let id = &matched.player.id;
                if let Some(waiting) = self.requests.get_mut(id) {
                    waiting.team = Team::Alone;
                }
                self.remove(id);
                self.live.insert(id.clone(), (matched.request_id, None));
            }
            self.seat(pool, seats);
        }
    }

    /// Makes the table for `seats` off the pools' task (it waits for the
    /// store), then tells each player's connections and joins them to it.
    fn seat(&self, pool: PoolKey, seats: Vec<Seating>) {
        let state = self.state.clone();
        let report = self.seated.clone();
        self.state.tracker.spawn(async move {
            let players: Vec<Option<PlayerInfo>> =
                seats.iter().map(|seat| seat.as_ref().map(|m| m.player.clone())).collect();
            let ids: Vec<(String, u64)> =
                seats.iter().flatten().map(|m| (m.player.id.clone(), m.request_id)).collect();
            let made = state.create_pool_table(pool.0, pool.1, &players).await;
            let table = match made {
                Ok((table, handle)) => {
                    for (seat, Matched { player, holders, request_id, .. }) in
                        (0u8..).zip(seats).filter_map(|(s, seat)| Some((s, seat?)))
                    {
                        for (conn, outbox) in holders {
                            let matched = ServerMessage::QuickPlayMatched {
                                table: table.clone(),
                                seat,
                                request: request_id,
                            };
                            // Seated without asking the table: the match
                            // joins the connection to it, so that it says
                            // goodbye there when it closes.
                            let matched = Frame::joining(table.clone(), matched.into());
                            if !outbox.send(matched) {
                                continue;
                            }
                            let command = TableCommand {
                                id: 0,
                                conn,
                                player: Arc::new(player.clone()),
                                outbox,
                                request: Request::Matched,
                                received: std::time::Instant::now(),
                            };
                            handle.send(TableMessage::Command(command)).await;
                        }
                    }
                    Some(table)
                }
                Err(refusal) => {
                    tracing::warn!(code = refusal.code, message = %refusal.message, "a quick-play table could not be made");
                    for Matched { request_id, holders, .. } in seats.into_iter().flatten() {
                        for (_, outbox) in holders {
                            outbox.send(ended(QuickPlayEndReason::Unavailable, request_id));
                        }
                    }
                    None
                }
            };
            let _ = report.send(PoolMessage::Seated { players: ids, table }).await;
        });
    }
}
