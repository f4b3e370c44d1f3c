//! Accounts against a real server: a guest plays, claims its name, logs in
//! on another "device" (a new connection with no token) and finds its
//! history; wrong passwords, taken names, log-in limits (which no stranger
//! can turn against an owner), and sessions that end by log-out, by a
//! password change and by expiry, over HTTP and over the WebSocket's `hello`.

use std::time::Duration;

use crate::support::http::{Answer, Source, claim, http, log_in, request, request_from};
use crate::support::{Client, PATIENCE, Players, TestServer, play_to_the_end};
use euchre_client::{Error, Identity};
use euchre_engine::Preset;
use euchre_protocol::{LobbyQuery, TableSettings, close};
use euchre_server::Settings;
use euchre_server::config::Flags;
use euchre_server::testing::eventually;
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse";

async fn log_out(server: &TestServer, token: &str) -> Answer {
    request(server, "DELETE", "/api/sessions/current", Some(token), None).await
}

async fn change_password(server: &TestServer, token: &str, current: &str, new: &str) -> Answer {
    let body = json!({ "current_password": current, "new_password": new }).to_string();
    request(server, "PUT", "/api/accounts/password", Some(token), Some(body.as_bytes())).await
}

/// A started session's token, checking the answer on the way.
fn session(answer: &Answer, status: u16, player_id: &str) -> String {
    assert_eq!(answer.status, status, "{}", answer.body);
    let body = answer.json();
    assert_eq!(body["player"]["id"], player_id, "{body}");
    assert!(body["expires_at"].as_i64().is_some(), "{body}");
    body["token"].as_str().expect("a token").to_owned()
}

/// `hello` with a token on a new connection: the welcome or the refusal.
async fn hello_with(server: &TestServer, token: &str) -> Result<Identity, Error> {
    Client::connect(&server.url()).await.try_hello("", Some(token)).await
}

/// A connection welcomed as `token`'s player, kept open.
async fn open_with(server: &TestServer, token: &str) -> Client {
    let mut client = Client::connect(&server.url()).await;
    client.try_hello("", Some(token)).await.expect("welcomed");
    client
}

/// The close code `client` is sent within a second, failing the test after that.
async fn closed_within_a_second(client: &mut Client) -> Option<u16> {
    tokio::time::timeout(Duration::from_secs(1), client.close_code())
        .await
        .expect("the connection closed within a second")
}

/// Whether `client`'s connection still answers.
async fn still_open(client: &mut Client) -> bool {
    client.list_tables(LobbyQuery::default()).await.is_ok()
}

fn welcomed_as(welcome: &Result<Identity, Error>) -> Option<(&str, &str)> {
    welcome.as_ref().ok().map(|identity| (&*identity.player.id, &*identity.player.name))
}

fn refused(welcome: &Result<Identity, Error>) -> Option<&str> {
    welcome.as_ref().err().and_then(Error::code)
}

/// Plays one whole game against three bots; returns the client.
async fn one_game(server: &TestServer, name: &str) -> Client {
    let mut client = server.player(name).await;
    let settings =
        TableSettings { preset: Preset::Standard, bot_seats: vec![1, 2, 3], ..Default::default() };
    let table = client.create_table(settings).await;
    client.sit(&table, Some(0)).await;
    play_to_the_end(client, table, 7).await
}

/// The matches the history lists for `player`, once the writer has stored
/// at least `at_least` of them; the test fails if it has not in time.
async fn matches_of(server: &TestServer, player: &str, at_least: usize) -> Vec<Value> {
    let what = format!("{at_least} of {player}'s matches to be stored");
    eventually(&what, PATIENCE, async || {
        let answer = http(server, "GET", &format!("/api/matches?player={player}"), None).await;
        let matches = answer.json()["matches"].as_array().cloned().unwrap_or_default();
        (matches.len() >= at_least).then_some(matches)
    })
    .await
}

