//! What events cost a rollback frame once they are read: `World::snapshot` + `full_checksum`
//! of a 1,000-entity world, with no events ever sent, against the same world after 70,000
//! events were sent and read by a system over 100 ticks (700 a tick). Channels drop what every
//! system reader has read once the tick after it ends, so the second world holds the last
//! tick's 700 events, not 65,536 (the capacity).
//!
//! Run: `cargo bench --bench event_retention`. It first times the two round-robin (41 rounds,
//! the first of the pair alternating, so that machine noise hits both alike) and prints the
//! medians and their ratio, which `docs/benchmarks.md` quotes; the criterion benchmarks after it
//! time each on its own.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rota::{
    Component, Event, EventReader, EventWriter, Res, ResMut, Resource, Schedule, StableHash, World,
    system,
};

#[derive(Component, StableHash, Clone, Copy)]
struct Position([i32; 3]);

#[derive(Component, StableHash, Clone, Copy)]
struct Health(u32);

#[derive(Event, StableHash, Clone, Copy)]
struct Hit(u32);

#[derive(Resource, StableHash, Clone, Default)]
struct PerTick(u32);

#[derive(Resource, StableHash, Clone, Default)]
struct Total(u64);

#[system(reads(PerTick), sends(Hit))]
fn hit(per_tick: Res<PerTick>, mut out: EventWriter<Hit>) {
    out.send_batch((0..per_tick.0).map(Hit));
}

#[system(receives(Hit), writes(Total))]
fn tally(mut hits: EventReader<Hit>, mut total: ResMut<Total>) {
    total.0 += hits.read().map(|h| u64::from(h.0)).sum::<u64>();
}

/// 1,000 entities; `per_tick` events sent and read on each of 100 ticks.
fn world(per_tick: u32) -> World {
    let mut world = World::new();
    world.spawn_batch((0..1_000).map(|i| (Position([i, i, i]), Health(i as u32))));
    world.insert_resource(PerTick(per_tick));
    world.insert_resource(Total::default());
    let mut schedule = Schedule::builder().add(hit).add(tally).build().unwrap();
    for _ in 0..100 {
        schedule.run(&mut world);
    }
    world
}

fn frame(world: &mut World) -> u64 {
    let snapshot = world.snapshot().unwrap();
    let sum = world.full_checksum().unwrap();
    drop(black_box(snapshot));
    sum
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn interleaved(_: &mut Criterion) {
    let mut quiet = world(0);
    let mut read = world(700);
    assert_eq!(read.events::<Hit>().map_or(0, |c| c.len()), 700);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let time = |w: &mut World, into: &mut Vec<Duration>| {
        let start = Instant::now();
        for _ in 0..100 {
            black_box(frame(w));
        }
        into.push(start.elapsed() / 100);
    };
    for round in 0..41 {
        if round % 2 == 0 {
            time(&mut quiet, &mut a);
            time(&mut read, &mut b);
        } else {
            time(&mut read, &mut b);
            time(&mut quiet, &mut a);
        }
    }
    let (a, b) = (median(a), median(b));
    println!(
        "event_retention/interleaved: snapshot + full_checksum, no events {a:?}, after 70,000 read events {b:?}: {:.2}x",
        b.as_secs_f64() / a.as_secs_f64()
    );
}

fn separate(c: &mut Criterion) {
    let mut quiet = world(0);
    let mut read = world(700);
    c.bench_function("event_retention/no_events", |b| {
        b.iter(|| frame(&mut quiet))
    });
    c.bench_function("event_retention/after_70k_read_events", |b| {
        b.iter(|| frame(&mut read))
    });
}

criterion_group!(benches, interleaved, separate);
criterion_main!(benches);
