//! PostgreSQL databases for tests: each test makes its own and drops it.
//!
//! The server is the one `EUCHRE_TEST_POSTGRES_URL` names (a URL to its
//! administration database, as the store's tests read it), by default
//! `postgres://postgres@127.0.0.1:5432/postgres`. Where it cannot be
//! reached, a test that needs it is skipped, saying so, or fails where
//! services are required (`euchre_server::testing::skip`).

use euchre_server::testing::skip;
use sqlx::Connection;

const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// The administration database's URL.
fn admin_url() -> String {
    std::env::var("EUCHRE_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned())
}

/// The admin URL in three parts: up to the host (`postgres://user@`), the
/// host and port, and after the database's name (`?options`, or nothing).
fn parts() -> (String, String, String) {
    let admin = admin_url();
    let (scheme, rest) = admin.split_once("://").unwrap_or(("postgres", &admin));
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (user, host) = authority.rsplit_once('@').map_or(("", authority), |(u, h)| (u, h));
    let user = if user.is_empty() { String::new() } else { format!("{user}@") };
    let options = path.find('?').map_or(String::new(), |at| path[at..].to_owned());
    (format!("{scheme}://{user}"), host.to_owned(), options)
}

/// The server's `host:port`, for a test that reaches it another way.
pub fn address() -> String {
    parts().1
}

/// A new, empty database named after `purpose`: its name; or `None` where
/// PostgreSQL cannot be reached, and the test is skipped.
pub async fn fresh_database(purpose: &str) -> Option<String> {
    let name = format!("euchre_{purpose}_{}", uuid::Uuid::new_v4().simple());
    let mut admin = match sqlx::PgConnection::connect(&admin_url()).await {
        Ok(admin) => admin,
        Err(error) => {
            skip(format!("no PostgreSQL at {} ({error})", address()));
            return None;
        }
    };
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create the test database");
    Some(name)
}

/// The URL of database `name`.
pub fn url(name: &str) -> String {
    url_via(name, &address())
}

/// The URL of database `name` through `address` (a proxy's `host:port`).
pub fn url_via(name: &str, address: &str) -> String {
    let (head, _, options) = parts();
    format!("{head}{address}/{name}{options}")
}

pub async fn drop_database(name: &str) {
    if let Ok(mut admin) = sqlx::PgConnection::connect(&admin_url()).await {
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut admin)
        .await;
    }
}
