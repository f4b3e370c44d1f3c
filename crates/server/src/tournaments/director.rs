//! The director's task: every tournament of this node, its requests, and
//! its clock (start, results, next round).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use euchre_protocol::api::{NewTournament, TournamentFormat};
use euchre_protocol::{PlayerInfo, TableId, TableStatus};
use euchre_store::{StoredTournament, Write};
use euchre_tournament::{Change, PlayerId, Seat, Settings, TableResult, Tournament};
use futures_util::future::join_all;

use super::doc::{
    DEFAULT_ROUND_HANDS, Entry, MAX_PLAYERS, MAX_ROUND_HANDS, MAX_START_SECONDS, ROUND_SECONDS,
    Status, TournamentDoc,
};
use super::{Command, Organise, Refused, Request, RoundSeated};
use crate::clock::now_ms;
use crate::state::AppState;
use crate::table::TableMessage;

/// How often the director looks at its clock and its tables.
const TICK: Duration = Duration::from_millis(250);

/// A tournament the director runs, and its engine once started.
struct Live {
    doc: TournamentDoc,
    engine: Option<Tournament>,
    /// The round in play's results so far, by table.
    results: Vec<Option<TableResult>>,
    /// Whether the round in play's tables were told to begin here: not yet
    /// when read back (after a restart, or a take-over in a cluster), since
    /// the round may have been saved just before they were.
    begun: bool,
}

/// Runs the director until the server stops: the tournaments not over are
/// read back from the store first.
pub async fn run(state: AppState) {
    let Some(mut mailbox) = state.tournaments.take_mailbox() else { return };
    let mut live = load(&state).await;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            command = mailbox.recv() => match command {
                Some(command) => handle(&state, &mut live, command).await,
                None => return,
            },
            _ = tick.tick() => {
                for tournament in live.values_mut() {
                    step(&state, tournament).await;
                }
                // Over, or (in a cluster) its shard moved to another node.
                live.retain(|id, tournament| {
                    matches!(tournament.doc.status, Status::Registering | Status::Running)
                        && state.placement.holds(id)
                });
            }
            () = state.shutdown.cancelled() => return,
        }
    }
}

/// The tournaments not over, from the store; one that does not read is
/// logged and left where it is (it never keeps the others from running).
/// None in a cluster: there each comes with its shard, as the node takes
/// the shard over ([`super::Tournaments::adopt`]), newest from its log; a
/// version read here could be older, and acted on before the newer came.
async fn load(state: &AppState) -> HashMap<String, Live> {
    if state.settings.cluster.enabled {
        return HashMap::new();
    }
    let stored = match state.store.unfinished_tournaments().await {
        Ok(stored) => stored,
        Err(error) => {
            tracing::error!(%error, "tournaments not read: none runs until the next start");
            return HashMap::new();
        }
    };
    stored.iter().filter_map(|row| Some((row.id.clone(), revive(row)?))).collect()
}

/// A stored tournament, run again: `None` (logged) if it does not read.
fn revive(row: &StoredTournament) -> Option<Live> {
    let doc = match TournamentDoc::from_stored(row) {
        Ok(doc) => doc,
        Err(error) => {
            tracing::error!(tournament = %row.id, %error, "a tournament does not read: left as stored");
            return None;
        }
    };
    let engine = match &doc.record {
        Some(record) => match Tournament::from_record(record) {
            Ok(engine) => Some(engine),
            Err(error) => {
                tracing::error!(tournament = %doc.id, ?error, "a tournament's record does not replay: left as stored");
                return None;
            }
        },
        None => None,
    };
    // The round in play has its tables saved once it was seated: their
    // results are read again (those of tables still playing, later).
    let played = engine.as_ref().map_or(0, |engine| engine.rounds_played() as usize);
    let results = match doc.tables.get(played) {
        Some(tables) if doc.status == Status::Running => vec![None; tables.len()],
        _ => Vec::new(),
    };
    Some(Live { doc, engine, results, begun: false })
}

