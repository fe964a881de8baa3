//! The run join: a query over settled stores as a merge join of sorted entity columns.
//!
//! Every settled store's entity column ascends by slot, so the entities a query matches can be
//! found by walking the columns side by side, the way a database merge-joins sorted tables. The
//! join does not stop at single entities: it yields **runs** — maximal stretches in which every
//! required column holds exactly the driver's entities (equal entity slices, at any offset in
//! each store), every optional column either holds all of them or none, and no excluded column
//! holds any. A run is a set of plain slices, so the loop over it is a zip of slice iterators.
//!
//! ```text
//!   driver  (Vel)   [ 2  3  4  5  9 10 11 ]          runs: [2 3 4] at Pos offset 1,
//!   required (Pos)  [ 0  2  3  4  6  9 10 11 12 ]          [9 10 11] at Pos offset 5
//!   excluded (Dead) [ 5 ]                                   (5 is excluded)
//! ```
//!
//! Between runs, a required column finds the driver's next entity through its **sparse
//! array** (one lookup, no search: interleaved stores make runs of one or two entities, so this
//! is the per-run cost); where it lacks that entity, its cursor **gallops** (exponential then
//! binary search) to its next entity and the driver leaps there (leapfrog), so a column that
//! lacks long stretches of the driver costs O(log gap) per stretch. Excluded and optional
//! columns gallop. Stores filled by the same bundles — the common case — join in one run.
//!
//! Queries whose elements are all required (`&T`, `&mut T`, `Entity`, `With<T>`, no change
//! filter) take a join of their own (`next_required_run`), which skips the cuts the other
//! roles need. Measured: `cargo bench --bench join` (docs/benchmarks.md, "The run join").

use crate::entity::Entity;
use crate::store::index::{StoreIndex, slot_start};
use crate::store::sparse::{ABSENT, SparsePages};
use crate::tick::{ChangeWindow, Tick};

/// What a column does to the join.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The entity must be here (`&T`, `&mut T`, `With<T>`).
    Required,
    /// The entity must not be here (`Without<T>`).
    Excluded,
    /// Either (`Option<&mut T>`): the run says whether this column has the run's entities.
    Optional,
    /// Either, and only read (`Option<&T>`): when the join hands out items ([`JoinPlan::merge`]),
    /// this column does not cut runs; its element merges it with the run's entities item by
    /// item ([`JoinPlan::merged`]). When it hands out slices, it cuts them like `Optional`.
    Merged,
}

struct Column<'w> {
    entities: &'w [Entity],
    /// The store's sparse array: where each slot sits in `entities` (one lookup finds a
    /// required column's entry for the driver's entity, without a search).
    sparse: &'w SparsePages,
    role: Role,
    /// Cursor: every entity before it has a lower slot than the driver's current entity.
    pos: usize,
    /// Where the current run starts in this column (`None`: an optional column without it, or
    /// a merged one).
    start: Option<usize>,
    /// A merged column's entries in the current run's stretch of slots (not all of them are
    /// the run's entities): `merged.0..merged.1`.
    merged: (usize, usize),
}

/// A change filter on a column (`Changed<T>`, `Added<T>`): every entity of a run must pass.
struct TickTest<'w> {
    column: usize,
    /// The tested tick column (`added` or `changed`), parallel to the column's entities.
    ticks: &'w [Tick],
    window: ChangeWindow,
}

impl TickTest<'_> {
    #[inline]
    fn passes(&self, dense: usize) -> bool {
        self.ticks
            .get(dense)
            .is_some_and(|&t| self.window.contains(t))
    }
}

