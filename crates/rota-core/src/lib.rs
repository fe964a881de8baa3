//! # rota-core
//!
//! The storage and world of rota, a deterministic Entity Component System.
//!
//! ## Contract
//!
//! * **Order is part of the API.** Every ordered iteration — [`Entities::iter`], [`Store::iter`],
//!   [`Store::iter_mut`] and every query ([`World::query`], [`World::query_mut`], system
//!   [`Query`](system::Query) parameters) — visits entities in ascending slot order, whatever the
//!   insert/remove history was. Two worlds with the same contents iterate alike.
//! * **Handles are generational.** An [`Entity`] is a 32-bit slot and a 32-bit generation. A
//!   reused slot gets a higher generation, so stale handles report dead; a slot whose generation
//!   would overflow is retired, never wrapped.
//! * **Declared access is enforced by types, and sealed.** A system's parameters only reach the
//!   stores and resources its marker type `Reads`/`Writes` ([`system`]); `#[system]` in
//!   `rota-macros` generates those impls and the [`SystemDescriptor`](system::SystemDescriptor)
//!   from one list. [`System`](system::System), [`SystemParam`](system::SystemParam) and
//!   [`QueryData`] are sealed, so no code outside rota widens what a system can touch.
//! * **Changes are recorded, per value, on a deterministic clock** ([`tick`]). Every component
//!   value carries the tick it was added and last changed (insert, replace, `get_mut`, a `&mut T`
//!   fetch). [`Changed<T>`] and [`Added<T>`] filters see the changes since the running system's
//!   last run; each system run gets its own tick, assigned in plan order, so what a system sees
//!   does not depend on the thread count. Comparisons are wrapping-safe.
//! * **Events are delivered exactly once per reader, in plan order** ([`event`]): sequence
//!   numbers, a cursor per reader (kept in the world), bounded channels that tell a late reader
//!   how many it missed, sends appended at the batch end in plan order.
//! * **Structural changes can be logged** ([`log`]): spawns, despawns, components added and
//!   removed, numbered, read from a consumer's own cursor, bounded.
//! * **Bad input is an error, not a panic.** Despawning a dead entity, running out of slots,
//!   missing resources, skipped commands and failed allocations come back as typed errors
//!   ([`EntityNotAlive`], [`SpawnError`], [`ResourceError`], [`CommandError`], [`StoreError`]).
//! * **A snapshot is the whole state.** [`World::snapshot`] copies everything that decides the
//!   world's future — the allocator (generations, free slots), every store with its dense
//!   order, resources, the tick — and [`World::restore`] puts it back: same contents, same
//!   iteration order, same handles from later spawns. A type excluded from snapshots
//!   ([`SnapshotPolicy::EXCLUDED`]) makes `snapshot` fail, naming it, while the world holds
//!   one; it is never silently left out. Stores are shared copy-on-write, so taking or
//!   restoring a snapshot copies no column; the world's next write to a shared column copies
//!   it, once. [`World::full_checksum`] hashes the same state without a type list.
//! * **The hierarchy is ordered too.** [`ChildOf`]/[`Children`] are kept by
//!   [`World::set_parent`], [`World::remove_parent`], [`World::despawn_recursive`] (and
//!   `Commands`); children ascend by slot; despawning a parent orphans its children.
//! * **A [`Prefab`] is a value.** Instances copy it (with overrides) and keep no link to it.
//! * **Nothing nondeterministic inside.** This crate reads no clock, opens no file, spawns no
//!   thread and never iterates a hash map or hash set; `clippy.toml` enforces it.
//!
//! ## Goals, in order
//!
//! 1. Deterministic results: same operations, same iteration order, same values.
//! 2. Fast traversal: a settled store iterates as a plain slice walk, and a query is a merge join
//!    of sorted entity columns that yields runs of plain slices (figures: `docs/benchmarks.md`).
//! 3. A small, safe implementation: no `unsafe` anywhere; speed comes from data layout.
//!
//! ## Non-goals
//!
//! * Archetype storage. Sparse sets make adding and removing components O(1) and keep this
//!   crate small; multi-component iteration joins sorted columns instead of walking shared
//!   tables.
//! * Detecting handles from another allocator (see [`Entity`]).
//! * Files and formats: scenes are `rota-scene`'s job (serde and ron stay out of this crate).
//! * Running systems in parallel: that is `rota-schedule`'s job (this crate only splits a world
//!   into per-system borrows, [`World::split_for_systems`]).
//!
//! ## Example
//!
//! ```
//! use rota::{Component, Entity, World};
//!
//! #[derive(Component, Clone)]
//! struct Health(i32);
//!
//! let mut world = World::new();
//! for hp in [30, 0, 20] {
//!     world.spawn_with((Health(hp),));
//! }
//! let mut commands = world.commands();
//! for (e, hp) in world.query::<(Entity, &Health)>() {
//!     if hp.0 <= 0 {
//!         commands.despawn(e);
//!     }
//! }
//! let report = world.apply(commands.finish());
//! assert!(report.is_clean());
//! let left: Vec<i32> = world.query::<&Health>().map(|h| h.0).collect();
//! assert_eq!(left, [30, 20]);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod access_markers;
mod bundle;
pub mod checksum;
mod commands;
mod component;
mod const_text;
mod entity;
mod error;
pub mod event;
mod hierarchy;
mod inline_vec;
mod prefab;
pub mod query;
mod read_ahead;
pub mod sequence;
pub mod snapshot;
mod snapshot_policy;
mod stable_hash;
mod store;
pub mod system;
pub mod tick;
mod unwind;
mod world;

/// A world as plain data, for save files (no serde, no bytes here; `rota-scene` encodes
/// them): [`WorldImage`](image::WorldImage), [`World::from_image`], [`World::import_column`],
/// [`World::import_channel`], [`World::import_hierarchy`].
pub mod image {
    pub use crate::entity::{AllocatorImage, SlotStatus};
    pub use crate::event::ChannelImage;
    pub use crate::hierarchy::HierarchyImage;
    pub use crate::world::image::{ImageError, LogImage, WorldImage};
}

pub use bundle::Bundle;
pub use commands::{ApplyReport, CommandQueue, Commands};
pub use component::{Component, Resource};
pub use entity::{Entities, EntitiesIter, Entity};
pub use error::{
    ChecksumError, CommandError, CommandKind, EntityNotAlive, HierarchyError, MismatchReason,
    QueryAliasError, QueryGetError, ResourceError, SnapshotError, SpawnError, StoreError,
};
pub use event::{Event, EventCursor, EventRead, EventReader, EventWriter, Events};
pub use hierarchy::{ChildOf, Children};
pub use prefab::Prefab;
pub use query::{Added, Changed, QueryData, QueryIter, ReadOnlyQueryData, With, Without};
pub use snapshot::{Snapshot, SnapshotPolicy};
pub use store::{Iter, IterMut, Store, join};
pub use system::IntoSystem;
pub use tick::{ChangeWindow, ComponentTicks, Tick};
pub use world::diff::{Difference, EntityDiff, SlotState, StoreDiff, WorldDiff};
pub use world::{ColumnMut, UnsettledStore, World, log};
