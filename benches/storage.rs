//! Criterion benches for `Store<T>`: insert, remove, get, ordered / unordered iteration, join,
//! and ordered iteration after churn, against a plain `Vec<T>` walk of the same data; and a
//! world's sync point in a steady state (`world/sync_point_steady`: a command batch of
//! despawns and spawns applied and settled, round after round on the same warm world).
//!
//! Run: `cargo bench --bench storage` (add `-- 'iter'` to filter).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rota::{Component, Entities, Entity, Store, World, join};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

#[derive(Copy, Clone)]
struct Position([f32; 3]);

/// SplitMix64: a tiny seeded generator so the benches are reproducible without extra deps.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn spawn(n: usize) -> Vec<Entity> {
    let mut es = Entities::new();
    (0..n).map(|_| es.spawn().unwrap()).collect()
}

fn filled(entities: &[Entity]) -> Store<Position> {
    let mut s = Store::new();
    for (i, &e) in entities.iter().enumerate() {
        s.insert(e, Position([i as f32; 3]));
    }
    s
}

/// Removes and re-inserts a random 10% of the entities, leaving the store unsettled.
fn churned(entities: &[Entity]) -> Store<Position> {
    let mut s = filled(entities);
    let mut rng = SplitMix(42);
    let picks: Vec<Entity> = (0..entities.len() / 10)
        .map(|_| entities[(rng.next() % entities.len() as u64) as usize])
        .collect();
    for &e in &picks {
        s.remove(e);
    }
    for &e in &picks {
        s.insert(e, Position([1.0; 3]));
    }
    s
}

/// A store after one tick of the ecosystem demo's kind of churn: 2% of its entities removed
/// (swap-removes at random places), then three quarters of them re-inserted lowest slot first
/// (births reuse the lowest free slots), so the repair starts near the front.
fn ticked(entities: &[Entity]) -> Store<Position> {
    let mut s = filled(entities);
    let mut rng = SplitMix(7);
    let mut picks: Vec<Entity> = (0..entities.len() / 50)
        .map(|_| entities[(rng.next() % entities.len() as u64) as usize])
        .collect();
    for &e in &picks {
        s.remove(e);
    }
    picks.sort_by_key(|e| e.slot());
    picks.dedup();
    for &e in &picks[..picks.len() * 3 / 4] {
        s.insert(e, Position([1.0; 3]));
    }
    s
}

/// `ticked`, then another 2% removed: the swap-removes move the re-inserted (low-slot) values
/// from the end into the holes, as the demo's deaths do after its births.
fn ticked_then_deaths(entities: &[Entity]) -> Store<Position> {
    let mut s = ticked(entities);
    let mut rng = SplitMix(11);
    for _ in 0..entities.len() / 50 {
        s.remove(entities[(rng.next() % entities.len() as u64) as usize]);
    }
    s
}

/// Builds a store of `entities` in some disorder, for a settle bench.
type Disorder = fn(&[Entity]) -> Store<Position>;

fn sum(it: impl Iterator<Item = f32>) -> f32 {
    it.fold(0.0, |a, b| a + b)
}

