//! World snapshots: an owned copy of everything that decides a world's future, and the
//! per-type policy ([`SnapshotPolicy`]) that says how each component and resource is copied.
//!
//! A snapshot is the world's whole state — not a list of chosen fields. It is made by
//! `World::snapshot` / `copy_state_from` (`world/snapshot.rs`), which destructure `World`,
//! `Store<T>`, `Entities`, the membership index and the resources **exhaustively**: a field
//! added to any of them is a compile error there until it is copied (or shared) too. So state
//! added later (change ticks, event channels, logs) cannot be forgotten by snapshots.
//!
//! Stores are shared copy-on-write between a world and its snapshots (see
//! [`World::snapshot`]): the `CLONE` policy's column function is what copies a shared value
//! column when the world writes it.

use crate::world::World;

/// How one component or resource type is copied into a [`Snapshot`]: by `Clone`, or excluded.
///
/// Set through [`Component::SNAPSHOT`](crate::Component::SNAPSHOT) /
/// [`Resource::SNAPSHOT`](crate::Resource::SNAPSHOT). Excluding a type is an explicit choice
/// with a checked consequence: [`World::snapshot`] fails, naming the type, while the world
/// holds any value of it — a snapshot is never silently partial.
///
/// ```
/// use rota::{Component, SnapshotPolicy};
///
/// // By hand; `#[derive(Component, Clone)]` writes the same policy.
/// #[derive(Clone)]
/// struct Hp(u32);
/// impl Component for Hp {
///     const NAME: &'static str = "Hp";
///     const UNIQUE_KEY: Option<&'static str> = Some(concat!(module_path!(), "::Hp"));
///     const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::CLONE;
/// }
/// assert!(Hp::SNAPSHOT.is_cloned());
///
/// #[derive(Component)]
/// #[component(no_snapshot)] // writes `SnapshotPolicy::EXCLUDED`
/// struct Scratch(Vec<u8>);
/// assert!(!Scratch::SNAPSHOT.is_cloned());
/// ```
pub struct SnapshotPolicy<T: 'static> {
    pub(crate) cloning: Option<Cloning<T>>,
}

/// The monomorphic copy functions of a `Clone` type (a store's value column is copied with one
/// `Vec::clone_from`, so `Copy` values are a `memcpy`).
pub(crate) struct Cloning<T: 'static> {
    pub(crate) column_from: fn(&mut Vec<T>, &Vec<T>),
    pub(crate) value: fn(&T) -> T,
    pub(crate) value_from: fn(&mut T, &T),
}

impl<T> Clone for Cloning<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Cloning<T> {}

impl<T> Clone for SnapshotPolicy<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SnapshotPolicy<T> {}

impl<T> std::fmt::Debug for SnapshotPolicy<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_cloned() {
            "SnapshotPolicy::CLONE"
        } else {
            "SnapshotPolicy::EXCLUDED"
        })
    }
}

#[allow(clippy::ptr_arg)] // `Vec::clone_from`'s shape: it reuses `to`'s allocation
fn column_from<T: Clone>(to: &mut Vec<T>, from: &Vec<T>) {
    to.clone_from(from);
}
fn value_from<T: Clone>(to: &mut T, from: &T) {
    to.clone_from(from);
}

impl<T: Clone> SnapshotPolicy<T> {
    /// Snapshots copy values with `Clone` (restores with `clone_from`, reusing allocations).
    pub const CLONE: SnapshotPolicy<T> = SnapshotPolicy {
        cloning: Some(Cloning {
            column_from: column_from::<T>,
            value: T::clone,
            value_from: value_from::<T>,
        }),
    };
}

impl<T> SnapshotPolicy<T> {
    /// Not copied: [`World::snapshot`] fails with a [`SnapshotError`](crate::SnapshotError)
    /// naming the type while the world holds any value of it; an empty store is snapshotted
    /// (and restored) as empty.
    pub const EXCLUDED: SnapshotPolicy<T> = SnapshotPolicy { cloning: None };

    /// Whether values are copied (`CLONE`) rather than excluded.
    pub const fn is_cloned(&self) -> bool {
        self.cloning.is_some()
    }
}

/// An owned, immutable copy of a world's whole state: entities (with generations and the free
/// list), every store with its dense order, resources and the tick.
///
/// Made by [`World::snapshot`]; put back with [`World::restore`]. It shares the world's store
/// columns (copy-on-write, [`World::shares_columns_with`]) and is never changed by the world's
/// later writes; cloning it is as cheap as taking it. A restored world is
/// indistinguishable from the one snapshotted: same queries in the same order, same
/// [`full_checksum`](World::full_checksum), and the same future for the same operations —
/// including the handles later spawns receive.
///
/// What is *not* in a snapshot: anything outside the world, such as a schedule's `Local<T>`
/// parameter state (it lives in the `Schedule`), or state behind a component's or resource's
/// shared pointer (`Arc`) — `Clone` shares it rather than copying it.
///
/// ```
/// use rota::{Component, World};
///
/// #[derive(Component, Clone)]
/// struct Hp(u32);
///
/// let mut world = World::new();
/// let a = world.spawn_with((Hp(10),));
/// let saved = world.snapshot()?;
/// world.get_mut::<Hp>(a).unwrap().0 = 0;
/// world.despawn(a).unwrap();
/// let b = world.spawn(); // reuses a's slot with a new generation
///
/// world.restore(&saved);
/// assert_eq!(world.get::<Hp>(a).unwrap().0, 10);
/// assert!(!world.is_alive(b));
/// let c = world.spawn(); // the next fresh slot, as if the despawn never happened
/// assert_eq!((c.slot(), c.generation()), (1, 0));
/// # Ok::<(), rota::SnapshotError>(())
/// ```
pub struct Snapshot {
    pub(crate) world: World,
}

/// Which halves of one component's store a world still shares with a snapshot
/// ([`World::shares_columns_with`]): what its next writes would copy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SharedColumns {
    /// The structural half (sparse pages, entity column, `added` ticks, order flags): copied by
    /// the first insert of a new entity, remove, despawn or settle.
    pub index: bool,
    /// The value half (values and `changed` ticks): copied by the first write.
    pub values: bool,
}

impl Snapshot {
    /// The snapshotted state, read-only (query it like any world).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The tick the world was at.
    pub fn tick(&self) -> u64 {
        self.world.tick()
    }
}

/// Another copy of the same state (GGRS's `GameStateCell::load` clones its state, for one).
/// Both share the stores (copy-on-write); `clone_from` is [`World::restore`] into the target.
impl Clone for Snapshot {
    fn clone(&self) -> Self {
        match self.world.snapshot_shared() {
            Ok(copy) => copy,
            // A snapshot holds excluded types only as empty stores, which always copy.
            Err(e) => panic!("rota internal invariant violated: a snapshot did not copy: {e}"),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.world.copy_state_from(&source.world);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("world", &self.world)
            .finish()
    }
}
