//! Text one player writes and others read: display names and chat lines.
//!
//! A name is normalised to NFKC, trimmed, and each inner run of white space
//! becomes one space. It may hold no control, format (zero-width, bidi),
//! line-separator, private-use or unassigned character, may not start with
//! a combining mark, and must show something once invisible characters are
//! left out. Two names are the same name when their keys agree: the Unicode
//! Technical Standard 39 confusable skeleton of the case-folded name, folded again (some
//! skeletons are capitals: "0" becomes "O"). So "Alice", "ALICE", "Ａｌｉｃｅ"
//! (fullwidth) and "Аlice" (a Cyrillic А) are one name, and so is "A1ice",
//! as the confusables data maps "1" to "l".
//!
//! A chat line keeps the text as typed, except that line breaks and tabs
//! become spaces and every other control or format character is dropped
//! (bar the joiners ZWJ and ZWNJ, which emoji and some scripts need and which
//! reorder nothing): a line cannot move a terminal's cursor, reverse the text
//! around it, or pass for a second line from someone else.

use std::ops::RangeInclusive;

use euchre_protocol::ErrorCode;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// A name's length, in characters once normalised.
pub const NAME_CHARS: RangeInclusive<usize> = 1..=32;

/// A chat line's length, in characters once cleaned.
pub const CHAT_CHARS: RangeInclusive<usize> = 1..=500;

/// A title's length (a tournament's name), in characters once normalised.
pub const TITLE_CHARS: RangeInclusive<usize> = 1..=64;

/// Longer raw input is refused before any work on it: even NFKC's widest
/// expansion of a character (18) cannot bring this back to the most
/// characters allowed, four bytes each.
const fn raw_bytes(chars: &RangeInclusive<usize>) -> usize {
    *chars.end() * 4 * 18
}

const ZERO_WIDTH_JOINER: char = '\u{200D}';
const ZERO_WIDTH_NON_JOINER: char = '\u{200C}';

/// A display name: NFKC, trimmed, inner white space as single spaces, 1 to
/// 32 characters, nothing invisible or reordering (see the module's doc).
pub fn parse_name(raw: &str) -> Result<String, ErrorCode> {
    parse_shown(raw, &NAME_CHARS)
}

/// A title others read in lists (a tournament's name): as a display name
/// (see the module's doc), 1 to 64 characters.
pub fn parse_title(raw: &str) -> Result<String, ErrorCode> {
    parse_shown(raw, &TITLE_CHARS)
}

/// Text shown as a name, of `chars` characters once normalised.
fn parse_shown(raw: &str, chars: &RangeInclusive<usize>) -> Result<String, ErrorCode> {
    if raw.len() > raw_bytes(chars) {
        return Err(ErrorCode::BadName);
    }
    let nfkc: String = raw.nfkc().collect();
    // Before white space is collapsed: a tab or a line break is refused, not made a space.
    if nfkc.chars().any(refused_in_names) {
        return Err(ErrorCode::BadName);
    }
    let name = collapse_white_space(&nfkc);
    let starts_with_mark = name.chars().next().is_some_and(is_mark);
    let shows_something = name_key(&name).chars().any(|c| !c.is_whitespace() && !is_mark(c));
    if !chars.contains(&name.chars().count()) || starts_with_mark || !shows_something {
        return Err(ErrorCode::BadName);
    }
    Ok(name)
}

/// A name as compared: its confusable skeleton, case-folded before and
/// after. Any text has a key (a log-in's typed name is not refused, only
/// not found), and text `parse_name` takes keeps its key through it.
pub fn name_key(name: &str) -> String {
    let nfkc: String = name.nfkc().collect();
    let folded = caseless::default_case_fold_str(&collapse_white_space(&nfkc));
    let skeleton: String = unicode_security::skeleton(&folded).collect();
    caseless::default_case_fold_str(&skeleton)
}

/// A chat line as the table passes it on: trimmed, line breaks and tabs as
/// spaces, other control and format characters dropped; 1 to 500
/// characters once cleaned.
pub fn chat_line(raw: &str) -> Result<String, ErrorCode> {
    let cleaned: String = raw
        .chars()
        .filter_map(|c| match c.general_category() {
            _ if c.is_whitespace() => Some(' '),
            GeneralCategory::Control => None,
            GeneralCategory::Format if c != ZERO_WIDTH_JOINER && c != ZERO_WIDTH_NON_JOINER => None,
            _ => Some(c),
        })
        .collect();
    let line = cleaned.trim();
    if !CHAT_CHARS.contains(&line.chars().count()) {
        return Err(ErrorCode::BadChat);
    }
    Ok(line.to_owned())
}

/// Characters no name may hold: controls, format characters (zero-width
/// spaces and joiners, bidi embeddings, overrides, isolates and marks, the
/// byte-order mark), line and paragraph separators, private-use and
/// unassigned code points.
fn refused_in_names(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
            | GeneralCategory::Surrogate
    )
}

fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

