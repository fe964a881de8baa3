//! `QueryIter` and the `World` methods that start queries.

use super::{
    Access, Borrows, ConstAccess, Driver, QueryData, ReadOnlyQueryData, find_alias,
    find_alias_runtime,
};
use crate::entity::{EntitiesIter, Entity};
use crate::error::{QueryAliasError, QueryGetError};
use crate::world::World;

type SlotWalk<'w> = Box<dyn Iterator<Item = (u32, u32)> + 'w>;

/// Where a query's entities come from, in ascending slot order, with the driver's dense index.
enum DriverIter<'w> {
    /// A settled store: a slice walk.
    Dense { entities: &'w [Entity], pos: usize },
    /// An unsettled store seen through `&World`: a walk over its sparse pages.
    Walk {
        slots: SlotWalk<'w>,
        entities: &'w [Entity],
    },
    /// No required component: every live entity.
    Alive(EntitiesIter<'w>),
}

impl<'w> DriverIter<'w> {
    fn new(best: Option<Driver<'w>>, borrows: &Borrows<'w>) -> DriverIter<'w> {
        match best {
            None => DriverIter::Alive(borrows.entities().iter()),
            Some(d) if d.sorted => DriverIter::Dense {
                entities: d.entities,
                pos: 0,
            },
            Some(d) => DriverIter::Walk {
                slots: Box::new(d.sparse.iter()),
                entities: d.entities,
            },
        }
    }

    #[inline]
    fn next(&mut self) -> Option<(Entity, usize)> {
        match self {
            DriverIter::Dense { entities, pos } => {
                let i = *pos;
                let e = *entities.get(i)?;
                *pos = i + 1;
                Some((e, i))
            }
            DriverIter::Walk { slots, entities } => slots
                .next()
                .map(|(_, d)| (entities[d as usize], d as usize)),
            DriverIter::Alive(it) => it.next().map(|e| (e, usize::MAX)),
        }
    }

    fn upper_bound(&self) -> Option<usize> {
        match self {
            DriverIter::Dense { entities, pos } => Some(entities.len() - *pos),
            DriverIter::Walk { .. } => None,
            DriverIter::Alive(it) => Some(it.len()),
        }
    }
}

/// An iterator over a query's matches in ascending slot order; see `World::query`.
///
/// `F` is a filter query whose items are discarded (e.g. `With<T>`).
pub struct QueryIter<'w, Q: QueryData, F: QueryData = ()> {
    data: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
    driver: DriverIter<'w>,
    /// End (exclusive dense index) of the block whose alignment was last checked.
    block_end: usize,
    /// Whether every store matches the driver's entities over the current block.
    block_aligned: bool,
}

/// Dense positions checked for alignment at once: one slice comparison per store per block.
const BLOCK: usize = 128;

impl<'w, Q: QueryData, F: QueryData> QueryIter<'w, Q, F> {
    /// Starts a query over `borrows` (which must hold everything `Q` and `F` access).
    pub fn new(mut borrows: Borrows<'w>) -> QueryIter<'w, Q, F> {
        let data = Q::init(&mut borrows);
        let filter = F::init(&mut borrows);
        let mut best = None;
        Q::driver(&data, &mut best);
        F::driver(&filter, &mut best);
        let driver = DriverIter::new(best, &borrows);
        QueryIter {
            data,
            filter,
            driver,
            block_end: 0,
            block_aligned: false,
        }
    }

    /// The query's item for one entity, with a typed reason when it has none.
    ///
    /// # Errors
    ///
    /// [`QueryGetError::Dead`] for a dead handle, [`QueryGetError::Mismatch`] naming the
    /// component the entity lacks (or has, for `Without`).
    pub fn get_one(mut borrows: Borrows<'w>, entity: Entity) -> Result<Q::Item<'w>, QueryGetError> {
        if !borrows.entities().is_alive(entity) {
            return Err(QueryGetError::Dead(entity));
        }
        let mut data = Q::init(&mut borrows);
        let mut filter = F::init(&mut borrows);
        let mismatch = |(reason, component)| QueryGetError::Mismatch {
            entity,
            component,
            reason,
        };
        if let Some(m) = F::mismatch(&filter, entity).or_else(|| Q::mismatch(&data, entity)) {
            return Err(mismatch(m));
        }
        F::fetch(&mut filter, entity, usize::MAX)
            .and_then(|_| Q::fetch(&mut data, entity, usize::MAX))
            .ok_or(QueryGetError::Dead(entity))
    }
}

impl<Q: QueryData, F: QueryData> std::fmt::Debug for QueryIter<'_, Q, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryIter")
            .field("query", &std::any::type_name::<Q>())
            .field("filter", &std::any::type_name::<F>())
            .finish_non_exhaustive()
    }
}