fn bench_store(c: &mut Criterion) {
    let mut g = c.benchmark_group("store");
    for &n in &SIZES {
        let es = spawn(n);
        g.bench_with_input(BenchmarkId::new("insert", n), &es, |b, es| {
            b.iter(|| black_box(filled(es)))
        });
        g.bench_with_input(BenchmarkId::new("remove_all_ascending", n), &es, |b, es| {
            b.iter_batched(
                || filled(es),
                |mut s| {
                    for &e in es {
                        black_box(s.remove(e));
                    }
                    s
                },
                criterion::BatchSize::LargeInput,
            )
        });
        let s = filled(&es);
        g.bench_with_input(BenchmarkId::new("get", n), &es, |b, es| {
            b.iter(|| sum(es.iter().map(|&e| s.get(e).map_or(0.0, |p| p.0[0]))))
        });
        let vec: Vec<Position> = s.dense_values().to_vec();
        g.bench_with_input(BenchmarkId::new("vec_walk_baseline", n), &vec, |b, v| {
            b.iter(|| sum(v.iter().map(|p| p.0[0] + p.0[1] + p.0[2])))
        });
        g.bench_with_input(BenchmarkId::new("ordered_iter", n), &s, |b, s| {
            b.iter(|| sum(s.iter().map(|(_, p)| p.0[0] + p.0[1] + p.0[2])))
        });
        g.bench_with_input(BenchmarkId::new("unordered_iter", n), &s, |b, s| {
            b.iter(|| sum(s.iter_unordered().map(|(_, p)| p.0[0] + p.0[1] + p.0[2])))
        });
        let unsettled = churned(&es);
        assert!(!unsettled.is_settled());
        g.bench_with_input(
            BenchmarkId::new("ordered_iter_after_churn_unsettled", n),
            &unsettled,
            |b, s| b.iter(|| sum(s.iter().map(|(_, p)| p.0[0] + p.0[1] + p.0[2]))),
        );
        let mut settled = churned(&es);
        settled.settle();
        g.bench_with_input(
            BenchmarkId::new("ordered_iter_after_churn_settled", n),
            &settled,
            |b, s| b.iter(|| sum(s.iter().map(|(_, p)| p.0[0] + p.0[1] + p.0[2]))),
        );
        // The settle alone, after three kinds of disorder (the store is rebuilt, untimed, for
        // each iteration).
        let shapes: [(&str, Disorder); 3] = [
            ("settle_after_churn", churned),
            ("settle_after_tick", ticked),
            ("settle_births_in_holes", ticked_then_deaths),
        ];
        for (name, disorder) in shapes {
            g.bench_with_input(BenchmarkId::new(name, n), &es, |b, es| {
                b.iter_batched(
                    || disorder(es),
                    |mut s| {
                        s.settle();
                        s
                    },
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        let mut half = Store::new();
        for &e in es.iter().step_by(2) {
            half.insert(e, 1.0f32);
        }
        g.bench_with_input(BenchmarkId::new("join_half", n), &(), |b, _| {
            b.iter(|| sum(join(&s, &half).map(|(_, p, h)| p.0[0] * h)))
        });
    }
    g.finish();
}

#[derive(Component, Copy, Clone)]
struct Place([f32; 2]);

#[derive(Component, Copy, Clone)]
struct Years(u32);

/// A sync point of a simulation in its steady state, the ecosystem demo's kind: a world of
/// `live` entities with two components, holes where a third of the slots died before; each
/// round, one command batch despawns 2% of the live entities (at random) and spawns as many
/// (into the lowest free slots, scattered below the live ones), and `apply_and_settle_with`
/// applies it and settles both stores. The same world is churned round after round, so its
/// memory is warm, as a running simulation's is (the `settle_*` benches above rebuild their
/// store for every iteration). Only the apply-and-settle is timed.
fn bench_sync_point(c: &mut Criterion) {
    let mut g = c.benchmark_group("world");
    let live = 100_000;
    let mut world = World::new();
    let mut rng = SplitMix(23);
    let mut alive: Vec<Entity> =
        world.spawn_batch((0..live * 3 / 2).map(|i| (Place([i as f32, 0.0]), Years(i as u32))));
    for _ in 0..live / 2 {
        let gone = alive.swap_remove((rng.next() % alive.len() as u64) as usize);
        world.despawn(gone).expect("alive");
    }
    world.settle();
    g.bench_function(BenchmarkId::new("sync_point_steady", live), |b| {
        b.iter_custom(|rounds| {
            let mut timed = Duration::ZERO;
            for _ in 0..rounds {
                let mut commands = world.commands();
                for _ in 0..live / 50 {
                    let gone = alive.swap_remove((rng.next() % alive.len() as u64) as usize);
                    commands.despawn(gone);
                }
                let born: Vec<Entity> = (0..live / 50)
                    .map(|i| commands.spawn((Place([i as f32, 1.0]), Years(0))))
                    .collect();
                let queue = commands.finish();
                let start = Instant::now();
                let report = world.apply_and_settle_with([queue], |stores| {
                    stores.into_iter().for_each(|s| s.settle());
                });
                timed += start.elapsed();
                assert!(report.is_clean());
                alive.extend(born);
            }
            timed
        })
    });
    g.finish();
    // Still `live` entities, each with both components, in slot order; the newborns (marked
    // by `Place`) with their age.
    let mut slots = Vec::with_capacity(live);
    for (e, p, y) in world.query::<(Entity, &Place, &Years)>() {
        if p.0[1] == 1.0 {
            assert_eq!(y.0, 0, "a newborn's age");
        }
        slots.push(e.slot());
    }
    assert_eq!(slots.len(), live);
    assert!(slots.windows(2).all(|w| w[0] < w[1]));
}

criterion_group!(benches, bench_store, bench_sync_point);
criterion_main!(benches);
