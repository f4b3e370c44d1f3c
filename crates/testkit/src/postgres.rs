//! The PostgreSQL server the tests make their databases on: the one
//! `EUCHRE_TEST_POSTGRES_URL` names (a URL of its administration database),
//! by default `postgres://postgres@127.0.0.1:5432/postgres`. Each test
//! makes a database of its own ([`fresh_database`]) and drops it; where the
//! server cannot be reached, the test is skipped, saying so, or fails where
//! services are required ([`crate::skip`]).

use std::sync::atomic::{AtomicU32, Ordering};

use sqlx::{AssertSqlSafe, Connection, PgConnection};
use url::Url;

use crate::skip;

const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// The administration database's URL, where tests create and drop theirs.
pub fn admin_url() -> String {
    std::env::var("EUCHRE_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned())
}

fn admin() -> Url {
    let admin = admin_url();
    Url::parse(&admin).unwrap_or_else(|error| panic!("{admin:?} is not a PostgreSQL URL: {error}"))
}

/// The server's `host:port`, for a message or a test that reaches it
/// another way (through a proxy).
pub fn address() -> String {
    address_of(&admin())
}

/// The URL of database `name` on the same server, with the same user and
/// options.
pub fn database_url(name: &str) -> String {
    database_url_of(admin(), name, None)
}

/// The URL of database `name` reached through `host:port` instead (a
/// proxy in front of the server).
pub fn database_url_via(name: &str, host: &str, port: u16) -> String {
    database_url_of(admin(), name, Some((host, port)))
}

/// A new, empty database named after `purpose`: its name; or `None` where
/// PostgreSQL cannot be reached, and the test is skipped ([`crate::skip`]).
pub async fn fresh_database(purpose: &str) -> Option<String> {
    static MADE: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or_default();
    let made = MADE.fetch_add(1, Ordering::Relaxed);
    let mut admin = match PgConnection::connect(&admin_url()).await {
        Ok(admin) => admin,
        Err(error) => {
            skip(format!("no PostgreSQL at {} ({error})", address()));
            return None;
        }
    };
    // Made of digits and the caller's fixed word only, so it is safe to splice into DDL.
    let name = format!("euchre_{purpose}_{}_{made}_{nanos}", std::process::id());
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create the test database");
    Some(name)
}

/// Drops database `name`, best effort: a leftover database is untidy, not a
/// failure of the test.
pub async fn drop_database(name: &str) {
    let dropped = match PgConnection::connect(&admin_url()).await {
        Ok(mut admin) => {
            sqlx::query(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
                .execute(&mut admin)
                .await
                .map(drop)
        }
        Err(error) => Err(error),
    };
    if let Err(error) = dropped {
        eprintln!("could not drop {name}: {error}");
    }
}

fn address_of(server: &Url) -> String {
    format!("{}:{}", server.host_str().unwrap_or("localhost"), server.port().unwrap_or(5432))
}

fn database_url_of(mut server: Url, name: &str, via: Option<(&str, u16)>) -> String {
    server.set_path(name);
    if let Some((host, port)) = via {
        // A postgres:// URL has a host, so it takes another host and port.
        let moved = server.set_host(Some(host)).is_ok() && server.set_port(Some(port)).is_ok();
        assert!(moved, "{server} cannot be reached through {host}:{port}");
    }
    server.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_keeps_the_servers_user_host_and_options() {
        let server = Url::parse("postgres://ann:pw@db.example:6432/postgres?sslmode=disable")
            .expect("a URL");
        assert_eq!(address_of(&server), "db.example:6432");
        assert_eq!(
            database_url_of(server.clone(), "t1", None),
            "postgres://ann:pw@db.example:6432/t1?sslmode=disable"
        );
        assert_eq!(
            database_url_of(server, "t1", Some(("127.0.0.1", 7000))),
            "postgres://ann:pw@127.0.0.1:7000/t1?sslmode=disable"
        );
        let default = Url::parse(DEFAULT_ADMIN_URL).expect("a URL");
        assert_eq!(address_of(&default), "127.0.0.1:5432");
        assert_eq!(database_url_of(default, "t1", None), "postgres://postgres@127.0.0.1:5432/t1");
    }
}
