//! Match history through the server's HTTP API (docs/openapi.json): the
//! player's matches, a page at a time, and a finished match's record to
//! replay hand by hand. A plain HTTP/1.1 GET to the host of the WebSocket
//! address, over TLS (rustls, Mozilla's roots, as for `wss://`) when that is
//! `wss://`: the API is a few JSON documents, not worth an HTTP client crate.
//! And a finished match's analysis by the solver, waited for while the
//! server computes it.

use std::sync::Arc;
use std::time::Duration;

use euchre_analysis::GameAnalysis;
use euchre_engine::{GameRecord, Rules};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// A match as the history list shows it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MatchRow {
    pub id: String,
    pub rules: Rules,
    pub seats: Vec<SeatRow>,
    pub finished: bool,
    pub scores: Vec<u16>,
    pub winner: Option<u8>,
    pub started_at: i64,
    /// Set when its table closed before the game ended: over, unwon.
    #[serde(default)]
    pub abandoned: Option<Abandoned>,
}

/// When and why a match was abandoned.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Abandoned {
    pub at: i64,
    /// `everyone_left` or `lost`.
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SeatRow {
    pub seat: u8,
    pub name: String,
}

/// One page of the player's matches, newest first.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MatchPage {
    pub matches: Vec<MatchRow>,
    /// Where the next page starts; `None` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// Matches a page holds.
pub const PAGE: usize = 50;

/// A page of the player's matches: the latest, or those after `cursor`
/// (a page's `next_cursor`).
pub async fn matches(
    server: &str,
    player: &str,
    cursor: Option<&str>,
) -> Result<MatchPage, String> {
    matches_with(server, player, cursor, PAGE, &Roots::Mozilla).await
}

/// [`matches()`], `limit` to a page, checking an https server against `roots`.
pub async fn matches_with(
    server: &str,
    player: &str,
    cursor: Option<&str>,
    limit: usize,
    roots: &Roots,
) -> Result<MatchPage, String> {
    let mut path = format!("/api/matches?player={}&limit={limit}", query(player));
    if let Some(cursor) = cursor {
        path.push_str(&format!("&cursor={}", query(cursor)));
    }
    let body = get(server, &path, roots).await?;
    serde_json::from_str(&body).map_err(|e| format!("bad answer: {e}"))
}

/// A finished match's record: its deals and every action.
pub async fn record(server: &str, id: &str) -> Result<GameRecord, String> {
    record_with(server, id, &Roots::Mozilla).await
}

/// [`record()`], checking an https server against `roots`.
pub async fn record_with(server: &str, id: &str, roots: &Roots) -> Result<GameRecord, String> {
    let body = get(server, &format!("/api/matches/{}/record", query(id)), roots).await?;
    serde_json::from_str(&body).map_err(|e| format!("bad answer: {e}"))
}

/// A finished match's analysis (`GET /api/matches/{id}/analysis`), asked
/// for again after the server's `Retry-After` while it is being computed,
/// a few minutes at most.
pub async fn analysis(server: &str, id: &str) -> Result<GameAnalysis, String> {
    analysis_with(server, id, &Roots::Mozilla).await
}

/// The longest the analysis is waited for, asking again after each hint.
const ANALYSIS_ATTEMPTS: u32 = 40;
/// The wait between two asks when the server gives none, and the longest.
const ANALYSIS_RETRY: u64 = 5;
const ANALYSIS_LONGEST_RETRY: u64 = 30;

/// [`analysis()`], checking an https server against `roots`.
pub async fn analysis_with(server: &str, id: &str, roots: &Roots) -> Result<GameAnalysis, String> {
    let path = format!("/api/matches/{}/analysis", query(id));
    for _ in 0..ANALYSIS_ATTEMPTS {
        let answer = fetch(server, &path, roots).await?;
        match answer.status.as_str() {
            "200" => {
                return serde_json::from_str(&answer.body).map_err(|e| format!("bad answer: {e}"));
            }
            // Queued (202), or the queue is full (503): ask again after the hint.
            "202" | "503" => {
                let wait = answer.retry_after.unwrap_or(ANALYSIS_RETRY);
                tokio::time::sleep(Duration::from_secs(wait.clamp(1, ANALYSIS_LONGEST_RETRY)))
                    .await;
            }
            _ => return Err(answer.message()),
        }
    }
    Err("the analysis is taking too long: open the replay again later".to_owned())
}

/// The certificate authorities an https server is checked against.
#[derive(Clone, Debug)]
pub enum Roots {
    /// Mozilla's, built in (webpki-roots), as tokio-tungstenite's `wss://`.
    Mozilla,
    /// These only (a test's own authority).
    Only(Arc<RootCertStore>),
}

/// Where the HTTP API of a server is, from its WebSocket address.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Origin {
    tls: bool,
    /// The host name or address, without brackets or port: what TLS checks.
    host: String,
    port: u16,
    /// `host:port` as written (for the `Host` header).
    authority: String,
}

