//! Names that cannot pose as others, and inert chat, against a real server:
//! invisible, bidi and lookalike names refused for guests and claims, names
//! stored as NFKC, log-ins by any spelling of a name, an existing
//! database's accounts after their keys change (SQLite and PostgreSQL), and
//! chat lines cleaned of control and bidi characters.

use crate::support::http::{claim, log_in};
use crate::support::{Client, Players, TestServer};
use argon2::Argon2;
use argon2::password_hash::PasswordHasher;
use euchre_client::{Error, Identity};
use euchre_protocol::{ClientMessage, ServerMessage, TableEvent, TableNotice, TableSettings};
use euchre_server::Settings;
use euchre_server::config::DatabaseUrl;
use euchre_store::{AccountClaim, ClaimOutcome, NewSession, PlayerRow};

const PASSWORD: &str = "correct horse";

/// Names like "Alice" and what the server says to each once Alice is an
/// account: the four (a zero-width space inside, a right-to-left
/// override after, fullwidth letters, a Cyrillic А), then other cases, a
/// digit one for an l (as the confusables data has it), a Cyrillic е.
const LOOKALIKES: [(&str, &str); 7] = [
    ("Ali\u{200B}ce", "bad_name"),
    ("Alice\u{202E}", "bad_name"),
    ("Ａｌｉｃｅ", "name_taken"),
    ("\u{410}lice", "name_taken"),
    ("ALICE", "name_taken"),
    ("A1ice", "name_taken"),
    ("Alic\u{435}", "name_taken"),
];

/// The player a log-in found, or its error code.
async fn logged_in_as(server: &TestServer, name: &str, password: &str) -> Result<String, String> {
    let answer = log_in(server, name, password).await;
    match answer.status {
        201 => Ok(answer.json()["player"]["id"].as_str().expect("an id").to_owned()),
        _ => Err(answer.json()["code"].as_str().unwrap_or("no code").to_owned()),
    }
}

async fn hello_as(server: &TestServer, name: &str) -> Result<Identity, Error> {
    Client::connect(&server.url()).await.try_hello(name, None).await
}

fn refusal(welcome: &Result<Identity, Error>) -> Option<&str> {
    welcome.as_ref().err().and_then(Error::code)
}

/// Settings where the refused claims below do not add up to a wait.
fn settings() -> Settings {
    let mut settings = Settings::default();
    settings.timing.bot_delay_ms = 0;
    settings.accounts.login_failures_per_address = 0;
    settings
}

#[tokio::test]
async fn invisible_bidi_and_lookalike_names_cannot_pose_as_an_account() {
    let server = TestServer::with_settings(settings()).await;
    // With no account yet, invisible and bidi characters are refused all
    // the same; a fullwidth name is stored as plain letters (NFKC).
    for (name, _) in &LOOKALIKES[..2] {
        assert_eq!(refusal(&hello_as(&server, name).await), Some("bad_name"), "{name:?}");
    }
    let fullwidth = hello_as(&server, "Ａｌｉｃｅ").await.expect("a welcome");
    assert_eq!(fullwidth.player.name, "Alice");
    let spaced = hello_as(&server, " Ann \u{3000} Lee ").await.expect("a welcome");
    assert_eq!(spaced.player.name, "Ann Lee");

    let alice = server.player("Alice").await;
    let alice_token = alice.token.clone().expect("a token");
    let alice_id = alice.player_id.clone().expect("an id");
    assert_eq!(claim(&server, &alice_token, "Alice", PASSWORD).await.status, 201);

    // Now no lookalike passes, as a new guest's name or as a claim.
    let bob = server.player("Bob").await;
    let bob_token = bob.token.clone().expect("a token");
    for (lookalike, code) in LOOKALIKES {
        let guest = hello_as(&server, lookalike).await;
        assert_eq!(refusal(&guest), Some(code), "a guest named {lookalike:?}");
        let status = if code == "bad_name" { 400 } else { 409 };
        let claimed = claim(&server, &bob_token, lookalike, PASSWORD).await.error(status);
        assert_eq!(claimed, code, "a claim of {lookalike:?}");
    }

    // A log-in finds Alice by any case, or by a lookalike of her name.
    for typed in ["alice", "ALICE", " Alice ", "Ａｌｉｃｅ", "\u{410}lice"] {
        assert_eq!(logged_in_as(&server, typed, PASSWORD).await, Ok(alice_id.clone()), "{typed:?}");
    }
    server.stop().await;
}

/// The accounts an older server made: names as typed (no NFKC, invisible
/// characters let through), keys the names in lower case; oldest first.
const OLD_ACCOUNTS: [(&str, &str, &str); 4] = [
    ("p-alice", "Alice", "alice's password"),
    ("p-carol", "Ｃａｒｏｌ", "carol's password"),
    // A lookalike of Alice's name, claimed while it counted as another.
    ("p-other-alice", "\u{410}lice", "the other alice's password"),
    ("p-zed", "Ze\u{200B}d", "zed's password"),
];

