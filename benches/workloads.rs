//! The classic ecs_bench_suite workloads, on rota alone (the peer comparison lives in
//! `benches/peers`): simple_insert, simple_iter, fragmented_iter, add_remove, and despawn (10k
//! entities with 4 components despawned in a shuffled order, one by one and as a batch), and
//! the application of command buffers of scattered despawns and spawns in a big world.
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
    // The way users write it: a `for` loop goes through `next()` (docs/benchmarks.md, "A `for`
    // loop over one run is a plain slice loop").
    c.bench_function("fragmented_iter/for", |b| {
        b.iter(|| {
            for d in world.query_mut::<&mut Data>() {
                d.0 *= 2.0;
            }
        })
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
    // The same with `delete` (the value dropped, not returned), as sparsey's and shipyard's
    // rows in the peer harness do.
    c.bench_function("add_remove/delete", |b| {
        b.iter(|| {
            for &e in &entities {
                world.insert(e, AddB(0.0)).expect("alive");
            }
            for &e in &entities {
                world.delete::<AddB>(e).expect("alive");
            }
        })
    });
}

/// A fixed permutation of `0..n` (SplitMix64-driven Fisher–Yates), so runs are comparable.
fn shuffled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = 0x5EED_u64;
    for i in (1..n).rev() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        order.swap(i, (z % (i as u64 + 1)) as usize);
    }
    order
}

fn despawn(c: &mut Criterion) {
    let order = shuffled(N);
    // The world is reused: each iteration spawns into the slots the previous one freed. Setup
    // and routine both need it, hence the `RefCell`.
    let world = std::cell::RefCell::new(World::new());
    let mut group = c.benchmark_group("despawn");
    group.bench_function("loop", |b| {
        b.iter_batched_ref(
            || {
                let es = world.borrow_mut().spawn_batch((0..N).map(|_| bundle()));
                order.iter().map(|&i| es[i]).collect::<Vec<Entity>>()
            },
            |es| {
                let mut world = world.borrow_mut();
                for &e in es.iter() {
                    world.despawn(e).expect("alive");
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("batch", |b| {
        b.iter_batched_ref(
            || {
                let es = world.borrow_mut().spawn_batch((0..N).map(|_| bundle()));
                order.iter().map(|&i| es[i]).collect::<Vec<Entity>>()
            },
            |es| assert_eq!(world.borrow_mut().despawn_batch(es.iter().copied()), N),
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// Applies `queue` (which must apply cleanly) and returns how long it took up to the settle.
fn applied(world: &mut World, queue: rota::CommandQueue) -> std::time::Duration {
    let start = std::time::Instant::now();
    let mut took = None;
    let report = world.apply_and_settle_with([queue], |stores| {
        took = Some(start.elapsed());
        drop(stores);
    });
    assert!(report.is_clean(), "{report:?}");
    took.expect("settle is called once")
}

/// Command application in a big world: 2,000 despawns recorded in ascending slot order, spread
/// over 200,000 entities with the four simple_insert components (the ecosystem demo's deaths per
/// tick). Times `apply_and_settle_with` up to the settle it hands the stores to — the commands
/// alone; the removals and sort come after. Each iteration despawns a different set, so their
/// slots are not left in the cache by the previous one; the setup spawns the last set back
/// (into the same slots).
fn commands(c: &mut Criterion) {
    const BIG: usize = 200_000;
    const DEATHS: usize = 2_000;
    let mut world = World::new();
    world.spawn_batch((0..BIG).map(|_| bundle()));
    let mut state = 0x00C0_FFEE_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // Up to `DEATHS` distinct slots, ascending, spread over the world.
    let scattered = |next: &mut dyn FnMut() -> u64| {
        let mut slots: Vec<u32> = (0..DEATHS).map(|_| (next() % BIG as u64) as u32).collect();
        slots.sort_unstable();
        slots.dedup();
        slots
    };
    c.bench_function("commands/despawn_scattered", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                let slots = scattered(&mut next);
                let mut commands = world.commands();
                for &slot in &slots {
                    let entity = world
                        .entities()
                        .alive_at(slot)
                        .expect("every slot is alive");
                    commands.despawn(entity);
                }
                let queue = commands.finish();
                total += applied(&mut world, queue);
                world.spawn_batch((0..slots.len()).map(|_| bundle()));
            }
            total
        })
    });
    // The births: as many spawns into slots freed (and the stores settled) before the commands
    // were recorded, so they reuse those scattered slots.
    c.bench_function("commands/spawn_scattered", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                let gone: Vec<Entity> = (0..DEATHS)
                    .filter_map(|_| world.entities().alive_at((next() % BIG as u64) as u32))
                    .collect();
                let born = world.despawn_batch(gone);
                world.settle();
                let mut commands = world.commands();
                for _ in 0..born {
                    commands.spawn(bundle());
                }
                let queue = commands.finish();
                total += applied(&mut world, queue);
            }
            total
        })
    });
    // Inserting a component into as many scattered entities, then removing it: two buffers,
    // both timed up to their settles.
    c.bench_function("commands/insert_remove_scattered", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                let slots = scattered(&mut next);
                let chosen: Vec<Entity> = slots
                    .iter()
                    .map(|&slot| world.entities().alive_at(slot).expect("alive"))
                    .collect();
                let mut inserts = world.commands();
                for &e in &chosen {
                    inserts.insert(e, AddB(1.0));
                }
                let inserts = inserts.finish();
                let mut removes = world.commands();
                for &e in &chosen {
                    removes.remove::<AddB>(e);
                }
                let removes = removes.finish();
                for queue in [inserts, removes] {
                    total += applied(&mut world, queue);
                }
            }
            total
        })
    });
}

criterion_group!(
    benches,
    simple_insert,
    simple_iter,
    fragmented_iter,
    add_remove,
    despawn,
    commands
);
criterion_main!(benches);
