//! Compile-time guarantees, pinned by trybuild: one file per rejected construct, named after
//! what it rejects, with its `.stderr` beside it; `pass-*` files must compile and run.
//!
//! Snapshots were blessed with rustc 1.95.0 (the one toolchain on our machines). Regenerate with
//! `TRYBUILD=overwrite cargo test --test it ui` and read the diff before committing.
//!
//! The rejections run in a group with no `pass` case: trybuild then only runs `cargo check`, so
//! this test proves every rejection is visible in an editor, not only at `cargo build`.

#[test]
fn ui_rejections_fail_under_cargo_check() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/component/[!p]*.rs");
    t.compile_fail("tests/ui/system/[!p]*.rs");
    t.compile_fail("tests/ui/seal/[!p]*.rs");
}

#[test]
fn ui_pass_cases_compile_and_run() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/component/pass-*.rs");
    t.pass("tests/ui/system/pass-*.rs");
    t.pass("tests/ui/seal/pass-*.rs");
}
