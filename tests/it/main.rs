//! rota's integration tests, one module per area: the API's behaviour, the scheduler, systems,
//! the seal, scenes and rollback. The model-based property tests (random operations against an
//! oracle, compared after every step) are the `model` binary (`tests/model/`): two binaries
//! that build side by side on two cores, where one had to be built alone at the end of a
//! cold `cargo test` (docs/testing.md, "Test time").

mod bundle_duplicates;
mod change_detection;
mod change_stamping;
mod checksum_sensitivity;
mod command_buffers;
mod command_runs;
mod component_panics;
mod dead_elements;
mod events;
mod generation_overflow;
mod panic_aftermath;
mod pending_despawns;
mod prefab;
mod queries;
mod rollback;
mod rollback_ghosts;
mod saves;
mod scene;
mod schedule;
mod schedule_conditions;
mod schedule_determinism;
mod schedule_events;
mod schedule_inline_threshold;
mod schedule_nesting;
mod schedule_panics;
mod schedule_profile;
mod schedule_threads;
mod seal;
mod seal_by_hand;
mod settle_through_commands;
mod snapshot_cow;
mod structural_log;
mod systems;
mod world;

#[path = "../support/mod.rs"]
#[allow(dead_code)] // `shrink_iters` is the `model` binary's
mod support;
pub(crate) use support::cases;
