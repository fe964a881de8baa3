//! What both integration-test binaries (`it`, `model`) share: how many cases a property runs,
//! and how far a failure shrinks. Included by each binary's `main.rs` as `mod support`.

/// Proptest cases for a property: `PROPTEST_CASES` when set (CI or a soak can raise or lower
/// it), else the property's own default.
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Shrink iterations for a property that sets its own budget: `PROPTEST_MAX_SHRINK_ITERS` when
/// set, else `default`. Proptest reads that variable only for configs that leave the field at
/// its default; `cargo xtask mutants` sets it to 0 (no shrinking) because a mutant is caught by
/// the first failing case, and shrinking a 1000-op case took most of a caught mutant's time
/// (up to 90 s of a 95 s test run).
pub(crate) fn shrink_iters(default: u32) -> u32 {
    std::env::var("PROPTEST_MAX_SHRINK_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
