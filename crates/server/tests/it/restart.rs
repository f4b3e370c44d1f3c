//! The restart matrix: the real server binary, holding a table in every
//! kind of live state at once, is stopped (SIGTERM, or SIGKILL with no
//! chance to flush) and started again on the same data, on SQLite and on
//! PostgreSQL. It must start; every table must be there; every seated
//! player must resume with the same cards, the same turn and the same legal
//! actions as before the stop (so nothing acknowledged was lost); and each
//! game must play on. A table that cannot be restored is set aside, never
//! a reason not to start.
//!
//! The states: a table created and empty; one waiting for players; a game
//! mid-bid, mid-trick and between hands; a game over awaiting a rematch; a
//! private table; a player away with a bot standing in; a rated table of
//! four people; quick play's tables, casual and rated; a table of every
//! form (preset), mid-hand; and a quick-play request still waiting, which
//! ends with the restart (`quick_play_ended`, `shutdown`, on a SIGTERM) and
//! may be made again (docs/self-hosting.md, "Restarts").

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::binary::{Server, Stop};
use crate::support::http::request_at;
use crate::support::{Client, PATIENCE, error_code, pick, play_to_the_end};
use euchre_engine::{Action, Phase, Preset, Rules};
use euchre_protocol::{
    ClientMessage, Occupant, QuickPlayEndReason, QuickPlayRequest, Reply, ServerMessage,
    TableSettings, TableState, TableStatus,
};
use euchre_testkit::eventually;
use euchre_testkit::postgres;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[tokio::test]
async fn sqlite_after_sigterm() {
    let Some(data) = Data::sqlite().await else { return };
    restart_matrix(data, Stop::Term).await;
}

#[tokio::test]
async fn sqlite_after_sigkill() {
    let Some(data) = Data::sqlite().await else { return };
    restart_matrix(data, Stop::Kill).await;
}

#[tokio::test]
async fn postgres_after_sigterm() {
    let Some(data) = Data::postgres().await else { return };
    restart_matrix(data, Stop::Term).await;
}

#[tokio::test]
async fn postgres_after_sigkill() {
    let Some(data) = Data::postgres().await else { return };
    restart_matrix(data, Stop::Kill).await;
}

#[tokio::test]
async fn sqlite_sanctions_survive_a_sigkill() {
    let Some(data) = Data::sqlite().await else { return };
    sanctions_survive_a_sigkill(data).await;
}

#[tokio::test]
async fn postgres_sanctions_survive_a_sigkill() {
    let Some(data) = Data::postgres().await else { return };
    sanctions_survive_a_sigkill(data).await;
}

/// A ban, a mute and an address ban, each answered, then SIGKILL: the
/// server started again on the same data holds all three.
async fn sanctions_survive_a_sigkill(data: Data) {
    use crate::support::http::{Source, request_to};
    let server = data.start(&[]);
    let moderator = account(&server, "Mo").await.token.expect("a session");
    let eve = account(&server, "Eve").await.token.expect("a session");
    let bob = account(&server, "Bob").await.token.expect("a session");
    data.admin(&["grant", "Mo", "moderator"]);
    for (path, body) in [
        ("/api/admin/players/Eve/ban", serde_json::json!({ "minutes": 60, "reason": "abuse" })),
        ("/api/admin/players/Bob/mute", serde_json::json!({ "minutes": 60 })),
        ("/api/admin/address-bans", serde_json::json!({ "address": "127.0.0.99", "minutes": 60 })),
    ] {
        let body = body.to_string();
        let answer =
            request_at(server.address, "POST", path, Some(&moderator), Some(body.as_bytes())).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    server.stop(Stop::Kill);

    let server = data.start(&[]);
    let mut again = Client::connect(&server.url()).await;
    let refused = again.try_hello("", Some(&eve)).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("banned"));
    let source = Source { address: [127, 0, 0, 99], forwarded_for: None };
    let answer = request_to(server.address, source, "GET", "/api/leaderboard", None, None).await;
    assert_eq!(answer.error(403), "address_banned");
    let mut bob = {
        let mut client = Client::connect(&server.url()).await;
        client.try_hello("", Some(&bob)).await.expect("welcome");
        client
    };
    let table = bob.create_table(TableSettings::default()).await;
    bob.sit(&table, Some(0)).await;
    let id = bob.next_id();
    let said = bob.command(ClientMessage::Chat { id, table, text: "hi".into() }).await;
    assert_eq!(error_code(&said), Some("chat_muted"), "{said:?}");
    server.stop(Stop::Term);
    data.drop_database().await;
}

