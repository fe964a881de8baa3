//! Compile-time guarantees, pinned by trybuild: one file per rejected construct, named after
//! what it rejects, with its `.stderr` beside it; `pass-*` files must compile.
//!
//! Snapshots were blessed with rustc 1.95.0 (the one toolchain on our machines). Regenerate with
//! `TRYBUILD=overwrite cargo test --test it ui` and read the diff before committing.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/component/pass-*.rs");
    t.compile_fail("tests/ui/component/[!p]*.rs");
}
