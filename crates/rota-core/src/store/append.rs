//! [`Appender`]: a batch of fresh entities' values appended to one store, the per-value work cut
//! to what cannot wait (the sparse back-pointer, the entity, the value); the tick columns and
//! displacement flags of the whole batch are written when it ends.
//!
//! # Invariant kept
//!
//! While an `Appender` lives, its store's `added`, `changed` and `displaced` columns are shorter
//! than `entities` and `values` (the batch's entries are missing). The `Appender` holds the
//! store exclusively, so nothing can observe that, and its `Drop` completes them — also when the
//! batch stops early because the caller's iterator panicked — so every store a caller can see
//! again has its columns parallel and its flags exact (the same flags `insert` would have set
//! one value at a time).

use super::{ABSENT, IndexColumns, Store, StoreError, ValueColumns};
use crate::component::Component;
use crate::entity::Entity;
use crate::tick::Tick;

/// Appends values for entities whose slots the store does not hold (freshly spawned entities),
/// in one batch: rota's plumbing for `Bundle`, not for use on its own. It completes the
/// store's tick columns and displacement flags when dropped (see `store/append.rs`).
pub struct Appender<'s, T> {
    index: &'s mut IndexColumns,
    values: &'s mut ValueColumns<T>,
    last_changed: &'s mut Tick,
    now: Tick,
}

impl<T: Component> Store<T> {
    /// Starts a batch of appends (copying a half a snapshot shares, once for the batch).
    pub(crate) fn appender(&mut self) -> Appender<'_, T> {
        // The columns are about to grow: first drop dead elements if they are the majority.
        self.compact_if_mostly_dead();
        let now = self.now;
        let index = self.index.get_mut(IndexColumns::clone);
        let values = super::values_mut(&mut self.values, self.copy_values);
        Appender {
            index,
            values,
            last_changed: &mut self.last_changed,
            now,
        }
    }
}

impl<T> Appender<'_, T> {
    /// Appends `value` for `entity`, whose slot the store does not hold.
    ///
    /// # Panics
    ///
    /// If memory runs out.
    #[inline]
    pub(crate) fn push(&mut self, entity: Entity, value: T) {
        let index = &mut *self.index;
        debug_assert_eq!(index.sparse.get(entity.slot()), ABSENT, "slot already held");
        let at = u32::try_from(index.entities.len()).expect("a store holds < 2^32 values");
        if index.sparse.try_set(entity.slot(), at).is_err() {
            panic!("{}", StoreError::OutOfMemory);
        }
        index.entities.push(entity);
        self.values.values.push(value);
    }
}

impl<T> Appender<'_, T> {
    /// Reads the sparse entry of `slot` (what `push` will write) and returns it: a read that
    /// brings the entry into the cache (see `read_ahead.rs`).
    #[inline]
    pub(crate) fn touch(&self, slot: u32) -> u64 {
        u64::from(self.index.sparse.get(slot))
    }
}

impl<T> Drop for Appender<'_, T> {
    fn drop(&mut self) {
        let index = &mut *self.index;
        let start = index.displaced.len();
        let len = index.entities.len();
        if start == len {
            return;
        }
        // Each appended value is in order if the one before it is (not flagged) and has a lower
        // slot: exactly what `insert` decides one value at a time (`append` in `mod.rs`; keep
        // the two in step). The rule is written out again, with the previous slot carried in a
        // local, because calling one shared per-value check here measured 3–10 % slower on
        // `simple_insert/batch`.
        let mut previous_clean = match start.checked_sub(1) {
            None => None,
            Some(p) if !index.displaced[p] => Some(index.entities[p].slot()),
            Some(_) => None,
        };
        let first_append = start == 0;
        for (k, e) in index.entities[start..].iter().enumerate() {
            let in_order = match previous_clean {
                Some(s) => s < e.slot(),
                None => first_append && k == 0,
            };
            index.displaced.push(!in_order);
            index.displaced_count += usize::from(!in_order);
            previous_clean = in_order.then_some(e.slot());
        }
        index.added.resize(len, self.now);
        self.values.changed.resize(len, self.now);
        *self.last_changed = self.now;
    }
}
