//! `QueryData` for each query element: `&T`, `&mut T`, `Entity`, `Option`, `With`, `Without`,
//! `()` and tuples.

use std::iter::{Copied, RepeatN};
use std::marker::PhantomData;
use std::slice;

use super::borrow::ReadParts;
use super::{
    Access, Borrows, ConstAccess, JoinPlan, Mode, QueryData, ReadOnlyQueryData, Role, Sealed, Space,
};
use crate::component::Component;
use crate::entity::Entity;
use crate::error::MismatchReason;
use crate::store::index::StoreIndex;
use crate::system::{ReadOf, WriteOf};
use crate::tick::{ChangeWindow, Tick};

/// Filter: the entity must have a `T` (its value is not fetched).
///
/// A filter reads membership, not values: `Query<&mut T, With<T>>` is fine. In a system it still
/// needs `T` declared in `reads(..)` (or `writes(..)`).
///
/// ```
/// # use rota_core::{Component, World, With};
/// # struct Player; impl Component for Player { const NAME: &'static str = "Player"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Player"); }
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Hp"); }
/// let mut world = World::new();
/// world.spawn_with((Hp(3), Player));
/// world.spawn_with((Hp(5),));
/// let players: Vec<u32> = world.query_filtered::<&Hp, With<Player>>().map(|h| h.0).collect();
/// assert_eq!(players, [3]);
/// ```
pub struct With<T>(PhantomData<fn() -> T>);

/// Filter: the entity must not have a `T`.
///
/// ```
/// # use rota_core::{Component, World, Without};
/// # struct Dead; impl Component for Dead { const NAME: &'static str = "Dead"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Dead"); }
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Hp"); }
/// let mut world = World::new();
/// world.spawn_with((Hp(0), Dead));
/// world.spawn_with((Hp(5),));
/// let living: Vec<u32> = world.query_filtered::<&Hp, Without<Dead>>().map(|h| h.0).collect();
/// assert_eq!(living, [5]);
/// ```
pub struct Without<T>(PhantomData<fn() -> T>);

const fn leaf<T: Component>(mode: Mode) -> ConstAccess {
    ConstAccess::Leaf {
        name: T::NAME,
        key: T::UNIQUE_KEY,
        space: Space::Component,
        mode,
    }
}

fn access<T: Component>(mode: Mode) -> Access {
    Access {
        type_id: std::any::TypeId::of::<T>(),
        name: T::NAME,
        space: Space::Component,
        mode,
    }
}

fn lacks<T: Component>(has: bool) -> Option<(MismatchReason, &'static str)> {
    (!has).then_some((MismatchReason::Lacks, T::NAME))
}

/// A shared column: index, values, and its id in the join.
pub struct ReadColumn<'w, T> {
    index: StoreIndex<'w>,
    values: &'w [T],
    id: usize,
}

/// Which change tick a [`Changed`]/[`Added`] filter tests.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum TickKind {
    /// `ComponentTicks::added`.
    Added,
    /// `ComponentTicks::changed`.
    Changed,
}

impl TickKind {
    /// The tick column this filter tests.
    fn column<'w, T>(self, p: &ReadParts<'w, T>) -> &'w [Tick] {
        match self {
            TickKind::Added => p.added,
            TickKind::Changed => p.changed,
        }
    }
}

impl<'w, T> ReadColumn<'w, T> {
    #[inline]
    fn get(&self, entity: Entity) -> Option<&'w T> {
        self.index.dense_index(entity).map(|d| &self.values[d])
    }

    #[inline]
    fn run(&self, plan: &JoinPlan<'w>) -> Option<&'w [T]> {
        let start = plan.start(self.id)?;
        self.values.get(start..start + plan.len())
    }
}

/// An exclusive column: values handed out by splitting the slice at ascending positions, which
/// is how a mutable query is an ordinary `Iterator` without `unsafe`.
///
/// Handing values out **stamps** them: every value a run or a probe hands out gets
/// `changed = now`, whether or not the caller then writes it (see `Changed`).
pub struct WriteColumn<'w, T> {
    index: StoreIndex<'w>,
    /// The values not yet handed out; `rest[0]` is dense index `offset`.
    rest: &'w mut [T],
    /// Their change ticks, parallel to `rest`.
    ticks: &'w mut [Tick],
    offset: usize,
    id: usize,
    now: Tick,
}

