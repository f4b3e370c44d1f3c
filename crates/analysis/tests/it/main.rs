//! The analysis crate's integration tests, in one binary to keep link time down.

mod analysis;
