//! The server's HTTP side: `/readyz` for the writer's backlog and the match
//! history API for what was stored.
//!
//! Three GETs to our own server do not justify an HTTP client crate: each
//! request is HTTP/1.0, so the answer is never chunked and ends when the
//! server closes the connection.

use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::player::PATIENCE;

/// Answers larger than this are not ours.
const MAX_ANSWER_BYTES: u64 = 64 << 20;

/// The server's HTTP address.
#[derive(Clone, Debug)]
pub struct Http {
    /// `host:port`.
    authority: String,
}

impl Http {
    /// From the WebSocket URL (`ws://host:port/ws`) or an `http://host:port` base.
    pub fn from_url(url: &str) -> anyhow::Result<Http> {
        let rest = ["ws://", "http://"]
            .iter()
            .find_map(|scheme| url.strip_prefix(scheme))
            .with_context(|| format!("{url}: only ws:// and http:// URLs are supported"))?;
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.is_empty() {
            bail!("{url}: no host");
        }
        let authority =
            if authority.contains(':') { authority.to_owned() } else { format!("{authority}:80") };
        Ok(Http { authority })
    }

    /// GETs `path`, returning the status and the body read as JSON.
    async fn get<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<(u16, T)> {
        let exchange = async {
            let mut stream = TcpStream::connect(&self.authority).await?;
            let request = format!("GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.authority);
            stream.write_all(request.as_bytes()).await?;
            let mut answer = Vec::new();
            stream.take(MAX_ANSWER_BYTES).read_to_end(&mut answer).await?;
            anyhow::Ok(answer)
        };
        let answer = tokio::time::timeout(PATIENCE, exchange)
            .await
            .with_context(|| format!("GET {path}: no answer in {PATIENCE:?}"))?
            .with_context(|| format!("GET {path}"))?;
        let split = answer
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .with_context(|| format!("GET {path}: no end of headers"))?;
        let head = String::from_utf8_lossy(&answer[..split]);
        // "HTTP/1.0 200 OK"
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .with_context(|| format!("GET {path}: no status in {head:?}"))?;
        let body = &answer[split + 4..];
        let value = serde_json::from_slice(body).with_context(|| {
            format!(
                "GET {path}: {status}, not the JSON expected: {}",
                String::from_utf8_lossy(body)
            )
        })?;
        Ok((status, value))
    }

    /// Writes journaled but not yet in the database (`/readyz`).
    pub async fn backlog(&self) -> anyhow::Result<u64> {
        #[derive(Deserialize)]
        struct Ready {
            backlog: u64,
        }
        // 503 (not ready) still carries the backlog.
        let (_, ready): (u16, Ready) = self.get("/readyz").await?;
        Ok(ready.backlog)
    }

    /// Waits until the database has everything the journal has; returns
    /// false if it did not within `limit`.
    pub async fn wait_for_writer(&self, limit: Duration) -> anyhow::Result<bool> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if self.backlog().await? == 0 {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Finished hands stored for the matches `player` played at `table`.
    pub async fn stored_hands(&self, player: &str, table: &str) -> anyhow::Result<u64> {
        #[derive(Deserialize)]
        struct List {
            matches: Vec<Summary>,
            next_cursor: Option<String>,
        }
        #[derive(Deserialize)]
        struct Summary {
            id: String,
            table_id: String,
        }
        #[derive(Deserialize)]
        struct Match {
            hands: Vec<Hand>,
        }
        #[derive(Deserialize)]
        struct Hand {
            /// Absent or null while the hand is played.
            #[serde(default)]
            outcome: Option<IgnoredAny>,
        }

        let mut matches = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut path = format!("/api/matches?player={}&limit=100", encode(player));
            if let Some(cursor) = &cursor {
                path.push_str(&format!("&cursor={}", encode(cursor)));
            }
            let (status, list): (u16, List) = self.get(&path).await?;
            if status != 200 {
                bail!("GET {path}: status {status}");
            }
            matches.extend(list.matches.into_iter().filter(|m| m.table_id == table));
            match list.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let mut hands = 0;
        for summary in matches {
            let path = format!("/api/matches/{}", encode(&summary.id));
            let (status, found): (u16, Match) = self.get(&path).await?;
            if status != 200 {
                bail!("GET {path}: status {status}");
            }
            hands += found.hands.iter().filter(|hand| hand.outcome.is_some()).count() as u64;
        }
        Ok(hands)
    }
}

/// Percent-encodes all but the unreserved characters of a query value.
fn encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_address_comes_from_the_websocket_url() -> anyhow::Result<()> {
        assert_eq!(Http::from_url("ws://127.0.0.1:8080/ws")?.authority, "127.0.0.1:8080");
        assert_eq!(Http::from_url("http://localhost")?.authority, "localhost:80");
        assert!(Http::from_url("wss://example.org/ws").is_err());
        assert_eq!(encode("1700.ab-c d"), "1700.ab-c%20d");
        Ok(())
    }
}