/// Reads `ws://host[:port]/…` or `wss://…` (`http://` and `https://` too).
fn origin(server: &str) -> Result<Origin, String> {
    let (tls, rest) = if let Some(rest) =
        server.strip_prefix("wss://").or_else(|| server.strip_prefix("https://"))
    {
        (true, rest)
    } else if let Some(rest) =
        server.strip_prefix("ws://").or_else(|| server.strip_prefix("http://"))
    {
        (false, rest)
    } else {
        return Err(format!("{server} is not a ws:// or wss:// address"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let default_port = if tls { 443 } else { 80 };
    // An IPv6 address is bracketed: [::1]:8080.
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']').ok_or("a malformed address")?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().map_err(|_| format!("a bad port in {server}"))?,
        None => default_port,
    };
    if host.is_empty() {
        return Err(format!("no host in {server}"));
    }
    Ok(Origin { tls, host: host.to_owned(), port, authority: authority.to_owned() })
}

fn query(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `GET path` on the server whose WebSocket address is `server`: the body
/// of a 200, else the API's message.
pub async fn get(server: &str, path: &str, roots: &Roots) -> Result<String, String> {
    let answer = fetch(server, path, roots).await?;
    if answer.status != "200" {
        return Err(answer.message());
    }
    Ok(answer.body)
}

/// An HTTP answer: its status, `Retry-After` in seconds, and body.
struct Answer {
    status: String,
    retry_after: Option<u64>,
    body: String,
}

impl Answer {
    /// What went wrong, for people: the API's errors are `{code, message}`.
    fn message(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|error| error.get("message").and_then(|m| m.as_str()).map(str::to_owned))
            .unwrap_or_else(|| format!("HTTP {}", self.status))
    }
}

/// `GET path`, whatever the answer's status.
async fn fetch(server: &str, path: &str, roots: &Roots) -> Result<Answer, String> {
    let origin = origin(server)?;
    let exchange = async {
        let stream = TcpStream::connect((origin.host.as_str(), origin.port))
            .await
            .map_err(|e| format!("cannot reach the server: {e}"))?;
        if !origin.tls {
            return exchange(stream, &origin, path).await;
        }
        let config = ClientConfig::builder()
            .with_root_certificates(match roots {
                Roots::Mozilla => {
                    Arc::new(RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() })
                }
                Roots::Only(roots) => roots.clone(),
            })
            .with_no_client_auth();
        let name = ServerName::try_from(origin.host.clone())
            .map_err(|e| format!("{} is not a host name: {e}", origin.host))?;
        let stream = TlsConnector::from(Arc::new(config))
            .connect(name, stream)
            .await
            .map_err(|e| format!("no secure connection to {}: {e}", origin.host))?;
        exchange(stream, &origin, path).await
    };
    let response = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| "the server did not answer in time".to_owned())??;
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").ok_or("a malformed answer")?;
    let head = String::from_utf8_lossy(&response[..split]);
    let body = &response[split + 4..];
    let status = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_ascii_lowercase())
        })
    };
    let chunked = header("transfer-encoding").is_some_and(|value| value.contains("chunked"));
    let retry_after = header("retry-after").and_then(|value| value.parse().ok());
    let body = if chunked { dechunk(body) } else { body.to_vec() };
    let body = String::from_utf8_lossy(&body).into_owned();
    Ok(Answer { status, retry_after, body })
}

/// Sends the request and reads the whole answer (the server closes after it).
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    origin: &Origin,
    path: &str,
) -> Result<Vec<u8>, String> {
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        origin.authority
    );
    stream.write_all(request.as_bytes()).await.map_err(|e| format!("cannot send: {e}"))?;
    let mut response = Vec::new();
    match stream.read_to_end(&mut response).await {
        Ok(_) => Ok(response),
        // A server that closes without TLS's close_notify has still sent
        // its whole answer with `Connection: close`.
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof && !response.is_empty() => {
            Ok(response)
        }
        Err(error) => Err(format!("cannot read the answer: {error}")),
    }
}

/// A chunked body's bytes (sizes count bytes, so this works on bytes).
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&body[..end]).ok().map(str::trim);
        let Some(size) = size.and_then(|size| usize::from_str_radix(size, 16).ok()) else { break };
        let rest = &body[end + 2..];
        if size == 0 || rest.len() < size {
            break;
        }
        out.extend_from_slice(&rest[..size]);
        body = rest[size..].strip_prefix(b"\r\n").unwrap_or(&rest[size..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_found_from_the_websocket_address() {
        let read = |server| origin(server).map(|o| (o.tls, o.host, o.port, o.authority));
        let plain = ("127.0.0.1".into(), 8080, "127.0.0.1:8080".into());
        assert_eq!(read("ws://127.0.0.1:8080/ws"), Ok((false, plain.0, plain.1, plain.2)));
        assert_eq!(
            read("wss://euchre.example.org/ws"),
            Ok((true, "euchre.example.org".into(), 443, "euchre.example.org".into()))
        );
        assert_eq!(read("ws://host/ws"), Ok((false, "host".into(), 80, "host".into())));
        assert_eq!(
            read("wss://[::1]:9443/ws"),
            Ok((true, "::1".into(), 9443, "[::1]:9443".into()))
        );
        assert!(read("ftp://host/").is_err());
        assert!(read("ws://host:port/").is_err());
        assert!(read("wss:///ws").is_err());
    }

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(dechunk(b"4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"), b"{\"a\":1}");
        assert_eq!(query("p 1/x"), "p%201%2Fx");
    }
}
