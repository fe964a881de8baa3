//! # rota-core
//!
//! The storage and world of rota, a deterministic Entity Component System.
//!
//! ## Contract
//!
//! * **Order is part of the API.** Every ordered iteration — [`Entities::iter`], [`Store::iter`],
//!   [`Store::iter_mut`] and every query built on them — visits entities in ascending slot order,
//!   whatever the insert/remove history was. Two worlds with the same contents iterate alike.
//! * **Handles are generational.** An [`Entity`] is a 32-bit slot and a 32-bit generation. A
//!   reused slot gets a higher generation, so stale handles report dead; a slot whose generation
//!   would overflow is retired, never wrapped.
//! * **Bad input is an error, not a panic.** Despawning a dead entity, running out of slots and
//!   failed allocations come back as typed errors ([`EntityNotAlive`], [`SpawnError`],
//!   [`StoreError`]).
//! * **Nothing nondeterministic inside.** This crate reads no clock, opens no file, spawns no
//!   thread and never iterates a `HashMap`/`HashSet`; `clippy.toml` enforces it.
//!
//! ## Goals, in order
//!
//! 1. Deterministic results: same operations, same iteration order, same values.
//! 2. Fast traversal: a settled store iterates as a plain slice walk.
//! 3. A small, safe implementation: `#![forbid(unsafe_code)]`; speed comes from data layout.
//!
//! ## Non-goals
//!
//! * Archetype storage. Sparse sets make adding and removing components O(1) and keep this
//!   crate small; multi-component iteration probes instead of walking shared tables.
//! * Detecting handles from another allocator (see [`Entity`]).
//! * Parallel execution: that is `rota-schedule`'s job.
//!
//! ## Example
//!
//! ```
//! use rota_core::{Entities, Store};
//!
//! let mut entities = Entities::new();
//! let mut health = Store::new();
//! for hp in [30, 10, 20] {
//!     let e = entities.spawn()?;
//!     health.insert(e, hp);
//! }
//! let first = entities.iter().next().unwrap();
//! entities.despawn(first)?;
//! health.remove(first);
//! let left: Vec<i32> = health.iter().map(|(_, hp)| *hp).collect();
//! assert_eq!(left, [10, 20]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bundle;
pub mod checksum;
mod commands;
mod component;
mod entity;
mod error;
pub mod query;
mod store;
pub mod system;
mod world;

pub use bundle::Bundle;
pub use commands::{ApplyReport, CommandQueue, Commands};
pub use component::{Component, Resource};
pub use entity::{Entities, EntitiesIter, Entity};
pub use error::{
    CommandError, EntityNotAlive, QueryAliasError, QueryGetError, ResourceError, SpawnError,
    StoreError,
};
pub use query::{QueryData, QueryIter, ReadOnlyQueryData, With, Without};
pub use store::{Iter, IterMut, Store, join};
pub use world::World;