/// A run join over a query's columns. Elements register their columns with
/// [`JoinPlan::column`] and read their run offsets with [`JoinPlan::start`].
#[doc(hidden)]
pub struct JoinPlan<'w> {
    /// A `Vec`: an inline array was tried and measured slower (moving it cost more than the
    /// allocation; docs/benchmarks.md, "A `for` loop over one run is a plain slice loop").
    columns: Vec<Column<'w>>,
    /// Change filters: they cut runs where an entity's tick leaves the window.
    tests: Vec<TickTest<'w>>,
    /// The required column that drives the walk (the shortest), once planned.
    driver: Option<usize>,
    /// The current run: `[run_start, run_end)` in the driver's column.
    run_start: usize,
    run_end: usize,
    /// Set when some column cannot be walked in order (an unsettled store).
    unsettled: bool,
    /// Whether `Merged` columns merge (items) rather than cut (slices): see [`Role::Merged`].
    merge: bool,
    /// Whether any column is `Merged` (so runs without one skip the merged placement).
    has_merged: bool,
    /// Whether every column is required and no change filter is set, so runs are found by
    /// [`JoinPlan::next_required_run`] (set by [`JoinPlan::finish`]).
    only_required: bool,
    /// Set by [`JoinPlan::restrict`]: a segment's plan is not cut again.
    restricted: bool,
}

