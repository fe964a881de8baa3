//! `cargo xtask doc-check`: the project's prose checks. It fails if
//!
//! 1. a relative link in `README.md`, `ARCHITECTURE.md` or `docs/**/*.md` points at no file
//!    (`links.rs`);
//! 2. any of those files, or a `//` comment in a `.rs` file under `crates/`, `src/`, `tests/`,
//!    `examples/`, `benches/` or `xtask/`, reads like a work journal: an issue number, the clock
//!    time of a piece of work, a numbered work period (`journal.rs`; STYLE.md, habit 14);
//! 3. `cargo doc` warns, or a page of the `rota` facade shows an unresolved intra-doc link.
//!
//! The first two read files only and run first, so they fail in a second.
//!
//! Why the third goes beyond `RUSTDOCFLAGS="-D warnings"`: rustdoc does not warn when a link in a
//! re-exported item's docs points into a crate whose docs are not (yet) in the output directory —
//! it renders the link's text with its brackets, `[`SplitError`]`. Whether those docs exist
//! depends on the order in which cargo happened to run rustdoc, so the check deletes
//! `target/doc` first and reads the rendered HTML.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod journal;
mod links;

/// Runs the checks from the workspace root `root`.
pub fn run(root: &Path) -> ExitCode {
    match text_checks(root) {
        Ok(0) => println!("doc-check: relative links resolve; no work journal in docs or comments"),
        Ok(problems) => {
            eprintln!("xtask doc-check: {problems} problem(s) in the docs and comments above");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("xtask doc-check: {e}");
            return ExitCode::FAILURE;
        }
    }
    rustdoc_check(root)
}

/// The relative-link and no-work-journal checks; prints each problem and returns how many.
fn text_checks(root: &Path) -> std::io::Result<usize> {
    let mut problems = 0;
    let shown = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    for file in links::markdown_files(root)? {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", shown(&file))))?;
        for link in links::broken_links(&file, &text) {
            eprintln!(
                "{}:{}: link to a missing file: {}",
                shown(&file),
                link.line,
                link.target
            );
            problems += 1;
        }
        for hit in journal::markdown_hits(&text) {
            eprintln!(
                "{}:{}: {} `{}`",
                shown(&file),
                hit.line,
                hit.kind,
                hit.found
            );
            problems += 1;
        }
    }
    let mut sources = Vec::new();
    for dir in ["crates", "src", "tests", "examples", "benches", "xtask"] {
        links::files_with_extension(&root.join(dir), "rs", &mut sources)?;
    }
    for file in sources {
        let text = std::fs::read_to_string(&file)?;
        for hit in journal::rust_hits(&text) {
            eprintln!(
                "{}:{}: {} `{}` in a comment",
                shown(&file),
                hit.line,
                hit.kind,
                hit.found
            );
            problems += 1;
        }
    }
    if problems > 0 {
        eprintln!(
            "(docs describe the present: name the section, test or commit you mean; a genuine \
             time that is not a time of work is allowed by `{}` on its line or alone on the line above)",
            journal::ALLOW_MARKER
        );
    }
    Ok(problems)
}

/// Builds the workspace docs as a fresh clone would and fails if any page of the `rota` facade
/// shows an unresolved intra-doc link.
fn rustdoc_check(root: &Path) -> ExitCode {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let doc_dir = target.join("doc");
    if let Err(e) = std::fs::remove_dir_all(&doc_dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        eprintln!("xtask doc-check: cannot remove {}: {e}", doc_dir.display());
        return ExitCode::FAILURE;
    }
    println!("== RUSTDOCFLAGS=\"-D warnings\" cargo doc --workspace --no-deps (fresh target/doc)");
    let status = Command::new(env!("CARGO"))
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .current_dir(root)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!("xtask doc-check: cargo doc failed ({s})");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("xtask doc-check: could not start cargo: {e}");
            return ExitCode::FAILURE;
        }
    }
    let facade = doc_dir.join("rota");
    let mut pages = Vec::new();
    if let Err(e) = html_files(&facade, &mut pages) {
        eprintln!("xtask doc-check: {}: {e}", facade.display());
        return ExitCode::FAILURE;
    }
    if pages.is_empty() {
        eprintln!("xtask doc-check: no pages under {}", facade.display());
        return ExitCode::FAILURE;
    }
    let mut broken = 0;
    for page in &pages {
        let html = match std::fs::read_to_string(page) {
            Ok(html) => html,
            Err(e) => {
                eprintln!("xtask doc-check: {}: {e}", page.display());
                return ExitCode::FAILURE;
            }
        };
        for link in unresolved_links(&html) {
            let shown = page.strip_prefix(root).unwrap_or(page);
            eprintln!("{}: unresolved link {link}", shown.display());
            broken += 1;
        }
    }
    if broken > 0 {
        eprintln!("xtask doc-check: {broken} unresolved link(s) in the `rota` docs");
        return ExitCode::FAILURE;
    }
    println!(
        "doc-check: {} pages of the `rota` docs, every intra-doc link resolved",
        pages.len()
    );
    ExitCode::SUCCESS
}

