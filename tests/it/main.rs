//! rota's integration tests: one binary (links once), one module per area.

mod join_model;
mod queries;
mod schedule;
mod schedule_determinism;
mod schedule_panics;
mod schedule_profile;
mod schedule_threads;
mod seal;
mod storage_model;
mod systems;
mod ui;
mod world;
mod world_model;
