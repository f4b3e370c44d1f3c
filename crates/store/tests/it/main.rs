//! The store's integration tests, in one binary to keep link time down.

mod story;
