//! # rota
//!
//! *Same world, same systems, same result.* rota is an Entity Component System whose iteration
//! order is part of the contract: queries visit entities in ascending slot order whatever the
//! insert/remove history, every [`#[system]`](macro@system) declares what it reads and writes
//! and the compiler holds it to that, and a [`Schedule`] runs non-conflicting systems in parallel
//! without changing the result.
//!
//! ```
//! use rota::{Component, Query, Schedule, World, system};
//!
//! #[derive(Component, Clone, Debug, PartialEq)]
//! struct Position(f32);
//! #[derive(Component, Clone)]
//! struct Velocity(f32);
//!
//! #[system(reads(Velocity), writes(Position))]
//! fn movement(mut q: Query<(&mut Position, &Velocity)>) {
//!     for (p, v) in &mut q {
//!         p.0 += v.0;
//!     }
//! }
//!
//! let mut world = World::new();
//! let e = world.spawn_with((Position(0.0), Velocity(2.0)));
//! let mut schedule = Schedule::builder().add(movement).threads(2).build()?;
//! schedule.run(&mut world);
//! assert_eq!(world.get::<Position>(e), Some(&Position(2.0)));
//! # Ok::<(), rota::ScheduleError>(())
//! ```
//!
//! ## Where things are
//!
//! The names above are re-exported here from three crates, each also reachable whole:
//!
//! * [`rota_core`] — entities, ordered sparse-set stores, the [`World`], queries
//!   ([`Query`], [`With`], [`Without`]), resources ([`Res`], [`ResMut`]), [`Commands`], system
//!   plumbing ([`IntoSystem`], the bound on [`ScheduleBuilder::add`] and [`World::run`]), the
//!   stable checksum ([`StableHash`](trait@StableHash), [`World::checksum`],
//!   [`World::full_checksum`]) and snapshots for rollback ([`World::snapshot`] → [`Snapshot`],
//!   [`World::restore`], [`SnapshotPolicy`]);
//! * `rota_macros` — [`#[derive(Component)]`](derive@Component), [`#[derive(Scene)]`](derive@Scene),
//!   [`#[derive(Resource)]`](derive@Resource), [`#[derive(StableHash)]`](derive@StableHash),
//!   [`#[derive(SystemParam)]`](derive@SystemParam) and [`#[system]`](macro@system);
//! * [`scene`] (the `rota-scene` crate) — save and load worlds as versioned RON scenes
//!   with stable field ids, migration, atomic loads and entity remapping;
//! * [`rota_schedule`] — the deterministic parallel [`Schedule`], its [`ScheduleError`]s and
//!   [`ParallelQuery::par_for_each`].
//!
//! The repository's `README.md` has the tour and `docs/guide/` a chapter per topic (their code
//! blocks are compiled as doc tests of this crate, so they cannot rot, but they are not shown
//! on this page); `ARCHITECTURE.md` has the map of the code.
//!
//! ## Rollback
//!
//! A [`Snapshot`] is a copy of the whole world (its component columns shared with the world,
//! copy-on-write, so it costs about what the next frame writes); restoring it gives back a
//! world with the same
//! state and the same future (the same handles for later spawns included), and
//! [`World::full_checksum`] hashes all of it without a type list — what rollback netcode
//! (GGRS's save / load / checksum requests) needs. Derived components and resources must be
//! `Clone` for that, or say `#[component(no_snapshot)]`.
//!
//! ```
//! use rota::{Component, StableHash, World};
//!
//! #[derive(Component, StableHash, Clone)]
//! struct Hp(u32);
//!
//! let mut world = World::new();
//! let e = world.spawn_with((Hp(3),));
//! let saved = world.snapshot()?;
//! let before = world.full_checksum()?;
//! world.get_mut::<Hp>(e).unwrap().0 = 0;
//! world.restore(&saved);
//! assert_eq!(world.full_checksum()?, before);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/rollback.rs` runs a two-player game under GGRS's `SyncTestSession`.
//!
//! ## Helpers over `Commands`
//!
//! A system's `Commands` is `Commands<'_, S>` for the system's marker `S`. A helper generic
//! over `S` states what it spawns or inserts as a bound ([`BundleDefers`] for a bundle,
//! [`DeferredBy`] for one component), and each caller's declarations are checked against it:
//!
//! ```
//! use rota::{BundleDefers, Commands, Component, Entity, World, system};
//!
//! #[derive(Component, Clone)]
//! struct Goblin;
//! #[derive(Component, Clone)]
//! struct Hp(u32);
//!
//! fn spawn_goblin<S>(commands: &mut Commands<'_, S>) -> Entity
//! where
//!     (Goblin, Hp): BundleDefers<S>,
//! {
//!     commands.spawn((Goblin, Hp(7)))
//! }
//!
//! #[system(defers(Goblin, Hp))]
//! fn wave(mut commands: Commands) {
//!     spawn_goblin(&mut commands);
//! }
//!
//! let mut world = World::new();
//! assert!(world.run(wave).is_clean());
//! assert_eq!(world.query::<&Goblin>().count(), 1);
//! ```
//!
//! ## Non-goals
//!
//! * Wall-clock time anywhere in the simulation path.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use rota_core::checksum::{StableHash, StableHasher};
pub use rota_core::image;
pub use rota_core::query;
pub use rota_core::system::{
    BundleDefers, DeferredBy, IntoSystem, Local, Query, Res, ResMut, System, SystemDescriptor,
    SystemParam, Unrestricted,
};
pub use rota_core::{
    Added, ChangeWindow, Changed, ComponentTicks, Event, EventCursor, EventRead, EventReader,
    EventWriter, Events, Tick,
};
pub use rota_core::{
    ApplyReport, Bundle, ChecksumError, ChildOf, Children, ColumnMut, CommandError, CommandKind,
    CommandQueue, Commands, Component, Difference, Entities, EntitiesIter, Entity, EntityNotAlive,
    HierarchyError, Iter, IterMut, MismatchReason, Prefab, QueryAliasError, QueryData,
    QueryGetError, QueryIter, ReadOnlyQueryData, Resource, ResourceError, Snapshot, SnapshotError,
    SnapshotPolicy, SpawnError, Store, StoreDiff, StoreError, With, Without, World, WorldDiff,
    join,
};
pub use rota_macros::{
    Component, Event, Resource, Scene, StableHash, SystemParam, condition, system,
};
pub use rota_schedule::{
    AuditReport, ParallelQuery, RunReport, Schedule, ScheduleBuilder, ScheduleError, TickError,
};
// Inlined so that links in the re-exported items' docs (e.g. to `SplitError`, `PAR_CHUNK`)
// resolve to pages of this crate: left as plain re-exports, rustdoc resolves them only if the
// other crates' docs happened to be rendered first, and otherwise prints `[`Name`]` silently.
#[doc(inline)]
pub use {rota_core, rota_schedule};

