//! The client's integration tests, in one binary to keep link time down.

mod client;
mod http;
