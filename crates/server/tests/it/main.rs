//! The server's integration tests, in one binary to keep link time down:
//! one link of axum, sqlx and NATS instead of one per file.

mod accounts;
mod cluster;
mod crash;
mod data_dir;
mod door;
mod hints;
mod history;
mod leaving;
mod moderation;
mod names;
mod outage;
mod pools;
mod private_files;
mod puzzles;
mod rating_integrity;
mod ratings;
mod restart;
mod server;
mod social;
mod support;
mod tournaments;
mod watching;