#[tokio::test]
async fn sqlite_tournament_survives_a_sigkill_mid_round() {
    let Some(data) = Data::sqlite().await else { return };
    tournament_survives_a_sigkill_mid_round(data).await;
}

#[tokio::test]
async fn postgres_tournament_survives_a_sigkill_mid_round() {
    let Some(data) = Data::postgres().await else { return };
    tournament_survives_a_sigkill_mid_round(data).await;
}

/// A Swiss of four teams, killed (SIGKILL) in its second round and started
/// again on the same data: it finishes, the first round's results are the
/// ones it had, and the second round is played at the tables it was seated
/// at (paired once, not again).
async fn tournament_survives_a_sigkill_mid_round(data: Data) {
    // Each seat's first move waits for the grace: a round lasts at least that.
    let env = [("EUCHRE_TIMING__RECONNECT_GRACE_MS", "1500"), ("EUCHRE_TIMING__BOT_DELAY_MS", "0")];
    let server = data.start(&env);
    let organiser = account(&server, "Olga").await.token.expect("a session");
    let spec = serde_json::json!({
        "name": "Crash cup", "format": "swiss", "preset": "standard", "rounds": 3,
        "starts_in_seconds": 3600,
    })
    .to_string();
    let created = request_at(
        server.address,
        "POST",
        "/api/tournaments",
        Some(&organiser),
        Some(spec.as_bytes()),
    );
    let created = created.await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    let mut players = Vec::new();
    for index in 0..8 {
        let player = guest(&server, &format!("P{index}")).await;
        let token = player.token.clone().expect("a token");
        let path = format!("/api/tournaments/{id}/entries");
        assert_eq!(request_at(server.address, "POST", &path, Some(&token), None).await.status, 204);
        players.push(player);
    }
    let start = format!("/api/tournaments/{id}/start");
    assert_eq!(
        request_at(server.address, "POST", &start, Some(&organiser), None).await.status,
        204
    );
    let path = format!("/api/tournaments/{id}");
    let view_of =
        async |server: &Server| request_at(server.address, "GET", &path, None, None).await.json();
    // Round two seated, round one's results in.
    let before = eventually("round two to be seated", Duration::from_secs(30), async || {
        let view = view_of(&server).await;
        let rounds = view["round_list"].as_array().cloned().unwrap_or_default();
        (rounds.len() == 2 && rounds[1]["finished"] == false).then_some(view)
    })
    .await;
    server.stop(Stop::Kill);
    drop(players);

    let server = data.start(&env);
    let after = eventually("the tournament to finish", Duration::from_secs(60), async || {
        let view = view_of(&server).await;
        (view["status"] == "finished").then_some(view)
    })
    .await;
    let (was, is) = (&before["round_list"], &after["round_list"]);
    assert_eq!(is.as_array().map(Vec::len), Some(3), "{after:#}");
    assert_eq!(is[0], was[0], "round one as it was");
    let tables = |round: &serde_json::Value| -> Vec<serde_json::Value> {
        round["tables"].as_array().into_iter().flatten().map(|t| t["table"].clone()).collect()
    };
    assert_eq!(tables(&is[1]), tables(&was[1]), "round two at the tables it was seated at");
    assert_eq!(is[1]["finished"], true);
    server.stop(Stop::Term);
    data.drop_database().await;
}

// ---------------------------------------------------------------------------
// The server's process and its data.

/// A server's data: its folder (the journal, and SQLite's file) and its
/// database.
struct Data {
    dir: tempfile::TempDir,
    database_url: String,
    /// The PostgreSQL database to drop at the end.
    postgres: Option<String>,
}

impl Data {
    async fn sqlite() -> Option<Data> {
        let dir = tempfile::tempdir().expect("a data folder");
        let database_url = format!("sqlite://{}/euchre.db", dir.path().display());
        Some(Data { dir, database_url, postgres: None })
    }

    async fn postgres() -> Option<Data> {
        let name = postgres::fresh_database("restart_test").await?;
        let dir = tempfile::tempdir().expect("a data folder");
        let database_url = postgres::database_url(&name);
        Some(Data { dir, database_url, postgres: Some(name) })
    }

    /// The server binary, started on this data with `env`.
    fn start(&self, env: &[(&str, &str)]) -> Server {
        Server::start(self.dir.path(), &self.database_url, env)
    }

