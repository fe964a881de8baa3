//! The `World` methods that start queries.

use super::access::{Access, ConstAccess, find_alias, find_alias_runtime};
use super::{Borrows, QueryData, QueryIter, ReadOnlyQueryData};
use crate::entity::Entity;
use crate::error::{QueryAliasError, QueryGetError};
use crate::inline_vec::InlineVec;
use crate::tick::{ChangeWindow, Tick};
use crate::world::World;

/// Every access of a world-level query, in place: almost every query has a few.
type AccessList = InlineVec<Access, 4>;

/// Every access of `Q` and `F`.
#[inline]
pub(super) fn accesses<Q: QueryData, F: QueryData>() -> AccessList {
    let mut access = AccessList::new();
    Q::access(&mut access);
    F::access(&mut access);
    access
}

/// Accesses of `Q` and `F`, refused if they alias.
#[inline]
fn checked_access<Q: QueryData, F: QueryData>() -> Result<AccessList, QueryAliasError> {
    let access = accesses::<Q, F>();
    match find_alias_runtime(&access) {
        Some(component) => Err(QueryAliasError { component }),
        None => Ok(access),
    }
}

#[cold]
pub(super) fn alias_panic(component: &'static str) -> ! {
    panic!("{}", QueryAliasError { component })
}

/// Compile-time refusal of queries that name a component twice with a `&mut` (for components
/// with a unique key; generic ones are caught at run time). Fails `cargo check`.
struct AliasCheck<Q, F>(std::marker::PhantomData<(Q, F)>);
impl<Q: QueryData, F: QueryData> AliasCheck<Q, F> {
    const OK: () = {
        if find_alias(&ConstAccess::List(&[Q::ACCESS, F::ACCESS])).is_some() {
            panic!(
                "a query names the same component twice and one of the two is `&mut`: it would alias. Split it into two queries"
            );
        }
    };
}

impl World {
    /// The window plain world-level queries use: every change the clock still distinguishes.
    fn everything(&self) -> ChangeWindow {
        ChangeWindow::everything(self.change_tick())
    }

