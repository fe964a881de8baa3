//! The borrowed columns behind a component element: [`ReadColumn`] (`&T`) and [`WriteColumn`]
//! (`&mut T`), each placed in the join by a [`Joined`]; the runs they hand out (plain slice
//! iterators: a [`WriteColumn`] stamps what was handed out itself); [`OptionRun`] for
//! `Option<..>` elements. `fetch.rs` writes the
//! four component elements (`&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`) once, over the
//! [`Column`] and [`ColumnRun`] traits.
//!
//! Everything here is generic and `#[inline]`: each element still compiles to its own loop over
//! a plain slice (measured: `docs/benchmarks.md`, "The run join").

use std::slice;

use super::{Borrows, JoinPlan, Role};
use crate::component::Component;
use crate::entity::Entity;
use crate::store::Store;
use crate::store::index::StoreIndex;
use crate::tick::Tick;

/// A run of one column's values: handed out item by item (`Iterator`), or as one slice.
pub trait ColumnRun: Iterator + Sized {
    /// The run as a slice: `&[T]` or `&mut [T]`.
    type Slice;
    /// A run with no values.
    fn empty() -> Self;
    /// What the run has left, as a slice.
    fn rest(self) -> Self::Slice;
    /// The run cut in two: its first `at` values (all of them if it has fewer) and the rest.
    fn split(self, at: usize) -> (Self, Self);
}

/// The values of one component store, read or written, addressed by dense index.
pub trait Column<'w>: Sized {
    /// The run it hands out.
    type Run: ColumnRun;
    /// Borrows `T`'s values, with the store's membership, if the query's borrows hold it.
    fn borrow(borrows: &mut Borrows<'w>) -> Option<(StoreIndex<'w>, Self)>;
    /// The `len` values from dense index `start`. Calls ascend: `start` is never behind the end
    /// of the previous call's values, and a call means the previous run was used up.
    fn take(&mut self, start: usize, len: usize) -> Option<Self::Run>;
    /// The current run is over with `left` of its values not handed out (see
    /// [`WriteColumn`]). Nothing to do for a shared column.
    #[inline(always)]
    fn flush(&mut self, left: usize) {
        let _ = left;
    }
    /// What the column still owes once the query's last run is taken (see [`Pending`]), the
    /// column given up: nothing for a shared column.
    #[inline(always)]
    fn into_pending(self) -> Pending<'w> {
        Pending::default()
    }
    /// The column cut at dense index `at`, before any run was taken: the first part may hand
    /// out only the values below `at`, the second only those from `at` on (a shared column
    /// is copied whole; an exclusive one is split, so the parts can go to two threads).
    fn split(self, at: usize) -> (Self, Self);
}

/// A column placed in the join: its store's membership, its id among the join's columns
/// (`usize::MAX` until [`Joined::register`]), and its values.
pub struct Joined<'w, C> {
    index: StoreIndex<'w>,
    id: usize,
    column: C,
}

