//! The in-place merge behind `Store::settle`: two ascending runs of one set of parallel
//! columns, merged back to front with swaps only (no new column, no `unsafe`).
//!
//! # Layout and invariants
//!
//! On entry the columns (entities, and whatever columns `swap_rest` swaps alongside) are
//!
//! ```text
//!   [ clean: ascending by slot | moved: ascending by slot ]
//!     0 .. clean                 clean .. n
//! ```
//!
//! and the merge writes final positions from `n - 1` down. At every step, with `i` clean
//! elements and `j` moved elements still unplaced, and `w = i + j`:
//!
//! * `w..n` holds its final elements;
//! * `0..i` holds the unplaced clean elements, where they started (so they are still
//!   ascending and the largest is at `i - 1`);
//! * `i..w` (the *gap*) holds exactly the `j` unplaced moved elements, in no particular order:
//!   `ring[t]` says which one (its rank among the moved) sits at `i + t`, and `pos[r]` is where
//!   the one of rank `r` sits. Both are O(k) memory for k moved elements.
//!
//! Placing the larger of the two candidates at `w - 1` keeps all three: a clean element swaps
//! with the gap's last element (which moves to the gap's new front, `i - 1`); the largest moved
//! element swaps with whatever ends the gap (which takes its old place). Runs of clean elements
//! move as blocks of at most the gap's length (disjoint, so one `swap_with_slice` per column).
//! Each element moves O(1) times, so the merge is O(n - lowest + k): the elements below the
//! lowest position written do not move.

use std::collections::VecDeque;

use crate::entity::Entity;

/// Merges `entities[..clean]` and `entities[clean..]` (each strictly ascending by slot) into one
/// ascending sequence, in place. Every exchange it makes is an exchange of two disjoint,
/// equally long blocks `a..a + len` and `b..b + len` (`a + len <= b`), and it calls
/// `swap_rest(a, b, len)` for each so parallel columns follow (see [`swap_blocks`]). Returns the
/// lowest index whose element may have changed (the elements below it were already in their
/// final place and were not touched).
///
/// Slots are distinct across both runs (a store holds a slot at most once).
pub(super) fn merge_back(
    entities: &mut [Entity],
    clean: usize,
    mut swap_rest: impl FnMut(usize, usize, usize),
) -> usize {
    let n = entities.len();
    debug_assert!(clean <= n);
    let moved = n - clean;
    // The moved elements' slots by rank (they start ascending at `clean..`).
    let moved_slots: Vec<u32> = entities[clean..].iter().map(|e| e.slot()).collect();
    let mut pos: Vec<usize> = (clean..n).collect();
    let mut ring: VecDeque<usize> = (0..moved).collect();
    let mut i = clean;
    let mut w = n;
    // `j` moved elements are unplaced: ranks `0..j`, the largest is `j - 1`.
    for j in (1..=moved).rev() {
        let largest = moved_slots[j - 1];
        // Every unplaced clean element above it goes first: the `above` largest clean ones,
        // in blocks no longer than the gap (`w - i == j`), so the two blocks of an exchange
        // are disjoint. The gap's last `c` elements land, in order, at its new front.
        let mut above = entities[..i]
            .iter()
            .rev()
            .take_while(|e| e.slot() > largest)
            .count();
        while above > 0 {
            let c = above.min(j);
            let (from, to) = (i - c, w - c);
            swap_blocks(entities, from, to, c);
            swap_rest(from, to, c);
            ring.rotate_right(c);
            for (t, &rank) in ring.iter().take(c).enumerate() {
                pos[rank] = from + t;
            }
            i -= c;
            w -= c;
            above -= c;
        }
        // Then the largest moved element, exchanged with whatever ends the gap.
        let at = pos[j - 1];
        let last = w - 1;
        let ending = *ring
            .back()
            .expect("the gap holds the j unplaced moved elements");
        if at != last {
            swap_blocks(entities, at, last, 1);
            swap_rest(at, last, 1);
            ring[at - i] = ending;
            pos[ending] = at;
        }
        ring.pop_back();
        w -= 1;
    }
    debug_assert_eq!(w, i);
    w
}

/// Exchanges the blocks `a..a + len` and `b..b + len` of `column` (`a + len <= b`).
pub(super) fn swap_blocks<T>(column: &mut [T], a: usize, b: usize, len: usize) {
    let (low, high) = column.split_at_mut(b);
    low[a..a + len].swap_with_slice(&mut high[..len]);
}