async fn handle(state: &AppState, live: &mut HashMap<String, Live>, command: Command) {
    match command {
        Command::Create { organiser, spec, reply } => {
            let _ = reply.send(create(state, live, organiser, spec).await);
        }
        Command::Request { id, request, forwarded, reply } => {
            if state.placement.holds(&id) {
                let _ = reply.send(answer(state, live, &id, request).await);
            } else if forwarded {
                // Moved on since the sender looked: it asks again.
                let _ = reply.send(Err(Refused::unavailable()));
            } else {
                // Another node runs it: asked there, the director going on meanwhile.
                let elsewhere = state.tournaments_elsewhere.clone();
                tokio::spawn(async move {
                    let _ = reply.send(elsewhere.forward(&id, request).await);
                });
            }
        }
        Command::Adopt { tournaments } => {
            for stored in tournaments {
                let newer = live.get(&stored.id).is_none_or(|t| t.doc.version < stored.version);
                if newer && let Some(tournament) = revive(&stored) {
                    live.insert(stored.id.clone(), tournament);
                }
            }
        }
    }
}

/// The director's answer to a request about a tournament of this node.
async fn answer(
    state: &AppState,
    live: &mut HashMap<String, Live>,
    id: &str,
    request: Request,
) -> super::Answer {
    match request {
        Request::Register { player, rating } => {
            let tournament = open_for_entries(live, id)?;
            register(state, tournament, player, rating).await.map(|()| None)
        }
        Request::Organise { organiser_id, act, staff } => {
            let over = |t: &Live| !matches!(t.doc.status, Status::Registering | Status::Running);
            match live.get_mut(id) {
                None => Err(Refused::not_running()),
                Some(tournament) if over(tournament) => Err(Refused::not_running()),
                Some(tournament) => {
                    let theirs = tournament.doc.organiser.id != organiser_id;
                    if theirs && !(staff && act.moderated()) {
                        return Err(Refused::not_organiser());
                    }
                    organise(state, tournament, act, theirs).await.map(|()| None)
                }
            }
        }
        Request::Current => Ok(live.get(id).and_then(|tournament| tournament.doc.stored().ok())),
        Request::StartNow { organiser_id } => {
            let tournament = open_for_entries(live, id)?;
            if tournament.doc.organiser.id != organiser_id {
                return Err(Refused::new(
                    "not_organiser",
                    "only its organiser starts a tournament early",
                ));
            }
            start(state, tournament).await;
            match tournament.doc.status {
                Status::Running => Ok(None),
                Status::Cancelled => Err(Refused::new(
                    "not_started",
                    tournament.doc.cancelled.clone().unwrap_or_default(),
                )),
                _ => Err(Refused::new("unavailable", "not started; try again shortly")),
            }
        }
        Request::Withdraw { player_id } => {
            // Once started, withdrawing is leaving: out from the next round.
            match live.get_mut(id) {
                Some(tournament) if tournament.doc.status == Status::Running => {
                    let leaving = Organise::Remove { player_id };
                    organise(state, tournament, leaving, false).await.map(|()| None)
                }
                _ => {
                    let tournament = open_for_entries(live, id)?;
                    withdraw(state, tournament, &player_id).await.map(|()| None)
                }
            }
        }
    }
}

