//! The load generator's integration tests, in one binary to keep link time down.

mod abuse;
mod smoke;
mod tournament;
