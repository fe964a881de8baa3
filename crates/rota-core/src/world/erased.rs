//! `ErasedStore`: what the world can do with a store without knowing its component type.

use std::any::Any;

use crate::component::Component;
use crate::entity::Entity;
use crate::stable_hash::StableHasher;
use crate::store::Store;
use crate::store::index::{StoreIndex, ValuesMut, ValuesRef};
use crate::tick::Tick;

/// A `Store<T>` with `T` erased. Downcasts go through `Any`, so a type mismatch is an `Option`
/// the caller turns into an internal-invariant panic — never undefined behaviour.
pub(crate) trait ErasedStore: Any + Send + Sync {
    /// Removes (drops) `entity`'s value, which the store holds: the despawn cascade calls it
    /// for the stores the membership index lists (`Store::forget_held`).
    fn remove_entity(&mut self, entity: Entity);
    /// Makes the value half the store's own (copied, running the component's `Clone`, if a
    /// snapshot shares it) when removing an entity's value would copy it: always for a
    /// `batched` removal (`remove_many` makes both halves its own), else only for a component
    /// with drop glue (`remove_entity` leaves other values dead in place, writing the index
    /// alone, whose copy runs no user code). A despawn calls it for every store the entity is
    /// in before it changes anything, so a `Clone` that panics leaves the world as it was.
    fn own_values_for_removal(&mut self, batched: bool);
    /// Makes both halves the store's own (copied, running the component's `Clone`, if a
    /// snapshot shares them), changing nothing else (`Store::own_columns`): the periodic tick
    /// clamp calls it for every store before it changes anything.
    fn own_columns(&mut self);
    /// Removes every held entity of `gone`; used by batched despawns. Returns their values
    /// (a `Vec<T>`), not yet dropped: the caller drops them once every store is consistent.
    fn remove_many(&mut self, gone: &[Entity]) -> Box<dyn Any + Send>;
    /// `remove_many` then `settle`, in one pass (`Store::remove_and_settle`).
    fn remove_and_settle(&mut self, gone: &[Entity]) -> Box<dyn Any + Send>;
    fn settle(&mut self);
    fn len(&self) -> usize;
    fn check_invariants(&self) -> Result<(), String>;
    fn dense_entities(&self) -> &[Entity];
    /// The store's index (membership), shared.
    fn index(&self) -> StoreIndex<'_>;
    /// The value half (`Vec<T>` erased, with its ticks), shared.
    fn values_any(&self) -> ValuesRef<'_, AnyValues>;
    /// Settles, then splits: index shared, value half (`Vec<T>` erased) exclusive.
    fn parts_mut_any(&mut self) -> (StoreIndex<'_>, ValuesMut<'_, AnyValues>);
    /// Sets the tick the store's own writes stamp.
    fn set_change_tick(&mut self, now: Tick);
    /// Clamps every tick to at most `MAX_AGE` old.
    fn clamp_ticks(&mut self, now: Tick);
    /// A copy of the whole store for a snapshot, or `None` if the component is excluded from
    /// snapshots and the store is not empty. A `Clone` component's store is shared, not
    /// copied (`Store::share_from`: two reference counts, copy-on-write); an excluded, empty
    /// store copies as empty (`Store::clone_from_with`).
    fn snapshot_store(&self) -> Option<Box<dyn ErasedStore>>;
    /// Moves the store's halves into `Arc`s (no copy) so `snapshot_store` can share them;
    /// nothing for a store that is never shared.
    fn make_shareable(&mut self);
    /// Whether `snapshot_store` would copy it: the component is `Clone`, or the store is empty.
    fn is_snapshottable(&self) -> bool;
    /// Makes this store equal to `source` (same type, made by `snapshot_store`): shares its
    /// columns (copy-on-write) for a `Clone` component, else copies (an empty excluded store).
    fn restore_store(&mut self, source: &dyn ErasedStore);
    /// Hashes `(slot, value)` pairs in ascending slot order; `false` (nothing fed) if the
    /// component has no stable hash.
    fn stable_hash_values(&self, h: &mut StableHasher) -> bool;
    /// Per held entity in ascending slot order: its value's stable hash and its added and
    /// changed ages (as `stable_hash_values` feeds them); `None` if the component has no
    /// stable hash (`World::diff`).
    fn entry_hashes(&self) -> Option<Vec<(Entity, u64, u32, u32)>>;
    /// `std::any::type_name` of the component: the whole-world checksum's order key.
    fn type_name(&self) -> &'static str;
}

/// A value column (`Vec<T>`) with its type erased.
pub(crate) type AnyValues = dyn Any + Send + Sync;

