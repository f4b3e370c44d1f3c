//! The server's integration tests, in one binary to keep link time down:
//! one link of axum, sqlx and NATS instead of one per file.

mod accounts;
mod cluster;
mod crash;
mod door;
mod history;
mod moderation;
mod names;
mod outage;
mod pools;
mod private_files;
mod rating_integrity;
mod ratings;
mod restart;
mod server;
mod support;
mod watching;
