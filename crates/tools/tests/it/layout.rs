//! The layout table in `docs/architecture.md` (its "Layout" section) is the
//! newcomer's map of the tree, so it is checked against the tree: every path
//! it names exists, every module under `crates/*/src` is named in one of its
//! crate's rows, and the rows follow the tree's order.

use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One row of the table: the paths its first cell names (a crate's package
/// name beside its folder is not a path), and every name in backticks
/// anywhere in it.
struct Row {
    paths: Vec<String>,
    names: Vec<String>,
}

fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

fn layout_rows() -> Vec<Row> {
    let doc = fs::read_to_string(root().join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let section =
        doc.split("\n## Layout\n").nth(1).expect("docs/architecture.md has a Layout section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let first_cell = line.split('|').nth(1).unwrap_or_default();
            let paths = backticked(first_cell)
                .into_iter()
                .filter(|name| name.contains('/') || name.contains('.'))
                .collect::<Vec<_>>();
            assert!(!paths.is_empty(), "a layout row whose first cell names no path: {line}");
            Row { paths, names: backticked(line) }
        })
        .collect()
}

/// A path's place in the tree: its components, a file's `.rs` dropped and a
/// folder's `mod.rs` standing for the folder, so a module comes before what
/// it holds.
fn tree_key(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches('/')
        .split('/')
        .map(|part| part.strip_suffix(".rs").unwrap_or(part).to_owned())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn every_path_the_layout_names_exists() {
    let root = root();
    for row in layout_rows() {
        let first = &row.paths[0];
        let folder = Path::new(first).parent().unwrap_or(Path::new(""));
        for path in &row.paths {
            let full =
                if path.contains('/') { root.join(path) } else { root.join(folder).join(path) };
            assert!(full.exists(), "the layout table names {path}, which is not in the tree");
        }
    }
}

#[test]
fn every_module_is_in_its_crates_rows() {
    let root = root();
    let rows = layout_rows();
    let mut missing = Vec::new();
    let crates = fs::read_dir(root.join("crates")).expect("crates/ is readable");
    for krate in crates.flatten().map(|entry| entry.path()) {
        let crate_dir =
            format!("crates/{}", krate.file_name().unwrap_or_default().to_string_lossy());
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|row| {
                let first = row.paths[0].trim_end_matches('/');
                first == crate_dir || first.starts_with(&format!("{crate_dir}/"))
            })
            .collect();
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        for file in files {
            let stem = file.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            if stem == "lib" || stem == "main" {
                continue;
            }
            let module = if stem == "mod" {
                let folder = file.parent().and_then(Path::file_name).unwrap_or_default();
                folder.to_string_lossy().into_owned()
            } else {
                stem
            };
            let named = mine.iter().flat_map(|row| &row.names).any(|name| {
                let name = name.trim_end_matches('/');
                name == module
                    || name.strip_suffix(".rs") == Some(&module)
                    || name.ends_with(&format!("/{module}"))
                    || name.ends_with(&format!("/{module}.rs"))
            });
            if !named {
                missing.push(file.strip_prefix(&root).unwrap_or(&file).display().to_string());
            }
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "modules the layout table does not name: {missing:#?}");
}

#[test]
fn the_rows_follow_the_tree() {
    let rows = layout_rows();
    for pair in rows.windows(2) {
        let (before, after) = (&pair[0].paths[0], &pair[1].paths[0]);
        assert_ne!(
            tree_key(before).cmp(&tree_key(after)),
            Ordering::Greater,
            "the layout table lists {after} after {before}; the tree has it first"
        );
    }
}
