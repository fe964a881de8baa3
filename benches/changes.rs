//! What change detection and events cost.
//!
//! * `stamping/*` — the simple_iter loop (10k entities, `(&Velocity, &mut Position)`) through
//!   rota, which stamps every `&mut Position` it hands out, against the same work on plain
//!   `Vec`s without and with a parallel tick column written per item (the stamp's intrinsic
//!   cost, no ECS around it).
//! * `changed/*` — a `Changed<Position>` query over 10k entities when nothing changed (the store
//!   is skipped by its high-water mark), when 1% changed, and the full query for scale.
//! * `events/*` — 100k events sent and read once: from the world with a cursor, and from one
//!   system to another through `EventWriter`/`EventReader`.
//!
//! Run: `cargo bench --bench changes -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rota::{
    Changed, Component, Entity, Event, EventCursor, EventReader, EventWriter, ResMut, Resource,
    World, system,
};

#[derive(Component, Copy, Clone)]
struct Position([f32; 3]);
#[derive(Component, Copy, Clone)]
struct Velocity([f32; 3]);

const N: usize = 10_000;

fn world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|i| (Position([i as f32, 0.0, 0.0]), Velocity([1.0, 2.0, 3.0]))));
    world
}

#[inline]
fn step(p: &mut Position, v: &Velocity) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}

fn stamping(c: &mut Criterion) {
    let mut g = c.benchmark_group("stamping");
    let mut w = world();
    g.bench_function("rota_for", |b| {
        b.iter(|| {
            for (v, p) in w.query_mut::<(&Velocity, &mut Position)>() {
                step(p, v);
            }
        })
    });
    let mut w = world();
    g.bench_function("rota_for_each_run", |b| {
        b.iter(|| {
            w.query_mut::<(&Velocity, &mut Position)>()
                .for_each_run(|_, (v, p)| {
                    for (p, v) in p.iter_mut().zip(v) {
                        step(p, v);
                    }
                })
        })
    });
    let mut pos: Vec<Position> = (0..N).map(|i| Position([i as f32, 0.0, 0.0])).collect();
    let vel: Vec<Velocity> = vec![Velocity([1.0, 2.0, 3.0]); N];
    g.bench_function("plain", |b| {
        b.iter(|| {
            for (p, v) in pos.iter_mut().zip(&vel) {
                step(p, v);
            }
            black_box(&mut pos);
        })
    });
    let mut ticks: Vec<[u32; 2]> = vec![[0, 0]; N];
    let mut now = 0u32;
    g.bench_function("plain_with_tick_column", |b| {
        b.iter(|| {
            now = now.wrapping_add(1);
            for ((p, v), t) in pos.iter_mut().zip(&vel).zip(&mut ticks) {
                step(p, v);
                t[1] = now;
            }
            black_box((&mut pos, &mut ticks));
        })
    });
    g.finish();
}

fn changed(c: &mut Criterion) {
    let mut g = c.benchmark_group("changed");
    let mut w = world();
    let since = w.change_checkpoint();
    g.bench_function("none_changed", |b| {
        b.iter(|| black_box(w.query_since::<Entity, Changed<Position>>(since).count()))
    });
    let es: Vec<Entity> = w.query::<Entity>().collect();
    for e in es.iter().step_by(100) {
        w.get_mut::<Position>(*e).unwrap().0[0] += 1.0;
    }
    g.bench_function("one_percent_changed", |b| {
        b.iter(|| black_box(w.query_since::<Entity, Changed<Position>>(since).count()))
    });
    // The usual change-detection query: the values of the changed entities (`&T` with
    // `Changed<T>`, one store named twice).
    g.bench_function("one_percent_changed_values", |b| {
        b.iter(|| {
            black_box(
                w.query_since::<&Position, Changed<Position>>(since)
                    .map(|p| p.0[0])
                    .sum::<f32>(),
            )
        })
    });
    g.bench_function("all_no_filter", |b| {
        b.iter(|| black_box(w.query::<(Entity, &Position)>().count()))
    });
    g.finish();
}

#[derive(Event, Clone, Copy)]
struct Ping(u64);

#[derive(Resource, Default, Clone)]
struct Sum(u64);

const EVENTS: u64 = 100_000;

#[system(sends(Ping))]
fn send_all(mut pings: EventWriter<Ping>) {
    pings.send_batch((0..EVENTS).map(Ping));
}

#[system(receives(Ping), writes(Sum))]
fn read_all(mut pings: EventReader<Ping>, mut sum: ResMut<Sum>) {
    sum.0 += pings.read().map(|p| p.0).sum::<u64>();
}

fn events(c: &mut Criterion) {
    let mut g = c.benchmark_group("events");
    let mut w = World::new();
    w.init_events::<Ping>(EVENTS as usize);
    let mut cursor = EventCursor::default();
    g.bench_function("world_send_read_100k", |b| {
        b.iter(|| {
            w.send_events((0..EVENTS).map(Ping));
            black_box(w.read_events::<Ping>(&mut cursor).map(|p| p.0).sum::<u64>())
        })
    });
    let mut w = World::new();
    w.init_events::<Ping>(EVENTS as usize);
    w.insert_resource(Sum::default());
    g.bench_function("systems_send_read_100k", |b| {
        b.iter(|| {
            assert!(w.run(send_all).is_clean());
            assert!(w.run(read_all).is_clean());
        })
    });
    let mut v: Vec<u64> = Vec::with_capacity(EVENTS as usize);
    g.bench_function("plain_vec_push_sum_100k", |b| {
        b.iter(|| {
            v.clear();
            v.extend(0..EVENTS);
            black_box(v.iter().sum::<u64>())
        })
    });
    g.finish();
}

criterion_group!(benches, stamping, changed, events);
criterion_main!(benches);
