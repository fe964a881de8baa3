//! The relative-link check: every relative link in the project's markdown points at a file or
//! directory that exists.

use std::path::{Path, PathBuf};

/// A relative link whose target does not exist.
#[derive(Debug, PartialEq, Eq)]
pub struct BrokenLink {
    /// 1-based line of the link in its file.
    pub line: usize,
    /// The link target as written (without a `#fragment`).
    pub target: String,
}

/// The broken relative links of the markdown file `file` whose text is `text`.
pub fn broken_links(file: &Path, text: &str) -> Vec<BrokenLink> {
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (line_index, target) in link_targets(text) {
        let path = target.split('#').next().unwrap_or("");
        if path.is_empty() || !is_relative(path) {
            continue;
        }
        if !dir.join(path).exists() {
            broken.push(BrokenLink {
                line: line_index + 1,
                target: path.to_string(),
            });
        }
    }
    broken
}

/// Whether `target` is a link into the repository rather than a URL or an absolute path.
fn is_relative(target: &str) -> bool {
    !(target.contains("://")
        || target.starts_with("mailto:")
        || target.starts_with('/')
        || target.starts_with('<'))
}

/// Every `(line index, target)` of an inline link or image (`[text](target)`) or a reference
/// definition (`[name]: target`) outside fenced code blocks and code spans.
pub fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let line = without_code_spans(line);
        if let Some(definition) = line.trim_start().strip_prefix('[')
            && let Some((_, target)) = definition.split_once("]:")
        {
            let target = target.split_whitespace().next().unwrap_or("");
            found.push((index, target.to_string()));
            continue;
        }
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push((index, target.to_string()));
            rest = &after[end..];
        }
    }
    found
}

/// `line` with its `` `code` `` spans blanked out.
pub fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The markdown files the checks read: `README.md`, `ARCHITECTURE.md` and `docs/**/*.md`.
pub fn markdown_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut docs = Vec::new();
    files_with_extension(&root.join("docs"), "md", &mut docs)?;
    files.extend(docs);
    Ok(files)
}

/// Every file under `dir` ending in `.ext`, recursively, in a stable order; `target` and hidden
/// directories are skipped.
pub fn files_with_extension(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                files_with_extension(&path, ext, out)?;
            }
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    Ok(())
}
