//! What players do about one another: a mute hides a player's chat from
//! the one who muted them (and only them), at every table and across
//! reconnections; a block keeps two players from one table, refused alike
//! whoever made it, and apart in quick play over many waves; reports are
//! filed with the server's own evidence, within their limits, survive a
//! crash, and are read and closed by moderators.

use std::process::Command;
use std::time::Duration;

use euchre_engine::Preset;
use euchre_protocol::{
    ClientMessage, QuickPlayRequest, Reply, ReportReason, ServerMessage, TableEvent, TableNotice,
    TableSettings,
};

use crate::support::binary::{Server, Stop};
use crate::support::http::{Source, request, request_to};
use crate::support::{Client, PATIENCE, Players, TestServer, error_code};
use euchre_server::testing::eventually;

fn id(client: &Client) -> String {
    client.player_id.clone().expect("welcomed")
}

/// Sends `message` (made with the client's next id) and returns its answer.
async fn ask(client: &mut Client, message: impl FnOnce(u64) -> ClientMessage) -> ServerMessage {
    let id = client.next_id();
    client.command(message(id)).await
}

async fn done(client: &mut Client, message: impl FnOnce(u64) -> ClientMessage) {
    let answer = ask(client, message).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Done, .. }), "{answer:?}");
}

/// `client`'s refusal of a sit at `table`: its code and message.
async fn refused_sit(client: &mut Client, table: &str) -> (String, String) {
    let table = table.to_owned();
    match ask(client, |id| ClientMessage::Sit { id, table, seat: None, invite: None }).await {
        ServerMessage::Error { code, message, .. } => (code, message),
        other => panic!("sat: {other:?}"),
    }
}

/// Says `text` at `table`: the seq its line took (the writer hears its own).
async fn say(writer: &mut Client, table: &str, text: &str) -> u64 {
    let (table, line) = (table.to_owned(), text.to_owned());
    done(writer, |id| ClientMessage::Chat { id, table, text: line }).await;
    let said = |m: &ServerMessage| {
        matches!(m, ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Chat { text: said, .. })), ..
        } if said == text)
    };
    let heard = match writer.log.iter().rev().find(|m| said(m)) {
        Some(heard) => heard.clone(),
        None => writer.recv_until(said).await,
    };
    match heard {
        ServerMessage::Event { seq, .. } => seq,
        _ => unreachable!(),
    }
}