#[tokio::test]
async fn a_guest_claims_its_name_and_logs_in_elsewhere_keeping_its_history() {
    let server = TestServer::start().await;
    let client = one_game(&server, "Ann").await;
    let (guest, guest_token) = (client.player_id.clone().expect("an id"), client.token.clone());
    let guest_token = guest_token.expect("a guest token");

    // Refusals first: nothing changes.
    assert_eq!(claim(&server, &guest_token, "Ann", "short").await.error(400), "weak_password");
    assert_eq!(claim(&server, &guest_token, " ", PASSWORD).await.error(400), "bad_name");
    assert_eq!(claim(&server, "nonsense", "Ann", PASSWORD).await.error(401), "bad_token");
    let body = json!({ "name": "Ann", "password": PASSWORD }).to_string();
    let anonymous = http(&server, "POST", "/api/accounts", Some(body.as_bytes())).await;
    assert_eq!(anonymous.error(401), "no_token");
    let extra = json!({ "name": "Ann", "password": PASSWORD, "admin": true }).to_string();
    let answer =
        request(&server, "POST", "/api/accounts", Some(&guest_token), Some(extra.as_bytes()));
    assert_eq!(answer.await.error(400), "bad_body");

    // The claim keeps the player id and retires the guest's token.
    let first = session(&claim(&server, &guest_token, "Ann", PASSWORD).await, 201, &guest);
    assert_ne!(first, guest_token);
    assert_eq!(refused(&hello_with(&server, &guest_token).await), Some("bad_token"));
    assert_eq!(claim(&server, &first, "Ann2", PASSWORD).await.error(409), "already_claimed");

    // Another guest cannot take the name, whatever its case.
    let other = server.player("Bob").await;
    let other_token = other.token.clone().expect("a token");
    assert_eq!(claim(&server, &other_token, "aNN", PASSWORD).await.error(409), "name_taken");
    // Nor can a new guest play under it.
    let mut newcomer = Client::connect(&server.url()).await;
    assert_eq!(refused(&newcomer.try_hello(" ann ", None).await), Some("name_taken"));

    // Another device: a log-in by name, any case, then hello with the session.
    assert_eq!(log_in(&server, "Ann", "wrong horse").await.error(401), "bad_credentials");
    assert_eq!(log_in(&server, "Nobody", PASSWORD).await.error(401), "bad_credentials");
    let elsewhere = session(&log_in(&server, "  ANN ", PASSWORD).await, 201, &guest);
    let welcome = hello_with(&server, &elsewhere).await;
    assert_eq!(welcomed_as(&welcome), Some((guest.as_str(), "Ann")), "{welcome:?}");
    assert_eq!(welcomed_as(&hello_with(&server, &first).await).map(|w| w.0), Some(guest.as_str()));
    // The history is the account's.
    let matches = matches_of(&server, &guest, 1).await;
    assert_eq!(matches.len(), 1);
    assert_eq!(matches[0]["seats"][0]["player_id"], guest.as_str());
    server.stop().await;
}

#[tokio::test]
async fn sessions_end_on_log_out_and_on_a_password_change() {
    let server = TestServer::start().await;
    let guest = server.player("Cy").await;
    let id = guest.player_id.clone().expect("an id");
    let phone = session(
        &claim(&server, guest.token.as_deref().expect("a token"), "Cy", PASSWORD).await,
        201,
        &id,
    );
    let laptop = session(&log_in(&server, "cy", PASSWORD).await, 201, &id);
    let tablet = session(&log_in(&server, "cy", PASSWORD).await, 201, &id);

    // Logging out ends that session alone, and twice is no error.
    assert_eq!(log_out(&server, &tablet).await.status, 204);
    assert_eq!(log_out(&server, &tablet).await.status, 204);
    assert_eq!(refused(&hello_with(&server, &tablet).await), Some("bad_token"));
    assert!(welcomed_as(&hello_with(&server, &laptop).await).is_some());

    // A password change needs the current password and ends every session.
    assert_eq!(
        change_password(&server, &laptop, "wrong horse", "new horse!").await.error(401),
        "bad_credentials"
    );
    assert_eq!(
        change_password(&server, &laptop, PASSWORD, "short").await.error(400),
        "weak_password"
    );
    assert_eq!(
        change_password(&server, &tablet, PASSWORD, "new horse!").await.error(401),
        "bad_token"
    );
    let guest_token = server.player("Dee").await.token.expect("a token");
    assert_eq!(
        change_password(&server, &guest_token, PASSWORD, "new horse!").await.error(403),
        "not_an_account"
    );
    let renewed =
        session(&change_password(&server, &laptop, PASSWORD, "new horse!").await, 200, &id);
    for ended in [&phone, &laptop] {
        assert_eq!(refused(&hello_with(&server, ended).await), Some("bad_token"));
    }
    assert!(welcomed_as(&hello_with(&server, &renewed).await).is_some());
    assert_eq!(log_in(&server, "Cy", PASSWORD).await.error(401), "bad_credentials");
    session(&log_in(&server, "Cy", "new horse!").await, 201, &id);
    server.stop().await;
}

