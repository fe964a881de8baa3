//! Scenes (`crates/rota-scene`): save and load of 100k entities with 3 scene components
//! (`Position` 2×f32, `Energy` f32 + u32, `Target` an `Option<Entity>` reference, remapped on
//! load), to and from a RON string in memory. Load goes into a fresh world each iteration
//! (its creation is inside the timing; it is tiny next to parsing).
//!
//! Run: `cargo bench --bench scene -- --warm-up-time 1 --measurement-time 10`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::scene::{load, save};
use rota::{Component, Entity, Scene, World};

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Position")]
struct Position {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    y: f32,
}

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Energy")]
struct Energy {
    #[scene(id = 1)]
    level: f32,
    #[scene(id = 2)]
    age: u32,
}

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Target")]
struct Target {
    #[scene(id = 1)]
    entity: Option<Entity>,
}

type Set = (Position, Energy, Target);

const N: usize = 100_000;

fn world() -> World {
    let mut world = World::new();
    let entities = world.spawn_batch((0..N).map(|i| {
        (
            Position {
                x: i as f32 * 0.5,
                y: -(i as f32) / 3.0,
            },
            Energy {
                level: (i % 97) as f32 * 1.25,
                age: i as u32,
            },
        )
    }));
    for (i, &e) in entities.iter().enumerate() {
        let target = entities[(i * 7919) % N];
        world
            .insert(
                e,
                Target {
                    entity: Some(target),
                },
            )
            .unwrap();
    }
    world
}

fn scene(c: &mut Criterion) {
    let world = world();
    let text = save::<Set>(&world).unwrap();
    println!(
        "scene of {N} entities × 3 components: {} bytes ({:.1} MiB)",
        text.len(),
        text.len() as f64 / (1024.0 * 1024.0)
    );
    let mut group = c.benchmark_group("scene_100k");
    group.sample_size(10);
    group.bench_function("save", |b| {
        b.iter(|| black_box(save::<Set>(black_box(&world)).unwrap()))
    });
    group.bench_function("load", |b| {
        b.iter(|| {
            let mut fresh = World::new();
            load::<Set>(&mut fresh, black_box(&text)).unwrap();
            black_box(fresh)
        })
    });
    group.finish();
}

criterion_group!(benches, scene);
criterion_main!(benches);
