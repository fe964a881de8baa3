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