#[tokio::test]
async fn an_expired_session_is_refused_with_its_own_code() {
    let mut settings = Settings::default();
    settings.accounts.session_seconds = 1;
    let server = TestServer::with_settings(settings).await;
    let guest = server.player("Eve").await;
    let id = guest.player_id.clone().expect("an id");
    let token = session(
        &claim(&server, guest.token.as_deref().expect("a token"), "Eve", PASSWORD).await,
        201,
        &id,
    );
    // Known and cached now: the cache must honour the expiry too.
    assert!(welcomed_as(&hello_with(&server, &token).await).is_some());
    let later = session(&log_in(&server, "Eve", PASSWORD).await, 201, &id);
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(refused(&hello_with(&server, &token).await), Some("session_expired"));
    assert_eq!(
        change_password(&server, &later, PASSWORD, "new horse!").await.error(401),
        "session_expired"
    );
    // Logging in again is the way back.
    let again = session(&log_in(&server, "Eve", PASSWORD).await, 201, &id);
    assert!(welcomed_as(&hello_with(&server, &again).await).is_some());
    server.stop().await;
}

/// A trusted reverse proxy at 127.8.0.1: what it forwards for is the client.
/// It is written as the config's comment offers, a bare address, and read
/// the way the server reads its settings.
fn behind_a_proxy() -> Settings {
    let flags = Flags {
        config: None,
        bind: None,
        log_format: None,
        database_url: None,
        data_dir: None,
        command: None,
    };
    let env = [("EUCHRE_TRUSTED_PROXIES".to_owned(), "127.8.0.1".to_owned())];
    Settings::load_with_env(&flags, env.into_iter().collect()).expect("a bare address is a setting")
}

const PROXY: [u8; 4] = [127, 8, 0, 1];

/// A log-in from `address` directly, or through the proxy for `forwarded_for`.
async fn log_in_from(
    server: &TestServer,
    address: [u8; 4],
    forwarded_for: Option<&str>,
    name: &str,
    password: &str,
) -> Answer {
    let body = json!({ "name": name, "password": password }).to_string();
    let source = Source { address, forwarded_for };
    request_from(server, source, "POST", "/api/sessions", None, Some(body.as_bytes())).await
}

/// A claimed account: its player id.
async fn account(server: &TestServer, name: &str) -> String {
    let guest = server.player(name).await;
    let id = guest.player_id.clone().expect("an id");
    let token = guest.token.as_deref().expect("a token");
    session(&claim(server, token, name, PASSWORD).await, 201, &id);
    id
}

/// Twelve wrong passwords for a name, from other addresses (several IPv4
/// ones, many in one IPv6 /64 and others behind a trusted proxy), leave its
/// owner's right password and password change working: only the addresses
/// that failed wait.
#[tokio::test]
async fn wrong_passwords_from_others_never_lock_the_owner_out() {
    let server = TestServer::with_settings(behind_a_proxy()).await;
    let id = account(&server, "Fay").await;

    let mut wrong = 0;
    for n in 1..=4 {
        let answer = log_in_from(&server, [127, 7, 0, n], None, "Fay", "wrong horse").await;
        assert_eq!(answer.error(401), "bad_credentials");
        wrong += 1;
    }
    for client in ["203.0.113.7", "203.0.113.8", "198.51.100.9"] {
        let answer = log_in_from(&server, PROXY, Some(client), "FAY", "wrong horse").await;
        assert_eq!(answer.error(401), "bad_credentials", "from {client}");
        wrong += 1;
    }
    // The /64's five come last, so that its one-second wait below has not
    // run out on a busy machine while the others' passwords were hashed.
    for n in 1..=5 {
        let client = format!("2001:db8:7:7::{n}");
        let answer = log_in_from(&server, PROXY, Some(&client), "fay", "wrong horse").await;
        assert_eq!(answer.error(401), "bad_credentials", "from {client}");
        wrong += 1;
    }
    assert_eq!(wrong, 12);
    // The /64 that gave five has used its free failures and waits…
    let waiting = log_in_from(&server, PROXY, Some("2001:db8:7:7::99"), "Fay", PASSWORD).await;
    assert_eq!(waiting.error(429), "rate_limited");
    // …while the owner, directly or behind the proxy, is let in at once.
    let laptop = session(&log_in(&server, "Fay", PASSWORD).await, 201, &id);
    let phone = log_in_from(&server, PROXY, Some("192.0.2.44"), "Fay", PASSWORD).await;
    session(&phone, 201, &id);
    let renewed = change_password(&server, &laptop, PASSWORD, "new horse!").await;
    let renewed = session(&renewed, 200, &id);
    assert!(welcomed_as(&hello_with(&server, &renewed).await).is_some());
    session(&log_in(&server, "Fay", "new horse!").await, 201, &id);
    server.stop().await;
}

