//! # rota
//!
//! *Same world, same systems, same result.* rota is an Entity Component System whose iteration
//! order is part of the contract. This crate re-exports its parts:
//!
//! * [`rota_core`] — entities, ordered sparse-set stores, the [`World`], queries, resources,
//!   [`Commands`], system parameters and the stable checksum;
//! * `rota_macros` — `#[derive(Component)]`, `#[derive(Resource)]`, `#[derive(StableHash)]` and
//!   `#[system]`;
//! * [`rota_schedule`] — the deterministic parallel [`Schedule`].
//!
//! The README (compiled as doc tests below) has the tour; `ARCHITECTURE.md` the map.
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

pub use rota_core::checksum::{StableHash, StableHasher};
pub use rota_core::query;
pub use rota_core::system::{Local, Query, Res, ResMut, System, SystemDescriptor};
pub use rota_core::{
    ApplyReport, Bundle, CommandError, CommandKind, CommandQueue, Commands, Component, Entities,
    EntitiesIter, Entity, EntityNotAlive, Iter, IterMut, QueryAliasError, QueryData, QueryGetError,
    QueryIter, ReadOnlyQueryData, Resource, ResourceError, SpawnError, Store, StoreError, With,
    Without, World, join,
};
pub use rota_macros::{Component, Resource, StableHash, system};
pub use rota_schedule::{
    AuditReport, ParallelQuery, RunReport, Schedule, ScheduleBuilder, ScheduleError,
};
pub use {rota_core, rota_schedule};

/// Paths the macros' generated code uses. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use rota_core::checksum::{StableHash, StableHasher};
    pub use rota_core::query::{ConstAccess, QueryData, find_alias, same_component};
    pub use rota_core::system::{
        AccessKind, Declarable, Reads, System, SystemContext, SystemDescriptor, SystemParam,
        Writes, system_ref,
    };
    pub use rota_core::{Component, Resource};

    /// `TypeId::of`, named here so generated code needs no `std` path.
    pub fn type_id_of<T: 'static>() -> ::core::any::TypeId {
        ::core::any::TypeId::of::<T>()
    }

    /// Fails to compile for a type in `reads(..)`/`writes(..)` that is not a component or
    /// resource (see `Declarable`'s message).
    pub const fn assert_declarable<T: Declarable>() {}

    /// Whether the query type `Q` names a component twice with a `&mut`, in `const`.
    pub const fn query_aliases<Q: QueryData>() -> bool {
        find_alias(&Q::ACCESS).is_some()
    }

    /// Fails to compile, naming this function, for a component that is not
    /// `'static + Send + Sync` (the scheduler hands stores to other threads).
    pub const fn component_must_be_send_sync_static<T: Send + Sync + 'static>() {}

    /// As [`component_must_be_send_sync_static`], for resources.
    pub const fn resource_must_be_send_sync_static<T: Send + Sync + 'static>() {}
}

/// The README's code blocks, compiled and run as doc tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
