//! `World::snapshot` and `World::restore` of 100k entities with 4 components, against a plain
//! `Vec` clone of the same data (the entity handles and the four value columns).
//!
//! Run: `cargo bench --bench snapshot`. The first benchmark, `snapshot/interleaved`, times the
//! five operations round-robin (snapshot, vec clone, restore, vec clone_from, snapshot_into;
//! 41 rounds, the first operation rotating; a dropped copy's free is inside its time) so
//! that machine noise hits them alike, and prints the medians and the ratios that
//! `docs/benchmarks.md` quotes; the criterion benchmarks after it time each one on its own.
//!
//! Snapshots share the world's columns (copy-on-write), so a snapshot's cost is deferred to
//! the first write of each column after it. Two more round-robin benchmarks measure that:
//!
//! * `snapshot/deferred`: a frame writing k of the 4 components (k = 1, 2, 4) alone, and
//!   snapshot + the same frame + dropping the snapshot; the difference is what the snapshot
//!   really cost, compared with a plain `Vec` clone.
//! * `snapshot/window`: a rollback window of 8 frames — save (`snapshot_into` a ring of 8) and
//!   simulate 8 frames, restore the save from 7 frames back, re-simulate those 7 frames (saving
//!   again) — against the same loop on plain `Vec`s (`clone_from` saves and loads).
//!
//! `cargo bench --bench snapshot -- <name>` runs only the round-robin benchmark(s) whose name
//! contains `<name>` (and the criterion benchmarks matching it).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rota::{Component, Entity, World};

const N: usize = 100_000;

#[derive(Component, Clone, Copy)]
#[allow(dead_code)] // the values are only copied
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
#[allow(dead_code)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
#[allow(dead_code)]
struct Health(u32);
#[derive(Component, Clone, Copy)]
#[allow(dead_code)]
struct Seed(u64);

/// The same data as a plain struct of `Vec`s: what a hand-rolled game state would clone.
#[derive(Clone)]
struct Plain {
    entities: Vec<Entity>,
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
    health: Vec<Health>,
    seeds: Vec<Seed>,
}

fn world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|i| {
        let f = i as f32;
        (
            Position([f, f, f]),
            Velocity([1.0, 0.5, f]),
            Health(i as u32),
            Seed(i as u64 * 7),
        )
    }));
    // Some churn, then settle, as a game world at a frame boundary would be.
    let victims: Vec<Entity> = world.entities().iter().step_by(10).collect();
    world.despawn_batch(victims);
    world.spawn_batch((0..N / 10).map(|i| {
        (
            Position([0.0; 3]),
            Velocity([0.0; 3]),
            Health(i as u32),
            Seed(0),
        )
    }));
    world.settle();
    world
}

