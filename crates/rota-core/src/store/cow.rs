//! The two copy-on-write halves of a store (`Half`): sharing them with a snapshot, and making
//! them the store's own again before a write.
//!
//! Invariants: a half is `Owned` until `make_shareable` moves it into an `Arc` (no copy); every
//! write reaches a half through `index_mut` / `values_mut` / `columns_mut`, which make it owned
//! first — copied once if a snapshot still holds it, unwrapped for free if not — so no write
//! ever lands in a column a snapshot can see. A store without a copy function (free-standing,
//! or `no_snapshot`) is never shared, so its value half is always owned.

use super::*;

impl<C> std::ops::Deref for Half<C> {
    type Target = C;
    #[inline]
    fn deref(&self) -> &C {
        match self {
            Half::Owned(c) => c,
            Half::Shared(c) => c,
        }
    }
}

impl<C: Default> Half<C> {
    /// The half, exclusively; `copy` makes a private copy if a snapshot still shares it.
    #[inline]
    pub(super) fn get_mut(&mut self, copy: impl FnOnce(&C) -> C) -> &mut C {
        if let Half::Shared(_) = self {
            self.unshare(copy);
        }
        match self {
            Half::Owned(c) => c,
            Half::Shared(_) => shared_after_unshare(),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn unshare(&mut self, copy: impl FnOnce(&C) -> C) {
        let Half::Shared(shared) = self else { return };
        // Copy before touching `self`: if `copy` panics (a component's `Clone`), the half stays
        // shared and whole rather than empty beside a full index.
        if Arc::strong_count(shared) > 1 {
            let copied = copy(shared);
            *self = Half::Owned(copied);
            return;
        }
        // Nobody else holds it (no `Weak` is ever made, and only a holder can clone the `Arc`):
        // take it back without a copy.
        if let Half::Shared(shared) = std::mem::replace(self, Half::Owned(C::default())) {
            *self = Half::Owned(Arc::try_unwrap(shared).unwrap_or_else(|shared| copy(&shared)));
        }
    }

    /// The half, exclusively, for a caller about to overwrite all of it: a shared half is
    /// dropped rather than copied.
    pub(super) fn overwrite(&mut self) -> &mut C {
        if let Half::Shared(_) = self {
            *self = Half::Owned(C::default());
        }
        self.get_mut(|_| C::default())
    }

    /// Turns an owned half into a shared one (moving it into an `Arc`: no copy).
    pub(super) fn share(&mut self) {
        if let Half::Owned(c) = self {
            *self = Half::Shared(Arc::new(std::mem::take(c)));
        }
    }
}

impl<C> Half<C> {
    /// The `Arc`, if the half is shared.
    pub(super) fn shared(&self) -> Option<&Arc<C>> {
        match self {
            Half::Owned(_) => None,
            Half::Shared(c) => Some(c),
        }
    }
}

/// The values, exclusively: in place if no snapshot shares them, else after copying them once
/// with `copy_values` (the cold path). A free function over the field, so callers can hold
/// the index shared at the same time.
#[inline]
pub(super) fn values_mut<T>(
    values: &mut Half<ValueColumns<T>>,
    copy_values: Option<ColumnCopy<T>>,
) -> &mut ValueColumns<T> {
    values.get_mut(|shared| {
        let Some(copy) = copy_values else {
            panic!(
                "rota internal invariant violated: a store without a copy function shares its values"
            )
        };
        let mut fresh = ValueColumns::new();
        copy(&mut fresh.values, &shared.values);
        fresh.changed.clone_from(&shared.changed);
        fresh.changed_floor = shared.changed_floor;
        fresh
    })
}

#[cold]
pub(super) fn shared_after_unshare() -> ! {
    panic!("rota internal invariant violated: a store column is still shared after its copy")
}

/// Which halves of one component's store a world still shares with a snapshot
/// (`World::shares_columns_with`): what its next writes would copy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SharedColumns {
    /// The structural half (sparse pages, entity column, `added` ticks, order flags): copied by
    /// the first insert of a new entity, remove, despawn or settle.
    pub index: bool,
    /// The value half (values and `changed` ticks): copied by the first write.
    pub values: bool,
}

/// A copy keeps its own copy function (a fresh clone has none): a world's store may be all
/// dead, a store without a copy function may not (`dead.rs`), so such a copy is emptied.
impl<T: Clone> Clone for Store<T> {
    fn clone(&self) -> Self {
        let mut copy = Store::new();
        copy.clone_from(self);
        copy
    }

    fn clone_from(&mut self, source: &Self) {
        self.clone_from_with(source, Vec::clone_from);
        self.empty_if_all_dead();
    }
}

impl<T> Store<T> {
    /// The structural half, exclusively (copied first if a snapshot shares it).
    #[inline]
    pub(super) fn index_mut(&mut self) -> &mut IndexColumns {
        self.index.get_mut(IndexColumns::clone)
    }

    /// The value half, exclusively (copied first if a snapshot shares it).
    #[inline]
    pub(super) fn values_mut(&mut self) -> &mut ValueColumns<T> {
        values_mut(&mut self.values, self.copy_values)
    }

