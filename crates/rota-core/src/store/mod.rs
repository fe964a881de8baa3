//! `Store<T>`: a sparse set of `T` keyed by entity, iterated in ascending slot order.
//!
//! # Layout and invariants
//!
//! ```text
//!   sparse (paged, slot -> dense index)     dense (two parallel columns)
//!   slot:  0    1    2    3    4             index:     0     1     2
//!          MAX  0    MAX  2    1             entities: 1v0   4v0   3v1
//!                                            values:    a     b     c
//! ```
//!
//! * **Back-pointers agree**: for every dense index `i`, `sparse[entities[i].slot] == i`; every
//!   other sparse entry is `ABSENT` (`u32::MAX`). `entities` and `values` always have the same
//!   length, including after a failed allocation.
//! * **Displacement flags**: `displaced[i]` marks a dense element that may be out of order
//!   (an appended low slot, or the element a swap-`remove` moved into a hole). **The elements
//!   not flagged are strictly ascending by slot**, and `displaced_count` counts the flags; a
//!   store with no flag is *settled*. The example above is unsettled (`4v0` before `3v1`);
//!   `insert` of a low slot or a swap-`remove` of a non-last element produce that in O(1).
//! * **Order contract**: [`Store::iter`] yields ascending slots in every state. A settled store
//!   iterates as a plain slice walk; an unsettled one, seen through `&self`, falls back to a walk
//!   over the sparse pages (cost ∝ highest slot, still ascending). Anything holding `&mut`
//!   ([`Store::iter_mut`], [`Store::settle`], and the `World` at its sync points) settles first: a
//!   sort that only sorts the k displaced elements and merges them into the ascending rest:
//!   O(n + k log k), with sequential moves only. Removing every element in ascending order (the `add_remove` benchmark pattern)
//!   stays O(1) per removal: swap-removes only flag the disorder, and an emptied store is sorted.
//!
//! Memory: 4 bytes per slot in each touched 4096-slot page (16 KiB a page), plus
//! `17 + size_of::<T>()` bytes per stored value (entity, displacement flag, the `added` and
//! `changed` ticks, value). Zero-sized `T` (tags) store no values at all.
//!
//! Cost: a settled store iterates as one slice walk, O(n), as fast as a `Vec<T>`; the `&self`
//! walk over an unsettled store is O(highest slot) through the sparse pages; settling is
//! O(n + k log k) for k displaced elements. Measured figures, with their command:
//! `docs/benchmarks.md`, "Ordered iteration after churn".

pub(crate) mod index;
pub(crate) mod sparse;

use std::fmt;

use crate::entity::Entity;
use crate::error::StoreError;
use crate::tick::{ComponentTicks, Tick};
use sparse::{ABSENT, SparsePages};

/// A sparse set holding at most one `T` per entity slot, iterated in ascending slot order.
///
/// # Ordering contract
///
/// [`iter`](Store::iter) and [`iter_mut`](Store::iter_mut) yield `(Entity, value)` pairs in
/// ascending slot order whatever the insert/remove history; two stores with the same contents
/// iterate identically. Only [`iter_unordered`](Store::iter_unordered) exposes the history-
/// dependent dense order, for callers who truly do not care.
///
/// # Entities and generations
///
/// A store keys values by slot and remembers the full [`Entity`]. Lookups with a handle whose
/// generation differs from the stored one find nothing; inserting for a newer incarnation of a
/// slot replaces the older one's value (and returns it). Inside a `World` this never arises:
/// despawn removes the entity from every store before its slot is reused.
///
/// # Examples
///
/// ```
/// use rota_core::{Entities, Store};
///
/// let mut entities = Entities::new();
/// let [a, b, c] = [(); 3].map(|_| entities.spawn().unwrap());
/// let mut names = Store::new();
/// names.insert(c, "carol");
/// names.insert(a, "alice");
/// names.insert(b, "bob");
/// names.remove(a);
/// let order: Vec<_> = names.iter().map(|(_, n)| *n).collect();
/// assert_eq!(order, ["bob", "carol"]); // ascending slot, not insertion order
/// ```
pub struct Store<T> {
    sparse: SparsePages,
    entities: Vec<Entity>,
    values: Vec<T>,
    /// When each value was added, parallel to `values` (same length, moved with them
    /// everywhere).
    added: Vec<Tick>,
    /// When each value last changed, parallel to `values`. A column of its own so that a writer
    /// stamps a run with one contiguous fill.
    changed: Vec<Tick>,
    /// High-water mark: no value's `changed` tick is newer than this (a `Changed<T>` query whose
    /// window does not contain it skips the whole store).
    last_changed: Tick,
    /// The tick writes through the store's own methods stamp (the world sets it).
    now: Tick,
    displaced: Vec<bool>,
    displaced_count: usize,
}

