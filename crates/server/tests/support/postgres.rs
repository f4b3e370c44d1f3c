//! PostgreSQL databases for tests: each test makes its own and drops it.

use sqlx::Connection;

const ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A new, empty database named after `purpose`; its name.
pub async fn fresh_database(purpose: &str) -> String {
    let name = format!("euchre_{purpose}_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(ADMIN_URL)
        .await
        .expect("PostgreSQL must be running on 127.0.0.1:5432 (CI starts it)");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create the test database");
    name
}

/// The URL of database `name`.
pub fn url(name: &str) -> String {
    format!("postgres://postgres@127.0.0.1:5432/{name}")
}

pub async fn drop_database(name: &str) {
    if let Ok(mut admin) = sqlx::PgConnection::connect(ADMIN_URL).await {
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut admin)
        .await;
    }
}
