//! # rota
//!
//! *Same world, same systems, same result.* rota is an Entity Component System whose iteration
//! order is part of the contract. This crate re-exports its parts:
//!
//! * [`rota_core`] — entities, ordered sparse-set stores (and, soon, the world and queries);
//! * `rota_macros` — `#[derive(Component)]` and `#[system]`;
//! * [`rota_schedule`] — the deterministic parallel scheduler.
//!
//! ## Non-goals
//!
//! * Wall-clock time anywhere in the simulation path.
//!
//! ```
//! use rota::{Entities, Store};
//!
//! let mut entities = Entities::new();
//! let mut hp = Store::new();
//! let e = entities.spawn()?;
//! hp.insert(e, 10u32);
//! assert_eq!(hp.get(e), Some(&10));
//! # Ok::<(), rota::SpawnError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use rota_core::query;
pub use rota_core::{
    ApplyReport, Bundle, CommandError, CommandQueue, Commands, Component, Entities, EntitiesIter,
    Entity, EntityNotAlive, Iter, IterMut, QueryAliasError, QueryData, QueryGetError, QueryIter,
    ReadOnlyQueryData, Resource, ResourceError, SpawnError, Store, StoreError, With, Without,
    World, join,
};
pub use rota_macros::{Component, Resource};
pub use {rota_core, rota_schedule};

/// Paths the macros' generated code uses. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use rota_core::{Component, Resource};

    /// Fails to compile, naming this function, for a component that is not
    /// `'static + Send + Sync` (the scheduler hands stores to other threads).
    pub const fn component_must_be_send_sync_static<T: Send + Sync + 'static>() {}

    /// As [`component_must_be_send_sync_static`], for resources.
    pub const fn resource_must_be_send_sync_static<T: Send + Sync + 'static>() {}
}
