//! `QueryData` for `()` and for tuples of up to 12 elements: their runs advance together,
//! walked as one left-nested `std` zip.

use std::iter::{Copied, RepeatN};
use std::marker::PhantomData;
use std::slice;

use super::fetch::{UNITS, no_store, unit_runs, unit_types};
use super::{
    AccessSink, Borrows, ConstAccess, JoinPlan, Pending, QueryData, ReadOnly, ReadOnlyQueryData,
    Sealed, WholeWorld,
};
use crate::entity::Entity;
use crate::error::MismatchReason;
use crate::store::index::StoreIndex;

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
