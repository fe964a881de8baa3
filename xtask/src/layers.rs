//! `cargo xtask layers`: rota-core's layers run one way. Every `crate::…` path (in `use` lines,
//! `use crate::{…}` groups and paths written in code) and every `super::…` path of every
//! rota-core source file is mapped to the layer of the module it names; a path from a file to a
//! module of a higher layer fails the check.
//!
//! The layers, from the ground up (`LAYERS`, longest module prefix wins):
//!
//! 1. vocabulary that never names `World`: entities, ticks, errors, stable hashing, components
//!    and their snapshot policy, the store and its columns, `InlineVec`, `ReadAhead`;
//! 2. the world: `world/`, its snapshot and checksum, bundles (the `Bundle` trait registers
//!    its stores in a `World`);
//! 3. queries, commands, events, the hierarchy, prefabs, and the access markers they are
//!    checked against;
//! 4. systems;
//! 5. the crate root (`lib.rs`), which re-exports the public paths.
//!
//! Unit tests may reach up (a store test may build a `World`): `tests.rs` files, files under a
//! `tests/` folder and inline
//! `#[cfg(test)] mod … {` blocks (the rest of the file after them) are not read. Comments are
//! not read either (a doc link is not an import). A path to a crate-root name (`crate::World`)
//! counts as the root's layer, so library code names the defining module instead.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Module path prefix → layer. A module not listed here fails the check, so a new module is
/// given its layer when it is added.
const LAYERS: &[(&str, u8)] = &[
    ("entity", 1),
    ("tick", 1),
    ("error", 1),
    ("stable_hash", 1),
    ("snapshot_policy", 1),
    ("component", 1),
    ("store", 1),
    ("inline_vec", 1),
    ("read_ahead", 1),
    ("unwind", 1),
    ("const_text", 1),
    ("sequence", 1),
    ("world", 2),
    ("bundle", 2),
    ("checksum", 2),
    ("snapshot", 2),
    ("access_markers", 3),
    ("query", 3),
    ("commands", 3),
    ("event", 3),
    ("hierarchy", 3),
    ("prefab", 3),
    ("system", 4),
    ("", 5),
];

const LAYER_NAMES: [&str; 6] = [
    "",
    "vocabulary",
    "world",
    "queries and commands",
    "systems",
    "crate root",
];

/// One path from a file to a module of a higher layer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BackArrow {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) path: String,
    pub(crate) from: u8,
    pub(crate) to: u8,
}

