//! How one component or resource type is copied into a snapshot ([`SnapshotPolicy`]): by
//! `Clone`, or excluded. Part of the vocabulary a component declares (`Component::SNAPSHOT`);
//! the snapshot itself is the world's (`snapshot.rs`, `world/snapshot.rs`).

/// How one component or resource type is copied into a [`Snapshot`](crate::snapshot::Snapshot): by `Clone`, or excluded.
///
/// Set through [`Component::SNAPSHOT`](crate::Component::SNAPSHOT) /
/// [`Resource::SNAPSHOT`](crate::Resource::SNAPSHOT). Excluding a type is an explicit choice
/// with a checked consequence: [`World::snapshot`](crate::world::World::snapshot) fails, naming the type, while the world
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
    /// Not copied: [`World::snapshot`](crate::world::World::snapshot) fails with a [`SnapshotError`](crate::SnapshotError)
    /// naming the type while the world holds any value of it; an empty store is snapshotted
    /// (and restored) as empty.
    pub const EXCLUDED: SnapshotPolicy<T> = SnapshotPolicy { cloning: None };

    /// Whether values are copied (`CLONE`) rather than excluded.
    pub const fn is_cloned(&self) -> bool {
        self.cloning.is_some()
    }
}
