//! The scheduler's determinism contract, checked on random schedules, plus the ordering audit.
//!
//! * `random_schedules_are_deterministic` (proptest) — up to 8 hand-written systems whose
//!   reads, writes, `after` edges, `Commands` use, strides and declaration order are all random,
//!   over a random world. After every one of 6 ticks the world checksum, and every `RunReport`
//!   (`ran` lists and command reports), must be identical on 1, 2, 4 and 8 threads and on a
//!   repeated run. Systems also get random run conditions (`run_if`, one of four `#[condition]`s
//!   over the values of `C0..C3`, maybe under `not`, maybe two under `and`/`or`), so `skipped`
//!   lists vary by tick and are compared too. Schedules are built with `inline_below(0)`, so every batch of two or more due
//!   systems really runs on the pool; each case checks that workers did run systems whenever the
//!   plan has such a batch.
//! * `comparison_detects_thread_dependent_systems` — the comparison is not vacuous: a system
//!   that reads an input outside the world (whether it runs on a worker thread) gives different
//!   checksums on 1 thread and on N.
//! * `audit_*` — `ScheduleBuilder::audit_order` flags two conflicting, order-dependent systems
//!   with no `after` between them, and is clean once `after` fixes their order, for systems with
//!   disjoint writes, and for conflicting systems whose effects commute.

use std::any::TypeId;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::collection::vec;
use proptest::prelude::*;
use rota::condition::{RunIf, not};
use rota::rota_core::system::{
    Defers, Marker, SystemContext, SystemMarker, SystemParam, SystemRef,
};
use rota::rota_schedule::UnderConstrained;
use rota::{
    Commands, Component, Entity, Query, RunReport, Schedule, ScheduleBuilder, ScheduleError,
    StableHash, System, SystemDescriptor, World, condition, system,
};

// ---------------------------------------------------------------------------------------------
// Components

#[derive(Component, StableHash, Clone, Copy, Debug)]
struct C0(u64);

#[derive(Component, StableHash, Clone, Copy, Debug)]
struct C1(u64);

#[derive(Component, StableHash, Clone, Copy, Debug)]
struct C2(u64);

#[derive(Component, StableHash, Clone, Copy, Debug)]
struct C3(u64);

/// Every component type, in checksum order.
type All = (C0, C1, C2, C3);

/// Number of component types the random systems choose from.
const TYPES: usize = 4;

/// `C0`..`C3` by value, so per-type code is written once.
trait Val: Component + Copy {
    fn make(v: u64) -> Self;
    fn get(&self) -> u64;
    fn set(&mut self, v: u64);
}

macro_rules! impl_val {
    ($($t:ident),*) => {$(
        impl Val for $t {
            fn make(v: u64) -> Self {
                $t(v)
            }
            fn get(&self) -> u64 {
                self.0
            }
            fn set(&mut self, v: u64) {
                self.0 = v;
            }
        }
    )*};
}
impl_val!(C0, C1, C2, C3);