/// Every `.html` file under `dir`, recursively, in a stable order.
fn html_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            html_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    Ok(())
}

/// The unresolved intra-doc links rustdoc left in `html`, as they render: `` [`Name`] `` (the
/// code span survives as `[<code>Name</code>]`) or `[Name]` in a paragraph or list item.
/// The page up to its "Blanket Implementations" section. That section lists impls for every `T`
/// from any crate in the build — with the demo's `trace` feature, `tracing`'s `Instrument` and
/// `WithSubscriber`, whose docs link to items rustdoc cannot resolve from rota's pages — so its
/// text is not rota's to fix. rota's own blanket impls are checked on their traits' pages.
fn without_blanket_impls(html: &str) -> &str {
    match html.find(r#"id="blanket-implementations""#) {
        Some(i) => &html[..html[..i].rfind('<').unwrap_or(i)],
        None => html,
    }
}

fn unresolved_links(html: &str) -> Vec<String> {
    let html = without_blanket_impls(html);
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("[<code>") {
        let after = &rest[i + "[<code>".len()..];
        if let Some(end) = after.find("</code>]") {
            let name = &after[..end];
            if is_link_text(name) {
                found.push(format!("[`{name}`]"));
            }
        }
        rest = after;
    }
    for block in prose(html) {
        let text = without_code(block);
        let mut rest = text.as_str();
        while let Some(i) = rest.find('[') {
            let after = &rest[i + 1..];
            if let Some(end) = after.find(']') {
                let name = &after[..end];
                // `[text](url)` that failed would not render; `[Name]` followed by `(` is prose.
                if is_link_text(name) && !after[end + 1..].starts_with('(') {
                    found.push(format!("[{name}]"));
                }
            }
            rest = after;
        }
    }
    found
}

/// Whether `s` looks like an intra-doc link target: a path (`a::B`), optionally with `()`/`!`
/// or a disambiguator (`struct@B`).
fn is_link_text(s: &str) -> bool {
    let core = s.trim_end_matches("()").trim_end_matches('!');
    let core = core.split_once('@').map_or(core, |(_, path)| path);
    !core.is_empty()
        && core.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && core.split("::").all(|seg| {
            !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The contents of every `<p>` and `<li>` element (prose, where a link would render).
fn prose(html: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    for (open, close) in [("<p>", "</p>"), ("<li>", "</li>")] {
        let mut rest = html;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len()..];
            let end = after.find(close).unwrap_or(after.len());
            blocks.push(&after[..end]);
            rest = &after[end..];
        }
    }
    blocks
}

/// `html` with `<code>…</code>` spans and `<a …>…</a>` links (code, and a resolved link's text,
/// may hold `[T]` legally) and every other tag removed.
fn without_code(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        if after.starts_with("<code>") {
            rest = after
                .find("</code>")
                .map_or("", |e| &after[e + "</code>".len()..]);
        } else if after.starts_with("<a ") {
            rest = after
                .find("</a>")
                .map_or("", |e| &after[e + "</a>".len()..]);
        } else {
            rest = after.find('>').map_or("", |e| &after[e + 1..]);
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