/// Checks what the organiser asked for.
fn check(spec: &NewTournament) -> Result<(), Refused> {
    let bad = |message: String| Err(Refused::new("bad_tournament", message));
    let rules = spec.preset.rules();
    if rules.players != 4 || !rules.partnerships() {
        return bad("tournaments are played by four, in partnerships: choose such a preset".into());
    }
    if let Some(rounds) = spec.rounds
        && !(1..=20).contains(&rounds)
    {
        return bad("rounds are 1 to 20".into());
    }
    match (spec.format, spec.best_of) {
        (_, None | Some(1)) | (TournamentFormat::Knockout, Some(3)) => {}
        (TournamentFormat::Knockout, Some(_)) => return bad("best_of is 1 or 3".into()),
        _ => return bad("best_of is for knockouts: other matches are one game".into()),
    }
    match (spec.format, spec.round_hands) {
        (_, None) | (TournamentFormat::Progressive, Some(0..=MAX_ROUND_HANDS)) => {}
        (TournamentFormat::Progressive, Some(_)) => {
            return bad(format!("round_hands is 0 (a game) or 1 to {MAX_ROUND_HANDS}"));
        }
        _ => return bad("round_hands is for progressive nights: other rounds are games".into()),
    }
    if let Some(seconds) = spec.round_seconds
        && !ROUND_SECONDS.contains(&seconds)
    {
        let (least, most) = (ROUND_SECONDS.start(), ROUND_SECONDS.end());
        return bad(format!("round_seconds is {least} to {most}"));
    }
    if spec.starts_in_seconds > MAX_START_SECONDS {
        return bad("a tournament starts within a week".into());
    }
    if let Some(max) = spec.max_players
        && !(4..=MAX_PLAYERS).contains(&max)
    {
        return bad(format!("max_players is 4 to {MAX_PLAYERS}"));
    }
    Ok(())
}

async fn create(
    state: &AppState,
    live: &mut HashMap<String, Live>,
    organiser: PlayerInfo,
    mut spec: NewTournament,
) -> Result<String, Refused> {
    check(&spec)?;
    // Shown in every lobby: cleaned as a player's name is, and held to the
    // operator's word list.
    let bad_name = |message: &str| Refused::new("bad_tournament", message);
    spec.name = crate::text::parse_title(&spec.name).map_err(|_| {
        bad_name("a tournament's name is 1 to 64 characters, nothing invisible or reordering")
    })?;
    if state.players.blocked_words(&spec.name) {
        return Err(bad_name("the name holds a word this server does not allow"));
    }
    // Stated in the stored spec, so a later change of the default never
    // changes a tournament already made.
    if spec.format == TournamentFormat::Progressive && spec.round_hands.is_none() {
        spec.round_hands = Some(DEFAULT_ROUND_HANDS);
    }
    if organised(state, live, &organiser.id).await >= ORGANISED_MAX {
        let message = format!("you organise {ORGANISED_MAX} tournaments not over already");
        return Err(Refused::new("too_many_tournaments", message));
    }
    // In a cluster, in a shard of this node's: it runs here.
    let id = state.placement.new_table_id().ok_or_else(Refused::unavailable)?;
    let at = now_ms();
    let doc = TournamentDoc {
        id: id.clone(),
        organiser,
        starts_at: at + i64::from(spec.starts_in_seconds) * 1000,
        spec,
        status: Status::Registering,
        cancelled: None,
        created_at: at,
        finished_at: None,
        entries: Vec::new(),
        record: None,
        tables: Vec::new(),
        paused: false,
        pending: Vec::new(),
        round_deadline: None,
        version: 0,
    };
    let mut tournament = Live { doc, engine: None, results: Vec::new(), begun: false };
    save(state, &mut tournament).await?;
    live.insert(id.clone(), tournament);
    Ok(id)
}

/// Tournaments not over one organiser may hold at once.
const ORGANISED_MAX: usize = 5;

/// How many tournaments not over `organiser_id` organises: those here, and
/// in a cluster those other nodes run too, as the database has them (it
/// follows each node's saves within a moment).
async fn organised(state: &AppState, live: &HashMap<String, Live>, organiser_id: &str) -> usize {
    let here = live.values().filter(|t| t.doc.organiser.id == organiser_id).count();
    if !state.settings.cluster.enabled {
        return here;
    }
    let stored = match state.store.unfinished_tournaments().await {
        Ok(stored) => stored,
        Err(error) => {
            tracing::warn!(%error, "tournaments not read: an organiser's counted on this node alone");
            return here;
        }
    };
    let elsewhere = (stored.iter())
        .filter(|row| !live.contains_key(&row.id))
        .filter_map(|row| TournamentDoc::from_stored(row).ok())
        .filter(|doc| doc.organiser.id == organiser_id)
        .count();
    here + elsewhere
}

