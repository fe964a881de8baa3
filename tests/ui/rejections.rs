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
//! second time, in full, for a dozen programs the test build compiles anyway. The one exception
//! is `bundle/`, whose refusals only `cargo build` reports
//! (`ui_bundle_rejections_fail_under_cargo_build`).

#[test]
fn ui_rejections_fail_under_cargo_check() {
    let t = trybuild::TestCases::new();
    t.compile_fail("component/[!p]*.rs");
    t.compile_fail("system/[!p]*.rs");
    t.compile_fail("condition/[!p]*.rs");
    t.compile_fail("seal/[!p]*.rs");
    t.compile_fail("events/[!p]*.rs");
    t.compile_fail("scene/[!p]*.rs");
}

/// A bundle naming one component type twice (`bundle/`) is refused by a `const` evaluated when
/// the generic entry point taking it (`World::spawn_with`, `Prefab::new`, `Commands::spawn`…) is
/// instantiated for its type: a post-monomorphization error, which `cargo build` reports and
/// `cargo check` does not. So this group holds a `pass` case, which makes trybuild build
/// instead of check (every dependency a second time, in build mode: the price of pinning these
/// messages). An editor running `cargo check` does not show these errors.
#[test]
fn ui_bundle_rejections_fail_under_cargo_build() {
    let t = trybuild::TestCases::new();
    t.compile_fail("bundle/[!p]*.rs");
    t.pass("bundle/pass-*.rs");
}

/// The snapshots are only meaningful on the compiler they were blessed with. trybuild's cargo
/// runs the `rustc` this environment selects (`rust-toolchain.toml`, unless an override such as
/// `RUSTUP_TOOLCHAIN` wins); if that is not the pinned one, say so here, in one line, rather than
/// as a wall of `.stderr` mismatches.
#[test]
fn ui_snapshots_run_on_the_pinned_toolchain() {
    let pin = include_str!("../../rust-toolchain.toml");
    let channel = pin
        .lines()
        .find_map(|line| line.trim().strip_prefix("channel = "))
        .expect("rust-toolchain.toml names a channel")
        .trim_matches('"');
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.starts_with(&format!("rustc {channel} ")),
        "the ui snapshots were blessed with rustc {channel} (rust-toolchain.toml), this is \
         `{}`: run under the pin, or bump it and re-bless (`TRYBUILD=overwrite cargo test -p \
         rota-ui --test rejections`) reading the diff",
        version.trim()
    );
}
