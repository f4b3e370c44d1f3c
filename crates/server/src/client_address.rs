//! Which address a request comes from: its TCP peer's, or, when the peer
//! is a reverse proxy the settings trust, the client's it forwarded for.
//! Every per-address rule (connection limits, the guest limit, the penalty
//! box, log-in throttling) counts by this address.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The client's address, as a request extension (see `app::admit_address`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// The header a proxy appends each hop's client to.
const FORWARDED_FOR: &str = "x-forwarded-for";

/// The address a request from `peer` counts as. A peer in `trusted` is a
/// proxy: the client is the rightmost address in `X-Forwarded-For` that is
/// not itself a trusted proxy (the entries to its left were written by the
/// client and prove nothing). A header that is missing or unreadable where
/// it matters leaves the last trusted hop: the server never takes an
/// address a client could have made up.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |address: &IpAddr| trusted.iter().any(|net| net.contains(address));
    let mut client = peer.to_canonical();
    if !is_trusted(&client) {
        return client;
    }
    // Several headers are one list, in order.
    let hops: Vec<&str> = headers
        .get_all(FORWARDED_FOR)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect();
    for hop in hops.iter().rev() {
        let Ok(address) = hop.parse::<IpAddr>() else {
            return client;
        };
        client = address.to_canonical();
        if !is_trusted(&client) {
            return client;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(FORWARDED_FOR, value.parse().expect("a header value"));
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn nets(texts: &[&str]) -> Vec<IpNet> {
        texts.iter().map(|text| text.parse().expect("a network")).collect()
    }

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        let forged = headers(&["203.0.113.9"]);
        assert_eq!(resolve(ip("198.51.100.1"), &forged, &[]), ip("198.51.100.1"));
    }

    #[test]
    fn a_peer_that_is_not_a_trusted_proxy_cannot_name_another_address() {
        let forged = headers(&["203.0.113.9"]);
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(resolve(ip("198.51.100.1"), &forged, &trusted), ip("198.51.100.1"));
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let trusted = nets(&["10.0.0.0/8"]);
        let forwarded = headers(&["203.0.113.9"]);
        assert_eq!(resolve(ip("10.1.2.3"), &forwarded, &trusted), ip("203.0.113.9"));
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client_and_what_it_wrote_is_not() {
        // The client wrote "192.0.2.66" itself; the first proxy appended the
        // client's real address, a second trusted proxy appended the first's.
        let trusted = nets(&["10.0.0.0/8", "127.0.0.1/32"]);
        let forwarded = headers(&["192.0.2.66, 203.0.113.9", "10.0.0.5"]);
        assert_eq!(resolve(ip("127.0.0.1"), &forwarded, &trusted), ip("203.0.113.9"));
    }

    #[test]
    fn an_unreadable_or_missing_header_leaves_the_last_trusted_hop() {
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(resolve(ip("10.1.2.3"), &HeaderMap::new(), &trusted), ip("10.1.2.3"));
        let garbled = headers(&["203.0.113.9, not-an-address"]);
        assert_eq!(resolve(ip("10.1.2.3"), &garbled, &trusted), ip("10.1.2.3"));
        let all_trusted = headers(&["10.9.9.9"]);
        assert_eq!(resolve(ip("10.1.2.3"), &all_trusted, &trusted), ip("10.9.9.9"));
    }

    #[test]
    fn ipv4_mapped_ipv6_peers_count_as_their_ipv4_address() {
        let trusted = nets(&["10.0.0.0/8"]);
        let forwarded = headers(&["::ffff:203.0.113.9"]);
        assert_eq!(resolve(ip("::ffff:10.1.2.3"), &forwarded, &trusted), ip("203.0.113.9"));
    }
}
