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
//! * **Back-pointers agree**: for every live dense index `i`, `sparse[entities[i].slot] == i`;
//!   every other sparse entry is `ABSENT` (`u32::MAX`). `entities` and `values` always have the
//!   same length, including after a failed allocation.
//! * **Dead elements** (`dead.rs`): a despawn, or a `World::delete` (or a removal applied from
//!   commands), leaves a value with no drop glue where it is and marks its position dead; no
//!   sparse entry points at it (the slot's entry keeps it only *dead-tagged*, read as absent),
//!   so only the raw dense columns still list it. A store with a dead element is unsettled;
//!   settling, and an append once the dead outnumber the live, drop them; an insert for the
//!   same entity before that revives the element in place.
//! * **Displacement flags**: `displaced[i]` marks a dense element that may be out of order
//!   (an appended low slot, or the element a swap-`remove` moved into a hole). **The elements
//!   not flagged are strictly ascending by slot**, and `displaced_count` counts the flags; a
//!   store with no flag is *settled*. The example above is unsettled (`4v0` before `3v1`);
//!   `insert` of a low slot or a swap-`remove` of a non-last element produce that in O(1).
//! * **Order contract**: [`Store::iter`] yields ascending slots in every state. A settled store
//!   iterates as a plain slice walk; an unsettled one, seen through `&self`, falls back to a walk
//!   over the sparse pages (cost ∝ highest slot, still ascending). Anything holding `&mut`
//!   ([`Store::iter_mut`], [`Store::settle`], and the `World` at its sync points) settles first: a
//!   sort that only sorts the k displaced elements and merges them into the ascending rest
//!   (`settle.rs`: one merge plan from the entity column, applied to each column as a gather;
//!   the elements below the lowest displaced slot's place are not touched): O(n + k log k).
//!   Removing every element in ascending order (the `add_remove` benchmark pattern) stays O(1)
//!   per removal: swap-removes only flag the disorder, and an emptied store is sorted.
//!
//! * **Two copy-on-write halves**: the columns live in two halves, split by who writes them:
//!
//!   ```text
//!     index  (Half<IndexColumns>):     sparse pages, entities, added, displaced flags
//!             written by structure: insert of a new entity, remove, settle, clear
//!     values (Half<ValueColumns<T>>):  values, changed, changed_floor
//!             written by every write: get_mut, &mut queries, replacing insert (and structure);
//!             a `&mut` walk over every value sets the floor instead of each `changed` tick
//!   ```
//!
//!   A half is `Owned` until a world snapshot asks for it (`make_shareable` moves it into an
//!   `Arc`, no copy; `share_from` clones the `Arc`). A method that writes a half goes through
//!   `index_mut` / `values_mut` (one discriminant check per operation or per borrow, never
//!   per item, and no atomic while owned); a shared half becomes owned again there — copied
//!   once if a snapshot still holds it (the value column through `copy_values`, `T`'s
//!   `SnapshotPolicy::CLONE` function, set when a world registers the store: `Store<T>` has
//!   no `Clone` bound), else unwrapped for free. A rollback frame that only moves things copies
//!   the value halves it writes, never an index. A store with no copy function (free-standing,
//!   or `no_snapshot`) is never shared.
//!
//! Memory: 4 bytes per slot in each touched 4096-slot page (16 KiB a page), plus
//! `17 + size_of::<T>()` bytes per stored value (entity, displacement flag, the `added` and
//! `changed` ticks, value); dead elements cost nothing more (the sparse entries tell them). Zero-sized
//! `T` (tags) store no values at all.
//!
//! Cost: a settled store iterates as one slice walk, O(n), as fast as a `Vec<T>`; the `&self`
//! walk over an unsettled store is O(highest slot) through the sparse pages; settling is
//! O(n + k log k) for k displaced elements. Measured figures, with their command:
//! `docs/benchmarks.md`, "Ordered iteration after churn".

