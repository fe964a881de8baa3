//! World saves (`rota::scene::save_world` / `load_world`): save + load of 1,000 entities with
//! 4 scene components, against a lower bound — the same values as plain `Vec`s of tuples
//! written with the same integer encoding (bincode 1) and read back; and save / load of 100k
//! entities, with the bytes per entity printed once. Loads build a fresh world each iteration.
//!
//! Run: `cargo bench --bench saves -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::scene::{load_world, save_world};
use rota::{Component, Scene, World};

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Pos")]
struct Pos {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    y: f32,
}

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Vel")]
struct Vel {
    #[scene(id = 1)]
    dx: f32,
    #[scene(id = 2)]
    dy: f32,
}

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Hp")]
struct Hp {
    #[scene(id = 1)]
    hp: u32,
}

#[derive(Component, Scene, Clone, Copy)]
#[scene(key = "bench.Age")]
struct Age {
    #[scene(id = 1)]
    ticks: u64,
}

type C = (Pos, Vel, Hp, Age);

fn world(n: usize) -> World {
    let mut world = World::new();
    world.spawn_batch((0..n).map(|i| {
        let f = i as f32;
        (
            Pos { x: f, y: -f },
            Vel {
                dx: 0.5,
                dy: f / 3.0,
            },
            Hp { hp: i as u32 },
            Age {
                ticks: i as u64 * 7,
            },
        )
    }));
    world
}

type Row = (u64, (f32, f32), (f32, f32), u32, u64);

fn rows(world: &World) -> Vec<Row> {
    world
        .query::<(rota::Entity, &Pos, &Vel, &Hp, &Age)>()
        .map(|(e, p, v, h, a)| (e.to_bits(), (p.x, p.y), (v.dx, v.dy), h.hp, a.ticks))
        .collect()
}

fn bench(c: &mut Criterion) {
    let small = world(1_000);
    let bytes = save_world::<C, (), ()>(&small).unwrap();
    let plain = rows(&small);
    let plain_bytes = bincode::serialize(&plain).unwrap();
    let large = world(100_000);
    let large_bytes = save_world::<C, (), ()>(&large).unwrap();
    println!(
        "saves: 1,000 entities: {} bytes ({} for the plain Vec); 100k entities: {} bytes, {:.1} per entity",
        bytes.len(),
        plain_bytes.len(),
        large_bytes.len(),
        large_bytes.len() as f64 / 100_000.0
    );

    let mut g = c.benchmark_group("saves");
    g.bench_function("save+load 1k x 4 components", |b| {
        b.iter(|| {
            let bytes = save_world::<C, (), ()>(black_box(&small)).unwrap();
            load_world::<C, (), ()>(&bytes).unwrap()
        })
    });
    g.bench_function("plain Vec bincode round trip 1k (lower bound)", |b| {
        b.iter(|| {
            let bytes = bincode::serialize(&rows(black_box(&small))).unwrap();
            bincode::deserialize::<Vec<Row>>(&bytes).unwrap()
        })
    });
    g.sample_size(10);
    g.bench_function("save 100k x 4 components", |b| {
        b.iter(|| save_world::<C, (), ()>(black_box(&large)).unwrap())
    });
    g.bench_function("load 100k x 4 components", |b| {
        b.iter(|| load_world::<C, (), ()>(black_box(&large_bytes)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