impl<'w, T> WriteColumn<'w, T> {
    /// The `len` values from dense index `start` (which must not be behind the last run), with
    /// their ticks; stamped as they are handed out.
    #[inline]
    fn take(&mut self, start: usize, len: usize) -> Option<MutRun<'w, T>> {
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
        self.offset = start + len;
        Some(MutRun {
            values: run.iter_mut(),
            ticks: run_ticks,
            now: self.now,
        })
    }

    #[inline]
    fn get(&mut self, entity: Entity) -> Option<&'w mut T> {
        let d = self.index.dense_index(entity)?;
        debug_assert!(d >= self.offset, "query entities arrived out of order");
        self.take(d, 1).and_then(|mut run| run.next())
    }

    #[inline]
    fn run(&mut self, plan: &JoinPlan<'w>) -> Option<MutRun<'w, T>> {
        let start = plan.start(self.id)?;
        self.take(start, plan.len())
    }
}

/// The values of one run of a `&mut T` element with their change ticks. Every value handed out
/// is stamped `changed = now` — in bulk, not per item: the run counts what it handed out (the
/// values its iterator has passed) and stamps exactly those ticks when it ends (when it is
/// dropped: used up, replaced by the next run, or abandoned by a loop that stopped early), or
/// all of them when the rest is handed out as a slice (`stamp_rest`). So the loop over a run is
/// a plain slice walk, and a loop that stops early stamps only what it fetched.
pub struct MutRun<'w, T> {
    values: slice::IterMut<'w, T>,
    /// The ticks of every value of the run, handed out or not (`ticks.len()` = the run's
    /// length; the first `ticks.len() - values.len()` belong to values already handed out).
    ticks: &'w mut [Tick],
    now: Tick,
}

impl<'w, T> MutRun<'w, T> {
    fn empty() -> MutRun<'w, T> {
        MutRun {
            values: <&mut [T]>::default().iter_mut(),
            ticks: &mut [],
            now: Tick::default(),
        }
    }

    /// Stamps the ticks of the values handed out so far, and forgets them.
    #[inline]
    fn stamp_handed_out(&mut self) {
        let handed = self.ticks.len() - self.values.len();
        let (done, rest) = std::mem::take(&mut self.ticks).split_at_mut(handed);
        done.fill(self.now);
        self.ticks = rest;
    }

    /// The values not yet handed out, as a slice; every value of the run is stamped.
    fn stamp_rest(mut self) -> &'w mut [T] {
        let values = std::mem::take(&mut self.values);
        std::mem::take(&mut self.ticks).fill(self.now);
        values.into_slice()
    }
}

impl<T> Drop for MutRun<'_, T> {
    fn drop(&mut self) {
        self.stamp_handed_out();
    }
}

impl<'w, T> Iterator for MutRun<'w, T> {
    type Item = &'w mut T;

    #[inline]
    fn next(&mut self) -> Option<&'w mut T> {
        self.values.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }

    #[inline]
    fn fold<B, F: FnMut(B, &'w mut T) -> B>(mut self, init: B, f: F) -> B {
        // Everything left is about to be handed out: stamp it all, then walk the slice.
        let values = std::mem::take(&mut self.values);
        std::mem::take(&mut self.ticks).fill(self.now);
        values.fold(init, f)
    }
}

fn read_column<'w, T: Component>(b: &mut Borrows<'w>) -> Option<ReadColumn<'w, T>> {
    b.read::<T>().map(|p| ReadColumn {
        index: p.index,
        values: p.values,
        id: usize::MAX,
    })
}

fn write_column<'w, T: Component>(b: &mut Borrows<'w>) -> Option<WriteColumn<'w, T>> {
    let now = b.window().now;
    b.write::<T>().map(|p| WriteColumn {
        index: p.index,
        rest: p.values,
        ticks: p.changed,
        offset: 0,
        id: usize::MAX,
        now,
    })
}

