//! The classic ecs_bench_suite workloads, on rota alone (the peer comparison lives in
//! `benches/peers`): simple_insert, simple_iter, fragmented_iter, add_remove.
//!
//! Run: `cargo bench --bench workloads`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::{Component, Entity, World};

#[derive(Component, Copy, Clone)]
struct Transform(#[allow(dead_code)] [[f32; 4]; 4]);
#[derive(Component, Copy, Clone)]
struct Position([f32; 3]);
#[derive(Component, Copy, Clone)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
#[derive(Component, Copy, Clone)]
struct Velocity([f32; 3]);

const N: usize = 10_000;

fn bundle() -> (Transform, Position, Rotation, Velocity) {
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
}

fn simple_insert(c: &mut Criterion) {
    c.bench_function("simple_insert/batch", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.spawn_batch((0..N).map(|_| bundle()));
            black_box(world)
        })
    });
    c.bench_function("simple_insert/loop", |b| {
        b.iter(|| {
            let mut world = World::new();
            for _ in 0..N {
                world.spawn_with(bundle());
            }
            black_box(world)
        })
    });
}

fn simple_iter(c: &mut Criterion) {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|_| bundle()));
    c.bench_function("simple_iter", |b| {
        b.iter(|| {
            world
                .query_mut::<(&mut Position, &Velocity)>()
                .for_each(|(p, v)| {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                })
        })
    });
}

#[derive(Component, Copy, Clone)]
struct Data(f32);

macro_rules! fragmented {
    ($world:ident; $($name:ident),*) => {
        $(
            #[derive(Component, Copy, Clone)]
            struct $name(#[allow(dead_code)] f32);
            $world.spawn_batch((0..20).map(|_| ($name(0.0), Data(1.0))));
        )*
    };
}

fn fragmented_iter(c: &mut Criterion) {
    let mut world = World::new();
    fragmented!(world; A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);
    c.bench_function("fragmented_iter", |b| {
        b.iter(|| world.query_mut::<&mut Data>().for_each(|d| d.0 *= 2.0))
    });
}

#[derive(Component, Copy, Clone)]
struct AddA(#[allow(dead_code)] f32);
#[derive(Component, Copy, Clone)]
struct AddB(#[allow(dead_code)] f32);

fn add_remove(c: &mut Criterion) {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..N).map(|_| (AddA(0.0),)));
    c.bench_function("add_remove", |b| {
        b.iter(|| {
            for &e in &entities {
                world.insert(e, AddB(0.0)).expect("alive");
            }
            for &e in &entities {
                world.remove::<AddB>(e).expect("alive");
            }
        })
    });
}

criterion_group!(
    benches,
    simple_insert,
    simple_iter,
    fragmented_iter,
    add_remove
);
criterion_main!(benches);
