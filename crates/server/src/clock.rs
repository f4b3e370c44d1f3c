//! The wall clock, for timestamps that are stored (the table's timers run
//! on tokio's clock instead, which tests can pause).

/// Milliseconds since the Unix epoch, for stored timestamps.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}
