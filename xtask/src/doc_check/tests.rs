//! Unit tests of `doc_check.rs`.

use super::unresolved_links;

#[test]
fn finds_a_code_link_left_in_brackets() {
    let html = "<p>[<code>SplitError</code>] naming two systems</p>";
    assert_eq!(unresolved_links(html), ["[`SplitError`]"]);
}

#[test]
fn finds_a_plain_link_left_in_brackets() {
    let html = "<li>see [rota_core::World] and [ScheduleBuilder::add()]</li>";
    assert_eq!(
        unresolved_links(html),
        ["[rota_core::World]", "[ScheduleBuilder::add()]"]
    );
}

#[test]
fn ignores_resolved_links_code_and_prose_brackets() {
    let html = concat!(
        "<p><a href=\"struct.World.html\"><code>World</code></a> holds <code>[T]</code>; ",
        "a slice [1, 2] or [a link](x)</p>",
        "<pre class=\"rust\">let v = [x];</pre>",
        "<h4 class=\"code-header\">impl&lt;T&gt; From&lt;[T]&gt;</h4>",
        "<li><a href=\"#impl-StableHash-for-%5BT%5D\" title=\"[T]\">[T]</a></li>"
    );
    assert_eq!(unresolved_links(html), Vec::<String>::new());
}

#[test]
fn ignores_foreign_blanket_impls_but_not_the_page_above_them() {
    let page = r#"<div class="docblock"><p>See [<code>Missing</code>].</p></div>
<h2 id="blanket-implementations" class="section-header">Blanket Implementations</h2>
<div id="blanket-implementations-list"><p>Wraps in a [<code>WithDispatch</code>].</p></div>"#;
    assert_eq!(unresolved_links(page), ["[`Missing`]"]);
}

mod journal {
    use super::super::journal::{markdown_hits, rust_comment, rust_hits};

    fn kinds(hits: &[super::super::journal::JournalHit]) -> Vec<(&'static str, &str)> {
        hits.iter().map(|h| (h.kind, h.found.as_str())).collect()
    }

    #[test]
    fn finds_issue_numbers_in_their_usual_spellings() {
        let text = "Issue #12: the column handle\nsee issue 19, and (#11, #12)\nissues 11, 12\n\
                    the #11 profile, the issue-17 audit\n";
        assert_eq!(
            kinds(&markdown_hits(text)),
            [
                ("issue number", "Issue #12"),
                ("issue number", "issue 19"),
                ("issue number", "#11"),
                ("issue number", "#12"),
                ("issue number", "issues 11"),
                ("issue number", "issue-17"),
                ("issue number", "#11"),
            ]
        );
        // Not an issue: a number after a word, a `#` in code, an attribute.
        let fine = "entity`#0`, `#[derive(Component)]`, color#1, step #two\n";
        assert_eq!(kinds(&markdown_hits(fine)), []);
    }

    #[test]
    fn finds_clock_times_of_work_but_not_ratios_paths_or_code() {
        let text = concat!(
            "profiled at 17:28 UTC, runs 11:24–11:25 and 9:07\n",
            "a 16:9 screen, 1:2, `0:00`, tests/ui/a.rs:15:20, v1.12:30, 123:45\n",
            "```\nlet t = \"12:30\"; // done at 08:15\n```\n",
        );
        assert_eq!(
            kinds(&markdown_hits(text)),
            [
                ("clock time", "17:28"),
                ("clock time", "11:24"),
                ("clock time", "11:25"),
                ("clock time", "9:07"),
                ("clock time", "08:15"),
            ]
        );
    }

    #[test]
    fn finds_numbered_work_periods() {
        let text = "the fifteenth session\nin the second work period, session3 and session 4\n\
                    the 3rd session\na GGRS session, the first pass, the second period\n";
        assert_eq!(
            kinds(&markdown_hits(text)),
            [
                ("numbered work period", "fifteenth session"),
                ("numbered work period", "second work period"),
                ("numbered work period", "session3"),
                ("numbered work period", "session 4"),
                ("numbered work period", "3rd session"),
            ]
        );
    }

    #[test]
    fn the_allow_marker_allows_its_line_and_the_next() {
        let text = "<!-- doc-check: allow -->\nthe match starts at 20:00\nat 21:00 <!-- doc-check: allow -->\nat 22:00\n";
        assert_eq!(kinds(&markdown_hits(text)), [("clock time", "22:00")]);
    }

    #[test]
    fn reads_only_the_comments_of_rust_code() {
        assert_eq!(rust_comment("let url = \"http://x\"; // why"), Some(" why"));
        assert_eq!(rust_comment("let c = '\"'; // why"), Some(" why"));
        assert_eq!(rust_comment("let s = \"// not a comment\";"), None);
        let code = "let stamp = \"10:30\"; // issue #4\n/// Issue #12 says\nfn f() {}\n";
        let hits = rust_hits(code);
        assert_eq!(
            kinds(&hits),
            [("issue number", "issue #4"), ("issue number", "Issue #12")]
        );
        assert_eq!(hits[1].line, 2);
    }
}

mod links {
    use super::super::links::{broken_links, link_targets};
    use std::path::Path;

    #[test]
    fn reads_inline_links_and_images_outside_code() {
        let text = "see [a](docs/a.md#part) and ![c](c.svg \"title\")\n`[x](y.md)`\n```\n[z](z.md)\n```\n\
                    [guide]: docs/guide/01.md \"First steps\"\n";
        let targets: Vec<String> = link_targets(text).into_iter().map(|(_, t)| t).collect();
        assert_eq!(targets, ["docs/a.md#part", "c.svg", "docs/guide/01.md"]);
    }

    #[test]
    fn reports_a_relative_link_to_a_missing_file_and_nothing_else() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let text = "[ok](Cargo.toml) [dir](src) [web](https://example.com/x) [anchor](#top)\n\
                    [gone](docs/missing.md#x)\n";
        let broken = broken_links(&manifest, text);
        assert_eq!(broken.len(), 1);
        assert_eq!(
            (broken[0].line, broken[0].target.as_str()),
            (2, "docs/missing.md")
        );
    }
}