mod append;
mod dead;
pub(crate) mod index;
#[doc(hidden)]
pub use append::Appender;
#[cfg(test)]
pub(crate) use append::FAIL_ATTACH_AFTER;
mod settle;
pub(crate) mod sparse;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::entity::Entity;
use crate::error::StoreError;
use crate::tick::{ComponentTicks, Tick};
use sparse::{ABSENT, Entry, MAX_DENSE, SparsePages, dead_tagged};

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
/// use rota::{Entities, Store};
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
    /// Membership and order: which entities, at which dense index, added when. Changes only
    /// with structure (insert of a new entity, remove, settle). Shared with snapshots; the first
    /// structural change after a snapshot copies it (`index_mut`).
    index: Half<IndexColumns>,
    /// The values and when each last changed. Shared with snapshots; the first write after a
    /// snapshot copies it (`values_mut`).
    values: Half<ValueColumns<T>>,
    /// High-water mark: no value's `changed` tick is newer than this (a `Changed<T>` query whose
    /// window does not contain it skips the whole store).
    last_changed: Tick,
    /// The tick writes through the store's own methods stamp (the world sets it).
    now: Tick,
    /// How to copy the value column when a snapshot still shares it: `T`'s
    /// `SnapshotPolicy::CLONE` function, set when a world registers the store. `None` for a
    /// store that is never shared (free-standing, or `no_snapshot`).
    copy_values: Option<ColumnCopy<T>>,
}

/// Copies a value column into another (`SnapshotPolicy::CLONE`'s `Vec::clone_from`).
pub(crate) type ColumnCopy<T> = fn(&mut Vec<T>, &Vec<T>);

