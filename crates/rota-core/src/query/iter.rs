//! `QueryIter` and the `World` methods that start queries.

use std::iter::FusedIterator;

use super::access::{Access, ConstAccess, OneAccess, find_alias_runtime, leaf_count};
use super::world_api::{accesses, alias_panic};
use super::{Borrows, JoinPlan, Pending, QueryData, WholeWorld};
use crate::entity::{EntitiesIter, Entity};
use crate::error::{EntityNotAlive, QueryGetError};
use crate::store::index::StoreIndex;
use crate::store::sparse::SparseIter;
use crate::tick::{ChangeWindow, Tick};
use crate::world::World;

pub(super) mod pieces;

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
///
/// # Why the state is split in two
///
/// A `for` loop calls `next` once per item. It runs at slice speed only if LLVM keeps the
/// current run's slice iterators in registers, and it does so only while the iterator's own
/// address never reaches a call. Three things would pass it: an out-of-line refill taking
/// `&mut self`, building the iterator out of line (a return slot), and the drop glue, which an
/// unwinding loop body runs from a landing pad where LLVM inlines little. So the iterator holds
/// the hot part — the run being yielded, a plain slice iterator with no `Drop` — by value;
/// everything the out-of-line refill (`advance`) touches sits behind a `Box` (`State`),
/// planned out of line and returned as a pointer; and the drop hands that box and a count to
/// an out-of-line `finish`, which stamps what the run handed out (see `WriteColumn`).
/// Measured: `docs/benchmarks.md`, "A `for` loop over one run is a plain slice loop".
///
/// A query of one settled store (`QueryIter::ONE_STORE`) has nothing to refill: it holds no
/// box, only the few words of stamps its one run owes (`Pending`), which the drop
/// passes to `finish` as separate arguments. Passing them as one struct, or holding the
/// fetches themselves, made the drop glue too big to inline into the landing pad, and the loop
/// went back to memory (measured: `docs/benchmarks.md`, "A `for` loop over one run is a plain
/// slice loop").
pub struct QueryIter<'w, Q: QueryData, F: QueryData = ()> {
    /// The run being yielded (empty before the first, and always in the entity-by-entity
    /// mode). First, and checked first: `next` is a slice step plus one branch until a run ends.
    current: Q::Run<'w>,
    /// The entities of the run `current` came from.
    run_entities: &'w [Entity],
    /// `current` is the query's last run: when it ends, the query ends. Set when the iterator
    /// is built and never changed: a loop whose exit test is invariant is one LLVM unswitches,
    /// and the copy where it is `true` is a plain slice loop, which vectorizes.
    last: bool,
    /// The fetches and the join: only `advance`, `fold`, `for_each_run` and the drop touch
    /// them. `None` only while the iterator is dropped (see its `Drop`).
    state: Option<Box<State<'w, Q, F>>>,
    /// A query of one settled store ([`QueryIter::ONE_STORE`]), whose one run, the store's
    /// whole column, is `current`: the stamps that run owes, all that is left of its fetches
    /// (`state` is then `None`: nothing to find, so nothing to box). Empty otherwise.
    pending: Pending<'w>,
}

impl<Q: QueryData, F: QueryData> Drop for QueryIter<'_, Q, F> {
    /// Ends the query out of line: the boxed state (or, for a query of one store, the
    /// pending stamps) stamps what the current run handed out (its `WriteColumn`s keep the
    /// ticks; the run itself is a plain slice iterator with no drop). The drop glue is this
    /// and nothing else — a pointer, the stamps' parts and a count, passed by value — so an
    /// unwinding loop body's landing pad, where LLVM inlines little, can inline it without
    /// passing the iterator's own address to a call (see the type's docs).
    #[inline]
    fn drop(&mut self) {
        if Self::ONE_STORE {
            let Pending { ticks, floor, now } = std::mem::take(&mut self.pending);
            finish(
                self.state.take(),
                ticks,
                floor,
                now,
                self.current.size_hint().0,
            );
        } else if let Some(state) = self.state.take() {
            // Nothing pending (a `const` branch): the glue stays a pointer and a count, small
            // enough for LLVM to inline into a landing pad (with the stamps' parts as well,
            // it did not, and a tuple's loop over several runs kept the iterator in memory).
            finish_state(state, self.current.size_hint().0);
        }
    }
}

