//! The ecs_bench_suite `schedule` and `heavy_compute` workloads through rota's scheduler, and
//! `two_chains`: eight systems in two independent chains, 1 thread vs 2; `schedule` also runs
//! with one run condition per system (`threads_1_one_condition_each`), the cost of conditions.
//!
//! Run: `cargo bench --bench schedule`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::{Component, ParallelQuery, Query, Res, Resource, Schedule, World, condition, system};

/// What the benchmark's run condition reads: always on, so every system still runs.
#[derive(Resource, Copy, Clone)]
struct Switch(bool);

#[condition(reads(Switch))]
fn switched_on(switch: Res<Switch>) -> bool {
    switch.0
}

#[derive(Component, Copy, Clone)]
struct A(f32);
#[derive(Component, Copy, Clone)]
struct B(f32);
#[derive(Component, Copy, Clone)]
struct C(f32);
#[derive(Component, Copy, Clone)]
struct D(f32);
#[derive(Component, Copy, Clone)]
struct E(f32);

#[system(writes(A, B))]
fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (a, b) in &mut q {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

#[system(writes(C, D))]
fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (c, d) in &mut q {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

#[system(writes(C, E))]
fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (c, e) in &mut q {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

fn schedule_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    world
}

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    let mut world = schedule_world();
    group.bench_function("plain_sequential_loop", |b| {
        b.iter(|| {
            for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
                std::mem::swap(&mut a.0, &mut b.0);
            }
            for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
                std::mem::swap(&mut c.0, &mut d.0);
            }
            for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
                std::mem::swap(&mut c.0, &mut e.0);
            }
        })
    });
    for (name, threads, inline_below) in [
        ("threads_1", 1, rota::rota_schedule::DEFAULT_INLINE_BELOW),
        (
            "threads_2_default",
            2,
            rota::rota_schedule::DEFAULT_INLINE_BELOW,
        ),
        ("threads_2_always_parallel", 2, 0),
    ] {
        let mut s = Schedule::builder()
            .add(ab)
            .add(cd)
            .add(ce)
            .threads(threads)
            .inline_below(inline_below)
            .build()
            .expect("valid schedule");
        let mut world = schedule_world();
        group.bench_function(name, |b| b.iter(|| black_box(s.run(&mut world))));
    }
    let mut s = Schedule::builder()
        .add(ab)
        .add(cd)
        .add(ce)
        .run_if(ab, switched_on)
        .run_if(cd, switched_on)
        .run_if(ce, switched_on)
        .build()
        .expect("valid schedule");
    let mut world = schedule_world();
    world.insert_resource(Switch(true));
    group.bench_function("threads_1_one_condition_each", |b| {
        b.iter(|| black_box(s.run(&mut world)))
    });
    group.finish();
}

#[derive(Component, Copy, Clone)]
struct Transform([[f32; 4]; 4]);
#[derive(Component, Copy, Clone)]
struct Position([f32; 3]);
#[derive(Component, Copy, Clone)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Copy, Clone)]
struct Velocity(#[allow(dead_code)] [f32; 3]);

/// 4x4 inverse by cofactors; returns the input unchanged if it is singular.
fn invert(m: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let a: [f32; 16] = [
        m[0][0], m[0][1], m[0][2], m[0][3], m[1][0], m[1][1], m[1][2], m[1][3], m[2][0], m[2][1],
        m[2][2], m[2][3], m[3][0], m[3][1], m[3][2], m[3][3],
    ];
    let mut inv = [0.0f32; 16];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15]
        + a[9] * a[7] * a[14]
        + a[13] * a[6] * a[11]
        - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15]
        - a[8] * a[7] * a[14]
        - a[12] * a[6] * a[11]
        + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15]
        + a[8] * a[7] * a[13]
        + a[12] * a[5] * a[11]
        - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14]
        - a[8] * a[6] * a[13]
        - a[12] * a[5] * a[10]
        + a[12] * a[6] * a[9];
    let det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if det == 0.0 {
        return m;
    }
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15]
        - a[9] * a[3] * a[14]
        - a[13] * a[2] * a[11]
        + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15]
        + a[8] * a[3] * a[14]
        + a[12] * a[2] * a[11]
        - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15]
        - a[8] * a[3] * a[13]
        - a[12] * a[1] * a[11]
        + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14]
        + a[8] * a[2] * a[13]
        + a[12] * a[1] * a[10]
        - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15]
        + a[5] * a[3] * a[14]
        + a[13] * a[2] * a[7]
        - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15]
        - a[4] * a[3] * a[14]
        - a[12] * a[2] * a[7]
        + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15]
        + a[4] * a[3] * a[13]
        + a[12] * a[1] * a[7]
        - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14]
        - a[4] * a[2] * a[13]
        - a[12] * a[1] * a[6]
        + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11]
        - a[5] * a[3] * a[10]
        - a[9] * a[2] * a[7]
        + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11]
        + a[4] * a[3] * a[10]
        + a[8] * a[2] * a[7]
        - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11]
        - a[4] * a[3] * a[9]
        - a[8] * a[1] * a[7]
        + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10]
        + a[4] * a[2] * a[9]
        + a[8] * a[1] * a[6]
        - a[8] * a[2] * a[5];
    let r = 1.0 / det;
    let mut out = [[0.0; 4]; 4];
    for (i, v) in inv.iter().enumerate() {
        out[i / 4][i % 4] = v * r;
    }
    out
}