fn plain(world: &World) -> Plain {
    Plain {
        entities: world.entities().iter().collect(),
        positions: world.query::<&Position>().copied().collect(),
        velocities: world.query::<&Velocity>().copied().collect(),
        health: world.query::<&Health>().copied().collect(),
        seeds: world.query::<&Seed>().copied().collect(),
    }
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// Whether the command line's filter (criterion's positional argument) selects `name`; no
/// filter selects everything.
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

/// Rounds of a round-robin benchmark: 41 under `cargo bench`, one under `cargo test`.
fn rounds() -> usize {
    if std::env::args().any(|a| a == "--bench") {
        41
    } else {
        1
    }
}

/// One simulation frame writing the first `k` components (Position, Velocity, Health, Seed).
fn frame(world: &mut World, k: usize) {
    world
        .query_mut::<(&mut Position, &Velocity)>()
        .for_each(|(p, v)| {
            p.0[0] += v.0[0];
            p.0[1] += v.0[1];
            p.0[2] += v.0[2];
        });
    if k >= 2 {
        world
            .query_mut::<&mut Velocity>()
            .for_each(|v| v.0[1] *= 0.99);
    }
    if k >= 3 {
        world
            .query_mut::<&mut Health>()
            .for_each(|h| h.0 = h.0.wrapping_sub(1));
    }
    if k >= 4 {
        world
            .query_mut::<&mut Seed>()
            .for_each(|s| s.0 = s.0.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
}

/// The same frame on the plain columns.
fn plain_frame(data: &mut Plain, k: usize) {
    for (p, v) in data.positions.iter_mut().zip(&data.velocities) {
        p.0[0] += v.0[0];
        p.0[1] += v.0[1];
        p.0[2] += v.0[2];
    }
    if k >= 2 {
        data.velocities.iter_mut().for_each(|v| v.0[1] *= 0.99);
    }
    if k >= 3 {
        data.health
            .iter_mut()
            .for_each(|h| h.0 = h.0.wrapping_sub(1));
    }
    if k >= 4 {
        data.seeds
            .iter_mut()
            .for_each(|s| s.0 = s.0.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
}

/// Snapshot + one frame writing k components, against the frame alone and a `Vec` clone.
fn deferred(_: &mut Criterion) {
    if !selected("snapshot/deferred") {
        return;
    }
    let rounds = rounds();
    let mut world = world();
    let data = plain(&world);
    for k in [1, 2, 4] {
        // 0: frame alone, 1: snapshot + frame (+ drop), 2: Vec clone (+ drop).
        let mut times: [Vec<Duration>; 3] = Default::default();
        for round in 0..rounds {
            for j in 0..3 {
                let op = (round + j) % 3;
                let t = Instant::now();
                match op {
                    0 => frame(&mut world, k),
                    1 => {
                        let saved = world.snapshot().expect("Clone");
                        frame(&mut world, k);
                        drop(black_box(saved));
                    }
                    _ => drop(black_box(data.clone())),
                }
                times[op].push(t.elapsed());
            }
        }
        let [alone, with_snapshot, clone] = times.map(median);
        let cost = with_snapshot.saturating_sub(alone);
        println!(
            "snapshot/deferred k={k} ({rounds} rounds, medians): frame {alone:.2?}; snapshot + \
             frame {with_snapshot:.2?}; the snapshot's cost {cost:.2?} vs Vec clone {clone:.2?} \
             = {:.2}x",
            cost.as_secs_f64() / clone.as_secs_f64()
        );
    }
}

/// A rollback window of 8 frames (see the module docs), rota against plain `Vec`s.
fn window(_: &mut Criterion) {
    if !selected("snapshot/window") {
        return;
    }
    let rounds = rounds();
    let mut world = world();
    let mut data = plain(&world);
    let mut ring: Vec<_> = (0..8).map(|_| world.snapshot().expect("Clone")).collect();
    let mut plain_ring: Vec<Plain> = (0..8).map(|_| data.clone()).collect();
    for k in [1, 2, 4] {
        let mut times: [Vec<Duration>; 2] = Default::default();
        for round in 0..rounds {
            for j in 0..2 {
                let op = (round + j) % 2;
                let t = Instant::now();
                if op == 0 {
                    for (f, saved) in ring.iter_mut().enumerate() {
                        world.snapshot_into(saved).expect("Clone");
                        black_box(f);
                        frame(&mut world, k);
                    }
                    world.restore(&ring[1]);
                    for saved in &mut ring[1..] {
                        world.snapshot_into(saved).expect("Clone");
                        frame(&mut world, k);
                    }
                } else {
                    for saved in plain_ring.iter_mut() {
                        saved.clone_into_reusing(&data);
                        plain_frame(&mut data, k);
                    }
                    data.clone_into_reusing(&plain_ring[1]);
                    for saved in &mut plain_ring[1..] {
                        saved.clone_into_reusing(&data);
                        plain_frame(&mut data, k);
                    }
                }
                times[op].push(t.elapsed());
            }
        }
        let [rota, plain] = times.map(median);
        println!(
            "snapshot/window k={k} ({rounds} rounds, medians; 15 saves, 15 frames, 1 restore): \
             rota {rota:.2?} vs plain Vecs {plain:.2?} = {:.2}x",
            rota.as_secs_f64() / plain.as_secs_f64()
        );
    }
}

/// Round-robin timing of the four operations; prints medians and ratios.
fn interleaved(_: &mut Criterion) {
    if !selected("snapshot/interleaved") {
        return;
    }
    // Under `cargo test` (no `--bench`), one round only proves it runs.
    let rounds = rounds();
    let mut world = world();
    let data = plain(&world);
    let mut plain_target = data.clone();
    let saved = world.snapshot().expect("every component is Clone");
    let mut reused = world.snapshot().expect("Clone");
    let mut times: [Vec<Duration>; 5] = Default::default();
    for round in 0..rounds {
        // Rotate which operation goes first, so none always runs on the caches (or the
        // freshly freed memory) another one left behind.
        for k in 0..5 {
            let op = (round + k) % 5;
            let t = Instant::now();
            match op {
                0 => drop(black_box(world.snapshot().expect("Clone"))),
                1 => drop(black_box(data.clone())),
                2 => world.restore(black_box(&saved)),
                3 => plain_target.clone_into_reusing(black_box(&data)),
                _ => world.snapshot_into(black_box(&mut reused)).expect("Clone"),
            }
            times[op].push(t.elapsed());
        }
        black_box(&plain_target);
    }
    let [snapshot, clone, restore, clone_from, into] = times.map(median);
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "snapshot/interleaved ({rounds} rounds, medians): snapshot {snapshot:.2?} vs Vec clone \
         {clone:.2?} = {:.2}x; restore {restore:.2?} vs Vec clone_from {clone_from:.2?} = {:.2}x; \
         snapshot_into {into:.2?} vs Vec clone_from = {:.2}x",
        ratio(snapshot, clone),
        ratio(restore, clone_from),
        ratio(into, clone_from),
    );
}

/// Types in a struct's clone_from use the derive's default (`*self = source.clone()`); a real
/// allocation-reusing copy for the baseline.
trait CloneInto {
    fn clone_into_reusing(&mut self, source: &Self);
}
impl CloneInto for Plain {
    fn clone_into_reusing(&mut self, source: &Self) {
        self.entities.clone_from(&source.entities);
        self.positions.clone_from(&source.positions);
        self.velocities.clone_from(&source.velocities);
        self.health.clone_from(&source.health);
        self.seeds.clone_from(&source.seeds);
    }
}

fn separate(c: &mut Criterion) {
    let mut world = world();
    let data = plain(&world);
    let saved = world.snapshot().expect("Clone");
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(30);
    group.bench_function("world_snapshot", |b| {
        b.iter_batched(
            || (),
            |()| world.snapshot().expect("Clone"),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("vec_clone", |b| {
        b.iter_batched(|| (), |()| data.clone(), BatchSize::PerIteration)
    });
    group.bench_function("world_restore", |b| {
        b.iter(|| world.restore(black_box(&saved)))
    });
    let mut target = data.clone();
    group.bench_function("vec_clone_from", |b| {
        b.iter(|| target.clone_into_reusing(black_box(&data)))
    });
    let mut reused = world.snapshot().expect("Clone");
    group.bench_function("world_snapshot_into", |b| {
        b.iter(|| world.snapshot_into(black_box(&mut reused)).expect("Clone"))
    });
    group.finish();
}

criterion_group!(benches, interleaved, deferred, window, separate);
criterion_main!(benches);
