//! Roles and the moderation log: the operator grants a role with the
//! server's own subcommand, on the database a server is using; every
//! moderation route is refused to anyone without the role it needs.

use std::process::Command;

use crate::support::http::{claim, request};
use crate::support::{Players, TestServer};

const PASSWORD: &str = "correct horse";

/// A new guest `name`'s token, once it has claimed its name: a session's.
async fn account(server: &TestServer, name: &str) -> String {
    let guest = server.player(name).await;
    let token = guest.token.clone().expect("a guest token");
    let claimed = claim(server, &token, name, PASSWORD).await;
    assert_eq!(claimed.status, 201, "{name} claims the name: {}", claimed.body);
    claimed.json()["token"].as_str().expect("a session token").to_owned()
}

/// `euchre-server admin ARGS` on `server`'s database: its output, or its
/// error output if it failed.
fn admin(server: &TestServer, args: &[&str]) -> Result<String, String> {
    admin_in(server.data.path(), args)
}

/// `euchre-server admin ARGS` on the SQLite database in `data`.
fn admin_in(data: &std::path::Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new(env!("CARGO_BIN_EXE_euchre-server"))
        .arg("--data-dir")
        .arg(data)
        .arg("--database-url")
        .arg(format!("sqlite://{}/euchre.db", data.display()))
        .arg("admin")
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .expect("the server's binary runs");
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    if output.status.success() { Ok(text(output.stdout)) } else { Err(text(output.stderr)) }
}

/// Every route under `/api/admin` in the API's document, with its method.
fn admin_routes() -> Vec<(String, String)> {
    let document = serde_json::to_value(euchre_server::api::openapi()).expect("the document");
    let paths = document["paths"].as_object().expect("paths");
    let routes: Vec<(String, String)> = paths
        .iter()
        .filter(|(path, _)| path.starts_with("/api/admin/"))
        .flat_map(|(path, item)| {
            let methods = item.as_object().expect("a path item").keys();
            methods.map(|method| (method.to_uppercase(), path.clone())).collect::<Vec<_>>()
        })
        .collect();
    assert!(!routes.is_empty(), "the document lists the admin routes");
    routes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_grants_roles_and_every_admin_route_refuses_those_without_one() {
    let server = TestServer::start().await;
    let guest = server.player("Gus").await.token.clone().expect("a guest token");
    let player = account(&server, "Ann").await;
    let moderator = account(&server, "Mo").await;
    let admin_token = account(&server, "Ada").await;

    // The subcommand, on the running server's database, by name in any case.
    let granted = admin(&server, &["grant", "mo", "moderator", "--reason", "helps at night"]);
    assert_eq!(granted.as_deref(), Ok("mo is now a moderator\n"));
    assert_eq!(admin(&server, &["grant", "ADA", "admin"]).as_deref(), Ok("ADA is now an admin\n"));
    let refused = admin(&server, &["grant", "Gus", "admin"]).expect_err("a guest has no account");
    assert!(refused.contains("no account is named \"Gus\""), "{refused}");
    assert!(admin(&server, &["grant", "Ann", "owner"]).is_err(), "no such role");

    // Nobody without the role gets in, and a refusal says nothing of roles.
    for (method, path) in admin_routes() {
        let answer = |token: Option<&'static str>| request(&server, &method, &path, token, None);
        assert_eq!(answer(None).await.error(401), "no_token", "{method} {path}");
        assert_eq!(answer(Some("nonsense")).await.error(401), "bad_token", "{method} {path}");
        for (who, token) in [("a guest", &guest), ("a player", &player)] {
            let token = Some(token.as_str());
            let answer = request(&server, &method, &path, token, None).await;
            assert_eq!(answer.error(403), "forbidden", "{method} {path} as {who}");
        }
    }
    // The log is the admins' alone.
    let as_moderator = request(&server, "GET", "/api/admin/log", Some(&moderator), None).await;
    assert_eq!(as_moderator.error(403), "forbidden");

    let log = request(&server, "GET", "/api/admin/log", Some(&admin_token), None).await;
    assert_eq!(log.status, 200, "{}", log.body);
    let entries = log.json()["entries"].as_array().expect("entries").clone();
    let lines: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|entry| {
            let target = entry["target"]["name"].as_str().unwrap_or_default();
            let (action, reason) = (&entry["action"], &entry["reason"]);
            (action.as_str().unwrap_or_default(), target, reason.as_str().unwrap_or_default())
        })
        .collect();
    assert_eq!(lines, [("grant_admin", "Ada", ""), ("grant_moderator", "Mo", "helps at night")]);
    assert_eq!(entries[0]["actor"]["id"], "operator");
    let bad = request(&server, "GET", "/api/admin/log?limit=0", Some(&admin_token), None).await;
    assert_eq!(bad.error(400), "bad_query");
    let page = request(&server, "GET", "/api/admin/log?limit=1", Some(&admin_token), None).await;
    let next = page.json()["next_before"].as_i64().expect("a next page");
    let path = format!("/api/admin/log?limit=1&before={next}");
    let older = request(&server, "GET", &path, Some(&admin_token), None).await;
    assert_eq!(older.json()["entries"][0]["action"], "grant_moderator");

    // A role taken away holds at the next request; the log keeps both.
    assert_eq!(admin(&server, &["revoke", "Ada"]).as_deref(), Ok("Ada has no role now\n"));
    let after = request(&server, "GET", "/api/admin/log", Some(&admin_token), None).await;
    assert_eq!(after.error(403), "forbidden");
    let printed = admin(&server, &["log"]).expect("the log");
    let actions: Vec<&str> =
        printed.lines().map(|line| line.split('\t').nth(3).unwrap_or_default()).collect();
    assert_eq!(actions, ["revoke_role", "grant_admin", "grant_moderator"], "{printed}");
    server.stop().await;
}