/// Run conditions: read-only `#[condition(reads(..))]` functions returning `bool`, attached
/// with `#[system(run_if(..))]` or [`ScheduleBuilder::run_if`], combined with
/// [`ConditionExt::and`](condition::ConditionExt::and), [`or`](condition::ConditionExt::or)
/// and [`not`](condition::not).
pub mod condition {
    pub use rota_core::system::condition::{
        Condition, ConditionExt, IntoCondition, IntoRunIf, RunIf, not,
    };
}

/// Scenes: save and load a world's components with stable field ids, migration, atomic loads
/// and entity remapping (the `rota-scene` crate; derive components with
/// [`#[derive(Scene)]`](derive@Scene)); world saves ([`save_world`](scene::save_world),
/// [`load_world`](scene::load_world)) and replays ([`Replay`](scene::Replay)).
pub mod scene {
    #[doc(inline)]
    pub use rota_scene::{
        Divergence, EntityIds, EntityMap, EventSet, FORMAT_VERSION, FieldError, FieldInfo,
        FieldsIn, FieldsOut, LoadError, LoadReport, REPLAY_FORMAT_VERSION, Replay, ReplayError,
        ResourceSet, SaveError, SceneComponent, SceneField, SceneSet, Value, WORLD_FORMAT_VERSION,
        WorldLoadError, WorldSaveError, field_diff, load, load_world, save, save_to, save_world,
        save_world_to, value_checksum,
    };
}