/// Runs `$body` with the type alias `$T` naming component `C{$idx}` (a runtime index).
macro_rules! with_type {
    ($idx:expr, $T:ident => $body:expr) => {
        match $idx {
            0 => {
                type $T = C0;
                $body
            }
            1 => {
                type $T = C1;
                $body
            }
            2 => {
                type $T = C2;
                $body
            }
            3 => {
                type $T = C3;
                $body
            }
            other => panic!("component index {other} out of range"),
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Random systems, implemented by hand

/// Most systems in one random schedule (one const id each).
const MAX_SYSTEMS: usize = 8;

const NAMES: [&str; MAX_SYSTEMS] = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];

/// Runs `$body` with the `const $N: usize` equal to the runtime id `$id` (0..8), so
/// `RandomSystem::<$N>` can be named.
macro_rules! with_id {
    ($id:expr, $N:ident => $body:expr) => {
        match $id {
            0 => {
                const $N: usize = 0;
                $body
            }
            1 => {
                const $N: usize = 1;
                $body
            }
            2 => {
                const $N: usize = 2;
                $body
            }
            3 => {
                const $N: usize = 3;
                $body
            }
            4 => {
                const $N: usize = 4;
                $body
            }
            5 => {
                const $N: usize = 5;
                $body
            }
            6 => {
                const $N: usize = 6;
                $body
            }
            7 => {
                const $N: usize = 7;
                $body
            }
            other => panic!("system id {other} out of range"),
        }
    };
}

/// What a random system declares (indices into `C0..C3`, ids of other random systems).
#[derive(Clone, Debug, Default)]
struct Config {
    reads: Vec<usize>,
    writes: Vec<usize>,
    after: Vec<usize>,
    commands: bool,
}

/// A system configured at run time; distinct `ID`s are distinct types, hence distinct
/// `TypeId`s, which is how the schedule tells systems apart.
struct RandomSystem<const ID: usize> {
    config: Config,
}

/// Only the type matters: `builder.every_ticks(marker::<ID>, n)`, `builder.after(..)`.
fn marker<const ID: usize>() -> RandomSystem<ID> {
    unreachable!("marker systems are never constructed")
}

/// Systems that ran on a scheduler worker thread (only `RandomSystem` counts here).
static WORKER_RUNS: AtomicUsize = AtomicUsize::new(0);

fn on_worker_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with("rota-worker-"))
}

/// The value of one declared, read-only component of an entity, if it has one.
type Reader<'w> = Box<dyn Fn(Entity) -> Option<u64> + 'w>;

/// The marker these hand-written systems fetch their parameters for: it lets their `Commands`
/// compile for any component, and the descriptor each system is scheduled by decides at run
/// time (`Commands` refuses a component the descriptor does not declare).
struct HandMarker;
impl Marker for HandMarker {}
impl SystemMarker for HandMarker {}
impl<T: ?Sized> Defers<T> for HandMarker {}

/// Fetches a parameter by hand, as `#[system]`'s generated code would. `fetch` wants the state
/// borrowed for the context's whole lifetime `'w`, which a temporary is not; the state (a query's
/// access list, a few bytes) is leaked, which is fine for a test.
fn fetch<'w, P: SystemParam>(context: &mut SystemContext<'w>) -> P::Item<'w, HandMarker> {
    P::fetch::<HandMarker>(context, Box::leak(Box::new(P::init_state())))
}

fn reader<'w>(context: &mut SystemContext<'w>, index: usize) -> Reader<'w> {
    with_type!(index, T => {
        let q = fetch::<Query<'static, &'static T>>(context);
        Box::new(move |e| q.get(e).ok().map(Val::get))
    })
}

/// Multiplier of the per-entity step (Knuth's MMIX LCG).
const MUL: u64 = 6364136223846793005;

/// `v = (v * MUL + salt) ^ sum(declared reads)` for every `W`; returns the new values in visit
/// order.
fn update<W: Val>(
    context: &mut SystemContext<'_>,
    salt: u64,
    reads: &[Reader<'_>],
) -> Vec<(Entity, u64)> {
    let mut q = fetch::<Query<'static, (Entity, &'static mut W)>>(context);
    let mut out = Vec::new();
    for (e, w) in &mut q {
        let mix = reads
            .iter()
            .filter_map(|r| r(e))
            .fold(0u64, u64::wrapping_add);
        let v = w.get().wrapping_mul(MUL).wrapping_add(salt) ^ mix;
        w.set(v);
        out.push((e, v));
    }
    out
}

/// `(entity, value)` of every `T`, for a system that only reads.
fn scan<T: Val>(context: &mut SystemContext<'_>) -> Vec<(Entity, u64)> {
    let q = fetch::<Query<'static, (Entity, &'static T)>>(context);
    q.iter().map(|(e, v)| (e, v.get())).collect()
}

/// Hand-written systems are sealed off from users; this test reaches the seal through
/// `rota::__private` (not an API) because its systems are configured at run time.
impl<const ID: usize> rota::__private::SystemSeal for RandomSystem<ID> {}

impl<const ID: usize> System for RandomSystem<ID> {
    const NAME: &'static str = NAMES[ID];
    /// How many times this system ran (feeds the values it spawns).
    type State = u64;

