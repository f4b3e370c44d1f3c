//! Invite links, in the browser client's shape (web/js/routing.js):
//! `http://host/#/table/<id>?invite=<code>`, both parts URI-encoded.

/// The table id and invite code in `input`: an invite link, `id code`, or
/// a bare `id` (a public table).
pub fn parse(input: &str) -> Option<(String, Option<String>)> {
    let input = input.trim();
    if let Some((_, route)) = input.split_once("#/table/") {
        let (id, query) = route.split_once('?').unwrap_or((route, ""));
        let invite = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("invite="))
            .map(decode)
            .filter(|code| !code.is_empty());
        let id = decode(id.trim_end_matches('/'));
        return (!id.is_empty()).then_some((id, invite));
    }
    let mut words = input.split_whitespace();
    let id = words.next()?.to_owned();
    let invite = words.next().map(str::to_owned);
    if words.next().is_some() {
        return None;
    }
    Some((id, invite))
}

/// The link a friend can open in a browser (or paste here).
pub fn link(server: &str, table: &str, code: &str) -> String {
    // ws://host/ws → http://host/, wss:// → https://.
    let (scheme, rest) = match server.split_once("://") {
        Some(("wss", rest)) => ("https", rest),
        Some((_, rest)) => ("http", rest),
        None => ("http", server),
    };
    let host = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{host}/#/table/{}?invite={}", encode(table), encode(code))
}

fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|pair| std::str::from_utf8(pair).ok());
        match (bytes[i], hex.and_then(|hex| u8::from_str_radix(hex, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_ids_are_read() {
        let some = |id: &str, code: Option<&str>| Some((id.to_owned(), code.map(str::to_owned)));
        assert_eq!(parse("http://host:8080/#/table/t7?invite=ab%2Fc"), some("t7", Some("ab/c")));
        assert_eq!(parse("  https://e.com/#/table/t%201  "), some("t 1", None));
        assert_eq!(parse("t7 secret"), some("t7", Some("secret")));
        assert_eq!(parse("t7"), some("t7", None));
        assert_eq!(parse(""), None);
        assert_eq!(parse("a b c"), None);
    }

    #[test]
    fn a_link_made_is_read_back() {
        let link = link("ws://127.0.0.1:8080/ws", "t 9", "c/d");
        assert_eq!(link, "http://127.0.0.1:8080/#/table/t%209?invite=c%2Fd");
        assert_eq!(parse(&link), Some(("t 9".to_owned(), Some("c/d".to_owned()))));
        assert!(super::link("wss://e.com/ws", "t1", "x").starts_with("https://e.com/#/"));
    }
}
