//! Compile-time guarantees, pinned by trybuild: one file per rejected construct, named after
//! what it rejects, with its `.stderr` beside it (`pass-*` files must compile and run: pass.rs).
//!
//! Snapshots were blessed with rustc 1.95.0. Regenerate with
//! `TRYBUILD=overwrite cargo test -p rota-ui --test rejections` and read the diff before
//! committing.
//!
//! The toolchain is pinned (`rust-toolchain.toml`, channel "1.95.0") rather than the exact-output
//! comparison gated on the rustc version: the `.stderr` files *are* the user-facing contract
//! (the wording and the span of each refusal), so they should be checked on every run, not only
//! on the machines that happen to have the blessed compiler; a pin also keeps clippy's lint set
//! and rustfmt's output stable for CI. trybuild has no "expect an error, ignore its text" mode, so
//! a gate would have needed a second harness. The cost: a user on another stable gets 1.95.0
//! installed by rustup on first build (nothing is downloaded where it is already installed, as
//! here). Bump the pin, re-bless and read the diff in one commit.
//!
//! The rejections run in a group with no `pass` case: trybuild then only runs `cargo check`, so
//! this test proves every rejection is visible in an editor, not only at `cargo build`. The pass
//! cases are not trybuild cases (pass.rs): a trybuild `pass` group would build every dependency a
//! second time, in full, for a dozen programs the test build compiles anyway.

#[test]
fn ui_rejections_fail_under_cargo_check() {
    let t = trybuild::TestCases::new();
    t.compile_fail("component/[!p]*.rs");
    t.compile_fail("system/[!p]*.rs");
    t.compile_fail("seal/[!p]*.rs");
    t.compile_fail("events/[!p]*.rs");
    t.compile_fail("scene/[!p]*.rs");
}
