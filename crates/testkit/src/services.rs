//! A test that needs a service the machine lacks: skipped on a newcomer's
//! machine, so `cargo test` passes with only Rust installed; failed in CI,
//! so nothing is skipped there unnoticed. The decision is made here only.

use std::fmt::Display;
use std::io::Write;

/// The environment variable that, set to `1` (as `.ci/run` sets it), makes
/// a missing service fail the test that needs it instead of skipping it.
const REQUIRE_SERVICES: &str = "EUCHRE_REQUIRE_SERVICES";

/// Whether a missing service fails tests: [`REQUIRE_SERVICES`] is `1`.
fn services_required() -> bool {
    std::env::var(REQUIRE_SERVICES).is_ok_and(|value| value == "1")
}

/// Called by a test that cannot run because of `missing` (say "no
/// nats-server installed (apt-get install nats-server)"), which then
/// returns: prints one line, `skipped <test>: <missing>`. Where services
/// are required it panics instead, failing the test.
///
/// The line goes to stderr directly, not through `eprintln!`, which the
/// test harness captures and shows only for a failed test: a plain
/// `cargo test` names every test it skipped.
#[track_caller]
pub fn skip(missing: impl Display) {
    if services_required() {
        panic!("{missing} ({REQUIRE_SERVICES}=1: a missing service fails the test)");
    }
    let current = std::thread::current();
    // The harness runs each test on a thread named after it.
    let test = current.name().unwrap_or("a test");
    // One write, so the line is not cut by the harness's own lines.
    let _ = std::io::stderr().write_all(format!("skipped {test}: {missing}\n").as_bytes());
}
