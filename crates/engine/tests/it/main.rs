//! The engine's integration tests, in one binary to keep link time down.

#[cfg(feature = "egn")]
mod egn_findings;
#[cfg(feature = "egn")]
mod egn_fixtures;
mod perft;
mod properties;
mod rules;
