//! `QueryData` for each query element: `&T`, `&mut T`, `Entity`, `Option`, `With`, `Without`,
//! `()` and tuples.

use std::iter::{Copied, RepeatN};
use std::marker::PhantomData;
use std::slice;

use super::borrow::ReadParts;
use super::column::{
    Column, ColumnRun, Joined, OptionRaw, OptionRun, ReadColumn, WriteColumn, optional_rest,
    optional_run, required_run, split_joined,
};
use super::{
    Access, AccessSink, Borrows, ConstAccess, JoinPlan, Mode, Pending, QueryData, ReadOnly,
    ReadOnlyQueryData, Role, Sealed, Space, WholeWorld,
};
use crate::access_markers::{ReadOf, WriteOf};
use crate::component::Component;
use crate::entity::Entity;
use crate::error::MismatchReason;
use crate::store::index::StoreIndex;
use crate::tick::{ChangeWindow, Tick};

/// Filter: the entity must have a `T` (its value is not fetched).
///
/// A filter reads membership, not values: `Query<&mut T, With<T>>` is fine. In a system it still
/// needs `T` declared in `reads(..)` (or `writes(..)`).
///
/// ```
/// # use rota::{Component, World, With};
/// # #[derive(Component, Clone)] struct Player;
/// # #[derive(Component, Clone)] struct Hp(u32);
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
/// # use rota::{Component, World, Without};
/// # #[derive(Component, Clone)] struct Dead;
/// # #[derive(Component, Clone)] struct Hp(u32);
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
        registry_key: crate::world::registry_key::<T>(),
    }
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

/// Why `e` does not match a required column.
fn lacks_in<'w, T: Component, C: Column<'w>>(
    column: &Option<Joined<'w, C>>,
    e: Entity,
) -> Option<(MismatchReason, &'static str)> {
    let has = column.as_ref().is_some_and(|c| c.index().contains(e));
    (!has).then_some((MismatchReason::Lacks, T::NAME))
}

fn offer<'w>(index: Option<StoreIndex<'w>>, best: &mut Option<StoreIndex<'w>>) {
    let index = index.unwrap_or_else(StoreIndex::empty);
    if best.is_none_or(|b| index.len() < b.len()) {
        *best = Some(index);
    }
}

/// The access items of an element over one component `T`: its fetch state, and what it
/// touches as a type and as data.
macro_rules! leaf_access {
    ($fetch:ty, $of:ident, $mode:expr) => {
        type Fetch<'w> = $fetch;
        type Access = $of<T>;
        const ACCESS: ConstAccess = leaf::<T>($mode);
        fn access(out: &mut impl AccessSink) {
            out.push_access(access::<T>($mode));
        }
    };
}

/// The walk of an element whose run already has one exit: the run itself.
macro_rules! same_walk {
    () => {
        #[inline(always)]
        fn walk<'w>(run: Self::Run<'w>) -> Self::Walk<'w> {
            run
        }
    };
}