    /// `euchre-server admin ARGS` on this data; panics if it fails.
    fn admin(&self, args: &[&str]) {
        let output = Command::new(env!("CARGO_BIN_EXE_euchre-server"))
            .arg("--data-dir")
            .arg(self.dir.path())
            .arg("--database-url")
            .arg(&self.database_url)
            .arg("admin")
            .args(args)
            .env_remove("DATABASE_URL")
            .output()
            .expect("the server's binary runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }

    async fn drop_database(self) {
        if let Some(name) = &self.postgres {
            postgres::drop_database(name).await;
        }
    }
}

// ---------------------------------------------------------------------------
// Players and what they see.

/// A player: their name, their token (to come back with), and their seat.
struct Player {
    name: String,
    token: String,
    seat: Option<u8>,
}

async fn guest(server: &Server, name: &str) -> Client {
    let mut client = Client::connect(&server.url()).await;
    client.hello(name).await;
    client
}

/// A guest that has claimed its name: an account, which rated play needs
/// (its `token` is the session's).
async fn account(server: &Server, name: &str) -> Client {
    let mut client = guest(server, name).await;
    let token = client.token.clone().expect("a guest token");
    let body = serde_json::json!({ "name": name, "password": "correct horse" }).to_string();
    let claimed =
        request_at(server.address, "POST", "/api/accounts", Some(&token), Some(body.as_bytes()));
    let claimed = claimed.await;
    assert_eq!(claimed.status, 201, "{}", claimed.body);
    client.token = claimed.json()["token"].as_str().map(str::to_owned);
    client
}

fn player(client: &Client, name: &str, seat: Option<u8>) -> Player {
    let token = client.token.clone().expect("a token");
    Player { name: name.to_owned(), token, seat }
}

/// The table as `client` sees it now: a snapshot, asked for by resuming
/// from a seq the table has not reached.
async fn view(client: &mut Client, table: &str) -> TableState {
    let id = client.next_id();
    let resume = ClientMessage::Resume { id, table: table.to_owned(), last_seq: u64::MAX };
    let answer = client.command(resume).await;
    assert!(
        matches!(answer, ServerMessage::Ack { reply: Reply::Resumed { snapshot: true, .. }, .. }),
        "{answer:?}"
    );
    client
        .log
        .iter()
        .rev()
        .find_map(|message| match message {
            ServerMessage::Snapshot { table: of, state, .. } if of == table => {
                Some((**state).clone())
            }
            _ => None,
        })
        .expect("a snapshot before the ack")
}

/// Plays the turns of `clients` (random legal actions; bots play the
/// rest, and the host, `clients[0]`, starts another game if one ends)
/// until, at one of their turns, `here` accepts the table as the seat to
/// act sees it; returns that seat's view. Nothing is in flight
/// then, and nothing moves until that seat acts.
async fn play_to_state(
    clients: &mut [Client],
    table: &str,
    seed: u64,
    here: impl Fn(&TableState) -> bool,
) -> TableState {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..2_000 {
        let public = view(&mut clients[0], table).await;
        let game = public.game.as_ref().expect("a game in play");
        if game.winner.is_some() {
            // The deals are random: a game can end before it passes through
            // the state (a hand the person bids first in, say). The host
            // (`clients[0]`) starts another.
            let id = clients[0].next_id();
            let rematch = ClientMessage::Rematch { id, table: table.to_owned() };
            let answer = clients[0].command(rematch).await;
            assert!(matches!(answer, ServerMessage::Ack { .. }), "a rematch: {answer:?}");
            continue;
        }
        let seated = |client: &Client| {
            public.seats.iter().position(|occupant| match occupant {
                Some(Occupant::Player { player, connected: true }) => {
                    Some(&player.id) == client.player_id.as_ref()
                }
                _ => false,
            })
        };
        let Some(turn) = game.turn else { panic!("nobody's turn: {game:?}") };
        let Some(who) = clients.iter().position(|c| seated(c) == Some(usize::from(turn.0))) else {
            // A bot's turn (or one standing in): it moves at once.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let mine = view(&mut clients[who], table).await;
        if here(&mine) {
            return mine;
        }
        let action = pick(&mine.actions, &mut rng);
        let id = clients[who].next_id();
        let act = ClientMessage::Act { id, table: table.to_owned(), action };
        let answer = clients[who].command(act).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{action:?}: {answer:?}");
    }
    panic!("the state was not reached in 2,000 turns")
}

fn phase(state: &TableState) -> Option<Phase> {
    state.game.as_ref().map(|game| game.phase)
}

fn bidding(state: &TableState) -> bool {
    matches!(phase(state), Some(Phase::OrderingUp | Phase::Calling))
}

/// Some bid made in this hand, and more to come.
fn mid_bid(state: &TableState) -> bool {
    bidding(state) && state.game.as_ref().is_some_and(|game| !game.bids.is_empty())
}

/// A trick led and not yet complete.
fn mid_trick(state: &TableState) -> bool {
    let game = state.game.as_ref();
    let trick = game.and_then(|game| game.tricks.last());
    phase(state) == Some(Phase::Playing) && trick.is_some_and(|trick| !trick.cards.is_empty())
}

/// A later hand dealt, and nobody has acted in it yet.
fn between_hands(state: &TableState) -> bool {
    let game = state.game.as_ref();
    game.is_some_and(|game| game.hand_number > 0 && game.bids.is_empty()) && bidding(state)
}

/// What must come back whole: everything in a seat's view but who is
/// connected now.
fn comparable(mut state: TableState) -> TableState {
    for occupant in state.seats.iter_mut().flatten() {
        if let Occupant::Player { connected, .. } = occupant {
            *connected = false;
        }
    }
    state
}

// ---------------------------------------------------------------------------
// The scenes: a table in each state, and what its players saw at the stop.

/// A table left in some state, and each of its players' view at the stop
/// (the host's first).
struct Scene {
    what: String,
    table: String,
    invite: Option<String>,
    seen: Vec<(Player, TableState)>,
    /// A player who was away at the stop, whose view is not known: they
    /// come back to their seat and to the game everybody else sees.
    away: Option<Player>,
}

async fn create(client: &mut Client, settings: TableSettings) -> (String, Option<String>) {
    let id = client.next_id();
    match client.command(ClientMessage::CreateTable { id, settings }).await {
        ServerMessage::Ack { reply: Reply::TableCreated { table, invite }, .. } => (table, invite),
        other => panic!("expected table_created, got {other:?}"),
    }
}

/// Everybody's view of `table`, now.
async fn seen_by(clients: &mut [Client], names: &[&str], table: &str) -> Vec<(Player, TableState)> {
    let mut seen = Vec::new();
    for (client, name) in clients.iter_mut().zip(names) {
        let state = view(client, table).await;
        seen.push((player(client, name, state.your_seat), state));
    }
    seen
}

/// One person and bots at a table of `preset`, played until `here`.
async fn with_bots(
    server: &Server,
    what: &str,
    settings: TableSettings,
    seed: u64,
    here: impl Fn(&TableState) -> bool,
) -> (Scene, Client) {
    let name = format!("P{seed}");
    let mut client = guest(server, &name).await;
    let players = settings.resolve_rules().expect("good settings").players;
    let settings = TableSettings { bot_seats: (1..players).collect(), ..settings };
    let (table, invite) = create(&mut client, settings).await;
    let id = client.next_id();
    let sit =
        ClientMessage::Sit { id, table: table.clone(), seat: Some(0), invite: invite.clone() };
    let answer = client.command(sit).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Seated { .. }, .. }), "{answer:?}");
    let mut clients = [client];
    let state = play_to_state(&mut clients, &table, seed, here).await;
    let [client] = clients;
    let seen = vec![(player(&client, &name, Some(0)), state)];
    (Scene { what: what.to_owned(), table, invite, seen, away: None }, client)
}