/// What the join and the probes need of a column, whether it reads or writes.
trait JoinColumn<'w> {
    fn index(&self) -> StoreIndex<'w>;
    fn set_id(&mut self, id: usize);
}

impl<'w, T> JoinColumn<'w> for ReadColumn<'w, T> {
    fn index(&self) -> StoreIndex<'w> {
        self.index
    }
    fn set_id(&mut self, id: usize) {
        self.id = id;
    }
}

impl<'w, T> JoinColumn<'w> for WriteColumn<'w, T> {
    fn index(&self) -> StoreIndex<'w> {
        self.index
    }
    fn set_id(&mut self, id: usize) {
        self.id = id;
    }
}

/// Registers a (possibly missing) column with the join under `role`.
fn plan_column<'w>(column: Option<&mut impl JoinColumn<'w>>, plan: &mut JoinPlan<'w>, role: Role) {
    match column {
        Some(c) => c.set_id(plan.column(Some(c.index()), role)),
        None => _ = plan.column(None, role),
    }
}

/// Offers a required column as the driver of an entity-by-entity walk.
fn offer_column<'w>(column: Option<&impl JoinColumn<'w>>, best: &mut Option<StoreIndex<'w>>) {
    offer(column.map(JoinColumn::index), best);
}

/// Why `e` does not match a required column.
fn lacks_in<'w, T: Component>(
    column: Option<&impl JoinColumn<'w>>,
    e: Entity,
) -> Option<(MismatchReason, &'static str)> {
    lacks::<T>(column.is_some_and(|c| c.index().contains(e)))
}

fn offer<'w>(index: Option<StoreIndex<'w>>, best: &mut Option<StoreIndex<'w>>) {
    let index = index.unwrap_or_else(StoreIndex::empty);
    if best.is_none_or(|b| index.len() < b.len()) {
        *best = Some(index);
    }
}

impl<T: Component> Sealed for &T {}
impl<T: Component> QueryData for &T {
    type Item<'w> = &'w T;
    type Slices<'w> = &'w [T];
    type Raw<'w> = &'w [T];
    type Fetch<'w> = Option<ReadColumn<'w, T>>;
    type Run<'w> = slice::Iter<'w, T>;
    type Access = ReadOf<T>;
    const ACCESS: ConstAccess = leaf::<T>(Mode::Read);
    fn access(out: &mut Vec<Access>) {
        out.push(access::<T>(Mode::Read));
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        read_column(b)
    }
    fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
        plan_column(f.as_mut(), plan, Role::Required);
    }
    fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
        offer_column(f.as_ref(), best);
    }
    #[inline]
    fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> &'w [T] {
        f.as_ref().and_then(|c| c.run(plan)).unwrap_or_default()
    }
    #[inline]
    fn run<'w>(s: &'w [T], _: &'w [Entity]) -> Self::Run<'w> {
        s.iter()
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        [].iter()
    }
    fn rest<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
        run.as_slice()
    }
    fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<&'w [T]> {
        f.as_ref()?.get(e).map(slice::from_ref)
    }
    #[inline]
    fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<&'w T> {
        f.as_ref()?.get(e)
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
        lacks_in::<T>(f.as_ref(), e)
    }
}
impl<T: Component> ReadOnlyQueryData for &T {}

impl<T: Component> Sealed for &mut T {}
impl<T: Component> QueryData for &mut T {
    type Item<'w> = &'w mut T;
    type Slices<'w> = &'w mut [T];
    type Raw<'w> = MutRun<'w, T>;
    type Fetch<'w> = Option<WriteColumn<'w, T>>;
    type Run<'w> = MutRun<'w, T>;
    type Access = WriteOf<T>;
    const ACCESS: ConstAccess = leaf::<T>(Mode::Write);
    fn access(out: &mut Vec<Access>) {
        out.push(access::<T>(Mode::Write));
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        write_column(b)
    }
    fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
        plan_column(f.as_mut(), plan, Role::Required);
    }
    fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
        offer_column(f.as_ref(), best);
    }
    #[inline]
    fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> MutRun<'w, T> {
        f.as_mut()
            .and_then(|c| c.run(plan))
            .unwrap_or_else(MutRun::empty)
    }
    #[inline]
    fn run<'w>(s: MutRun<'w, T>, _: &'w [Entity]) -> Self::Run<'w> {
        s
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw.stamp_rest()
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        MutRun::empty()
    }
    fn rest<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
        run.stamp_rest()
    }
    fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<&'w mut [T]> {
        f.as_mut()?.get(e).map(slice::from_mut)
    }
    #[inline]
    fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<&'w mut T> {
        f.as_mut()?.get(e)
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
        lacks_in::<T>(f.as_ref(), e)
    }
}

