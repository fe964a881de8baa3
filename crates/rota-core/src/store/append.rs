//! [`Appender`]: a batch of fresh entities' values appended to one store, the per-value work cut
//! to what cannot wait (the sparse back-pointer, the entity, the value); the tick columns and
//! displacement flags of the whole batch are written when it ends.
//!
//! Two ways in: `push` appends an entity and its value together; `push_value` appends values
//! alone and `attach` later gives them their entities, in order, as one column-wide pass (what
//! `World::spawn_batch` does: the values of a whole batch first, then its entities, one store at
//! a time).
//!
//! # Invariant kept
//!
//! While an `Appender` lives, its store's `added`, `changed` and `displaced` columns are shorter
//! than `entities` and `values` (the batch's entries are missing), and `values` may be longer
//! than `entities` (values pushed, not yet attached). The `Appender` holds the store
//! exclusively, so nothing can observe that, and its `Drop` completes the columns — also when
//! the batch stops early because the caller's iterator panicked — so every store a caller can
//! see again has its columns parallel and its flags exact (the same flags `insert` would have
//! set one value at a time). Values never attached are dropped there: no entity holds them.

use super::{ABSENT, IndexColumns, MAX_DENSE, Store, StoreError, ValueColumns};
use crate::component::Component;
use crate::entity::{Entity, ascending_prefix};
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
    /// If memory runs out, or the store is full (`StoreError::Full`).
    #[inline]
    pub(crate) fn push(&mut self, entity: Entity, value: T) {
        let index = &mut *self.index;
        debug_assert_eq!(index.sparse.get(entity.slot()), ABSENT, "slot already held");
        let at = index.entities.len();
        if at >= MAX_DENSE {
            panic!("{}", StoreError::Full { max: MAX_DENSE });
        }
        if index.sparse.try_set(entity.slot(), at as u32).is_err() {
            panic!("{}", StoreError::OutOfMemory);
        }
        index.entities.push(entity);
        self.values.values.push(value);
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: `Some(n)` makes the attach after the next `n` fail as if memory ran out (the
    /// path a failing allocator takes; the workspace forbids the `unsafe` a global allocator
    /// that fails on demand would need).
    pub(crate) static FAIL_ATTACH_AFTER: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

impl<T> Appender<'_, T> {
    /// Appends `value` alone; [`Appender::attach`] gives it its entity later.
    #[inline]
    pub(crate) fn push_value(&mut self, value: T) {
        self.values.values.push(value);
    }

    /// Gives the values appended by `push_value` and not yet attached their entities: the
    /// first of them to `entities[0]`, and so on. Values beyond `entities` are dropped (their
    /// entities could not be spawned). No slot of `entities` may be held by the store;
    /// `ascending` is the length of the prefix of `entities` whose slots strictly ascend (a
    /// batch computes it once for all its stores).
    ///
    /// All or nothing: every allocation is made before anything is written.
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfMemory`] if a column or sparse page could not grow, or
    /// [`StoreError::Full`]; the store then holds none of `entities` (the values pushed for
    /// them are dropped when the batch ends).
    pub(crate) fn attach(
        &mut self,
        entities: &[Entity],
        ascending: usize,
    ) -> Result<(), StoreError> {
        let index = &mut *self.index;
        let start = index.entities.len();
        let end = start + entities.len();
        debug_assert!(self.values.values.len() >= end, "more entities than values");
        debug_assert!(
            entities[..ascending]
                .windows(2)
                .all(|w| w[0].slot() < w[1].slot()),
            "the ascending prefix does not ascend"
        );
        debug_assert!(
            entities
                .iter()
                .all(|e| index.sparse.get(e.slot()) == ABSENT),
            "slot already held"
        );
        if end > MAX_DENSE {
            return Err(StoreError::Full { max: MAX_DENSE });
        }
        #[cfg(test)]
        if FAIL_ATTACH_AFTER.with(|left| match left.get() {
            Some(0) => true,
            Some(n) => {
                left.set(Some(n - 1));
                false
            }
            None => false,
        }) {
            return Err(StoreError::OutOfMemory);
        }
        let n = entities.len();
        let (run, rest) = entities.split_at(ascending);
        let reserved = index.sparse.try_reserve_pages(run, rest).is_ok()
            && index.entities.try_reserve(n).is_ok()
            && index.displaced.try_reserve(n).is_ok()
            && index
                .added
                .try_reserve(end.saturating_sub(index.added.len()))
                .is_ok()
            && (self.values.changed)
                .try_reserve(end.saturating_sub(self.values.changed.len()))
                .is_ok();
        if !reserved {
            return Err(StoreError::OutOfMemory);
        }
        // Nothing below can fail.
        self.values.values.truncate(end);
        let first = start as u32;
        index.sparse.set_ascending(run, first);
        for (e, at) in rest.iter().zip(first + ascending as u32..) {
            index.sparse.set_existing(e.slot(), at);
        }
        index.entities.extend_from_slice(entities);
        // Earlier `push`es of this batch await their flags: `Drop` then writes them all.
        if index.displaced.len() == start {
            flag_appended(index, start, ascending);
        }
        Ok(())
    }
}

/// Writes the order flags of the elements appended at `start..` (none flagged yet), whose first
/// `ascending` slots strictly ascend: exactly what `insert` decides one value at a time
/// (`append` in `mod.rs`; keep the two in step). A value is in order if the one before it is
/// (not flagged) and has a lower slot, so the batch's flags are `false` for its ascending
/// prefix if that extends the store's clean, lower last element (the first value of an empty
/// store is in order), and `true` from the first value out of order on: two fills.
fn flag_appended(index: &mut IndexColumns, start: usize, ascending: usize) {
    let len = index.entities.len();
    debug_assert_eq!(
        index.displaced.len(),
        start,
        "appended values already flagged"
    );
    let extends = match start.checked_sub(1) {
        None => true,
        Some(p) => {
            !index.displaced[p]
                && index
                    .entities
                    .get(start)
                    .is_some_and(|e| index.entities[p].slot() < e.slot())
        }
    };
    let in_order = if extends { ascending } else { 0 };
    index.displaced.resize(start + in_order, false);
    index.displaced.resize(len, true);
    index.displaced_count += len - start - in_order;
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
        // Values pushed but never attached (the batch was cut short): no entity holds them.
        self.values.values.truncate(index.entities.len());
        let len = index.entities.len();
        if index.added.len() == len {
            return; // nothing appended
        }
        index.added.resize(len, self.now);
        self.values.changed.resize(len, self.now);
        *self.last_changed = self.now;
        let start = index.displaced.len(); // `attach` may have set the flags already
        let ascending = ascending_prefix(&index.entities[start..]);
        flag_appended(index, start, ascending);
    }
}
