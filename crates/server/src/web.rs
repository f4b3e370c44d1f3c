//! The browser client: the hand-written files under `web/` (HTML, CSS and
//! plain ES modules, with no build step), embedded in the binary at compile
//! time so that the server needs nothing beside it.
//!
//! `/` is the page; every other file is under `/assets/`. Each response
//! carries its content type, a Content-Security-Policy that allows nothing
//! but this server (scripts, styles, images and the WebSocket), and an
//! `ETag` with `Cache-Control: no-cache`: the file names carry no version,
//! so browsers revalidate every time and get a `304` while nothing changed.
//! A test checks that every file under `web/` is listed here.

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

/// Only this server: no inline script or style, no frames, no plugins.
/// (`connect-src 'self'` covers the same host's `ws:` and `wss:`.)
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; \
base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";
const JSON: &str = "application/manifest+json";

/// One embedded file: its path under `web/`, its bytes and its type.
struct Asset {
    path: &'static str,
    body: &'static [u8],
    content_type: &'static str,
}

macro_rules! asset {
    ($path:literal, $type:expr) => {
        Asset {
            path: $path,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/", $path)),
            content_type: $type,
        }
    };
}

/// Every file of the client. A new file under `web/` needs a line here.
const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("style.css", CSS),
    asset!("icon.svg", SVG),
    asset!("manifest.webmanifest", JSON),
    asset!("js/account.js", JS),
    asset!("js/analysis.js", JS),
    asset!("js/cards.js", JS),
    asset!("js/closed.js", JS),
    asset!("js/dispatch.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/history.js", JS),
    asset!("js/lobby.js", JS),
    asset!("js/main.js", JS),
    asset!("js/moderation.js", JS),
    asset!("js/model.js", JS),
    asset!("js/net.js", JS),
    asset!("js/puzzles.js", JS),
    asset!("js/quickplay.js", JS),
    asset!("js/routing.js", JS),
    asset!("js/rules.js", JS),
    asset!("js/seal.js", JS),
    asset!("js/session.js", JS),
    asset!("js/social.js", JS),
    asset!("js/table.js", JS),
    asset!("js/text.js", JS),
    asset!("js/tournament.js", JS),
    asset!("js/witness.js", JS),
];

/// Each file's entity tag (the start of its SHA-256), computed once.
static ETAGS: LazyLock<HashMap<&'static str, HeaderValue>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|asset| {
            let digest = Sha256::digest(asset.body);
            let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            let tag = HeaderValue::from_str(&format!("\"{hex}\"")).expect("hex is a valid header");
            (asset.path, tag)
        })
        .collect()
});

/// The client's routes: `/` and `/assets/{path}`.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|headers: HeaderMap| async move { serve("index.html", &headers) }))
        .route(
            "/assets/{*path}",
            get(|Path(path): Path<String>, headers: HeaderMap| async move {
                serve(&path, &headers)
            }),
        )
}

fn serve(path: &str, request: &HeaderMap) -> Response {
    let Some(asset) = ASSETS.iter().find(|asset| asset.path == path) else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    let etag = ETAGS.get(asset.path).cloned().unwrap_or(HeaderValue::from_static("\"0\""));
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim().as_bytes() == etag.as_bytes()));
    let mut response =
        if fresh { StatusCode::NOT_MODIFIED.into_response() } else { asset.body.into_response() };
    let headers = response.headers_mut();
    if !fresh {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    }
    headers.insert(header::ETAG, etag);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers
        .insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `web/`, as a path relative to it.
    fn files_on_disk() -> Vec<String> {
        fn walk(dir: &std::path::Path, base: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("web/ is readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    walk(&path, base, found);
                } else {
                    let relative = path.strip_prefix(base).expect("inside web/");
                    found.push(relative.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
        let mut found = Vec::new();
        walk(&base, &base, &mut found);
        found.sort();
        found
    }

    #[test]
    fn every_file_under_web_is_embedded() {
        let mut listed: Vec<String> = ASSETS.iter().map(|a| a.path.to_owned()).collect();
        listed.sort();
        assert_eq!(listed, files_on_disk(), "web/ and web.rs's ASSETS differ");
    }

    fn get(path: &str, if_none_match: Option<&HeaderValue>) -> Response {
        let mut headers = HeaderMap::new();
        if let Some(tag) = if_none_match {
            headers.insert(header::IF_NONE_MATCH, tag.clone());
        }
        serve(path, &headers)
    }

    #[test]
    fn files_come_with_their_type_policy_and_tag() {
        let page = get("index.html", None);
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(page.headers()[header::CONTENT_TYPE], HTML);
        assert_eq!(page.headers()[header::CONTENT_SECURITY_POLICY], CONTENT_SECURITY_POLICY);
        assert_eq!(page.headers()[header::CACHE_CONTROL], "no-cache");
        let script = get("js/main.js", None);
        assert_eq!(script.headers()[header::CONTENT_TYPE], JS);
        let style = get("style.css", None);
        assert_eq!(style.headers()[header::CONTENT_TYPE], CSS);
        assert_eq!(get("nope.js", None).status(), StatusCode::NOT_FOUND);
        assert_eq!(get("../Cargo.toml", None).status(), StatusCode::NOT_FOUND);

        let tag = script.headers()[header::ETAG].clone();
        let again = get("js/main.js", Some(&tag));
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(again.headers()[header::ETAG], tag);
        let other = HeaderValue::from_static("\"0000\"");
        assert_eq!(get("js/main.js", Some(&other)).status(), StatusCode::OK);
    }
}