/// The items of a run of an `Option<&T>` element: all `Some` or all `None`.
pub enum OptionRun<I> {
    /// The run's entities have the component: its values.
    Some(I),
    /// They do not: this many `None`s.
    None(usize),
}

impl<I: Iterator> Iterator for OptionRun<I> {
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
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            OptionRun::Some(it) => it.size_hint(),
            OptionRun::None(n) => (*n, Some(*n)),
        }
    }
}

impl<T: Component> Sealed for Option<&T> {}
impl<T: Component> QueryData for Option<&T> {
    type Item<'w> = Option<&'w T>;
    type Slices<'w> = Option<&'w [T]>;
    type Raw<'w> = Option<&'w [T]>;
    type Fetch<'w> = Option<ReadColumn<'w, T>>;
    type Run<'w> = OptionRun<slice::Iter<'w, T>>;
    type Access = ReadOf<T>;
    const ACCESS: ConstAccess = leaf::<T>(Mode::Read);
    fn access(out: &mut Vec<Access>) {
        out.push(access::<T>(Mode::Read));
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        read_column(b)
    }
    fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
        plan_column(f.as_mut(), plan, Role::Optional);
    }
    fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
    #[inline]
    fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Option<&'w [T]> {
        f.as_ref().and_then(|c| c.run(plan))
    }
    #[inline]
    fn run<'w>(s: Option<&'w [T]>, entities: &'w [Entity]) -> Self::Run<'w> {
        match s {
            Some(s) => OptionRun::Some(s.iter()),
            None => OptionRun::None(entities.len()),
        }
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        OptionRun::None(0)
    }
    fn rest<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
        match run {
            OptionRun::Some(it) => Some(it.as_slice()),
            OptionRun::None(_) => None,
        }
    }
    fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Option<&'w [T]>> {
        Some(f.as_ref().and_then(|c| c.get(e)).map(slice::from_ref))
    }
    #[inline]
    fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Option<&'w T>> {
        Some(f.as_ref().and_then(|c| c.get(e)))
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(MismatchReason, &'static str)> {
        None
    }
}
impl<T: Component> ReadOnlyQueryData for Option<&T> {}

impl<T: Component> Sealed for Option<&mut T> {}
impl<T: Component> QueryData for Option<&mut T> {
    type Item<'w> = Option<&'w mut T>;
    type Slices<'w> = Option<&'w mut [T]>;
    type Raw<'w> = Option<MutRun<'w, T>>;
    type Fetch<'w> = Option<WriteColumn<'w, T>>;
    type Run<'w> = OptionRun<MutRun<'w, T>>;
    type Access = WriteOf<T>;
    const ACCESS: ConstAccess = leaf::<T>(Mode::Write);
    fn access(out: &mut Vec<Access>) {
        out.push(access::<T>(Mode::Write));
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        write_column(b)
    }
    fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
        plan_column(f.as_mut(), plan, Role::Optional);
    }
    fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
    #[inline]
    fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Option<MutRun<'w, T>> {
        f.as_mut().and_then(|c| c.run(plan))
    }
    #[inline]
    fn run<'w>(s: Option<MutRun<'w, T>>, entities: &'w [Entity]) -> Self::Run<'w> {
        match s {
            Some(s) => OptionRun::Some(s),
            None => OptionRun::None(entities.len()),
        }
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw.map(MutRun::stamp_rest)
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        OptionRun::None(0)
    }
    fn rest<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
        match run {
            OptionRun::Some(it) => Some(it.stamp_rest()),
            OptionRun::None(_) => None,
        }
    }
    fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Option<&'w mut [T]>> {
        Some(f.as_mut().and_then(|c| c.get(e)).map(slice::from_mut))
    }
    #[inline]
    fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Option<&'w mut T>> {
        Some(f.as_mut().and_then(|c| c.get(e)))
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(MismatchReason, &'static str)> {
        None
    }
}

