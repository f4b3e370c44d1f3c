//! The filters of `GET /api/matches` and its opaque page cursors, checked
//! into the store's typed [`MatchQuery`].

use euchre_store::{Cursor, MatchQuery, Millis};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::ApiError;

/// Matches per page unless `limit` says otherwise, and the most it may say.
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 100;

/// `won` or `lost`, from the `player`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchResult {
    Won,
    Lost,
}

/// The filters of `GET /api/matches`. Every value arrives as text and is
/// checked by [`ListParams::to_query`], so each mistake gets its own code.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Only matches this player (a player id) sat in.
    #[param(min_length = 1)]
    pub player: Option<String>,
    /// Only matches started at or after this time (ms since the Unix epoch).
    #[param(value_type = Option<i64>)]
    pub since: Option<String>,
    /// Only matches started before this time (ms since the Unix epoch).
    #[param(value_type = Option<i64>)]
    pub until: Option<String>,
    /// Only matches the `player`'s side won, or lost (needs `player`; a
    /// match in progress or abandoned is neither).
    #[param(value_type = Option<MatchResult>, inline)]
    pub result: Option<String>,
    /// `true`: only finished matches; `false` or absent: all.
    #[param(value_type = Option<bool>)]
    pub finished: Option<String>,
    /// Matches per page, 1 to 100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page. Opaque: pass it back as given.
    pub cursor: Option<String>,
}

impl ListParams {
    /// The store's query, or the first thing wrong with the parameters.
    pub fn to_query(&self) -> Result<MatchQuery, ApiError> {
        let time = |name: &str, value: &Option<String>| {
            value
                .as_deref()
                .map(|text| {
                    text.parse::<Millis>().map_err(|_| {
                        ApiError::bad_request(
                            "bad_time",
                            format!(
                                "{name} must be milliseconds since the Unix epoch, not {text:?}"
                            ),
                        )
                    })
                })
                .transpose()
        };
        let since = time("since", &self.since)?;
        let until = time("until", &self.until)?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            let message = format!("since ({since}) is after until ({until})");
            return Err(ApiError::bad_request("bad_time", message));
        }
        let player = match self.player.as_deref() {
            Some("") => return Err(ApiError::bad_request("bad_player", "player is empty")),
            other => other.map(str::to_owned),
        };
        let won = match self.result.as_deref() {
            None => None,
            Some("won") => Some(true),
            Some("lost") => Some(false),
            Some(other) => {
                let message = format!("result must be won or lost, not {other:?}");
                return Err(ApiError::bad_request("bad_result", message));
            }
        };
        if won.is_some() && player.is_none() {
            let message = "result needs player: won or lost from whose side?";
            return Err(ApiError::bad_request("result_needs_player", message));
        }
        let finished = match self.finished.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                let message = format!("finished must be true or false, not {other:?}");
                return Err(ApiError::bad_request("bad_finished", message));
            }
        };
        let limit = parse_limit(self.limit.as_deref())?;
        let after = match self.cursor.as_deref() {
            None => None,
            Some(text) => Some(decode_cursor(text).ok_or_else(|| {
                let message = "cursor is not one this server gave: pass next_cursor back as given";
                ApiError::bad_request("bad_cursor", message)
            })?),
        };
        // Who sits at a private table, and how its game stands, are for
        // those at it until it ends.
        let hide_private_in_play = true;
        Ok(MatchQuery { player, since, until, won, finished, after, limit, hide_private_in_play })
    }
}

/// A cursor as clients see it: `{started_at}.{id}`. Clients are told it is
/// opaque, so its form may change; it is checked on the way back in.
pub fn encode_cursor(cursor: &Cursor) -> String {
    format!("{}.{}", cursor.started_at, cursor.id)
}

/// The cursor `text` encodes, if it is well formed.
pub fn decode_cursor(text: &str) -> Option<Cursor> {
    let (started_at, id) = text.split_once('.')?;
    // Digits only: `parse` alone would also take a leading `+`.
    if started_at.is_empty() || !started_at.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let started_at = started_at.parse().ok()?;
    valid_id(id).then(|| Cursor { started_at, id: id.to_owned() })
}

