//! Queries of one store (`QueryIter::ONE_STORE`: `&T`, `&mut T`, `(Entity, &T)`,
//! `(Entity, &mut T)`, `(&mut T, Entity)`, `((Entity, &mut T),)`, `With<T>`,
//! `(Entity, With<T>)`, `Entity` filtered by `With<T>`) skip the join: from `&mut World` their
//! one run is the store's whole column, borrowed straight from the typed store
//! (`QueryIter::from_world` → `State::plan_whole`); from a system's or `&World`'s borrows the
//! same when the store is settled (`QueryIter::new` → `State::plan_whole_borrowed`), else the
//! entity-by-entity walk. This file checks that fast path against an obviously-correct oracle
//! (per component a `BTreeMap` from slot to entity, value and "changed since the checkpoint").
//!
//! `one_store_walks_match_the_oracle` applies a random history — spawns of any subset of three
//! components (a `Copy` one, left dead in place by despawns and deletes; a `String` one, which
//! has drop glue and is swap-removed; a zero-sized tag), `spawn_batch`, inserts (new and
//! replacing), removes, deletes, `get_mut` writes, despawns, `settle`, change checkpoints,
//! snapshots and restores — interleaved with walks through `world.query_mut`, `world.query`,
//! a snapshot's `world().query` and a `#[system]` run by `World::run` (`iter`, `iter_mut`,
//! `par_map_chunks`, which walks the started iterator's pieces, and `par_for_each`, which on
//! more than one rayon thread cuts an unstarted query into segments instead). Each walk is one
//! of: a full `for` loop, `break` after `k` items, `take(k)`, `for_each`, `for_each_run`, `next`
//! `k` times then `for_each_run`, `nth(k)`, `count`, a drop without iterating, `next` after the
//! end, and a panic after `k` items inside a `for` loop or `for_each` (caught). A `&mut` walk
//! writes a new value into every item it sees. After every step: the items and their order
//! (ascending slot), the run partition, the values (`world.get` of every live entity),
//! `Changed<T>` since the checkpoint (the oracle's previously changed set plus exactly what the
//! walk handed out mutably — a `for_each` that panics may stamp the rest of its run, which is the
//! whole store here: README, "Known limits"), `check_invariants`, and a held snapshot, unchanged
//! by anything the world did since. The 48 default cases run in well under a second.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use rota::{
    ApplyReport, Changed, Component, Entity, ParallelQuery, Query, QueryData, QueryIter,
    ReadOnlyQueryData, ResMut, Resource, Snapshot, Tick, With, World, system,
};

// ---------------------------------------------------------------------------------------------
// Components

/// No drop glue: a despawn or `World::delete` leaves the value dead in place.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct A(u32);

/// Drop glue: removed by swap-remove.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
struct Name(String);

/// Zero-sized: stores no value per entity, but still has change ticks.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Tag;

/// A bijection on `u32` (odd multiplier): what a `&mut` walk writes over a value.
fn mix(old: u32, base: u32) -> u32 {
    old.wrapping_mul(0x9E37_79B1).wrapping_add(base)
}

/// The oracle's view of one component type.
trait Comp: Component + Clone + Debug {
    /// Its column in the oracle.
    const INDEX: usize;
    fn make(value: u32) -> Self;
    /// The value as the oracle keeps it (a `Tag` is always 0).
    fn value(&self) -> u32;
    /// What a `&mut` walk does to a visited item.
    fn write(&mut self, base: u32) {
        *self = Self::make(mix(self.value(), base));
    }
    /// Runs the system that walks `shape` over this component (see `component_systems!`).
    fn run_system(world: &mut World, shape: Shape) -> ApplyReport;
}

// ---------------------------------------------------------------------------------------------
// Shapes: one-store queries, and how to record what they yield

/// What one item (or one element of a run) showed: its entity and value, where the shape
/// yields them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rec {
    entity: Option<Entity>,
    value: Option<u32>,
}