fn open_for_entries<'a>(
    live: &'a mut HashMap<String, Live>,
    id: &str,
) -> Result<&'a mut Live, Refused> {
    let tournament = live.get_mut(id).ok_or_else(|| {
        Refused::new("not_registering", "no such tournament, or it no longer takes entries")
    })?;
    if tournament.doc.status != Status::Registering {
        return Err(Refused::new(
            "not_registering",
            "the tournament has started: entries are closed",
        ));
    }
    Ok(tournament)
}

async fn register(
    state: &AppState,
    tournament: &mut Live,
    player: PlayerInfo,
    rating: f64,
) -> Result<(), Refused> {
    if tournament.doc.entry(&player.id).is_some() {
        return Ok(());
    }
    if tournament.doc.entries.len() >= tournament.doc.max_players() as usize {
        return Err(Refused::new("tournament_full", "the tournament is full"));
    }
    tournament.doc.entries.push(Entry { player, rating, at: now_ms() });
    let saved = save(state, tournament).await;
    if saved.is_err() {
        tournament.doc.entries.pop();
    }
    saved
}

async fn withdraw(state: &AppState, tournament: &mut Live, player_id: &str) -> Result<(), Refused> {
    let Some(index) = tournament.doc.entries.iter().position(|e| e.player.id == player_id) else {
        return Ok(());
    };
    let entry = tournament.doc.entries.remove(index);
    let saved = save(state, tournament).await;
    if saved.is_err() {
        tournament.doc.entries.insert(index, entry);
    }
    saved
}

/// An organiser's act (`by_moderator`: a moderator's, on a tournament
/// not theirs), saved; as it was if it cannot be saved.
async fn organise(
    state: &AppState,
    tournament: &mut Live,
    act: Organise,
    by_moderator: bool,
) -> Result<(), Refused> {
    let before = tournament.doc.clone();
    match act {
        Organise::Pause => tournament.doc.paused = true,
        Organise::Resume => tournament.doc.paused = false,
        Organise::Cancel => {
            tournament.doc.status = Status::Cancelled;
            let by = if by_moderator { "a moderator" } else { "its organiser" };
            tournament.doc.cancelled = Some(format!("cancelled by {by}"));
            tournament.doc.finished_at = Some(now_ms());
        }
        Organise::Remove { player_id } => {
            if tournament.doc.entry(&player_id).is_none() {
                return Err(Refused::new("not_entered", "that player is not in the tournament"));
            }
            if tournament.doc.status == Status::Registering {
                tournament.doc.entries.retain(|entry| entry.player.id != player_id);
            } else {
                let player = PlayerId::new(player_id);
                let change = Change::Remove { player };
                if !tournament.doc.pending.contains(&change) {
                    tournament.doc.pending.push(change);
                }
            }
        }
        Organise::AddLate { players } => add_late(tournament, players)?,
    }
    let saved = save(state, tournament).await;
    if saved.is_err() {
        tournament.doc = before;
    }
    saved
}

/// Late players: entries before the start; after it, a change the core
/// checks now (a Swiss takes a team of two, a knockout none) and applies
/// when round two is paired, which must not have happened yet.
fn add_late(tournament: &mut Live, players: Vec<(PlayerInfo, f64)>) -> Result<(), Refused> {
    let late = |message: String| Refused::new("late_entry_refused", message);
    if tournament.doc.status == Status::Registering {
        let room = tournament.doc.max_players() as usize - tournament.doc.entries.len();
        let new: Vec<_> =
            players.into_iter().filter(|(p, _)| tournament.doc.entry(&p.id).is_none()).collect();
        if new.len() > room {
            return Err(Refused::new("tournament_full", "the tournament is full"));
        }
        let at = now_ms();
        (tournament.doc.entries).extend(new.into_iter().map(|(player, rating)| Entry {
            player,
            rating,
            at,
        }));
        return Ok(());
    }
    if tournament.doc.tables.len() > 1 {
        return Err(late("round two is seated: late entries are closed".into()));
    }
    let change = Change::Add {
        players: (players.iter())
            .map(|(player, rating)| euchre_tournament::Player::new(player.id.clone(), *rating))
            .collect(),
    };
    // Checked against the tournament as round two will see it.
    let mut next =
        tournament.engine.clone().ok_or_else(|| late("the tournament has not started".into()))?;
    for pending in &tournament.doc.pending {
        let _ = next.apply(pending.clone());
    }
    next.apply(change.clone()).map_err(|error| late(error.to_string()))?;
    let at = now_ms();
    (tournament.doc.entries).extend(players.into_iter().map(|(player, rating)| Entry {
        player,
        rating,
        at,
    }));
    tournament.doc.pending.push(change);
    Ok(())
}