    fn descriptor(&self) -> SystemDescriptor {
        let c = &self.config;
        let mut d = SystemDescriptor::new(Self::NAME, TypeId::of::<Self>());
        for &r in &c.reads {
            d = with_type!(r, T => d.read::<T>());
        }
        for &w in &c.writes {
            d = with_type!(w, T => d.write::<T>());
        }
        for &j in &c.after {
            d = d.after(with_id!(j, J => SystemRef {
                id: TypeId::of::<RandomSystem<J>>(),
                name: NAMES[J],
            }));
        }
        if c.commands {
            d = d.uses_commands();
        }
        d
    }

    fn init_state(&self) -> u64 {
        0
    }

    fn run(&self, runs: &mut u64, mut context: SystemContext<'_>) {
        if on_worker_thread() {
            WORKER_RUNS.fetch_add(1, Ordering::Relaxed);
        }
        *runs += 1;
        let c = &self.config;
        let salt = ID as u64 + 1;
        // Only declared stores are in `context`: fetch exactly those.
        let readers: Vec<Reader<'_>> = c.reads.iter().map(|&r| reader(&mut context, r)).collect();
        let mut first: Option<Vec<(Entity, u64)>> = None;
        for &w in &c.writes {
            let values = with_type!(w, T => update::<T>(&mut context, salt, &readers));
            first.get_or_insert(values);
        }
        if !c.commands {
            return;
        }
        let values = match (first, c.reads.first()) {
            (Some(v), _) => v,
            (None, Some(&r)) => with_type!(r, T => scan::<T>(&mut context)),
            (None, None) => Vec::new(),
        };
        let mut commands = fetch::<Commands<'static, HandMarker>>(&mut context);
        for (e, v) in values {
            if v % 11 == 0 {
                commands.despawn(e);
                if v % 2 == 0 {
                    commands.despawn(e); // skipped and reported in the `ApplyReport`
                }
            } else if v % 7 == 0 {
                // Inserts and spawns only of declared writes (none: despawns only).
                if let Some(&w) = c.writes.last() {
                    with_type!(w, T => commands.insert(e, T::make(v / 7)));
                }
            }
        }
        if let Some(&w) = c.writes.first() {
            let v = salt.wrapping_mul(1000).wrapping_add(*runs);
            with_type!(w, T => commands.spawn((T::make(v),)));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Run conditions: whether the sum of one component's values is not a multiple of 3 (so each
// holds on some ticks and not on others as the systems change the values).

macro_rules! sum_conditions {
    ($($name:ident: $t:ident),*) => {$(
        #[condition(reads($t))]
        fn $name(q: Query<&$t>) -> bool {
            q.iter().fold(0u64, |a, v| a.wrapping_add(v.0)) % 3 != 0
        }
    )*};
}
sum_conditions!(sum_c0: C0, sum_c1: C1, sum_c2: C2, sum_c3: C3);

/// The condition over component `t`, negated if `negate`.
fn condition_for(t: usize, negate: bool) -> RunIf {
    let condition = match t {
        0 => RunIf::from_condition(sum_c0),
        1 => RunIf::from_condition(sum_c1),
        2 => RunIf::from_condition(sum_c2),
        _ => RunIf::from_condition(sum_c3),
    };
    if negate { not(condition) } else { condition }
}

/// A random condition tree: one or two leaves (`(type, negate)`), the second joined with `and`
/// (`true`) or `or`.
type ConditionSpec = ((usize, bool), Option<(bool, (usize, bool))>);

fn run_if_for(spec: &ConditionSpec) -> RunIf {
    let (first, second) = spec;
    let first = condition_for(first.0, first.1);
    match second {
        None => first,
        Some((true, (t, negate))) => first.and(condition_for(*t, *negate)),
        Some((false, (t, negate))) => first.or(condition_for(*t, *negate)),
    }
}

// ---------------------------------------------------------------------------------------------
// Random cases

/// One random system's declarations and stride.
#[derive(Clone, Debug)]
struct Spec {
    /// Per component type: 0 none, 1 read, 2 write (so reads and writes are disjoint).
    access: [u8; TYPES],
    /// Lower ids only, so `after` never closes a cycle.
    after: Vec<usize>,
    commands: bool,
    /// `builder.every_ticks(..)` override.
    stride: Option<u64>,
    /// `builder.run_if(..)`.
    condition: Option<ConditionSpec>,
}

impl Spec {
    fn config(&self) -> Config {
        let with = |k: u8| (0..TYPES).filter(|&t| self.access[t] == k).collect();
        Config {
            reads: with(1),
            writes: with(2),
            after: self.after.clone(),
            commands: self.commands,
        }
    }
}

/// One initial entity: which of `C0..C3` it has, their values, whether it is despawned after
/// the whole world is spawned (leaving free slots for reservations to reuse).
type EntitySpec = (u8, [u64; TYPES], bool);

#[derive(Clone, Debug)]
struct Case {
    /// Indexed by system id.
    systems: Vec<Spec>,
    /// Ids in the order they are added to the builder.
    declare: Vec<usize>,
    /// `builder.after(system, before)` pairs (before < system).
    extra_after: Vec<(usize, usize)>,
    entities: Vec<EntitySpec>,
}

const TICKS: u64 = 6;
const THREADS: [usize; 6] = [1, 2, 4, 8, 1, 8];

fn spec(id: usize) -> impl Strategy<Value = Spec> {
    (
        prop::array::uniform4(prop_oneof![4 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8)]),
        vec(prop::bool::weighted(0.15), id),
        prop::bool::weighted(0.25),
        prop_oneof![3 => Just(None), 2 => (1u64..=3).prop_map(Some)],
        prop::option::weighted(
            0.4,
            (
                (0..TYPES, any::<bool>()),
                prop::option::of((any::<bool>(), (0..TYPES, any::<bool>()))),
            ),
        ),
    )
        .prop_map(|(access, mask, commands, stride, condition)| Spec {
            access,
            after: (0..mask.len()).filter(|&j| mask[j]).collect(),
            commands,
            stride,
            condition,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=MAX_SYSTEMS)
        .prop_flat_map(|n| {
            (
                (0..n).map(spec).collect::<Vec<_>>(),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                vec((0..n, 0..n), 0..3),
                vec(
                    (
                        0u8..16,
                        prop::array::uniform4(any::<u64>()),
                        prop::bool::weighted(0.1),
                    ),
                    50..=300,
                ),
            )
        })
        .prop_map(|(systems, declare, pairs, entities)| Case {
            systems,
            declare,
            extra_after: pairs
                .into_iter()
                .filter(|(a, b)| a != b)
                .map(|(a, b)| (a.max(b), a.min(b)))
                .collect(),
            entities,
        })
}

fn builder_for(case: &Case, threads: usize) -> ScheduleBuilder {
    let mut b = Schedule::builder();
    for &id in &case.declare {
        let config = case.systems[id].config();
        b = with_id!(id, I => b.add(move || RandomSystem::<I> { config }));
    }
    for (id, s) in case.systems.iter().enumerate() {
        if let Some(n) = s.stride {
            b = with_id!(id, I => b.every_ticks(marker::<I>, n));
        }
        if let Some(condition) = &s.condition {
            b = with_id!(id, I => b.run_if(marker::<I>, run_if_for(condition)));
        }
    }
    for &(sys, before) in &case.extra_after {
        b = with_id!(sys, A => with_id!(before, B => b.after(marker::<A>, marker::<B>)));
    }
    b.threads(threads).inline_below(0)
}

fn world_for(case: &Case) -> World {
    let mut world = World::new();
    let mut dead = Vec::new();
    for &(mask, values, despawn) in &case.entities {
        let e = world.spawn();
        for (t, &v) in values.iter().enumerate() {
            if mask & (1 << t) != 0 {
                with_type!(t, T => {
                    world.insert(e, T::make(v)).expect("alive");
                });
            }
        }
        if despawn {
            dead.push(e);
        }
    }
    for e in dead {
        world.despawn(e).expect("alive");
    }
    world
}

/// Everything observable about a run; must not depend on the thread count.
#[derive(Debug, PartialEq)]
struct Outcome {
    order: Vec<&'static str>,
    batches: Vec<Vec<&'static str>>,
    reports: Vec<RunReport>,
    /// `checksum::<All>()` after each tick.
    checksums: Vec<u64>,
}

fn simulate(case: &Case, threads: usize) -> Result<Outcome, ScheduleError> {
    let mut schedule = builder_for(case, threads).build()?;
    let mut world = world_for(case);
    let mut reports = Vec::new();
    let mut checksums = Vec::new();
    for _ in 0..TICKS {
        reports.push(schedule.run(&mut world));
        checksums.push(world.checksum::<All>());
    }
    Ok(Outcome {
        order: schedule.order(),
        batches: schedule.batches(),
        reports,
        checksums,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(256), ..ProptestConfig::default() })]

    #[test]
    fn random_schedules_are_deterministic(case in case()) {
        let base = simulate(&case, 1).expect("acyclic by construction");
        prop_assert_eq!(base.reports.len(), TICKS as usize);
        // A batch in which two systems ran went to the pool (`inline_below(0)`).
        let parallel_batch = base
            .reports
            .iter()
            .any(|r| r.profile.batches.iter().any(|b| b.systems > 1));
        for threads in THREADS {
            let before = WORKER_RUNS.load(Ordering::Relaxed);
            let outcome = simulate(&case, threads).expect("acyclic by construction");
            let worker_runs = WORKER_RUNS.load(Ordering::Relaxed) - before;
            prop_assert_eq!(&outcome, &base, "threads = {}", threads);
            if threads > 1 && parallel_batch {
                prop_assert!(worker_runs > 0, "threads = {}: no system ran on a worker", threads);
            }
            if threads == 1 {
                prop_assert_eq!(worker_runs, 0);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The comparison can fail

/// Reads an input the scheduler cannot see (like `rayon::current_thread_index()`): whether it
/// runs on a pool worker. Wrong on purpose.
#[system(writes(C0))]
fn thread_aware_a(mut q: Query<&mut C0>) {
    let bit = u64::from(on_worker_thread());
    for c in &mut q {
        c.0 = c.0.wrapping_mul(31).wrapping_add(bit);
    }
}

/// As `thread_aware_a`, on `C1`: disjoint, so both share a batch.
#[system(writes(C1))]
fn thread_aware_b(mut q: Query<&mut C1>) {
    let bit = u64::from(on_worker_thread());
    for c in &mut q {
        c.0 = c.0.wrapping_mul(31).wrapping_add(bit);
    }
}

fn thread_aware_checksum(threads: usize, inline_below: Option<usize>) -> u64 {
    let mut b = Schedule::builder()
        .add(thread_aware_a)
        .add(thread_aware_b)
        .threads(threads);
    if let Some(work) = inline_below {
        b = b.inline_below(work);
    }
    let mut schedule = b.build().expect("valid schedule");
    assert_eq!(schedule.batches(), [["thread_aware_a", "thread_aware_b"]]);
    let mut world = World::new();
    for i in 0..20 {
        world.spawn_with((C0(i), C1(i)));
    }
    for _ in 0..TICKS {
        let _ = schedule.run(&mut world);
    }
    world.checksum::<All>()
}

#[test]
fn comparison_detects_thread_dependent_systems() {
    let one = thread_aware_checksum(1, Some(0));
    for threads in [2, 4, 8] {
        // The calling thread runs the batch's first system, a worker the second.
        let many = thread_aware_checksum(threads, Some(0));
        assert_ne!(one, many, "threads = {threads}");
        assert_eq!(many, thread_aware_checksum(threads, Some(0)));
        // With the default threshold this small batch runs inline: the same as one thread,
        // which is why the property builds its schedules with `inline_below(0)`.
        assert_eq!(
            one,
            thread_aware_checksum(threads, None),
            "threads = {threads}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Ordering audit

#[system(writes(C0))]
fn double(mut q: Query<&mut C0>) {
    for c in &mut q {
        c.0 = c.0.wrapping_mul(2);
    }
}

#[system(writes(C0))]
fn increment(mut q: Query<&mut C0>) {
    for c in &mut q {
        c.0 = c.0.wrapping_add(1);
    }
}

/// Commutes with `increment`.
#[system(writes(C0))]
fn add_three(mut q: Query<&mut C0>) {
    for c in &mut q {
        c.0 = c.0.wrapping_add(3);
    }
}

#[system(writes(C1))]
fn square_c1(mut q: Query<&mut C1>) {
    for c in &mut q {
        c.0 = c.0.wrapping_mul(c.0);
    }
}

#[system(reads(C0), writes(C2))]
fn copy_c0_to_c2(mut q: Query<(&C0, &mut C2)>) {
    for (a, c) in &mut q {
        c.0 = c.0.wrapping_add(a.0);
    }
}

fn audit_world() -> World {
    let mut world = World::new();
    for i in 0..10 {
        world.spawn_with((C0(i), C1(i + 2), C2(0)));
    }
    world
}

const AUDIT_SEEDS: std::ops::Range<u64> = 0..16;

#[test]
fn audit_flags_order_dependent_conflict() {
    let build = || Schedule::builder().add(double).add(increment);
    let expected = [UnderConstrained {
        first: "double",
        second: "increment",
        conflict: "C0",
    }];
    let mut flagged = 0;
    for seed in AUDIT_SEEDS {
        let report =
            ScheduleBuilder::audit_order(build, audit_world, 3, seed, |w| w.checksum::<All>())
                .expect("valid schedule");
        // Whenever the shuffle reversed the pair, the audit must name it.
        if report.shuffled_order == ["increment", "double"] {
            assert!(!report.is_clean(), "seed {seed}: {report:?}");
            assert_ne!(report.planned, report.shuffled, "seed {seed}");
            assert_eq!(report.under_constrained, expected, "seed {seed}");
            flagged += 1;
        } else {
            assert_eq!(
                report.shuffled_order,
                ["double", "increment"],
                "seed {seed}"
            );
        }
    }
    assert!(flagged > 0, "no seed in {AUDIT_SEEDS:?} reversed the pair");
}

#[test]
fn audit_flags_order_dependent_conflict_for_every_seed() {
    let build = || Schedule::builder().add(double).add(increment);
    for seed in AUDIT_SEEDS {
        let report =
            ScheduleBuilder::audit_order(build, audit_world, 3, seed, |w| w.checksum::<All>())
                .expect("valid schedule");
        assert!(!report.is_clean(), "seed {seed}: {report:?}");
    }
}

#[test]
fn audit_is_clean_once_after_fixes_the_order() {
    let build = || {
        Schedule::builder()
            .add(double)
            .add(increment)
            .after(increment, double)
    };
    let reversed = || {
        Schedule::builder()
            .add(increment)
            .add(double)
            .after(increment, double)
    };
    for seed in AUDIT_SEEDS {
        for b in [&build as &dyn Fn() -> ScheduleBuilder, &reversed] {
            let report =
                ScheduleBuilder::audit_order(b, audit_world, 3, seed, |w| w.checksum::<All>())
                    .expect("valid schedule");
            assert!(report.is_clean(), "seed {seed}: {report:?}");
            assert_eq!(report.shuffled_order, ["double", "increment"]);
        }
    }
}

#[test]
fn audit_is_clean_for_order_independent_systems() {
    // Disjoint writes (and a reader of C0 ordered by `after`): no conflict left to declaration
    // order that changes anything.
    let disjoint = || {
        Schedule::builder()
            .add(double)
            .add(square_c1)
            .add(copy_c0_to_c2)
            .after(copy_c0_to_c2, double)
    };
    // Conflicting on C0, but `+1` and `+3` commute.
    let commuting = || Schedule::builder().add(increment).add(add_three);
    for seed in AUDIT_SEEDS {
        for b in [&disjoint as &dyn Fn() -> ScheduleBuilder, &commuting] {
            let report =
                ScheduleBuilder::audit_order(b, audit_world, 3, seed, |w| w.checksum::<All>())
                    .expect("valid schedule");
            assert!(report.is_clean(), "seed {seed}: {report:?}");
            assert!(report.under_constrained.is_empty());
        }
    }
}
