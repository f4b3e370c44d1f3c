//! The terminal client's integration tests, in one binary to keep link time down.

mod api;
mod screens;
mod terminal;
mod tournaments;
mod trainer;