/// Saves the tournament's state (a new version) through the journal; the
/// change is kept only once it is durable.
async fn save(state: &AppState, tournament: &mut Live) -> Result<(), Refused> {
    tournament.doc.version += 1;
    let unavailable =
        || Refused::new("unavailable", "the tournament could not be saved; try again");
    let stored = tournament.doc.stored().map_err(|_| unavailable())?;
    let write = Write::Tournament { tournament: stored, at: now_ms() };
    let durability = state.placement.durability();
    let kept = durability.keep_and_wait(&tournament.doc.id, vec![write]).await;
    if kept.is_err() {
        tournament.doc.version -= 1;
        return Err(unavailable());
    }
    Ok(())
}

/// What is due for one tournament: its start, its round's results, the
/// next round.
async fn step(state: &AppState, tournament: &mut Live) {
    match tournament.doc.status {
        Status::Registering if now_ms() >= tournament.doc.starts_at => {
            start(state, tournament).await
        }
        Status::Running => {
            let played = tournament.engine.as_ref().map_or(0, Tournament::rounds_played);
            if tournament.doc.tables.len() <= played as usize {
                if !tournament.doc.paused {
                    seat_round(state, tournament).await;
                }
                return;
            }
            if !tournament.begun {
                begin_tables(state, tournament).await;
            }
            collect_results(state, tournament).await;
            if tournament.results.iter().all(Option::is_some) {
                finish_round(state, tournament).await;
            } else if tournament.doc.round_deadline.is_some_and(|at| now_ms() >= at) {
                settle_tables(state, tournament).await;
            }
        }
        _ => {}
    }
}

/// Starts the tournament with those registered, or cancels it if too few came.
async fn start(state: &AppState, tournament: &mut Live) {
    tournament.doc.starts_at = tournament.doc.starts_at.min(now_ms());
    let players = tournament.doc.players();
    let settings = Settings { seed: rand::random(), players, format: tournament.doc.format() };
    match Tournament::new(settings) {
        Ok(engine) => {
            tournament.doc.record = Some(engine.record().clone());
            tournament.doc.status = Status::Running;
            tournament.engine = Some(engine);
            if save(state, tournament).await.is_ok() {
                seat_round(state, tournament).await;
            } else {
                tournament.doc.status = Status::Registering;
                tournament.doc.record = None;
                tournament.engine = None;
            }
        }
        Err(error) => {
            tournament.doc.status = Status::Cancelled;
            tournament.doc.cancelled = Some(format!("it could not start: {error}"));
            tournament.doc.finished_at = Some(now_ms());
            if save(state, tournament).await.is_err() {
                tournament.doc.status = Status::Registering;
            }
        }
    }
}