/// `QueryData` for a component element `$element` (`&T` or `&mut T`, borrowing a `$column`
/// whose runs are `$run`, handed out as `$item`s or one `$slice`) and for `Option<$element>`.
/// The two columns differ only behind the [`Column`] trait, so these are the four elements'
/// only bodies.
macro_rules! impl_component_element {
    ($element:ty, $column:ident, $mode:expr, $of:ident, optional: $optional:expr,
     item: $item:ty, slice: $slice:ty, run: $run:ty, one: $one:path) => {
        impl<T: Component> Sealed for $element {}
        impl<T: Component> QueryData for $element {
            const PLAIN: bool = true;
            type Item<'w> = $item;
            type Slices<'w> = $slice;
            type Raw<'w> = $run;
            type Run<'w> = $run;
            type Walk<'w> = $run;
            leaf_access!(Option<Joined<'w, $column<'w, T>>>, $of, $mode);
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                Joined::borrow(b)
            }
            #[inline]
            fn init_whole<'w>(w: &mut WholeWorld<'w>) -> Self::Fetch<'w> {
                let now = w.now();
                let (index, column) = <$column<'w, T>>::from_store(w.store::<T>()?, now);
                w.set_entities(index.entities);
                Some(Joined::new(index, column))
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                Joined::register(f, plan, Role::Required);
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                offer(f.as_ref().map(Joined::index), best);
            }
            fn split_fetch<'w>(
                f: Self::Fetch<'w>,
                slot: u32,
            ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                split_joined(f, slot)
            }
            #[inline(always)]
            fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Self::Raw<'w> {
                required_run(f, plan)
            }
            #[inline(always)]
            fn run<'w>(raw: Self::Raw<'w>, _: &'w [Entity]) -> Self::Run<'w> {
                raw
            }
            #[inline(always)]
            fn whole<'w>(f: &mut Self::Fetch<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
                f.as_mut()
                    .and_then(|c| c.whole(entities.len()))
                    .unwrap_or_else(ColumnRun::empty)
            }
            #[inline]
            fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
                raw.rest()
            }
            same_walk!();
            fn empty_run<'w>() -> Self::Run<'w> {
                ColumnRun::empty()
            }
            fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>) {
                run.split(at)
            }
            #[inline]
            fn one_slices<'w>(item: Self::Item<'w>) -> Self::Slices<'w> {
                $one(item)
            }
            #[inline]
            fn run_slices<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
                run.rest()
            }
            fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Slices<'w>> {
                f.as_mut()?.one(e).map(ColumnRun::rest)
            }
            #[inline]
            fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
                f.as_mut()?.one(e)?.next()
            }
            fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(MismatchReason, &'static str)> {
                lacks_in::<T, _>(f, e)
            }
            #[inline(always)]
            fn flush<'w>(f: &mut Self::Fetch<'w>, left: usize) {
                if let Some(c) = f {
                    c.flush(left);
                }
            }
            #[inline(always)]
            fn into_pending<'w>(f: Self::Fetch<'w>) -> Pending<'w> {
                Joined::into_pending(f)
            }
        }

        impl<T: Component> Sealed for Option<$element> {}
        impl<T: Component> QueryData for Option<$element> {
            type Item<'w> = Option<$item>;
            type Slices<'w> = Option<$slice>;
            type Raw<'w> = OptionRaw<'w, $run>;
            type Run<'w> = OptionRun<'w, $run>;
            type Walk<'w> = OptionRun<'w, $run>;
            leaf_access!(Option<Joined<'w, $column<'w, T>>>, $of, $mode);
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                Joined::borrow(b)
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                Joined::register(f, plan, $optional);
            }
            fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
            fn split_fetch<'w>(
                f: Self::Fetch<'w>,
                slot: u32,
            ) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                split_joined(f, slot)
            }
            #[inline(always)]
            fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Self::Raw<'w> {
                let Some(c) = f.as_mut() else {
                    return OptionRaw::Cut(None);
                };
                match c.merged(plan) {
                    Some((entities, values)) => OptionRaw::Merge(entities, values),
                    None => OptionRaw::Cut(c.run(plan)),
                }
            }
            #[inline(always)]
            fn run<'w>(raw: Self::Raw<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
                optional_run(raw, entities)
            }
            #[inline]
            fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
                optional_rest(raw)
            }
            same_walk!();
            fn empty_run<'w>() -> Self::Run<'w> {
                OptionRun::None(0)
            }
            fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>) {
                run.split(at)
            }
            #[inline]
            fn one_slices<'w>(item: Self::Item<'w>) -> Self::Slices<'w> {
                item.map($one)
            }
            #[inline]
            fn run_slices<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
                match run {
                    OptionRun::Some(run) => Some(run.rest()),
                    OptionRun::None(_) => None,
                    OptionRun::Merge { .. } => {
                        debug_assert!(false, "a merged optional run was handed out as a slice");
                        None
                    }
                }
            }
            fn slices_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Slices<'w>> {
                Some(f.as_mut().and_then(|c| c.one(e)).map(ColumnRun::rest))
            }
            #[inline]
            fn fetch_one<'w>(f: &mut Self::Fetch<'w>, e: Entity) -> Option<Self::Item<'w>> {
                Some(
                    f.as_mut()
                        .and_then(|c| c.one(e))
                        .and_then(|mut run| run.next()),
                )
            }
            fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(MismatchReason, &'static str)> {
                None
            }
            #[inline(always)]
            fn flush<'w>(f: &mut Self::Fetch<'w>, left: usize) {
                if let Some(c) = f {
                    c.flush(left);
                }
            }
            #[inline(always)]
            fn into_pending<'w>(f: Self::Fetch<'w>) -> Pending<'w> {
                Joined::into_pending(f)
            }
        }
    };
}