impl Sealed for Entity {}
impl QueryData for Entity {
    type Item<'w> = Entity;
    type Slices<'w> = ();
    type Raw<'w> = ();
    type Fetch<'w> = ();
    type Run<'w> = Copied<slice::Iter<'w, Entity>>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init<'w>(_: &mut Borrows<'w>) -> Self::Fetch<'w> {}
    fn plan<'w>(_: &mut Self::Fetch<'w>, _: &mut JoinPlan<'w>) {}
    fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
    #[inline]
    fn raw<'w>(_: &mut Self::Fetch<'w>, _: &JoinPlan<'w>) {}
    #[inline]
    fn run<'w>(_: (), entities: &'w [Entity]) -> Self::Run<'w> {
        entities.iter().copied()
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        [].iter().copied()
    }
    fn rest<'w>(_: Self::Run<'w>) -> Self::Slices<'w> {}
    fn slices_one<'w>(_: &mut Self::Fetch<'w>, _: Entity) -> Option<Self::Slices<'w>> {
        Some(())
    }
    #[inline]
    fn fetch_one<'w>(_: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
        Some(e)
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(MismatchReason, &'static str)> {
        None
    }
}
impl ReadOnlyQueryData for Entity {}

/// The associated types of an element whose item is `()` (filters and `()` itself): one `()`
/// per entity of a run.
macro_rules! unit_types {
    () => {
        type Item<'w> = ();
        type Slices<'w> = ();
        type Raw<'w> = ();
        type Run<'w> = RepeatN<()>;
    };
}

/// The run methods of an element whose item is `()`.
macro_rules! unit_runs {
    () => {
        #[inline]
        fn raw<'w>(_: &mut Self::Fetch<'w>, _: &JoinPlan<'w>) {}
        #[inline]
        fn run<'w>(_: (), entities: &'w [Entity]) -> Self::Run<'w> {
            std::iter::repeat_n((), entities.len())
        }
        #[inline]
        fn hand_out<'w>(_: Self::Raw<'w>) -> Self::Slices<'w> {}
        fn empty_run<'w>() -> Self::Run<'w> {
            std::iter::repeat_n((), 0)
        }
        fn rest<'w>(_: Self::Run<'w>) -> Self::Slices<'w> {}
    };
}

/// A filter's borrowed index and its id in the join.
pub struct FilterColumn<'w> {
    index: Option<StoreIndex<'w>>,
}

macro_rules! impl_filter {
    ($filter:ident, $role:expr, $matches:expr, $mismatch:expr) => {
        impl<T: Component> Sealed for $filter<T> {}
        impl<T: Component> QueryData for $filter<T> {
            unit_types!();
            type Fetch<'w> = FilterColumn<'w>;
            type Access = ReadOf<T>;
            const ACCESS: ConstAccess = leaf::<T>(Mode::Membership);
            fn access(out: &mut Vec<Access>) {
                out.push(access::<T>(Mode::Membership));
            }
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                FilterColumn {
                    index: b.index::<T>(),
                }
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                plan.column(f.index, $role);
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                if $role == Role::Required {
                    offer(f.index, best);
                }
            }
            unit_runs!();
            fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Slices<'w>> {
                Self::fetch_one(f, e)
            }
            #[inline]
            fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
                let has = f.index.is_some_and(|i| i.contains(e));
                ($matches)(has).then_some(())
            }
            fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
                let has = f.index.is_some_and(|i| i.contains(e));
                (!($matches)(has)).then_some(($mismatch, T::NAME))
            }
        }
        impl<T: Component> ReadOnlyQueryData for $filter<T> {}
    };
}

