//! The filters: `With`, `Without` (membership) and `Changed`, `Added` (change ticks). Each
//! yields `()` per entity; it narrows the join, and a change filter cuts runs where a tick
//! leaves the window.

use std::iter::{Copied, RepeatN};
use std::marker::PhantomData;
use std::slice;

use super::borrow::ReadParts;
use super::fetch::{UNITS, access, leaf, leaf_access, offer, unit_runs, unit_types};
use super::{
    AccessSink, Borrows, ConstAccess, JoinPlan, Mode, QueryData, ReadOnly, ReadOnlyQueryData, Role,
    Sealed,
};
use crate::access_markers::ReadOf;
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
