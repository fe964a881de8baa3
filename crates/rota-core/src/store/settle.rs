//! The reordering behind `Store::settle`: one merge plan computed from the entity column, then
//! applied to every parallel column (no `unsafe`).
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
//!               untouched        pieces: [clean run][flagged][clean run][clean run][flagged]..
//! ```
//!
//! * `lo` is the lowest position whose element may change: every position below it holds a clean
//!   element with a slot below the smallest flagged one, so it is already in its final place.
//! * `pieces` lists `lo..` in its final order. A *run* is a stretch of clean elements that are
//!   next to each other now and stay next to each other (it ends at a flagged or removed
//!   element, or where a flagged slot merges in); a *single* is one flagged element. Each
//!   single adds itself and may split a run in two, each removal may split one, so there are
//!   at most `3k + r + 1` pieces for `r` removals: past finding the flags (a scan of the flag
//!   column from the first one, eight at a time), the plan costs O(k log n + r) to build.
//! * A plan may also drop elements (`Store::remove_and_settle`): their places end runs and
//!   are written by no piece; the columns are `r` shorter afterwards.
//!
//! Applying it moves each run as one block (`copy_within` for the index columns, in place), so
//! the cost is O(n - lo) per column in block copies, plus the back-pointers of the elements that
//! actually move; a run that ends where it started is not touched at all.
//!
//! ## Why the in-place block moves never overwrite a run before it is read
//!
//! Runs keep their relative order, so a run's shift `to - from` changes between two runs only
//! by the singles merged in between (+1 each) and the flagged or removed places skipped (−1
//! each). Runs are
//! moved in output order, except that a maximal sequence of runs shifting right (`to > from`)
//! is moved last-first:
//!
//! * a run shifting left (or not at all) writes below its own end, and every later run starts
//!   at or after that end;
//! * within a right-shifting sequence, each run writes above its own start, and the runs before
//!   it (moved after it) end at or before that start;
//! * where a right-shifting sequence ends because the shift drops to `s <= 0`, at least
//!   `shift + |s|` skipped places lie between the two runs, so the last right-shifting run's
//!   destination ends at or before the next run's start.
//!
//! Put directly: if run P is moved before run R, P's destination does not overlap R's source.
//! If P comes first in output order, either P does not shift right, or a run that does not
//! shift right lies between them; either way P's destination ends at or before R's start.
//! Otherwise both are in one right-shifting sequence, and P's destination starts above R's
//! end. A run that does not move is skipped: its places are its own destination, which no
//! other piece writes.
//!
//! The singles' own fields are saved before any run moves (runs may land on their places) and
//! written last.

use super::sparse::SparsePages;
use super::*;
use crate::entity::Entity;
use crate::tick::Tick;

/// One piece of the final order: `len` elements now at `from..from + len` (absolute
/// positions), ending at `to..to + len`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    from: u32,
    to: u32,
    /// 0 for a single (one flagged element); otherwise the run's length.
    len: u32,
}

impl Piece {
    fn is_single(self) -> bool {
        self.len == 0
    }
}

/// Where every element of `lo..` comes from once the columns are in slot order.
pub(super) struct Plan {
    /// The lowest position that changes.
    pub(super) lo: usize,
    /// `lo..n` in final order (see the module docs).
    pieces: Vec<Piece>,
    /// The flagged positions, ascending (the values' gather takes them out in this order).
    flagged: Vec<u32>,
    /// The positions whose elements leave the store, ascending; none is flagged.
    removed: Vec<u32>,
    /// For each single, in output order: its index in `flagged`.
    single_rank: Vec<u32>,
}

/// Eight flags packed into a `u64`, one byte each (0 or 1), flag `i` in byte `i`.
#[inline]
fn flag_word(eight: &[bool]) -> u64 {
    u64::from_le_bytes(std::array::from_fn(|i| u8::from(eight[i])))
}