impl<T: Component> ErasedStore for Store<T> {
    fn remove_entity(&mut self, entity: Entity) {
        self.forget_held(entity);
    }
    fn own_values_for_removal(&mut self, batched: bool) {
        if batched || std::mem::needs_drop::<T>() {
            self.own_values();
        }
    }
    fn own_columns(&mut self) {
        Store::own_columns(self);
    }
    fn remove_many(&mut self, gone: &[Entity]) -> Box<dyn Any + Send> {
        Box::new(Store::remove_many(self, gone))
    }
    fn remove_and_settle(&mut self, gone: &[Entity]) -> Box<dyn Any + Send> {
        Box::new(Store::remove_and_settle(self, gone))
    }
    fn settle(&mut self) {
        Store::settle(self)
    }
    fn len(&self) -> usize {
        Store::len(self)
    }
    fn check_invariants(&self) -> Result<(), String> {
        Store::check_invariants(self)
    }
    fn dense_entities(&self) -> &[Entity] {
        Store::dense_entities(self)
    }
    fn index(&self) -> StoreIndex<'_> {
        Store::index(self)
    }
    fn values_any(&self) -> ValuesRef<'_, AnyValues> {
        let v = self.values_ref();
        ValuesRef {
            values: v.values,
            added: v.added,
            changed: v.changed,
            changed_floor: v.changed_floor,
            last_changed: v.last_changed,
        }
    }
    fn parts_mut_any(&mut self) -> (StoreIndex<'_>, ValuesMut<'_, AnyValues>) {
        let (index, v) = self.parts_mut();
        (
            index,
            ValuesMut {
                values: v.values,
                added: v.added,
                changed: v.changed,
                changed_floor: v.changed_floor,
                last_changed: v.last_changed,
            },
        )
    }
    fn set_change_tick(&mut self, now: Tick) {
        Store::set_change_tick(self, now)
    }
    fn clamp_ticks(&mut self, now: Tick) {
        Store::clamp_ticks(self, now)
    }
    fn snapshot_store(&self) -> Option<Box<dyn ErasedStore>> {
        let mut copy = Store::<T>::new();
        match T::SNAPSHOT.cloning {
            // A world's store of a `Clone` type, made shareable by `World::snapshot` (its copy
            // function was set at registration), or a snapshot's store: O(1), a half is copied
            // on the first write to it on either side.
            Some(_) if self.is_shareable() => copy.share_from(self),
            Some(cloning) => {
                copy.set_copy_values(Some(cloning.column_from));
                copy.clone_from_with(self, cloning.column_from);
            }
            None if self.is_empty() => copy.clone_from_with(self, empty_column::<T>),
            None => return None,
        }
        Some(Box::new(copy))
    }
    fn make_shareable(&mut self) {
        Store::make_shareable(self)
    }
    fn is_snapshottable(&self) -> bool {
        T::SNAPSHOT.is_cloned() || self.is_empty()
    }
    fn restore_store(&mut self, source: &dyn ErasedStore) {
        let source = downcast_ref::<T>(source);
        match T::SNAPSHOT.cloning {
            Some(_) if source.is_shareable() => self.share_from(source),
            Some(cloning) => {
                self.set_copy_values(Some(cloning.column_from));
                self.clone_from_with(source, cloning.column_from);
            }
            // `snapshot_store` only copies an excluded store when it is empty. This store's
            // values go once it is whole (emptied): a component's `Drop` may panic.
            None => {
                let old = std::mem::take(self);
                self.set_copy_values(old.copy_values());
                self.clone_from_with(source, empty_column::<T>);
                drop(old);
            }
        }
    }
    fn stable_hash_values(&self, h: &mut StableHasher) -> bool {
        let Some(hash) = T::stable_hash_fn() else {
            return false;
        };
        use crate::checksum::StableHash;
        // Change ticks as ages from the store's clock (equal to the world's), clamped as the
        // world clamps them: what a `Changed`/`Added` window compares, and the same in two
        // worlds that agree whatever their clocks read.
        let now = self.change_tick();
        self.for_each_with_ticks(|e, v, ticks| {
            e.slot().stable_hash(h);
            hash(v, h);
            ticks.added.clamped_age(now).stable_hash(h);
            ticks.changed.clamped_age(now).stable_hash(h);
        });
        true
    }
    fn entry_hashes(&self) -> Option<Vec<(Entity, u64, u32, u32)>> {
        let hash = T::stable_hash_fn()?;
        let now = self.change_tick();
        let mut out = Vec::with_capacity(self.len());
        self.for_each_with_ticks(|e, v, ticks| {
            let mut h = StableHasher::new();
            hash(v, &mut h);
            let (added, changed) = (ticks.added.clamped_age(now), ticks.changed.clamped_age(now));
            out.push((e, h.finish(), added, changed));
        });
        Some(out)
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

/// The value column of an excluded (not `Clone`) component, copied from an empty one.
#[allow(clippy::ptr_arg)] // the shape of `Vec::clone_from`, which `Cloning::column_from` holds
fn empty_column<T>(to: &mut Vec<T>, from: &Vec<T>) {
    debug_assert!(
        from.is_empty(),
        "an excluded store is only snapshotted when empty"
    );
    to.clear();
}

/// Downcasts an erased store; the registry guarantees the type, so a mismatch is a bug in rota.
pub(crate) fn downcast_ref<T: Component>(store: &dyn ErasedStore) -> &Store<T> {
    let any: &dyn Any = store;
    any.downcast_ref::<Store<T>>()
        .unwrap_or_else(|| mismatch::<T>())
}

/// Mutable counterpart of [`downcast_ref`].
pub(crate) fn downcast_mut<T: Component>(store: &mut dyn ErasedStore) -> &mut Store<T> {
    let any: &mut dyn Any = store;
    any.downcast_mut::<Store<T>>()
        .unwrap_or_else(|| mismatch::<T>())
}

#[cold]
fn mismatch<T: Component>() -> ! {
    panic!(
        "the store registered for component `{}` holds another type: two component types share one registry number or unique key (a hand-written `Component` impl? derive it instead)",
        std::any::type_name::<T>()
    )
}
