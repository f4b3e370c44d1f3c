//! A small HTTP client, a few lines over a `TcpStream`: one request per
//! connection, read to the end. The server answers with full bodies of
//! known length, so nothing more is needed, and reqwest (with its own tree of
//! crates to build on two cores) is not.

use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{PATIENCE, TestServer};

#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The error code of a JSON error body, checking the status on the way.
    pub fn error(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        let body = self.json();
        assert!(body["message"].is_string(), "an error has a message: {body}");
        body["code"].as_str().expect("an error code").to_owned()
    }
}

/// One request without a bearer token.
pub async fn http(server: &TestServer, method: &str, path: &str, body: Option<&[u8]>) -> Answer {
    request(server, method, path, None, body).await
}

/// One request, with `Authorization: Bearer <token>` when a token is given.
pub async fn request(
    server: &TestServer,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Answer {
    request_from(server, Source::LOCAL, method, path, token, body).await
}

/// Where a request comes from: a loopback address of the test's own
/// (`127.x.y.z`), and what it says in `X-Forwarded-For` (as a reverse proxy
/// at that address would).
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    pub address: [u8; 4],
    pub forwarded_for: Option<&'a str>,
}

impl Source<'_> {
    pub const LOCAL: Source<'static> = Source { address: [127, 0, 0, 1], forwarded_for: None };
}
/// The guest holding `token` claims `name` with `password` (`POST /api/accounts`).
pub async fn claim(server: &TestServer, token: &str, name: &str, password: &str) -> Answer {
    let body = serde_json::json!({ "name": name, "password": password }).to_string();
    request(server, "POST", "/api/accounts", Some(token), Some(body.as_bytes())).await
}

/// Logs in as `name` (`POST /api/sessions`).
pub async fn log_in(server: &TestServer, name: &str, password: &str) -> Answer {
    let body = serde_json::json!({ "name": name, "password": password }).to_string();
    http(server, "POST", "/api/sessions", Some(body.as_bytes())).await
}

/// [`request`] from `source`.
pub async fn request_from(
    server: &TestServer,
    source: Source<'_>,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Answer {
    request_to(server.address, source, method, path, token, body).await
}

/// [`request`] to the server at `address` (a cluster's node).
pub async fn request_at(
    address: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Answer {
    request_to(address, Source::LOCAL, method, path, token, body).await
}

/// A counter or gauge of the `/metrics` of the server at `address` (0 if
/// it has none yet).
pub async fn metric(address: SocketAddr, name: &str) -> u64 {
    let answer = request_at(address, "GET", "/metrics", None, None).await;
    let value = answer.body.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' '));
    value.and_then(|v| v.parse::<f64>().ok()).map_or(0, |v| v as u64)
}

/// [`request_from`], to the server at `address`.
pub async fn request_to(
    address: SocketAddr,
    source: Source<'_>,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> Answer {
    let exchange = async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket.bind(SocketAddr::from((source.address, 0))).expect("a loopback address");
        let mut stream = socket.connect(address).await.expect("connect");
        let mut request =
            format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
        if let Some(client) = source.forwarded_for {
            request += &format!("X-Forwarded-For: {client}\r\n");
        }
        if let Some(token) = token {
            request += &format!("Authorization: Bearer {token}\r\n");
        }
        if let Some(body) = body {
            request +=
                &format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len());
        }
        request += "\r\n";
        stream.write_all(request.as_bytes()).await.expect("write");
        if let Some(body) = body {
            // The server may refuse an oversized body before reading it all.
            let _ = stream.write_all(body).await;
        }
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.expect("read");
        response
    };
    let response = tokio::time::timeout(PATIENCE, exchange).await.expect("an answer in time");
    let text = String::from_utf8(response).expect("a UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    assert!(!chunked, "this client reads bodies of known length only");
    Answer { status, headers, body: body.to_owned() }
}
