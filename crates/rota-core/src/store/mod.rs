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
//! Where things are: the layout and the reads here; the copy-on-write halves in `cow.rs`;
//! change ticks in `ticks.rs`; inserts and removes in `mutation.rs`; the index half's own
//! operations (find, revive, mark dead, compact, detach) in `index_columns.rs`; dead elements
//! in `dead.rs`; settling in `settle.rs`; batched appends in `append.rs`; ordered walks and
//! `join` in `iter.rs`; the paged sparse array in `sparse.rs`.
//!
//! Memory: 4 bytes per slot in each touched 4096-slot page (16 KiB a page), plus
//! `17 + size_of::<T>()` bytes per stored value (entity, displacement flag, the `added` and
//! `changed` ticks, value); dead elements cost nothing more (the sparse entries tell them). Zero-sized
//! `T` (tags) store no values at all.
//!
//! Cost: a settled store iterates as one slice walk, O(n), as fast as a `Vec<T>`; the `&self`
//! walk over an unsettled store is O(highest slot) through the sparse pages; settling is
//! O(n + k log k) for k displaced elements. Measured figures, with their command:
//! `docs/benchmarks.md`, "Ordered iteration after churn, and the settle".

mod append;
mod cow;
mod dead;
mod import;
pub(crate) mod index;
mod index_columns;
mod iter;
mod mutation;
#[doc(hidden)]
pub use append::Appender;
#[cfg(test)]
pub(crate) use append::FAIL_ATTACH_AFTER;
mod settle;
pub(crate) mod sparse;
mod ticks;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::entity::Entity;
use crate::error::StoreError;
use crate::tick::{ComponentTicks, Tick};
pub use cow::SharedColumns;
use cow::values_mut;
pub use iter::{Iter, IterMut, join};
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

impl<T> Default for Store<T> {
    fn default() -> Self {
        Store::new()
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

/// What an insert finds at its entity's slot ([`IndexColumns::revive_or_find`]).
enum Found {
    /// A dead element of the entity, revived at this position; its value is the caller's to
    /// write.
    Revived(usize),
    /// The slot's entry, as it was (nothing changed).
    Entry(Entry),
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

#[cfg(test)]
mod tests;
