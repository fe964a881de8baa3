//! rota's integration tests: one binary (links once), one module per area.

mod checksum_sensitivity;
mod command_buffers;
mod generation_overflow;
mod hierarchy_model;
mod join_model;
mod panic_aftermath;
mod prefab;
mod queries;
mod scene;
mod scene_model;
mod schedule;
mod schedule_determinism;
mod schedule_inline_threshold;
mod schedule_panics;
mod schedule_profile;
mod schedule_threads;
mod seal;
mod soak;
mod storage_model;
mod systems;
mod ui;
mod world;
mod world_model;