impl_filter!(With, Role::Required, |has: bool| has, MismatchReason::Lacks);
impl_filter!(
    Without,
    Role::Excluded,
    |has: bool| !has,
    MismatchReason::HasExcluded
);

/// Filter: `T` was changed in the query's window — written through `&mut T` (a query or
/// `get_mut`), inserted, or replaced. The window of a system is *since it last ran*; of
/// [`World::query_since`](crate::World::query_since), since the given tick; of a plain world
/// query, every change the clock still distinguishes.
///
/// Reads `T` (its change ticks): declare `T` in `reads(..)`. A `&mut T` in the same query
/// would alias it; query `(Entity, &T)` with `Changed<T>` and write through a second query.
/// Skips a whole store cheaply when no write touched it in the window (its high-water mark).
///
/// ```
/// # use rota_core::{Changed, Component, World};
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Hp"); }
/// let mut world = World::new();
/// let es = world.spawn_batch((0..4).map(|i| (Hp(i),)));
/// let since = world.change_checkpoint();
/// world.get_mut::<Hp>(es[2]).unwrap().0 = 10;
/// let hp: Vec<u32> = world.query_since::<&Hp, Changed<Hp>>(since).map(|h| h.0).collect();
/// assert_eq!(hp, [10]);
/// ```
pub struct Changed<T>(PhantomData<fn() -> T>);

/// Filter: `T` was added (inserted where there was none) in the query's window; see
/// [`Changed`] for windows and declarations.
///
/// ```
/// # use rota_core::{Added, Component, Entity, World};
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Hp"); }
/// let mut world = World::new();
/// let old = world.spawn_with((Hp(1),));
/// let since = world.change_checkpoint();
/// let new = world.spawn_with((Hp(2),));
/// world.insert(old, Hp(3)).unwrap(); // a replacement is a change, not an addition
/// let added: Vec<Entity> = world.query_since::<Entity, Added<Hp>>(since).collect();
/// assert_eq!(added, [new]);
/// ```
pub struct Added<T>(PhantomData<fn() -> T>);

/// A change filter's borrowed column: index, ticks, window.
pub struct TickColumn<'w> {
    index: Option<StoreIndex<'w>>,
    /// The tested column (`added` or `changed`), parallel to the index's entities.
    ticks: &'w [Tick],
    window: ChangeWindow,
    /// No write reached the store in the window (its high-water mark is older): nothing
    /// matches, and the join is not even started.
    stale: bool,
}

impl TickColumn<'_> {
    /// `None` if `e` has no `T`; else whether its tick is in the window.
    #[inline]
    fn passes(&self, e: Entity) -> Option<bool> {
        let d = self.index?.dense_index(e)?;
        Some(!self.stale && self.ticks.get(d).is_some_and(|&t| self.window.contains(t)))
    }
}

macro_rules! impl_tick_filter {
    ($filter:ident, $kind:expr) => {
        impl<T: Component> Sealed for $filter<T> {}
        impl<T: Component> QueryData for $filter<T> {
            unit_types!();
            type Fetch<'w> = TickColumn<'w>;
            type Access = ReadOf<T>;
            const ACCESS: ConstAccess = leaf::<T>(Mode::Read);
            fn access(out: &mut Vec<Access>) {
                out.push(access::<T>(Mode::Read));
            }
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                let window = b.window();
                match b.read::<T>() {
                    Some(p) => TickColumn {
                        index: Some(p.index),
                        ticks: $kind.column(&p),
                        window,
                        stale: !window.contains(p.last_changed),
                    },
                    None => TickColumn {
                        index: None,
                        ticks: &[],
                        window,
                        stale: true,
                    },
                }
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                if f.stale {
                    plan.column(None, Role::Required);
                } else {
                    let id = plan.column(f.index, Role::Required);
                    plan.tick_filter(id, f.ticks, f.window);
                }
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                offer(if f.stale { None } else { f.index }, best);
            }
            unit_runs!();
            fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Slices<'w>> {
                Self::fetch_one(f, e)
            }
            #[inline]
            fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
                f.passes(e)?.then_some(())
            }
            fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
                match f.passes(e) {
                    Some(true) => None,
                    Some(false) => Some((MismatchReason::Unchanged, T::NAME)),
                    None => Some((MismatchReason::Lacks, T::NAME)),
                }
            }
        }
        impl<T: Component> ReadOnlyQueryData for $filter<T> {}
    };
}

