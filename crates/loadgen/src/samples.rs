//! Latency samples gathered in batches before they reach a histogram.
//!
//! A histogram of microseconds up to ten minutes at three significant
//! figures is about 160 KiB of counts. With hundreds of clients each
//! recording into their own, the count a sample lands on has almost always
//! left the cache since that client's last sample: flat out, the single
//! load that fetches it was 5% of the load generator's CPU (`perf`). Held
//! back and recorded a batch at a time, a client's samples mostly land on
//! the same few counts, which then stay in the cache for the batch.

use anyhow::Context;
use hdrhistogram::Histogram;

/// Microseconds, 1 to 10 minutes, at three significant figures.
pub fn histogram() -> anyhow::Result<Histogram<u64>> {
    Histogram::new_with_bounds(1, 600_000_000, 3).context("creating a latency histogram")
}

/// Samples waiting to be recorded before this many are.
const BATCH: usize = 256;

/// One client's latencies: record them here, read them with
/// [`Samples::into_histogram`] or [`Samples::histogram`].
#[derive(Debug)]
pub struct Samples {
    histogram: Histogram<u64>,
    pending: Vec<u64>,
}

impl Samples {
    pub fn new() -> anyhow::Result<Samples> {
        Ok(Samples { histogram: histogram()?, pending: Vec::with_capacity(BATCH) })
    }

    /// Records `micros` (at least 1; anything past the top counts as the top).
    pub fn record(&mut self, micros: u64) {
        self.pending.push(micros.max(1));
        if self.pending.len() == BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for micros in self.pending.drain(..) {
            self.histogram.saturating_record(micros);
        }
    }

    /// Every sample recorded so far.
    pub fn histogram(&mut self) -> &Histogram<u64> {
        self.flush();
        &self.histogram
    }

    pub fn into_histogram(mut self) -> Histogram<u64> {
        self.flush();
        self.histogram
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_reaches_the_histogram_batched_or_not() -> anyhow::Result<()> {
        let mut samples = Samples::new()?;
        let mut direct = histogram()?;
        // More than a batch, and not a whole number of them.
        for micros in (0..1_000u64).map(|i| i * 37 % 5_000) {
            samples.record(micros);
            direct.saturating_record(micros.max(1));
        }
        samples.record(u64::MAX);
        direct.saturating_record(u64::MAX);
        let batched = samples.histogram();
        assert_eq!(batched.len(), 1_001);
        assert_eq!(batched.value_at_quantile(0.99), direct.value_at_quantile(0.99));
        assert_eq!(batched.max(), direct.max());
        assert_eq!(samples.into_histogram(), direct);
        Ok(())
    }
}