/// One address that keeps giving wrong passwords for a name waits longer
/// after the free five: 1 s, then 2 s after one more. Its right password
/// waits too (it is the address that failed); another address's does not.
#[tokio::test]
async fn failures_from_one_address_wait_longer_each_time() {
    let server = TestServer::start().await;
    let id = account(&server, "Gus").await;
    let guesser = [127, 7, 1, 1];
    // The five free failures: then it waits.
    for _ in 0..5 {
        let answer = log_in_from(&server, guesser, None, "Gus", "wrong horse").await;
        assert_eq!(answer.error(401), "bad_credentials");
    }
    let first = log_in_from(&server, guesser, None, "Gus", PASSWORD).await;
    assert_eq!(first.error(429), "rate_limited");
    assert_eq!(first.header("retry-after"), Some("1"));
    session(&log_in_from(&server, [127, 7, 1, 2], None, "Gus", PASSWORD).await, 201, &id);

    // Once the second is over, one more failure: now two.
    let again = eventually("the first wait to end", PATIENCE, async || {
        let answer = log_in_from(&server, guesser, None, "Gus", "wrong horse").await;
        (answer.status != 429).then_some(answer)
    })
    .await;
    assert_eq!(again.error(401), "bad_credentials");
    let second = log_in_from(&server, guesser, None, "Gus", "wrong horse").await;
    assert_eq!(second.error(429), "rate_limited");
    assert_eq!(second.header("retry-after"), Some("2"));
    server.stop().await;
}

/// Every address of an IPv6 /64 counts as one: its free failures at a name
/// are shared, so a new address in it waits too; another /64 does not.
#[tokio::test]
async fn an_ipv6_64_counts_as_one_address() {
    let server = TestServer::with_settings(behind_a_proxy()).await;
    let id = account(&server, "Hal").await;
    for n in 1..=5 {
        let client = format!("2001:db8:5:5:{n:x}::{n:x}");
        let answer = log_in_from(&server, PROXY, Some(&client), "Hal", "wrong horse").await;
        assert_eq!(answer.error(401), "bad_credentials", "from {client}");
    }
    let same_64 = log_in_from(&server, PROXY, Some("2001:db8:5:5:ffff::1"), "Hal", PASSWORD).await;
    assert_eq!(same_64.error(429), "rate_limited");
    let next_64 = log_in_from(&server, PROXY, Some("2001:db8:5:6::1"), "Hal", PASSWORD).await;
    session(&next_64, 201, &id);
    server.stop().await;
}

/// Guessing one name from many addresses, one failure each (each address
/// well inside its own free failures): past the name's budget a new
/// address waits, with a growing `retry-after`, even with the right
/// password; the owner's address, which claimed the name, is let in at once.
#[tokio::test]
async fn a_name_guessed_from_many_addresses_waits_except_for_its_owner() {
    let mut settings = behind_a_proxy();
    settings.accounts.login_failures_per_account = 3;
    let server = TestServer::with_settings(settings).await;
    let id = account(&server, "Ivy").await;

    let mut first_wait = None;
    for n in 1..=8u8 {
        let answer = log_in_from(&server, [127, 7, 4, n], None, "Ivy", "wrong horse").await;
        if answer.status == 429 {
            first_wait = Some(n);
            break;
        }
        assert_eq!(answer.error(401), "bad_credentials", "from 127.7.4.{n}");
    }
    // Three failures are free; each one after sets a wait of 1 s, 2 s, …,
    // and a password hash takes far less than the second of the first.
    let first_wait = first_wait.expect("a new address waits past the name's budget");
    assert!(first_wait <= 5, "the budget is 3, yet address {first_wait} was the first to wait");
    let right = log_in_from(&server, [127, 7, 5, 1], None, "Ivy", PASSWORD).await;
    assert_eq!(right.error(429), "rate_limited");
    assert!(right.header("retry-after").is_some());
    // The owner's own address is never slowed by the others' guesses.
    session(&log_in(&server, "Ivy", PASSWORD).await, 201, &id);
    server.stop().await;
}