/// Paths the macros' generated code uses. **Not public API**: no stability promise, and code
/// outside rota that names these items is outside every guarantee rota makes (it can implement
/// sealed traits through them). Generated code names only `::rota::__private` paths, so a
/// user's imports cannot break it.
#[doc(hidden)]
pub mod __private {
    pub use rota_core::checksum::{StableHash, StableHasher};
    pub use rota_core::query::{
        Access, ConstAccess, QueryData, check_condition_parameter, check_one_commands,
        check_parameter_aliasing, find_alias,
    };
    pub use rota_core::system::condition::{Condition, IntoRunIf, RunIf};
    pub use rota_core::system::sealed::{ConditionSeal, SystemSeal};
    pub use rota_core::system::{
        AccessKind, AllowedBy, Declarable, Defers, Marker, ParamSeal, Reads, Receives, Sends,
        System, SystemContext, SystemDescriptor, SystemMarker, SystemParam, Writes, system_ref,
    };
    pub use rota_core::{Component, Event, Resource};
    pub use std::option::Option::{self, Some};
    pub use std::vec::Vec;

    /// What `#[derive(Scene)]` names.
    pub mod scene {
        pub use rota_scene::{
            FieldInfo, FieldsIn, FieldsOut, LoadError, SaveError, SceneComponent, SceneField,
        };
    }

    /// A system's state (its parameters' states), type-erased so the generated `System` impl
    /// need not spell parameter types with lifetimes.
    pub type ErasedState = Box<dyn ::core::any::Any + Send>;

    /// Erases a system's state.
    pub fn erase_state<T: ::core::any::Any + Send>(state: T) -> ErasedState {
        Box::new(state)
    }

    /// The state [`erase_state`] erased.
    ///
    /// # Panics
    ///
    /// If `T` is not the erased type (a bug in the generated code).
    pub fn state_mut<T: ::core::any::Any>(state: &mut ErasedState) -> &mut T {
        match state.downcast_mut::<T>() {
            Some(state) => state,
            None => panic!("rota internal invariant violated: a system's state has another type"),
        }
    }