/// The one access of a query that names one store ([`QueryIter::ONE_STORE`]); `None` for
/// every other query.
#[inline(always)]
fn one_access<Q: QueryData, F: QueryData>() -> Option<Access> {
    if !QueryIter::<Q, F>::ONE_STORE {
        return None;
    }
    let mut access = OneAccess(None);
    Q::access(&mut access);
    F::access(&mut access);
    access.0
}

/// Ends a query whose current run has `left` items not handed out: stamps what was handed out
/// through the state, then frees it.
#[inline(never)]
// The box is taken by value on purpose: this is where it is freed, out of the drop glue.
#[allow(clippy::boxed_local)]
fn finish_state<Q: QueryData, F: QueryData>(mut state: Box<State<'_, Q, F>>, left: usize) {
    Q::flush(&mut state.data, left);
    F::flush(&mut state.filter, 0);
}

/// [`finish_state`] for a query of one store ([`QueryIter::ONE_STORE`]): through its state if
/// it has one (an unsettled store through `&World`), else through the stamps its run owes
/// (`QueryIter::pending`, passed as its parts: every argument a register).
#[inline(never)]
fn finish<Q: QueryData, F: QueryData>(
    state: Option<Box<State<'_, Q, F>>>,
    ticks: &mut [Tick],
    floor: Option<&mut Option<Tick>>,
    now: Tick,
    left: usize,
) {
    match state {
        Some(state) => finish_state(state, left),
        None => Pending { ticks, floor, now }.stamp(left),
    }
}

/// The one run of a query of one store, its entities and the stamps it owes.
type WholeRun<'w, Q> = (<Q as QueryData>::Run<'w>, &'w [Entity], Pending<'w>);

/// The cold part of a [`QueryIter`]: what finding the next run or match needs.
struct State<'w, Q: QueryData, F: QueryData> {
    data: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
    mode: Mode<'w>,
}

/// What [`advance`] found.
enum Step<'w, Q: QueryData> {
    /// The next run, with its entities (it may be empty: ask again).
    Run(Q::Run<'w>, &'w [Entity]),
    /// The next match, entity by entity.
    Item(Q::Item<'w>),
    /// No more matches.
    Done,
}

/// The next run (run join) or the next match (entity by entity). Out of line, and given the
/// boxed state rather than the iterator, so the iterator's address never escapes `next`.
#[inline(never)]
fn advance<'w, Q: QueryData, F: QueryData>(state: Option<&mut State<'w, Q, F>>) -> Step<'w, Q> {
    let Some(state) = state else {
        return Step::Done;
    };
    match &mut state.mode {
        Mode::Runs(plan) => {
            if !plan.next_run() {
                return Step::Done;
            }
            let entities = plan.entities();
            Step::Run(Q::run(Q::raw(&mut state.data, plan), entities), entities)
        }
        Mode::Probe(walk) => loop {
            let Some(e) = walk.next() else {
                return Step::Done;
            };
            if !matches::<Q, F>(&state.data, &state.filter, e) {
                continue;
            }
            if F::fetch_one(&mut state.filter, e).is_none() {
                continue;
            }
            if let Some(item) = Q::fetch_one(&mut state.data, e) {
                return Step::Item(item);
            }
        },
    }
}