impl<'w, C: Column<'w>> Joined<'w, C> {
    /// Borrows the column, if the query's borrows hold its store.
    pub(crate) fn borrow(borrows: &mut Borrows<'w>) -> Option<Self> {
        C::borrow(borrows).map(|(index, column)| Joined::new(index, column))
    }

    /// A column of `index`'s store, not yet in a join.
    #[inline]
    pub(crate) fn new(index: StoreIndex<'w>, column: C) -> Self {
        Joined {
            index,
            id: usize::MAX,
            column,
        }
    }

    /// Registers a (possibly missing) column with the join under `role`.
    pub(crate) fn register(this: &mut Option<Self>, plan: &mut JoinPlan<'w>, role: Role) {
        match this {
            Some(c) => c.id = plan.column(Some(c.index), role),
            None => _ = plan.column(None, role),
        }
    }

    /// The store's membership.
    pub(crate) fn index(&self) -> StoreIndex<'w> {
        self.index
    }

    /// The join's current run (runs come in ascending order), or `None` for an optional column
    /// without it (the previous run is then over).
    #[inline(always)]
    pub(crate) fn run(&mut self, plan: &JoinPlan<'w>) -> Option<C::Run> {
        match plan.start(self.id) {
            Some(start) => self.column.take(start, plan.len()),
            None => {
                self.column.flush(0);
                None
            }
        }
    }

    /// The current run's values of a column the join merges item by item ([`Role::Merged`]):
    /// the column's entries in the run's stretch of slots and their values. `None` when the
    /// column is not merged in this run (then [`Joined::run`] gives its run).
    #[inline(always)]
    pub(crate) fn merged(&mut self, plan: &JoinPlan<'w>) -> Option<(&'w [Entity], Option<C::Run>)> {
        let (start, entities) = plan.merged(self.id)?;
        Some((entities, self.column.take(start, entities.len())))
    }

    /// The first `len` values (all of them for a store's whole entity column), before any
    /// other run was taken.
    #[inline(always)]
    pub(crate) fn whole(&mut self, len: usize) -> Option<C::Run> {
        self.column.take(0, len)
    }

    /// The one-value run of `entity` (calls ascend), or `None` if it has no value here.
    #[inline]
    pub(crate) fn one(&mut self, entity: Entity) -> Option<C::Run> {
        match self.index.dense_index(entity) {
            Some(dense) => self.column.take(dense, 1),
            None => {
                self.column.flush(0);
                None
            }
        }
    }

    /// See [`Column::flush`].
    #[inline(always)]
    pub(crate) fn flush(&mut self, left: usize) {
        self.column.flush(left);
    }

    /// See [`Column::into_pending`].
    #[inline(always)]
    pub(crate) fn into_pending(this: Option<Self>) -> Pending<'w> {
        this.map(|c| c.column.into_pending()).unwrap_or_default()
    }

    /// The column cut where slot `slot` begins in its (settled, ascending) store, before any
    /// run was taken: the first part holds the values of lower slots, the second the rest.
    pub(crate) fn split(self, slot: u32) -> (Self, Self) {
        let at = self.index.slot_start(slot);
        let (head, tail) = self.column.split(at);
        (
            Joined {
                index: self.index,
                id: self.id,
                column: head,
            },
            Joined {
                index: self.index,
                id: self.id,
                column: tail,
            },
        )
    }
}

/// [`Joined::split`] for an element's fetch, which is `None` when the store is missing.
pub(crate) fn split_joined<'w, C: Column<'w>>(
    column: Option<Joined<'w, C>>,
    slot: u32,
) -> (Option<Joined<'w, C>>, Option<Joined<'w, C>>) {
    match column {
        Some(c) => {
            let (head, tail) = c.split(slot);
            (Some(head), Some(tail))
        }
        None => (None, None),
    }
}

/// The join's current run of a required column (empty if the store is missing, which the join
/// has already turned into "no runs").
#[inline(always)]
pub(crate) fn required_run<'w, C: Column<'w>>(
    column: &mut Option<Joined<'w, C>>,
    plan: &JoinPlan<'w>,
) -> C::Run {
    column
        .as_mut()
        .and_then(|c| c.run(plan))
        .unwrap_or_else(C::Run::empty)
}

/// An optional column's part of a run, as the join found it.
pub enum OptionRaw<'w, R> {
    /// The run's entities all have the component (`Some`: its values) or all lack it.
    Cut(Option<R>),
    /// A merged column ([`Role::Merged`]): its entries in the run's stretch of slots (a sorted
    /// subset of the run's entities) and their values.
    Merge(&'w [Entity], Option<R>),
}

/// The items of an optional column's run, for the run's `entities`.
#[inline(always)]
pub(crate) fn optional_run<'w, R: ColumnRun>(
    raw: OptionRaw<'w, R>,
    entities: &'w [Entity],
) -> OptionRun<'w, R> {
    match raw {
        OptionRaw::Cut(Some(run)) => OptionRun::Some(run),
        OptionRaw::Cut(None) => OptionRun::None(entities.len()),
        OptionRaw::Merge(column, values) => OptionRun::Merge {
            driver: entities.iter(),
            column,
            values: values.unwrap_or_else(R::empty),
        },
    }
}

/// An optional column's run as one slice (`None`: the run lacks the component). Runs handed
/// out as slices are never merged (`JoinPlan::cut_optional`); a merged one, which cannot be one
/// slice, would be handed out as `None` (debug builds assert it never is).
#[inline]
pub(crate) fn optional_rest<R: ColumnRun>(raw: OptionRaw<'_, R>) -> Option<R::Slice> {
    match raw {
        OptionRaw::Cut(run) => run.map(ColumnRun::rest),
        OptionRaw::Merge(..) => {
            debug_assert!(false, "a merged optional run was handed out as a slice");
            None
        }
    }
}

