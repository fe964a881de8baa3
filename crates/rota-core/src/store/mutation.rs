//! Inserts and removes: appending a new entity's element, replacing or reviving one in place,
//! removing one (swap-remove), many (one compacting pass) or all.
//!
//! Invariants: the five dense columns always have the same length, including after a failed
//! allocation (`has_room_for_one` / `reserve_one` make room before any push); an appended
//! element is clean (not displaced) only if it extends the ascending run; a swap-remove of a
//! non-last element flags the element it moved into the hole.

use super::*;

/// Whether each of the five dense columns has room for one more element (what `append`
/// pushes), so that no push reallocates.
#[inline]
pub(super) fn has_room_for_one<T>(index: &IndexColumns, values: &ValueColumns<T>) -> bool {
    let spare = |len: usize, capacity: usize| capacity > len;
    spare(index.entities.len(), index.entities.capacity())
        && spare(values.values.len(), values.values.capacity())
        && spare(index.added.len(), index.added.capacity())
        && spare(values.changed.len(), values.changed.capacity())
        && spare(index.displaced.len(), index.displaced.capacity())
}

/// Makes room for one more element in each of the five dense columns (amortized growth, as
/// `Vec::push` would). On error some columns may have grown; none changed length.
#[cold]
#[inline(never)]
pub(super) fn reserve_one<T>(
    index: &mut IndexColumns,
    values: &mut ValueColumns<T>,
) -> Result<(), StoreError> {
    let oom = |_| StoreError::OutOfMemory;
    index.entities.try_reserve(1).map_err(oom)?;
    values.values.try_reserve(1).map_err(oom)?;
    index.added.try_reserve(1).map_err(oom)?;
    values.changed.try_reserve(1).map_err(oom)?;
    index.displaced.try_reserve(1).map_err(oom)
}

/// Pushes a new element on every dense column (its sparse entry is already set), added and
/// changed `now`. It is clean only if it extends the ascending run: the last element is clean
/// and has a lower slot.
#[inline]
pub(super) fn append<T>(
    index: &mut IndexColumns,
    columns: &mut ValueColumns<T>,
    now: Tick,
    entity: Entity,
    value: T,
) {
    let in_order = match (index.entities.last(), index.displaced.last()) {
        (None, _) => true,
        (Some(last), Some(false)) => last.slot() < entity.slot(),
        _ => false,
    };
    index.entities.push(entity);
    columns.values.push(value);
    index.added.push(now);
    columns.changed.push(now);
    index.displaced.push(!in_order);
    index.displaced_count += usize::from(!in_order);
}

impl<T> Store<T> {
    /// Stores `value` for `entity`, returning the value it replaces, if any.
    ///
    /// Appending a slot higher than every stored one keeps the store settled; a lower slot
    /// flags it unsettled (O(1); the next `&mut` iteration sorts). An entity whose value was
    /// left dead here (by `World::delete`) gets its element back in place — nothing appended,
    /// the order as it was — unless a settle, or an append that compacted the dead elements
    /// first, has dropped it since.
    ///
    /// # Panics
    ///
    /// Only if memory runs out, like `Vec::push`, or the store is full (2³¹ − 1 elements);
    /// [`Store::try_insert`] reports those instead.
    #[track_caller]
    #[inline(always)]
    pub fn insert(&mut self, entity: Entity, value: T) -> Option<T> {
        match self.try_insert(entity, value) {
            Ok(old) => old,
            Err((e, _)) => panic!("{e}"),
        }
    }

