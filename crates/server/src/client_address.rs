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

/// A trusted proxy's `X-Forwarded-For` whose hop where the client should be
/// is not an address: the request cannot be told apart from the proxy's
/// own, so it is refused (`400 bad_forwarded_for`) rather than counted as
/// the proxy's, where one client could spend every other client's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreadableForwardedFor;

/// The address a request from `peer` counts as. A peer in `trusted` is a
/// proxy: the client is the rightmost address in `X-Forwarded-For` that is
/// not itself a trusted proxy (the entries to its left were written by the
/// client and prove nothing, so they are never read). The header is read as
/// bytes, hop by hop: bytes a client wrote to the left (non-ASCII too) do not
/// spoil the hops the proxies appended. No header at all is the proxy's own
/// request (a health check); a hop that is not an address where the client
/// should be is [`UnreadableForwardedFor`]. The server never takes an
/// address a client could have made up.
pub fn resolve(
    peer: IpAddr,
    headers: &HeaderMap,
    trusted: &[IpNet],
) -> Result<IpAddr, UnreadableForwardedFor> {
    let mut client = peer.to_canonical();
    if !is_trusted(&client, trusted) {
        return Ok(client);
    }
    // Several headers are one list, in order; the last hop is the nearest.
    let values: Vec<&[u8]> = headers.get_all(FORWARDED_FOR).iter().map(|v| v.as_bytes()).collect();
    let hops = values.iter().rev().flat_map(|value| value.rsplit(|byte| *byte == b','));
    for hop in hops {
        client = parse_hop(hop).ok_or(UnreadableForwardedFor)?;
        if !is_trusted(&client, trusted) {
            return Ok(client);
        }
    }
    Ok(client)
}

/// Whether `address` is one of the trusted proxies.
pub fn is_trusted(address: &IpAddr, trusted: &[IpNet]) -> bool {
    let address = address.to_canonical();
    trusted.iter().any(|net| net.contains(&address))
}

/// One hop of the header: an address, with spaces around it.
fn parse_hop(hop: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(hop.trim_ascii()).ok()?;
    text.parse::<IpAddr>().ok().map(|address| address.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            let value = HeaderValue::from_bytes(value.as_bytes()).expect("a header value");
            headers.append(FORWARDED_FOR, value);
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
        assert_eq!(resolve(ip("198.51.100.1"), &forged, &[]), Ok(ip("198.51.100.1")));
    }

    #[test]
    fn a_peer_that_is_not_a_trusted_proxy_cannot_name_another_address() {
        let forged = headers(&["203.0.113.9"]);
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(resolve(ip("198.51.100.1"), &forged, &trusted), Ok(ip("198.51.100.1")));
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let trusted = nets(&["10.0.0.0/8"]);
        let forwarded = headers(&["203.0.113.9"]);
        assert_eq!(resolve(ip("10.1.2.3"), &forwarded, &trusted), Ok(ip("203.0.113.9")));
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client_and_what_it_wrote_is_not() {
        // The client wrote "192.0.2.66" itself; the first proxy appended the
        // client's real address, a second trusted proxy appended the first's.
        let trusted = nets(&["10.0.0.0/8", "127.0.0.1/32"]);
        let forwarded = headers(&["192.0.2.66, 203.0.113.9", "10.0.0.5"]);
        assert_eq!(resolve(ip("127.0.0.1"), &forwarded, &trusted), Ok(ip("203.0.113.9")));
    }

    #[test]
    fn a_missing_header_is_the_proxys_own_request() {
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(resolve(ip("10.1.2.3"), &HeaderMap::new(), &trusted), Ok(ip("10.1.2.3")));
        let all_trusted = headers(&["10.9.9.9"]);
        assert_eq!(resolve(ip("10.1.2.3"), &all_trusted, &trusted), Ok(ip("10.9.9.9")));
    }

    #[test]
    fn what_a_client_wrote_left_of_its_address_is_never_read() {
        // Bytes past ASCII (obs-text) or any garbage the client sent: the
        // proxy appended the client's address after them.
        let trusted = nets(&["10.0.0.0/8"]);
        for written in ["\u{e9}t\u{e9}", "not-an-address", "192.0.2.1:80", ""] {
            let forwarded = headers(&[&format!("{written}, 203.0.113.9")]);
            assert_eq!(resolve(ip("10.1.2.3"), &forwarded, &trusted), Ok(ip("203.0.113.9")));
        }
        let mut raw = HeaderMap::new();
        raw.append(
            FORWARDED_FOR,
            HeaderValue::from_bytes(b"\xff\xfe, 203.0.113.9").expect("obs-text"),
        );
        assert_eq!(resolve(ip("10.1.2.3"), &raw, &trusted), Ok(ip("203.0.113.9")));
    }

    #[test]
    fn an_unreadable_hop_where_the_client_should_be_is_refused_not_the_proxy() {
        let trusted = nets(&["10.0.0.0/8"]);
        for garbled in ["203.0.113.9, not-an-address", "\u{e9}", "", "10.0.0.7, x"] {
            let forwarded = headers(&[garbled]);
            assert_eq!(
                resolve(ip("10.1.2.3"), &forwarded, &trusted),
                Err(UnreadableForwardedFor),
                "{garbled:?}"
            );
        }
        // From a peer that is not trusted the header is not read at all.
        let forwarded = headers(&["\u{e9}"]);
        assert_eq!(resolve(ip("198.51.100.1"), &forwarded, &trusted), Ok(ip("198.51.100.1")));
    }

    #[test]
    fn ipv4_mapped_ipv6_peers_count_as_their_ipv4_address() {
        let trusted = nets(&["10.0.0.0/8"]);
        let forwarded = headers(&["::ffff:203.0.113.9"]);
        assert_eq!(resolve(ip("::ffff:10.1.2.3"), &forwarded, &trusted), Ok(ip("203.0.113.9")));
    }
}
