//! Dead elements: the dense positions of a store that hold *dead* elements — values of despawned
//! entities, or values deleted from live ones (`World::delete`, removals applied from
//! commands), left where they were, to be dropped by the store's next compaction — or brought
//! back in place by an insert for the same entity before that (`Store::try_insert` revives it:
//! no append, no disorder; if the element was compacted or settled away meanwhile, the insert
//! appends as usual).
//!
//! # Why
//!
//! Despawning an entity used to swap-remove its element from every store: per store, a write
//! to the element's place in each of the five dense columns and to the moved element's sparse
//! entry, all at random addresses. Marking the element dead writes one sparse entry and a
//! counter. Only values with no drop glue are left like this (`Store::forget`), so when they are
//! dropped cannot be observed.
//!
//! # Invariants (kept by `Store`, checked by `Store::check_invariants`)
//!
//! * **Derived, not stored**: the element at `d` is dead exactly when its entity's sparse entry
//!   does not hold `d` as a dense index ([`IndexColumns::is_dead`]). A live element's entry
//!   always does (the sparse set's own invariant); a dead one's holds its position
//!   *dead-tagged* (`sparse::DEAD_TAG`), or, once the slot's entry moved on (a later
//!   incarnation appended, a compaction left the tag behind), something else. So no lookup,
//!   `contains` or walk through the sparse pages reaches a dead element, and marking one dead
//!   or reviving it writes its sparse entry and a counter, nothing else.
//! * **Revived only from its own tag**: an insert that reads its slot's entry as
//!   `Dead(d)` revives the element at `d` if that element lists exactly the entity. No other
//!   check is needed: a live element of that entity at `d` would have its entry hold `d`
//!   untagged, and the entry was just read tagged. Tags left behind by compaction and settling
//!   point at another entity's element or past the end, and fail the comparison.
//! * **Counted**: `IndexColumns::dead` is the number of positions marked dead and not yet
//!   revived or dropped; it equals the number of positions [`IndexColumns::is_dead`] finds,
//!   except inside a bulk removal, whose detached elements (back-pointers cleared) read as dead
//!   too until the same pass drops them with the dead ones ([`IndexColumns::take_dead`]).
//! * **Unsettled**: a store with a dead element is not settled, so nothing walks its dense
//!   columns as a slice of live elements (the run join, `Store::iter`'s dense path).
//! * **Ordered with the rest**: a dead element keeps its displacement flag; the clean elements,
//!   dead ones included, stay strictly ascending (a later append that reuses the dead slot
//!   compares equal, so it is flagged).
//! * **Moved with their tag**: a swap-remove that moves a dead last element into the hole moves
//!   its tag too, if the entry still holds it, so it can still be revived.
//! * **Bounded**: dead elements never make the columns grow. An append (`Store::try_insert` of
//!   a new entity, `Store::appender`) into a store whose dead elements outnumber its live ones
//!   compacts it first, so the columns only grow past their length while they hold at most
//!   twice the live elements; the next settle drops every dead element.
//! * **Never all dead, where values cannot be copied**: a store with no copy function
//!   (free-standing, or a `no_snapshot` component) whose elements are all dead is emptied at
//!   once (by the despawn, delete or swap-remove that left it so), so such a store is empty
//!   only with empty columns — what a snapshot relies on when it copies an excluded store
//!   without its values. A store that can copy its values may be all dead until its elements
//!   are revived, compacted or settled away.

use super::IndexColumns;
use super::sparse::dead_tagged;
use super::*;

impl IndexColumns {
    /// Whether the element at dense position `d` (below the columns' length) is dead: its
    /// entity's sparse entry does not hold `d` as a dense index.
    #[inline]
    pub(super) fn is_dead(&self, d: usize) -> bool {
        self.sparse.get_raw(self.entities[d].slot()) != d as u32
    }

    /// Every position [`IndexColumns::is_dead`] finds, ascending: O(length), one sparse read
    /// per element. Only a compaction or a settle, which walk the columns anyway, asks.
    pub(super) fn dead_positions(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.dead);
        out.extend(
            (0..self.entities.len())
                .filter(|&d| self.is_dead(d))
                .map(|d| d as u32),
        );
        out
    }

    /// A swap-remove moved the element of `slot` at `from` (the last) to `to`: its sparse entry
    /// follows it, read once. A live one's entry holds `from` and now holds `to`; a dead one's
    /// tag follows it if the entry still holds it, so an insert for its entity can still revive
    /// it; a dead one whose entry moved on keeps nothing to update.
    #[inline]
    pub(super) fn follow_move(&mut self, slot: u32, from: usize, to: usize) {
        let raw = self.sparse.get_raw(slot);
        if raw == from as u32 {
            self.sparse.set_existing(slot, to as u32);
        } else if raw == dead_tagged(from) {
            self.sparse.set_dead(slot, to);
        }
    }

    /// Whether the columns hold elements and every one is dead.
    #[inline]
    pub(super) fn all_dead(&self) -> bool {
        self.dead > 0 && self.dead == self.entities.len()
    }

    /// Checks that the count of dead elements matches the positions the sparse entries say
    /// are dead.
    pub(super) fn check_dead(&self) -> Result<(), String> {
        let found = self.dead_positions().len();
        if found != self.dead {
            return Err(format!(
                "{} dead elements counted but {found} found",
                self.dead
            ));
        }
        Ok(())
    }
}

impl<T> Store<T> {
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
    pub(super) fn mark_dead(&mut self, entity: Entity, check: bool) -> bool {
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
    pub(super) fn mark_dead_shared(&mut self, entity: Entity, check: bool) -> Option<bool> {
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
    pub(super) fn empty_if_all_dead(&mut self) {
        self.empty_when(self.index.all_dead());
    }

    /// [`Store::empty_if_all_dead`] for a caller that has already read whether all are dead.
    #[inline]
    pub(super) fn empty_when(&mut self, all_dead: bool) {
        if all_dead && self.copy_values.is_none() {
            self.empty_all_dead();
        }
    }

    /// [`Store::empty_if_all_dead`] once it has found every element dead; out of line, so the
    /// removals that call it stay short.
    #[cold]
    #[inline(never)]
    pub(super) fn empty_all_dead(&mut self) {
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
    pub(super) fn compact_dead(&mut self) {
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
}