/// Four people through quick play, played until a trick is under way.
async fn from_quick_play(server: &Server, rated: bool, seed: u64) -> (Scene, Vec<Client>) {
    let names: Vec<String> = (0..4).map(|n| format!("Q{seed}-{n}")).collect();
    let mut clients = Vec::new();
    for name in &names {
        let mut client =
            if rated { account(server, name).await } else { guest(server, name).await };
        let id = client.next_id();
        let request = QuickPlayRequest::new(Preset::Standard, rated);
        let answer = client.command(ClientMessage::QuickPlay { id, request }).await;
        assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }));
        clients.push(client);
    }
    let mut table = None;
    for client in &mut clients {
        let at = matched(client).await;
        assert!(table.as_ref().is_none_or(|table| *table == at), "one table for the four");
        table = Some(at);
    }
    let table = table.expect("a table");
    play_to_state(&mut clients, &table, seed, mid_trick).await;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let seen = seen_by(&mut clients, &names, &table).await;
    let what = format!("a {} quick-play table", if rated { "rated" } else { "casual" });
    (Scene { what, table, invite: None, seen, away: None }, clients)
}

/// The table quick play seated `client` at (the notice may have come
/// before the answer to its request).
async fn matched(client: &mut Client) -> String {
    let table_of = |message: &ServerMessage| match message {
        ServerMessage::QuickPlayMatched { table, .. } => Some(table.clone()),
        _ => None,
    };
    if let Some(table) = client.log.iter().find_map(table_of) {
        return table;
    }
    let message = client.recv_until(|message| table_of(message).is_some()).await;
    table_of(&message).expect("matched")
}