/// The first run of a plain join (see [`JoinPlan::is_plain`]; only called for queries whose
/// elements are all `QueryData::PLAIN`), taken when the iterator is built, and whether it is
/// the last (an empty query's is: nothing follows); an empty run,
/// not the last, for the entity-by-entity walk.
#[inline(never)]
fn start<'w, Q: QueryData, F: QueryData>(
    state: &mut State<'w, Q, F>,
) -> (Q::Run<'w>, &'w [Entity], bool) {
    if let Mode::Runs(plan) = &mut state.mode {
        debug_assert!(
            plan.is_plain(),
            "`QueryData::PLAIN` elements made a join that is not plain"
        );
        if !plan.is_plain() {
            return (Q::empty_run(), &[], false);
        }
        if !plan.next_run() {
            return (Q::empty_run(), &[], true);
        }
        let entities = plan.entities();
        let run = Q::run(Q::raw(&mut state.data, plan), entities);
        return (run, entities, plan.is_last_run());
    }
    (Q::empty_run(), &[], false)
}

/// Whether `e` matches every element, checked before any is fetched: fetching hands a `&mut`
/// value out (it will be stamped), so a `&mut` element must not be fetched for an entity a
/// later element (`(Option<&mut A>, Without<B>)`) then rejects.
#[inline]
fn matches<Q: QueryData, F: QueryData>(
    data: &Q::Fetch<'_>,
    filter: &F::Fetch<'_>,
    e: Entity,
) -> bool {
    F::mismatch(filter, e).is_none() && Q::mismatch(data, e).is_none()
}

/// Where a query's stores come from ([`QueryIter::build`]): borrows already split (a
/// system's, or `&World`'s shared ones), or a world lent whole (`World::query_mut` and its
/// kin), whose stores are split here. A trait rather than an enum, so that the borrow list is
/// never moved into a wrapper on its way to the planner.
trait Source<'w, Q: QueryData, F: QueryData> {
    /// The planned state (the join, or the entity-by-entity walk), out of line.
    fn plan(self) -> Box<State<'w, Q, F>>;
    /// For a query of one store ([`QueryIter::ONE_STORE`]): the store's whole column as its
    /// one run, or, if the store cannot give it (unsettled, through `&World`), the planned state.
    fn plan_whole(self) -> Result<WholeRun<'w, Q>, Box<State<'w, Q, F>>>;
}

impl<'w, Q: QueryData, F: QueryData> Source<'w, Q, F> for Borrows<'w> {
    #[inline(always)]
    fn plan(self) -> Box<State<'w, Q, F>> {
        State::plan_owned(self)
    }
    #[inline(always)]
    fn plan_whole(self) -> Result<WholeRun<'w, Q>, Box<State<'w, Q, F>>> {
        State::plan_whole_borrowed(self)
    }
}

impl<'w, Q: QueryData, F: QueryData> Source<'w, Q, F> for &'w mut World {
    #[inline(always)]
    fn plan(self) -> Box<State<'w, Q, F>> {
        State::plan_world(self)
    }
    #[inline(always)]
    fn plan_whole(self) -> Result<WholeRun<'w, Q>, Box<State<'w, Q, F>>> {
        Ok(State::<Q, F>::plan_whole(self))
    }
}

/// Whether a new iterator takes its first run when built ([`QueryIter::build`]).
enum Begin {
    /// As [`QueryIter::started`] does: the first run taken if the join is plain.
    Started,
    /// Before its first run, so that it can still be cut into segments.
    Unstarted,
}

