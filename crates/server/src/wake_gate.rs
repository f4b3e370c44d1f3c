//! A stream or future that is polled only when it may have something.
//!
//! A connection's task sleeps in one `select!` over its socket, its outbox,
//! the lobby, its timers and what may end it, and every wake-up polls all
//! of them. Most wake-ups are the outbox (a table's events go to every
//! seat), and polling the socket then is a whole WebSocket read that finds
//! nothing: about ten such reads per frame a client sends (callgrind);
//! polling the ending, a `select!` of six tokens and timers, was 4% of
//! the instructions. This gate remembers whether the inner stream's or
//! future's own waker fired since it last said `Pending`, and answers
//! `Pending` at once when it has not.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::Stream;
use futures_util::task::AtomicWaker;
use std::future::Future;

/// Wraps a stream (or future) so that it is polled only after its waker
/// fired, or straight after it yielded an item (it may hold more already read).
#[derive(Debug)]
pub struct WakeGate<S> {
    inner: S,
    signal: Arc<Signal>,
    /// The waker handed to `inner`: it notes the wake, then wakes the task.
    waker: Waker,
    /// `inner` said `Pending` last time and has not been woken since.
    waiting: bool,
}

/// What the inner stream's waker reaches.
#[derive(Debug, Default)]
struct Signal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<S> WakeGate<S> {
    pub fn new(inner: S) -> WakeGate<S> {
        let signal = Arc::new(Signal::default());
        let waker = Waker::from(signal.clone());
        WakeGate { inner, signal, waker, waiting: false }
    }
}

impl<T> WakeGate<T> {
    /// Polls `inner` with `poll` if its waker fired since it was last
    /// pending (or it was not pending); else `Pending` at once.
    fn poll_gated<R>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(&mut T, &mut Context<'_>) -> Poll<R>,
    ) -> Poll<R> {
        // Registered before the flag is read: a wake between the two still
        // reaches this task.
        self.signal.task.register(cx.waker());
        if self.waiting && !self.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        self.signal.woken.store(false, Ordering::Release);
        let polled = poll(&mut self.inner, &mut Context::from_waker(&self.waker));
        self.waiting = polled.is_pending();
        polled
    }
}

impl<S: Stream + Unpin> Stream for WakeGate<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.get_mut().poll_gated(cx, |inner, cx| Pin::new(inner).poll_next(cx))
    }
}

impl<F: Future + Unpin> Future for WakeGate<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.get_mut().poll_gated(cx, |inner, cx| Pin::new(inner).poll(cx))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use futures_util::{StreamExt, stream};
    use tokio::sync::mpsc;

    use super::*;

    /// Counts how often the inner stream is polled.
    struct Counted<S> {
        inner: S,
        polls: Arc<AtomicUsize>,
    }

    impl<S: Stream + Unpin> Stream for Counted<S> {
        type Item = S::Item;
        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
            self.polls.fetch_add(1, Ordering::Relaxed);
            Pin::new(&mut self.inner).poll_next(cx)
        }
    }

    #[tokio::test]
    async fn a_gated_stream_is_polled_again_only_when_woken_and_misses_nothing() {
        let (tx, mut rx) = mpsc::channel(8);
        let received = stream::poll_fn(move |cx| rx.poll_recv(cx));
        let polls = Arc::new(AtomicUsize::new(0));
        let mut gated = WakeGate::new(Counted { inner: received, polls: polls.clone() });
        let noop = Waker::noop();
        let mut cx = Context::from_waker(noop);

        // Nothing there: one real poll, then none however often it is asked.
        assert!(Pin::new(&mut gated).poll_next(&mut cx).is_pending());
        for _ in 0..5 {
            assert!(Pin::new(&mut gated).poll_next(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::Relaxed), 1);

        // Two items sent while it waits: the wake lets the next poll through,
        // and after an item it is polled again at once for the second.
        tx.send(1).await.expect("the receiver is open");
        tx.send(2).await.expect("the receiver is open");
        assert_eq!(Pin::new(&mut gated).poll_next(&mut cx), Poll::Ready(Some(1)));
        assert_eq!(Pin::new(&mut gated).poll_next(&mut cx), Poll::Ready(Some(2)));
        assert!(Pin::new(&mut gated).poll_next(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll_next(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::Relaxed), 4);

        // In a task: a sender elsewhere wakes it, and the end comes through.
        let reader = tokio::spawn(async move { gated.collect::<Vec<_>>().await });
        for n in 3..6 {
            tokio::task::yield_now().await;
            tx.send(n).await.expect("the receiver is open");
        }
        drop(tx);
        assert_eq!(reader.await.expect("the reader finishes"), vec![3, 4, 5]);
    }

    /// Counts how often the inner future is polled.
    struct CountedFuture<F> {
        inner: F,
        polls: Arc<AtomicUsize>,
    }

    impl<F: Future + Unpin> Future for CountedFuture<F> {
        type Output = F::Output;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
            self.polls.fetch_add(1, Ordering::Relaxed);
            Pin::new(&mut self.inner).poll(cx)
        }
    }

    #[tokio::test]
    async fn a_gated_future_is_polled_again_only_when_woken() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let polls = Arc::new(AtomicUsize::new(0));
        let mut gated = WakeGate::new(CountedFuture { inner: rx, polls: polls.clone() });
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..5 {
            assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::Relaxed), 1);
        tx.send(7).expect("the receiver is open");
        assert_eq!(Pin::new(&mut gated).poll(&mut cx), Poll::Ready(Ok(7)));
        assert_eq!(polls.load(Ordering::Relaxed), 2);
    }
}