/// Every state at once on `server`, with the clients that hold them (kept
/// connected until the stop, so nothing moves).
async fn set_the_scenes(server: &Server) -> (Vec<Scene>, Vec<Client>, Client) {
    let mut scenes = Vec::new();
    let mut clients = Vec::new();
    let casual = TableSettings { rated: false, bot: "basic".into(), ..TableSettings::default() };

    // Created and empty: the host has not sat.
    let mut hal = guest(server, "Hal").await;
    let (table, _) = create(&mut hal, TableSettings::default()).await;
    let seen = vec![(player(&hal, "Hal", None), view(&mut hal, &table).await)];
    scenes.push(Scene { what: "an empty table".into(), table, invite: None, seen, away: None });
    clients.push(hal);

    // Waiting to start: one of four seats taken.
    let mut wes = guest(server, "Wes").await;
    let (table, _) = create(&mut wes, TableSettings::default()).await;
    wes.sit(&table, Some(0)).await;
    let seen = vec![(player(&wes, "Wes", Some(0)), view(&mut wes, &table).await)];
    assert_eq!(seen[0].1.summary.status, TableStatus::Open);
    scenes.push(Scene { what: "a table waiting".into(), table, invite: None, seen, away: None });
    clients.push(wes);

    for (what, here, seed) in [
        ("mid-bid", mid_bid as fn(&TableState) -> bool, 1),
        ("mid-trick", mid_trick, 2),
        ("between hands", between_hands, 3),
    ] {
        let (scene, client) = with_bots(server, what, casual.clone(), seed, here).await;
        scenes.push(scene);
        clients.push(client);
    }

    // Game over, awaiting a rematch.
    let mut fin = guest(server, "Fin").await;
    let settings = TableSettings { bot_seats: vec![1, 2, 3], ..casual.clone() };
    let (table, _) = create(&mut fin, settings).await;
    fin.sit(&table, Some(0)).await;
    let mut fin = play_to_the_end(fin, table.clone(), 4).await;
    let state = view(&mut fin, &table).await;
    assert_eq!(state.summary.status, TableStatus::Finished);
    let seen = vec![(player(&fin, "Fin", Some(0)), state)];
    scenes.push(Scene { what: "a game over".into(), table, invite: None, seen, away: None });
    clients.push(fin);

    // A private table, mid-hand.
    let private = TableSettings { private: true, ..casual.clone() };
    let (scene, client) = with_bots(server, "a private table", private, 5, mid_trick).await;
    assert!(scene.invite.is_some());
    scenes.push(scene);
    clients.push(client);

    // Four people, casual; one goes away and a bot plays for them.
    let names = ["Ann", "Bob", "Cy", "Dee"];
    let mut four = Vec::new();
    for name in names {
        four.push(guest(server, name).await);
    }
    let (table, _) = create(&mut four[0], casual.clone()).await;
    for (seat, client) in four.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    let dees_turn = |state: &TableState| state.your_seat == Some(3);
    play_to_state(&mut four, &table, 6, |state| mid_trick(state) && dees_turn(state)).await;
    let dee = four.pop().expect("Dee");
    let dee_player = player(&dee, "Dee", Some(3));
    drop(dee);
    // Past the grace a bot plays Dee's card: the trick moves on to a person.
    play_to_state(&mut four, &table, 6, |state| state.your_seat != Some(3)).await;
    let seen = seen_by(&mut four, &names[..3], &table).await;
    let dee = seen[0].1.seats[3].clone();
    assert!(matches!(dee, Some(Occupant::Player { connected: false, .. })), "{dee:?}");
    let away = Some(dee_player);
    scenes.push(Scene { what: "a player away".into(), table, invite: None, seen, away });
    clients.extend(four);

    // Four people at a rated table.
    let names = ["Ray", "Rex", "Roy", "Rue"];
    let mut four = Vec::new();
    for name in names {
        four.push(guest(server, name).await);
    }
    let (table, _) = create(&mut four[0], TableSettings::default()).await;
    for (seat, client) in four.iter_mut().enumerate() {
        client.sit(&table, Some(seat as u8)).await;
    }
    play_to_state(&mut four, &table, 7, mid_trick).await;
    let seen = seen_by(&mut four, &names, &table).await;
    scenes.push(Scene { what: "a rated table".into(), table, invite: None, seen, away: None });
    clients.extend(four);

    // Quick play's tables.
    for (rated, seed) in [(false, 8), (true, 9)] {
        let (scene, four) = from_quick_play(server, rated, seed).await;
        scenes.push(scene);
        clients.extend(four);
    }

    // Every form, mid-hand.
    for (index, preset) in Preset::ALL.into_iter().enumerate() {
        let settings = TableSettings { preset, ..casual.clone() };
        let what = format!("{} mid-hand", preset.name());
        let (scene, client) = with_bots(server, &what, settings, 100 + index as u64, |state| {
            phase(state) == Some(Phase::Playing)
        })
        .await;
        assert_eq!(scene.seen[0].1.summary.rules, rules_of(preset));
        scenes.push(scene);
        clients.push(client);
    }

    // Waiting in a pool nobody else is in.
    let mut quinn = account(server, "Quinn").await;
    let id = quinn.next_id();
    let request = QuickPlayRequest::new(Preset::Classic, true);
    let answer = quinn.command(ClientMessage::QuickPlay { id, request }).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }));
    (scenes, clients, quinn)
}

