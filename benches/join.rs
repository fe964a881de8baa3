//! The run join (`crates/rota-core/src/query/join.rs`) on the shapes it must handle, each
//! against the same work on plain `Vec`s:
//!
//! * `aligned` — two stores filled by the same bundles: one run;
//! * `offset` — the second store holds the upper half of the first: one run at an offset;
//! * `interleaved` — the second store holds every other entity: runs of one, galloping between;
//! * `sparse` — the second store holds 1 entity in 64: long gallops, few runs;
//! * `quarter` — the second store holds a pseudo-random quarter of the entities: runs of one
//!   or two, where the next one starts is unpredictable (a `With<Predator>` walk in the demo);
//!
//! and the three ways a user can write the loop over `(&mut Pos, &Vel)`: a `for` loop (`next`),
//! `for_each` (`fold`), and `for_each_run` (slices).
//!
//! Run: `cargo bench --bench join -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::{Component, World};

#[derive(Component, Copy, Clone)]
struct Pos([f32; 3]);
#[derive(Component, Copy, Clone)]
struct Vel([f32; 3]);

const N: usize = 10_000;

/// A world with `N` `Pos` and a `Vel` on every entity `i` for which `has_vel(i)`.
fn world(has_vel: impl Fn(usize) -> bool) -> World {
    let mut world = World::new();
    for i in 0..N {
        let e = world.spawn_with((Pos([i as f32, 0.0, 0.0]),));
        if has_vel(i) {
            world.insert(e, Vel([1.0, 2.0, 3.0])).unwrap();
        }
    }
    world
}

#[inline]
fn step(p: &mut Pos, v: &Vel) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}

/// A join shape: its name and which entities get a `Vel`.
type Shape = (&'static str, fn(usize) -> bool);

fn shapes(c: &mut Criterion) {
    let cases: [Shape; 5] = [
        ("aligned", |_| true),
        ("offset", |i| i >= N / 2),
        ("interleaved", |i| i % 2 == 0),
        ("sparse", |i| i % 64 == 0),
        ("quarter", |i| {
            (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 0
        }),
    ];
    let mut group = c.benchmark_group("join");
    for (name, has_vel) in cases {
        let mut w = world(has_vel);
        group.bench_function(format!("{name}/for_each"), |b| {
            b.iter(|| {
                w.query_mut::<(&mut Pos, &Vel)>()
                    .for_each(|(p, v)| step(p, v))
            })
        });
        // The same join as users often write it: every run is fetched by `next`.
        group.bench_function(format!("{name}/for_loop"), |b| {
            b.iter(|| {
                for (p, v) in w.query_mut::<(&mut Pos, &Vel)>() {
                    step(p, v);
                }
            })
        });
        // The lower bound: the matching pairs already packed in two plain vectors.
        let mut pos: Vec<Pos> = (0..N)
            .filter(|&i| has_vel(i))
            .map(|i| Pos([i as f32, 0.0, 0.0]))
            .collect();
        let vel: Vec<Vel> = vec![Vel([1.0, 2.0, 3.0]); pos.len()];
        group.bench_function(format!("{name}/plain_vec"), |b| {
            b.iter(|| {
                for (p, v) in pos.iter_mut().zip(&vel) {
                    step(p, v);
                }
                black_box(&mut pos);
            })
        });
    }
    group.finish();
}

/// An `Option<&Vel>` column held by one entity in ten: in a `for` loop or `for_each` it is
/// merged item by item and does not cut the run; `for_each_run` cuts it (runs of 1 and 9).
fn optional(c: &mut Criterion) {
    let mut w = world(|i| i % 10 == 0);
    let mut group = c.benchmark_group("optional");
    let drift = |p: &mut Pos, v: Option<&Vel>| match v {
        Some(v) => step(p, v),
        None => p.0[0] += 1.0,
    };
    group.bench_function("for_loop", |b| {
        b.iter(|| {
            for (p, v) in w.query_mut::<(&mut Pos, Option<&Vel>)>() {
                drift(p, v);
            }
        })
    });
    group.bench_function("for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Pos, Option<&Vel>)>()
                .for_each(|(p, v)| drift(p, v))
        })
    });
    group.bench_function("for_each_run", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Pos, Option<&Vel>)>()
                .for_each_run(|_, (p, v)| match v {
                    Some(v) => p.iter_mut().zip(v).for_each(|(p, v)| step(p, v)),
                    None => p.iter_mut().for_each(|p| p.0[0] += 1.0),
                })
        })
    });
    group.finish();
}

fn loop_styles(c: &mut Criterion) {
    let mut w = world(|_| true);
    let mut group = c.benchmark_group("simple_iter");
    group.bench_function("for_loop", |b| {
        b.iter(|| {
            for (p, v) in w.query_mut::<(&mut Pos, &Vel)>() {
                step(p, v);
            }
        })
    });
    group.bench_function("for_each", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Pos, &Vel)>()
                .for_each(|(p, v)| step(p, v))
        })
    });
    group.bench_function("for_each_run", |b| {
        b.iter(|| {
            w.query_mut::<(&mut Pos, &Vel)>()
                .for_each_run(|_, (pos, vel)| {
                    for (p, v) in pos.iter_mut().zip(vel) {
                        step(p, v);
                    }
                })
        })
    });
    let mut pos = vec![Pos([0.0; 3]); N];
    let vel = vec![Vel([1.0, 2.0, 3.0]); N];
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for (p, v) in pos.iter_mut().zip(&vel) {
                step(p, v);
            }
            black_box(&mut pos);
        })
    });
    group.finish();
}

criterion_group!(benches, loop_styles, shapes, optional);
criterion_main!(benches);
