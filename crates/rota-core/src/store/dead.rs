//! [`DeadSet`]: the dense positions of a store that hold *dead* elements — values of despawned
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
//! entry, all at random addresses. Marking the element dead writes one sparse entry and one
//! bit. Only values with no drop glue are left like this (`Store::forget`), so when they are
//! dropped cannot be observed.
//!
//! # Invariants (kept by `Store`, checked by `Store::check_invariants`)
//!
//! * **Unreachable**: no sparse entry points at a dead position as a dense index, so lookups,
//!   `contains` and every walk through the sparse pages skip dead elements; no entity is held
//!   through one. The slot's entry may hold the position *dead-tagged* (`sparse::DEAD_TAG`),
//!   which every lookup reads as absent: a hint for reviving, checked before use (the element
//!   must still be dead and list exactly the entity), since compaction and settling leave
//!   tags behind.
//! * **Counted**: `count` is the number of set bits, and every set bit is below the columns'
//!   length. Bits are allocated lazily: a position past `bits` is not dead, so appends never
//!   touch this set.
//! * **Unsettled**: a store with a dead element is not settled, so nothing walks its dense
//!   columns as a slice of live elements (the run join, `Store::iter`'s dense path).
//! * **Ordered with the rest**: a dead element keeps its displacement flag; the clean elements,
//!   dead ones included, stay strictly ascending (a later append that reuses the dead slot
//!   compares equal, so it is flagged).
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

/// Dense positions holding dead elements: one bit each, and their count.
#[derive(Clone, Default)]
pub(super) struct DeadSet {
    bits: Vec<u64>,
    count: usize,
}

impl DeadSet {
    pub(super) const fn new() -> Self {
        DeadSet {
            bits: Vec::new(),
            count: 0,
        }
    }

    /// How many positions are dead.
    #[inline]
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Whether position `at` is dead.
    #[inline]
    pub(super) fn contains(&self, at: usize) -> bool {
        self.bits
            .get(at / 64)
            .is_some_and(|w| w & (1 << (at % 64)) != 0)
    }

    /// Marks position `at` (live until now) dead.
    #[inline]
    pub(super) fn insert(&mut self, at: usize) {
        let word = at / 64;
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        debug_assert_eq!(
            self.bits[word] & (1 << (at % 64)),
            0,
            "{at} is already dead"
        );
        self.bits[word] |= 1 << (at % 64);
        self.count += 1;
    }

    /// Position `at` (dead until now) is live again: its element was revived in place.
    #[inline]
    pub(super) fn remove(&mut self, at: usize) {
        debug_assert!(self.contains(at), "{at} is not dead");
        self.bits[at / 64] &= !(1 << (at % 64));
        self.count -= 1;
    }

    /// The dead element at `from` moved to `to` (a swap-remove filled the live place `to` with
    /// the last element, which was dead).
    #[inline]
    pub(super) fn moved(&mut self, from: usize, to: usize) {
        self.bits[from / 64] &= !(1 << (from % 64));
        self.insert(to);
        self.count -= 1;
    }

    /// Every dead position, ascending; the set is left empty (its allocation kept).
    pub(super) fn take(&mut self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.count);
        for (w, &word) in self.bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                out.push((w * 64 + word.trailing_zeros() as usize) as u32);
                word &= word - 1;
            }
        }
        self.clear();
        out
    }

    /// Forgets every dead position (the columns holding them were cleared or compacted).
    pub(super) fn clear(&mut self) {
        self.bits.clear();
        self.count = 0;
    }

    /// Checks that the count matches the bits and that every bit is below `len`.
    pub(super) fn check(&self, len: usize) -> Result<(), String> {
        let ones: usize = self.bits.iter().map(|w| w.count_ones() as usize).sum();
        if ones != self.count {
            return Err(format!(
                "{} dead elements counted but {ones} marked",
                self.count
            ));
        }
        if let Some(at) = (len..self.bits.len() * 64).find(|&at| self.contains(at)) {
            return Err(format!(
                "dead position {at} is past the columns' end ({len})"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::DeadSet;

    #[test]
    fn marks_moves_and_takes_in_ascending_order() {
        let mut dead = DeadSet::new();
        assert!(!dead.contains(0));
        dead.insert(130);
        dead.insert(3);
        dead.insert(64);
        assert_eq!(dead.count(), 3);
        assert!(dead.contains(64) && !dead.contains(65));
        dead.moved(130, 7);
        assert!(dead.contains(7) && !dead.contains(130));
        assert_eq!(dead.count(), 3);
        assert!(dead.check(131).is_ok());
        assert!(
            dead.check(60).is_err(),
            "position 64 is past a length of 60"
        );
        assert_eq!(dead.take(), [3, 7, 64]);
        assert_eq!(dead.count(), 0);
        assert!(!dead.contains(3));
    }
}
