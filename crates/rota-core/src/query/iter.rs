//! `QueryIter` and the `World` methods that start queries.

use std::iter::FusedIterator;

use super::{Borrows, JoinPlan, QueryData};
use crate::entity::{EntitiesIter, Entity};
use crate::error::{EntityNotAlive, QueryGetError};
use crate::store::index::StoreIndex;
use crate::store::sparse::SparseIter;

/// Where an entity-by-entity walk takes its entities from, in ascending slot order.
enum Walk<'w> {
    /// A settled store's entity column (runs were not possible: an unsettled other store).
    Column(std::slice::Iter<'w, Entity>),
    /// An unsettled store: its sparse pages, in slot order.
    Sparse {
        slots: SparseIter<'w>,
        entities: &'w [Entity],
    },
    /// No required component: every live entity.
    Alive(EntitiesIter<'w>),
}

impl Walk<'_> {
    #[inline]
    fn next(&mut self) -> Option<Entity> {
        match self {
            Walk::Column(it) => it.next().copied(),
            Walk::Sparse { slots, entities } => slots.next().map(|(_, d)| entities[d as usize]),
            Walk::Alive(it) => it.next(),
        }
    }
}

enum Mode<'w> {
    /// Settled stores: a run join (see `join.rs`).
    Runs(JoinPlan<'w>),
    /// Entity by entity: `walk` drives, every element probes.
    Probe(Walk<'w>),
}

/// An iterator over a query's matches in ascending slot order; see `World::query`.
///
/// `F` is a filter query whose items are discarded (e.g. `With<T>`). `for` loops, `for_each`
/// and [`QueryIter::for_each_run`] all take the run join when the stores are settled.
pub struct QueryIter<'w, Q: QueryData, F: QueryData = ()> {
    /// The run being yielded (empty before the first, and always in the entity-by-entity
    /// mode). First, and checked first: `next` is a slice step plus one branch until a run ends.
    current: Q::Run<'w>,
    /// The entities of the run `current` came from.
    run_entities: &'w [Entity],
    data: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
    mode: Mode<'w>,
}

