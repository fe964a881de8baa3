//! Does a niche in `Entity` pay? `Option<Entity>` is 12 bytes today (slot and generation are
//! plain `u32`s); with a `NonZeroU32` generation (as hecs has) it would be 8. This bench holds
//! everything else equal: the same query over a component of each size, `Link12` holding a real
//! `Option<Entity>`, `Link8` an `Option<(u32, NonZeroU32)>` (what `Option<Entity>` would
//! become), each read for its slot.
//!
//! Run: `cargo bench --bench entity_niche -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::num::NonZeroU32;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rota::{Component, Entity, World};

#[derive(Component, Copy, Clone)]
struct Pos([f32; 3]);

/// 12 bytes: `Option<Entity>` as it is.
#[derive(Component, Copy, Clone)]
struct Link12(Option<Entity>);

/// 8 bytes: `Option<Entity>` as a `NonZeroU32` generation would make it.
#[derive(Component, Copy, Clone)]
struct Link8(Option<(u32, NonZeroU32)>);

const _: () = assert!(size_of::<Link12>() == 12 && size_of::<Link8>() == 8);

/// `n` entities with a `Pos` and both links; every other link is `None`.
fn world(n: usize) -> World {
    let mut world = World::new();
    let first = world.spawn_with((Pos([0.0; 3]),));
    for i in 1..n {
        let target = (i % 2 == 0).then_some(first);
        world.spawn_with((
            Pos([i as f32, 0.0, 0.0]),
            Link12(target),
            Link8(target.map(|e| (e.slot(), NonZeroU32::new(e.generation() + 1).unwrap()))),
        ));
    }
    world
}

fn links(c: &mut Criterion) {
    let mut group = c.benchmark_group("entity_niche");
    for n in [10_000, 100_000, 1_000_000] {
        let mut w = world(n);
        group.bench_function(BenchmarkId::new("query_12_bytes", n), |b| {
            b.iter(|| {
                w.query_mut::<(&mut Pos, &Link12)>().for_each(|(p, l)| {
                    if let Some(e) = l.0 {
                        p.0[0] += e.slot() as f32;
                    }
                })
            })
        });
        group.bench_function(BenchmarkId::new("query_8_bytes", n), |b| {
            b.iter(|| {
                w.query_mut::<(&mut Pos, &Link8)>().for_each(|(p, l)| {
                    if let Some((slot, _)) = l.0 {
                        p.0[0] += slot as f32;
                    }
                })
            })
        });
        group.bench_function(BenchmarkId::new("read_only_12_bytes", n), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                w.query::<&Link12>()
                    .for_each(|l| sum += l.0.map_or(0, |e| u64::from(e.slot())));
                black_box(sum)
            })
        });
        group.bench_function(BenchmarkId::new("read_only_8_bytes", n), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                w.query::<&Link8>()
                    .for_each(|l| sum += l.0.map_or(0, |(slot, _)| u64::from(slot)));
                black_box(sum)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, links);
criterion_main!(benches);