/// The positions at or after `first` whose flag is set, ascending. Flags are read eight at a
/// time ([`flag_word`]): one multiplication gathers a word's flags into its top byte, so a
/// stretch of clean elements costs about a cycle per eight.
fn flagged_positions(displaced: &[bool], first: usize) -> Vec<u32> {
    // Byte i (0 or 1) times the constant lands on bit 56 + i; every other product falls below
    // bit 56 or past bit 63, and no two share a bit (so nothing carries into the top byte).
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut out = Vec::new();
    let flags = &displaced[first..];
    let mut eights = flags.chunks_exact(8);
    for (c, eight) in eights.by_ref().enumerate() {
        let mut mask = flag_word(eight).wrapping_mul(GATHER) >> 56;
        while mask != 0 {
            out.push((first + c * 8 + mask.trailing_zeros() as usize) as u32);
            mask &= mask - 1;
        }
    }
    let rest = flags.len() - eights.remainder().len();
    for (i, &f) in eights.remainder().iter().enumerate() {
        if f {
            out.push((first + rest + i) as u32);
        }
    }
    out
}

/// The first position whose flag is set (`displaced.len()` if none). Flags are read eight at
/// a time ([`flag_word`]); the first non-zero word's lowest set byte is the first flag.
pub(super) fn first_flagged(displaced: &[bool]) -> usize {
    let mut eights = displaced.chunks_exact(8);
    for (c, eight) in eights.by_ref().enumerate() {
        let word = flag_word(eight);
        if word != 0 {
            return c * 8 + (word.trailing_zeros() / 8) as usize;
        }
    }
    let rest = eights.remainder();
    displaced.len() - rest.len() + rest.iter().position(|&f| f).unwrap_or(rest.len())
}

/// Builds the pieces in output order, tracking where the next one lands.
struct Pieces {
    pieces: Vec<Piece>,
    single_rank: Vec<u32>,
    to: u32,
}

impl Pieces {
    /// The clean elements now at `run`, next in the final order (nothing if it is empty).
    fn run(&mut self, run: std::ops::Range<usize>) {
        if !run.is_empty() {
            let len = run.len() as u32;
            self.pieces.push(Piece {
                from: run.start as u32,
                to: self.to,
                len,
            });
            self.to += len;
        }
    }

    /// The flagged element now at `from` (number `rank` of the flagged positions), next.
    fn single(&mut self, from: u32, rank: u32) {
        self.pieces.push(Piece {
            from,
            to: self.to,
            len: 0,
        });
        self.single_rank.push(rank);
        self.to += 1;
    }
}

/// The flagged and removed positions merged in ascending order, each with whether it is
/// flagged (a single) or removed.
struct Breaks<'a> {
    flagged: std::iter::Peekable<std::slice::Iter<'a, u32>>,
    removed: std::iter::Peekable<std::slice::Iter<'a, u32>>,
}

impl<'a> Breaks<'a> {
    fn new(flagged: &'a [u32], removed: &'a [u32]) -> Self {
        Breaks {
            flagged: flagged.iter().peekable(),
            removed: removed.iter().peekable(),
        }
    }
}

impl Iterator for Breaks<'_> {
    /// A position, and `true` if it is flagged.
    type Item = (u32, bool);

    fn next(&mut self) -> Option<(u32, bool)> {
        match (self.flagged.peek(), self.removed.peek()) {
            (Some(&&f), Some(&&r)) if r < f => self.removed.next().map(|&r| (r, false)),
            (Some(_), _) => self.flagged.next().map(|&f| (f, true)),
            (None, _) => self.removed.next().map(|&r| (r, false)),
        }
    }
}

