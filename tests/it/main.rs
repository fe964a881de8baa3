//! rota's integration tests: one binary (links once), one module per area.

mod change_detection;
mod change_stamping;
mod checksum_sensitivity;
mod column_handle;
mod command_buffers;
mod command_runs;
mod dead_elements;
mod events;
mod generation_overflow;
mod hierarchy_model;
mod join_model;
mod one_store_walks;
mod panic_aftermath;
mod par_model;
mod pending_despawns;
mod prefab;
mod queries;
mod revive_cases;
mod revive_model;
mod rollback;
mod scene;
mod scene_model;
mod schedule;
mod schedule_determinism;
mod schedule_events;
mod schedule_inline_threshold;
mod schedule_nesting;
mod schedule_panics;
mod schedule_profile;
mod schedule_threads;
mod seal;
mod seal_by_hand;
mod settle_model;
mod settle_through_commands;
mod snapshot_cow;
mod snapshot_model;
mod soak;
mod started_queries;
mod storage_model;
mod structural_log;
mod systems;
mod world;
mod world_model;

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