impl<T> Default for Store<T> {
    fn default() -> Self {
        Store::new()
    }
}

impl<T: Clone> Clone for Store<T> {
    fn clone(&self) -> Self {
        let mut copy = Store::new();
        copy.clone_from_with(self, Vec::clone_from);
        copy
    }

    fn clone_from(&mut self, source: &Self) {
        self.clone_from_with(source, Vec::clone_from);
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
            sparse,
            entities,
            values,
            added,
            changed,
            last_changed,
            now,
            displaced,
            displaced_count,
        } = self;
        sparse.clone_from(&source.sparse);
        entities.clone_from(&source.entities);
        column_from(values, &source.values);
        added.clone_from(&source.added);
        changed.clone_from(&source.changed);
        *last_changed = source.last_changed;
        *now = source.now;
        displaced.clone_from(&source.displaced);
        *displaced_count = source.displaced_count;
    }
}

impl<T: fmt::Debug> fmt::Debug for Store<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T> Store<T> {
    /// An empty store. Allocates nothing until the first insert.
    pub const fn new() -> Store<T> {
        Store {
            sparse: SparsePages::new(),
            entities: Vec::new(),
            values: Vec::new(),
            added: Vec::new(),
            changed: Vec::new(),
            last_changed: Tick::new(0),
            now: Tick::new(0),
            displaced: Vec::new(),
            displaced_count: 0,
        }
    }

    /// The tick that inserts and `&mut` access through this store's methods stamp. A `World`
    /// keeps it equal to its own change tick; a free-standing store stays at tick 0 unless set.
    #[inline]
    pub fn set_change_tick(&mut self, now: Tick) {
        self.now = now;
    }

    /// The tick writes are stamped with (see [`Store::set_change_tick`]).
    #[inline]
    pub fn change_tick(&self) -> Tick {
        self.now
    }

    /// No value's `changed` tick is newer than this high-water mark.
    #[inline]
    pub fn last_changed(&self) -> Tick {
        self.last_changed
    }

    /// When `entity`'s value was added and last changed, if the store holds one.
    #[inline]
    pub fn ticks(&self, entity: Entity) -> Option<ComponentTicks> {
        self.dense_index(entity).map(|d| ComponentTicks {
            added: self.added[d],
            changed: self.changed[d],
        })
    }

    /// When each value last changed, parallel to [`Store::dense_values`].
    #[inline]
    pub fn dense_changed_ticks(&self) -> &[Tick] {
        &self.changed
    }

    /// When each value was added, parallel to [`Store::dense_values`].
    #[inline]
    pub fn dense_added_ticks(&self) -> &[Tick] {
        &self.added
    }

    /// Clamps every tick to at most [`MAX_AGE`](crate::tick::MAX_AGE) old at `now`.
    pub(crate) fn clamp_ticks(&mut self, now: Tick) {
        for t in self.added.iter_mut().chain(&mut self.changed) {
            t.clamp(now);
        }
        self.last_changed.clamp(now);
    }