/// Pairs the next round and makes its tables; saved once every table is
/// made, and only then are their games begun, so a crash before that pairs
/// the same round again (from the same seed and results) and makes its
/// tables afresh (the earlier ones, never begun, close when idle). A round with no table
/// (every team has a bye) is done at the next tick.
async fn seat_round(state: &AppState, tournament: &mut Live) {
    let Some(engine) = &tournament.engine else { return };
    // Those not here at the round's start: a bot plays their seat for this
    // round, and they score nothing in it (they may come back next round).
    // Kept only once the round is seated and saved.
    let mut next = engine.clone();
    for change in &tournament.doc.pending {
        // Refused (a player out already): nothing to do.
        let _ = next.apply(change.clone());
    }
    let connected = present(state, &tournament.doc.entries).await;
    for entry in &tournament.doc.entries {
        if !connected.contains(&entry.player.id) {
            let player = PlayerId::new(entry.player.id.clone());
            // Refused for a player no longer in: nothing to do.
            let _ = next.apply(Change::Absent { player });
        }
    }
    let round = match next.next_round() {
        Ok(round) => round,
        Err(error) => {
            tracing::error!(tournament = %tournament.doc.id, %error, "the next round cannot be paired");
            return;
        }
    };
    // All at once: each waits for its opening to be durable, and the
    // journal makes one flush of the openings that wait together.
    let (preset, rules) = (tournament.doc.spec.preset, tournament.doc.table_rules());
    let rated = tournament.doc.spec.rated;
    let made = join_all(round.tables.iter().map(|table| {
        let seats: Vec<Option<PlayerInfo>> =
            table.seats.iter().map(|seat| seated(&tournament.doc, seat)).collect();
        let rules = rules.clone();
        let id = &tournament.doc.id;
        async move { state.create_tournament_table(id, preset, rules, rated, &seats).await }
    }))
    .await;
    let mut tables = Vec::with_capacity(made.len());
    for table in made {
        match table {
            Ok(id) => tables.push(id),
            Err(refusal) => {
                // Tried again at the next tick; the tables made meanwhile,
                // never begun, close when idle.
                tracing::warn!(tournament = %tournament.doc.id, code = %refusal.code, "a round's table could not be made");
                return;
            }
        }
    }
    tournament.doc.tables.push(tables);
    tournament.doc.round_deadline =
        (tournament.doc.spec.round_seconds).map(|seconds| now_ms() + i64::from(seconds) * 1000);
    tournament.doc.record = Some(next.record().clone());
    let before = tournament.engine.replace(next);
    let pending = std::mem::take(&mut tournament.doc.pending);
    tournament.results = vec![None; round.tables.len()];
    if save(state, tournament).await.is_err() {
        tournament.doc.tables.pop();
        tournament.doc.pending = pending;
        tournament.results.clear();
        tournament.engine = before;
        tournament.doc.record = tournament.engine.as_ref().map(|engine| engine.record().clone());
        return;
    }
    begin_tables(state, tournament).await;
    let seated = Arc::new(round_seated(&tournament.doc, &round));
    state.tournaments.announce(seated.clone());
    state.tournaments_elsewhere.announce_elsewhere(seated);
}

/// Begins the games of the round in play's tables (those begun already
/// are unchanged): only once the round is saved, so that a flood of their
/// writes (bots playing for absent players, at once) never stands before
/// the round's save in a cluster's shard log.
async fn begin_tables(state: &AppState, tournament: &mut Live) {
    for table in tournament.doc.tables.last().into_iter().flatten() {
        if let Some(handle) = state.registry.get(table) {
            handle.send(TableMessage::Begin).await;
        }
    }
    tournament.begun = true;
}

/// Where the round just saved (the last of `doc.tables`) seats each player
/// present at its start.
fn round_seated(doc: &TournamentDoc, round: &euchre_tournament::Round) -> RoundSeated {
    let tables = doc.tables.last().map_or(&[][..], Vec::as_slice);
    let mut seats = HashMap::new();
    for (table, id) in round.tables.iter().zip(tables) {
        for (seat, sitter) in (0u8..).zip(&table.seats) {
            if let Seat::Player(player) = sitter {
                seats.insert(player.0.clone(), (id.clone(), seat));
            }
        }
    }
    let (tournament, name) = (doc.id.clone(), doc.spec.name.clone());
    RoundSeated { tournament, name, round: round.number, seats }
}

