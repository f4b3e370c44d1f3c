//! What the tests of every crate in the workspace share, in the crate
//! below them all (it depends on nothing of ours):
//!
//! - [`eventually`]: the one way a test waits for something that becomes
//!   true a moment later, failing at a deadline.
//! - [`skip`]: the rule for a test whose service (PostgreSQL, nats-server,
//!   tmux) the machine lacks: skipped, saying so, on a newcomer's machine;
//!   failed where [`REQUIRE_SERVICES`] is set, as CI sets it.
//!
//! `euchre_server::testing` re-exports both, for the tests written against
//! the server.

mod eventually;
mod services;

pub use eventually::{Polled, eventually};
pub use services::{REQUIRE_SERVICES, services_required, skip};