pub(crate) fn run(root: &Path) -> ExitCode {
    let src = root.join("crates/rota-core/src");
    let mut files = Vec::new();
    collect_rs(&src, &mut files);
    files.sort();
    let mut failed = false;
    let mut arrows = 0usize;
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("xtask layers: cannot read {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        match check_file(&rel, &text) {
            Ok((count, back)) => {
                arrows += count;
                for b in back {
                    failed = true;
                    eprintln!(
                        "crates/rota-core/src/{}:{}: `{}` runs from layer {} ({}) up to layer {} ({})",
                        b.file,
                        b.line,
                        b.path,
                        b.from,
                        LAYER_NAMES[b.from as usize],
                        b.to,
                        LAYER_NAMES[b.to as usize]
                    );
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("crates/rota-core/src/{rel}: {e}");
            }
        }
    }
    if failed {
        eprintln!("xtask layers: rota-core's layers must run one way (see ARCHITECTURE.md)");
        ExitCode::FAILURE
    } else {
        println!(
            "xtask layers: {} files, {arrows} crate paths, none runs up a layer",
            files.len()
        );
        ExitCode::SUCCESS
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`store/mod.rs` → `["store"]`, `lib.rs` → `[]`).
fn module_of(rel: &str) -> Vec<String> {
    let trimmed = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The layer of a module path: the longest listed prefix.
fn layer_of(module: &[String]) -> Result<u8, String> {
    let mut best: Option<(usize, u8)> = None;
    for &(prefix, layer) in LAYERS {
        let segments: Vec<&str> = if prefix.is_empty() {
            Vec::new()
        } else {
            prefix.split("::").collect()
        };
        let matches = segments.len() <= module.len()
            && segments.iter().zip(module).all(|(a, b)| *a == b.as_str());
        if matches && best.is_none_or(|(len, _)| segments.len() > len) {
            best = Some((segments.len(), layer));
        }
    }
    match best {
        Some((0, _)) if !module.is_empty() && module[0].starts_with(char::is_lowercase) => {
            Err(format!(
                "module `{}` has no layer in xtask's LAYERS",
                module.join("::")
            ))
        }
        Some((_, layer)) => Ok(layer),
        None => Err(format!("module `{}` has no layer", module.join("::"))),
    }
}

/// Checks one file: the number of crate paths read, and those that run up a layer.
pub(crate) fn check_file(rel: &str, text: &str) -> Result<(usize, Vec<BackArrow>), String> {
    if rel.ends_with("tests.rs") || rel.starts_with("tests/") || rel.contains("/tests/") {
        return Ok((0, Vec::new()));
    }
    let here = module_of(rel);
    let from = layer_of(&here)?;
    let mut back = Vec::new();
    let mut count = 0;
    let lines: Vec<&str> = text.lines().collect();
    let code: Vec<String> = lines.iter().map(|l| strip_comment(l)).collect();
    let mut i = 0;
    while i < code.len() {
        let line = code[i].trim();
        if line == "#[cfg(test)]" {
            let next = code[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty());
            if next.is_some_and(|l| l.starts_with("mod ") && l.ends_with('{')) {
                break;
            }
        }
        // A `use crate::…{…}` group may span lines: read to its closing brace.
        let mut stmt = code[i].clone();
        let start = i;
        if stmt.contains("crate::") || stmt.contains("super::") {
            while depth(&stmt) > 0 && i + 1 < code.len() {
                i += 1;
                stmt.push(' ');
                stmt.push_str(&code[i]);
            }
        }
        for path in paths_in(&stmt, &here) {
            count += 1;
            let to = layer_of(&path)?;
            if to > from {
                back.push(BackArrow {
                    file: rel.to_owned(),
                    line: start + 1,
                    path: format!("crate::{}", path.join("::")),
                    from,
                    to,
                });
            }
        }
        i += 1;
    }
    Ok((count, back))
}

fn depth(s: &str) -> i32 {
    s.chars().fold(0, |d, c| match c {
        '{' => d + 1,
        '}' => d - 1,
        _ => d,
    })
}

/// The line without its `//` comment (doc comments included); string literals are not parsed,
/// so a `//` inside one cuts the line short, which only loses paths after it.
fn strip_comment(line: &str) -> String {
    match line.find("//") {
        Some(at) => line[..at].to_owned(),
        None => line.to_owned(),
    }
}

/// Every module path named by `crate::…` or `super::…` in `stmt`, as absolute module paths
/// (the trailing item name included; `layer_of` takes the longest listed prefix).
fn paths_in(stmt: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = stmt.as_bytes();
    let mut at = 0;
    while at < stmt.len() {
        let rest = &stmt[at..];
        let (base, skip) = if rest.starts_with("crate::") && boundary(bytes, at) {
            (Some(Vec::new()), "crate::".len())
        } else if rest.starts_with("super::") && boundary(bytes, at) {
            // `super::super::x` climbs once per `super`.
            let mut base = here.to_vec();
            let mut skip = 0;
            while stmt[at + skip..].starts_with("super::") {
                base.pop();
                skip += "super::".len();
            }
            (Some(base), skip)
        } else {
            (None, 1)
        };
        if let Some(base) = base {
            let tail = &stmt[at + skip..];
            expand(&base, tail, &mut out);
        }
        at += skip;
    }
    out
}

fn boundary(bytes: &[u8], at: usize) -> bool {
    at == 0
        || !(bytes[at - 1].is_ascii_alphanumeric()
            || bytes[at - 1] == b'_'
            || bytes[at - 1] == b':')
}

/// Expands `a::b::{c, d::e}` (after a `crate::`/`super::`) into full paths.
fn expand(base: &[String], tail: &str, out: &mut Vec<Vec<String>>) {
    let mut path = base.to_vec();
    let mut rest = tail;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            for item in split_group(group) {
                if !item.trim().is_empty() {
                    expand(&path, item.trim(), out);
                }
            }
            return;
        }
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        if ident != "self" {
            path.push(ident.clone());
        }
        rest = &rest[ident.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The top-level comma-separated items of a `{…}` group (without the closing brace).
fn split_group(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut level = 0;
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => level += 1,
            '}' if level == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => level -= 1,
            ',' if level == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_naming_the_world_runs_up() {
        let (_, back) = check_file("store/mod.rs", "use crate::world::World;\n").unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].from, back[0].to), (1, 2));
    }

    #[test]
    fn groups_and_super_paths_are_read() {
        let text = "use crate::{entity::Entity,\n    system::{ReadOf, WriteOf}};\nuse super::join::Plan;\n";
        let (count, back) = check_file("query/fetch.rs", text).unwrap();
        assert_eq!(count, 4);
        assert_eq!(back.len(), 2, "{back:?}");
        assert!(back.iter().all(|b| b.path.starts_with("crate::system")));
    }

    #[test]
    fn a_group_spanning_lines_is_read_to_its_end() {
        let text = "use crate::{\n    store::Store,\n    query::{\n        Borrows,\n    },\n};\n";
        let (count, back) = check_file("world/mod.rs", text).unwrap();
        assert_eq!(count, 2);
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(back[0].path, "crate::query::Borrows");
    }

    #[test]
    fn paths_in_code_are_read_and_comments_are_not() {
        let text = "/// see [`World`](crate::world::World)\nfn f() { crate::system::run(); }\n";
        let (count, back) = check_file("tick.rs", text).unwrap();
        assert_eq!(count, 1);
        assert_eq!(back[0].path, "crate::system::run");
    }

    #[test]
    fn inline_test_modules_and_test_files_may_reach_up() {
        let text = "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::world::World;\n}\n";
        assert!(check_file("tick.rs", text).unwrap().1.is_empty());
        assert!(
            check_file("store/tests.rs", "use crate::world::World;")
                .unwrap()
                .1
                .is_empty()
        );
    }

    #[test]
    fn an_unlisted_module_is_refused() {
        assert!(check_file("physics.rs", "fn f() {}").is_err());
    }
}