fn heavy(t: &mut Transform, p: &mut Position) {
    for _ in 0..100 {
        t.0 = invert(t.0);
    }
    let m = t.0;
    let v = p.0;
    p.0 = [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2] + m[0][3],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2] + m[1][3],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2] + m[2][3],
    ];
}

#[system(writes(Transform, Position))]
fn heavy_compute(mut q: Query<(&mut Transform, &mut Position)>) {
    q.par_for_each(|(t, p)| heavy(t, p));
}

fn heavy_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..1_000).map(|_| {
        (
            Transform([
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ]),
            Position([1.0, 0.0, 0.0]),
            Rotation([1.0, 0.0, 0.0]),
            Velocity([1.0, 0.0, 0.0]),
        )
    }));
    world
}

fn heavy_compute_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    let mut world = heavy_world();
    group.bench_function("sequential_loop", |b| {
        b.iter(|| {
            world
                .query_mut::<(&mut Transform, &mut Position)>()
                .for_each(|(t, p)| heavy(t, p))
        })
    });
    let mut world = heavy_world();
    group.bench_function("par_for_each_in_system", |b| {
        b.iter(|| black_box(world.run(heavy_compute)))
    });
    group.finish();
}

// Two independent chains of four systems each, over 100k entities: chain 1 touches only
// `Left`/`LeftRate`, chain 2 only `Right`/`RightRate`. Within a chain every system writes the same
// component, so each chain is serial; the chains are declared interleaved, so the plan is four
// batches of two systems, one from each chain — the shape that should scale to 2 threads.

#[derive(Component, Copy, Clone)]
struct Left(f32);
#[derive(Component, Copy, Clone)]
struct LeftRate(f32);
#[derive(Component, Copy, Clone)]
struct Right(f32);
#[derive(Component, Copy, Clone)]
struct RightRate(f32);

/// A few flops per entity, so a system is memory- and compute-bound like a real update.
#[inline]
fn step(x: f32, rate: f32, k: f32) -> f32 {
    (x * 0.999 + rate * k).sin() * 0.5 + x * 0.5
}

macro_rules! chain_system {
    ($name:ident, $value:ident, $rate:ident, $k:expr $(, after($prev:ident))?) => {
        #[system(reads($rate), writes($value) $(, after($prev))?)]
        fn $name(mut q: Query<(&mut $value, &$rate)>) {
            for (x, r) in &mut q {
                x.0 = step(x.0, r.0, $k);
            }
        }
    };
}

chain_system!(left_1, Left, LeftRate, 1.0);
chain_system!(left_2, Left, LeftRate, 2.0, after(left_1));
chain_system!(left_3, Left, LeftRate, 3.0, after(left_2));
chain_system!(left_4, Left, LeftRate, 4.0, after(left_3));
chain_system!(right_1, Right, RightRate, 1.0);
chain_system!(right_2, Right, RightRate, 2.0, after(right_1));
chain_system!(right_3, Right, RightRate, 3.0, after(right_2));
chain_system!(right_4, Right, RightRate, 4.0, after(right_3));

fn two_chains_schedule(threads: usize) -> Schedule {
    Schedule::builder()
        .add(left_1)
        .add(right_1)
        .add(left_2)
        .add(right_2)
        .add(left_3)
        .add(right_3)
        .add(left_4)
        .add(right_4)
        .threads(threads)
        .build()
        .expect("valid schedule")
}

fn two_chains_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..100_000).map(|i| {
        let f = i as f32 * 1e-5;
        (Left(f), LeftRate(1.0 - f), Right(-f), RightRate(f))
    }));
    world
}

fn two_chains(c: &mut Criterion) {
    let mut group = c.benchmark_group("two_chains");
    for threads in [1, 2] {
        let mut s = two_chains_schedule(threads);
        assert_eq!(s.batches().len(), 4);
        let mut world = two_chains_world();
        // One tick's profile, to see where the time goes (printed, never compared).
        let report = s.run(&mut world);
        eprintln!(
            "two_chains, {threads} thread(s), one tick:\n{}",
            report.profile
        );
        group.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| black_box(s.run(&mut world)))
        });
    }
    group.finish();
}

// The executor's own cost per batch: the two_chains plan (four batches of two) over a world of
// ten entities, so the systems do next to nothing. `threads_2_forced` hands every batch to the
// pool (`inline_below(0)`): its time over `threads_1`'s, divided by four, is the cost of one
// parallel hand-out (split, spawn, wake, join).

fn tiny_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| {
        let f = i as f32;
        (Left(f), LeftRate(f), Right(f), RightRate(f))
    }));
    world
}

