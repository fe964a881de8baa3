//! `QueryData` for the elements that fetch: `&T`, `&mut T`, `Option` of them, and `Entity`;
//! the pieces the filters (`filter.rs`) and tuples (`tuple.rs`) share with them.

use std::iter::Copied;
use std::slice;

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

pub(super) const fn leaf<T: Component>(mode: Mode) -> ConstAccess {
    ConstAccess::Leaf {
        name: T::NAME,
        key: T::UNIQUE_KEY,
        space: Space::Component,
        mode,
    }
}

pub(super) fn access<T: Component>(mode: Mode) -> Access {
    Access {
        type_id: std::any::TypeId::of::<T>(),
        name: T::NAME,
        space: Space::Component,
        mode,
        registry_key: crate::world::registry_key::<T>(),
    }
}

/// Why `e` does not match a required column.
pub(super) fn lacks_in<'w, T: Component, C: Column<'w>>(
    column: &Option<Joined<'w, C>>,
    e: Entity,
) -> Option<(MismatchReason, &'static str)> {
    let has = column.as_ref().is_some_and(|c| c.index().contains(e));
    (!has).then_some((MismatchReason::Lacks, T::NAME))
}

pub(super) fn offer<'w>(index: Option<StoreIndex<'w>>, best: &mut Option<StoreIndex<'w>>) {
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
pub(super) use leaf_access;

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
pub(super) use no_store;

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
pub(super) use unit_types;

/// Zero-sized units to walk: `n` `()`s as a slice iterator, which `std`'s `Zip` indexes (a
/// `RepeatN` it cannot), so a filter in a tuple keeps its one exit.
pub(super) static UNITS: [(); usize::MAX] = [(); usize::MAX];

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
pub(super) use unit_runs;