fn rules_of(preset: Preset) -> Rules {
    TableSettings { preset, ..TableSettings::default() }.resolve_rules().expect("a preset's rules")
}

// ---------------------------------------------------------------------------
// The matrix.

async fn restart_matrix(data: Data, how: Stop) {
    // A short grace, so that the away player's bot stands in quickly.
    let server = data.start(&[("EUCHRE_TIMING__RECONNECT_GRACE_MS", "500")]);
    let (scenes, clients, mut quinn) = set_the_scenes(&server).await;
    server.stop(how);
    if let Stop::Term = how {
        // A request still waiting ends, and says why.
        let ended = quinn
            .recv_until(|message| matches!(message, ServerMessage::QuickPlayEnded { .. }))
            .await;
        let ServerMessage::QuickPlayEnded { reason, .. } = ended else { unreachable!() };
        assert_eq!(reason, QuickPlayEndReason::Shutdown);
    }
    drop((clients, quinn));

    // The default grace: nobody's seat is played for them while they come back.
    let server = data.start(&[]);
    let refused = server.logged("ERROR", "cannot restore");
    assert!(refused.is_empty(), "every table is restored: {refused:#?}");
    assert_eq!(server.metric("euchre_tables_set_aside_total").await, 0);
    for scene in &scenes {
        check_scene(&server, scene).await;
    }
    // A waiting request did not survive: it may be made again.
    let mut quinn = account(&server, "Quinn again").await;
    let id = quinn.next_id();
    let request = QuickPlayRequest::new(Preset::Classic, true);
    let answer = quinn.command(ClientMessage::QuickPlay { id, request }).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }), "{answer:?}");
    server.stop(Stop::Kill);
    data.drop_database().await;
}