/// A shared column: the store's values.
pub struct ReadColumn<'w, T> {
    values: &'w [T],
}

impl<'w, T: 'w> ColumnRun for slice::Iter<'w, T> {
    type Slice = &'w [T];
    #[inline]
    fn empty() -> Self {
        [].iter()
    }
    #[inline]
    fn rest(self) -> &'w [T] {
        self.as_slice()
    }
    #[inline]
    fn split(self, at: usize) -> (Self, Self) {
        let values = self.as_slice();
        let (head, tail) = values.split_at(at.min(values.len()));
        (head.iter(), tail.iter())
    }
}

impl<'w, T: Component> ReadColumn<'w, T> {
    /// [`Column::borrow`] straight from `T`'s store (settled first), for a query of one store
    /// ([`WholeWorld`](super::WholeWorld)).
    #[inline]
    pub(crate) fn from_store(store: &'w mut Store<T>, _: Tick) -> (StoreIndex<'w>, Self) {
        store.settle();
        let store: &'w Store<T> = store;
        let values = store.values_ref().values;
        (store.index(), ReadColumn { values })
    }
}

impl<'w, T: Component> Column<'w> for ReadColumn<'w, T> {
    type Run = slice::Iter<'w, T>;
    fn borrow(borrows: &mut Borrows<'w>) -> Option<(StoreIndex<'w>, Self)> {
        let parts = borrows.read::<T>()?;
        Some((
            parts.index,
            ReadColumn {
                values: parts.values,
            },
        ))
    }
    #[inline(always)]
    fn take(&mut self, start: usize, len: usize) -> Option<slice::Iter<'w, T>> {
        self.values.get(start..start + len).map(<[T]>::iter)
    }
    fn split(self, _: usize) -> (Self, Self) {
        // Shared: both parts read the whole column (each takes only its own positions).
        (
            ReadColumn {
                values: self.values,
            },
            self,
        )
    }
}

/// The stamps an exclusive column owes for the run it last handed out: their change ticks, and
/// the store's floor if that run is the store's whole column (begun at dense index 0, nothing
/// after it). Stamped by [`Pending::stamp`] with how many values the run had left; both
/// [`WriteColumn::flush`] and a query of one store's end (`QueryIter`, which keeps this in
/// place of the fetches it came from: a few words, no join to box) go through it.
#[doc(hidden)]
#[derive(Default)]
pub struct Pending<'w> {
    pub(crate) ticks: &'w mut [Tick],
    pub(crate) floor: Option<&'w mut Option<Tick>>,
    pub(crate) now: Tick,
}

impl Pending<'_> {
    /// Stamps the values handed out (all but the last `left`): the store's floor if they are
    /// all of its values, else each tick.
    #[inline]
    pub(crate) fn stamp(self, left: usize) {
        let handed = self.ticks.len().saturating_sub(left);
        if handed > 0
            && handed == self.ticks.len()
            && let Some(floor) = self.floor
        {
            *floor = Some(self.now);
            return;
        }
        self.ticks[..handed].fill(self.now);
    }

    /// Whichever of two elements' stamps owes anything: a query of one store has at most one
    /// element that writes.
    #[inline(always)]
    pub(crate) fn or(self, other: Self) -> Self {
        if self.ticks.is_empty() {
            return other;
        }
        debug_assert!(other.ticks.is_empty(), "two writing elements in one query");
        self
    }
}

