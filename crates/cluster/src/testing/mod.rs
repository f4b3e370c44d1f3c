//! For tests (the `testing` feature): what the cluster's tests share with
//! the server's, the client's and the terminal client's (through
//! `euchre_server::testing`, which re-exports it):
//!
//! - [`Nats`]: a nats-server of the test's own.
//! - [`skip`]: the rule for a test whose service (PostgreSQL, nats-server,
//!   tmux) the machine lacks: skipped, saying so, on a newcomer's machine;
//!   failed where [`REQUIRE_SERVICES`] is set, as CI sets it.
//! - [`eventually`]: the one way a test waits for something that becomes
//!   true a moment later.
//!
//! They live in this crate, the lowest with test support, so that the
//! cluster's own tests and every crate above it use the same ones.

mod eventually;
mod nats;
mod services;

pub use eventually::{Polled, eventually};
pub use nats::Nats;
pub use services::{REQUIRE_SERVICES, services_required, skip};