impl Plan {
    /// The plan that sorts `entities` by slot and drops the elements at `removed` (ascending
    /// positions, none flagged), given that the elements whose `displaced` flag is clear are
    /// already ascending and that no flag is set before `first`.
    pub(super) fn new(
        entities: &[Entity],
        displaced: &[bool],
        first: usize,
        removed: Vec<u32>,
    ) -> Plan {
        debug_assert_eq!(entities.len(), displaced.len());
        debug_assert!(removed.windows(2).all(|w| w[0] < w[1]));
        let flagged = flagged_positions(displaced, first);
        // The flagged elements by slot (packed keys, one `u64` compare per step): slot, then
        // rank among the flagged positions.
        let mut moved: Vec<u64> = flagged
            .iter()
            .enumerate()
            .map(|(rank, &at)| (u64::from(entities[at as usize].slot()) << 32) | rank as u64)
            .collect();
        moved.sort_unstable();
        let smallest = moved.first().map_or(u32::MAX, |&key| (key >> 32) as u32);
        // Everything before `first` and before the first removal is clean, ascending and
        // staying: what sorts below the smallest flagged slot keeps its place.
        let first_removed = removed.first().map_or(entities.len(), |&at| at as usize);
        let still = first.min(first_removed);
        let lo = entities[..still].partition_point(|e| e.slot() < smallest);
        let mut out = Pieces {
            pieces: Vec::with_capacity(3 * flagged.len() + removed.len() + 1),
            single_rank: Vec::with_capacity(flagged.len()),
            to: lo as u32,
        };
        let mut moved = moved
            .iter()
            .map(|&key| ((key >> 32) as u32, key as u32))
            .peekable();
        // The clean elements of `lo..` come in runs between the flagged and removed places;
        // each run is ascending, so the flagged slots that fall inside it are placed by binary
        // search.
        let ends = Breaks::new(&flagged, &removed)
            .map(|(at, _)| at as usize)
            .chain([entities.len()]);
        let mut start = lo;
        for end in ends {
            let mut run = start..end;
            while let Some(&(slot, rank)) = moved.peek() {
                // Most runs hold no flagged slot: their last element says so without a search.
                if run.is_empty() || entities[run.end - 1].slot() < slot {
                    break;
                }
                let cut = run.start + entities[run.clone()].partition_point(|e| e.slot() < slot);
                out.run(run.start..cut);
                out.single(flagged[rank as usize], rank);
                moved.next();
                run.start = cut;
            }
            out.run(run);
            start = end + 1;
        }
        for (_, rank) in moved {
            out.single(flagged[rank as usize], rank);
        }
        debug_assert_eq!(out.to as usize, entities.len() - removed.len());
        Plan {
            lo,
            pieces: out.pieces,
            flagged,
            removed,
            single_rank: out.single_rank,
        }
    }

    /// How many elements the columns hold once the plan is applied.
    pub(super) fn len_after(&self) -> usize {
        self.pieces
            .last()
            .map_or(self.lo, |p| p.to as usize + p.len.max(1) as usize)
    }