impl<'w> JoinPlan<'w> {
    pub(crate) fn new() -> JoinPlan<'w> {
        JoinPlan {
            columns: Vec::with_capacity(4),
            tests: Vec::new(),
            driver: None,
            run_start: 0,
            run_end: 0,
            unsettled: false,
            merge: true,
            has_merged: false,
            only_required: false,
            restricted: false,
        }
    }

    /// Registers a column (a missing store is an empty one) and returns its id.
    ///
    /// A store the query already requires is not joined twice: requiring it again (`&T` beside
    /// `Changed<T>`, `Added<T>` or `With<T>`) returns the same id. Two columns of one store
    /// always agree, so the join would only pay a lookup and a comparison per run to find that
    /// out (measured: `cargo bench --bench changes`, docs/benchmarks.md).
    pub(crate) fn column(&mut self, index: Option<StoreIndex<'w>>, role: Role) -> usize {
        if role == Role::Required
            && let Some(index) = &index
            && let Some(id) = self
                .columns
                .iter()
                .position(|c| c.role == Role::Required && std::ptr::eq(c.sparse, index.sparse))
        {
            return id;
        }
        let index = index.unwrap_or_else(StoreIndex::empty);
        self.unsettled |= !index.settled;
        self.columns.push(Column {
            entities: index.entities,
            sparse: index.sparse,
            role,
            pos: 0,
            start: None,
            merged: (0, 0),
        });
        self.has_merged |= role == Role::Merged;
        self.columns.len() - 1
    }

    /// Adds a change filter on the (required) column `column`, whose ticks are `ticks`.
    pub(crate) fn tick_filter(&mut self, column: usize, ticks: &'w [Tick], window: ChangeWindow) {
        self.tests.push(TickTest {
            column,
            ticks,
            window,
        });
    }

    /// Whether the `i`-th entity of the candidate run starting at `pos` in the driver `d`
    /// passes every change filter.
    #[inline]
    fn passes_tests(&self, d: usize, pos: usize, i: usize) -> bool {
        self.tests.iter().all(|t| {
            let start = if t.column == d {
                Some(pos)
            } else {
                self.columns[t.column].start
            };
            start.is_some_and(|s| t.passes(s + i))
        })
    }

    /// The first `i` in `range` where the change filters' answer for the `i`-th entity of the
    /// candidate run at `pos` differs from `passes`. One filter (the common case) is a scan of
    /// its tick column, a tight loop over plain ticks; several are asked entity by entity.
    fn first_test_change(
        &self,
        d: usize,
        pos: usize,
        range: std::ops::Range<usize>,
        passes: bool,
    ) -> Option<usize> {
        match self.tests.as_slice() {
            [] => None,
            [t] => {
                let start = if t.column == d {
                    Some(pos)
                } else {
                    self.columns[t.column].start
                };
                let ticks = start.and_then(|s| t.ticks.get(s + range.start..s + range.end));
                match ticks {
                    Some(ticks) => ticks
                        .iter()
                        .position(|&tick| t.window.contains(tick) != passes)
                        .map(|k| range.start + k),
                    None => range
                        .clone()
                        .find(|&i| self.passes_tests(d, pos, i) != passes),
                }
            }
            _ => range
                .clone()
                .find(|&i| self.passes_tests(d, pos, i) != passes),
        }
    }

    /// Picks the driver. `false` if the join cannot run (an unsettled column, or no required
    /// column): the caller then walks entity by entity.
    pub(crate) fn finish(&mut self) -> bool {
        if self.unsettled {
            return false;
        }
        self.driver = self
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.role == Role::Required)
            .min_by_key(|(_, c)| c.entities.len())
            .map(|(i, _)| i);
        self.only_required =
            self.tests.is_empty() && self.columns.iter().all(|c| c.role == Role::Required);
        self.driver.is_some()
    }

    /// Whether the join is plain (every column required, no change filter): its runs are
    /// whole slices of every column, with no merged or optional part.
    pub(crate) fn is_plain(&self) -> bool {
        self.only_required
    }

    /// Whether the current run reaches the end of the driver's column: no run can follow it.
    pub(crate) fn is_last_run(&self) -> bool {
        self.driver
            .is_some_and(|d| self.run_end == self.columns[d].entities.len())
    }

    /// Whether the join can still be cut into segments: planned, not restricted, and no run
    /// asked for yet (the driver's cursor has not moved and no run was found).
    pub(crate) fn is_fresh(&self) -> bool {
        !self.restricted
            && self.run_end == 0
            && self.driver.is_some_and(|d| self.columns[d].pos == 0)
    }

    /// The driving column's entities from its cursor on (all of them before the first run):
    /// where a query is cut into segments (`QueryIter::segments`).
    pub(crate) fn driver_entities(&self) -> &'w [Entity] {
        match self.driver {
            Some(d) => &self.columns[d].entities[self.columns[d].pos..],
            None => &[],
        }
    }

    /// Limits the join, before its first run, to the entities whose slots are in
    /// `lo..hi` (`hi`: `None` for no upper bound). Every column is settled and ascending, so
    /// those entities are one stretch of it: its cursor starts at the stretch and its entities
    /// end there. Positions stay the store's dense indices, so the elements' columns are
    /// addressed as before (an exclusive one cut at the same places, `Joined::split`).
    pub(crate) fn restrict(&mut self, lo: u32, hi: Option<u32>) {
        self.restricted = true;
        for c in &mut self.columns {
            let end = hi.map_or(c.entities.len(), |hi| slot_start(c.entities, c.sparse, hi));
            c.pos = slot_start(c.entities, c.sparse, lo).min(end);
            c.entities = &c.entities[..end];
        }
    }

    /// Stops merging `Merged` columns: from the next run on, they cut runs, so that every run
    /// is plain slices (`for_each_run`). Cursors stay valid: they only ever move forward.
    pub(crate) fn cut_optional(&mut self) {
        self.merge = false;
    }

    /// Where the current run starts in column `id` (`None`: an optional column lacking it, or a
    /// merged one: see [`JoinPlan::merged`]).
    #[inline]
    pub(crate) fn start(&self, id: usize) -> Option<usize> {
        self.columns[id].start
    }

    /// For a column merged in the current run: where its entries in the run's stretch of slots
    /// start, and those entries (a sorted subset of the run's entities, possibly empty).
    #[inline]
    pub(crate) fn merged(&self, id: usize) -> Option<(usize, &'w [Entity])> {
        let c = &self.columns[id];
        if !(self.merge && c.role == Role::Merged) {
            return None;
        }
        let (start, end) = c.merged;
        Some((start, &c.entities[start..end]))
    }

    /// The current run's length.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.run_end - self.run_start
    }

    /// The current run's entities (the driver's slice).
    #[inline]
    pub(crate) fn entities(&self) -> &'w [Entity] {
        match self.driver {
            Some(d) => &self.columns[d].entities[self.run_start..self.run_end],
            None => &[],
        }
    }

    /// The candidate run at `pos` (at most `len` of the driver's entities): how far every other
    /// column holding it (its `start` set) holds exactly the driver's entities and the change
    /// filters give the same answer as for its first entity — and that answer. Compares windows
    /// of 64, 128, 256… entries, so the cost follows the length found, not `len`.
    fn candidate_run(&self, d: usize, pos: usize, len: usize) -> (usize, bool) {
        let driver = &self.columns[d].entities[pos..pos + len];
        // Index 0 agrees in every column (each holds the driver's first entity there).
        let passes = self.passes_tests(d, pos, 0);
        // Nothing to compare (the driver is the only column holding the run, no change
        // filter): the whole candidate is the run. A one-column query's single run.
        if self.tests.is_empty()
            && self
                .columns
                .iter()
                .enumerate()
                .all(|(i, c)| i == d || c.start.is_none())
        {
            return (len, passes);
        }
        let mut agreed = 0;
        let mut step = 64;
        while agreed < len {
            let end = (agreed + step).min(len);
            let mut window_end = end;
            for (i, c) in self.columns.iter().enumerate() {
                let Some(start) = c.start.filter(|_| i != d) else {
                    continue;
                };
                // The column agreed on `agreed` entries from `start`, so it has them.
                let other = &c.entities[start + agreed..];
                window_end = agreed + agreeing_prefix(&driver[agreed..window_end], other);
            }
            if let Some(i) = self.first_test_change(d, pos, agreed..window_end, passes) {
                window_end = i;
            }
            if window_end < end {
                return (window_end, passes);
            }
            agreed = end;
            step *= 2;
        }
        (len, passes)
    }

    /// Advances to the next run; `false` when there is none.
    ///
    /// Out of line: inlined into a query's `fold`, the join crowds the item loop (measured:
    /// `cargo bench --bench join -- optional`, 25% slower).
    #[inline(never)]
    pub(crate) fn next_run(&mut self) -> bool {
        if self.only_required {
            self.next_required_run()
        } else {
            self.next_general_run()
        }
    }

    /// [`JoinPlan::next_run`] when every column is required and no change filter is set (plain
    /// `&T`, `&mut T`, `Entity` and `With<T>` queries): the driver's next entity that every
    /// other column holds, found through their sparse arrays, and how far they all go on
    /// holding the driver's entities. A miss gallops the missing column's cursor and leaps the
    /// driver past what that column lacks (leapfrog), as the general join does.
    #[inline(always)]
    fn next_required_run(&mut self) -> bool {
        let Some(d) = self.driver else {
            return false;
        };
        let driver = self.columns[d].entities;
        let Some(pos) = self.next_held(d, self.columns[d].pos) else {
            return false;
        };
        // Every column holds the driver's entity at its cursor: the run goes on while all
        // of them go on holding the driver's entities.
        let mut len = driver.len() - pos;
        for (i, c) in self.columns.iter().enumerate() {
            if i == d || len == 1 {
                continue;
            }
            // Interleaved stores part after one entity: one comparison says so.
            len = if c.entities.get(c.pos + 1) != Some(&driver[pos + 1]) {
                1
            } else {
                agreeing_prefix(&driver[pos..pos + len], &c.entities[c.pos..])
            };
        }
        for (i, c) in self.columns.iter_mut().enumerate() {
            let start = if i == d { pos } else { c.pos };
            c.start = Some(start);
            c.pos = start + len;
        }
        self.run_start = pos;
        self.run_end = pos + len;
        true
    }

    /// The first position from `pos` on whose driver entity every required column holds (each
    /// one's cursor and `start` then at it), or `None` when the driver has no such entity left.
    /// A column that lacks the entity leaps the driver to its own next entity (leapfrog).
    #[inline(always)]
    fn next_held(&mut self, d: usize, mut pos: usize) -> Option<usize> {
        let driver = self.columns[d].entities;
        loop {
            let Some(&e) = driver.get(pos) else {
                self.columns[d].pos = pos;
                return None;
            };
            match self.locate_required(d, e, pos) {
                Located::Here => return Some(pos),
                Located::Retry(next) => pos = next,
                Located::Done => return None,
            }
        }
    }

    /// Whether every required column other than the driver `d` holds the driver's entity `e`
    /// (at `pos`): then each one's cursor and `start` are at it. `Done` also ends the driver.
    #[inline(always)]
    fn locate_required(&mut self, d: usize, e: Entity, pos: usize) -> Located {
        let driver = self.columns[d].entities;
        for (i, c) in self.columns.iter_mut().enumerate() {
            if i == d || c.role != Role::Required {
                continue;
            }
            match locate(c, e, driver, pos) {
                Located::Here => c.start = Some(c.pos),
                Located::Done => {
                    self.columns[d].pos = driver.len();
                    return Located::Done;
                }
                retry => return retry,
            }
        }
        Located::Here
    }

    /// [`JoinPlan::next_run`] with excluded, optional or merged columns, or change filters.
    #[inline(never)]
    fn next_general_run(&mut self) -> bool {
        let Some(d) = self.driver else {
            return false;
        };
        let driver = self.columns[d].entities;
        let mut pos = self.columns[d].pos;
        'candidate: loop {
            // Required columns: each must hold the entity (`next_held` leaps the driver past
            // what one lacks, since nothing in between can match).
            let Some(held) = self.next_held(d, pos) else {
                return false;
            };
            pos = held;
            let e = driver[pos];
            let mut len = driver.len() - pos;
            // Excluded and optional columns cut the run where their membership changes (merged
            // ones do not: they are placed once the run is known, below).
            let merge = self.merge;
            for c in self.columns.iter_mut() {
                if c.role == Role::Required {
                    continue;
                }
                if merge && c.role == Role::Merged {
                    c.start = None;
                    continue;
                }
                c.pos = gallop(c.entities, c.pos, e.slot());
                let here = c.entities.get(c.pos).copied();
                match (c.role, here) {
                    (Role::Excluded, Some(x)) if x == e => {
                        pos += 1;
                        continue 'candidate;
                    }
                    (Role::Optional | Role::Merged, Some(x)) if x == e => c.start = Some(c.pos),
                    (_, Some(x)) => {
                        // Entities before `x`'s slot are not in this column.
                        // Galloped from `pos`, not a binary search of the whole candidate:
                        // interleaved stores make runs of a few entities, so the cut is near.
                        let limit = x.slot();
                        len = (gallop(&driver[..pos + len], pos, limit) - pos).max(1);
                        c.start = None;
                        if driver[pos].slot() >= limit {
                            // `x` shares `e`'s slot with another generation: `e` is not here.
                            len = 1;
                        }
                    }
                    (_, None) => c.start = None,
                }
            }
            // Every column holding `e` must go on holding exactly the driver's entities, and
            // change filters keep or skip whole stretches. Checked last, after the cheap
            // (logarithmic) cuts, and in growing windows: a column that agrees with the driver
            // to the end of the store must not be compared to its end once per run (that made
            // a query with an `Option` over a fragmented store quadratic: `death` in the
            // ecosystem demo took 283 ms per tick at 100k animals, 1.7 ms after).
            let (run, passes) = self.candidate_run(d, pos, len);
            if !passes {
                pos += run;
                continue 'candidate;
            }
            len = run;
            // Emit [pos, pos + len) and move every cursor that took part past it.
            for (i, c) in self.columns.iter_mut().enumerate() {
                if i == d {
                    c.start = Some(pos);
                    c.pos = pos + len;
                } else if let Some(s) = c.start {
                    c.pos = s + len;
                }
            }
            // Merged columns: the stretch of their entries between the run's first and last slots.
            if merge && self.has_merged {
                let (first, last) = (driver[pos].slot(), driver[pos + len - 1].slot());
                for c in self.columns.iter_mut().filter(|c| c.role == Role::Merged) {
                    let start = gallop(c.entities, c.pos, first);
                    let end = match last.checked_add(1) {
                        Some(next) => gallop(c.entities, start, next),
                        None => c.entities.len(),
                    };
                    c.merged = (start, end);
                    c.pos = end;
                }
            }
            self.run_start = pos;
            self.run_end = pos + len;
            return true;
        }
    }
}

