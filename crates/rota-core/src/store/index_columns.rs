//! The index half's own operations: finding an entity's element, reviving a dead one in
//! place, marking one dead, compacting holes away and detaching removed entities.
//!
//! Invariants: for every live element `i`, the sparse entry of `entities[i]`'s slot holds `i`
//! (back-pointers agree); a dead element's entry holds its position dead-tagged or has moved
//! on (`dead.rs`); compaction keeps the order of the elements it keeps and repairs every
//! back-pointer it moves.

use super::*;

impl IndexColumns {
    /// Whether `d`, the position in `entity`'s dead-tagged sparse entry, still holds a dead
    /// element of exactly `entity`. The tag may be stale (compaction and settling move
    /// elements without touching tags), so the element is compared; that it is dead needs no
    /// check: a live element of `entity` would have the entry hold its position untagged
    /// (`dead.rs`).
    #[inline]
    pub(super) fn is_dead_element_of(&self, d: usize, entity: Entity) -> bool {
        self.entities.get(d) == Some(&entity)
    }

    /// An insert's look at `entity`'s slot, finding its sparse entry once: a dead element of
    /// `entity` there is brought back to life — the entry untagged, the dead count lowered, added
    /// `now`, what an append would do without moving anything — and its position returned
    /// for the caller to write the value and its change tick. The element keeps its place and
    /// its displacement flag, so the order invariant holds as it did while it was dead (dead
    /// elements are ordered with the rest). Any other entry is returned as found.
    #[inline]
    pub(super) fn revive_or_find(&mut self, entity: Entity, now: Tick) -> Found {
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
    pub(super) fn mark_dead(&mut self, entity: Entity, check: bool) -> bool {
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
    pub(super) fn dense_index(&self, entity: Entity) -> Option<usize> {
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
    pub(super) fn compact(&mut self, changed: &mut Vec<Tick>, hole: &[bool], first: usize) {
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
    pub(super) fn take_dead(&mut self) -> Vec<u32> {
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
    pub(super) fn detach(&mut self, gone: &[Entity], mut found: impl FnMut(usize)) {
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
