//! `StoreIndex`: the shared half of a store — which entities it holds and where — split from
//! its values so a query can read membership while another part of the same system writes them.

use super::Store;
use super::sparse::{ABSENT, SparsePages};
use crate::entity::Entity;
use crate::tick::Tick;

/// A store's lookup structures, borrowed: the sparse array and the dense entity column.
///
/// Membership cannot change while a store is borrowed (structural changes are deferred to sync
/// points), so an index stays valid however the store's values are borrowed.
#[derive(Copy, Clone)]
#[doc(hidden)]
pub struct StoreIndex<'w> {
    pub(crate) sparse: &'w SparsePages,
    /// The dense entity column: ascending by slot iff `settled`.
    pub(crate) entities: &'w [Entity],
    pub(crate) settled: bool,
}

static EMPTY_SPARSE: SparsePages = SparsePages::new();

impl<'w> StoreIndex<'w> {
    /// The index of a store that does not exist (no entity has the component).
    pub(crate) fn empty() -> StoreIndex<'w> {
        StoreIndex {
            sparse: &EMPTY_SPARSE,
            entities: &[],
            settled: true,
        }
    }

    /// The dense index of exactly `entity` (generation included), if present.
    #[inline]
    pub(crate) fn dense_index(&self, entity: Entity) -> Option<usize> {
        let d = self.sparse.get(entity.slot());
        if d == ABSENT {
            return None;
        }
        let d = d as usize;
        (self.entities.get(d) == Some(&entity)).then_some(d)
    }

    /// Where slot `slot` begins in a settled store (its entities ascend by slot): the dense
    /// index of the first entity whose slot is `slot` or higher.
    #[inline]
    pub(crate) fn slot_start(&self, slot: u32) -> usize {
        slot_start(self.entities, self.sparse, slot)
    }

    #[inline]
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.dense_index(entity).is_some()
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.entities.len()
    }
}

/// Where slot `slot` begins in `entities`, a settled store's entity column (ascending by slot,
/// each slot at most once) whose sparse array is `sparse`: the dense index of the first entity
/// whose slot is `slot` or higher. When the store holds the slot, that is the slot's own entry
/// (one lookup); else a binary search. Where a query is cut into segments, the cut is a driver
/// entity that the other columns mostly hold, and a binary search over a big column misses the
/// cache at nearly every step.
#[inline]
pub(crate) fn slot_start(entities: &[Entity], sparse: &SparsePages, slot: u32) -> usize {
    let at = sparse.get(slot);
    if at != ABSENT && entities.get(at as usize).is_some_and(|e| e.slot() == slot) {
        return at as usize;
    }
    entities.partition_point(|e| e.slot() < slot)
}

/// A store's value half, shared: the values (typed `V`, or erased), their change ticks, and
/// the store's high-water mark.
pub(crate) struct ValuesRef<'w, V: ?Sized> {
    pub(crate) values: &'w V,
    pub(crate) added: &'w [Tick],
    pub(crate) changed: &'w [Tick],
    /// Every value changed at this tick or later (see `effective_changed`).
    pub(crate) changed_floor: Option<Tick>,
    pub(crate) last_changed: Tick,
}

impl<V: ?Sized> Clone for ValuesRef<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V: ?Sized> Copy for ValuesRef<'_, V> {}

/// A store's value half, exclusive (a writer stamps `ticks` and raises `last_changed`).
pub(crate) struct ValuesMut<'w, V: ?Sized> {
    pub(crate) values: &'w mut V,
    /// Writers never change when a value was added.
    pub(crate) added: &'w [Tick],
    pub(crate) changed: &'w mut [Tick],
    /// A writer that stamps every value sets this instead of filling `changed`.
    pub(crate) changed_floor: &'w mut Option<Tick>,
    pub(crate) last_changed: &'w mut Tick,
}

impl<'w, V: ?Sized> ValuesMut<'w, V> {
    /// Gives up exclusivity for good.
    pub(crate) fn into_shared(self) -> ValuesRef<'w, V> {
        ValuesRef {
            values: self.values,
            added: self.added,
            changed: self.changed,
            changed_floor: *self.changed_floor,
            last_changed: *self.last_changed,
        }
    }

    /// A shorter-lived exclusive borrow.
    pub(crate) fn reborrow(&mut self) -> ValuesMut<'_, V> {
        ValuesMut {
            values: &mut *self.values,
            added: self.added,
            changed: &mut *self.changed,
            changed_floor: &mut *self.changed_floor,
            last_changed: &mut *self.last_changed,
        }
    }

    /// A shorter-lived shared borrow.
    pub(crate) fn as_shared(&self) -> ValuesRef<'_, V> {
        ValuesRef {
            values: &*self.values,
            added: self.added,
            changed: &*self.changed,
            changed_floor: *self.changed_floor,
            last_changed: *self.last_changed,
        }
    }
}

impl<T> Store<T> {
    /// The store's index, shared.
    pub(crate) fn index(&self) -> StoreIndex<'_> {
        StoreIndex {
            sparse: &self.index.sparse,
            entities: &self.index.entities,
            settled: self.is_settled(),
        }
    }

    /// The value half (parallel to the index's entity column), shared.
    pub(crate) fn values_ref(&self) -> ValuesRef<'_, Vec<T>> {
        ValuesRef {
            values: &self.values.values,
            added: &self.index.added,
            changed: &self.values.changed,
            changed_floor: self.values.changed_floor,
            last_changed: self.last_changed,
        }
    }

    /// The store split for a writer: index shared, values exclusive. Settles first, so the
    /// entity column ascends by slot and dense indices grow with slots.
    ///
    /// This is where a borrow pays copy-on-write: if a snapshot still shares the values, they
    /// are copied here, once per borrow — never per item.
    #[inline]
    pub(crate) fn parts_mut(&mut self) -> (StoreIndex<'_>, ValuesMut<'_, Vec<T>>) {
        self.settle();
        let index = &*self.index;
        let columns = super::values_mut(&mut self.values, self.copy_values);
        (
            StoreIndex {
                sparse: &index.sparse,
                entities: &index.entities,
                settled: true,
            },
            ValuesMut {
                values: &mut columns.values,
                added: &index.added,
                changed: &mut columns.changed,
                changed_floor: &mut columns.changed_floor,
                last_changed: &mut self.last_changed,
            },
        )
    }
}