impl<'w, Q: QueryData, F: QueryData> Iterator for QueryIter<'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        if let DriverIter::Dense { entities, pos } = &mut self.driver {
            // Fast path: when every store holds the driver's entities at the same dense
            // indices over a block (stores filled by the same bundles), index them directly.
            let i = *pos;
            let entities: &'w [Entity] = entities;
            if i >= self.block_end && i < entities.len() {
                let end = (i + BLOCK).min(entities.len());
                let block = &entities[i..end];
                self.block_aligned =
                    Q::aligned(&self.data, block, i) && F::aligned(&self.filter, block, i);
                self.block_end = end;
            }
            if self.block_aligned && i < self.block_end {
                *pos = i + 1;
                return Some(Q::fetch_at(&mut self.data, entities[i], i));
            }
        }
        loop {
            let (entity, hint) = self.driver.next()?;
            if F::fetch(&mut self.filter, entity, hint).is_none() {
                continue;
            }
            if let Some(item) = Q::fetch(&mut self.data, entity, hint) {
                return Some(item);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.driver.upper_bound())
    }

    /// `for_each`, `sum`, `count`… land here: aligned blocks run as a tight loop over dense
    /// indices, with no per-item driver dispatch.
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let mut acc = init;
        loop {
            if let DriverIter::Dense { entities, pos } = &mut self.driver {
                let entities: &'w [Entity] = entities;
                let i = *pos;
                if i >= entities.len() {
                    return acc;
                }
                if i >= self.block_end {
                    let end = (i + BLOCK).min(entities.len());
                    let block = &entities[i..end];
                    self.block_aligned =
                        Q::aligned(&self.data, block, i) && F::aligned(&self.filter, block, i);
                    self.block_end = end;
                }
                if self.block_aligned {
                    let end = self.block_end;
                    for (k, &e) in entities[i..end].iter().enumerate() {
                        acc = g(acc, Q::fetch_at(&mut self.data, e, i + k));
                    }
                    if let DriverIter::Dense { pos, .. } = &mut self.driver {
                        *pos = end;
                    }
                    continue;
                }
            }
            match self.next() {
                Some(item) => acc = g(acc, item),
                None => return acc,
            }
        }
    }
}

/// Accesses of `Q` and `F`, refused if they alias a `&mut`.
fn checked_access<Q: QueryData, F: QueryData>() -> Result<Vec<Access>, QueryAliasError> {
    let mut access = Vec::new();
    Q::access(&mut access);
    F::access(&mut access);
    match find_alias_runtime(&access) {
        Some(component) => Err(QueryAliasError { component }),
        None => Ok(access),
    }
}

/// Compile-time refusal of queries that name a component twice with a `&mut` (for components
/// with a unique key; generic ones are caught at run time). Fails `cargo build`, with a note
/// naming the query type.
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
    /// Iterates the read-only query `Q` (e.g. `(Entity, &Position, Option<&Name>)`) in ascending
    /// slot order.
    ///
    /// ```
    /// # use rota_core::{Component, Entity, World};
    /// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; }
    /// let mut world = World::new();
    /// let a = world.spawn_with((Hp(10),));
    /// let b = world.spawn_with((Hp(20),));
    /// let total: u32 = world.query::<&Hp>().map(|hp| hp.0).sum();
    /// assert_eq!(total, 30);
    /// let ids: Vec<Entity> = world.query::<(Entity, &Hp)>().map(|(e, _)| e).collect();
    /// assert_eq!(ids, [a, b]);
    /// ```
    pub fn query<Q: ReadOnlyQueryData>(&self) -> QueryIter<'_, Q> {
        QueryIter::new(Borrows::read_only(self))
    }

    /// Like [`World::query`], keeping only entities that match the filter `F`
    /// (e.g. `With<T>`, `(Without<A>, With<B>)`).
    pub fn query_filtered<Q: ReadOnlyQueryData, F: ReadOnlyQueryData>(
        &self,
    ) -> QueryIter<'_, Q, F> {
        QueryIter::new(Borrows::read_only(self))
    }

    /// Iterates the query `Q`, which may write (`&mut T`, `Option<&mut T>`), in ascending slot
    /// order. Settles the stores it touches first.
    ///
    /// A query naming the same component twice with a `&mut` (`(&mut A, &A)`) does not build;
    /// for generic components, whose names are not unique, it panics here instead.
    ///
    /// ```
    /// # use rota_core::{Component, World};
    /// # struct Pos(f32); impl Component for Pos { const NAME: &'static str = "Pos"; }
    /// # struct Vel(f32); impl Component for Vel { const NAME: &'static str = "Vel"; }
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
        match self.try_query_filtered_mut::<Q, ()>() {
            Ok(it) => it,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`World::query_mut`] with a filter.
    ///
    /// # Panics
    ///
    /// As [`World::query_mut`].
    pub fn query_filtered_mut<Q: QueryData, F: ReadOnlyQueryData>(
        &mut self,
    ) -> QueryIter<'_, Q, F> {
        match self.try_query_filtered_mut::<Q, F>() {
            Ok(it) => it,
            Err(e) => panic!("{e}"),
        }
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
        let access = checked_access::<Q, F>()?;
        Ok(QueryIter::new(Borrows::split(self, &access)))
    }

    /// The read-only query `Q` for one entity.
    ///
    /// ```
    /// # use rota_core::{Component, QueryGetError, World};
    /// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; }
    /// # struct Armor(u32); impl Component for Armor { const NAME: &'static str = "Armor"; }
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
        QueryIter::<Q>::get_one(Borrows::read_only(self), entity)
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
        QueryIter::<Q>::get_one(Borrows::split(self, &access), entity)
    }
}
