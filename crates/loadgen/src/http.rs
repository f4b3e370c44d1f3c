//! The server's HTTP side, through euchre-client's typed HTTP client:
//! `/readyz` for the writer's backlog and the match history API for what
//! was stored.

use std::time::Duration;

use anyhow::Context;
use euchre_client::{HttpClient, MatchQuery};

use crate::player::PATIENCE;

/// The server's HTTP API.
#[derive(Clone, Debug)]
pub struct Http {
    api: HttpClient,
}

impl Http {
    /// From the WebSocket URL (`ws://host:port/ws`) or an `http://host:port` base.
    pub fn from_url(url: &str) -> anyhow::Result<Http> {
        let api = HttpClient::new(url).with_context(|| format!("{url}: no HTTP API there"))?;
        Ok(Http { api: api.with_timeout(PATIENCE) })
    }

    /// Writes journaled but not yet in the database (`/readyz`).
    pub async fn backlog(&self) -> anyhow::Result<u64> {
        // 503 (not ready) still carries the backlog.
        let ready = self.api.readiness().await.context("GET /readyz")?;
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

    /// Finished hands, and actions, stored for the matches `player`
    /// played at `table`.
    pub async fn stored(&self, player: &str, table: &str) -> anyhow::Result<Stored> {
        let mut query = MatchQuery {
            player: Some(player.to_owned()),
            limit: Some(100),
            ..MatchQuery::default()
        };
        let mut matches = Vec::new();
        loop {
            let page = self.api.matches(&query).await.context("GET /api/matches")?;
            matches.extend(page.matches.into_iter().filter(|m| m.table_id == table));
            match page.next_cursor {
                Some(next) => query.cursor = Some(next),
                None => break,
            }
        }
        let mut stored = Stored::default();
        for summary in matches {
            let found = self
                .api
                .match_view(&summary.id)
                .await
                .with_context(|| format!("GET /api/matches/{}", summary.id))?;
            stored.hands += found.hands.iter().filter(|hand| hand.outcome.is_some()).count() as u64;
            stored.actions += found.hands.iter().map(|hand| hand.actions.len() as u64).sum::<u64>();
        }
        Ok(stored)
    }
}

/// What the history holds of one table's matches.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stored {
    /// Hands that ended.
    pub hands: u64,
    /// Every action of every hand, the last hand's too.
    pub actions: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_address_comes_from_the_websocket_url() -> anyhow::Result<()> {
        assert_eq!(Http::from_url("ws://127.0.0.1:8080/ws")?.api.base(), "http://127.0.0.1:8080/");
        assert_eq!(Http::from_url("http://localhost")?.api.base(), "http://localhost/");
        // Over TLS too, now that the client speaks https.
        assert_eq!(Http::from_url("wss://example.org/ws")?.api.base(), "https://example.org/");
        assert!(Http::from_url("ftp://example.org/").is_err());
        Ok(())
    }
}