// ---------------------------------------------------------------------------
// Moderators' actions: each is refused where it should be, takes effect at
// once and is in the log.

use std::time::Duration;

use euchre_protocol::{
    ClientMessage, Occupant, Reply, ServerMessage, TableEvent, TableNotice, TableSettings, close,
};
use euchre_testkit::eventually;

use crate::support::Client;
use crate::support::error_code;

/// `POST path` with `body` as `token`: the answer.
async fn act(
    server: &TestServer,
    token: &str,
    path: &str,
    body: serde_json::Value,
) -> crate::support::http::Answer {
    let body = body.to_string();
    request(server, "POST", path, Some(token), Some(body.as_bytes())).await
}

/// A connection saying hello with `token`; the messages after its welcome
/// come with the next command's answer.
async fn hello_as(server: &TestServer, token: &str) -> Client {
    let mut client = Client::connect(&server.url()).await;
    client.try_hello("", Some(token)).await.expect("welcome");
    client
}

/// The warnings `client` was sent so far (a ping makes sure they are in).
async fn warnings(client: &mut Client) -> Vec<(i64, String)> {
    let id = client.next_id();
    client.command(ClientMessage::Ping { id }).await;
    client
        .log
        .iter()
        .filter_map(|message| match message {
            ServerMessage::Warning { warning, message, .. } => Some((*warning, message.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moderators_warn_mute_ban_and_rename_and_nobody_acts_on_a_role_as_high() {
    let server = TestServer::start().await;
    let moderator = account(&server, "Mo").await;
    let admin_token = account(&server, "Ada").await;
    let eve = account(&server, "Eve").await;
    let bob = account(&server, "Bob").await;
    admin(&server, &["grant", "Mo", "moderator"]).expect("granted");
    admin(&server, &["grant", "Ada", "admin"]).expect("granted");

    // Roles: asked for by their holders only; nobody acts on a role as high.
    let role = request(&server, "GET", "/api/sessions/current", Some(&moderator), None).await;
    assert_eq!(role.json()["role"], "moderator");
    let no_role = request(&server, "GET", "/api/sessions/current", Some(&eve), None).await;
    assert_eq!(no_role.json()["role"], serde_json::Value::Null, "{}", no_role.body);
    for who in ["Ada", "Mo"] {
        for action in ["ban", "mute", "warn", "rename"] {
            let path = format!("/api/admin/players/{who}/{action}");
            let body = serde_json::json!({ "minutes": 5, "reason": "no" });
            let refused = act(&server, &moderator, &path, body).await;
            assert_eq!(refused.error(403), "protected", "a moderator may not {action} {who}");
        }
    }
    let path = "/api/admin/players/Ada/ban";
    let refused = act(&server, &admin_token, path, serde_json::json!({})).await;
    assert_eq!(refused.error(403), "protected", "an admin bans no admin");
    let unknown =
        act(&server, &moderator, "/api/admin/players/nobody/ban", serde_json::json!({})).await;
    assert_eq!(unknown.error(404), "not_found");

    // A warning is shown at the next hello, and at every one until acknowledged.
    let warned = serde_json::json!({ "reason": "mind your language" });
    assert_eq!(act(&server, &moderator, "/api/admin/players/Eve/warn", warned).await.status, 200);
    let mut at_the_table = hello_as(&server, &eve).await;
    let shown = warnings(&mut at_the_table).await;
    assert_eq!(
        shown.iter().map(|(_, text)| text.as_str()).collect::<Vec<_>>(),
        ["mind your language"]
    );
    let id = at_the_table.next_id();
    let ack =
        at_the_table.command(ClientMessage::AcknowledgeWarning { id, warning: shown[0].0 }).await;
    assert!(matches!(ack, ServerMessage::Ack { reply: Reply::Done, .. }), "{ack:?}");
    let mut later = hello_as(&server, &eve).await;
    assert!(warnings(&mut later).await.is_empty(), "an acknowledged warning is not shown again");

    // A mute refuses her chat, saying until when; lifted, she chats again.
    let table = at_the_table
        .create_table(TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() })
        .await;
    at_the_table.sit(&table, Some(0)).await;
    let muted = serde_json::json!({ "minutes": 5, "reason": "flooding" });
    assert_eq!(act(&server, &moderator, "/api/admin/players/Eve/mute", muted).await.status, 200);
    let chat = |id| ClientMessage::Chat { id, table: table.clone(), text: "hello all".into() };
    let id = at_the_table.next_id();
    let refused = at_the_table.command(chat(id)).await;
    assert_eq!(error_code(&refused), Some("chat_muted"), "{refused:?}");
    let ServerMessage::Error { message, .. } = &refused else { unreachable!() };
    assert!(message.contains(" until 20"), "{message}");
    let lifted =
        act(&server, &moderator, "/api/admin/players/Eve/unmute", serde_json::json!({})).await;
    assert_eq!(lifted.status, 200);
    let id = at_the_table.next_id();
    let said = at_the_table.command(chat(id)).await;
    assert!(matches!(said, ServerMessage::Ack { .. }), "{said:?}");

    // A ban closes her connections (4004, until when), a bot takes her seat
    // in the game under way, and her token is refused until it ends.
    // (The game began when she sat: every other seat is a bot's.)
    let mut watcher = hello_as(&server, &bob).await;
    let id = watcher.next_id();
    let watching =
        watcher.command(ClientMessage::Watch { id, table: table.clone(), invite: None }).await;
    assert!(matches!(watching, ServerMessage::Ack { .. }), "{watching:?}");
    let banned = serde_json::json!({ "minutes": 60, "reason": "abuse" });
    let answer = act(&server, &moderator, "/api/admin/players/Eve/ban", banned).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let until = answer.json()["until"].as_i64().expect("the ban's end");
    let code = tokio::time::timeout(Duration::from_secs(1), at_the_table.close_code()).await;
    assert_eq!(code.expect("closed within a second"), Some(close::BANNED));
    watcher
        .recv_until(|message| {
            matches!(
                message,
                ServerMessage::Event {
                    event: Some(TableEvent::Table(TableNotice::SeatTaken { seat: 0, .. })),
                    ..
                }
            )
        })
        .await;
    let mut again = Client::connect(&server.url()).await;
    let refused = again.try_hello("", Some(&eve)).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("banned"));
    let refused = request(&server, "GET", "/api/sessions/current", Some(&eve), None).await;
    assert_eq!(refused.error(403), "banned");

    // The player's view: what was done, and where she was seen, hashed.
    let view = request(&server, "GET", "/api/admin/players/Eve", Some(&moderator), None).await;
    assert_eq!(view.status, 200, "{}", view.body);
    let view = view.json();
    assert_eq!(view["banned"]["until"], until);
    let actions: Vec<&str> = view["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(|a| a["action"].as_str())
        .collect();
    assert_eq!(actions, ["ban", "unmute", "mute", "warn"]);
    let addresses = view["addresses"].as_array().expect("addresses");
    assert_eq!(addresses.len(), 1, "{view}");
    assert_eq!(addresses[0]["other_players"], 1, "Bob said hello from the same address");
    assert!(!view.to_string().contains("127.0.0.1"), "no address is shown: {view}");

    // A name taken away: the player is renamed and told; the name stays reserved.
    let renamed =
        act(&server, &moderator, "/api/admin/players/Bob/rename", serde_json::json!({})).await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let new_name = renamed.json()["name"].as_str().expect("the new name").to_owned();
    let mut newcomer = Client::connect(&server.url()).await;
    let taken = newcomer.try_hello("B0b", None).await.err();
    assert_eq!(taken.as_ref().and_then(euchre_client::Error::code), Some("name_taken"));
    let mut bob_again = Client::connect(&server.url()).await;
    let identity = bob_again.try_hello("", Some(&bob)).await.expect("welcome");
    assert_eq!(identity.player.name, new_name);
    let told = warnings(&mut bob_again).await;
    assert!(told.iter().any(|(_, text)| text.contains(&new_name)), "{told:?}");
    // He picks a name of his own, once; nobody else picks here.
    let pick = |name: &str| serde_json::json!({ "name": name }).to_string();
    let body = pick("Robert");
    let picked =
        request(&server, "PUT", "/api/accounts/name", Some(&bob), Some(body.as_bytes())).await;
    assert_eq!(picked.status, 200, "{}", picked.body);
    assert_eq!(picked.json()["name"], "Robert");
    let body = pick("Bobby");
    let again =
        request(&server, "PUT", "/api/accounts/name", Some(&bob), Some(body.as_bytes())).await;
    assert_eq!(again.error(409), "no_rename");
    let body = pick("Mo");
    let other =
        request(&server, "PUT", "/api/accounts/name", Some(&moderator), Some(body.as_bytes()))
            .await;
    assert_eq!(other.error(409), "name_taken", "a name taken is refused before anything else");
    let logged_in = crate::support::http::log_in(&server, "robert", PASSWORD).await;
    assert_eq!(logged_in.status, 201, "{}", logged_in.body);
    assert_eq!(logged_in.json()["player"]["name"], "Robert");

    // The operator lifts the ban on the database; the server reads it within seconds.
    assert_eq!(admin(&server, &["unban", "Eve"]).as_deref(), Ok("Eve is not banned now\n"));
    eventually("the lifted ban to be read", Duration::from_secs(8), async || {
        let mut back = Client::connect(&server.url()).await;
        back.try_hello("", Some(&eve)).await.map(|_| ()).map_err(|e| format!("{e:?}"))
    })
    .await;
    let log = request(&server, "GET", "/api/admin/log?limit=3", Some(&admin_token), None).await;
    let actions: Vec<String> = log.json()["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| entry["action"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(actions, ["unban", "pick_name", "rename"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_word_list_refuses_names_and_chat_and_the_operator_can_turn_chat_off() {
    let words = tempfile::NamedTempFile::new().expect("a file");
    std::fs::write(words.path(), "# the operator's list\nbadword\n").expect("written");
    let path = words.path().to_owned();
    let server = TestServer::start_with(|settings| settings.moderation.word_list = path).await;
    let mut newcomer = Client::connect(&server.url()).await;
    let refused = newcomer.try_hello("Mr B A D W 0 R D", None).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("blocked_words"));
    let mut ann = Client::connect(&server.url()).await;
    ann.hello("Ann").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    let id = ann.next_id();
    let said = ann
        .command(ClientMessage::Chat { id, table: table.clone(), text: "you BadWord".into() })
        .await;
    assert_eq!(error_code(&said), Some("blocked_words"), "{said:?}");
    let id = ann.next_id();
    let said = ann.command(ClientMessage::Chat { id, table, text: "good game".into() }).await;
    assert!(matches!(said, ServerMessage::Ack { .. }), "{said:?}");
    server.stop().await;

    let quiet = TestServer::start_with(|settings| settings.moderation.chat = false).await;
    let mut ann = Client::connect(&quiet.url()).await;
    ann.hello("Ann").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    let id = ann.next_id();
    let said = ann.command(ClientMessage::Chat { id, table, text: "hello".into() }).await;
    assert_eq!(error_code(&said), Some("chat_disabled"), "{said:?}");
    quiet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bans_mutes_and_warnings_survive_a_restart() {
    use crate::support::http::{Source, request_at, request_to};
    use euchre_server::testing::{ServerTask, keep_data_in};
    let data = tempfile::tempdir().expect("a data folder");
    let mut settings = euchre_server::Settings::default();
    keep_data_in(&mut settings, data.path());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("an address");
    let url = format!("ws://{address}/ws");
    let task = ServerTask::spawn(listener, settings.clone());
    let account_at = async |name: &str| {
        let mut guest = Client::connect(&url).await;
        guest.hello(name).await;
        let body = serde_json::json!({ "name": name, "password": PASSWORD }).to_string();
        let token = guest.token.clone();
        let claimed =
            request_at(address, "POST", "/api/accounts", token.as_deref(), Some(body.as_bytes()))
                .await;
        claimed.json()["token"].as_str().expect("a session token").to_owned()
    };
    let moderator = account_at("Mo").await;
    let eve = account_at("Eve").await;
    let bob = account_at("Bob").await;
    admin_in(data.path(), &["grant", "Mo", "moderator"]).expect("granted");
    let post = async |path: &str, body: serde_json::Value| {
        let body = body.to_string();
        let answer =
            request_at(address, "POST", path, Some(&moderator), Some(body.as_bytes())).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    };
    post("/api/admin/players/Eve/ban", serde_json::json!({ "reason": "for good" })).await;
    post("/api/admin/players/Bob/mute", serde_json::json!({ "minutes": 60 })).await;
    post("/api/admin/players/Bob/warn", serde_json::json!({ "reason": "be kind" })).await;
    let banned_address = serde_json::json!({ "address": "127.0.0.55", "minutes": 60 });
    post("/api/admin/address-bans", banned_address).await;
    task.stop().await;

    let listener = tokio::net::TcpListener::bind(address).await.expect("the same address");
    let task = ServerTask::spawn(listener, settings);
    let mut again = Client::connect(&url).await;
    let refused = again.try_hello("", Some(&eve)).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("banned"));
    let source = Source { address: [127, 0, 0, 55], forwarded_for: None };
    let answer = request_to(address, source, "GET", "/api/leaderboard", None, None).await;
    assert_eq!(answer.error(403), "address_banned");
    let mut bob_again = Client::connect(&url).await;
    bob_again.try_hello("", Some(&bob)).await.expect("welcome");
    let told = warnings(&mut bob_again).await;
    assert_eq!(told.iter().map(|(_, text)| text.as_str()).collect::<Vec<_>>(), ["be kind"]);
    let table = bob_again.create_table(TableSettings::default()).await;
    bob_again.sit(&table, Some(0)).await;
    let id = bob_again.next_id();
    let said = bob_again.command(ClientMessage::Chat { id, table, text: "hi".into() }).await;
    assert_eq!(error_code(&said), Some("chat_muted"), "{said:?}");
    task.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_banned_closes_the_connections_open_from_it_within_a_second() {
    let server = TestServer::start().await;
    let moderator = account(&server, "Mo").await;
    admin(&server, &["grant", "Mo", "moderator"]).expect("granted");
    // From the address to be banned: one welcomed and seated, one that has
    // not said hello yet; from another address, one that stays.
    let mut seated = Client::connect_from(&server, [127, 0, 0, 66]).await.expect("connected");
    seated.hello("Zed").await;
    let table = seated
        .create_table(TableSettings { bot_seats: vec![1, 2, 3], ..TableSettings::default() })
        .await;
    seated.sit(&table, Some(0)).await;
    let mut silent = Client::connect_from(&server, [127, 0, 0, 66]).await.expect("connected");
    let mut elsewhere = Client::connect_from(&server, [127, 0, 0, 67]).await.expect("connected");
    elsewhere.hello("Yan").await;

    let body = serde_json::json!({ "address": "127.0.0.66", "minutes": 30, "reason": "flood" });
    let answer = act(&server, &moderator, "/api/admin/address-bans", body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let until = answer.json()["until"].as_i64().expect("the ban's end");
    let until_text = euchre_server::sanctions::rfc3339(until);
    for (who, client) in [("seated", &mut seated), ("silent", &mut silent)] {
        let closed = tokio::time::timeout(Duration::from_secs(1), client.close_frame()).await;
        let (code, reason) = closed.expect("closed within a second").expect("a close frame");
        assert_eq!(code, close::BANNED, "{who}: {reason}");
        assert!(reason.ends_with(&format!("until {until_text}")), "{who}: {reason}");
    }
    // The other address's connection stays open and served; the account
    // is not banned, so its seat waits for it (it may resume from elsewhere).
    let id = elsewhere.next_id();
    let watching = elsewhere.command(ClientMessage::Watch { id, table, invite: None }).await;
    assert!(matches!(watching, ServerMessage::Ack { .. }), "{watching:?}");
    let is_snapshot = |m: &ServerMessage| matches!(m, ServerMessage::Snapshot { .. });
    let snapshot = match elsewhere.log.iter().find(|m| is_snapshot(m)).cloned() {
        Some(snapshot) => snapshot,
        None => elsewhere.recv_until(is_snapshot).await,
    };
    let ServerMessage::Snapshot { state, .. } = snapshot else { unreachable!() };
    assert!(
        matches!(&state.seats[0], Some(Occupant::Player { player, .. }) if player.name == "Zed"),
        "{:?}",
        state.seats[0]
    );
    let refused = Client::connect_from(&server, [127, 0, 0, 66]).await.err();
    assert_eq!(refused.map(|refusal| refusal.status), Some(403));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_bans_mutes_and_bans_an_address_from_the_command_line() {
    let server = TestServer::start().await;
    let admin_token = account(&server, "Ada").await;
    let eve = account(&server, "Eve").await;
    let bob = account(&server, "Bob").await;
    admin(&server, &["grant", "Ada", "admin"]).expect("granted");
    let log = async || -> Vec<serde_json::Value> {
        let log =
            request(&server, "GET", "/api/admin/log?limit=10", Some(&admin_token), None).await;
        log.json()["entries"].as_array().expect("entries").clone()
    };
    let logged_before = log().await.len();

    // Bad input is refused, saying why, and changes nothing.
    for bad in [
        vec!["ban", "Eve", "--for", "2y", "--reason", "spam"],
        vec!["ban", "Eve", "--reason", "  "],
        vec!["ban", "Eve"],
        vec!["ban", "nobody", "--reason", "spam"],
        vec!["mute", "Bob", "--reason", "spam"],
        vec!["mute", "Bob", "--for", "60w", "--reason", "spam"],
        vec!["ban-address", "not.an.address", "--for", "1h", "--reason", "spam"],
        vec!["ban-address", "127.0.0.88", "--for", "2w", "--reason", "spam"],
    ] {
        let refused = admin(&server, &bad);
        assert!(refused.as_ref().is_err_and(|why| !why.is_empty()), "{bad:?}: {refused:?}");
    }
    assert_eq!(log().await.len(), logged_before, "a refused command logs nothing");

    let mut eve_open = hello_as(&server, &eve).await;
    let mut bob_open = hello_as(&server, &bob).await;
    let table = bob_open.create_table(TableSettings::default()).await;
    bob_open.sit(&table, Some(0)).await;
    let mut from_address = Client::connect_from(&server, [127, 0, 0, 88]).await.expect("connected");
    from_address.hello("Zed").await;

    let banned = admin(&server, &["ban", "Eve", "--for", "2h", "--reason", "abuse in chat"]);
    assert!(banned.as_deref().is_ok_and(|out| out.starts_with("Eve is banned until 20")));
    let muted = admin(&server, &["mute", "Bob", "--for", "30m", "--reason", "flooding"]);
    assert!(muted.as_deref().is_ok_and(|out| out.starts_with("Bob is muted until 20")));
    let address = admin(&server, &["ban-address", "127.0.0.88", "--for", "1d", "--reason", "bots"]);
    assert!(address.as_deref().is_ok_and(|out| out.contains(" is banned until 20")), "{address:?}");

    // The server reads them within its refresh: her connection and the
    // address's close (4004), the mute refuses chat.
    for client in [&mut eve_open, &mut from_address] {
        let closed = tokio::time::timeout(Duration::from_secs(8), client.close_frame()).await;
        let (code, reason) = closed.expect("closed within the refresh").expect("a close frame");
        assert_eq!(code, close::BANNED, "{reason}");
        assert!(reason.contains(" until 20"), "{reason}");
    }
    let mut again = Client::connect(&server.url()).await;
    let refused = again.try_hello("", Some(&eve)).await.err();
    assert_eq!(refused.as_ref().and_then(euchre_client::Error::code), Some("banned"));
    assert_eq!(
        Client::connect_from(&server, [127, 0, 0, 88]).await.err().map(|r| r.status),
        Some(403)
    );
    eventually("the mute to be read", Duration::from_secs(8), async || {
        let id = bob_open.next_id();
        let chat = ClientMessage::Chat { id, table: table.clone(), text: "hi".into() };
        let said = bob_open.command(chat).await;
        if error_code(&said) == Some("chat_muted") { Ok(()) } else { Err(format!("{said:?}")) }
    })
    .await;

    // Each is in the log as the operator's, with its end and reason.
    let entries = log().await;
    let newest: Vec<(String, String, String)> = entries[..3]
        .iter()
        .map(|entry| {
            let text = |value: &serde_json::Value| value.as_str().unwrap_or_default().to_owned();
            (text(&entry["actor"]["id"]), text(&entry["action"]), text(&entry["reason"]))
        })
        .collect();
    for ((actor, action, reason), (wanted, why)) in
        newest.iter().zip([("ban_address", "bots"), ("mute", "flooding"), ("ban", "abuse in chat")])
    {
        assert_eq!((action.as_str(), actor.as_str()), (wanted, "operator"), "{entries:?}");
        assert!(reason.contains("until 20") && reason.ends_with(why), "{reason}");
    }
    server.stop().await;
}

/// A moderator cancels a tournament an account organises, and takes a
/// player out of another: each act is the director's, and each is in the
/// moderation log with the tournament named. Another account may do
/// neither, and a moderator may not pause one not theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_cancels_a_tournament_and_removes_a_player_and_the_log_says_so() {
    let server = TestServer::start().await;
    let moderator = account(&server, "Mo").await;
    let admin_token = account(&server, "Ada").await;
    let olive = account(&server, "Olive").await;
    let eve = account(&server, "Eve").await;
    admin(&server, &["grant", "Mo", "moderator"]).expect("granted");
    admin(&server, &["grant", "Ada", "admin"]).expect("granted");
    let create = async |name: &str| {
        let spec = serde_json::json!({
            "name": name, "format": "progressive", "preset": "standard", "starts_in_seconds": 3600,
        });
        let created = act(&server, &olive, "/api/tournaments", spec).await;
        assert_eq!(created.status, 201, "{}", created.body);
        created.json()["id"].as_str().expect("an id").to_owned()
    };
    let shady = create("Shady Cup").await;
    let night = create("Friday Night").await;
    let entries = format!("/api/tournaments/{night}/entries");
    assert_eq!(request(&server, "POST", &entries, Some(&eve), None).await.status, 204);
    let eve_id = request(&server, "GET", "/api/sessions/current", Some(&eve), None).await.json()
        ["player"]["id"]
        .as_str()
        .expect("her id")
        .to_owned();

    let cancel = format!("/api/tournaments/{shady}/cancel");
    let remove = format!("{entries}/{eve_id}");
    let pause = format!("/api/tournaments/{night}/pause");
    assert_eq!(
        act(&server, &eve, &cancel, serde_json::json!({})).await.error(409),
        "not_organiser"
    );
    let refused = request(&server, "DELETE", &remove, Some(&admin_token), None).await;
    assert_eq!(refused.status, 204, "an admin may too: {}", refused.body);
    assert_eq!(request(&server, "POST", &entries, Some(&eve), None).await.status, 204);
    let paused = act(&server, &moderator, &pause, serde_json::json!({})).await;
    assert_eq!(paused.error(409), "not_organiser", "only its organiser pauses it");
    assert_eq!(act(&server, &moderator, &cancel, serde_json::json!({})).await.status, 204);
    let removed = request(&server, "DELETE", &remove, Some(&moderator), None).await;
    assert_eq!(removed.status, 204, "{}", removed.body);

    let view =
        request(&server, "GET", &format!("/api/tournaments/{shady}"), None, None).await.json();
    assert_eq!(view["status"], "cancelled");
    assert_eq!(view["cancelled"], "cancelled by a moderator");
    let view =
        request(&server, "GET", &format!("/api/tournaments/{night}"), None, None).await.json();
    let entered = view["entries"].as_array().expect("entries");
    assert!(entered.is_empty(), "Eve's entry went: {view}");

    let log = request(&server, "GET", "/api/admin/log", Some(&admin_token), None).await.json();
    let lines: Vec<(String, String, String, String)> = (log["entries"]
        .as_array()
        .expect("entries"))
    .iter()
    .filter(|entry| entry["action"].as_str().is_some_and(|a| a.contains("tournament")))
    .map(|entry| {
        let text = |value: &serde_json::Value| value.as_str().unwrap_or_default().to_owned();
        (
            text(&entry["actor"]["name"]),
            text(&entry["action"]),
            text(&entry["target"]["name"]),
            text(&entry["reason"]),
        )
    })
    .collect();
    assert_eq!(
        lines,
        [
            (
                "Mo".into(),
                "remove_from_tournament".into(),
                "Eve".into(),
                format!("tournament \"Friday Night\" ({night})")
            ),
            (
                "Mo".into(),
                "cancel_tournament".into(),
                "Olive".into(),
                format!("tournament \"Shady Cup\" ({shady})")
            ),
            (
                "Ada".into(),
                "remove_from_tournament".into(),
                "Eve".into(),
                format!("tournament \"Friday Night\" ({night})")
            ),
        ],
        "{log}"
    );
    server.stop().await;
}