    /// Like [`Store::insert`], but returns allocation failure as an error, together with the
    /// value that could not be stored. On error nothing changed: both dense columns keep the
    /// same length.
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfMemory`] if a column or sparse page could not grow;
    /// [`StoreError::Full`] if the columns already hold 2³¹ − 1 elements.
    #[inline(always)]
    pub fn try_insert(&mut self, entity: Entity, value: T) -> Result<Option<T>, (StoreError, T)> {
        let now = self.now;
        // Every insert writes the value half: made exclusive first, so that a component
        // `Clone` panicking in the copy finds the index as it was (a revive below changes it).
        // Field by field from here (the index half is a disjoint borrow).
        let columns = values_mut(&mut self.values, self.copy_values);
        let found = match &mut self.index {
            Half::Owned(index) => index.revive_or_find(entity, now),
            // Shared with a snapshot: read, and copied only if there is an element to revive.
            Half::Shared(index) => match index.sparse.entry(entity.slot()) {
                Entry::Dead(d) if index.is_dead_element_of(d, entity) => self
                    .index
                    .get_mut(IndexColumns::clone)
                    .revive_or_find(entity, now),
                entry => Found::Entry(entry),
            },
        };
        let entry = match found {
            Found::Revived(d) => {
                columns.changed[d] = now;
                // The dead value has no drop glue (only those are left dead): overwritten, not
                // dropped.
                columns.values[d] = value;
                self.last_changed = now;
                return Ok(None);
            }
            Found::Entry(entry) => entry,
        };
        match entry {
            Entry::Held(d) => {
                if self.index.entities[d] != entity {
                    self.index.get_mut(IndexColumns::clone).entities[d] = entity;
                }
                self.last_changed = now;
                columns.changed[d] = now;
                return Ok(Some(std::mem::replace(&mut columns.values[d], value)));
            }
            Entry::Dead(_) | Entry::Absent => {}
        }
        self.append_new(entity, value, now)
    }

    /// The rest of [`Store::try_insert`], for an entity the store holds no value (live or
    /// dead) for: appended. Out of line, so that the paths before it — a revive, a replace —
    /// stay small enough to inline at every caller (a function with several callers is inlined
    /// by size alone).
    #[inline(never)]
    pub(super) fn append_new(
        &mut self,
        entity: Entity,
        value: T,
        now: Tick,
    ) -> Result<Option<T>, (StoreError, T)> {
        self.compact_if_mostly_dead();
        let (mut index, mut values) = self.columns_mut();
        if index.entities.len() >= MAX_DENSE {
            return Err((StoreError::Full { max: MAX_DENSE }, value));
        }
        if !has_room_for_one(index, values) {
            if let Err(e) = reserve_one(index, values) {
                return Err((e, value));
            }
            (index, values) = self.columns_mut();
        }
        let at = index.entities.len() as u32;
        if index.sparse.try_set(entity.slot(), at).is_err() {
            return Err((StoreError::OutOfMemory, value));
        }
        // Every column has room (checked above): no push can fail or reallocate.
        append(index, values, now, entity, value);
        self.last_changed = now;
        Ok(None)
    }

    /// Removes every entity of `gone` the store holds (others are ignored), returning their
    /// values, in no particular order. The values are moved out, not dropped: the caller drops
    /// them once every column (here, and in the other stores it is cleaning) is consistent, so
    /// a component whose `Drop` panics cannot leave a store half-compacted.
    ///
    /// Few removals swap-remove one by one (O(1) each, flagging disorder); many compact the
    /// columns in one order-preserving pass from the first hole, O(len + gone), which leaves a
    /// settled store settled: the index columns and the back-pointers move in one loop, the
    /// values in one `extract_if` (measured: `cargo bench --bench workloads -- despawn/batch`,
    /// docs/benchmarks.md).
    pub(crate) fn remove_many(&mut self, gone: &[Entity]) -> Vec<T> {
        // Compaction walks every value once; swap-removes cost O(1) each but leave displaced
        // elements for the next settle (O(n + k log k)). Past one removal in 16, compact.
        if gone.len() * 16 < self.len() {
            return gone.iter().filter_map(|&e| self.remove(e)).collect();
        }
        if !gone.iter().any(|&e| self.contains(e)) {
            return Vec::new();
        }
        // Both halves exclusive before the first change: a component `Clone` panicking in the
        // copy of the values finds the store as it was.
        let (index, _) = self.columns_mut();
        // Mark where the removed elements sit (clearing each one's sparse entry as it is found
        // makes a repeated entity count once); nothing below the first hole moves.
        let len = index.entities.len();
        let mut hole = vec![false; len];
        let mut first = len;
        index.detach(gone, |d| {
            hole[d] = true;
            first = first.min(d);
        });
        self.compact(hole, first)
    }

    /// Drops the elements at the `hole` positions (their back-pointers already cleared, their
    /// flags dropped; none below `first`) and the dead ones, in one order-preserving pass from
    /// the first (see [`IndexColumns::compact`]). Returns the dropped values, dead ones
    /// included.
    pub(super) fn compact(&mut self, mut hole: Vec<bool>, mut first: usize) -> Vec<T> {
        let (index, columns) = self.columns_mut();
        // Dead elements leave with the others (their values are returned too, to be dropped).
        for d in index.take_dead() {
            hole[d as usize] = true;
            first = first.min(d as usize);
        }
        index.compact(&mut columns.changed, &hole, first);
        let mut at = first;
        columns
            .values
            .extract_if(first.., |_| {
                at += 1;
                hole[at - 1]
            })
            .collect()
    }

    /// Removes `entity`'s value for a caller that will drop it (`World::delete`, removals
    /// applied from commands): a value with no drop glue is marked dead where it is (one sparse
    /// entry and a counter; see `dead.rs`), another is swap-removed and handed back, for the
    /// caller to drop once its own books agree (a `Drop` may panic).
    #[inline]
    pub(crate) fn discard(&mut self, entity: Entity) -> Discarded<T> {
        if std::mem::needs_drop::<T>() {
            return match self.remove(entity) {
                Some(value) => Discarded::Taken(value),
                None => Discarded::NotHeld,
            };
        }
        if self.mark_dead(entity, true) {
            Discarded::Dead
        } else {
            Discarded::NotHeld
        }
    }

    /// Removes and returns `entity`'s value, if the store holds one for exactly this entity.
    ///
    /// O(1): the last dense element moves into the hole (its sparse back-pointer is repaired);
    /// if the hole was not last, the store is flagged unsettled.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Option<T> {
        let d = self.dense_index(entity)?;
        let (index, columns) = self.columns_mut();
        let last = index.entities.len() - 1;
        index.sparse.set_existing(entity.slot(), ABSENT);
        index.entities.swap_remove(d);
        let value = columns.values.swap_remove(d);
        index.added.swap_remove(d);
        columns.changed.swap_remove(d);
        if index.displaced.swap_remove(d) {
            index.displaced_count -= 1;
        }
        if d != last {
            // The element that was last now sits at `d`: its sparse entry follows it (a dead
            // one's tag, `dead.rs`; `entity`'s entry, cleared above, holds neither), and it is
            // flagged (it left the end of the order; the clean elements around it stay
            // ascending).
            index.follow_move(index.entities[d].slot(), last, d);
            if !std::mem::replace(&mut index.displaced[d], true) {
                index.displaced_count += 1;
            }
        }
        if index.entities.len() <= 1 && index.displaced_count > 0 {
            index.displaced.fill(false);
            index.displaced_count = 0;
        }
        // The last live element may have gone, leaving only dead ones.
        self.empty_if_all_dead();
        Some(value)
    }

    /// Removes every value. Keeps allocated memory for reuse (when no snapshot shares it).
    pub fn clear(&mut self) {
        let (index, columns) = self.columns_mut();
        index.sparse.clear();
        index.entities.clear();
        columns.values.clear();
        index.added.clear();
        columns.changed.clear();
        columns.changed_floor = None;
        index.displaced.clear();
        index.displaced_count = 0;
        index.dead = 0;
    }

    /// Reserves room for `additional` more values in both dense columns.
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfMemory`] if either column cannot grow; their lengths are unchanged.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), StoreError> {
        let (index, columns) = self.columns_mut();
        index
            .entities
            .try_reserve(additional)
            .map_err(|_| StoreError::OutOfMemory)?;
        columns
            .values
            .try_reserve(additional)
            .map_err(|_| StoreError::OutOfMemory)?;
        // The displacement flags grow with the columns; reserving them too spares a batch
        // their reallocations. Failing here is harmless: `try_insert` reserves per push.
        let _ = index.displaced.try_reserve(additional);
        let _ = index.added.try_reserve(additional);
        let _ = columns.changed.try_reserve(additional);
        Ok(())
    }
}