/// Where a required column stands on the driver's entity `e` (at `pos` in `driver`).
enum Located {
    /// The column holds `e`, at its cursor.
    Here,
    /// It does not: the driver's next candidate is at this position (past what the column
    /// lacks: leapfrog).
    Retry(usize),
    /// It holds nothing from `e` on: no more runs.
    Done,
}

/// Finds the driver's entity `e` in the required column `c` and moves `c`'s cursor there.
/// Most often the column holds `e`: its sparse entry says where, in one lookup (no search, no
/// unpredictable branch: interleaved stores make runs of one or two entities, so this is the
/// join's per-run cost). The cursor stays valid: `e`'s place is at or past it, since the
/// column ascends. Where the column lacks `e`, its cursor gallops to its next entity, and the
/// driver may leap there.
#[inline(always)]
fn locate(c: &mut Column<'_>, e: Entity, driver: &[Entity], pos: usize) -> Located {
    let at = c.sparse.get(e.slot());
    if at != ABSENT && c.entities.get(at as usize) == Some(&e) {
        c.pos = at as usize;
        return Located::Here;
    }
    c.pos = gallop(c.entities, c.pos, e.slot());
    match c.entities.get(c.pos) {
        None => Located::Done,
        // The same slot under another generation: not this entity.
        Some(&x) if x.slot() == e.slot() => Located::Retry(pos + 1),
        Some(&x) => Located::Retry(gallop(driver, pos, x.slot())),
    }
}