/// A one-store query shape the test can record (and, if it writes, write through).
trait Recordable: QueryData {
    const WRITES: bool;
    /// Records an item; a writing shape then writes `mix(old, base)` into it.
    fn rec(item: Self::Item<'_>, base: u32) -> Rec;
    /// Records (and writes) a run handed out as slices; `entities` are the run's.
    fn run_recs(entities: &[Entity], slices: Self::Slices<'_>, base: u32) -> Vec<Rec>;
}

fn rec(entity: Option<Entity>, value: Option<u32>) -> Rec {
    Rec { entity, value }
}

fn read_run<T: Comp>(entities: &[Entity], values: &[T]) -> Vec<Rec> {
    assert_eq!(
        entities.len(),
        values.len(),
        "a run's slice is as long as its entities"
    );
    let recs = entities.iter().zip(values);
    recs.map(|(&e, v)| rec(Some(e), Some(v.value()))).collect()
}

fn write_run<T: Comp>(entities: &[Entity], values: &mut [T], base: u32) -> Vec<Rec> {
    assert_eq!(
        entities.len(),
        values.len(),
        "a run's slice is as long as its entities"
    );
    let recs = entities.iter().zip(values);
    recs.map(|(&e, v)| {
        let old = v.value();
        v.write(base);
        rec(Some(e), Some(old))
    })
    .collect()
}

fn write_item<T: Comp>(item: &mut T, base: u32) -> u32 {
    let old = item.value();
    item.write(base);
    old
}

impl<T: Comp> Recordable for &T {
    const WRITES: bool = false;
    fn rec(item: &T, _: u32) -> Rec {
        rec(None, Some(item.value()))
    }
    fn run_recs(entities: &[Entity], values: &[T], _: u32) -> Vec<Rec> {
        read_run(entities, values)
    }
}

impl<T: Comp> Recordable for (Entity, &T) {
    const WRITES: bool = false;
    fn rec((e, item): (Entity, &T), _: u32) -> Rec {
        rec(Some(e), Some(item.value()))
    }
    fn run_recs(entities: &[Entity], ((), values): ((), &[T]), _: u32) -> Vec<Rec> {
        read_run(entities, values)
    }
}

impl<T: Comp> Recordable for (&T, Entity) {
    const WRITES: bool = false;
    fn rec((item, e): (&T, Entity), _: u32) -> Rec {
        rec(Some(e), Some(item.value()))
    }
    fn run_recs(entities: &[Entity], (values, ()): (&[T], ()), _: u32) -> Vec<Rec> {
        read_run(entities, values)
    }
}

impl<T: Comp> Recordable for With<T> {
    const WRITES: bool = false;
    fn rec((): (), _: u32) -> Rec {
        rec(None, None)
    }
    fn run_recs(entities: &[Entity], (): (), _: u32) -> Vec<Rec> {
        entities.iter().map(|&e| rec(Some(e), None)).collect()
    }
}

impl<T: Comp> Recordable for (Entity, With<T>) {
    const WRITES: bool = false;
    fn rec((e, ()): (Entity, ()), _: u32) -> Rec {
        rec(Some(e), None)
    }
    fn run_recs(entities: &[Entity], _: ((), ()), _: u32) -> Vec<Rec> {
        entities.iter().map(|&e| rec(Some(e), None)).collect()
    }
}

/// `Entity` with the filter `With<T>`: the query's one store is the filter's.
impl Recordable for Entity {
    const WRITES: bool = false;
    fn rec(e: Entity, _: u32) -> Rec {
        rec(Some(e), None)
    }
    fn run_recs(entities: &[Entity], (): (), _: u32) -> Vec<Rec> {
        entities.iter().map(|&e| rec(Some(e), None)).collect()
    }
}

impl<T: Comp> Recordable for &mut T {
    const WRITES: bool = true;
    fn rec(item: &mut T, base: u32) -> Rec {
        rec(None, Some(write_item(item, base)))
    }
    fn run_recs(entities: &[Entity], values: &mut [T], base: u32) -> Vec<Rec> {
        write_run(entities, values, base)
    }
}

impl<T: Comp> Recordable for (Entity, &mut T) {
    const WRITES: bool = true;
    fn rec((e, item): (Entity, &mut T), base: u32) -> Rec {
        rec(Some(e), Some(write_item(item, base)))
    }
    fn run_recs(entities: &[Entity], ((), values): ((), &mut [T]), base: u32) -> Vec<Rec> {
        write_run(entities, values, base)
    }
}

impl<T: Comp> Recordable for (&mut T, Entity) {
    const WRITES: bool = true;
    fn rec((item, e): (&mut T, Entity), base: u32) -> Rec {
        rec(Some(e), Some(write_item(item, base)))
    }
    fn run_recs(entities: &[Entity], (values, ()): (&mut [T], ()), base: u32) -> Vec<Rec> {
        write_run(entities, values, base)
    }
}

impl<T: Comp> Recordable for ((Entity, &mut T),) {
    const WRITES: bool = true;
    fn rec(((e, item),): ((Entity, &mut T),), base: u32) -> Rec {
        rec(Some(e), Some(write_item(item, base)))
    }
    fn run_recs(entities: &[Entity], (((), values),): (((), &mut [T]),), base: u32) -> Vec<Rec> {
        write_run(entities, values, base)
    }
}

/// The shapes walked, by name (the read-only paths take [`Shape::read_only`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Shape {
    #[default]
    Ref,
    EntityRef,
    RefEntity,
    With,
    EntityWith,
    FilteredEntity,
    Mut,
    EntityMut,
    MutEntity,
    NestedEntityMut,
}

impl Shape {
    const ALL: [Shape; 10] = [
        Shape::Ref,
        Shape::EntityRef,
        Shape::RefEntity,
        Shape::With,
        Shape::EntityWith,
        Shape::FilteredEntity,
        Shape::Mut,
        Shape::EntityMut,
        Shape::MutEntity,
        Shape::NestedEntityMut,
    ];