    /// `TypeId::of`, named here so generated code needs no `std` path.
    pub fn type_id_of<T: 'static>() -> ::core::any::TypeId {
        ::core::any::TypeId::of::<T>()
    }

    /// Fails to compile, once, at a parameter whose accesses system `S` did not declare (the
    /// message comes from `Reads`/`Writes`: it names the system and the type).
    pub const fn check_access<S, P: SystemParam>()
    where
        P::Access: AllowedBy<S>,
    {
    }

    /// Fails to compile for a type in `reads(..)`/`writes(..)` that is not a component or
    /// resource (see `Declarable`'s message).
    pub const fn assert_declarable<T: Declarable>() {}

    /// Fails to compile for a type in `defers(..)` that is not a component: `Commands` insert,
    /// remove and spawn components; a resource is changed through `ResMut`.
    pub const fn assert_deferrable<T: Deferrable>() {}

    /// Fails to compile for `Children` in `defers(..)`: only the hierarchy's methods change it.
    pub const fn assert_deferrable_hierarchy<T: Declarable>() {
        assert!(
            T::__HIERARCHY != 2,
            "`Children` cannot be declared in `defers(..)`: the hierarchy changes only through `Commands::set_parent`/`remove_parent`, which need `defers(ChildOf)`"
        );
    }

    /// Fails to compile for `ChildOf` or `Children` in `writes(..)`: a `&mut` could swap two
    /// links behind the hierarchy's back.
    pub const fn assert_writable<T: Declarable>() {
        assert!(
            T::__HIERARCHY == 0,
            "`ChildOf` and `Children` cannot be declared in `writes(..)`: the hierarchy changes only through `Commands::set_parent`/`remove_parent` (declare `defers(ChildOf)`); read it with `reads(..)`"
        );
    }

    /// What `defers(..)` accepts: components.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be declared in `defers(..)`: it is not a Component",
        label = "not a Component",
        note = "`defers(..)` lets a system's `Commands` insert, remove or spawn a component; a resource is changed through `ResMut`, declared in `writes(..)`"
    )]
    pub trait Deferrable {}
    impl<T: Component> Deferrable for T {}

    /// Fails to compile for a type in `sends(..)`/`receives(..)` that is not an event (see
    /// `Event`'s message).
    pub const fn assert_event<E: Event>() {}

    /// As [`component_must_be_send_sync_static`], for events.
    pub const fn event_must_be_send_sync_static<T: Send + Sync + 'static>() {}

    /// Whether the query type `Q` names a component twice with a `&mut`, in `const`.
    pub const fn query_aliases<Q: QueryData>() -> bool {
        find_alias(&Q::ACCESS).is_some()
    }

    /// Fails to compile, naming this function, for a component that is not
    /// `'static + Send + Sync` (the scheduler hands stores to other threads).
    pub const fn component_must_be_send_sync_static<T: Send + Sync + 'static>() {}

    /// As [`component_must_be_send_sync_static`], for resources.
    pub const fn resource_must_be_send_sync_static<T: Send + Sync + 'static>() {}

    pub use rota_core::checksum::StableHashFn;
    pub use rota_core::snapshot::SnapshotPolicy;

    /// `Clone`, with a message for components that are not: snapshots copy every store.
    #[diagnostic::on_unimplemented(
        message = "component `{Self}` is not `Clone`, so world snapshots cannot copy it",
        label = "`{Self}` must be `Clone`",
        note = "derive `Clone` for `{Self}`, or add `#[component(no_snapshot)]` to exclude it: then `World::snapshot` fails, naming `{Self}`, while any entity holds one"
    )]
    pub trait ComponentClone: Clone {}
    impl<T: Clone> ComponentClone for T {}

    /// `Clone`, with a message for resources that are not.
    #[diagnostic::on_unimplemented(
        message = "resource `{Self}` is not `Clone`, so world snapshots cannot copy it",
        label = "`{Self}` must be `Clone`",
        note = "derive `Clone` for `{Self}`, or add `#[resource(no_snapshot)]` to exclude it: then `World::snapshot` fails, naming `{Self}`, while it is in the world"
    )]
    pub trait ResourceClone: Clone {}
    impl<T: Clone> ResourceClone for T {}

    /// The derive's `Component::SNAPSHOT`; fails to compile, naming `T`, if `T` is not `Clone`.
    pub const fn component_snapshot_by_clone<T: ComponentClone>() -> SnapshotPolicy<T> {
        SnapshotPolicy::CLONE
    }

    /// The derive's `Resource::SNAPSHOT`; fails to compile, naming `T`, if `T` is not `Clone`.
    pub const fn resource_snapshot_by_clone<T: ResourceClone>() -> SnapshotPolicy<T> {
        SnapshotPolicy::CLONE
    }

    /// Finds `T`'s stable hash function, if `T: StableHash`, by method resolution order
    /// (see the derive's expansion).
    pub struct HashProbe<T>(::core::marker::PhantomData<fn() -> T>);

    impl<T> HashProbe<T> {
        /// A probe for `T`.
        pub const fn new() -> Self {
            HashProbe(::core::marker::PhantomData)
        }
    }

    impl<T> Default for HashProbe<T> {
        fn default() -> Self {
            HashProbe::new()
        }
    }

    /// Chosen first, when `T: StableHash`.
    pub trait HashProbeStableHash<T> {
        /// `Some(T::stable_hash)`.
        fn stable_hash_fn(&self) -> Option<StableHashFn<T>>;
    }
    impl<T: StableHash> HashProbeStableHash<T> for &HashProbe<T> {
        fn stable_hash_fn(&self) -> Option<StableHashFn<T>> {
            Some(<T as StableHash>::stable_hash)
        }
    }

    /// The fallback: no stable hash.
    pub trait HashProbeFallback<T> {
        /// `None`.
        fn stable_hash_fn(&self) -> Option<StableHashFn<T>>;
    }
    impl<T> HashProbeFallback<T> for HashProbe<T> {
        fn stable_hash_fn(&self) -> Option<StableHashFn<T>> {
            None
        }
    }
}

/// The README's code blocks, compiled and run as doc tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The guide's chapters (`docs/guide/`), each compiled and run as doc tests like the README.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../docs/guide/01-first-steps.md")]
    pub struct FirstSteps;
    #[doc = include_str!("../docs/guide/02-queries-and-filters.md")]
    pub struct QueriesAndFilters;
    #[doc = include_str!("../docs/guide/03-systems-and-the-compiler.md")]
    pub struct SystemsAndTheCompiler;
    #[doc = include_str!("../docs/guide/04-schedules-and-parallelism.md")]
    pub struct SchedulesAndParallelism;
    #[doc = include_str!("../docs/guide/05-changes-and-events.md")]
    pub struct ChangesAndEvents;
    #[doc = include_str!("../docs/guide/06-hierarchy-prefabs-scenes.md")]
    pub struct HierarchyPrefabsScenes;
    #[doc = include_str!("../docs/guide/07-snapshots-rollback-ggrs.md")]
    pub struct SnapshotsRollbackGgrs;
    #[doc = include_str!("../docs/guide/08-deterministic-code.md")]
    pub struct DeterministicCode;
    #[doc = include_str!("../docs/guide/09-from-bevy-ecs.md")]
    pub struct FromBevyEcs;
}
