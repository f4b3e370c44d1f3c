//! The operator's word list (`moderation.word_list`): words no name and no
//! chat line may hold. Each word and each text is compared by its name key
//! ([`name_key`]: case-folded, lookalike letters as one) with its spaces
//! taken out, and a word matches anywhere in the text, so "B a D", "bAd"
//! and "Ьаd" (Cyrillic) are all "bad". Matching inside words is the
//! operator's choice to make in the list: it has no exceptions.

use std::path::Path;

use anyhow::Context;

use crate::text::name_key;

/// The words, as compared. Empty: nothing is refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordList {
    keys: Vec<String>,
}

impl WordList {
    /// The list in `path`; an empty path is no list.
    pub fn load(path: &Path) -> anyhow::Result<WordList> {
        if path.as_os_str().is_empty() {
            return Ok(WordList::default());
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the word list {}", path.display()))?;
        Ok(WordList::new(text.lines()))
    }

    /// The list of `words` (lines: `#` starts a comment, blank lines skip).
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> WordList {
        let keys = words
            .into_iter()
            .map(|line| line.split('#').next().unwrap_or_default())
            .map(compared)
            .filter(|key| !key.is_empty())
            .collect();
        WordList { keys }
    }

    /// Whether `text` holds a word of the list.
    pub fn blocks(&self, text: &str) -> bool {
        if self.keys.is_empty() {
            return false;
        }
        let text = compared(text);
        self.keys.iter().any(|key| text.contains(key.as_str()))
    }
}

fn compared(text: &str) -> String {
    name_key(text).chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_as_names_compare_anywhere_in_the_text() {
        let list = WordList::new(["# a comment", "", "badword", "  worse  # why"]);
        let blocked = ["BadWord", "b a d  w o r d", "Ｂａｄｗｏｒｄ", "a badwordy name", "wor se"];
        for text in blocked {
            assert!(list.blocks(text), "{text:?}");
        }
        for text in ["good", "bad", "a comment", "why"] {
            assert!(!list.blocks(text), "{text:?}");
        }
        assert!(!WordList::default().blocks("anything"));
    }
}
