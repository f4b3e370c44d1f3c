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
    let data = server.data.path();
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