/// Trimmed, each inner run of white space as one space.
fn collapse_white_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zero-width and bidi characters a name must not hide behind, one by one.
    const INVISIBLE: [char; 17] = [
        '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{202A}', '\u{202B}',
        '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        '\u{200E}', '\u{200F}', '\u{061C}',
    ];

    #[test]
    fn names_with_invisible_or_bidi_characters_are_refused() {
        for c in INVISIBLE {
            for name in [format!("Ali{c}ce"), format!("Alice{c}"), format!("{c}Alice")] {
                assert_eq!(parse_name(&name), Err(ErrorCode::BadName), "{name:?}");
            }
        }
        for name in ["a\u{7}b", "Al\tice", "Al\nice", "A\u{2028}B", "A\u{E000}", "A\u{0378}"] {
            assert_eq!(parse_name(name), Err(ErrorCode::BadName), "{name:?}");
        }
    }

    #[test]
    fn names_must_show_something() {
        let long = "x".repeat(33);
        // Combining marks alone or first, white space, a Hangul filler (a
        // letter that shows nothing).
        for name in ["", "   ", &long, "\u{301}\u{301}", "\u{301}Bob", "\u{3164}", "\u{3000}"] {
            assert_eq!(parse_name(name), Err(ErrorCode::BadName), "{name:?}");
        }
        assert_eq!(parse_name("Zoë ♠").as_deref(), Ok("Zoë ♠"));
        assert_eq!(parse_name("Zoe\u{308}").as_deref(), Ok("Zoë"), "composed");
    }

    #[test]
    fn titles_are_names_of_up_to_64_characters() {
        let longest = "x".repeat(64);
        assert_eq!(parse_title(&longest).as_deref(), Ok(longest.as_str()));
        assert_eq!(parse_title(&"x".repeat(65)), Err(ErrorCode::BadName));
        assert_eq!(parse_title("  Friday \t Night ").as_deref().ok(), None, "a tab is refused");
        assert_eq!(parse_title("  Friday  Night ").as_deref(), Ok("Friday Night"));
        for c in INVISIBLE {
            assert_eq!(parse_title(&format!("Cup{c}")), Err(ErrorCode::BadName), "{c:?}");
        }
        assert_eq!(parse_title(&"x".repeat(64 * 4 * 18 + 1)), Err(ErrorCode::BadName));
    }

    #[test]
    fn names_are_nfkc_with_single_inner_spaces() {
        assert_eq!(parse_name("Ａｌｉｃｅ").as_deref(), Ok("Alice"));
        assert_eq!(parse_name("  Ann \u{3000} Lee\u{A0}Jones ").as_deref(), Ok("Ann Lee Jones"));
        assert_eq!(parse_name("ﬁona").as_deref(), Ok("fiona"), "the ligature is two letters");
    }

    #[test]
    fn lookalikes_share_a_key() {
        let alice = name_key("Alice");
        assert_eq!(alice, "alice");
        for lookalike in [
            "alice",
            "ALICE",
            " Alice ",
            "Ａｌｉｃｅ",
            "\u{410}lice",   // a Cyrillic А
            "Alic\u{435}",   // a Cyrillic е
            "A1ice",         // the data maps 1 to l
            "Ali\u{200B}ce", // a skeleton leaves out default-ignorable characters
        ] {
            assert_eq!(name_key(lookalike), alice, "{lookalike:?}");
        }
        // "I" folds to "i" before the skeleton, and "i" is no "l".
        assert_ne!(name_key("AIice"), alice);
        assert_eq!(name_key("B0b"), name_key("Bob"), "0 is O, folded again");
        assert_eq!(name_key("ᏟᎪᏴ"), name_key("cab"), "Cherokee capitals");
        assert_eq!(name_key("Strauß"), name_key("STRAUSS"), "full case folding");
        assert_ne!(name_key("Zoë"), name_key("Zoe"), "an accent is not a lookalike");
        assert_ne!(name_key("Ann Lee"), name_key("AnnLee"));
    }

    #[test]
    fn a_parsed_name_keeps_its_key() {
        for raw in ["Ａｌｉｃｅ", " Ann  Lee ", "Zoe\u{308}", "Élodie"] {
            let name = parse_name(raw).expect("a name");
            assert_eq!(name_key(&name), name_key(raw), "{raw:?}");
        }
    }

    #[test]
    fn chat_lines_are_cleaned_of_controls_and_bidi() {
        assert_eq!(chat_line("  hello ").as_deref(), Ok("hello"));
        assert_eq!(chat_line("red \u{1B}[31mtext\u{7}").as_deref(), Ok("red [31mtext"));
        assert_eq!(chat_line("one\ntwo\r\nthree\tfour").as_deref(), Ok("one two  three four"));
        assert_eq!(chat_line("abc\u{202E}fed\u{2066}x\u{2069}").as_deref(), Ok("abcfedx"));
        for c in INVISIBLE.into_iter().filter(|c| !['\u{200C}', '\u{200D}'].contains(c)) {
            assert_eq!(chat_line(&format!("a{c}b")).as_deref(), Ok("ab"), "{c:?}");
        }
        // Emoji sequences keep their joiner.
        assert_eq!(chat_line("👩\u{200D}💻").as_deref(), Ok("👩\u{200D}💻"));
        for empty in ["", "  ", "\u{202E}\u{200B}", "\u{1B}\n"] {
            assert_eq!(chat_line(empty), Err(ErrorCode::BadChat), "{empty:?}");
        }
        assert_eq!(chat_line(&"x".repeat(501)), Err(ErrorCode::BadChat));
        assert!(chat_line(&format!("{}\u{202E}", "x".repeat(500))).is_ok(), "counted once cleaned");
    }
}