    /// Makes both halves exclusive (each copied first if a snapshot shares it; the component's
    /// `Clone` runs for the values, and if it panics the store is as it was), changing nothing
    /// else.
    pub(crate) fn own_columns(&mut self) {
        self.columns_mut();
    }

    /// Makes the value half exclusive (copied first if a snapshot shares it; the component's
    /// `Clone` runs then, and if it panics the store is as it was), changing nothing else.
    pub(crate) fn own_values(&mut self) {
        self.values_mut();
    }

    /// Both halves, exclusively.
    #[inline]
    pub(super) fn columns_mut(&mut self) -> (&mut IndexColumns, &mut ValueColumns<T>) {
        (
            self.index.get_mut(IndexColumns::clone),
            values_mut(&mut self.values, self.copy_values),
        )
    }

    /// Lets a world share this store with snapshots: `copy` copies the values when a write
    /// finds them shared (`SnapshotPolicy::CLONE`'s column function).
    pub(crate) fn set_copy_values(&mut self, copy: Option<ColumnCopy<T>>) {
        self.copy_values = copy;
    }

    /// How the store copies its values when a write finds them shared, if it can.
    pub(crate) fn copy_values(&self) -> Option<ColumnCopy<T>> {
        self.copy_values
    }

    /// Prepares the store to be shared by a snapshot: moves both halves into `Arc`s (no copy),
    /// if it has a copy function. Until its next write, [`Store::share_from`] can share it.
    pub(crate) fn make_shareable(&mut self) {
        if self.copy_values.is_some() {
            self.index.share();
            self.values.share();
        }
    }

    /// Makes `self` share `source`'s columns (O(1): two reference counts), copying the scalars.
    /// Both stores then copy a half on their first write to it, so neither sees the other's
    /// later writes. `source` must be [`Store::is_shareable`] (callers copy the others with
    /// [`Store::clone_from_with`]).
    ///
    /// **Every field is named, and the destructuring below is exhaustive on purpose**: a field
    /// added to `Store` is a compile error here until it is shared or copied.
    pub(crate) fn share_from(&mut self, source: &Store<T>) {
        let (Some(source_index), Some(source_values)) =
            (source.index.shared(), source.values.shared())
        else {
            panic!("rota internal invariant violated: sharing a store that is not shareable")
        };
        let Store {
            index,
            values,
            last_changed,
            now,
            copy_values,
        } = self;
        let old_index = std::mem::replace(index, Half::Shared(Arc::clone(source_index)));
        let old_values = std::mem::replace(values, Half::Shared(Arc::clone(source_values)));
        *last_changed = source.last_changed;
        *now = source.now;
        *copy_values = source.copy_values;
        // The old halves go once the store is whole: a component's `Drop` may panic.
        drop(old_values);
        drop(old_index);
    }

    /// Whether [`Store::share_from`] may share this store's columns: it knows how to copy its
    /// values when a write finds them shared, and both halves are in `Arc`s (a snapshot's
    /// store always; a world's store after [`Store::make_shareable`], until its next write).
    pub(crate) fn is_shareable(&self) -> bool {
        self.copy_values.is_some()
            && self.index.shared().is_some()
            && self.values.shared().is_some()
    }

    /// Which halves the two stores share (after [`Store::share_from`], before a write).
    pub(crate) fn shared_columns(&self, other: &Store<T>) -> SharedColumns {
        fn same<C>(a: &Half<C>, b: &Half<C>) -> bool {
            matches!((a.shared(), b.shared()), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
        }
        SharedColumns {
            index: same(&self.index, &other.index),
            values: same(&self.values, &other.values),
        }
    }
}

impl<T> Store<T> {
    /// Makes `self` a copy of `source`, reusing `self`'s allocations; the value column is
    /// copied with `column_from` (a monomorphic `Vec::clone_from`, so snapshots need no
    /// `T: Clone` bound here).
    ///
    /// **Every field is copied, and the destructuring below is exhaustive on purpose**: a field
    /// added to `Store` is a compile error here until it is copied, so snapshots
    /// (`World::snapshot`, `World::restore`) can never lose store state.
    pub(crate) fn clone_from_with(
        &mut self,
        source: &Store<T>,
        column_from: fn(&mut Vec<T>, &Vec<T>),
    ) {
        let Store {
            index,
            values,
            last_changed,
            now,
            copy_values: _, // how *this* store copies its values; not the source's
        } = self;
        let IndexColumns {
            sparse,
            entities,
            added,
            displaced,
            displaced_count,
            dead,
        } = index.overwrite();
        sparse.clone_from(&source.index.sparse);
        entities.clone_from(&source.index.entities);
        added.clone_from(&source.index.added);
        displaced.clone_from(&source.index.displaced);
        *displaced_count = source.index.displaced_count;
        *dead = source.index.dead;
        // The old contents are overwritten: a shared half is dropped, not copied first.
        let ValueColumns {
            values: to_values,
            changed,
            changed_floor,
        } = values.overwrite();
        column_from(to_values, &source.values.values);
        changed.clone_from(&source.values.changed);
        *changed_floor = source.values.changed_floor;
        *last_changed = source.last_changed;
        *now = source.now;
    }
}
