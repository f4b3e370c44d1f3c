//! Match history through the server's HTTP API (docs/openapi.json): the
//! player's matches, and a finished match's record to replay hand by hand.
//! A plain HTTP/1.1 GET over the server's own address: the API is a few
//! JSON documents, not worth an HTTP client crate. `https` is not done yet.

use std::time::Duration;

use euchre_engine::{GameRecord, Rules};
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SeatRow {
    pub seat: u8,
    pub name: String,
}

#[derive(Deserialize)]
struct MatchList {
    matches: Vec<MatchRow>,
}

/// The player's latest matches, newest first.
pub async fn matches(server: &str, player: &str) -> Result<Vec<MatchRow>, String> {
    let body = get(server, &format!("/api/matches?player={}&limit=50", query(player))).await?;
    let list: MatchList = serde_json::from_str(&body).map_err(|e| format!("bad answer: {e}"))?;
    Ok(list.matches)
}

/// A finished match's record: its deals and every action.
pub async fn record(server: &str, id: &str) -> Result<GameRecord, String> {
    let body = get(server, &format!("/api/matches/{}/record", query(id))).await?;
    serde_json::from_str(&body).map_err(|e| format!("bad answer: {e}"))
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

/// `GET path` on the server whose WebSocket address is `server`.
async fn get(server: &str, path: &str) -> Result<String, String> {
    let rest = server
        .strip_prefix("ws://")
        .ok_or("history needs a ws:// server for now (no https client yet)")?;
    let host = rest.split('/').next().unwrap_or(rest);
    let exchange = async {
        let mut stream = TcpStream::connect(host).await?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        Ok::<_, std::io::Error>(response)
    };
    let response = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| "the server did not answer in time".to_owned())?
        .map_err(|e| format!("cannot reach the server: {e}"))?;
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").ok_or("a malformed answer")?;
    let head = String::from_utf8_lossy(&response[..split]);
    let body = &response[split + 4..];
    let status = head.split_whitespace().nth(1).unwrap_or("");
    let chunked = head.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    let body = if chunked { dechunk(body) } else { body.to_vec() };
    let body = String::from_utf8_lossy(&body).into_owned();
    if status != "200" {
        // The API's errors are `{code, message}`.
        let message = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|error| error.get("message").and_then(|m| m.as_str()).map(str::to_owned))
            .unwrap_or_else(|| format!("HTTP {status}"));
        return Err(message);
    }
    Ok(body)
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
    fn chunked_bodies_are_joined() {
        assert_eq!(dechunk(b"4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"), b"{\"a\":1}");
        assert_eq!(query("p 1/x"), "p%201%2Fx");
    }
}