/// The first index `>= from` whose slot is `>= slot` (`entities` ascends): exponential search
/// from `from`, then binary search in the last step.
#[inline]
pub(crate) fn gallop(entities: &[Entity], from: usize, slot: u32) -> usize {
    match entities.get(from) {
        None => return entities.len(),
        Some(e) if e.slot() >= slot => return from,
        Some(_) => {}
    }
    let mut low = from; // entities[low] < slot
    let mut step = 1;
    loop {
        let probe = low + step;
        match entities.get(probe) {
            Some(e) if e.slot() < slot => {
                low = probe;
                step *= 2;
            }
            _ => {
                let high = probe.min(entities.len());
                return low + 1 + entities[low + 1..high].partition_point(|e| e.slot() < slot);
            }
        }
    }
}

/// How many leading entities of `driver` the other column `other` holds, in the same places.
/// Both are stretches of settled columns of one world's stores (strictly ascending by slot, and
/// a slot held by two stores is the same live entity in both).
///
/// **Dense shortcut**, O(1): if `driver`'s slots are consecutive (`last - first + 1 == len`)
/// and `other` starts and ends the same stretch with the same entities, `other`'s `len` strictly
/// ascending slots all lie in those `len` slots, so they are exactly the driver's. Stores filled
/// by the same spawns — the common case — are verified without reading their entity columns.
/// Otherwise [`common_prefix`] compares them.
#[inline]
fn agreeing_prefix(driver: &[Entity], other: &[Entity]) -> usize {
    if let (Some(first), Some(last)) = (driver.first(), driver.last()) {
        let len = driver.len();
        let dense = last.slot().saturating_sub(first.slot()) as usize == len - 1;
        if dense && other.len() >= len && other[0] == *first && other[len - 1] == *last {
            return len;
        }
    }
    common_prefix(driver, other)
}

/// How many leading entities `a` and `b` share. Compares 32 at a time with an OR of XORs
/// (branch-free, vectorizes), then finds the first difference inside the block that differs.
#[inline]
pub(crate) fn common_prefix(a: &[Entity], b: &[Entity]) -> usize {
    const BLOCK: usize = 32;
    const FIRST: usize = 4;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // Fragmented joins make short runs: look at the first few one by one before comparing
    // whole blocks (measured: `cargo bench --bench join`, `interleaved`).
    let mut i = 0;
    while i < n.min(FIRST) {
        if a[i] != b[i] {
            return i;
        }
        i += 1;
    }
    while i + BLOCK <= n {
        let differs = a[i..i + BLOCK]
            .iter()
            .zip(&b[i..i + BLOCK])
            .fold(0u64, |acc, (x, y)| acc | (x.to_bits() ^ y.to_bits()));
        if differs != 0 {
            break;
        }
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}