impl_component_element!(&T, ReadColumn, Mode::Read, ReadOf, optional: Role::Merged,
    item: &'w T, slice: &'w [T], run: slice::Iter<'w, T>, one: slice::from_ref);
// `Option<&mut T>` cuts runs rather than merging: its column stamps what it handed out by
// counting from the run's end (`WriteColumn::flush`), which a merged run does not line up with.
impl_component_element!(&mut T, WriteColumn, Mode::Write, WriteOf, optional: Role::Optional,
    item: &'w mut T, slice: &'w mut [T], run: slice::IterMut<'w, T>, one: slice::from_mut);
impl<T: Component> ReadOnly for &T {}
impl<T: Component> ReadOnlyQueryData for &T {}
impl<T: Component> ReadOnly for Option<&T> {}
impl<T: Component> ReadOnlyQueryData for Option<&T> {}

/// The items of an element that touches no store (`Entity`, `()`): no fetch state, no access,
/// nothing to join.
macro_rules! no_store {
    () => {
        type Fetch<'w> = ();
        type Access = ();
        const ACCESS: ConstAccess = ConstAccess::List(&[]);
        fn access(_: &mut impl AccessSink) {}
        fn init<'w>(_: &mut Borrows<'w>) -> Self::Fetch<'w> {}
        fn init_whole<'w>(_: &mut WholeWorld<'w>) -> Self::Fetch<'w> {}
        fn plan<'w>(_: &mut Self::Fetch<'w>, _: &mut JoinPlan<'w>) {}
        fn required<'w>(_: &Self::Fetch<'w>, _: &mut Option<StoreIndex<'w>>) {}
        fn split_fetch<'w>(_: Self::Fetch<'w>, _: u32) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
            ((), ())
        }
    };
}

impl Sealed for Entity {}
impl QueryData for Entity {
    const PLAIN: bool = true;
    type Item<'w> = Entity;
    type Slices<'w> = ();
    type Raw<'w> = ();
    type Run<'w> = EntityRun<'w>;
    // `Copied` over a slice iterator: `std`'s `Zip` indexes it, one exit for the whole tuple.
    type Walk<'w> = Copied<slice::Iter<'w, Entity>>;
    no_store!();
    #[inline(always)]
    fn raw<'w>(_: &mut Self::Fetch<'w>, _: &JoinPlan<'w>) {}
    #[inline(always)]
    fn run<'w>(_: (), entities: &'w [Entity]) -> Self::Run<'w> {
        EntityRun(entities.iter())
    }
    #[inline(always)]
    fn whole<'w>(_: &mut Self::Fetch<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
        EntityRun(entities.iter())
    }
    #[inline]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
        raw
    }
    #[inline(always)]
    fn walk<'w>(run: Self::Run<'w>) -> Self::Walk<'w> {
        run.0.copied()
    }
    fn empty_run<'w>() -> Self::Run<'w> {
        EntityRun([].iter())
    }
    fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>) {
        let (head, tail) = run.0.split(at);
        (EntityRun(head), EntityRun(tail))
    }
    fn one_slices<'w>(_: Self::Item<'w>) -> Self::Slices<'w> {}
    fn run_slices<'w>(_: Self::Run<'w>) -> Self::Slices<'w> {}
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
impl ReadOnly for Entity {}
impl ReadOnlyQueryData for Entity {}

/// The items of one run of an [`Entity`] element: the run's entities.
pub struct EntityRun<'w>(slice::Iter<'w, Entity>);

impl Iterator for EntityRun<'_> {
    type Item = Entity;
    #[inline]
    fn next(&mut self) -> Option<Entity> {
        self.0.next().copied()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
    #[inline]
    fn fold<B, G: FnMut(B, Entity) -> B>(self, init: B, mut g: G) -> B {
        self.0.fold(init, |acc, &e| g(acc, e))
    }
}