    /// Number of values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the store holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Whether the dense columns are currently in ascending slot order, so that ordered iteration
    /// is a plain slice walk. Iteration order is ascending either way.
    #[inline]
    pub fn is_settled(&self) -> bool {
        self.displaced_count == 0
    }

    /// Dense index of `entity`'s value, if the store holds one for exactly this entity.
    #[inline]
    pub fn dense_index(&self, entity: Entity) -> Option<usize> {
        let d = self.sparse.get(entity.slot());
        if d == ABSENT {
            return None;
        }
        let d = d as usize;
        (self.entities[d] == entity).then_some(d)
    }

    /// Whether the store holds a value for `entity` (exact generation).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.dense_index(entity).is_some()
    }

    /// The value for `entity`, if any.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.dense_index(entity).map(|d| &self.values[d])
    }

    /// The value for `entity`, mutably, if any.
    ///
    /// Stamps the value changed at the store's change tick (whether or not the caller writes).
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        let d = self.dense_index(entity)?;
        self.changed[d] = self.now;
        self.last_changed = self.now;
        Some(&mut self.values[d])
    }

    /// Stores `value` for `entity`, returning the value it replaces, if any.
    ///
    /// Appending a slot higher than every stored one keeps the store settled; a lower slot
    /// flags it unsettled (O(1); the next `&mut` iteration sorts).
    ///
    /// # Panics
    ///
    /// Only if memory runs out, like `Vec::push`; [`Store::try_insert`] reports that instead.
    #[track_caller]
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
    /// [`StoreError::OutOfMemory`] if a column or sparse page could not grow.
    #[inline]
    pub fn try_insert(&mut self, entity: Entity, value: T) -> Result<Option<T>, (StoreError, T)> {
        let d = self.sparse.get(entity.slot());
        if d != ABSENT {
            let d = d as usize;
            self.entities[d] = entity;
            self.changed[d] = self.now;
            self.last_changed = self.now;
            return Ok(Some(std::mem::replace(&mut self.values[d], value)));
        }
        if let Err(e) = self.try_reserve(1) {
            return Err((e, value));
        }
        if self.added.try_reserve(1).is_err() || self.changed.try_reserve(1).is_err() {
            return Err((StoreError::OutOfMemory, value));
        }
        let index = self.entities.len() as u32;
        if self.sparse.try_set(entity.slot(), index).is_err() {
            return Err((StoreError::OutOfMemory, value));
        }
        if let Err(e) = self
            .displaced
            .try_reserve(1)
            .map_err(|_| StoreError::OutOfMemory)
        {
            self.sparse.set_existing(entity.slot(), ABSENT);
            return Err((e, value));
        }
        // Capacity was reserved above for all columns: no push can fail or reallocate.
        self.append(entity, value);
        Ok(None)
    }

    /// Appends `value` for an entity whose slot the store does not hold (a freshly spawned
    /// entity in a `World`). Skips `try_insert`'s presence check; settledness is kept exactly as
    /// `insert` would: an append above the highest clean slot stays settled.
    ///
    /// # Panics
    ///
    /// If memory runs out.
    #[inline]
    pub(crate) fn push_absent(&mut self, entity: Entity, value: T) {
        debug_assert_eq!(self.sparse.get(entity.slot()), ABSENT, "slot already held");
        let index = u32::try_from(self.entities.len()).expect("a store holds < 2^32 values");
        if self.sparse.try_set(entity.slot(), index).is_err() {
            panic!("{}", StoreError::OutOfMemory);
        }
        self.append(entity, value);
    }

    /// Pushes a new element on every dense column (its sparse entry is already set), added and
    /// changed now. It is clean only if it extends the ascending run: the last element is clean
    /// and has a lower slot.
    #[inline]
    fn append(&mut self, entity: Entity, value: T) {
        let in_order = match (self.entities.last(), self.displaced.last()) {
            (None, _) => true,
            (Some(last), Some(false)) => last.slot() < entity.slot(),
            _ => false,
        };
        self.entities.push(entity);
        self.values.push(value);
        self.added.push(self.now);
        self.changed.push(self.now);
        self.last_changed = self.now;
        self.displaced.push(!in_order);
        self.displaced_count += usize::from(!in_order);
    }

    /// Removes every entity of `gone` the store holds (others are ignored), returning how many.
    ///
    /// Few removals swap-remove one by one (O(1) each, flagging disorder); many compact the
    /// columns in one order-preserving pass, O(len + gone), which leaves a settled store settled.
    pub(crate) fn remove_many(&mut self, gone: &[Entity]) -> usize {
        // Compaction walks every value once; swap-removes cost O(1) each but leave displaced
        // elements for the next settle (O(n + k log k)). Past one removal in 16, compact.
        if gone.len() * 16 < self.entities.len() {
            return gone.iter().filter(|&&e| self.remove(e).is_some()).count();
        }
        let mut removed = 0;
        for &e in gone {
            if self.dense_index(e).is_some() {
                self.sparse.set_existing(e.slot(), ABSENT);
                removed += 1;
            }
        }
        if removed == 0 {
            return 0;
        }
        // A removed element is one whose sparse entry was just cleared.
        let sparse = &self.sparse;
        let keep: Vec<bool> = self
            .entities
            .iter()
            .map(|e| sparse.get(e.slot()) != ABSENT)
            .collect();
        let mut k = keep.iter();
        self.entities.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        self.values.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        self.added.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        self.changed.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        self.displaced.retain(|_| *k.next().unwrap_or(&false));
        for (i, e) in self.entities.iter().enumerate() {
            self.sparse.set_existing(e.slot(), i as u32);
        }
        // `retain` keeps relative order, so clean elements stay ascending.
        self.displaced_count = self.displaced.iter().filter(|&&f| f).count();
        if self.entities.len() <= 1 && self.displaced_count > 0 {
            self.displaced.fill(false);
            self.displaced_count = 0;
        }
        removed
    }

    /// Removes and returns `entity`'s value, if the store holds one for exactly this entity.
    ///
    /// O(1): the last dense element moves into the hole (its sparse back-pointer is repaired);
    /// if the hole was not last, the store is flagged unsettled.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Option<T> {
        let d = self.dense_index(entity)?;
        let last = self.entities.len() - 1;
        self.sparse.set_existing(entity.slot(), ABSENT);
        self.entities.swap_remove(d);
        let value = self.values.swap_remove(d);
        self.added.swap_remove(d);
        self.changed.swap_remove(d);
        if self.displaced.swap_remove(d) {
            self.displaced_count -= 1;
        }
        if d != last {
            // The element that was last now sits at `d`: repair its back-pointer, and flag it
            // (it left the end of the order; the clean elements around it stay ascending).
            let moved = self.entities[d];
            self.sparse.set_existing(moved.slot(), d as u32);
            if !std::mem::replace(&mut self.displaced[d], true) {
                self.displaced_count += 1;
            }
        }
        if self.entities.len() <= 1 && self.displaced_count > 0 {
            self.displaced.fill(false);
            self.displaced_count = 0;
        }
        Some(value)
    }

    /// Removes every value. Keeps allocated memory for reuse.
    pub fn clear(&mut self) {
        self.sparse.clear();
        self.entities.clear();
        self.values.clear();
        self.added.clear();
        self.changed.clear();
        self.displaced.clear();
        self.displaced_count = 0;
    }

    /// Reserves room for `additional` more values in both dense columns.
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfMemory`] if either column cannot grow; their lengths are unchanged.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), StoreError> {
        self.entities
            .try_reserve(additional)
            .map_err(|_| StoreError::OutOfMemory)?;
        self.values
            .try_reserve(additional)
            .map_err(|_| StoreError::OutOfMemory)?;
        // The displacement flags grow with the columns; reserving them too spares a batch
        // their reallocations. Failing here is harmless: `try_insert` reserves per push.
        let _ = self.displaced.try_reserve(additional);
        let _ = self.added.try_reserve(additional);
        let _ = self.changed.try_reserve(additional);
        Ok(())
    }

    /// Sorts the dense columns by slot if they are out of order, so later ordered iteration is a
    /// plain slice walk. Cheap when already settled (one counter check); otherwise
    /// O(n + k log k) for k displaced elements.
    pub fn settle(&mut self) {
        if self.displaced_count == 0 {
            return;
        }
        let n = self.entities.len();
        // 1. Pull the displaced elements out; `extract_if` compacts the clean ones in place,
        //    keeping their (ascending) order. Both columns see the same flags in the same order.
        let mut flags = self.displaced.iter().copied();
        let mut moved_entities: Vec<Entity> = self
            .entities
            .extract_if(.., |_| flags.next().unwrap_or(false))
            .collect();
        let mut flags = self.displaced.iter().copied();
        let moved_values: Vec<T> = self
            .values
            .extract_if(.., |_| flags.next().unwrap_or(false))
            .collect();
        let mut flags = self.displaced.iter().copied();
        let moved_added: Vec<Tick> = self
            .added
            .extract_if(.., |_| flags.next().unwrap_or(false))
            .collect();
        let mut flags = self.displaced.iter().copied();
        let moved_ticks: Vec<ComponentTicks> = self
            .changed
            .extract_if(.., |_| flags.next().unwrap_or(false))
            .zip(moved_added)
            .map(|(changed, added)| ComponentTicks { added, changed })
            .collect();
        // 2. Sort the few displaced ones by slot (packed keys: one u64 compare per step).
        let mut order: Vec<u64> = moved_entities
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.slot() as u64) << 32) | i as u64)
            .collect();
        order.sort_unstable();
        let mut slots: Vec<Option<T>> = moved_values.into_iter().map(Some).collect();
        let sorted_moved: Vec<(Entity, T, ComponentTicks)> = order
            .iter()
            .map(|&k| {
                let i = (k & 0xFFFF_FFFF) as usize;
                let v = slots[i]
                    .take()
                    .expect("each displaced element is taken once");
                (moved_entities[i], v, moved_ticks[i])
            })
            .collect();
        moved_entities.clear();
        // 3. Merge the two ascending runs, front to back, into fresh columns.
        let clean_entities = std::mem::take(&mut self.entities);
        let clean_values = std::mem::take(&mut self.values);
        let clean_ticks = std::mem::take(&mut self.added)
            .into_iter()
            .zip(std::mem::take(&mut self.changed))
            .map(|(added, changed)| ComponentTicks { added, changed });
        let mut entities = Vec::with_capacity(n);
        let mut values = Vec::with_capacity(n);
        let mut ticks: Vec<ComponentTicks> = Vec::with_capacity(n);
        let mut moved = sorted_moved.into_iter().peekable();
        for ((e, v), t) in clean_entities
            .into_iter()
            .zip(clean_values)
            .zip(clean_ticks)
        {
            while let Some((m, _, _)) = moved.peek() {
                if m.slot() < e.slot() {
                    let (m, mv, mt) = moved.next().expect("peeked");
                    entities.push(m);
                    values.push(mv);
                    ticks.push(mt);
                } else {
                    break;
                }
            }
            entities.push(e);
            values.push(v);
            ticks.push(t);
        }
        for (m, mv, mt) in moved {
            entities.push(m);
            values.push(mv);
            ticks.push(mt);
        }
        debug_assert_eq!(entities.len(), n);
        self.entities = entities;
        self.values = values;
        self.added = ticks.iter().map(|t| t.added).collect();
        self.changed = ticks.iter().map(|t| t.changed).collect();
        for (i, e) in self.entities.iter().enumerate() {
            self.sparse.set_existing(e.slot(), i as u32);
        }
        self.displaced.fill(false);
        self.displaced_count = 0;
    }

    /// `(Entity, &T)` in ascending slot order.
    pub fn iter(&self) -> Iter<'_, T> {
        if self.is_settled() {
            Iter {
                inner: IterInner::Dense(self.entities.iter().zip(self.values.iter())),
            }
        } else {
            Iter {
                inner: IterInner::Walk {
                    sparse: Box::new(self.sparse.iter()),
                    entities: &self.entities,
                    values: &self.values,
                    remaining: self.entities.len(),
                },
            }
        }
    }

    /// `(Entity, &mut T)` in ascending slot order. Settles the store first, and stamps every
    /// value changed at the store's change tick.
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        self.settle();
        self.stamp_all();
        IterMut {
            inner: self.entities.iter().zip(self.values.iter_mut()),
        }
    }

    /// `(Entity, &T)` in dense order, which depends on the insert/remove history. Use it only
    /// where order cannot matter (e.g. a commutative sum of integers); prefer [`Store::iter`].
    pub fn iter_unordered(&self) -> impl ExactSizeIterator<Item = (Entity, &T)> + '_ {
        self.entities.iter().copied().zip(self.values.iter())
    }

    /// The dense entity column. In ascending slot order iff [`Store::is_settled`].
    #[inline]
    pub fn dense_entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The dense value column, parallel to [`Store::dense_entities`].
    #[inline]
    pub fn dense_values(&self) -> &[T] {
        &self.values
    }

    /// Both dense columns, values mutable. Settles first, so both are in ascending slot order;
    /// stamps every value changed at the store's change tick.
    #[inline]
    pub fn dense_mut(&mut self) -> (&[Entity], &mut [T]) {
        self.settle();
        self.stamp_all();
        (&self.entities, &mut self.values)
    }

    /// Marks every value changed now.
    fn stamp_all(&mut self) {
        self.changed.fill(self.now);
        if !self.changed.is_empty() {
            self.last_changed = self.now;
        }
    }

    /// Checks the module invariants: back-pointers agree both ways, columns have equal length,
    /// and the store is sorted when it claims to be.
    ///
    /// # Errors
    ///
    /// A description of the first broken invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.entities.len() != self.values.len() {
            return Err(format!(
                "column lengths differ: {} entities, {} values",
                self.entities.len(),
                self.values.len()
            ));
        }
        for (i, e) in self.entities.iter().enumerate() {
            let back = self.sparse.get(e.slot());
            if back as usize != i {
                return Err(format!(
                    "dense[{i}] = {e} but sparse[{}] = {back}",
                    e.slot()
                ));
            }
        }
        let mut present = 0;
        for (slot, d) in self.sparse.iter() {
            present += 1;
            match self.entities.get(d as usize) {
                Some(e) if e.slot() == slot => {}
                _ => return Err(format!("sparse[{slot}] = {d} points at a different slot")),
            }
        }
        if present != self.entities.len() {
            return Err(format!(
                "{present} sparse entries for {} dense values",
                self.entities.len()
            ));
        }
        if self.added.len() != self.entities.len() || self.changed.len() != self.entities.len() {
            return Err(format!(
                "{} added and {} changed ticks for {} values",
                self.added.len(),
                self.changed.len(),
                self.entities.len()
            ));
        }
        if let Some(t) = self
            .changed
            .iter()
            .find(|t| t.age(self.now) < self.last_changed.age(self.now))
        {
            return Err(format!(
                "a value changed at {t:?}, after the store's high-water mark {:?}",
                self.last_changed
            ));
        }
        if self.displaced.len() != self.entities.len() {
            return Err(format!(
                "{} displacement flags for {} values",
                self.displaced.len(),
                self.entities.len()
            ));
        }
        let flagged = self.displaced.iter().filter(|&&f| f).count();
        if flagged != self.displaced_count {
            return Err(format!(
                "displaced_count is {} but {flagged} elements are flagged",
                self.displaced_count
            ));
        }
        let mut previous: Option<u32> = None;
        for (e, _) in self
            .entities
            .iter()
            .zip(&self.displaced)
            .filter(|(_, f)| !**f)
        {
            if previous.is_some_and(|p| p >= e.slot()) {
                return Err(if self.displaced_count == 0 {
                    "store claims to be settled but dense is not ascending".into()
                } else {
                    format!("clean elements are not ascending at slot {}", e.slot())
                });
            }
            previous = Some(e.slot());
        }
        Ok(())
    }

    /// Number of 16 KiB sparse pages allocated (one per 4096-slot range ever touched).
    pub fn sparse_pages(&self) -> usize {
        self.sparse.allocated_pages()
    }
}

/// Ordered iterator over a [`Store`]; see [`Store::iter`].
pub struct Iter<'a, T> {
    inner: IterInner<'a, T>,
}

type SparseWalk<'a> = Box<dyn Iterator<Item = (u32, u32)> + 'a>;

enum IterInner<'a, T> {
    Dense(std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::Iter<'a, T>>),
    Walk {
        sparse: SparseWalk<'a>,
        entities: &'a [Entity],
        values: &'a [T],
        remaining: usize,
    },
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = (Entity, &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            IterInner::Dense(it) => it.next().map(|(e, v)| (*e, v)),
            IterInner::Walk {
                sparse,
                entities,
                values,
                remaining,
            } => {
                if *remaining == 0 {
                    return None;
                }
                let (_, d) = sparse.next()?;
                *remaining -= 1;
                Some((entities[d as usize], &values[d as usize]))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            IterInner::Dense(it) => it.len(),
            IterInner::Walk { remaining, .. } => *remaining,
        };
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

/// Ordered mutable iterator over a [`Store`]; see [`Store::iter_mut`].
pub struct IterMut<'a, T> {
    inner: std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::IterMut<'a, T>>,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = (Entity, &'a mut T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|(e, v)| (*e, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}

impl<'a, T> IntoIterator for &'a Store<T> {
    type Item = (Entity, &'a T);
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Store<T> {
    type Item = (Entity, &'a mut T);
    type IntoIter = IterMut<'a, T>;
    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

/// Entities present in both stores, with both values, in ascending slot order.
///
/// Walks the smaller store in order and probes the other, so the cost is
/// O(min(len) + probes) — plus the unsettled fallback cost if the smaller store is unsettled.
///
/// ```
/// use rota_core::{join, Entities, Store};
///
/// let mut entities = Entities::new();
/// let [a, b, c] = [(); 3].map(|_| entities.spawn().unwrap());
/// let mut pos = Store::new();
/// let mut vel = Store::new();
/// for e in [c, a, b] { pos.insert(e, e.slot() as f32); }
/// vel.insert(c, 1.0f32);
/// vel.insert(a, 2.0f32);
/// let joined: Vec<_> = join(&pos, &vel).map(|(e, p, v)| (e, *p, *v)).collect();
/// assert_eq!(joined, vec![(a, 0.0, 2.0), (c, 2.0, 1.0)]);
/// ```
pub fn join<'a, A, B>(
    a: &'a Store<A>,
    b: &'a Store<B>,
) -> Box<dyn Iterator<Item = (Entity, &'a A, &'a B)> + 'a> {
    if a.len() <= b.len() {
        Box::new(
            a.iter()
                .filter_map(move |(e, va)| b.get(e).map(|vb| (e, va, vb))),
        )
    } else {
        Box::new(
            b.iter()
                .filter_map(move |(e, vb)| a.get(e).map(|va| (e, va, vb))),
        )
    }
}

#[cfg(test)]
mod tests;