impl_tick_filter!(Changed, TickKind::Changed);
impl_tick_filter!(Added, TickKind::Added);

impl Sealed for () {}
impl QueryData for () {
    unit_types!();
    type Fetch<'w> = ();
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init<'w>(_: &mut Borrows<'w>) -> Self::Fetch<'w> {}
    fn plan<'w>(_: &mut Self::Fetch<'w>, _: &mut JoinPlan<'w>) {}
    fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
    unit_runs!();
    fn slices_one<'w>(_: &mut Self::Fetch<'w>, _: Entity) -> Option<Self::Slices<'w>> {
        Some(())
    }
    #[inline]
    fn fetch_one<'w>(_: &mut Self::Fetch<'w>, _: Entity) -> Option<Self::Item<'w>> {
        Some(())
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(MismatchReason, &'static str)> {
        None
    }
}
impl ReadOnlyQueryData for () {}

/// The items of one run of a tuple query: its elements' runs, advanced together.
pub struct TupleRun<R>(R);

macro_rules! impl_query_tuple {
    ($(($Q:ident, $i:tt)),+) => {
        impl<$($Q: QueryData),+> Sealed for ($($Q,)+) {}
        impl<$($Q: QueryData),+> QueryData for ($($Q,)+) {
            type Item<'w> = ($($Q::Item<'w>,)+);
            type Slices<'w> = ($($Q::Slices<'w>,)+);
            type Raw<'w> = ($($Q::Raw<'w>,)+);
            type Fetch<'w> = ($($Q::Fetch<'w>,)+);
            type Run<'w> = TupleRun<($($Q::Run<'w>,)+)>;
            type Access = ($($Q::Access,)+);
            const ACCESS: ConstAccess = ConstAccess::List(&[$($Q::ACCESS),+]);
            fn access(out: &mut Vec<Access>) {
                $($Q::access(out);)+
            }
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                ($($Q::init(b),)+)
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                $($Q::plan(&mut f.$i, plan);)+
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                $($Q::required(&f.$i, best);)+
            }
            #[inline]
            fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Self::Raw<'w> {
                ($($Q::raw(&mut f.$i, plan),)+)
            }
            #[inline]
            fn run<'w>(s: Self::Raw<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
                TupleRun(($($Q::run(s.$i, entities),)+))
            }
            #[inline]
            fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
                ($($Q::hand_out(raw.$i),)+)
            }
            fn empty_run<'w>() -> Self::Run<'w> {
                TupleRun(($($Q::empty_run(),)+))
            }
            fn rest<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
                ($($Q::rest(run.0.$i),)+)
            }
            fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Slices<'w>> {
                Some(($($Q::slices_one(&mut f.$i, e)?,)+))
            }
            #[inline]
            fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
                Some(($($Q::fetch_one(&mut f.$i, e)?,)+))
            }
            fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
                None$(.or_else(|| $Q::mismatch(&f.$i, e)))+
            }
        }
        impl<$($Q: ReadOnlyQueryData),+> ReadOnlyQueryData for ($($Q,)+) {}

        impl<$($Q: Iterator),+> Iterator for TupleRun<($($Q,)+)> {
            type Item = ($($Q::Item,)+);
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                Some(($(self.0.$i.next()?,)+))
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                let mut hint = (usize::MAX, None::<usize>);
                $(
                    let (low, high) = self.0.$i.size_hint();
                    hint.0 = hint.0.min(low);
                    hint.1 = match (hint.1, high) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                )+
                hint
            }
        }
    };
}

impl_query_tuple!((A, 0));
impl_query_tuple!((A, 0), (B, 1));
impl_query_tuple!((A, 0), (B, 1), (C, 2));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5), (G, 6));
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10),
    (L, 11)
);