/// Everyone at `scene` comes back to what they saw, and the game plays on.
async fn check_scene(server: &Server, scene: &Scene) {
    let what = &scene.what;
    let mut back = Vec::new();
    for (player, before) in &scene.seen {
        let mut client = Client::connect(&server.url()).await;
        client.try_hello("", Some(&player.token)).await.expect("the token survived");
        let after = view(&mut client, &scene.table).await;
        assert_eq!(after.your_seat, player.seat, "{what}: {}'s seat", player.name);
        assert_eq!(
            comparable(after),
            comparable(before.clone()),
            "{what}: {} sees what they saw before the stop",
            player.name
        );
        back.push(client);
    }
    let before = &scene.seen[0].1;
    let table = &scene.table;
    // Its link names its host as the lobby does; a private table's (a
    // pool's too) names none: only what its invite tells.
    let path = format!("/api/tables/{table}");
    let link = request_at(server.address, "GET", &path, None, None).await.json();
    let host = (!before.summary.private).then_some(before.summary.host.as_str());
    assert_eq!(link["host"].as_str(), host, "{what}: {link}");
    assert_eq!(link["private"], before.summary.private, "{what}: {link}");
    if let Some(player) = &scene.away {
        let mut client = Client::connect(&server.url()).await;
        client.try_hello("", Some(&player.token)).await.expect("the token survived");
        let after = view(&mut client, table).await;
        assert_eq!(after.your_seat, player.seat, "{what}: {}'s seat", player.name);
        let (game, seen) = (after.game.expect("the game"), before.game.as_ref().expect("a game"));
        assert_eq!((&game.bids, &game.tricks, game.turn), (&seen.bids, &seen.tricks, seen.turn));
        let seat = usize::from(player.seat.expect("a seat"));
        let held = game.hand.as_ref().map(Vec::len);
        assert_eq!(held, Some(usize::from(seen.hand_sizes[seat])), "{what}: their cards");
    }
    match before.summary.status {
        // It goes on from where it stopped: whoever is to act can.
        TableStatus::Playing => {
            let turn = before.game.as_ref().and_then(|game| game.turn).expect("a turn");
            let at = scene.seen.iter().position(|(p, _)| p.seat == Some(turn.0));
            let at = at.expect("a person's turn");
            let (_, seen) = &scene.seen[at];
            let action = seen.actions.iter().copied().find(|a| *a != Action::Concede);
            let action = action.expect("a legal action");
            let id = back[at].next_id();
            let act = ClientMessage::Act { id, table: table.clone(), action };
            let answer = back[at].command(act).await;
            assert!(matches!(answer, ServerMessage::Ack { .. }), "{what}: {answer:?}");
        }
        TableStatus::Finished => {
            let id = back[0].next_id();
            let rematch = ClientMessage::Rematch { id, table: table.clone() };
            let answer = back[0].command(rematch).await;
            assert!(matches!(answer, ServerMessage::Ack { .. }), "{what}: rematch: {answer:?}");
        }
        // Somebody new can sit.
        TableStatus::Open => {
            let mut newcomer = guest(server, "Newt").await;
            let seat = before.seats.iter().position(Option::is_none).expect("a free seat");
            newcomer.sit(table, Some(seat as u8)).await;
        }
    }
    if let Some(invite) = &scene.invite {
        let mut stranger = guest(server, "Sly").await;
        let id = stranger.next_id();
        let watch = ClientMessage::Watch { id, table: table.clone(), invite: None };
        let refused = stranger.command(watch).await;
        assert_eq!(error_code(&refused), Some("no_such_table"), "{what}: {refused:?}");
        let id = stranger.next_id();
        let watch = ClientMessage::Watch { id, table: table.clone(), invite: Some(invite.clone()) };
        let answer = stranger.command(watch).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{what}: the invite: {answer:?}");
    }
}

// ---------------------------------------------------------------------------
// One bad record never stops the server.

#[tokio::test]
async fn sqlite_sets_aside_the_tables_it_cannot_restore_and_serves_the_rest() {
    let Some(data) = Data::sqlite().await else { return };
    set_aside(data).await;
}

#[tokio::test]
async fn postgres_sets_aside_the_tables_it_cannot_restore_and_serves_the_rest() {
    let Some(data) = Data::postgres().await else { return };
    set_aside(data).await;
}

/// Runs `statement` on the server's database behind its back.
async fn tamper(data: &Data, statement: String) {
    let statement = sqlx::AssertSqlSafe(statement);
    if data.postgres.is_some() {
        let pool = sqlx::PgPool::connect(&data.database_url).await.expect("PostgreSQL");
        sqlx::query(statement).execute(&pool).await.expect("tamper with a row");
        pool.close().await;
    } else {
        let pool = sqlx::SqlitePool::connect(&data.database_url).await.expect("SQLite");
        sqlx::query(statement).execute(&pool).await.expect("tamper with a row");
        pool.close().await;
    }
}