/// Which of the entries are connected: here, or (in a cluster) to another node.
async fn present(state: &AppState, entries: &[Entry]) -> HashSet<String> {
    let mut connected = state.players.connected();
    let elsewhere: Vec<String> = (entries.iter())
        .filter(|entry| !connected.contains(&entry.player.id))
        .map(|entry| entry.player.id.clone())
        .collect();
    if !elsewhere.is_empty() {
        connected.extend(state.tournaments_elsewhere.connected_elsewhere(elsewhere).await);
    }
    connected
}

/// The player a round's seat is for: a bot plays a filler's seat, and that
/// of a player absent at the round's start.
fn seated(doc: &TournamentDoc, seat: &Seat) -> Option<PlayerInfo> {
    match seat {
        Seat::Player(id) => doc.entry(&id.0).map(|entry| entry.player.clone()),
        Seat::StandIn(_) | Seat::Bot => None,
    }
}

/// Reads the result of each table of the round in play whose game ended.
async fn collect_results(state: &AppState, tournament: &mut Live) {
    let Some(tables) = tournament.doc.tables.last() else { return };
    for (slot, table) in tournament.results.iter_mut().zip(tables) {
        if slot.is_none() {
            *slot = table_result(state, table).await;
        }
    }
}

/// A table's game result once it ended; once its table closed before the
/// end, the score as it stood (docs/tournaments.md: the score stands).
async fn table_result(state: &AppState, table: &TableId) -> Option<TableResult> {
    // While its game is played, the history has no result: not asked.
    let playing = state.registry.summary(table).is_some_and(|t| t.status == TableStatus::Playing);
    if playing {
        return None;
    }
    let record = state.store.table_record(table).await.ok()??;
    let last = record.last_match?;
    if last.ended_at.is_none() && last.abandoned.is_none() {
        return None;
    }
    let detail = state.store.get_match(&last.id).await.ok()??;
    let scores = &detail.summary.scores;
    let score = |side: usize| u32::from(scores.get(side).copied().unwrap_or(0));
    // A knockout's best of three is played as a rubber: each game won.
    let games = &detail.record.games;
    if !games.is_empty() {
        let game = |result: &euchre_engine::GameResult| {
            let side =
                |team: usize| u32::from(result.scores.as_slice().get(team).copied().unwrap_or(0));
            [side(0), side(1)]
        };
        return Some(TableResult { games: games.iter().map(game).collect() });
    }
    Some(TableResult::one([score(0), score(1)]))
}

/// The round clock ran out: each table still playing ends after its hand
/// in play (told again at every tick until its game ends: a table restored
/// after a crash hears it too).
async fn settle_tables(state: &AppState, tournament: &Live) {
    let Some(tables) = tournament.doc.tables.last() else { return };
    for (result, table) in tournament.results.iter().zip(tables) {
        if let (None, Some(handle)) = (result, state.registry.get(table)) {
            handle.send(TableMessage::Settle).await;
        }
    }
}

/// Records the round's results and seats the next round (a round not
/// seated now is seated at a later tick), or finishes.
async fn finish_round(state: &AppState, tournament: &mut Live) {
    let Some(engine) = &mut tournament.engine else { return };
    let results: Vec<TableResult> = tournament.results.iter().flatten().cloned().collect();
    let before = engine.clone();
    if let Err(error) = engine.record_round(results) {
        tracing::error!(tournament = %tournament.doc.id, %error, "a round's results were refused");
        return;
    }
    tournament.doc.record = Some(engine.record().clone());
    let finished = engine.is_finished();
    if finished {
        tournament.doc.status = Status::Finished;
        tournament.doc.finished_at = Some(now_ms());
    }
    let results = std::mem::take(&mut tournament.results);
    if save(state, tournament).await.is_err() {
        // Not durable: as it was, tried again at the next tick.
        tournament.engine = Some(before);
        tournament.doc.record = tournament.engine.as_ref().map(|engine| engine.record().clone());
        tournament.doc.status = Status::Running;
        tournament.doc.finished_at = None;
        tournament.results = results;
    } else if !finished && !tournament.doc.paused {
        seat_round(state, tournament).await;
    }
}