/// What `reader` was sent at `seq`: the chat line's text, or `None` for an
/// event with nothing in it.
async fn heard_at(reader: &mut Client, seq: u64) -> Option<String> {
    let at = |m: &ServerMessage| matches!(m, ServerMessage::Event { seq: s, .. } if *s == seq);
    let message = match reader.log.iter().find(|m| at(m)) {
        Some(message) => message.clone(),
        None => reader.recv_until(at).await,
    };
    match message {
        ServerMessage::Event { event: None, .. } => None,
        ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Chat { text, .. })),
            ..
        } => Some(text),
        other => panic!("not a chat line: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mute_hides_a_players_chat_from_the_one_who_muted_alone_and_an_accounts_lasts() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let mut bob = server.player("Bob").await;
    let mut dee = server.account("Dee").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    bob.sit(&table, Some(1)).await;
    dee.sit(&table, Some(2)).await;

    let bob_id = id(&bob);
    done(&mut ann, |id| ClientMessage::Mute { id, player: bob_id.clone() }).await;
    done(&mut dee, |id| ClientMessage::Block { id, player: bob_id.clone() }).await;
    // Blocking someone already at the table keeps nobody from it, and
    // hides their chat as a mute does.
    let seq = say(&mut bob, &table, "hello all").await;
    assert_eq!(heard_at(&mut ann, seq).await, None, "muted");
    assert_eq!(heard_at(&mut dee, seq).await, None, "blocked");
    // Bob's own lines to others, and others' lines to Ann, are untouched.
    let seq = say(&mut dee, &table, "hi Ann").await;
    assert_eq!(heard_at(&mut bob, seq).await.as_deref(), Some("hi Ann"));

    // The lists, as the account page shows them: with the names players go
    // by, once the journal has brought Bob's to the database.
    let blocked = eventually("Bob's name on Dee's list", PATIENCE, async || {
        let lists = ask(&mut dee, |id| ClientMessage::Social { id }).await;
        let ServerMessage::Ack { reply: Reply::Social { muted, blocked }, .. } = lists else {
            panic!("{lists:?}")
        };
        assert!(muted.is_empty());
        blocked.first().is_some_and(|p| p.name.is_some()).then_some(blocked)
    })
    .await;
    let listed: Vec<_> = blocked.iter().map(|p| (&p.id[..], p.name.as_deref())).collect();
    assert_eq!(listed, [(&bob_id[..], Some("Bob"))]);

    // An account's block outlives its connection: Dee comes back with her
    // session, and Bob's lines are still kept from her.
    let token = dee.token.clone().expect("a session");
    drop(dee);
    let mut dee = Client::connect(&server.url()).await;
    dee.try_hello("Dee", Some(&token)).await.expect("welcome back");
    let (table_id, last_seq) = (table.clone(), 0);
    let resumed = ask(&mut dee, |id| ClientMessage::Resume { id, table: table_id, last_seq });
    assert!(matches!(resumed.await, ServerMessage::Ack { .. }));
    let seq = say(&mut bob, &table, "back again").await;
    assert_eq!(heard_at(&mut dee, seq).await, None, "still blocked after a reconnection");

    // Undone, the lines come through again.
    done(&mut ann, |id| ClientMessage::Unmute { id, player: bob_id.clone() }).await;
    done(&mut dee, |id| ClientMessage::Unblock { id, player: bob_id.clone() }).await;
    let seq = say(&mut bob, &table, "thanks").await;
    assert_eq!(heard_at(&mut ann, seq).await.as_deref(), Some("thanks"));
    assert_eq!(heard_at(&mut dee, seq).await.as_deref(), Some("thanks"));

    // Nobody mutes themselves, or a player id that is no id.
    let me = id(&ann);
    let answer = ask(&mut ann, |id| ClientMessage::Mute { id, player: me }).await;
    assert_eq!(error_code(&answer), Some("bad_request"));
    let answer = ask(&mut ann, |id| ClientMessage::Block { id, player: "x".into() }).await;
    assert_eq!(error_code(&answer), Some("no_such_player"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_keeps_two_players_from_one_table_refused_alike_whoever_made_it() {
    let server = TestServer::start().await;
    let mut ann = server.account("Ann").await;
    let mut bob = server.player("Bob").await;
    let mut cat = server.player("Cat").await;
    let (ann_id, bob_id) = (id(&ann), id(&bob));
    done(&mut ann, |id| ClientMessage::Block { id, player: bob_id.clone() }).await;

    // Ann hosts and sits; Bob, whom she blocked, may not sit there.
    let hers = ann.create_table(TableSettings::default()).await;
    ann.sit(&hers, Some(0)).await;
    let bob_refused = refused_sit(&mut bob, &hers).await;
    // Bob hosts; Ann, who blocked him, may not sit there either.
    let his = bob.create_table(TableSettings::default()).await;
    let ann_refused = refused_sit(&mut ann, &his).await;
    // Cat's table, Bob seated: Ann may not join him there.
    let cats = cat.create_table(TableSettings::default()).await;
    bob.sit(&cats, Some(1)).await;
    let ann_at_cats = refused_sit(&mut ann, &cats).await;
    // One code and one message, whichever way the block goes.
    assert_eq!(bob_refused.0, "blocked");
    assert_eq!(bob_refused, ann_refused);
    assert_eq!(bob_refused, ann_at_cats);
    assert!(!bob_refused.1.contains("Ann") && !bob_refused.1.contains("Bob"), "{bob_refused:?}");
    // Anyone else sits as before.
    cat.sit(&hers, Some(2)).await;

    // A guest's block holds as an account's, both ways.
    done(&mut cat, |id| ClientMessage::Block { id, player: ann_id.clone() }).await;
    let theirs = cat.create_table(TableSettings::default()).await;
    assert_eq!(refused_sit(&mut ann, &theirs).await, bob_refused);
    // Unblocked, Bob sits at Ann's table.
    done(&mut ann, |id| ClientMessage::Unblock { id, player: bob_id.clone() }).await;
    bob.sit(&hers, Some(1)).await;
    server.stop().await;
}

/// Asks quick play (standard, casual, no bots) for `client`.
async fn queue(client: &mut Client) {
    let request = QuickPlayRequest::new(Preset::Standard, false);
    let answer = ask(client, |id| ClientMessage::QuickPlay { id, request }).await;
    assert!(matches!(answer, ServerMessage::Ack { reply: Reply::Queued { .. }, .. }), "{answer:?}");
}

/// The table `client` was matched to, once it is.
async fn matched(client: &mut Client) -> String {
    match client.recv_until(|m| matches!(m, ServerMessage::QuickPlayMatched { .. })).await {
        ServerMessage::QuickPlayMatched { table, .. } => table,
        _ => unreachable!(),
    }
}

fn was_matched(client: &Client) -> bool {
    client.log.iter().any(|m| matches!(m, ServerMessage::QuickPlayMatched { .. }))
}

/// A blocked pair waiting in one pool is never seated together, however
/// many waves pass with others waiting beside them; each of them is
/// seated with others as soon as there are enough.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_pair_in_one_pool_is_never_matched_over_many_waves() {
    let server = TestServer::start_with(|settings| {
        settings.quick_play.wave_ms = 50;
        settings.quick_play.requests_per_address = 0;
    })
    .await;
    // Round one: a guest's block (in memory); round two: an account's (stored).
    for round in 0..2 {
        let (mut ann, mut bob) = if round == 0 {
            (server.player("Ann").await, server.player("Bob").await)
        } else {
            (server.account("Ada").await, server.account("Ben").await)
        };
        let ann_id = id(&ann);
        // The block made by the second of them this time.
        done(&mut bob, |id| ClientMessage::Block { id, player: ann_id.clone() }).await;
        queue(&mut ann).await;
        queue(&mut bob).await;
        let mut others = Vec::new();
        for n in 0..2 {
            let mut other = server.player(&format!("Other {round}{n}")).await;
            queue(&mut other).await;
            others.push(other);
        }
        // Four wait, a table's worth, but two of them are blocked: over
        // a second (some twenty waves) nobody is seated.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
        while tokio::time::Instant::now() < deadline {
            let id = ann.next_id();
            ann.command(ClientMessage::Ping { id }).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(!was_matched(&ann) && !was_matched(&bob), "matched across the block");
        // One more: one of the pair (they waited about as long) and the
        // three others sit down; the other of the pair waits on, and three
        // more make their table.
        let mut fifth = server.player(&format!("Fifth {round}")).await;
        queue(&mut fifth).await;
        let first = matched(&mut fifth).await;
        for other in &mut others {
            assert_eq!(matched(other).await, first);
        }
        let deadline = tokio::time::Instant::now() + crate::support::PATIENCE;
        while !was_matched(&ann) && !was_matched(&bob) && tokio::time::Instant::now() < deadline {
            for client in [&mut ann, &mut bob] {
                let id = client.next_id();
                client.command(ClientMessage::Ping { id }).await;
            }
        }
        let (seated, waiting) = match (was_matched(&ann), was_matched(&bob)) {
            (true, false) => (&mut ann, &mut bob),
            (false, true) => (&mut bob, &mut ann),
            both => panic!("one of the pair seated with the others, not {both:?}"),
        };
        let table = seated.log.iter().find_map(|m| match m {
            ServerMessage::QuickPlayMatched { table, .. } => Some(table.clone()),
            _ => None,
        });
        assert_eq!(table, Some(first.clone()));
        let mut more = Vec::new();
        for n in 0..3 {
            let mut other = server.player(&format!("More {round}{n}")).await;
            queue(&mut other).await;
            more.push(other);
        }
        let second = matched(waiting).await;
        assert_ne!(second, first);
        for other in &mut more {
            assert_eq!(matched(other).await, second);
        }
    }
    server.stop().await;
}

/// `euchre-server admin ARGS` on the SQLite database in `data`.
fn admin(data: &std::path::Path, args: &[&str]) {
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
    assert!(output.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn report(player: &str, table: Option<&str>) -> impl FnOnce(u64) -> ClientMessage {
    let (player, table) = (player.to_owned(), table.map(str::to_owned));
    move |id| ClientMessage::Report {
        id,
        player,
        reason: ReportReason::AbusiveChat,
        details: "rude all game".into(),
        table,
        match_id: None,
    }
}

/// Reports from a table carry what the server saw (the match, the
/// reported player's lines), are limited per reporter and once per player
/// and match, are kept through a kill -9, and are the moderators' to read
/// and close, each close logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_carry_the_servers_evidence_within_limits_and_survive_a_crash() {
    let data = tempfile::tempdir().expect("a folder");
    let database = format!("sqlite://{}/euchre.db", data.path().display());
    let server = Server::start(data.path(), &database, &[]);
    let url = server.url();
    let connect = async |name: &str| {
        let mut client = Client::connect(&url).await;
        client.hello(name).await;
        client
    };
    let mut ann = connect("Ann").await;
    let mut bob = connect("Bob").await;
    let mut cal = connect("Cal").await;
    let mut dot = connect("Dot").await;
    let table = ann.create_table(TableSettings::default()).await;
    for (client, seat) in [(&mut ann, 0), (&mut bob, 1), (&mut cal, 2), (&mut dot, 3)] {
        client.sit(&table, Some(seat)).await;
    }
    say(&mut bob, &table, "you all play like bots").await;
    say(&mut cal, &table, "nice one").await;
    let (bob_id, cal_id, dot_id) = (id(&bob), id(&cal), id(&dot));

    done(&mut ann, report(&bob_id, Some(&table))).await;
    // Once per reporter, player and match.
    let again = ask(&mut ann, report(&bob_id, Some(&table))).await;
    assert_eq!(error_code(&again), Some("already_reported"));
    // Only a player seen at the table, and never oneself.
    let stranger = uuid::Uuid::new_v4().to_string();
    let answer = ask(&mut ann, report(&stranger, Some(&table))).await;
    assert_eq!(error_code(&answer), Some("no_such_player"));
    let long = ClientMessage::Report {
        id: ann.next_id(),
        player: cal_id.clone(),
        reason: ReportReason::Other,
        details: "x".repeat(501),
        table: Some(table.clone()),
        match_id: None,
    };
    assert_eq!(error_code(&ann.command(long).await), Some("bad_report"));
    // A few a minute: the third is filed, the fourth refused.
    done(&mut ann, report(&cal_id, Some(&table))).await;
    done(&mut ann, report(&dot_id, None)).await;
    let flood = ask(&mut ann, report(&uuid::Uuid::new_v4().to_string(), None)).await;
    assert_eq!(error_code(&flood), Some("report_limit"));
    // Another reporter has limits of their own.
    done(&mut dot, report(&bob_id, Some(&table))).await;

    // A crash: what was answered is kept.
    server.stop(Stop::Kill);
    let server = Server::start(data.path(), &database, &[]);
    let address = server.address;
    let mut mo = Client::connect(&server.url()).await;
    mo.hello("Mo").await;
    let body = serde_json::json!({ "name": "Mo", "password": "correct horse" }).to_string();
    let token = mo.token.clone().expect("a token");
    let http = async |method: &str, path: &str, token: &str, body: Option<&[u8]>| {
        request_to(address, Source::LOCAL, method, path, Some(token), body).await
    };
    let claimed = http("POST", "/api/accounts", &token, Some(body.as_bytes())).await;
    assert_eq!(claimed.status, 201, "{}", claimed.body);
    let session = claimed.json()["token"].as_str().expect("a session").to_owned();
    // A player is no moderator.
    let refused = http("GET", "/api/admin/reports", &session, None).await;
    assert_eq!(refused.error(403), "forbidden");
    admin(data.path(), &["grant", "Mo", "moderator"]);

    let open = http("GET", "/api/admin/reports", &session, None).await;
    assert_eq!(open.status, 200, "{}", open.body);
    let reports = open.json()["reports"].as_array().expect("reports").clone();
    let summary: Vec<(&str, &str)> = reports
        .iter()
        .map(|r| {
            let (by, of) = (&r["reporter"]["name"], &r["reported"]["id"]);
            (by.as_str().unwrap_or_default(), of.as_str().unwrap_or_default())
        })
        .collect();
    assert_eq!(
        summary,
        [("Ann", &bob_id[..]), ("Ann", &cal_id[..]), ("Ann", &dot_id[..]), ("Dot", &bob_id[..])]
    );
    let first = &reports[0];
    assert_eq!(first["reported"]["name"], "Bob");
    assert_eq!(first["reason"], "abusive_chat");
    assert_eq!(first["details"], "rude all game");
    assert_eq!(first["table"], table.as_str());
    // Four at the table: the game began, and its match is the evidence.
    assert!(first["match_id"].as_str().is_some_and(|m| !m.is_empty()), "{first}");
    let lines: Vec<&str> =
        first["chat"].as_array().expect("chat").iter().filter_map(|l| l["text"].as_str()).collect();
    assert_eq!(lines, ["you all play like bots"], "Bob's lines, and only his");
    assert!(reports[2]["chat"].as_array().expect("chat").is_empty(), "from a profile: none");

    let path = format!("/api/admin/reports/{}/close", first["id"]);
    let note = serde_json::json!({ "note": "warned them" }).to_string();
    let closed = http("POST", &path, &session, Some(note.as_bytes())).await;
    assert_eq!(closed.status, 204, "{}", closed.body);
    let again = http("POST", &path, &session, Some(note.as_bytes())).await;
    assert_eq!(again.error(404), "no_such_report");
    let empty = serde_json::json!({ "note": " " }).to_string();
    let path = format!("/api/admin/reports/{}/close", reports[1]["id"]);
    assert_eq!(http("POST", &path, &session, Some(empty.as_bytes())).await.error(400), "bad_body");
    let open = http("GET", "/api/admin/reports", &session, None).await;
    assert_eq!(open.json()["reports"].as_array().map(Vec::len), Some(3));
    // The close is in the log, against the reported player.
    admin(data.path(), &["grant", "Mo", "admin"]);
    let log = http("GET", "/api/admin/log", &session, None).await;
    let newest = &log.json()["entries"][1];
    assert_eq!(newest["action"], "close_report", "{}", log.body);
    assert_eq!(newest["target"]["name"], "Bob");
    assert_eq!(newest["reason"], "warned them");
    server.stop(Stop::Term);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_from_a_replay_names_a_match_the_player_sat_in() {
    let server = TestServer::start().await;
    let mut ann = server.player("Ann").await;
    let bob = server.player("Bob").await;
    let answer = ask(&mut ann, |id| ClientMessage::Report {
        id,
        player: id_of(&bob),
        reason: ReportReason::ThrowingGames,
        details: String::new(),
        table: None,
        match_id: Some("no-such-match".into()),
    })
    .await;
    assert_eq!(error_code(&answer), Some("no_such_player"));
    let guest = request(&server, "GET", "/api/admin/reports", ann.token.as_deref(), None).await;
    assert_eq!(guest.error(403), "forbidden");
    server.stop().await;
}

fn id_of(client: &Client) -> String {
    id(client)
}
