//! Error types of rota-core, one enum or struct per failure, each naming what is at fault.

use crate::entity::Entity;

/// The entity handle is dead: despawned, stale (its slot was reused) or never handed out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entity {0} is not alive (despawned, stale, or from another world)")]
pub struct EntityNotAlive(pub Entity);

/// Why an entity could not be spawned.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpawnError {
    /// Every slot below the limit is alive or retired.
    #[error("no entity slot left: all {limit} slots are alive or retired")]
    SlotsExhausted {
        /// The allocator's slot limit.
        limit: u32,
    },
    /// The slot table could not grow.
    #[error("out of memory while growing the entity slot table")]
    OutOfMemory,
}

/// Why a store operation failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A dense column or sparse page could not grow; the store is unchanged.
    #[error("out of memory while growing a component store; the store is unchanged")]
    OutOfMemory,
}