    /// The shape a read-only path (`&World`) walks instead.
    fn read_only(self) -> Shape {
        match self {
            Shape::Mut => Shape::Ref,
            Shape::EntityMut | Shape::NestedEntityMut => Shape::EntityRef,
            Shape::MutEntity => Shape::RefEntity,
            s => s,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Walks

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Walk {
    /// A whole `for` loop.
    #[default]
    For,
    /// A `for` loop that breaks when it gets item `k` (fetched, not used).
    Break,
    /// `take(k)` in a `for` loop.
    Take,
    ForEach,
    /// `for_each_run` from the start.
    Runs,
    /// `next` `k` times, then `for_each_run` over the rest.
    NextThenRuns,
    Nth,
    Count,
    /// Dropped without a `next`.
    Drop,
    /// `next` to the end, then `next` three more times (all `None`).
    NextAfterEnd,
    /// A `for` loop whose body panics at item `k` (caught).
    PanicFor,
    /// A `for_each` whose closure panics at item `k` (caught).
    PanicForEach,
    /// `par_for_each` (in a system; elsewhere a `for` loop).
    ParEach,
    /// `par_map_chunks` (in a system; elsewhere a `for` loop).
    ParChunks,
}

impl Walk {
    const ALL: [Walk; 14] = [
        Walk::For,
        Walk::Break,
        Walk::Take,
        Walk::ForEach,
        Walk::Runs,
        Walk::NextThenRuns,
        Walk::Nth,
        Walk::Count,
        Walk::Drop,
        Walk::NextAfterEnd,
        Walk::PanicFor,
        Walk::PanicForEach,
        Walk::ParEach,
        Walk::ParChunks,
    ];

    /// The positions (in slot order) of the items the walk sees, of `n` matches.
    fn seen(self, k: usize, n: usize) -> Vec<usize> {
        match self {
            Walk::Break | Walk::Take => (0..k.min(n)).collect(),
            Walk::Nth => (k..n).take(1).collect(),
            Walk::Count | Walk::Drop => Vec::new(),
            Walk::PanicFor | Walk::PanicForEach => (0..(k + 1).min(n)).collect(),
            _ => (0..n).collect(),
        }
    }

    /// How many of `n` matches (the first, in slot order) the walk hands out — what a `&mut`
    /// walk stamps changed — as a range: only a panicking `for_each` may stamp more than it
    /// handed out (the rest of its run, which for one store is every match).
    fn handed(self, k: usize, n: usize) -> (usize, usize) {
        let exact = |h: usize| (h, h);
        match self {
            Walk::Break | Walk::Nth | Walk::PanicFor => exact((k + 1).min(n)),
            Walk::Take => exact(k.min(n)),
            Walk::Drop => exact(0),
            Walk::PanicForEach => ((k + 1).min(n), n),
            _ => exact(n),
        }
    }
}

/// What a walk did.
#[derive(Clone, Debug, Default)]
struct Drove {
    /// Every item seen, with its position among the matches.
    seen: Vec<(usize, Rec)>,
    /// The items came in no particular order (`par_for_each`): positions are not known.
    unordered: bool,
    /// `for_each_run`'s runs' lengths.
    runs: Vec<usize>,
    /// Items `next` took before `for_each_run`.
    before_runs: usize,
    count: Option<usize>,
    /// `next` after the end returned `None` three times.
    fused: bool,
    panicked: bool,
    writes: bool,
}

/// Walks `iter` as `walk` says, recording (and, for a writing shape, writing) what it sees.
fn drive<'w, Q: Recordable, F: QueryData>(
    mut iter: QueryIter<'w, Q, F>,
    walk: Walk,
    k: usize,
    base: u32,
) -> Drove {
    let mut d = Drove {
        writes: Q::WRITES,
        ..Drove::default()
    };
    let seen = &mut d.seen;
    let mut push = |item: Q::Item<'w>| {
        let i = seen.len();
        seen.push((i, Q::rec(item, base)));
        i
    };
    match walk {
        Walk::For | Walk::ParEach | Walk::ParChunks => {
            for item in iter {
                push(item);
            }
        }
        Walk::Break => {
            for (used, item) in iter.enumerate() {
                if used == k {
                    break;
                }
                push(item);
            }
        }
        Walk::Take => {
            for item in iter.take(k) {
                push(item);
            }
        }
        Walk::ForEach => iter.for_each(|item| _ = push(item)),
        Walk::Runs | Walk::NextThenRuns => {
            if walk == Walk::NextThenRuns {
                for _ in 0..k {
                    match iter.next() {
                        Some(item) => _ = push(item),
                        None => break,
                    }
                }
            }
            d.before_runs = seen.len();
            iter.for_each_run(|entities, slices| {
                d.runs.push(entities.len());
                for r in Q::run_recs(entities, slices, base) {
                    seen.push((seen.len(), r));
                }
            });
        }
        Walk::Nth => {
            if let Some(item) = iter.nth(k) {
                seen.push((k, Q::rec(item, base)));
            }
        }
        Walk::Count => d.count = Some(iter.count()),
        Walk::Drop => drop(iter),
        Walk::NextAfterEnd => {
            for item in iter.by_ref() {
                push(item);
            }
            d.fused = (0..3).all(|_| iter.next().is_none());
        }
        Walk::PanicFor | Walk::PanicForEach => {
            // `resume_unwind` unwinds without the panic hook: nothing printed per case.
            let stop = |i: usize| {
                if i == k {
                    resume_unwind(Box::new("stop"));
                }
            };
            let caught = catch_unwind(AssertUnwindSafe(|| {
                if walk == Walk::PanicFor {
                    for item in iter {
                        stop(push(item));
                    }
                } else {
                    iter.for_each(|item| stop(push(item)));
                }
            }));
            d.panicked = caught.is_err();
        }
    }
    d
}

/// `par_for_each` (which, through `World::run` on more than one thread, cuts the query into
/// segments; on one, it is `for_each`).
fn par_each<Q: Recordable, F: QueryData>(q: &mut Query<'_, Q, F>, base: u32) -> Drove
where
    for<'a> Q::Item<'a>: Send,
{
    let recs = Mutex::new(Vec::new());
    q.par_for_each(|item| {
        let r = Q::rec(item, base);
        recs.lock().unwrap().push(r);
    });
    let recs = recs.into_inner().unwrap();
    Drove {
        seen: recs.into_iter().enumerate().collect(),
        unordered: true,
        writes: Q::WRITES,
        ..Drove::default()
    }
}

/// `par_map_chunks` (the started one-store iterator's pieces), results in chunk order.
fn par_chunks<Q: Recordable, F: QueryData>(q: &mut Query<'_, Q, F>, base: u32) -> Drove
where
    for<'a> Q::Item<'a>: Send,
{
    let chunks: Vec<Vec<Rec>> = q.par_map_chunks(|chunk| chunk.map(|i| Q::rec(i, base)).collect());
    Drove {
        seen: chunks.into_iter().flatten().enumerate().collect(),
        writes: Q::WRITES,
        ..Drove::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Walks through systems

/// What a system is asked to walk, and what it did (inserted before `World::run`, removed
/// after it, so never in a snapshot).
#[derive(Resource, Clone, Default)]
struct Job {
    shape: Shape,
    walk: Walk,
    k: usize,
    base: u32,
    out: Option<Drove>,
}

fn system_walk_mut<Q: Recordable, F: QueryData>(q: &mut Query<'_, Q, F>, job: &mut Job)
where
    for<'a> Q::Item<'a>: Send,
{
    job.out = Some(match job.walk {
        Walk::ParEach => par_each(q, job.base),
        Walk::ParChunks => par_chunks(q, job.base),
        walk => drive(q.iter_mut(), walk, job.k, job.base),
    });
}

fn system_walk_ref<Q: Recordable + ReadOnlyQueryData, F: QueryData>(
    q: &mut Query<'_, Q, F>,
    job: &mut Job,
) where
    for<'a> Q::Item<'a>: Send,
{
    job.out = Some(match job.walk {
        Walk::ParEach => par_each(q, job.base),
        Walk::ParChunks => par_chunks(q, job.base),
        walk => drive(q.iter(), walk, job.k, job.base),
    });
}

/// A reading system (every read shape, one parameter each) and one writing system per
/// writing shape, over component `$T`; and `$T`'s `Comp::run_system`.
macro_rules! component_systems {
    ($T:ident, $reads:ident, $mut_:ident, $entity_mut:ident, $mut_entity:ident, $nested:ident) => {
        #[system(reads($T), writes(Job))]
        fn $reads(
            mut r: Query<&$T>,
            mut er: Query<(Entity, &$T)>,
            mut re: Query<(&$T, Entity)>,
            mut w: Query<With<$T>>,
            mut ew: Query<(Entity, With<$T>)>,
            mut fe: Query<Entity, With<$T>>,
            mut job: ResMut<Job>,
        ) {
            let job = &mut *job;
            match job.shape.read_only() {
                Shape::Ref => system_walk_ref(&mut r, job),
                Shape::EntityRef => system_walk_ref(&mut er, job),
                Shape::RefEntity => system_walk_ref(&mut re, job),
                Shape::With => system_walk_ref(&mut w, job),
                Shape::EntityWith => system_walk_ref(&mut ew, job),
                _ => system_walk_ref(&mut fe, job),
            }
        }
        #[system(writes($T, Job))]
        fn $mut_(mut q: Query<&mut $T>, mut job: ResMut<Job>) {
            system_walk_mut(&mut q, &mut job);
        }
        #[system(writes($T, Job))]
        fn $entity_mut(mut q: Query<(Entity, &mut $T)>, mut job: ResMut<Job>) {
            system_walk_mut(&mut q, &mut job);
        }
        #[system(writes($T, Job))]
        fn $mut_entity(mut q: Query<(&mut $T, Entity)>, mut job: ResMut<Job>) {
            system_walk_mut(&mut q, &mut job);
        }
        #[system(writes($T, Job))]
        fn $nested(mut q: Query<((Entity, &mut $T),)>, mut job: ResMut<Job>) {
            system_walk_mut(&mut q, &mut job);
        }
        pub(super) fn run_system_for(world: &mut World, shape: Shape) -> ApplyReport {
            match shape {
                Shape::Mut => world.run($mut_),
                Shape::EntityMut => world.run($entity_mut),
                Shape::MutEntity => world.run($mut_entity),
                Shape::NestedEntityMut => world.run($nested),
                _ => world.run($reads),
            }
        }
    };
}

mod a_systems {
    use super::*;
    component_systems!(A, reads_a, mut_a, entity_mut_a, mut_entity_a, nested_a);
}
mod name_systems {
    use super::*;
    component_systems!(
        Name,
        reads_name,
        mut_name,
        entity_mut_name,
        mut_entity_name,
        nested_name
    );
}
mod tag_systems {
    use super::*;
    component_systems!(
        Tag,
        reads_tag,
        mut_tag,
        entity_mut_tag,
        mut_entity_tag,
        nested_tag
    );
}

impl Comp for A {
    const INDEX: usize = 0;
    fn make(value: u32) -> A {
        A(value)
    }
    fn value(&self) -> u32 {
        self.0
    }
    fn run_system(world: &mut World, shape: Shape) -> ApplyReport {
        a_systems::run_system_for(world, shape)
    }
}

impl Comp for Name {
    const INDEX: usize = 1;
    fn make(value: u32) -> Name {
        Name(value.to_string())
    }
    fn value(&self) -> u32 {
        self.0.parse().expect("a Name holds a number")
    }
    fn run_system(world: &mut World, shape: Shape) -> ApplyReport {
        name_systems::run_system_for(world, shape)
    }
}

impl Comp for Tag {
    const INDEX: usize = 2;
    fn make(_: u32) -> Tag {
        Tag
    }
    fn value(&self) -> u32 {
        0
    }
    fn run_system(world: &mut World, shape: Shape) -> ApplyReport {
        tag_systems::run_system_for(world, shape)
    }
}

// ---------------------------------------------------------------------------------------------
// Walks through the world

/// A walk through `world.query_mut` (every shape).
fn walk_world_mut<T: Comp>(
    world: &mut World,
    shape: Shape,
    walk: Walk,
    k: usize,
    base: u32,
) -> Drove {
    match shape {
        Shape::Ref => drive(world.query_mut::<&T>(), walk, k, base),
        Shape::EntityRef => drive(world.query_mut::<(Entity, &T)>(), walk, k, base),
        Shape::RefEntity => drive(world.query_mut::<(&T, Entity)>(), walk, k, base),
        Shape::With => drive(world.query_mut::<With<T>>(), walk, k, base),
        Shape::EntityWith => drive(world.query_mut::<(Entity, With<T>)>(), walk, k, base),
        Shape::FilteredEntity => {
            drive(world.query_filtered_mut::<Entity, With<T>>(), walk, k, base)
        }
        Shape::Mut => drive(world.query_mut::<&mut T>(), walk, k, base),
        Shape::EntityMut => drive(world.query_mut::<(Entity, &mut T)>(), walk, k, base),
        Shape::MutEntity => drive(world.query_mut::<(&mut T, Entity)>(), walk, k, base),
        Shape::NestedEntityMut => drive(world.query_mut::<((Entity, &mut T),)>(), walk, k, base),
    }
}

/// A walk through `world.query` (read shapes; the store may be unsettled).
fn walk_world_ref<T: Comp>(world: &World, shape: Shape, walk: Walk, k: usize, base: u32) -> Drove {
    match shape.read_only() {
        Shape::Ref => drive(world.query::<&T>(), walk, k, base),
        Shape::EntityRef => drive(world.query::<(Entity, &T)>(), walk, k, base),
        Shape::RefEntity => drive(world.query::<(&T, Entity)>(), walk, k, base),
        Shape::With => drive(world.query::<With<T>>(), walk, k, base),
        Shape::EntityWith => drive(world.query::<(Entity, With<T>)>(), walk, k, base),
        _ => drive(world.query_filtered::<Entity, With<T>>(), walk, k, base),
    }
}

// ---------------------------------------------------------------------------------------------
// The oracle

#[derive(Clone, Debug)]
struct Cell {
    entity: Entity,
    value: u32,
    /// Changed since `Model::since`.
    changed: bool,
}

#[derive(Clone, Debug)]
struct Model {
    /// The last checkpoint: `Changed<T>` is asked for the changes after it.
    since: Tick,
    /// Live entities by slot.
    alive: BTreeMap<u32, Entity>,
    /// Per component (`Comp::INDEX`), its holders by slot.
    cols: [BTreeMap<u32, Cell>; 3],
}

impl Model {
    fn set(&mut self, index: usize, entity: Entity, value: u32) {
        let cell = Cell {
            entity,
            value,
            changed: true,
        };
        self.cols[index].insert(entity.slot(), cell);
    }
}

/// The world (or a snapshot's) against the oracle: invariants, liveness, every live entity's
/// value of each component, each store's length, `Changed<T>` since the checkpoint (a join,
/// not the one-store path), and a plain `(Entity, &T)` walk.
fn check(world: &World, model: &Model) -> Result<(), TestCaseError> {
    if let Err(e) = world.check_invariants() {
        return Err(TestCaseError::fail(format!("invariants: {e}")));
    }
    prop_assert_eq!(world.len(), model.alive.len(), "live entities");
    for &e in model.alive.values() {
        prop_assert!(world.is_alive(e), "{} alive", e);
    }
    check_column::<A>(world, model)?;
    check_column::<Name>(world, model)?;
    check_column::<Tag>(world, model)
}

fn check_column<T: Comp>(world: &World, model: &Model) -> Result<(), TestCaseError> {
    let col = &model.cols[T::INDEX];
    let name = T::NAME;
    for &e in model.alive.values() {
        let got = world.get::<T>(e).map(T::value);
        let want = col.get(&e.slot()).map(|c| c.value);
        prop_assert_eq!(got, want, "`{}` of {}", name, e);
    }
    let len = world.store::<T>().map_or(0, |s| s.len());
    prop_assert_eq!(len, col.len(), "`{}` store length", name);
    let changed: Vec<Entity> = world
        .query_since::<Entity, Changed<T>>(model.since)
        .collect();
    let want: Vec<Entity> = col
        .values()
        .filter(|c| c.changed)
        .map(|c| c.entity)
        .collect();
    prop_assert_eq!(changed, want, "`{}` changed since the checkpoint", name);
    let walked: Vec<(Entity, u32)> = world
        .query::<(Entity, &T)>()
        .map(|(e, v)| (e, v.value()))
        .collect();
    let want: Vec<(Entity, u32)> = col.values().map(|c| (c.entity, c.value)).collect();
    prop_assert_eq!(walked, want, "`{}`: a later walk", name);
    Ok(())
}

/// Checks a walk's record against the oracle's matches (`T`'s holders in slot order, as they
/// were before the walk) and applies it: writes to what it saw, stamps to what it handed out.
/// `one_run`: the store was settled for this walk, so `for_each_run` from the start must hand
/// out the whole store as one run; otherwise every run has one entity.
fn record<T: Comp>(
    model: &mut Model,
    world: &World,
    d: &Drove,
    walk: Walk,
    k: usize,
    base: u32,
    one_run: bool,
) -> Result<(), TestCaseError> {
    let rows: Vec<Cell> = model.cols[T::INDEX].values().cloned().collect();
    let n = rows.len();
    let expect =
        |r: &Rec, cell: &Cell| rec(r.entity.map(|_| cell.entity), r.value.map(|_| cell.value));
    if d.unordered {
        // `par_for_each`: every match once, in any order.
        prop_assert_eq!(d.seen.len(), n, "items of par_for_each");
        let key = |r: &Rec| (r.entity.map(Entity::slot), r.value);
        let mut got: Vec<Rec> = d.seen.iter().map(|(_, r)| *r).collect();
        let mut want: Vec<Rec> = got.iter().zip(&rows).map(|(r, c)| expect(r, c)).collect();
        got.sort_by_key(key);
        want.sort_by_key(key);
        prop_assert_eq!(got, want, "items of par_for_each");
    } else {
        let positions: Vec<usize> = d.seen.iter().map(|(i, _)| *i).collect();
        prop_assert_eq!(
            positions,
            walk.seen(k, n),
            "positions seen of {} matches",
            n
        );
        for (i, r) in &d.seen {
            prop_assert_eq!(*r, expect(r, &rows[*i]), "item {}", i);
        }
    }
    match walk {
        Walk::Count => prop_assert_eq!(d.count, Some(n), "count"),
        Walk::NextAfterEnd => prop_assert!(d.fused, "`next` after the end"),
        Walk::PanicFor | Walk::PanicForEach => prop_assert_eq!(d.panicked, k < n, "panicked"),
        Walk::Runs | Walk::NextThenRuns => {
            let rest = n - d.before_runs;
            prop_assert_eq!(d.runs.iter().sum::<usize>(), rest, "runs' lengths");
            prop_assert!(d.runs.iter().all(|&r| r > 0), "an empty run: {:?}", d.runs);
            if !one_run {
                prop_assert!(
                    d.runs.iter().all(|&r| r == 1),
                    "unsettled runs: {:?}",
                    d.runs
                );
            } else if d.before_runs == 0 {
                let whole: Vec<usize> = (n > 0).then_some(n).into_iter().collect();
                prop_assert_eq!(&d.runs, &whole, "a settled store is one run");
            }
        }
        _ => {}
    }
    if !d.writes {
        return Ok(());
    }
    let col = &mut model.cols[T::INDEX];
    for (i, _) in &d.seen {
        let cell = col
            .get_mut(&rows[*i].entity.slot())
            .expect("a match is held");
        cell.value = T::make(mix(cell.value, base)).value();
    }
    let (lo, hi) = walk.handed(k, n);
    for row in &rows[..lo] {
        col.get_mut(&row.entity.slot()).expect("held").changed = true;
    }
    if hi > lo {
        // A panicking `for_each`: what it handed out is stamped, the rest of the store may be.
        let changed: Vec<Entity> = world
            .query_since::<Entity, Changed<T>>(model.since)
            .collect();
        for row in &rows[lo..hi] {
            if changed.contains(&row.entity) {
                col.get_mut(&row.entity.slot()).expect("held").changed = true;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Operations

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// `world.query_mut` (`QueryIter::from_world`).
    WorldMut,
    /// `world.query` (`QueryIter::new` over `&World`'s borrows).
    WorldRef,
    /// A held snapshot's `world().query`, against the oracle saved with it.
    Snapshot,
    /// A `#[system]` run by `World::run` (`QueryIter::new` over the system's borrows).
    System,
}

#[derive(Clone, Debug)]
enum Op {
    /// Spawns with a subset of A (bit 0), Name (bit 1), Tag (bit 2).
    Spawn(u8),
    /// `spawn_batch` of `n` bundles of one of four shapes.
    SpawnBatch(u8, usize),
    Insert(usize, u8),
    Remove(usize, u8),
    Delete(usize, u8),
    GetMut(usize, u8),
    Despawn(usize),
    Settle,
    Checkpoint,
    Snapshot,
    Restore,
    Walk {
        path: Path,
        component: u8,
        shape: Shape,
        walk: Walk,
        k: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let pick = || (any::<usize>(), 0u8..3);
    let walk = (
        select(vec![
            Path::WorldMut,
            Path::WorldRef,
            Path::Snapshot,
            Path::System,
        ]),
        0u8..3,
        select(Shape::ALL.to_vec()),
        select(Walk::ALL.to_vec()),
        prop_oneof![3 => 0usize..5, 1 => 0usize..44],
    )
        .prop_map(|(path, component, shape, walk, k)| Op::Walk {
            path,
            component,
            shape,
            walk,
            k,
        });
    prop_oneof![
        6 => (0u8..8).prop_map(Op::Spawn),
        3 => (0u8..4, 1usize..9).prop_map(|(m, n)| Op::SpawnBatch(m, n)),
        2 => pick().prop_map(|(i, c)| Op::Insert(i, c)),
        1 => pick().prop_map(|(i, c)| Op::Remove(i, c)),
        1 => pick().prop_map(|(i, c)| Op::Delete(i, c)),
        1 => pick().prop_map(|(i, c)| Op::GetMut(i, c)),
        1 => any::<usize>().prop_map(Op::Despawn),
        1 => Just(Op::Settle),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Restore),
        10 => walk,
    ]
}

/// At most this many live entities (spawns beyond it are skipped).
const MAX_ENTITIES: usize = 40;

struct Run {
    world: World,
    model: Model,
    saved: Option<(Snapshot, Model)>,
    /// The next fresh value for a spawn or insert.
    fresh: u32,
}

impl Run {
    fn fresh(&mut self) -> u32 {
        self.fresh += 1;
        self.fresh
    }

    fn pick(&self, i: usize) -> Option<Entity> {
        let n = self.model.alive.len();
        (n > 0).then(|| *self.model.alive.values().nth(i % n).expect("in range"))
    }

    fn spawned(&mut self, e: Entity, mask: u8, v: u32) -> Result<(), TestCaseError> {
        prop_assert!(
            !self.model.alive.contains_key(&e.slot()),
            "{} reuses a live slot",
            e
        );
        self.model.alive.insert(e.slot(), e);
        for (bit, index, value) in [(1, A::INDEX, v), (2, Name::INDEX, v), (4, Tag::INDEX, 0)] {
            if mask & bit != 0 {
                self.model.set(index, e, value);
            }
        }
        Ok(())
    }

    fn apply(&mut self, op: &Op, base: u32) -> Result<(), TestCaseError> {
        match *op {
            Op::Spawn(mask) if self.model.alive.len() < MAX_ENTITIES => {
                let v = self.fresh();
                let (a, s) = (A(v), Name(v.to_string()));
                let w = &mut self.world;
                let e = match mask & 7 {
                    0 => w.spawn(),
                    1 => w.spawn_with((a,)),
                    2 => w.spawn_with((s,)),
                    3 => w.spawn_with((s, a)),
                    4 => w.spawn_with((Tag,)),
                    5 => w.spawn_with((a, Tag)),
                    6 => w.spawn_with((Tag, s)),
                    _ => w.spawn_with((a, Tag, s)),
                };
                self.spawned(e, mask & 7, v)
            }
            Op::SpawnBatch(shape, n) if self.model.alive.len() + n <= MAX_ENTITIES => {
                let vs: Vec<u32> = (0..n).map(|_| self.fresh()).collect();
                let w = &mut self.world;
                let s = |v: &u32| Name(v.to_string());
                let (mask, es) = match shape {
                    0 => (1, w.spawn_batch(vs.iter().map(|&v| (A(v),)))),
                    1 => (3, w.spawn_batch(vs.iter().map(|v| (A(*v), s(v))))),
                    2 => (5, w.spawn_batch(vs.iter().map(|&v| (Tag, A(v))))),
                    _ => (6, w.spawn_batch(vs.iter().map(|v| (s(v), Tag)))),
                };
                prop_assert_eq!(es.len(), n);
                for (e, v) in es.into_iter().zip(vs) {
                    self.spawned(e, mask, v)?;
                }
                Ok(())
            }
            Op::Insert(i, c) | Op::Remove(i, c) | Op::Delete(i, c) | Op::GetMut(i, c) => {
                let Some(e) = self.pick(i) else {
                    return Ok(());
                };
                match c {
                    0 => self.change::<A>(op, e, base),
                    1 => self.change::<Name>(op, e, base),
                    _ => self.change::<Tag>(op, e, base),
                }
            }
            Op::Despawn(i) => {
                let Some(e) = self.pick(i) else {
                    return Ok(());
                };
                prop_assert_eq!(self.world.despawn(e), Ok(()));
                self.model.alive.remove(&e.slot());
                for col in &mut self.model.cols {
                    col.remove(&e.slot());
                }
                Ok(())
            }
            Op::Settle => {
                self.world.settle();
                Ok(())
            }
            Op::Checkpoint => {
                self.model.since = self.world.change_checkpoint();
                for col in &mut self.model.cols {
                    col.values_mut().for_each(|c| c.changed = false);
                }
                Ok(())
            }
            Op::Snapshot => {
                let snapshot = self
                    .world
                    .snapshot()
                    .expect("every type can be snapshotted");
                self.saved = Some((snapshot, self.model.clone()));
                Ok(())
            }
            Op::Restore => {
                if let Some((snapshot, model)) = &self.saved {
                    self.world.restore(snapshot);
                    self.model = model.clone();
                }
                Ok(())
            }
            Op::Walk {
                path,
                component,
                shape,
                walk,
                k,
            } => match component {
                0 => self.walk::<A>(path, shape, walk, k, base),
                1 => self.walk::<Name>(path, shape, walk, k, base),
                _ => self.walk::<Tag>(path, shape, walk, k, base),
            },
            Op::Spawn(_) | Op::SpawnBatch(..) => Ok(()),
        }
    }

    /// Insert, remove, delete or `get_mut` of `e`'s `T`.
    fn change<T: Comp>(&mut self, op: &Op, e: Entity, base: u32) -> Result<(), TestCaseError> {
        let held = self.model.cols[T::INDEX].get(&e.slot()).map(|c| c.value);
        match op {
            Op::Insert(..) => {
                let v = self.fresh();
                let old = self.world.insert(e, T::make(v)).expect("alive");
                prop_assert_eq!(old.map(|o| o.value()), held, "insert's replaced value");
                self.model.set(T::INDEX, e, T::make(v).value());
            }
            Op::Remove(..) => {
                let old = self.world.remove::<T>(e).expect("alive");
                prop_assert_eq!(old.map(|o| o.value()), held, "removed value");
                self.model.cols[T::INDEX].remove(&e.slot());
            }
            Op::Delete(..) => {
                let had = self.world.delete::<T>(e).expect("alive");
                prop_assert_eq!(had, held.is_some(), "delete");
                self.model.cols[T::INDEX].remove(&e.slot());
            }
            _ => {
                let got = self.world.get_mut::<T>(e);
                prop_assert_eq!(got.is_some(), held.is_some(), "get_mut");
                if let (Some(value), Some(old)) = (got, held) {
                    value.write(base);
                    self.model.set(T::INDEX, e, T::make(mix(old, base)).value());
                }
            }
        }
        Ok(())
    }

    fn walk<T: Comp>(
        &mut self,
        path: Path,
        shape: Shape,
        walk: Walk,
        k: usize,
        base: u32,
    ) -> Result<(), TestCaseError> {
        let settled = |w: &World| w.store::<T>().is_none_or(|s| s.is_settled());
        match path {
            Path::WorldMut => {
                let d = walk_world_mut::<T>(&mut self.world, shape, walk, k, base);
                record::<T>(&mut self.model, &self.world, &d, walk, k, base, true)
            }
            Path::WorldRef => {
                let one_run = settled(&self.world);
                let d = walk_world_ref::<T>(&self.world, shape, walk, k, base);
                record::<T>(&mut self.model, &self.world, &d, walk, k, base, one_run)
            }
            Path::Snapshot => {
                let Some((snapshot, model)) = &self.saved else {
                    return Ok(());
                };
                let (world, mut model) = (snapshot.world(), model.clone());
                let d = walk_world_ref::<T>(world, shape, walk, k, base);
                record::<T>(&mut model, world, &d, walk, k, base, settled(world))
            }
            Path::System => {
                self.world.insert_resource(Job {
                    shape,
                    walk,
                    k,
                    base,
                    out: None,
                });
                let report = T::run_system(&mut self.world, shape);
                prop_assert!(report.is_clean(), "{:?}", report);
                let job = self.world.remove_resource::<Job>().expect("the job");
                let d = job.out.expect("the system ran");
                record::<T>(&mut self.model, &self.world, &d, walk, k, base, true)
            }
        }
    }
}

fn run_ops(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut world = World::new();
    let since = world.change_checkpoint();
    let model = Model {
        since,
        alive: BTreeMap::new(),
        cols: Default::default(),
    };
    let mut run = Run {
        world,
        model,
        saved: None,
        fresh: 0,
    };
    for (step, op) in ops.iter().enumerate() {
        let base = (step as u32 + 1) << 16;
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step}, {op:?}: {e}"));
        run.apply(op, base).map_err(at)?;
        check(&run.world, &run.model).map_err(at)?;
        if let Some((snapshot, model)) = &run.saved {
            check(snapshot.world(), model)
                .map_err(|e| at(TestCaseError::fail(format!("the snapshot: {e}"))))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::cases(48),
        max_shrink_iters: crate::shrink_iters(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn one_store_walks_match_the_oracle(ops in proptest::collection::vec(op(), 1..=60)) {
        run_ops(&ops)?;
    }
}
