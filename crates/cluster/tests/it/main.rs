//! The cluster crate's integration tests, in one binary to keep link time down.

mod durable;
mod failover;
mod lease;
mod log;
mod measure;
mod ownership;