/// The associated types of an element whose item is `()` (filters and `()` itself): one `()`
/// per entity of a run.
macro_rules! unit_types {
    () => {
        type Item<'w> = ();
        type Slices<'w> = ();
        type Raw<'w> = ();
        type Run<'w> = RepeatN<()>;
        type Walk<'w> = Copied<slice::Iter<'static, ()>>;
    };
}

/// Zero-sized units to walk: `n` `()`s as a slice iterator, which `std`'s `Zip` indexes (a
/// `RepeatN` it cannot), so a filter in a tuple keeps its one exit.
static UNITS: [(); usize::MAX] = [(); usize::MAX];

/// The run methods of an element whose item is `()`.
macro_rules! unit_runs {
    () => {
        #[inline(always)]
        fn raw<'w>(_: &mut Self::Fetch<'w>, _: &JoinPlan<'w>) {}
        #[inline(always)]
        fn run<'w>(_: (), entities: &'w [Entity]) -> Self::Run<'w> {
            std::iter::repeat_n((), entities.len())
        }
        #[inline(always)]
        fn whole<'w>(_: &mut Self::Fetch<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
            debug_assert!(Self::PLAIN, "only plain elements take a whole-store run");
            std::iter::repeat_n((), entities.len())
        }
        #[inline]
        fn hand_out<'w>(_: Self::Raw<'w>) -> Self::Slices<'w> {}
        #[inline(always)]
        fn walk<'w>(run: Self::Run<'w>) -> Self::Walk<'w> {
            UNITS[..run.len()].iter().copied()
        }
        fn empty_run<'w>() -> Self::Run<'w> {
            std::iter::repeat_n((), 0)
        }
        fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>) {
            let n = run.len();
            (
                std::iter::repeat_n((), at.min(n)),
                std::iter::repeat_n((), n - at.min(n)),
            )
        }
        fn one_slices<'w>(_: Self::Item<'w>) -> Self::Slices<'w> {}
        fn run_slices<'w>(_: Self::Run<'w>) -> Self::Slices<'w> {}
    };
}

/// A filter's borrowed index and its id in the join.
#[derive(Copy, Clone)]
pub struct FilterColumn<'w> {
    index: Option<StoreIndex<'w>>,
}