fn executor_overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("executor_overhead");
    for (name, threads, inline_below) in [
        ("threads_1", 1, rota::rota_schedule::DEFAULT_INLINE_BELOW),
        (
            "threads_2_inline",
            2,
            rota::rota_schedule::DEFAULT_INLINE_BELOW,
        ),
        ("threads_2_forced", 2, 0),
    ] {
        let mut s = Schedule::builder()
            .add(left_1)
            .add(right_1)
            .add(left_2)
            .add(right_2)
            .add(left_3)
            .add(right_3)
            .add(left_4)
            .add(right_4)
            .threads(threads)
            .inline_below(inline_below)
            .build()
            .expect("valid schedule");
        let mut world = tiny_world();
        group.bench_function(name, |b| b.iter(|| black_box(s.run(&mut world))));
    }
    group.finish();
}

// `par_for_each` with a cheap closure (a few flops per entity, like the demo's `movement` and
// `metabolism`), 100k entities, one in ten with `RightRate` (an `Option` merged into the run):
// whether a second thread helps when the walk, not the closure, could be the bottleneck.

#[system(reads(LeftRate, RightRate), writes(Left))]
fn cheap_par(mut q: Query<(&mut Left, &LeftRate, Option<&RightRate>)>) {
    q.par_for_each(|(x, r, extra)| {
        x.0 = (x.0 + r.0 + extra.map_or(0.0, |e| e.0)).rem_euclid(512.0);
    });
}

fn cheap_par_world() -> World {
    let mut world = World::new();
    for i in 0..100_000 {
        let f = i as f32 * 1e-3;
        let e = world.spawn_with((Left(f), LeftRate(1.0 - f)));
        if i % 10 == 0 {
            world.insert(e, RightRate(f)).expect("alive");
        }
    }
    world
}

fn par_for_each_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("par_for_each");
    for threads in [1, 2] {
        let mut s = Schedule::builder()
            .add(cheap_par)
            .threads(threads)
            .build()
            .expect("valid schedule");
        let mut world = cheap_par_world();
        group.bench_function(format!("cheap/threads_{threads}"), |b| {
            b.iter(|| black_box(s.run(&mut world)))
        });
    }
    group.finish();
}

// A scattered walk, like the demo's `hunting`: 100k entities with `Left`, one in four (at
// pseudo-random slots) also `Hunter`, so `(Entity, &Left), With<Hunter>` joins in runs of one or
// two. Each match costs a few multiplies. The same walk three ways: `par_map_chunks` (one
// thread walks the join and hands out exact chunks), `par_map_segments` (each thread joins its
// own segments) and `par_for_each` over `&mut Left` (which cuts a scattered query into
// segments too).

#[derive(Component, Copy, Clone)]
struct Hunter;

fn mix(e: rota::Entity, x: f32) -> u64 {
    let mut h = e.to_bits() ^ u64::from(x.to_bits());
    for _ in 0..4 {
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    }
    h
}

#[system(reads(Left, Hunter))]
fn scattered_chunks(mut q: Query<(rota::Entity, &Left), rota::With<Hunter>>) {
    let parts: Vec<u64> =
        q.par_map_chunks(|chunk| chunk.map(|(e, x)| mix(e, x.0)).fold(0, |a, b| a ^ b));
    black_box(parts);
}

#[system(reads(Left, Hunter))]
fn scattered_segments(mut q: Query<(rota::Entity, &Left), rota::With<Hunter>>) {
    let parts: Vec<u64> =
        q.par_map_segments(|segment| segment.map(|(e, x)| mix(e, x.0)).fold(0, |a, b| a ^ b));
    black_box(parts);
}

#[system(reads(Hunter), writes(Left))]
fn scattered_each(mut q: Query<(rota::Entity, &mut Left), rota::With<Hunter>>) {
    q.par_for_each(|(e, x)| x.0 = (mix(e, x.0) >> 40) as f32);
}

fn scattered_world() -> World {
    let mut world = World::new();
    let mut state = 0x5EED_u64;
    for i in 0..100_000 {
        let e = world.spawn_with((Left(i as f32),));
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if (state >> 33).is_multiple_of(4) {
            world.insert(e, Hunter).expect("alive");
        }
    }
    world
}

fn one_system(system: impl rota::IntoSystem, threads: usize) -> Schedule {
    Schedule::builder()
        .add(system)
        .threads(threads)
        .build()
        .expect("valid schedule")
}

fn scattered_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("scattered");
    for threads in [1, 2] {
        for (name, mut s) in [
            ("chunks", one_system(scattered_chunks, threads)),
            ("segments", one_system(scattered_segments, threads)),
            ("for_each", one_system(scattered_each, threads)),
        ] {
            let mut world = scattered_world();
            group.bench_function(format!("{name}/threads_{threads}"), |b| {
                b.iter(|| black_box(s.run(&mut world)))
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    schedule,
    heavy_compute_bench,
    two_chains,
    executor_overhead,
    par_for_each_bench,
    scattered_bench
);
criterion_main!(benches);
