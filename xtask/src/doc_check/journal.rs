//! The "no work journal" check: docs and code comments describe the present, so none of them
//! names an issue number, the clock time a piece of work was done at, or a numbered work period
//! (STYLE.md, habit 14). Name the section, test or commit you mean instead.
//!
//! What is read: in markdown, prose with its code spans blanked out, and only the `//` comments
//! of fenced code blocks; in `.rs` files, the `//` comments (`//`, `///`, `//!`), again without
//! code spans. Code and string literals are never read, so test data (a timestamp, an entity
//! printed as `#0`) is not a hit.
//!
//! A genuine time that is not the time of a piece of work (a clock shown in a game, say) is
//! allowed by writing `doc-check: allow` on the same line, or alone on the line above it, in a
//! comment (`<!-- doc-check: allow -->` in markdown, `// doc-check: allow` in Rust).

use super::links::without_code_spans;

/// The marker that allows a line (written on it, or alone on the line above).
pub const ALLOW_MARKER: &str = "doc-check: allow";

/// Whether `line` holds the allow marker and nothing else but comment syntax.
fn is_marker_line(line: &str) -> bool {
    let line = line.trim();
    let line = line.strip_prefix("<!--").unwrap_or(line);
    let line = line.strip_suffix("-->").unwrap_or(line);
    let line = line.trim_start_matches('/').trim();
    line == ALLOW_MARKER
}

/// One line that reads like a work journal.
#[derive(Debug, PartialEq, Eq)]
pub struct JournalHit {
    /// 1-based line number.
    pub line: usize,
    /// What was found: "issue number", "clock time" or "numbered work period".
    pub kind: &'static str,
    /// The text that matched.
    pub found: String,
}

/// The journal hits in a markdown file's text.
pub fn markdown_hits(text: &str) -> Vec<JournalHit> {
    let mut hits = Vec::new();
    let mut in_fence = false;
    let mut previous = "";
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            previous = line;
            continue;
        }
        let read = if in_fence {
            rust_comment(line).map(without_code_spans)
        } else {
            Some(without_code_spans(line))
        };
        if let Some(read) = read
            && !line.contains(ALLOW_MARKER)
            && !is_marker_line(previous)
        {
            hits.extend(line_hits(index + 1, &read));
        }
        previous = line;
    }
    hits
}

/// The journal hits in the comments of a Rust source file's text.
pub fn rust_hits(text: &str) -> Vec<JournalHit> {
    let mut hits = Vec::new();
    let mut previous = "";
    for (index, line) in text.lines().enumerate() {
        if let Some(comment) = rust_comment(line)
            && !line.contains(ALLOW_MARKER)
            && !is_marker_line(previous)
        {
            hits.extend(line_hits(index + 1, &without_code_spans(comment)));
        }
        previous = line;
    }
    hits
}