/// Match ids are UUIDs; anything that could not be one is refused early.
pub(super) fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// A page size from `?limit=`: 1 to [`MAX_LIMIT`], [`DEFAULT_LIMIT`] when absent.
pub(super) fn parse_limit(text: Option<&str>) -> Result<u32, ApiError> {
    let Some(text) = text else { return Ok(DEFAULT_LIMIT) };
    text.parse::<u32>().ok().filter(|limit| (1..=MAX_LIMIT).contains(limit)).ok_or_else(|| {
        let message = format!("limit must be 1 to {MAX_LIMIT}, not {text:?}");
        ApiError::bad_request("bad_limit", message)
    })
}

#[cfg(test)]
mod tests {
    use axum::extract::Query;

    use super::*;

    fn params(pairs: &[(&str, &str)]) -> ListParams {
        let query: String =
            pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        from_query(&query)
    }

    /// The parameters as the handler's `Query` extractor reads them.
    fn from_query(query: &str) -> ListParams {
        let uri: axum::http::Uri = format!("/api/matches?{query}").parse().expect("a uri");
        Query::<ListParams>::try_from_uri(&uri).expect("known parameters").0
    }

    fn code(result: Result<MatchQuery, ApiError>) -> String {
        result.expect_err("refused").body.code
    }

    #[test]
    fn list_parameters_become_a_typed_query() {
        let query = params(&[
            ("player", "p1"),
            ("since", "10"),
            ("until", "20"),
            ("result", "lost"),
            ("finished", "true"),
            ("limit", "5"),
            ("cursor", "15.0190-ab"),
        ])
        .to_query()
        .expect("valid");
        let after = Some(Cursor { started_at: 15, id: "0190-ab".into() });
        let expected = MatchQuery {
            player: Some("p1".into()),
            since: Some(10),
            until: Some(20),
            won: Some(false),
            finished: true,
            after,
            limit: 5,
            hide_private_in_play: true,
        };
        assert_eq!(query, expected);
        let defaults = ListParams::default().to_query().expect("valid");
        assert_eq!((defaults.limit, defaults.finished, defaults.won), (DEFAULT_LIMIT, false, None));
    }

    #[test]
    fn each_bad_parameter_has_its_code() {
        for (pairs, expected) in [
            (&[("limit", "0")][..], "bad_limit"),
            (&[("limit", "101")], "bad_limit"),
            (&[("limit", "ten")], "bad_limit"),
            (&[("result", "draw"), ("player", "p")], "bad_result"),
            (&[("result", "won")], "result_needs_player"),
            (&[("finished", "yes")], "bad_finished"),
            (&[("since", "yesterday")], "bad_time"),
            (&[("since", "20"), ("until", "10")], "bad_time"),
            (&[("player", "")], "bad_player"),
            (&[("cursor", "nonsense")], "bad_cursor"),
        ] {
            assert_eq!(code(params(pairs).to_query()), expected, "{pairs:?}");
        }
        let uri: axum::http::Uri = "/api/matches?palyer=x".parse().expect("a uri");
        assert!(Query::<ListParams>::try_from_uri(&uri).is_err(), "a misspelt filter is refused");
    }

    #[test]
    fn cursors_round_trip_and_forgeries_are_refused() {
        let cursor = Cursor { started_at: 1_700_000_000_000, id: "0190b7c2-7c1e-7e36".into() };
        assert_eq!(decode_cursor(&encode_cursor(&cursor)), Some(cursor));
        for bad in ["", ".", "12.", ".abc", "+12.abc", "-1.abc", "12.a b", "12.a.b", "x.abc"] {
            assert_eq!(decode_cursor(bad), None, "{bad:?}");
        }
        let long = format!("1.{}", "a".repeat(65));
        assert_eq!(decode_cursor(&long), None);
    }
}
