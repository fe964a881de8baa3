//! rota's integration tests: one binary (links once), one module per area.

mod queries;
mod storage_model;
mod systems;
mod ui;
mod world;
mod world_model;
