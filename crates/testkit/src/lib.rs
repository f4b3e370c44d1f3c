//! What the tests of every crate in the workspace share, in the crate
//! below them all (it depends on nothing of ours):
//!
//! - [`eventually`]: the one way a test waits for something that becomes
//!   true a moment later, failing at a deadline.
//! - [`skip`]: the rule for a test whose service (PostgreSQL, nats-server,
//!   tmux) the machine lacks: skipped, saying so, on a newcomer's machine;
//!   failed where `EUCHRE_REQUIRE_SERVICES=1`, as CI sets it.
//! - [`postgres`]: the PostgreSQL server tests make their databases on
//!   (`EUCHRE_TEST_POSTGRES_URL`).
//!
//! `euchre_server::testing` re-exports both, for the tests written against
//! the server.

mod eventually;
pub mod postgres;
mod services;

pub use eventually::{Polled, eventually};
pub use services::skip;
