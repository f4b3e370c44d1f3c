//! The protocol's integration tests, in one binary to keep link time down.

mod messages;