/// The `//` comment of a line of Rust, if it has one: the text after the first `//` that is not
/// inside a string or char literal and not part of a URL's `://`.
pub fn rust_comment(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                // A char literal such as '"' must not open a string.
                b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
                b'/' if bytes.get(i + 1) == Some(&b'/') && (i == 0 || bytes[i - 1] != b':') => {
                    return Some(&line[i + 2..]);
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The hits in one line of prose (code spans already blanked).
pub fn line_hits(line: usize, text: &str) -> Vec<JournalHit> {
    let mut hits = Vec::new();
    let mut push = |kind, found: String| hits.push(JournalHit { line, kind, found });
    for found in issue_numbers(text) {
        push("issue number", found);
    }
    for found in clock_times(text) {
        push("clock time", found);
    }
    for found in work_periods(text) {
        push("numbered work period", found);
    }
    hits
}

/// `Issue #12`, `issue 12`, `issue-12`, `issues 11, 12`, `PR #3`, `(#11)`, `the #11 profile`.
fn issue_numbers(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut found = Vec::new();
    for word in ["issues", "issue", "pr", "pull request"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word) {
            let start = from + at;
            from = start + word.len();
            if start > 0 && b[start - 1].is_ascii_alphanumeric() {
                continue;
            }
            let mut i = start + word.len();
            if word == "issue" && b.get(i) == Some(&b's') {
                continue; // counted as "issues"
            }
            while matches!(b.get(i), Some(b' ' | b'-')) {
                i += 1;
            }
            let hash = b.get(i) == Some(&b'#');
            if hash {
                i += 1;
            }
            // Without `#` only after the word issue(s): `PR 12` alone is too loose.
            if (hash || word.starts_with("issue")) && b.get(i).is_some_and(u8::is_ascii_digit) {
                let end = digits_end(b, i);
                found.push(text[start..end].to_string());
            }
        }
    }
    // A bare `#12` in prose: after a space, a `(` or a `[`, or at the start of the text.
    for (hash, _) in text.match_indices('#') {
        let after_word = hash == 0 || matches!(b[hash - 1], b' ' | b'\t' | b'(' | b'[');
        let before = lower[..hash].trim_end_matches([' ', '-']);
        let counted = ["issue", "issues", "pr", "pull request"]
            .iter()
            .any(|w| before.ends_with(w));
        if after_word && !counted && b.get(hash + 1).is_some_and(u8::is_ascii_digit) {
            found.push(text[hash..digits_end(b, hash + 1)].to_string());
        }
    }
    found
}

/// `HH:MM` (or `H:MM`) with a valid hour and minute, not part of a longer number, a version, a
/// path's `file:line:column` or a ratio like `16:9`.
fn clock_times(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    for (colon, _) in text.match_indices(':') {
        // One or two hour digits before the colon.
        let mut start = colon;
        while start > 0 && colon - start < 3 && b[start - 1].is_ascii_digit() {
            start -= 1;
        }
        let hour_digits = colon - start;
        if hour_digits == 0 || hour_digits > 2 {
            continue;
        }
        if start > 0
            && matches!(
                b[start - 1],
                b'0'..=b'9' | b':' | b'.' | b'/' | b'#' | b'-' | b'_'
            )
        {
            continue;
        }
        if start > 0 && b[start - 1].is_ascii_alphabetic() {
            continue;
        }
        let (m1, m2) = (b.get(colon + 1), b.get(colon + 2));
        let minutes = match (m1, m2) {
            (Some(m1), Some(m2)) if m1.is_ascii_digit() && m2.is_ascii_digit() => {
                (m1 - b'0') * 10 + (m2 - b'0')
            }
            _ => continue,
        };
        if b.get(colon + 3).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let hour: u32 = text[start..colon].parse().unwrap_or(99);
        if hour <= 23 && minutes <= 59 {
            found.push(text[start..colon + 3].to_string());
        }
    }
    found
}

const ORDINALS: [&str; 20] = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
];

/// `fifteenth session`, `second work period`, `3rd session`, `session 4`, `session4`.
fn work_periods(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut word_start = None;
    for (i, c) in lower.char_indices() {
        if c.is_ascii_alphanumeric() {
            word_start.get_or_insert(i);
        } else if let Some(s) = word_start.take() {
            words.push((s, &lower[s..i]));
        }
    }
    if let Some(s) = word_start {
        words.push((s, &lower[s..]));
    }
    let is_ordinal = |w: &str| {
        ORDINALS.contains(&w)
            || (w.len() > 2
                && w[..w.len() - 2].bytes().all(|c| c.is_ascii_digit())
                && ["st", "nd", "rd", "th"].contains(&&w[w.len() - 2..]))
    };
    let mut found = Vec::new();
    for (k, &(start, word)) in words.iter().enumerate() {
        let next = words.get(k + 1).map(|w| w.1);
        let after = words.get(k + 2).map(|w| w.1);
        let end_of = |k: usize| words[k].0 + words[k].1.len();
        if is_ordinal(word) {
            if next == Some("session") || next == Some("sitting") {
                found.push(text[start..end_of(k + 1)].to_string());
            } else if next == Some("work") && after == Some("period") {
                found.push(text[start..end_of(k + 2)].to_string());
            }
        }
        if word == "session" && next.is_some_and(|n| n.bytes().all(|c| c.is_ascii_digit())) {
            found.push(text[start..end_of(k + 1)].to_string());
        }
        if let Some(n) = word.strip_prefix("session")
            && !n.is_empty()
            && n.bytes().all(|c| c.is_ascii_digit())
        {
            found.push(text[start..end_of(k)].to_string());
        }
    }
    found
}

fn digits_end(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}
