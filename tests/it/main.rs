//! rota's integration tests: one binary (links once), one module per area.

mod storage_model;