    /// Like [`World::query_filtered`], with `Changed<T>`/`Added<T>` filters seeing only the
    /// changes made after `since` (a tick from [`World::change_checkpoint`]).
    ///
    /// A checkpoint stays meaningful for [`MAX_AGE`](crate::tick::MAX_AGE) ticks (2^30 moments);
    /// the world clamps its own ticks at that age, but cannot clamp a tick you hold, so an older
    /// checkpoint sees an arbitrary window.
    pub fn query_since<Q: ReadOnlyQueryData, F: ReadOnlyQueryData>(
        &self,
        since: Tick,
    ) -> QueryIter<'_, Q, F> {
        let window = ChangeWindow {
            since,
            now: self.change_tick(),
        };
        QueryIter::new(Borrows::shared(self, &accesses::<Q, F>(), window))
    }

    /// Iterates the read-only query `Q` (e.g. `(Entity, &Position, Option<&Name>)`) in ascending
    /// slot order.
    ///
    /// ```
    /// # use rota::{Component, Entity, World};
    /// # #[derive(Component, Clone)] struct Hp(u32);
    /// let mut world = World::new();
    /// let a = world.spawn_with((Hp(10),));
    /// let b = world.spawn_with((Hp(20),));
    /// let total: u32 = world.query::<&Hp>().map(|hp| hp.0).sum();
    /// assert_eq!(total, 30);
    /// let ids: Vec<Entity> = world.query::<(Entity, &Hp)>().map(|(e, _)| e).collect();
    /// assert_eq!(ids, [a, b]);
    /// ```
    pub fn query<Q: ReadOnlyQueryData>(&self) -> QueryIter<'_, Q> {
        QueryIter::new(Borrows::shared(
            self,
            &accesses::<Q, ()>(),
            self.everything(),
        ))
    }

    /// Like [`World::query`], keeping only entities that match the filter `F`
    /// (e.g. `With<T>`, `(Without<A>, With<B>)`).
    pub fn query_filtered<Q: ReadOnlyQueryData, F: ReadOnlyQueryData>(
        &self,
    ) -> QueryIter<'_, Q, F> {
        QueryIter::new(Borrows::shared(
            self,
            &accesses::<Q, F>(),
            self.everything(),
        ))
    }

    /// Iterates the query `Q`, which may write (`&mut T`, `Option<&mut T>`), in ascending slot
    /// order. Settles the stores it touches first.
    ///
    /// A query naming the same component twice with a `&mut` (`(&mut A, &A)`) does not build;
    /// for generic components, whose names are not unique, it panics here instead.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Pos(f32);
    /// # #[derive(Component, Clone)] struct Vel(f32);
    /// let mut world = World::new();
    /// world.spawn_with((Pos(0.0), Vel(2.0)));
    /// for (p, v) in world.query_mut::<(&mut Pos, &Vel)>() {
    ///     p.0 += v.0;
    /// }
    /// assert_eq!(world.query::<&Pos>().next().unwrap().0, 2.0);
    /// ```
    ///
    /// # Panics
    ///
    /// If `Q` aliases a generic component (see [`World::try_query_mut`]).
    pub fn query_mut<Q: QueryData>(&mut self) -> QueryIter<'_, Q> {
        self.query_filtered_mut_or_panic::<Q, ()>()
    }

    /// [`World::query_mut`] with a filter.
    ///
    /// # Panics
    ///
    /// As [`World::query_mut`].
    pub fn query_filtered_mut<Q: QueryData, F: ReadOnlyQueryData>(
        &mut self,
    ) -> QueryIter<'_, Q, F> {
        self.query_filtered_mut_or_panic::<Q, F>()
    }

    /// [`World::query_mut`], returning aliasing as an error instead of panicking.
    ///
    /// # Errors
    ///
    /// [`QueryAliasError`] naming the component accessed twice.
    pub fn try_query_mut<Q: QueryData>(&mut self) -> Result<QueryIter<'_, Q>, QueryAliasError> {
        self.try_query_filtered_mut::<Q, ()>()
    }

    fn try_query_filtered_mut<Q: QueryData, F: QueryData>(
        &mut self,
    ) -> Result<QueryIter<'_, Q, F>, QueryAliasError> {
        #[allow(clippy::let_unit_value)]
        let () = AliasCheck::<Q, F>::OK;
        checked_access::<Q, F>()?;
        Ok(QueryIter::from_world(self))
    }

    /// [`World::query_filtered_mut`] before its first run, so that it can be cut into
    /// [`segments`](QueryIter::segments) (see [`QueryIter::unstarted`]).
    ///
    /// # Panics
    ///
    /// As [`World::query_mut`].
    #[doc(hidden)]
    pub fn unstarted_query_mut<Q: QueryData, F: ReadOnlyQueryData>(
        &mut self,
    ) -> QueryIter<'_, Q, F> {
        #[allow(clippy::let_unit_value)]
        let () = AliasCheck::<Q, F>::OK;
        QueryIter::unstarted_from_world(self)
    }

    /// `try_query_filtered_mut` without the `Result`: the iterator is built in place rather
    /// than moved through one (the moves showed in a profile as `memcpy`). Inline, around
    /// the out-of-line planning, so a `for` loop's iterator lives in its caller's frame and its
    /// address never reaches a call (see `QueryIter`).
    #[inline]
    fn query_filtered_mut_or_panic<Q: QueryData, F: QueryData>(&mut self) -> QueryIter<'_, Q, F> {
        #[allow(clippy::let_unit_value)]
        let () = AliasCheck::<Q, F>::OK;
        QueryIter::from_world(self)
    }

    /// The read-only query `Q` for one entity.
    ///
    /// ```
    /// # use rota::{Component, QueryGetError, World};
    /// # #[derive(Component, Clone)] struct Hp(u32);
    /// # #[derive(Component, Clone)] struct Armor(u32);
    /// let mut world = World::new();
    /// let e = world.spawn_with((Hp(7),));
    /// assert_eq!(world.query_one::<&Hp>(e).unwrap().0, 7);
    /// assert!(matches!(
    ///     world.query_one::<(&Hp, &Armor)>(e),
    ///     Err(QueryGetError::Mismatch { component: "Armor", .. })
    /// ));
    /// ```
    ///
    /// # Errors
    ///
    /// [`QueryGetError::Dead`] for a dead or stale handle; [`QueryGetError::Mismatch`] naming
    /// the component the entity lacks.
    pub fn query_one<Q: ReadOnlyQueryData>(
        &self,
        entity: Entity,
    ) -> Result<Q::Item<'_>, QueryGetError> {
        QueryIter::<Q>::get_one(
            Borrows::shared(self, &accesses::<Q, ()>(), self.everything()),
            entity,
        )
    }

    /// The query `Q` (which may write) for one entity.
    ///
    /// # Errors
    ///
    /// As [`World::query_one`].
    ///
    /// # Panics
    ///
    /// As [`World::query_mut`].
    pub fn query_one_mut<Q: QueryData>(
        &mut self,
        entity: Entity,
    ) -> Result<Q::Item<'_>, QueryGetError> {
        #[allow(clippy::let_unit_value)]
        let () = AliasCheck::<Q, ()>::OK;
        let access = match checked_access::<Q, ()>() {
            Ok(a) => a,
            Err(e) => panic!("{e}"),
        };
        let window = self.everything();
        QueryIter::<Q>::get_one(Borrows::split(self, &access, window), entity)
    }
}