/// The hashes the server has started, from its metrics.
async fn hashes_started(server: &TestServer) -> u64 {
    let metrics = http(server, "GET", "/metrics", None).await;
    let line = metrics.body.lines().find(|line| line.starts_with("euchre_password_hashes_total "));
    let count = line.and_then(|line| line.split_whitespace().nth(1));
    count.and_then(|count| count.parse().ok()).unwrap_or_else(|| panic!("{}", metrics.body))
}

/// A megabyte password (or name) is refused from its length alone, in a
/// log-in, a claim and a password change, before anything is hashed.
#[tokio::test]
async fn a_megabyte_password_is_refused_without_a_hash() {
    let server = TestServer::start().await;
    let megabyte = "x".repeat(1_000_000);
    let guest = server.player("Ida").await;
    let token = guest.token.clone().expect("a token");
    assert_eq!(log_in(&server, "Ida", &megabyte).await.error(400), "weak_password");
    assert_eq!(log_in(&server, &megabyte, PASSWORD).await.error(400), "bad_name");
    assert_eq!(claim(&server, &token, "Ida", &megabyte).await.error(400), "weak_password");
    assert_eq!(hashes_started(&server).await, 0);

    let id = guest.player_id.clone().expect("an id");
    let session = session(&claim(&server, &token, "Ida", PASSWORD).await, 201, &id);
    assert_eq!(hashes_started(&server).await, 1);
    let current = change_password(&server, &session, &megabyte, "new horse!").await;
    assert_eq!(current.error(400), "weak_password");
    let new = change_password(&server, &session, PASSWORD, &megabyte).await;
    assert_eq!(new.error(400), "weak_password");
    assert_eq!(hashes_started(&server).await, 1, "nothing more was hashed");
    server.stop().await;
}

#[tokio::test]
async fn a_log_out_closes_that_sessions_open_connections_within_a_second() {
    let server = TestServer::start().await;
    let guest = server.player("Gil").await;
    let id = guest.player_id.clone().expect("an id");
    let guest_token = guest.token.clone().expect("a token");
    let phone = session(&claim(&server, &guest_token, "Gil", PASSWORD).await, 201, &id);
    let laptop = session(&log_in(&server, "Gil", PASSWORD).await, 201, &id);
    let (mut on_phone, mut on_laptop) =
        (open_with(&server, &phone).await, open_with(&server, &laptop).await);
    assert!(still_open(&mut on_phone).await);

    assert_eq!(log_out(&server, &phone).await.status, 204);
    assert_eq!(closed_within_a_second(&mut on_phone).await, Some(close::SESSION_ENDED));
    // The account's other session goes on, and the ended one is refused.
    assert!(still_open(&mut on_laptop).await);
    assert_eq!(refused(&hello_with(&server, &phone).await), Some("bad_token"));
    server.stop().await;
}

#[tokio::test]
async fn a_password_change_closes_every_other_connection_of_the_account_within_a_second() {
    let server = TestServer::start().await;
    let mut guest = server.player("Hob").await;
    let id = guest.player_id.clone().expect("an id");
    let guest_token = guest.token.clone().expect("a token");
    let phone = session(&claim(&server, &guest_token, "Hob", PASSWORD).await, 201, &id);
    let laptop = session(&log_in(&server, "Hob", PASSWORD).await, 201, &id);
    let (mut on_phone, mut on_laptop) =
        (open_with(&server, &phone).await, open_with(&server, &laptop).await);

    // The laptop changes the password: its own old session ends as well.
    let renewed =
        session(&change_password(&server, &laptop, PASSWORD, "new horse!").await, 200, &id);
    assert_eq!(closed_within_a_second(&mut on_phone).await, Some(close::SESSION_ENDED));
    assert_eq!(closed_within_a_second(&mut on_laptop).await, Some(close::SESSION_ENDED));
    // Even the connection still open from before the claim, on the guest's token.
    assert_eq!(closed_within_a_second(&mut guest).await, Some(close::SESSION_ENDED));
    // The new session works on a new connection.
    let mut again = open_with(&server, &renewed).await;
    assert!(still_open(&mut again).await);
    server.stop().await;
}