/// An exclusive column: values handed out by splitting the slice at ascending positions, which
/// is how a mutable query is an ordinary `Iterator` without `unsafe`.
///
/// Handing values out **stamps** them: every value a run or a probe hands out gets
/// `changed = now`, whether or not the caller then writes it (see `Changed`). The run itself is
/// a plain `slice::IterMut`; the column keeps the ticks of the run it last handed out
/// (`pending`) and stamps them in bulk, not per item: all of them when the next run is taken
/// (a new run means the last one was used up), and the ones actually handed out when the query
/// ends ([`Column::flush`] with what the run has left: a loop that stops early stamps only what
/// it fetched). So the loop over a run is a plain slice walk, and the run needs no `Drop` (which
/// is what lets a `for` loop keep it in registers; see `QueryIter`).
///
/// A run that is the whole column, handed out whole, is stamped in O(1): the store's
/// `changed_floor` becomes `now` (every value changed at `now` or later) and no tick is
/// written. A column cut into segments stamps by filling, part by part.
pub struct WriteColumn<'w, T> {
    /// The values not yet handed out; `rest[0]` is dense index `offset`.
    rest: &'w mut [T],
    /// Their change ticks, parallel to `rest`.
    ticks: &'w mut [Tick],
    /// The ticks of the run last handed out, not yet stamped.
    pending: &'w mut [Tick],
    offset: usize,
    now: Tick,
    /// The store's floor, if this column is the store's whole column (not a segment's part).
    floor: Option<&'w mut Option<Tick>>,
}

impl<'w, T: 'w> ColumnRun for slice::IterMut<'w, T> {
    type Slice = &'w mut [T];
    #[inline]
    fn empty() -> Self {
        <&mut [T]>::default().iter_mut()
    }
    #[inline]
    fn rest(self) -> &'w mut [T] {
        self.into_slice()
    }
    #[inline]
    fn split(self, at: usize) -> (Self, Self) {
        let values = self.into_slice();
        let at = at.min(values.len());
        let (head, tail) = values.split_at_mut(at);
        (head.iter_mut(), tail.iter_mut())
    }
}

impl<'w, T: Component> WriteColumn<'w, T> {
    /// [`Column::borrow`] straight from `T`'s store (settled first; values a snapshot shares
    /// copied), for a query of one store ([`WholeWorld`](super::WholeWorld)); writes stamp
    /// `now`.
    #[inline]
    pub(crate) fn from_store(store: &'w mut Store<T>, now: Tick) -> (StoreIndex<'w>, Self) {
        let (index, v) = store.parts_mut();
        // The store's high-water mark, as `Borrows::write` raises it.
        if !v.changed.is_empty() {
            *v.last_changed = now;
        }
        let column = WriteColumn {
            rest: v.values,
            ticks: v.changed,
            pending: &mut [],
            offset: 0,
            now,
            floor: Some(v.changed_floor),
        };
        (index, column)
    }
}

impl<T> WriteColumn<'_, T> {
    /// Whether a pending run of `len` values is the store's whole column: it began at dense
    /// index 0 and nothing follows it.
    #[inline(always)]
    fn is_whole(&self, len: usize) -> bool {
        self.offset == len && self.rest.is_empty()
    }
}

impl<'w, T: Component> Column<'w> for WriteColumn<'w, T> {
    type Run = slice::IterMut<'w, T>;
    fn borrow(borrows: &mut Borrows<'w>) -> Option<(StoreIndex<'w>, Self)> {
        let now = borrows.window().now;
        let parts = borrows.write::<T>()?;
        let column = WriteColumn {
            rest: parts.values,
            ticks: parts.changed,
            pending: &mut [],
            offset: 0,
            now,
            floor: Some(parts.changed_floor),
        };
        Some((parts.index, column))
    }

    /// The values; their ticks become `pending` (the previous run's are stamped first).
    #[inline(always)]
    fn take(&mut self, start: usize, len: usize) -> Option<slice::IterMut<'w, T>> {
        debug_assert!(start >= self.offset, "query entities arrived out of order");
        self.flush(0);
        let skip = start.checked_sub(self.offset)?;
        let rest = std::mem::take(&mut self.rest);
        let ticks = std::mem::take(&mut self.ticks);
        if skip + len > rest.len() || skip + len > ticks.len() {
            self.rest = rest;
            self.ticks = ticks;
            return None;
        }
        let (_, tail) = rest.split_at_mut(skip);
        let (run, tail) = tail.split_at_mut(len);
        let (_, ticks_tail) = ticks.split_at_mut(skip);
        let (run_ticks, ticks_tail) = ticks_tail.split_at_mut(len);
        self.rest = tail;
        self.ticks = ticks_tail;
        self.pending = run_ticks;
        self.offset = start + len;
        Some(run.iter_mut())
    }

    /// Stamps the pending ticks of the values handed out (all but the last `left`): the
    /// store's floor if they are all of its values (the run began at dense index 0, nothing
    /// follows it, and it was handed out whole), else each tick.
    #[inline]
    fn flush(&mut self, left: usize) {
        let ticks = std::mem::take(&mut self.pending);
        let whole = self.is_whole(ticks.len());
        Pending {
            ticks,
            floor: self.floor.as_deref_mut().filter(|_| whole),
            now: self.now,
        }
        .stamp(left);
    }

    #[inline(always)]
    fn into_pending(mut self) -> Pending<'w> {
        let ticks = std::mem::take(&mut self.pending);
        let whole = self.is_whole(ticks.len());
        Pending {
            ticks,
            floor: self.floor.filter(|_| whole),
            now: self.now,
        }
    }

    fn split(mut self, at: usize) -> (Self, Self) {
        debug_assert!(
            self.pending.is_empty(),
            "a column is split before its first run"
        );
        self.flush(0);
        let cut = at.saturating_sub(self.offset).min(self.rest.len());
        let (head, tail) = self.rest.split_at_mut(cut);
        let (head_ticks, tail_ticks) = self.ticks.split_at_mut(cut.min(self.ticks.len()));
        (
            WriteColumn {
                rest: head,
                ticks: head_ticks,
                pending: &mut [],
                offset: self.offset,
                now: self.now,
                floor: None,
            },
            WriteColumn {
                rest: tail,
                ticks: tail_ticks,
                pending: &mut [],
                offset: self.offset + cut,
                now: self.now,
                floor: None,
            },
        )
    }
}

