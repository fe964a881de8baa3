//! The `Component` and `Resource` traits: what may live in a `World`.

use crate::snapshot_policy::SnapshotPolicy;
use crate::stable_hash::StableHashFn;

/// A type that can be attached to entities and stored in a [`Store`](crate::Store).
///
/// Derive it with `#[derive(Component, Clone)]` (from `rota`; `Clone` because world snapshots
/// copy stores, see [`Component::SNAPSHOT`]). Components are `'static + Send + Sync`: the
/// parallel scheduler hands stores to systems on other threads, so a component must be safe
/// to send and to share. `Cell`/`RefCell` fields are therefore rejected by the compiler; interior
/// mutability that *is* `Sync` (`Mutex`, atomics) is outside what rota's access checks can see.
///
/// ```
/// use rota::{Component, World};
///
/// #[derive(Component, Clone)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let e = world.spawn_with((Health(10),));
/// assert_eq!(world.get::<Health>(e).unwrap().0, 10);
/// assert_eq!(Health::NAME, "Health");
/// ```
///
/// # Implementing by hand
///
/// The two constants every impl gives (the derive also writes the snapshot policy and the
/// checksum hook). A hand-written impl must choose a unique key itself, and its snapshot
/// policy defaults to `EXCLUDED` (see [`Component::SNAPSHOT`]).
///
/// ```
/// use rota::Component;
///
/// struct Health(u32);
/// impl Component for Health {
///     const NAME: &'static str = "Health";
///     const UNIQUE_KEY: Option<&'static str> = Some(concat!(module_path!(), "::Health@", line!()));
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component",
    label = "not a `Component`",
    note = "add `#[derive(Component)]` to the definition of `{Self}`"
)]
pub trait Component: 'static + Send + Sync + Sized {
    /// The name used in error messages (the derive uses the type's identifier).
    const NAME: &'static str;

    /// A string no other component type shares, used by compile-time aliasing checks (a `const`
    /// cannot compare `TypeId`s on stable Rust). The derive uses the module path, the name and
    /// the definition's file, line and column, so two types named alike in one module still
    /// differ. Generic types (`Wrapper<A>`, `Wrapper<B>`) cannot have one and say `None`: their
    /// aliasing is checked by `TypeId` when a system is first set up (before it runs), not at
    /// compile time. There is deliberately no default: a hand-written impl must choose.
    const UNIQUE_KEY: Option<&'static str>;

    /// How [`World::snapshot`](crate::World::snapshot) copies this type's store.
    ///
    /// The derive writes [`SnapshotPolicy::CLONE`], so a component that is not `Clone` is a
    /// compile error at its `#[derive(Component)]` naming it; `#[component(no_snapshot)]`
    /// writes [`SnapshotPolicy::EXCLUDED`] instead. **A hand-written impl defaults to
    /// `EXCLUDED`**: write `const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::CLONE;` to
    /// opt in. An excluded type is never silently left out: `World::snapshot` fails with
    /// [`SnapshotError::NotSnapshottable`](crate::SnapshotError) naming it while any entity
    /// has one.
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::EXCLUDED;

    /// How [`World::full_checksum`](crate::World::full_checksum) hashes one value, if it can.
    ///
    /// The derive returns `Some` when the type implements
    /// [`StableHash`](crate::stable_hash::StableHash) (e.g. `#[derive(StableHash)]`) and `None`
    /// otherwise; a hand-written impl returns `None` unless it overrides this (with
    /// `Some(StableHash::stable_hash)`). Known limit: the derive decides per concrete type, so
    /// a *generic* component (`Wrapper<T>`) gets `None` even when it implements `StableHash`.
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        None
    }

    /// Generated code only: a per-type cell the world uses to find this type's store with one
    /// array index (`world/registry.rs`). The derive gives each non-generic type its own static;
    /// `None` (generic or hand-written types) falls back to a `TypeId` search.
    #[doc(hidden)]
    fn __registry_cell() -> Option<&'static std::sync::atomic::AtomicU32> {
        None
    }
}

/// A type that can be stored once per world as a resource (a grid, an RNG, statistics).
///
/// Derive it with `#[derive(Resource, Clone)]` (`Clone`: see [`Resource::SNAPSHOT`]). Like
/// components, resources are `'static + Send + Sync`.
///
/// ```
/// use rota::{Resource, World};
///
/// #[derive(Resource, Clone)]
/// struct Gravity(f32);
///
/// let mut world = World::new();
/// world.insert_resource(Gravity(9.81));
/// assert_eq!(world.resource::<Gravity>().unwrap().0, 9.81);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "not a `Resource`",
    note = "add `#[derive(Resource)]` to the definition of `{Self}`"
)]
pub trait Resource: 'static + Send + Sync + Sized {
    /// The name used in error messages.
    const NAME: &'static str;

    /// A string no other resource type shares, for compile-time aliasing checks (`Res<G>` and
    /// `ResMut<G>` in one system); see [`Component::UNIQUE_KEY`].
    const UNIQUE_KEY: Option<&'static str>;

    /// How [`World::snapshot`](crate::World::snapshot) copies this resource; see
    /// [`Component::SNAPSHOT`] (same rules: the derive requires `Clone` unless
    /// `#[resource(no_snapshot)]`; a hand-written impl defaults to `EXCLUDED`).
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::EXCLUDED;

    /// How [`World::full_checksum`](crate::World::full_checksum) hashes this resource, if it
    /// can; see [`Component::stable_hash_fn`].
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        None
    }

    /// The resource as a numbered stream (an event channel), for the world's restore and tick
    /// bookkeeping. Not for user types: the default (`None`) is right for every resource but
    /// `Events<E>`.
    #[doc(hidden)]
    fn as_stream(&self) -> Option<&dyn crate::sequence::NumberedStream> {
        None
    }

    /// [`Resource::as_stream`], mutably.
    #[doc(hidden)]
    fn as_stream_mut(&mut self) -> Option<&mut dyn crate::sequence::NumberedStream> {
        None
    }
}