/// One copy-on-write half of a store: owned while no snapshot may share it (writes reach it
/// with no atomic operation, just this discriminant), `Arc`-shared from the moment a world
/// snapshot takes it (`Half::share`) until the store's next write to it (`Half::get_mut`:
/// copied if a snapshot still holds it, unwrapped for free if not).
enum Half<C> {
    Owned(C),
    Shared(Arc<C>),
}

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
    fn get_mut(&mut self, copy: impl FnOnce(&C) -> C) -> &mut C {
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
    fn unshare(&mut self, copy: impl FnOnce(&C) -> C) {
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
    fn overwrite(&mut self) -> &mut C {
        if let Half::Shared(_) = self {
            *self = Half::Owned(C::default());
        }
        self.get_mut(|_| C::default())
    }

    /// Turns an owned half into a shared one (moving it into an `Arc`: no copy).
    fn share(&mut self) {
        if let Half::Owned(c) = self {
            *self = Half::Shared(Arc::new(std::mem::take(c)));
        }
    }
}

impl<C> Half<C> {
    /// The `Arc`, if the half is shared.
    fn shared(&self) -> Option<&Arc<C>> {
        match self {
            Half::Owned(_) => None,
            Half::Shared(c) => Some(c),
        }
    }
}

/// A store's structural half (copy-on-write as a unit; see [`Store`]).
#[derive(Clone, Default)]
struct IndexColumns {
    sparse: SparsePages,
    entities: Vec<Entity>,
    /// When each value was added, parallel to `entities` (same length, moved with them
    /// everywhere). Here, not with the values: only structural changes write it.
    added: Vec<Tick>,
    displaced: Vec<bool>,
    displaced_count: usize,
    /// How many elements are dead: left by despawns and deletes, not yet revived or
    /// compacted away. Which ones is derived from the sparse entries (`dead.rs`).
    dead: usize,
}

impl IndexColumns {
    const fn new() -> Self {
        IndexColumns {
            sparse: SparsePages::new(),
            entities: Vec::new(),
            added: Vec::new(),
            displaced: Vec::new(),
            displaced_count: 0,
            dead: 0,
        }
    }
}

/// A store's value half (copy-on-write as a unit; see [`Store`]): what a writer touches.
struct ValueColumns<T> {
    values: Vec<T>,
    /// When each value last changed, parallel to `values`, unless `changed_floor` is newer. A
    /// column of its own so that a writer stamps a run with one contiguous fill; beside the
    /// values because every write stamps it.
    changed: Vec<Tick>,
    /// Every value changed at this tick or later: a query that handed out the whole column by
    /// `&mut` stamps it here, in O(1), instead of filling `changed`. A value's change tick is
    /// the newer of its own and this one ([`effective_changed`]); `None` until such a walk.
    changed_floor: Option<Tick>,
}

/// A value's change tick: its own, or the store's floor if that is newer. Ages are taken from
/// `last_changed`, the store's high-water mark, which no tick of the store (the floor
/// included) is newer than.
#[inline]
pub(crate) fn effective_changed(own: Tick, floor: Option<Tick>, last_changed: Tick) -> Tick {
    match floor {
        Some(floor) if floor.age(last_changed) < own.age(last_changed) => floor,
        _ => own,
    }
}

impl<T> Default for ValueColumns<T> {
    fn default() -> Self {
        ValueColumns::new()
    }
}

impl<T> ValueColumns<T> {
    const fn new() -> Self {
        ValueColumns {
            values: Vec::new(),
            changed: Vec::new(),
            changed_floor: None,
        }
    }
}

/// The values, exclusively: in place if no snapshot shares them, else after copying them once
/// with `copy_values` (the cold path). A free function over the field, so callers can hold
/// the index shared at the same time.
#[inline]
fn values_mut<T>(
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
fn shared_after_unshare() -> ! {
    panic!("rota internal invariant violated: a store column is still shared after its copy")
}

impl<T> Store<T> {
    /// The structural half, exclusively (copied first if a snapshot shares it).
    #[inline]
    fn index_mut(&mut self) -> &mut IndexColumns {
        self.index.get_mut(IndexColumns::clone)
    }

    /// The value half, exclusively (copied first if a snapshot shares it).
    #[inline]
    fn values_mut(&mut self) -> &mut ValueColumns<T> {
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
    fn columns_mut(&mut self) -> (&mut IndexColumns, &mut ValueColumns<T>) {
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

impl<T> Default for Store<T> {
    fn default() -> Self {
        Store::new()
    }
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

/// What [`Store::discard`] did with an entity's value.
pub(crate) enum Discarded<T> {
    /// The store did not hold the entity.
    NotHeld,
    /// The value (no drop glue) was marked dead in place.
    Dead,
    /// The value was swap-removed: the caller drops it.
    Taken(T),
}

/// Whether each of the five dense columns has room for one more element (what `append`
/// pushes), so that no push reallocates.
#[inline]
fn has_room_for_one<T>(index: &IndexColumns, values: &ValueColumns<T>) -> bool {
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
fn reserve_one<T>(
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
fn append<T>(
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

/// What an insert finds at its entity's slot ([`IndexColumns::revive_or_find`]).
enum Found {
    /// A dead element of the entity, revived at this position; its value is the caller's to
    /// write.
    Revived(usize),
    /// The slot's entry, as it was (nothing changed).
    Entry(Entry),
}

impl IndexColumns {
    /// Whether `d`, the position in `entity`'s dead-tagged sparse entry, still holds a dead
    /// element of exactly `entity`. The tag may be stale (compaction and settling move
    /// elements without touching tags), so the element is compared; that it is dead needs no
    /// check: a live element of `entity` would have the entry hold its position untagged
    /// (`dead.rs`).
    #[inline]
    fn is_dead_element_of(&self, d: usize, entity: Entity) -> bool {
        self.entities.get(d) == Some(&entity)
    }

    /// An insert's look at `entity`'s slot, finding its sparse entry once: a dead element of
    /// `entity` there is brought back to life — the entry untagged, the dead count lowered, added
    /// `now`, what an append would do without moving anything — and its position returned
    /// for the caller to write the value and its change tick. The element keeps its place and
    /// its displacement flag, so the order invariant holds as it did while it was dead (dead
    /// elements are ordered with the rest). Any other entry is returned as found.
    #[inline]
    fn revive_or_find(&mut self, entity: Entity, now: Tick) -> Found {
        let Some(cell) = self.sparse.cell_mut(entity.slot()) else {
            return Found::Entry(Entry::Absent);
        };
        match Entry::of(*cell) {
            // (`is_dead_element_of`, on the field: `cell` borrows the sparse pages.)
            Entry::Dead(d) if self.entities.get(d) == Some(&entity) => {
                *cell = d as u32;
                self.dead -= 1;
                self.added[d] = now;
                Found::Revived(d)
            }
            entry => Found::Entry(entry),
        }
    }

    /// Marks `entity`'s live element dead, finding its sparse entry once: the entry is tagged
    /// with the element's position, not cleared (an insert for the same entity revives the
    /// element in place), and the dead count raised. `false` (nothing changed) if the
    /// slot holds no live element, or, when `check`, one of another entity.
    #[inline(always)]
    fn mark_dead(&mut self, entity: Entity, check: bool) -> bool {
        let Some(cell) = self.sparse.cell_mut(entity.slot()) else {
            return false;
        };
        let Entry::Held(d) = Entry::of(*cell) else {
            return false;
        };
        if check && self.entities.get(d) != Some(&entity) {
            return false;
        }
        *cell = dead_tagged(d);
        self.dead += 1;
        true
    }

    /// Dense index of exactly `entity` (generation included), if present.
    #[inline]
    fn dense_index(&self, entity: Entity) -> Option<usize> {
        let d = self.sparse.get(entity.slot());
        if d == ABSENT {
            return None;
        }
        let d = d as usize;
        (self.entities[d] == entity).then_some(d)
    }

    /// Drops the index entries at the `hole` positions (none below `first`; their back-pointers
    /// already cleared, their flags dropped) in one order-preserving pass from `first`: each
    /// kept element moves down to the next free place (keeping relative order, so clean
    /// elements stay ascending) and its back-pointer follows. `changed`, the value half's tick
    /// column, moves with them; the values are the caller's.
    fn compact(&mut self, changed: &mut Vec<Tick>, hole: &[bool], first: usize) {
        let mut to = first;
        for (from, _) in hole.iter().enumerate().skip(first).filter(|(_, h)| !**h) {
            let e = self.entities[from];
            self.entities[to] = e;
            self.added[to] = self.added[from];
            changed[to] = changed[from];
            self.displaced[to] = self.displaced[from];
            self.sparse.set_existing(e.slot(), to as u32);
            to += 1;
        }
        self.entities.truncate(to);
        self.added.truncate(to);
        changed.truncate(to);
        self.displaced.truncate(to);
        if self.entities.len() <= 1 && self.displaced_count > 0 {
            self.displaced.fill(false);
            self.displaced_count = 0;
        }
    }

    /// Every dead position, ascending, with their displacement flags cleared; the count drops
    /// to zero: the caller drops them from the columns (they will not be placed). Positions
    /// whose back-pointers a bulk removal has cleared read as dead too (`dead.rs`), and are
    /// listed with them.
    fn take_dead(&mut self) -> Vec<u32> {
        if self.dead == 0 {
            return Vec::new();
        }
        let dead = self.dead_positions();
        self.dead = 0;
        for &d in &dead {
            if std::mem::replace(&mut self.displaced[d as usize], false) {
                self.displaced_count -= 1;
            }
        }
        dead
    }

    /// The first step of removing every held entity of `gone` in bulk: each one's back-pointer
    /// is cleared (so a repeated handle is found once) and its displacement flag dropped (it
    /// will not need placing), and `found` is called with its dense position. The columns
    /// themselves are left to the caller.
    fn detach(&mut self, gone: &[Entity], mut found: impl FnMut(usize)) {
        for &e in gone {
            if let Some(d) = self.dense_index(e) {
                self.sparse.set_existing(e.slot(), ABSENT);
                if std::mem::replace(&mut self.displaced[d], false) {
                    self.displaced_count -= 1;
                }
                found(d);
            }
        }
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
            index: Half::Owned(IndexColumns::new()),
            values: Half::Owned(ValueColumns::new()),
            last_changed: Tick::new(0),
            now: Tick::new(0),
            copy_values: None,
        }
    }

    /// The tick that inserts and `&mut` access through this store's methods stamp. A `World`
    /// keeps it equal to its own change tick; a free-standing store stays at tick 0 unless set.
    ///
    /// The clock may be set back (a free-standing store's caller decides): the store's floor
    /// (see [`Store::dense_changed_ticks`]) is then first written into the values' own ticks,
    /// since which of a value's tick and the floor is newer is judged from the store's newest
    /// tick, which a write at an older tick no longer is.
    #[inline]
    pub fn set_change_tick(&mut self, now: Tick) {
        self.now = now;
        // `now` behind the high-water mark (a wrapping difference past half the range).
        if self.values.changed_floor.is_some() && self.last_changed.age(now) >= 1 << 31 {
            self.fold_changed_floor();
        }
    }

    /// Writes the floor into every value's own tick where it is newer, and drops it.
    #[cold]
    fn fold_changed_floor(&mut self) {
        let last_changed = self.last_changed;
        let columns = self.values_mut();
        if let Some(floor) = columns.changed_floor.take() {
            for t in &mut columns.changed {
                *t = effective_changed(*t, Some(floor), last_changed);
            }
        }
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
            added: self.index.added[d],
            changed: effective_changed(
                self.values.changed[d],
                self.values.changed_floor,
                self.last_changed,
            ),
        })
    }

    /// When each value last changed, parallel to [`Store::dense_values`]. Borrowed as stored;
    /// a copy when a `&mut` walk over the whole store stamped it in one go (the store keeps
    /// one tick for that walk, its *floor*, not one per value): take it once, not once per
    /// index. [`Store::ticks`] answers for one entity without copying.
    pub fn dense_changed_ticks(&self) -> Cow<'_, [Tick]> {
        let columns = &*self.values;
        match columns.changed_floor {
            None => Cow::Borrowed(&columns.changed),
            Some(floor) => Cow::Owned(
                columns
                    .changed
                    .iter()
                    .map(|&own| effective_changed(own, Some(floor), self.last_changed))
                    .collect(),
            ),
        }
    }

    /// The tick a walk over every value stamped, if one did (see `ValueColumns::changed_floor`).
    #[cfg(test)]
    pub(crate) fn changed_floor(&self) -> Option<Tick> {
        self.values.changed_floor
    }

    /// When each value was added, parallel to [`Store::dense_values`].
    #[inline]
    pub fn dense_added_ticks(&self) -> &[Tick] {
        &self.index.added
    }

    /// Clamps every tick to at most [`MAX_AGE`](crate::tick::MAX_AGE) old at `now`.
    pub(crate) fn clamp_ticks(&mut self, now: Tick) {
        // Only a column holding a tick older than the clamp point is written (and so copied,
        // if a snapshot shares it).
        let stale = |ticks: &[Tick]| ticks.iter().any(|t| t.needs_clamp(now));
        if stale(&self.index.added) {
            for t in &mut self.index_mut().added {
                t.clamp(now);
            }
        }
        if stale(&self.values.changed)
            || self
                .values
                .changed_floor
                .is_some_and(|f| f.needs_clamp(now))
        {
            let columns = self.values_mut();
            for t in &mut columns.changed {
                t.clamp(now);
            }
            if let Some(floor) = &mut columns.changed_floor {
                floor.clamp(now);
            }
        }
        self.last_changed.clamp(now);
    }

    /// Number of values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.index.entities.len() - self.index.dead
    }

    /// Whether the store holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the dense columns are currently in ascending slot order and hold only live
    /// elements, so that ordered iteration is a plain slice walk. Iteration order is ascending
    /// either way.
    #[inline]
    pub fn is_settled(&self) -> bool {
        self.index.displaced_count == 0 && self.index.dead == 0
    }

    /// Dense index of `entity`'s value, if the store holds one for exactly this entity.
    #[inline]
    pub fn dense_index(&self, entity: Entity) -> Option<usize> {
        self.index.dense_index(entity)
    }

    /// Reads `slot`'s sparse entry (what an insert or remove there reads first) and returns it:
    /// a read that brings the entry into the cache (see `read_ahead.rs`).
    #[inline]
    pub(crate) fn touch(&self, slot: u32) -> u64 {
        u64::from(self.index.sparse.get(slot))
    }

    /// Whether the store holds a value for `entity` (exact generation).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.dense_index(entity).is_some()
    }

    /// The value for `entity`, if any.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.dense_index(entity).map(|d| &self.values.values[d])
    }

    /// The value for `entity`, mutably, if any.
    ///
    /// Stamps the value changed at the store's change tick (whether or not the caller writes).
    /// If a snapshot still shares the values, they are copied first (once, not per call).
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        let d = self.dense_index(entity)?;
        let now = self.now;
        self.last_changed = now;
        let columns = self.values_mut();
        columns.changed[d] = now;
        Some(&mut columns.values[d])
    }

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
    fn append_new(
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
    fn compact(&mut self, mut hole: Vec<bool>, mut first: usize) -> Vec<T> {
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

    /// [`Store::discard`], the value dropped here: what the store's model tests drive.
    #[cfg(test)]
    pub(crate) fn forget(&mut self, entity: Entity) {
        drop(self.discard(entity));
    }

    /// Removes `entity`'s value for a despawn and drops it. The caller knows the store holds
    /// it (a world's membership index says so, and the entity is alive), so the generation
    /// check is skipped: a load from a random place of the entity column that was 36–47% of
    /// the call's time (`perf annotate` of `despawn/loop`). Checked in debug builds.
    ///
    /// A value with no drop glue is left where it is, marked dead (`dead.rs`): one sparse entry
    /// and a counter are written, where a swap-remove writes every column at two random places.
    /// Dropping such a value later cannot be observed. Others are swap-removed
    /// ([`Store::remove`]). Dead elements go at the next settle, or before the next append
    /// once they outnumber the live ones; an all-dead store is emptied at once.
    #[inline]
    pub(crate) fn forget_held(&mut self, entity: Entity) {
        if std::mem::needs_drop::<T>() {
            drop(self.remove(entity));
            return;
        }
        let marked = self.mark_dead(entity, cfg!(debug_assertions));
        debug_assert!(
            marked,
            "forget_held({entity}) of an entity the store does not hold"
        );
    }

    /// Marks `entity`'s live element dead (see [`Store::discard`] and
    /// [`Store::forget_held`]); `false` if the store holds none for it. `check`: whether to
    /// compare the element's entity with `entity` (a caller that knows the store holds it may
    /// skip that load). A shared index is copied only if there is an element to mark.
    #[inline(always)]
    fn mark_dead(&mut self, entity: Entity, check: bool) -> bool {
        // The owned index (every store no snapshot shares) is matched once; the rest is cold.
        let all_dead = match &mut self.index {
            Half::Owned(index) => {
                if !index.mark_dead(entity, check) {
                    return false;
                }
                index.all_dead()
            }
            Half::Shared(_) => match self.mark_dead_shared(entity, check) {
                Some(all_dead) => all_dead,
                None => return false,
            },
        };
        self.empty_when(all_dead);
        true
    }

    /// [`Store::mark_dead`] of a shared index: copied only if there is an element to mark.
    /// `None` if nothing was marked, else whether every element is now dead.
    #[cold]
    #[inline(never)]
    fn mark_dead_shared(&mut self, entity: Entity, check: bool) -> Option<bool> {
        self.index.dense_index(entity)?;
        let index = self.index_mut();
        index.mark_dead(entity, check).then_some(index.all_dead())
    }

    /// Empties the columns if every element left is dead (the invariant that an empty store
    /// has empty columns, which snapshots of excluded components rely on). Nothing live is
    /// left, so no back-pointer points into the columns, and dead values need no drop: the
    /// columns are truncated (a shared value half is let go, not copied).
    ///
    /// Only a store with no copy function (free-standing, or a `no_snapshot` component in a
    /// world) is emptied: a snapshot copies such a store only when it is empty, and then copies
    /// no values. A store that can copy its values may be all dead: its elements wait to be
    /// revived in place by inserts for the same entities, or dropped by the next settle or
    /// compaction.
    #[inline]
    fn empty_if_all_dead(&mut self) {
        self.empty_when(self.index.all_dead());
    }

    /// [`Store::empty_if_all_dead`] for a caller that has already read whether all are dead.
    #[inline]
    fn empty_when(&mut self, all_dead: bool) {
        if all_dead && self.copy_values.is_none() {
            self.empty_all_dead();
        }
    }

    /// [`Store::empty_if_all_dead`] once it has found every element dead; out of line, so the
    /// removals that call it stay short.
    #[cold]
    #[inline(never)]
    fn empty_all_dead(&mut self) {
        let index = self.index_mut();
        index.entities.clear();
        index.added.clear();
        index.displaced.clear();
        index.displaced_count = 0;
        index.dead = 0;
        let values = self.values.overwrite();
        values.values.clear();
        values.changed.clear();
        values.changed_floor = None;
    }

    /// Compacts the store if dead elements outnumber live ones; called before the columns
    /// grow (an append), which keeps the bound `dead.rs` promises. One order-preserving pass
    /// drops every dead element (displaced ones stay displaced, for the next settle); it moves
    /// fewer elements than there were dead ones, so its cost is O(1) amortized over the
    /// despawns that left them.
    #[inline]
    pub(crate) fn compact_if_mostly_dead(&mut self) {
        if self.index.dead > 0 {
            self.compact_dead();
        }
    }

    #[inline(never)]
    fn compact_dead(&mut self) {
        let len = self.index.entities.len();
        if 2 * self.index.dead <= len {
            return;
        }
        let (index, columns) = self.columns_mut();
        let dead = index.take_dead();
        let mut hole = vec![false; len];
        for &d in &dead {
            hole[d as usize] = true;
        }
        let first = dead.first().map_or(len, |&d| d as usize);
        index.compact(&mut columns.changed, &hole, first);
        // Dead values have no drop glue: they are overwritten in place, not collected.
        let mut at = 0;
        columns.values.retain(|_| {
            at += 1;
            !hole[at - 1]
        });
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

    /// Sorts the dense columns by slot if they are out of order, so later ordered iteration is a
    /// plain slice walk. Cheap when already settled (one counter check); otherwise
    /// O(n - lo + k log k) moves and comparisons for k displaced elements, where `lo` is the
    /// final place of the lowest displaced slot: the elements below it are not moved
    /// (`settle.rs`). Finding the displaced elements reads their flags, a byte per value from
    /// the start (about a cycle per eight values); a store holding dead elements also reads
    /// each element's sparse entry once to find them (`dead.rs`): O(n) reads, whatever `lo`.
    pub fn settle(&mut self) {
        if self.is_settled() {
            return;
        }
        self.reorder(Vec::new());
    }

    /// Removes the values of `gone` (repeats and entities it does not hold are ignored) and
    /// settles the store, in one pass: a removed value's place simply ends a run of the settle's
    /// merge instead of being filled by a swap-remove (whose moved element the sort would then
    /// have to place back). Returns the removed values, in dense order.
    ///
    /// Like [`Store::remove_many`], it only moves values out: the caller drops them.
    ///
    /// O(n - lo + k log k + g log g) for `g` handles, where `lo` is the lowest place that
    /// changes (a batch of one in 16 or more sorts its places through an O(n) bitmap instead).
    pub(crate) fn remove_and_settle(&mut self, gone: &[Entity]) -> Vec<T> {
        if !gone.iter().any(|&e| self.contains(e)) {
            self.settle();
            return Vec::new();
        }
        let (index, _) = self.columns_mut();
        let mut removed: Vec<u32> = Vec::with_capacity(gone.len());
        index.detach(gone, |d| removed.push(d as u32));
        // Ascending: a sort for few, for many one pass over a bitmap of the store (O(n)
        // rather than O(g log g)).
        if removed.len() * 16 < index.entities.len() {
            removed.sort_unstable();
        } else {
            let mut hole = vec![false; index.entities.len()];
            for &d in &removed {
                hole[d as usize] = true;
            }
            removed.clear();
            removed.extend((0u32..).zip(&hole).filter(|(_, h)| **h).map(|(d, _)| d));
        }
        self.reorder(removed)
    }

    /// Sorts the dense columns by slot and drops the elements at `removed` (ascending dense
    /// positions, none flagged, back-pointers already cleared) and the dead ones; returns the
    /// dropped values.
    fn reorder(&mut self, removed: Vec<u32>) -> Vec<T> {
        let (index, columns) = self.columns_mut();
        let removed = if index.dead == 0 {
            removed
        } else {
            merge_ascending(removed, index.take_dead())
        };
        let n = index.entities.len();
        let first = if index.displaced_count == 0 {
            n
        } else {
            settle::first_flagged(&index.displaced)
        };
        let plan = settle::Plan::new(&index.entities, &index.displaced, first, removed);
        // Only `lo..` moves, back-pointers included.
        plan.apply_index(
            &mut index.entities,
            &mut index.added,
            &mut columns.changed,
            &mut index.sparse,
        );
        let removed = plan.apply_values(&mut columns.values);
        let len = plan.len_after();
        index.entities.truncate(len);
        index.added.truncate(len);
        columns.changed.truncate(len);
        index.displaced.truncate(len);
        // Every flag was at `first` or after it.
        if first < len {
            index.displaced[first..].fill(false);
        }
        index.displaced_count = 0;
        debug_assert_eq!(columns.values.len(), len);
        removed
    }

    /// `(Entity, &T)` in ascending slot order.
    pub fn iter(&self) -> Iter<'_, T> {
        let (index, values) = (&*self.index, &self.values.values);
        if self.is_settled() {
            Iter {
                inner: IterInner::Dense(index.entities.iter().zip(values.iter())),
            }
        } else {
            Iter {
                inner: IterInner::Walk {
                    sparse: Box::new(index.sparse.iter()),
                    entities: &index.entities,
                    values,
                    remaining: self.len(),
                },
            }
        }
    }

    /// `(Entity, &mut T)` in ascending slot order. Settles the store first, and stamps every
    /// value changed at the store's change tick.
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        let (entities, values) = self.dense_mut();
        IterMut {
            inner: entities.iter().zip(values.iter_mut()),
        }
    }

    /// `(Entity, &T)` in dense order, which depends on the insert/remove history. Use it only
    /// where order cannot matter (e.g. a commutative sum of integers); prefer [`Store::iter`].
    pub fn iter_unordered(&self) -> impl ExactSizeIterator<Item = (Entity, &T)> + '_ {
        Unordered {
            inner: self.index.entities.iter().zip(&self.values.values),
            sparse: &self.index.sparse,
            at: 0,
            remaining: self.len(),
        }
    }

    /// The dense entity column. In ascending slot order iff [`Store::is_settled`].
    ///
    /// A store inside a [`World`](crate::World) may also hold *dead* elements here, left by
    /// despawns and [`World::delete`](crate::World::delete)s of components with no drop glue
    /// (removing them in place would cost a random write per column): they are not held
    /// ([`Store::len`] does not count them; no lookup reaches them) and go at the store's next
    /// settle. A settled store has none. A deleted entity given the component again before
    /// then gets its element back in place ([`Store::insert`]); [`Store::dense_index`] names
    /// the position that holds an entity's live value.
    #[inline]
    pub fn dense_entities(&self) -> &[Entity] {
        &self.index.entities
    }

    /// The dense value column, parallel to [`Store::dense_entities`] (dead elements included).
    #[inline]
    pub fn dense_values(&self) -> &[T] {
        &self.values.values
    }

    /// Both dense columns, values mutable. Settles first, so both are in ascending slot order;
    /// stamps every value changed at the store's change tick.
    #[inline]
    pub fn dense_mut(&mut self) -> (&[Entity], &mut [T]) {
        self.settle();
        let now = self.now;
        let columns = values_mut(&mut self.values, self.copy_values);
        if !columns.changed.is_empty() {
            // Every value: one tick for all of them (see `ValueColumns::changed_floor`).
            columns.changed_floor = Some(now);
            self.last_changed = now;
        }
        (&self.index.entities, &mut columns.values)
    }

    /// Checks the module invariants: back-pointers agree both ways, columns have equal length,
    /// and the store is sorted when it claims to be.
    ///
    /// # Errors
    ///
    /// A description of the first broken invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.index.entities.len() != self.values.values.len() {
            return Err(format!(
                "column lengths differ: {} entities, {} values",
                self.index.entities.len(),
                self.values.values.len()
            ));
        }
        self.index.check_dead()?;
        if self.index.dead > 0
            && self.index.dead == self.index.entities.len()
            && self.copy_values.is_none()
        {
            return Err(format!(
                "all {} elements are dead but the columns were not emptied",
                self.index.dead
            ));
        }
        // Every element's back-pointer is checked through the sparse walk below: a live one
        // is found there (and counted), a dead one is what `check_dead` counted.
        let mut present = 0;
        for (slot, d) in self.index.sparse.iter() {
            present += 1;
            match self.index.entities.get(d as usize) {
                Some(e) if e.slot() == slot => {}
                _ => return Err(format!("sparse[{slot}] = {d} points at a different slot")),
            }
        }
        if present != self.len() {
            return Err(format!(
                "{present} sparse entries for {} live dense values",
                self.len()
            ));
        }
        if self.index.added.len() != self.index.entities.len()
            || self.values.changed.len() != self.index.entities.len()
        {
            return Err(format!(
                "{} added and {} changed ticks for {} values",
                self.index.added.len(),
                self.values.changed.len(),
                self.index.entities.len()
            ));
        }
        if let Some(t) = self
            .values
            .changed
            .iter()
            .chain(&self.values.changed_floor)
            .find(|t| t.age(self.now) < self.last_changed.age(self.now))
        {
            return Err(format!(
                "a value changed at {t:?}, after the store's high-water mark {:?}",
                self.last_changed
            ));
        }
        if self.index.displaced.len() != self.index.entities.len() {
            return Err(format!(
                "{} displacement flags for {} values",
                self.index.displaced.len(),
                self.index.entities.len()
            ));
        }
        let flagged = self.index.displaced.iter().filter(|&&f| f).count();
        if flagged != self.index.displaced_count {
            return Err(format!(
                "displaced_count is {} but {flagged} elements are flagged",
                self.index.displaced_count
            ));
        }
        let mut previous: Option<u32> = None;
        for (e, _) in self
            .index
            .entities
            .iter()
            .zip(&self.index.displaced)
            .filter(|(_, f)| !**f)
        {
            if previous.is_some_and(|p| p >= e.slot()) {
                return Err(if self.index.displaced_count == 0 {
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
        self.index.sparse.allocated_pages()
    }
}

/// The dense columns in dense order, dead elements skipped; see [`Store::iter_unordered`].
struct Unordered<'a, T> {
    inner: std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::Iter<'a, T>>,
    /// The back-pointers, which tell a live element (its entry holds its position) from a
    /// dead one (`dead.rs`).
    sparse: &'a SparsePages,
    /// The dense position `inner` yields next.
    at: usize,
    /// Live elements not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for Unordered<'a, T> {
    type Item = (Entity, &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (e, v) = self.inner.next()?;
            self.at += 1;
            if self.sparse.get_raw(e.slot()) == self.at as u32 - 1 {
                self.remaining -= 1;
                return Some((*e, v));
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Unordered<'_, T> {}

/// The union of two ascending lists of distinct positions, ascending: a position in both is
/// listed once (the dead positions `take_dead` derives include the removed ones whose
/// back-pointers were cleared first).
fn merge_ascending(a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(&x), Some(&y)) = (a.peek(), b.peek()) {
        out.push(x.min(y));
        if x <= y {
            a.next();
        }
        if y <= x {
            b.next();
        }
    }
    out.extend(a);
    out.extend(b);
    out
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
/// use rota::{join, Entities, Store};
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