/// The items of a run of an `Option<&T>` element.
pub enum OptionRun<'w, I> {
    /// The run's entities have the component: its values.
    Some(I),
    /// They do not: this many `None`s.
    None(usize),
    /// Some do (a merged column): for each of the run's entities (`driver`), the column's next
    /// entry (`column`, ascending, with its value in `values`) if it is that entity.
    Merge {
        driver: slice::Iter<'w, Entity>,
        column: &'w [Entity],
        values: I,
    },
}

impl<R: ColumnRun> OptionRun<'_, R> {
    /// The run cut in two: the items of its first `at` entities (all if it has fewer) and the
    /// rest. A merged run's column is cut where the second part's first entity's slot begins
    /// (the column is sorted), so each part yields what the whole would have at those places.
    pub(crate) fn split(self, at: usize) -> (Self, Self) {
        match self {
            OptionRun::Some(run) => {
                let (head, tail) = run.split(at);
                (OptionRun::Some(head), OptionRun::Some(tail))
            }
            OptionRun::None(n) => (OptionRun::None(at.min(n)), OptionRun::None(n - at.min(n))),
            OptionRun::Merge {
                driver,
                column,
                values,
            } => {
                let driver = driver.as_slice();
                let (head, tail) = driver.split_at(at.min(driver.len()));
                let cut = tail.first().map_or(column.len(), |first| {
                    column.partition_point(|x| x.slot() < first.slot())
                });
                let (column_head, column_tail) = column.split_at(cut);
                let (values_head, values_tail) = values.split(cut);
                (
                    OptionRun::Merge {
                        driver: head.iter(),
                        column: column_head,
                        values: values_head,
                    },
                    OptionRun::Merge {
                        driver: tail.iter(),
                        column: column_tail,
                        values: values_tail,
                    },
                )
            }
        }
    }
}

impl<I: Iterator> Iterator for OptionRun<'_, I> {
    type Item = Option<I::Item>;
    #[inline]
    fn next(&mut self) -> Option<Option<I::Item>> {
        match self {
            OptionRun::Some(it) => it.next().map(Some),
            OptionRun::None(0) => None,
            OptionRun::None(n) => {
                *n -= 1;
                Some(None)
            }
            OptionRun::Merge {
                driver,
                column,
                values,
            } => {
                let e = *driver.next()?;
                // Entries before `e`'s slot belong to no entity of the run: skip them.
                while let Some((&x, rest)) = column.split_first() {
                    if x.slot() >= e.slot() {
                        break;
                    }
                    *column = rest;
                    values.next();
                }
                match column.split_first() {
                    Some((&x, rest)) if x == e => {
                        *column = rest;
                        Some(values.next())
                    }
                    _ => Some(None),
                }
            }
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            OptionRun::Some(it) => it.size_hint(),
            OptionRun::None(n) => (*n, Some(*n)),
            OptionRun::Merge { driver, .. } => driver.size_hint(),
        }
    }
}