    /// The runs in the order they can be moved in place (module docs): output order, except
    /// that each maximal sequence of right-shifting runs is reversed.
    fn runs_in_move_order(&self) -> impl Iterator<Item = Piece> + '_ {
        let runs: Vec<Piece> = self
            .pieces
            .iter()
            .copied()
            .filter(|p| !p.is_single())
            .collect();
        let mut order = Vec::with_capacity(runs.len());
        let mut i = 0;
        while i < runs.len() {
            let mut j = i;
            while j < runs.len() && runs[j].to > runs[j].from {
                j += 1;
            }
            if j > i {
                order.extend(runs[i..j].iter().rev());
                i = j;
            } else {
                order.push(runs[i]);
                i += 1;
            }
        }
        order.into_iter()
    }

    /// Reorders the index columns — entities and both tick columns — in place, block by block,
    /// and points each moved entity's sparse entry at its new place.
    pub(super) fn apply_index(
        &self,
        entities: &mut [Entity],
        added: &mut [Tick],
        changed: &mut [Tick],
        sparse: &mut SparsePages,
    ) {
        // The singles' fields, before a run lands on their places.
        let singles: Vec<(Entity, Tick, Tick)> = self
            .pieces
            .iter()
            .filter(|p| p.is_single())
            .map(|p| {
                let at = p.from as usize;
                (entities[at], added[at], changed[at])
            })
            .collect();
        // Back-pointers: when most of `lo..` moves, one pass over it once everything is in
        // place (a tight loop, page by page) beats one per moved run (measured: `cargo bench
        // --bench storage -- sync_point`, docs/benchmarks.md); when little moves, only what
        // moved is written.
        let end = self.len_after();
        let moved: usize = self
            .pieces
            .iter()
            .filter(|p| p.is_single() || p.to != p.from)
            .map(|p| p.len.max(1) as usize)
            .sum();
        let one_pass = 2 * moved >= end - self.lo;
        for run in self.runs_in_move_order() {
            if run.to == run.from {
                continue; // already in place, back-pointers included
            }
            let (from, to, len) = (run.from as usize, run.to as usize, run.len as usize);
            entities.copy_within(from..from + len, to);
            added.copy_within(from..from + len, to);
            changed.copy_within(from..from + len, to);
            if !one_pass {
                sparse.set_ascending(&entities[to..to + len], run.to);
            }
        }
        let single_places = self.pieces.iter().filter(|p| p.is_single());
        for (p, (entity, a, c)) in single_places.zip(singles) {
            let to = p.to as usize;
            entities[to] = entity;
            added[to] = a;
            changed[to] = c;
            if !one_pass {
                sparse.set_existing(entity.slot(), p.to);
            }
        }
        if one_pass {
            sparse.set_ascending(&entities[self.lo..end], self.lo as u32);
        }
    }

    /// Reorders the value column, whose `T` may be neither `Copy` nor `Clone`, and returns the
    /// removed values (in position order). `back`, the first flagged position, is a break, so
    /// no run crosses it:
    ///
    /// * `lo..back` holds only clean and removed values. Runs take theirs in position order, so
    ///   this stretch is read once, front to back: a run's values go straight to the result,
    ///   the removed ones between runs to the removed list.
    /// * `back..` is taken out first (a single may be placed before runs of `lo..back`): its
    ///   clean values into one list (its runs take them in order), each flagged one into its
    ///   place among the singles, each removed one to the removed list.
    ///
    /// The result is written after the untouched prefix `..lo`, in the column's own buffer.
    /// `back` is near the end when the disorder came from inserts (appended values); a
    /// swap-remove flags the place it fills, wherever it is, and then most values take the
    /// one-by-one path of `back..`.
    pub(super) fn apply_values<T>(&self, column: &mut Vec<T>) -> Vec<T> {
        if size_of::<T>() == 0 {
            // Values of a zero-sized type (tags) are all alike and a `Vec` of them is only a
            // length: any order is this one, and any `removed.len()` of them are the removed.
            let keep = column.len() - self.removed.len();
            return column.split_off(keep);
        }
        let back = self.flagged.first().map_or(column.len(), |&at| at as usize);
        debug_assert!(self.lo <= back);
        // `back..`: its clean values, its flagged ones (by rank), its removed ones.
        let removed_front = self.removed.partition_point(|&at| (at as usize) < back);
        let removed_back = self.removed.len() - removed_front;
        let mut back_removed: Vec<T> = Vec::with_capacity(removed_back);
        let mut back_clean: Vec<T> =
            Vec::with_capacity(column.len() - back - self.flagged.len() - removed_back);
        let mut singles: Vec<Option<T>> = Vec::with_capacity(self.flagged.len());
        {
            let mut drain = column.drain(back..);
            let mut front = back;
            for (at, flagged) in Breaks::new(&self.flagged, &self.removed[removed_front..]) {
                back_clean.extend(drain.by_ref().take(at as usize - front));
                let value = drain.next();
                if flagged {
                    singles.push(value);
                } else {
                    back_removed.extend(value);
                }
                front = at as usize + 1;
            }
            back_clean.extend(drain);
        }
        // `lo..back`, copied out as one block and read in order; the result is written after the
        // prefix `..lo`, in the column's own buffer (a new one, copied into, took longer where
        // its pages were fresh: docs/benchmarks.md, "Result lists made with room").
        let mut middle = column.split_off(self.lo).into_iter();
        let out = column;
        let mut removed: Vec<T> = Vec::with_capacity(self.removed.len());
        let mut read = self.lo; // the position of `middle`'s next value
        let mut back_clean = back_clean.into_iter();
        let mut ranks = self.single_rank.iter();
        for p in &self.pieces {
            let (from, len) = (p.from as usize, p.len as usize);
            if p.is_single() {
                let rank = *ranks.next().expect("one rank per single") as usize;
                out.push(
                    singles[rank]
                        .take()
                        .expect("a settle plan is a permutation: each single is placed once"),
                );
            } else if from < back {
                // Between the last run read and this one: removed places only.
                removed.extend(middle.by_ref().take(from - read));
                out.extend(middle.by_ref().take(len));
                read = from + len;
            } else {
                out.extend(back_clean.by_ref().take(len));
            }
        }
        removed.extend(middle);
        removed.append(&mut back_removed);
        debug_assert!(back_clean.next().is_none());
        debug_assert_eq!(removed.len(), self.removed.len());
        removed
    }
}

/// The union of two ascending lists of distinct positions, ascending: a position in both is
/// listed once (the dead positions `take_dead` derives include the removed ones whose
/// back-pointers were cleared first).
pub(super) fn merge_ascending(a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
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

impl<T> Store<T> {
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
    pub(super) fn reorder(&mut self, removed: Vec<u32>) -> Vec<T> {
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
            first_flagged(&index.displaced)
        };
        let plan = Plan::new(&index.entities, &index.displaced, first, removed);
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
}