/// A database as an older server left it, at `url`.
async fn an_old_database(url: &str) {
    let store = euchre_store::connect(url).await.expect("a store");
    store.migrate().await.expect("migrated");
    for (age, (id, name, password)) in (1_000..).zip(OLD_ACCOUNTS) {
        let password_hash =
            Argon2::default().hash_password(password.as_bytes()).expect("hashed").to_string();
        let claim = AccountClaim {
            player: PlayerRow { id: id.to_owned(), name: name.to_owned() },
            guest_token_hash: format!("guest-{id}"),
            name_key: name.trim().to_lowercase(),
            password_hash,
            session: NewSession {
                token_hash: format!("session-{id}"),
                player_id: id.to_owned(),
                created_at: age,
                expires_at: age + 1,
            },
        };
        assert_eq!(store.claim_account(&claim).await.expect("stored"), ClaimOutcome::Claimed);
    }
}

/// Servers started twice on an old database (the keys change at the
/// first start; the second finds them done): every account logs in as
/// before, by its name in any case, and no new guest takes its name.
async fn an_old_databases_accounts_keep_working(url: String) {
    an_old_database(&url).await;
    let mut settings = settings();
    settings.database_url = DatabaseUrl(url);
    for _start in 0..2 {
        let server = TestServer::with_settings(settings.clone()).await;
        for (typed, password, id) in [
            ("Alice", "alice's password", "p-alice"),
            ("ALICE", "alice's password", "p-alice"),
            ("carol", "carol's password", "p-carol"),
            ("Ｃａｒｏｌ", "carol's password", "p-carol"),
            // The younger of two lookalikes is set aside: its own spelling finds it.
            ("\u{410}lice", "the other alice's password", "p-other-alice"),
            ("Zed", "zed's password", "p-zed"),
        ] {
            let found = logged_in_as(&server, typed, password).await;
            assert_eq!(found.as_deref(), Ok(id), "{typed:?}");
        }
        for name in ["alice", "\u{410}LICE", "Carol", "ZED"] {
            assert_eq!(refusal(&hello_as(&server, name).await), Some("name_taken"), "{name:?}");
        }
        server.stop().await;
    }
}

#[tokio::test]
async fn an_old_sqlite_databases_accounts_keep_working() {
    let data = tempfile::tempdir().expect("a folder");
    an_old_databases_accounts_keep_working(format!("sqlite://{}/old.db", data.path().display()))
        .await;
}

#[tokio::test]
async fn an_old_postgres_databases_accounts_keep_working() {
    let Some(database) = euchre_testkit::postgres::fresh_database("names").await else { return };
    an_old_databases_accounts_keep_working(euchre_testkit::postgres::database_url(&database)).await;
    euchre_testkit::postgres::drop_database(&database).await;
}

/// The text of the next chat line `client` hears.
async fn next_chat(client: &mut Client) -> String {
    let heard = client
        .recv_until(|m| {
            matches!(
                m,
                ServerMessage::Event {
                    event: Some(TableEvent::Table(TableNotice::Chat { .. })),
                    ..
                }
            )
        })
        .await;
    match heard {
        ServerMessage::Event {
            event: Some(TableEvent::Table(TableNotice::Chat { text, .. })),
            ..
        } => text,
        other => panic!("not a chat line: {other:?}"),
    }
}

#[tokio::test]
async fn chat_reaches_the_table_without_control_or_bidi_characters() {
    let server = TestServer::with_settings(settings()).await;
    let mut ann = server.player("Ann").await;
    let table = ann.create_table(TableSettings::default()).await;
    ann.sit(&table, Some(0)).await;
    let mut bob = server.player("Bob").await;
    bob.sit(&table, Some(2)).await;

    // Escape sequences (clear the screen, set the title), a bell, a forged
    // second line, a right-to-left override and an isolate.
    let text = "\u{1B}[2J\u{1B}]0;title\u{7}gg\r\nBob: I fold\u{202E}olleh \u{2067}x\u{2069}";
    let id = ann.next_id();
    let chat = ClientMessage::Chat { id, table: table.clone(), text: text.into() };
    assert!(matches!(ann.command(chat).await, ServerMessage::Ack { .. }));
    assert_eq!(next_chat(&mut bob).await, "[2J]0;titlegg  Bob: I foldolleh x");

    // A line of nothing but invisible characters is no line.
    let id = ann.next_id();
    let chat = ClientMessage::Chat { id, table, text: "\u{202E}\u{200B}\n".into() };
    assert_eq!(crate::support::error_code(&ann.command(chat).await), Some("bad_chat"));
    server.stop().await;
}