impl<'w, Q: QueryData, F: QueryData> State<'w, Q, F> {
    /// Plans the query over `borrows`: the run join if every store is settled, else the
    /// entity-by-entity walk. Out of line: the iterator is then built in the caller's frame
    /// around the returned pointer (see `QueryIter`).
    #[inline(never)]
    fn plan(borrows: &mut Borrows<'w>) -> Box<State<'w, Q, F>> {
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
        Box::new(State { data, filter, mode })
    }

    /// The state of a world-level query that may write: its accesses (a generic component
    /// named twice with a `&mut` panics here), the stores split out of `world`, the plan. A
    /// query of one store ([`QueryIter::ONE_STORE`]) has one access, which cannot alias, and
    /// borrows its store without a list.
    #[inline(never)]
    fn plan_world(world: &'w mut World) -> Box<State<'w, Q, F>> {
        let window = ChangeWindow::everything(world.change_tick());
        if let Some(access) = one_access::<Q, F>() {
            return Self::plan(&mut Borrows::one(world, &access, window));
        }
        let access = accesses::<Q, F>();
        if let Some(component) = find_alias_runtime(&access) {
            alias_panic(component);
        }
        Self::plan(&mut Borrows::split(world, &access, window))
    }

    /// The one run of a query of one store ([`QueryIter::ONE_STORE`]) out of `world`: the
    /// store's whole column, its entities (empty if the world has no such store) and the
    /// stamps it owes. Out of line, and returning only these: the iterator built around them
    /// in the caller's frame never has its address passed to a call (see `QueryIter`).
    #[inline(never)]
    fn plan_whole(world: &'w mut World) -> WholeRun<'w, Q> {
        let mut lent = WholeWorld::new(world);
        let data = Q::init_whole(&mut lent);
        let filter = F::init_whole(&mut lent);
        Self::whole_run(data, filter, lent.entities())
    }

    /// [`State::plan_whole`] over `borrows` (a system's, or `&World`'s): the store's whole
    /// column if it is settled; else (through `&World`) the planned entity-by-entity walk.
    #[inline(never)]
    fn plan_whole_borrowed(
        mut borrows: Borrows<'w>,
    ) -> Result<WholeRun<'w, Q>, Box<State<'w, Q, F>>> {
        let access = one_access::<Q, F>().expect("a one-store query has one access");
        let Some(entities) = borrows.settled_entities(access.type_id) else {
            return Err(Self::plan(&mut borrows));
        };
        let data = Q::init(&mut borrows);
        let filter = F::init(&mut borrows);
        Ok(Self::whole_run(data, filter, entities))
    }

    /// The fetches of a query of one settled store given up for its one run — every
    /// element's whole column, `entities` long — and the stamps that run owes.
    #[inline(always)]
    fn whole_run(
        mut data: Q::Fetch<'w>,
        filter: F::Fetch<'w>,
        entities: &'w [Entity],
    ) -> WholeRun<'w, Q> {
        let run = Q::whole(&mut data, entities);
        (
            run,
            entities,
            Q::into_pending(data).or(F::into_pending(filter)),
        )
    }

    /// [`State::plan`] over an owned borrow list, dropped once planned.
    #[inline(never)]
    fn plan_owned(mut borrows: Borrows<'w>) -> Box<State<'w, Q, F>> {
        Self::plan(&mut borrows)
    }
}

impl<'w, Q: QueryData, F: QueryData> QueryIter<'w, Q, F> {
    /// Starts a query over `borrows` (which must hold everything `Q` and `F` access). A
    /// query of one settled store (`QueryIter::ONE_STORE`) boxes nothing (see
    /// `World::query_mut`).
    #[inline]
    pub fn new(borrows: Borrows<'w>) -> QueryIter<'w, Q, F> {
        Self::build(borrows, Begin::Started)
    }

    /// A query over `borrows` that has not taken its first run, so that it can still be cut
    /// into [`segments`](QueryIter::segments) (an iterator from [`QueryIter::new`] may have
    /// taken it already).
    #[doc(hidden)]
    #[inline]
    pub fn unstarted(borrows: Borrows<'w>) -> QueryIter<'w, Q, F> {
        Self::build(borrows, Begin::Unstarted)
    }

    /// `world.query_filtered_mut::<Q, F>()`, planned out of line. A query of one store
    /// ([`QueryIter::ONE_STORE`]) holds its fetches in place of a state: its one run is the
    /// store's whole column, taken here, and nothing is left to find.
    #[inline]
    pub(crate) fn from_world(world: &'w mut World) -> QueryIter<'w, Q, F> {
        Self::build(world, Begin::Started)
    }

    /// The one construction path of every constructor above and of
    /// [`QueryIter::unstarted_from_world`]: plans `Q` and `F` over `source` (borrows or a
    /// whole world; out of line, see `State`), then, for [`Begin::Started`], takes the first
    /// run if the join is plain
    /// ([`QueryIter::started`]). A started query of one store ([`QueryIter::ONE_STORE`])
    /// skips the plan when its store is settled and holds the store's whole column instead
    /// ([`QueryIter::whole`]). Always inlined with constant arguments, so each constructor
    /// keeps only its own branch and the iterator is still built in the caller's frame.
    #[inline(always)]
    fn build(source: impl Source<'w, Q, F>, begin: Begin) -> QueryIter<'w, Q, F> {
        let started = matches!(begin, Begin::Started);
        let state = if started && Self::ONE_STORE {
            match source.plan_whole() {
                Ok(whole) => return Self::whole(whole),
                Err(state) => state,
            }
        } else {
            source.plan()
        };
        if started {
            Self::started(state)
        } else {
            Self::from_state(state)
        }
    }

    /// The iterator of a query of one store around its one run: the last, with nothing
    /// boxed (see `QueryIter::pending`).
    #[inline(always)]
    fn whole((current, run_entities, pending): WholeRun<'w, Q>) -> QueryIter<'w, Q, F> {
        QueryIter {
            current,
            run_entities,
            last: true,
            state: None,
            pending,
        }
    }

    /// Whether the query names exactly one store and its join would be plain (`&T`, `&mut T`,
    /// `(Entity, &mut T)`, `With<T>`, …): over a settled store, such a join is one run, the
    /// store's whole column, so a started query skips the join and its set-up (measured:
    /// docs/benchmarks.md, "A `for` loop over one run is a plain slice loop"). One access
    /// cannot alias.
    const ONE_STORE: bool =
        Self::STARTS && leaf_count(&ConstAccess::List(&[Q::ACCESS, F::ACCESS])) == 1;

    /// [`QueryIter::from_world`] before its first run (see [`QueryIter::unstarted`]).
    pub(crate) fn unstarted_from_world(world: &'w mut World) -> QueryIter<'w, Q, F> {
        Self::build(world, Begin::Unstarted)
    }

    /// The iterator around a planned state, before its first run.
    #[inline]
    fn from_state(state: Box<State<'w, Q, F>>) -> QueryIter<'w, Q, F> {
        QueryIter {
            current: Q::empty_run(),
            run_entities: &[],
            last: false,
            state: Some(state),
            pending: Pending::default(),
        }
    }

    /// Whether the iterator takes its first run when built: for queries whose join is always
    /// plain (every element required: `&T`, `&mut T`, `Entity`, `With`, tuples of them). It
    /// then knows whether that run is the last, and a `for` loop over a query of one run —
    /// every query over stores filled by the same bundles — is a loop over that run alone,
    /// which LLVM unswitches out of the refill loop: a plain slice loop for one element, one
    /// exit for a tuple ([`QueryData::next_in_last`]), and it vectorizes where the body
    /// allows (docs/benchmarks.md, "A `for` loop over one run is a plain slice loop").
    const STARTS: bool = Q::PLAIN && F::PLAIN;

    /// The iterator around a planned state, holding its first run if the join is plain (see
    /// [`start`]): a `for` loop over a query of one run is then a plain slice loop.
    #[inline]
    fn started(mut state: Box<State<'w, Q, F>>) -> QueryIter<'w, Q, F> {
        if !Self::STARTS {
            // `last` stays a constant `false`: the loop is the one with a refill.
            return Self::from_state(state);
        }
        let (current, run_entities, last) = start(&mut state);
        QueryIter {
            current,
            run_entities,
            last,
            state: Some(state),
            pending: Pending::default(),
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
        let item = F::fetch_one(&mut filter, entity).and_then(|_| Q::fetch_one(&mut data, entity));
        // The item was handed out: stamp it (see `WriteColumn`).
        F::flush(&mut filter, 0);
        Q::flush(&mut data, 0);
        item.ok_or(QueryGetError::Dead(EntityNotAlive(entity)))
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
        // What `next` left of a run it started: its tail, item by item (a run whose optional
        // column was merged is not one slice).
        // Walked in place: if `f` panics, the iterator still knows what it did not hand out.
        let left = self.current.size_hint().0;
        let entities = self.run_entities;
        if left > 0 && left == entities.len() {
            // A whole run no item was taken from: the plain run the iterator took when it was
            // built (`next` takes an item from every run it finds). Moved out first: if `f`
            // panics, the drop stamps it whole, as every run handed out as slices.
            let run = std::mem::replace(&mut self.current, Q::empty_run());
            f(entities, Q::run_slices(run));
        } else {
            for e in &entities[entities.len().saturating_sub(left)..] {
                let Some(item) = self.current.next() else {
                    break;
                };
                f(std::slice::from_ref(e), Q::one_slices(item));
            }
        }
        let Some(state) = self.state.as_deref_mut() else {
            return;
        };
        match &mut state.mode {
            Mode::Runs(plan) => {
                // From here on, runs are handed out as slices: optional columns cut them.
                plan.cut_optional();
                while plan.next_run() {
                    f(plan.entities(), Q::hand_out(Q::raw(&mut state.data, plan)));
                }
            }
            Mode::Probe(walk) => {
                while let Some(e) = walk.next() {
                    if !matches::<Q, F>(&state.data, &state.filter, e)
                        || F::fetch_one(&mut state.filter, e).is_none()
                    {
                        continue;
                    }
                    if let Some(slices) = Q::slices_one(&mut state.data, e) {
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
        loop {
            // `last` never changes: LLVM unswitches the loop on it, and the copy where it is
            // `true` has no refill and one exit (see `next_in_last`).
            let item = if self.last {
                Q::next_in_last(&mut self.current)
            } else {
                self.current.next()
            };
            if let Some(item) = item {
                return Some(item);
            }
            if self.last {
                return None;
            }
            match advance(self.state.as_deref_mut()) {
                Step::Run(run, entities) => {
                    self.current = run;
                    self.run_entities = entities;
                }
                Step::Item(item) => return Some(item),
                Step::Done => return None,
            }
        }
    }

    /// `for_each`, `sum`, `count`… land here: each run is folded as a zip of slice iterators.
    /// If the closure panics, every `&mut` value of the run it was in counts as handed out
    /// (stamped changed), not only those it saw.
    fn fold<B, G>(mut self, init: B, mut g: G) -> B
    where
        G: FnMut(B, Self::Item) -> B,
    {
        // Each run is folded by value, as a local: walking it in place (`self.current`, which
        // `fold` only sees through a pointer) kept it in memory, +30% on `simple_iter`
        // `for_each`. The price: if `g` panics, the drop no longer knows how much of that run
        // was handed out, and stamps all of it (conservative: nothing handed out is missed).
        let current = std::mem::replace(&mut self.current, Q::empty_run());
        let mut acc = Q::walk(current).fold(init, &mut g);
        if self.last {
            return acc;
        }
        if let Some(State {
            data,
            mode: Mode::Runs(plan),
            ..
        }) = self.state.as_deref_mut()
        {
            while plan.next_run() {
                acc = Q::walk(Q::run(Q::raw(data, plan), plan.entities())).fold(acc, &mut g);
            }
            return acc;
        }
        // Entity by entity: `next` already is the whole loop.
        self.by_ref().fold(acc, g)
    }
}

impl<Q: QueryData, F: QueryData> FusedIterator for QueryIter<'_, Q, F> {}