/// Tables are planted that cannot be restored (a game whose stored plays
/// no longer read, settings naming no preset, and on SQLite seats that are
/// not JSON) beside a good one and one whose host is no longer stored. The server starts; the good table is
/// served; each bad one is closed as `lost` with its game abandoned, logged
/// with its id and counted; and the next start does not meet them again.
async fn set_aside(data: Data) {
    let server = data.start(&[]);
    let casual = TableSettings { rated: false, bot: "basic".into(), ..TableSettings::default() };
    let mut scenes = Vec::new();
    for seed in 0..5 {
        let (scene, client) =
            with_bots(&server, "mid-trick", casual.clone(), seed, mid_trick).await;
        drop(client);
        scenes.push(scene);
    }
    // Graceful: the database has every write, so the journal replays none
    // over what is tampered with below.
    server.stop(Stop::Term);
    let [good, plays, preset, seats, hostless] = &scenes[..] else { unreachable!() };
    // A host no longer stored (a player deleted since) is no reason to set
    // a table aside: it keeps the name they sat under.
    let host_id = hostless.seen[0].1.seats[0].as_ref().map(|occupant| match occupant {
        Occupant::Player { player, .. } => player.id.clone(),
        Occupant::Bot { .. } => unreachable!("a person sits at seat 0"),
    });
    let host_id = host_id.expect("the host sits");
    tamper(&data, format!("DELETE FROM players WHERE id = '{host_id}'")).await;
    tamper(
        &data,
        format!(
            "UPDATE hands SET plays = plays || 'zz' WHERE match_id IN \
             (SELECT id FROM matches WHERE table_id = '{}')",
            plays.table
        ),
    )
    .await;
    tamper(
        &data,
        format!(
            "UPDATE game_tables SET settings = '{{\"preset\": \"no_such_preset\"}}' WHERE id = '{}'",
            preset.table
        ),
    )
    .await;
    let mut bad = vec![&plays.table, &preset.table];
    if data.postgres.is_none() {
        // SQLite keeps JSON as text, which can stop being JSON.
        tamper(&data, format!("UPDATE game_tables SET seats = '[{{' WHERE id = '{}'", seats.table))
            .await;
        bad.push(&seats.table);
    }

    let server = data.start(&[]);
    assert_eq!(server.metric("euchre_tables_set_aside_total").await, bad.len() as u64);
    for table in &bad {
        let logged = server.logged("ERROR", "cannot restore a table");
        let named = logged.iter().any(|entry| entry["fields"]["table"].as_str() == Some(table));
        assert!(named, "the log names {table}: {logged:#?}");
        let path = format!("/api/tables/{table}");
        let closed = eventually(&format!("{table} closed"), PATIENCE, async || {
            let view = request_at(server.address, "GET", &path, None, None).await.json();
            // Closed in the database, not only absent from the registry.
            (!view["closed_at"].is_null()).then_some(view)
        })
        .await;
        assert_eq!(closed["closed_reason"], "lost", "{closed}");
        assert_eq!(closed["last_match"]["abandoned"]["reason"], "lost", "{closed}");
    }
    check_scene(&server, good).await;
    let mut watcher = guest(&server, "Wat").await;
    let id = watcher.next_id();
    let watch = ClientMessage::Watch { id, table: hostless.table.clone(), invite: None };
    let answer = watcher.command(watch).await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let state = view(&mut watcher, &hostless.table).await;
    assert_eq!(state.summary, hostless.seen[0].1.summary, "restored, named as before");
    // The set-aside tables are closed for good: the next start is clean.
    server.stop(Stop::Term);
    let server = data.start(&[]);
    assert_eq!(server.metric("euchre_tables_set_aside_total").await, 0);
    let (player, _) = &good.seen[0];
    let mut client = Client::connect(&server.url()).await;
    client.try_hello("", Some(&player.token)).await.expect("the token survived");
    let state = view(&mut client, &good.table).await;
    assert_eq!(state.summary.status, TableStatus::Playing);
    server.stop(Stop::Kill);
    data.drop_database().await;
}

/// A database migrated by a newer version is no reason to wait (the
/// server used to retry for ever): it refuses to start, and says why.
#[tokio::test]
async fn a_schema_from_a_newer_version_stops_the_start_with_the_reason() {
    let Some(data) = Data::sqlite().await else { return };
    data.start(&[]).stop(Stop::Term);
    tamper(
        &data,
        "INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, \
         execution_time) VALUES (9999, 'from a newer version', CURRENT_TIMESTAMP, TRUE, x'00', 0)"
            .to_owned(),
    )
    .await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_euchre-server"))
        .args(["--bind", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(data.dir.path())
        .arg("--database-url")
        .arg(&data.database_url)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server runs");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("its errors");
    let status = child.wait().expect("it ends");
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("9999") && stderr.contains("restore a backup"), "{stderr}");
}

/// A SQLite file that cannot be made (its folder is a file here) stops the
/// start at once with the reason: retrying would never help.
#[tokio::test]
async fn a_sqlite_file_that_cannot_be_opened_stops_the_start_with_the_reason() {
    let dir = tempfile::tempdir().expect("a folder");
    let not_a_folder = dir.path().join("not-a-folder");
    std::fs::write(&not_a_folder, b"a file").expect("a file");
    let url = format!("sqlite://{}/euchre.db", not_a_folder.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_euchre-server"))
        .args(["--bind", "127.0.0.1:0", "--database-url", &url])
        .arg("--data-dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server runs");
    let ended =
        eventually("the server to stop", PATIENCE, async || child.try_wait().expect("its status"))
            .await;
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("its errors");
    assert!(!ended.success(), "{stderr}");
    assert!(stderr.contains("cannot open the SQLite database"), "{stderr}");
}