#[tokio::test]
async fn an_expiring_session_closes_its_connections_within_a_second() {
    let mut settings = Settings::default();
    settings.accounts.session_seconds = 2;
    let server = TestServer::with_settings(settings).await;
    let guest = server.player("Ivy").await;
    let id = guest.player_id.clone().expect("an id");
    let answer = claim(&server, guest.token.as_deref().expect("a token"), "Ivy", PASSWORD).await;
    let token = session(&answer, 201, &id);
    let expires_at = answer.json()["expires_at"].as_i64().expect("an expiry");
    let mut client = open_with(&server, &token).await;
    assert!(still_open(&mut client).await);

    let code = tokio::time::timeout(Duration::from_secs(4), client.close_code()).await;
    let now = euchre_server::clock::now_ms();
    assert_eq!(code.expect("closed once expired"), Some(close::SESSION_ENDED));
    assert!(now >= expires_at, "closed {} ms before its expiry", expires_at - now);
    assert!(now - expires_at < 1_000, "closed {} ms after its expiry", now - expires_at);
    server.stop().await;
}

#[tokio::test]
async fn guests_nobody_needs_are_purged_on_schedule_and_connected_ones_kept() {
    let mut settings = Settings::default();
    settings.accounts.purge_every_seconds = 1;
    settings.accounts.purge_guests_after_seconds = 0;
    let server = TestServer::with_settings(settings).await;
    let gone = server.player("Jo").await;
    let gone_token = gone.token.clone().expect("a token");
    drop(gone);
    let mut here = server.player("Kit").await;
    let here_token = here.token.clone().expect("a token");

    // Jo left, never played and has no account: a purge forgets Jo, in
    // the database and in the server's memory alike.
    eventually("Jo to be purged", PATIENCE, async || {
        (refused(&hello_with(&server, &gone_token).await) == Some("bad_token")).then_some(())
    })
    .await;
    // Kit, connected all along, is kept through several purges.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(still_open(&mut here).await);
    assert!(welcomed_as(&hello_with(&server, &here_token).await).is_some());
    server.stop().await;
}

/// Past `max_sessions_per_account`, a new log-in ends the account's oldest
/// session as a log-out would: its connection is closed, its token refused;
/// the newer sessions go on.
#[tokio::test]
async fn past_the_cap_a_new_session_ends_the_oldest_and_closes_its_connections() {
    let server =
        TestServer::start_with(|settings| settings.accounts.max_sessions_per_account = 2).await;
    let guest = server.player("Kim").await;
    let id = guest.player_id.clone().expect("an id");
    let guest_token = guest.token.clone().expect("a token");
    let phone = session(&claim(&server, &guest_token, "Kim", PASSWORD).await, 201, &id);
    let laptop = session(&log_in(&server, "Kim", PASSWORD).await, 201, &id);
    let (mut on_phone, mut on_laptop) =
        (open_with(&server, &phone).await, open_with(&server, &laptop).await);
    assert!(still_open(&mut on_phone).await);

    let tablet = session(&log_in(&server, "Kim", PASSWORD).await, 201, &id);
    let code = tokio::time::timeout(PATIENCE, on_phone.close_code()).await;
    assert_eq!(code.expect("the oldest session's connection closed"), Some(close::SESSION_ENDED));
    assert_eq!(refused(&hello_with(&server, &phone).await), Some("bad_token"));
    assert!(still_open(&mut on_laptop).await, "the newer sessions go on");
    assert!(welcomed_as(&hello_with(&server, &tablet).await).is_some());
    server.stop().await;
}

/// Right-password log-ins are limited per account, from any address: the
/// burst (a third of `sessions_per_hour_per_account`) and then
/// `429 rate_limited`; another account is not slowed.
#[tokio::test]
async fn right_password_log_ins_are_limited_per_account() {
    let server =
        TestServer::start_with(|settings| settings.accounts.sessions_per_hour_per_account = 9)
            .await;
    let id = account(&server, "Lou").await;
    for n in 1..=3 {
        session(&log_in_from(&server, [127, 7, 3, n], None, "Lou", PASSWORD).await, 201, &id);
    }
    let refused = log_in_from(&server, [127, 7, 3, 9], None, "Lou", PASSWORD).await;
    assert_eq!(refused.error(429), "rate_limited");
    assert!(refused.header("retry-after").is_some());
    let other = account(&server, "Max").await;
    session(&log_in_from(&server, [127, 7, 3, 9], None, "Max", PASSWORD).await, 201, &other);
    server.stop().await;
}