macro_rules! impl_filter {
    ($filter:ident, $role:expr, $matches:expr, $mismatch:expr) => {
        impl<T: Component> Sealed for $filter<T> {}
        impl<T: Component> QueryData for $filter<T> {
            const PLAIN: bool = matches!($role, Role::Required);
            unit_types!();
            leaf_access!(FilterColumn<'w>, ReadOf, Mode::Membership);
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
            fn split_fetch<'w>(f: Self::Fetch<'w>, _: u32) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                (f, f) // membership only: shared
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
        impl<T: Component> ReadOnly for $filter<T> {}
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
/// # use rota::{Changed, Component, World};
/// # #[derive(Component, Clone)] struct Hp(u32);
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
/// # use rota::{Added, Component, Entity, World};
/// # #[derive(Component, Clone)] struct Hp(u32);
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
#[derive(Copy, Clone)]
pub struct TickColumn<'w> {
    index: Option<StoreIndex<'w>>,
    /// The tested column (`added` or `changed`), parallel to the index's entities.
    ticks: &'w [Tick],
    window: ChangeWindow,
    /// No write reached the store in the window (its high-water mark is older): nothing
    /// matches, and the join is not even started.
    stale: bool,
    /// Every value of the store changed in the window (its `changed_floor` is in it; see
    /// `store::effective_changed`): every value matches, and the join tests no tick.
    all: bool,
}

impl TickColumn<'_> {
    /// `None` if `e` has no `T`; else whether its tick is in the window.
    #[inline]
    fn passes(&self, e: Entity) -> Option<bool> {
        let d = self.index?.dense_index(e)?;
        Some(
            !self.stale
                && (self.all || self.ticks.get(d).is_some_and(|&t| self.window.contains(t))),
        )
    }
}

macro_rules! impl_tick_filter {
    ($filter:ident, $kind:expr) => {
        impl<T: Component> Sealed for $filter<T> {}
        impl<T: Component> QueryData for $filter<T> {
            unit_types!();
            leaf_access!(TickColumn<'w>, ReadOf, Mode::Read);
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                let window = b.window();
                match b.read::<T>() {
                    Some(p) => TickColumn {
                        index: Some(p.index),
                        ticks: $kind.column(&p),
                        window,
                        stale: !window.contains(p.last_changed),
                        all: $kind == TickKind::Changed
                            && p.changed_floor.is_some_and(|f| window.contains(f)),
                    },
                    None => TickColumn {
                        index: None,
                        ticks: &[],
                        window,
                        stale: true,
                        all: false,
                    },
                }
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                if f.stale {
                    plan.column(None, Role::Required);
                } else {
                    let id = plan.column(f.index, Role::Required);
                    if !f.all {
                        plan.tick_filter(id, f.ticks, f.window);
                    }
                }
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                offer(if f.stale { None } else { f.index }, best);
            }
            fn split_fetch<'w>(f: Self::Fetch<'w>, _: u32) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                (f, f) // ticks only read: shared
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
        impl<T: Component> ReadOnly for $filter<T> {}
        impl<T: Component> ReadOnlyQueryData for $filter<T> {}
    };
}

impl_tick_filter!(Changed, TickKind::Changed);
impl_tick_filter!(Added, TickKind::Added);

impl Sealed for () {}
impl QueryData for () {
    const PLAIN: bool = true;
    unit_types!();
    no_store!();
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
impl ReadOnly for () {}
impl ReadOnlyQueryData for () {}

/// The items of one run of a tuple query: its elements' runs, advanced together.
pub struct TupleRun<R>(R);

/// The walk of a tuple's run: `Z`, the `std` zip of its elements' walks `W` (a tuple of them,
/// which only tells the arities apart), nested to the left (`Zip<Zip<A, B>, C>`), its items
/// flattened.
pub struct TupleWalk<Z, W>(Z, PhantomData<fn() -> W>);

/// The left-nested `Zip` type of the listed iterator types.
macro_rules! zip_type {
    ($acc:ty) => { $acc };
    ($acc:ty, $next:ty $(, $rest:ty)*) => { zip_type!(std::iter::Zip<$acc, $next> $(, $rest)*) };
}

/// The left-nested zip of the listed iterators.
macro_rules! zip_expr {
    ($acc:expr) => { $acc };
    ($acc:expr, $next:expr $(, $rest:expr)*) => { zip_expr!($acc.zip($next) $(, $rest)*) };
}

/// The pattern of a left-nested zip's item, binding the listed names.
macro_rules! zip_pat {
    ($acc:pat) => { $acc };
    ($acc:pat, $next:ident $(, $rest:ident)*) => { zip_pat!(($acc, $next) $(, $rest)*) };
}

macro_rules! impl_query_tuple {
    ($(($Q:ident, $i:tt, $v:ident)),+) => {
        impl<$($Q: QueryData),+> Sealed for ($($Q,)+) {}
        impl<$($Q: QueryData),+> QueryData for ($($Q,)+) {
            const PLAIN: bool = true $(&& $Q::PLAIN)+;
            type Item<'w> = ($($Q::Item<'w>,)+);
            type Slices<'w> = ($($Q::Slices<'w>,)+);
            type Raw<'w> = ($($Q::Raw<'w>,)+);
            type Fetch<'w> = ($($Q::Fetch<'w>,)+);
            type Run<'w> = TupleRun<($($Q::Run<'w>,)+)>;
            type Walk<'w> = TupleWalk<zip_type!($($Q::Walk<'w>),+), ($($Q::Walk<'w>,)+)>;
            type Access = ($($Q::Access,)+);
            const ACCESS: ConstAccess = ConstAccess::List(&[$($Q::ACCESS),+]);
            fn access(out: &mut impl AccessSink) {
                $($Q::access(out);)+
            }
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                ($($Q::init(b),)+)
            }
            #[inline]
            fn init_whole<'w>(w: &mut WholeWorld<'w>) -> Self::Fetch<'w> {
                ($($Q::init_whole(w),)+)
            }
            fn plan<'w>(f: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>) {
                $($Q::plan(&mut f.$i, plan);)+
            }
            fn required<'w>(f: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>) {
                $($Q::required(&f.$i, best);)+
            }
            fn split_fetch<'w>(f: Self::Fetch<'w>, slot: u32) -> (Self::Fetch<'w>, Self::Fetch<'w>) {
                let parts = ($($Q::split_fetch(f.$i, slot),)+);
                (($(parts.$i.0,)+), ($(parts.$i.1,)+))
            }
            #[inline(always)]
            fn raw<'w>(f: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Self::Raw<'w> {
                ($($Q::raw(&mut f.$i, plan),)+)
            }
            #[inline(always)]
            fn run<'w>(s: Self::Raw<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
                TupleRun(($($Q::run(s.$i, entities),)+))
            }
            #[inline(always)]
            fn whole<'w>(f: &mut Self::Fetch<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
                TupleRun(($($Q::whole(&mut f.$i, entities),)+))
            }
            #[inline]
            fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w> {
                ($($Q::hand_out(raw.$i),)+)
            }
            #[inline(always)]
            fn walk<'w>(run: Self::Run<'w>) -> Self::Walk<'w> {
                let runs = run.0;
                TupleWalk(zip_expr!($($Q::walk(runs.$i)),+), PhantomData)
            }
            fn empty_run<'w>() -> Self::Run<'w> {
                TupleRun(($($Q::empty_run(),)+))
            }
            #[inline(always)]
            fn next_in_last<'w>(run: &mut Self::Run<'w>) -> Option<Self::Item<'w>> {
                let items = ($($Q::next_in_last(&mut run.0.$i),)+);
                Some(($(items.$i?,)+))
            }
            fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>) {
                let parts = ($($Q::split_run(run.0.$i, at),)+);
                (TupleRun(($(parts.$i.0,)+)), TupleRun(($(parts.$i.1,)+)))
            }
            #[inline]
            fn one_slices<'w>(item: Self::Item<'w>) -> Self::Slices<'w> {
                ($($Q::one_slices(item.$i),)+)
            }
            #[inline]
            fn run_slices<'w>(run: Self::Run<'w>) -> Self::Slices<'w> {
                ($($Q::run_slices(run.0.$i),)+)
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
            #[inline(always)]
            fn flush<'w>(f: &mut Self::Fetch<'w>, left: usize) {
                $($Q::flush(&mut f.$i, left);)+
            }
            #[inline(always)]
            fn into_pending<'w>(f: Self::Fetch<'w>) -> Pending<'w> {
                Pending::default()$(.or($Q::into_pending(f.$i)))+
            }
        }
        impl<$($Q: ReadOnlyQueryData),+> ReadOnly for ($($Q,)+) {}
        impl<$($Q: ReadOnlyQueryData),+> ReadOnlyQueryData for ($($Q,)+) {}

        impl<$($Q: Iterator),+> Iterator for TupleWalk<zip_type!($($Q),+), ($($Q,)+)> {
            type Item = ($($Q::Item,)+);
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                let zip_pat!($($v),+) = self.0.next()?;
                Some(($($v,)+))
            }
            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }
            #[inline]
            fn fold<Acc, Fold: FnMut(Acc, Self::Item) -> Acc>(self, init: Acc, mut fold: Fold) -> Acc {
                self.0.fold(init, |acc, zip_pat!($($v),+)| fold(acc, ($($v,)+)))
            }
        }

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

/// Implements `QueryData` for every prefix of its list: tuples of 1 to 12 elements.
macro_rules! impl_query_tuples {
    ([$($done:tt)*]) => {};
    ([$($done:tt)*] $next:tt $(, $rest:tt)*) => {
        impl_query_tuple!($($done,)* $next);
        impl_query_tuples!([$($done)* $next] $($rest),*);
    };
}

impl_query_tuples!(
    [](A, 0, a),
    (B, 1, b),
    (C, 2, c),
    (D, 3, d),
    (E, 4, e),
    (F, 5, f),
    (G, 6, g),
    (H, 7, h),
    (I, 8, i),
    (J, 9, j),
    (K, 10, k),
    (L, 11, l)
);
