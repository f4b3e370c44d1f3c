//! Fuzzing on stable Rust, with proptest: inputs made from a seed corpus
//! (kept in `corpus/`, and the EGN fixtures) by small edits, and arbitrary
//! bytes and JSON besides. proptest runs each target a bounded number of
//! times, catches any panic, and shrinks a failing input to a small one to
//! print. The targets are in `tests/it/fuzz.rs`; `FUZZ_SCALE=10` runs ten times
//! as many cases.
//!
//! cargo-fuzz (libFuzzer) needs a nightly compiler and gives coverage
//! guidance; this harness trades that for running in `cargo test` on
//! stable, in CI, every time.

use std::cell::Cell;
use std::time::Instant;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseResult, TestRunner};
use serde_json::Value;

/// The client frames the corpus starts from, one JSON object a line;
/// `$TABLE` and `$TOKEN` stand for a real table id and token.
pub const CLIENT_FRAMES: &str = include_str!("../corpus/client.jsonl");

/// The corpus's client frames.
pub fn client_frames() -> Vec<String> {
    CLIENT_FRAMES.lines().filter(|line| !line.trim().is_empty()).map(str::to_owned).collect()
}

/// Runs `test` on `cases` inputs from `strategy` (times `FUZZ_SCALE`),
/// prints how many executions it made, and fails with the smallest failing
/// input proptest finds.
pub fn fuzz<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> TestCaseResult,
) {
    let scale = std::env::var("FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let config = Config {
        cases: cases.saturating_mul(scale),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let executions = Cell::new(0u64);
    let started = Instant::now();
    let result = runner.run(&strategy, |input| {
        executions.set(executions.get() + 1);
        test(input)
    });
    println!("fuzz {name}: {} executions in {:.1?}", executions.get(), started.elapsed());
    if let Err(failure) = result {
        panic!("fuzz {name}: {failure}");
    }
}

/// One edit to a text.
#[derive(Clone, Debug)]
enum Edit {
    Replace(Index, char),
    Delete(Index, usize),
    Insert(Index, String),
    /// A piece of another seed, put in at a place.
    Splice {
        at: Index,
        seed: Index,
        from: Index,
        len: usize,
    },
    Truncate(Index),
}

/// Characters that matter to JSON and to the notations inside it.
const INTERESTING: &[char] = &[
    '{', '}', '[', ']', '"', ':', ',', '\\', '-', '.', 'e', '0', '9', ' ', '\n', '\u{0}', 'é', '♠',
];

fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![3 => proptest::sample::select(INTERESTING), 1 => any::<char>()]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), any_char()).prop_map(|(at, c)| Edit::Replace(at, c)),
        (any::<Index>(), 1usize..16).prop_map(|(at, len)| Edit::Delete(at, len)),
        (any::<Index>(), proptest::collection::vec(any_char(), 1..8))
            .prop_map(|(at, chars)| Edit::Insert(at, chars.into_iter().collect())),
        (any::<Index>(), any::<Index>(), any::<Index>(), 1usize..64)
            .prop_map(|(at, seed, from, len)| Edit::Splice { at, seed, from, len }),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edit: &Edit, seeds: &[String]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let place = |at: &Index, len: usize| if len == 0 { 0 } else { at.index(len + 1) };
    match edit {
        Edit::Replace(at, c) if !chars.is_empty() => {
            let at = at.index(chars.len());
            chars[at] = *c;
        }
        Edit::Replace(..) => {}
        Edit::Delete(at, len) => {
            let at = place(at, chars.len()).min(chars.len());
            let end = (at + len).min(chars.len());
            chars.drain(at..end);
        }
        Edit::Insert(at, piece) => {
            let at = place(at, chars.len()).min(chars.len());
            chars.splice(at..at, piece.chars());
        }
        Edit::Splice { at, seed, from, len } => {
            let other: Vec<char> = seeds[seed.index(seeds.len())].chars().collect();
            let start = place(from, other.len()).min(other.len());
            let piece = &other[start..(start + len).min(other.len())];
            let at = place(at, chars.len()).min(chars.len());
            chars.splice(at..at, piece.iter().copied());
        }
        Edit::Truncate(at) => chars.truncate(place(at, chars.len())),
    }
    chars.into_iter().collect()
}

/// Texts made from `seeds`: a seed as it is, a seed with one to eight
/// edits, or any text at all.
pub fn mutated_text(seeds: Vec<String>) -> BoxedStrategy<String> {
    assert!(!seeds.is_empty(), "a corpus to start from");
    let count = seeds.len();
    let edited =
        (0..count, proptest::collection::vec(edit(), 1..8)).prop_map(move |(seed, edits)| {
            edits.iter().fold(seeds[seed].clone(), |text, edit| apply(&text, edit, &seeds))
        });
    prop_oneof![6 => edited, 1 => ".{0,64}"].boxed()
}

/// JSON values, including the awkward ones: huge and negative numbers,
/// floats, long strings, nesting.
pub fn any_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-zA-Z0-9_ ]{0,12}".prop_map(Value::String),
        proptest::sample::select(vec!["Jc", "JK", "10h", "pass", "play", "standard", "x"])
            .prop_map(|s| Value::String(s.to_owned())),
        (0usize..6000).prop_map(|n| Value::String("a".repeat(n))),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
    .boxed()
}

/// JSON objects from `seeds` with one field replaced by any JSON, removed,
/// or added: mostly well-formed, often the wrong shape.
pub fn mutated_json(seeds: Vec<String>) -> BoxedStrategy<String> {
    let values: Vec<Value> = seeds.iter().filter_map(|s| serde_json::from_str(s).ok()).collect();
    assert!(!values.is_empty(), "JSON seeds");
    let count = values.len();
    (0..count, any::<Index>(), "[a-z_]{1,12}", any_json(), 0..3u8)
        .prop_map(move |(seed, field, name, value, how)| {
            let mut object = values[seed].clone();
            if let Some(map) = object.as_object_mut() {
                let keys: Vec<String> = map.keys().cloned().collect();
                let key = if keys.is_empty() {
                    name.clone()
                } else {
                    keys[field.index(keys.len())].clone()
                };
                match how {
                    0 => {
                        map.insert(key, value);
                    }
                    1 => {
                        map.remove(&key);
                    }
                    _ => {
                        map.insert(name, value);
                    }
                }
            }
            object.to_string()
        })
        .boxed()
}
