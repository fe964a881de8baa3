//! rota's model-based integration tests: random operations on a world, a store, a query or a
//! schedule, compared after every step with an obviously-correct oracle; plus the soak that
//! runs them for minutes (`cargo xtask soak`). The rest of the integration tests are the `it`
//! binary (`tests/it/`).

mod column_handle;
mod hierarchy_model;
mod join_model;
mod one_store_walks;
mod par_model;
mod revive_cases;
mod revive_model;
mod rollback_consumers;
mod saves_model;
mod scene_model;
mod settle_model;
mod snapshot_model;
mod soak;
mod started_queries;
mod storage_model;
mod world_model;

#[path = "../support/mod.rs"]
mod support;
pub(crate) use support::{cases, shrink_iters};
