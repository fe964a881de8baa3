//! The reordering behind `Store::settle`: one merge plan computed from the entity column, then
//! applied to every parallel column as a gather (no `unsafe`, no column reallocated).
//!
//! # Layout and invariants
//!
//! On entry the columns hold `n` elements; the ones whose displacement flag is clear are
//! strictly ascending by slot (the store's invariant), the flagged ones are anywhere, in any
//! order. [`Plan::new`] sorts the `k` flagged elements by slot and merges them with the clean
//! ones:
//!
//! ```text
//!   positions:  0 .. lo          lo .. n
//!               untouched        order[i] = where the element that ends at lo + i is now
//! ```
//!
//! * `lo` is the lowest position whose element may change: every position below it holds a clean
//!   element with a slot below the smallest flagged one, so it is already in its final place.
//! * `order` is a permutation of `lo..n` (stored relative to `lo`): the clean elements of
//!   `lo..n` in their current (ascending) order, with the flagged ones merged in by slot.
//!
//! Applying it moves each element of `lo..n` once per column, reading from a copy of the
//! suffix, so the cost is O(n - lo) per column plus O(k log k) for the sort; the elements below
//! `lo` are not read.

use super::sparse::SparsePages;
use crate::entity::Entity;
use crate::tick::Tick;

/// Where every element of `lo..` comes from once the columns are in slot order.
pub(super) struct Plan {
    /// The lowest position that changes.
    pub(super) lo: usize,
    /// `order[i]`: the current position, relative to `lo`, of the element that ends at `lo + i`.
    order: Vec<u32>,
}

impl Plan {
    /// The plan that sorts `entities` by slot, given that the elements whose `displaced` flag is
    /// clear are already ascending and that the first flag set is at `first`.
    pub(super) fn new(entities: &[Entity], displaced: &[bool], first: usize) -> Plan {
        debug_assert_eq!(entities.len(), displaced.len());
        // The flagged elements: where they are (ascending), and by slot (packed keys, one
        // `u64` compare per step).
        let holes: Vec<u32> = displaced[first..]
            .iter()
            .enumerate()
            .filter(|&(_, &flag)| flag)
            .map(|(i, _)| (first + i) as u32)
            .collect();
        let mut moved: Vec<u64> = holes
            .iter()
            .map(|&at| (u64::from(entities[at as usize].slot()) << 32) | u64::from(at))
            .collect();
        moved.sort_unstable();
        let smallest = moved.first().map_or(u32::MAX, |&key| (key >> 32) as u32);
        // Everything before `first` is clean and ascending: what sorts below the smallest
        // flagged slot stays where it is.
        let lo = entities[..first].partition_point(|e| e.slot() < smallest);
        let mut order: Vec<u32> = Vec::with_capacity(entities.len() - lo);
        let mut moved = moved
            .iter()
            .map(|&key| ((key >> 32) as u32, key as u32 - lo as u32))
            .peekable();
        // The clean elements of `lo..` come in runs between the holes; each run is ascending,
        // so the flagged slots that fall inside it are placed by binary search and the clean
        // stretches between them are pushed as ranges.
        let ends = holes.iter().map(|&h| h as usize).chain([entities.len()]);
        let mut start = lo;
        for end in ends {
            let mut run = start..end;
            while let Some(&(slot, at)) = moved.peek() {
                // Most runs hold no flagged slot: their last element says so without a search.
                if run.is_empty() || entities[run.end - 1].slot() < slot {
                    break;
                }
                let cut = run.start + entities[run.clone()].partition_point(|e| e.slot() < slot);
                order.extend((run.start - lo) as u32..(cut - lo) as u32);
                order.push(at);
                moved.next();
                run.start = cut;
            }
            order.extend((run.start - lo) as u32..(run.end - lo) as u32);
            start = end + 1;
        }
        order.extend(moved.map(|(_, at)| at));
        debug_assert_eq!(order.len(), entities.len() - lo);
        Plan { lo, order }
    }

    /// Reorders the index columns — entities and both tick columns — in one gather, and points
    /// each moved entity's sparse entry at its new place in the same loop: one pass over the
    /// plan instead of one per column, plus one for the back-pointers.
    pub(super) fn apply_index(
        &self,
        entities: &mut [Entity],
        added: &mut [Tick],
        changed: &mut [Tick],
        sparse: &mut SparsePages,
    ) {
        let lo = self.lo;
        let (from_entities, from_added, from_changed) = (
            entities[lo..].to_vec(),
            added[lo..].to_vec(),
            changed[lo..].to_vec(),
        );
        let to = entities[lo..]
            .iter_mut()
            .zip(&mut added[lo..])
            .zip(&mut changed[lo..]);
        for (at, (((entity, added), changed), &from)) in (lo as u32..).zip(to.zip(&self.order)) {
            let from = from as usize;
            *entity = from_entities[from];
            *added = from_added[from];
            *changed = from_changed[from];
            sparse.set_existing(entity.slot(), at);
        }
    }

    /// Reorders the value column, whose `T` may be neither `Copy` nor `Clone`: the suffix is
    /// moved out into `Option`s and taken back in the planned order.
    pub(super) fn apply_values<T>(&self, column: &mut Vec<T>) {
        if size_of::<T>() == 0 {
            // Values of a zero-sized type (tags) are all alike and a `Vec` of them is only a
            // length: any order is this one.
            return;
        }
        let mut tail: Vec<Option<T>> = column.drain(self.lo..).map(Some).collect();
        column.extend(self.order.iter().map(|&from| {
            tail[from as usize]
                .take()
                .expect("a settle plan is a permutation: each element is taken once")
        }));
    }
}
