//! One way for a test to wait for what becomes true a moment later (a
//! writer's store, a lease running out, a screen redrawn): poll it until it
//! holds, and fail the test at a deadline. No test guesses a sleep, and no
//! wait gives up quietly.

use std::fmt::Display;
use std::time::Duration;

/// The pause after the first poll; it doubles up to [`LONGEST_PAUSE`], so a
/// short wait ends quickly and a long one polls lightly.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
const LONGEST_PAUSE: Duration = Duration::from_millis(50);

/// What a poll answers: the value once the wait is over, or not yet.
/// `Option`: `None` is not yet. `Result`: `Err` is not yet and says why;
/// the last one is in the panic at the deadline (the state last seen).
pub trait Polled {
    type Value;
    /// The value, or why not yet (`None`: nothing to say).
    fn ready(self) -> Result<Self::Value, Option<String>>;
}

impl<T> Polled for Option<T> {
    type Value = T;
    fn ready(self) -> Result<T, Option<String>> {
        self.ok_or(None)
    }
}

impl<T, E: Display> Polled for Result<T, E> {
    type Value = T;
    fn ready(self) -> Result<T, Option<String>> {
        self.map_err(|why| Some(why.to_string()))
    }
}

/// Polls `poll` until it answers a value, and returns the value: at once,
/// then after a short pause each time. Panics, naming `what` (and the last
/// `Err` a poll gave), once `within` has passed without one.
///
/// `poll` is an async closure, so it may borrow what it polls mutably
/// (`async || client.ask(…).await.ok()`).
pub async fn eventually<P: Polled>(
    what: &str,
    within: Duration,
    mut poll: impl AsyncFnMut() -> P,
) -> P::Value {
    let deadline = tokio::time::Instant::now() + within;
    let mut pause = FIRST_PAUSE;
    loop {
        let why = match poll().await.ready() {
            Ok(value) => return value,
            Err(why) => why,
        };
        if tokio::time::Instant::now() >= deadline {
            match why {
                Some(why) => panic!("waited {within:?} for {what}: {why}"),
                None => panic!("waited {within:?} for {what}"),
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}
