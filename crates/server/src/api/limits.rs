//! The HTTP API's own limits (`[api]` in the settings): requests per client
//! address on every `/api` route, and EGN imports per account and per
//! address. Addresses count by [`address_key`], as every other per-address
//! rule does (an IPv6 address by its /64).
//!
//! Static files and the WebSocket upgrade are not counted here: the files
//! are small and fixed, and a page loads several at once; the WebSocket has
//! its own admission (connections per address, the penalty box, new guests)
//! and, inside, its own message limits.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, NotUntil, Quota, RateLimiter};

use super::error::ApiError;
use crate::admission::address_key;
use crate::client_address::ClientAddress;
use crate::config::ApiSettings;
use crate::state::AppState;

/// Keys a limiter holds before it drops those long refilled.
const LIMITER_KEYS: usize = 10_000;

/// The API's limiters. One per server, in [`AppState`].
#[derive(Debug)]
pub struct ApiLimits {
    requests: Option<DefaultKeyedRateLimiter<IpAddr>>,
    imports_by_account: Option<DefaultKeyedRateLimiter<String>>,
    imports_by_address: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// Deals one imported record may hold.
    pub import_max_hands: usize,
}

impl ApiLimits {
    pub fn new(settings: &ApiSettings) -> ApiLimits {
        let requests = NonZeroU32::new(settings.requests_per_second).map(|rate| {
            let burst = NonZeroU32::new(settings.request_burst).unwrap_or(rate);
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
        });
        ApiLimits {
            requests,
            imports_by_account: per_hour(settings.imports_per_hour_per_account),
            imports_by_address: per_hour(settings.imports_per_hour_per_address),
            import_max_hands: settings.import_max_hands,
        }
    }

    /// One more API request from `address`, or how long until it may.
    pub fn request(&self, address: IpAddr) -> Result<(), Duration> {
        check(self.requests.as_ref(), &address_key(address))
    }

    /// One more import by the account `player_id` from `address`, or how
    /// long until both may.
    pub fn import(&self, player_id: &str, address: IpAddr) -> Result<(), Duration> {
        check(self.imports_by_address.as_ref(), &address_key(address))?;
        check(self.imports_by_account.as_ref(), &player_id.to_owned())
    }
}

/// A limiter of `count` an hour per key (the burst too); 0: none.
fn per_hour<K: Clone + Eq + std::hash::Hash>(count: u32) -> Option<DefaultKeyedRateLimiter<K>> {
    NonZeroU32::new(count).map(|count| RateLimiter::keyed(Quota::per_hour(count)))
}

/// One cell of `limiter`'s bucket for `key`; no limiter: always allowed.
fn check<K>(limiter: Option<&DefaultKeyedRateLimiter<K>>, key: &K) -> Result<(), Duration>
where
    K: Clone + Eq + std::hash::Hash,
{
    let Some(limiter) = limiter else { return Ok(()) };
    if limiter.len() > LIMITER_KEYS {
        limiter.retain_recent();
    }
    limiter.check_key(key).map_err(wait)
}

fn wait(not_until: NotUntil<governor::clock::QuantaInstant>) -> Duration {
    let now = governor::clock::Clock::now(&governor::clock::DefaultClock::default());
    not_until.wait_time_from(now)
}

/// Refuses an API request past its address's rate: `429 rate_limited`
/// with `Retry-After`. Runs inside `app::admit_address`, which found the
/// client's address (a request without one, from a test's in-process
/// router, is not counted).
pub(crate) async fn limit_requests(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let address = request.extensions().get::<ClientAddress>().map(|client| client.0);
    if let Some(address) = address
        && let Err(wait) = state.api_limits.request(address)
    {
        let message = "too many requests from this address; try again shortly";
        return ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message)
            .retry_after(wait)
            .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn requests_count_per_address_key_with_a_burst() {
        let settings =
            ApiSettings { requests_per_second: 1, request_burst: 3, ..Default::default() };
        let limits = ApiLimits::new(&settings);
        for _ in 0..3 {
            assert_eq!(limits.request(ip("2001:db8:1:2::1")), Ok(()));
        }
        // The same /64 is the same key; the wait is about a second.
        let wait = limits.request(ip("2001:db8:1:2::ffff")).expect_err("past the burst");
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(1), "{wait:?}");
        assert_eq!(limits.request(ip("2001:db8:1:3::1")), Ok(()), "another /64");
        assert_eq!(limits.request(ip("192.0.2.1")), Ok(()));
        let off = ApiLimits::new(&ApiSettings { requests_per_second: 0, ..Default::default() });
        assert!((0..1_000).all(|_| off.request(ip("192.0.2.1")).is_ok()));
    }

    #[test]
    fn imports_count_per_account_and_per_address() {
        let settings = ApiSettings {
            imports_per_hour_per_account: 2,
            imports_per_hour_per_address: 3,
            ..Default::default()
        };
        let limits = ApiLimits::new(&settings);
        let (here, there) = (ip("192.0.2.1"), ip("192.0.2.2"));
        assert_eq!(limits.import("ann", here), Ok(()));
        assert_eq!(limits.import("ann", here), Ok(()));
        let wait = limits.import("ann", there).expect_err("the account's two are spent");
        assert!(wait > Duration::from_secs(60), "{wait:?}");
        assert_eq!(limits.import("bob", here), Ok(()), "another account: the address's third");
        assert!(limits.import("cid", here).is_err(), "the address's three are spent");
        assert_eq!(limits.import("cid", there), Ok(()), "another address");
    }
}