impl<'w, Q: QueryData, F: QueryData> QueryIter<'w, Q, F> {
    /// Starts a query over `borrows` (which must hold everything `Q` and `F` access).
    pub fn new(mut borrows: Borrows<'w>) -> QueryIter<'w, Q, F> {
        Self::from_borrows(&mut borrows)
    }

    /// [`QueryIter::new`] taking what it needs out of `borrows` in place (no move of the
    /// borrow list).
    #[inline]
    pub(crate) fn from_borrows(borrows: &mut Borrows<'w>) -> QueryIter<'w, Q, F> {
        let mut data = Q::init(borrows);
        let mut filter = F::init(borrows);
        let mut plan = JoinPlan::new();
        Q::plan(&mut data, &mut plan);
        F::plan(&mut filter, &mut plan);
        let mode = if plan.finish() {
            Mode::Runs(plan)
        } else {
            let mut best: Option<StoreIndex<'w>> = None;
            Q::required(&data, &mut best);
            F::required(&filter, &mut best);
            Mode::Probe(match best {
                None => Walk::Alive(borrows.entities().iter()),
                Some(i) if i.settled => Walk::Column(i.entities.iter()),
                Some(i) => Walk::Sparse {
                    slots: i.sparse.iter(),
                    entities: i.entities,
                },
            })
        };
        QueryIter {
            current: Q::empty_run(),
            run_entities: &[],
            data,
            filter,
            mode,
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
            return Err(QueryGetError::Dead(EntityNotAlive(entity)));
        }
        let mut data = Q::init(&mut borrows);
        let mut filter = F::init(&mut borrows);
        if let Some((reason, component)) =
            F::mismatch(&filter, entity).or_else(|| Q::mismatch(&data, entity))
        {
            return Err(QueryGetError::Mismatch {
                entity,
                component,
                reason,
            });
        }
        F::fetch_one(&mut filter, entity)
            .and_then(|_| Q::fetch_one(&mut data, entity))
            .ok_or(QueryGetError::Dead(EntityNotAlive(entity)))
    }

    /// Calls `f` once per **run** — a stretch of matching entities that every store holds
    /// contiguously — with the run's entities and its slices (`&mut [T]` for `&mut T`, `&[T]` for
    /// `&T`, `Option<&[T]>` for `Option<&T>`, `()` for `Entity` and filters, tuples for tuples).
    /// Runs come in ascending slot order; a loop over one run is a loop over plain slices, the
    /// shape auto-vectorization wants. Through `&World` with unsettled stores, runs have one
    /// entity each.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Pos(f32);
    /// # #[derive(Component, Clone)] struct Vel(f32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..1000).map(|i| (Pos(0.0), Vel(i as f32))));
    /// world.query_mut::<(&mut Pos, &Vel)>().for_each_run(|entities, (pos, vel)| {
    ///     assert_eq!(entities.len(), pos.len());
    ///     for (p, v) in pos.iter_mut().zip(vel) {
    ///         p.0 += v.0;
    ///     }
    /// });
    /// assert_eq!(world.query::<&Pos>().map(|p| p.0).sum::<f32>(), 499_500.0);
    /// ```
    pub fn for_each_run(mut self, mut f: impl FnMut(&[Entity], Q::Slices<'w>)) {
        // What `next` left of a run it started: its tail, as slices.
        let current = std::mem::replace(&mut self.current, Q::empty_run());
        let left = current.size_hint().0;
        if left > 0 {
            let entities = &self.run_entities[self.run_entities.len() - left..];
            f(entities, Q::rest(current));
        }
        match &mut self.mode {
            Mode::Runs(plan) => {
                while plan.next_run() {
                    f(plan.entities(), Q::hand_out(Q::raw(&mut self.data, plan)));
                }
            }
            Mode::Probe(walk) => {
                while let Some(e) = walk.next() {
                    if F::fetch_one(&mut self.filter, e).is_none() {
                        continue;
                    }
                    if let Some(slices) = Q::slices_one(&mut self.data, e) {
                        f(std::slice::from_ref(&e), slices);
                    }
                }
            }
        }
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
        match self.current.next() {
            Some(item) => Some(item),
            None => self.next_run_or_probe(),
        }
    }

    /// `for_each`, `sum`, `count`… land here: each run is folded as a zip of slice iterators.
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        let current = std::mem::replace(&mut self.current, Q::empty_run());
        let mut acc = current.fold(init, &mut g);
        match &mut self.mode {
            Mode::Runs(plan) => {
                while plan.next_run() {
                    acc = Q::run(Q::raw(&mut self.data, plan), plan.entities()).fold(acc, &mut g);
                }
                acc
            }
            // Entity by entity: `next` already is the whole loop.
            Mode::Probe(_) => self.by_ref().fold(acc, g),
        }
    }
}

impl<'w, Q: QueryData, F: QueryData> QueryIter<'w, Q, F> {
    /// `next` when the current run is used up: the next run's first item, or (entity by entity)
    /// the next match. Out of line, so the hot path of `next` stays a slice step.
    #[inline(never)]
    fn next_run_or_probe(&mut self) -> Option<Q::Item<'w>> {
        match &mut self.mode {
            Mode::Runs(plan) => loop {
                if !plan.next_run() {
                    return None;
                }
                self.run_entities = plan.entities();
                self.current = Q::run(Q::raw(&mut self.data, plan), self.run_entities);
                if let Some(item) = self.current.next() {
                    return Some(item);
                }
            },
            Mode::Probe(walk) => loop {
                let e = walk.next()?;
                if F::fetch_one(&mut self.filter, e).is_none() {
                    continue;
                }
                if let Some(item) = Q::fetch_one(&mut self.data, e) {
                    return Some(item);
                }
            },
        }
    }
}

impl<Q: QueryData, F: QueryData> FusedIterator for QueryIter<'_, Q, F> {}
