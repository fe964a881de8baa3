//! `World::snapshot` and `World::restore` of 100k entities with 4 components, against a plain
//! `Vec` clone of the same data (the entity handles and the four value columns).
//!
//! Run: `cargo bench --bench snapshot`. The first benchmark, `snapshot/interleaved`, times the
//! five operations round-robin (snapshot, vec clone, restore, vec clone_from, snapshot_into;
//! 41 rounds, the first operation rotating; a dropped copy's free is inside its time) so
//! that machine noise hits them alike, and prints the medians and the ratios that
//! `docs/benchmarks.md` quotes; the criterion benchmarks after it time each one on its own.

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

/// Round-robin timing of the four operations; prints medians and ratios.
fn interleaved(_: &mut Criterion) {
    // Under `cargo test` (no `--bench`), one round only proves it runs.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        41
    } else {
        1
    };
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

criterion_group!(benches, interleaved, separate);
criterion_main!(benches);
