//! rota's integration tests: one binary (links once), one module per area.

mod checksum_sensitivity;
mod command_buffers;
mod generation_overflow;
mod panic_aftermath;
mod queries;
mod schedule;
mod schedule_determinism;
mod schedule_inline_threshold;
mod soak;
mod storage_model;
mod systems;
mod ui;
mod world;
mod world_model;
