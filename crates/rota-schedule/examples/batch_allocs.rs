//! Heap allocations per tick of a schedule: run under a heap profiler with two tick counts and
//! subtract, e.g.
//!
//! ```text
//! cargo build --release -p rota-schedule --example batch_allocs
//! valgrind target/release/examples/batch_allocs 1 100  2>&1 | grep "total heap usage"
//! valgrind target/release/examples/batch_allocs 1 1100 2>&1 | grep "total heap usage"
//! ```
//!
//! Arguments: threads, ticks. The schedule is four batches of two systems (two independent
//! chains) over 1,000 entities, every batch handed to the pool when threads > 1.

use rota::rota_schedule::Schedule;
use rota::{Component, Query, World, system};

#[derive(Component, Clone)]
struct Left(u32);
#[derive(Component, Clone)]
struct Right(u32);

#[system(writes(Left))]
fn l1(mut q: Query<&mut Left>) {
    q.for_each(|x| x.0 += 1);
}
#[system(writes(Left), after(l1))]
fn l2(mut q: Query<&mut Left>) {
    q.for_each(|x| x.0 += 2);
}
#[system(writes(Right))]
fn r1(mut q: Query<&mut Right>) {
    q.for_each(|x| x.0 += 1);
}
#[system(writes(Right), after(r1))]
fn r2(mut q: Query<&mut Right>) {
    q.for_each(|x| x.0 += 2);
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<u64>().expect("a number"));
    let threads = args.next().unwrap_or(1) as usize;
    let ticks = args.next().unwrap_or(100);
    let mut schedule = Schedule::builder()
        .add(l1)
        .add(r1)
        .add(l2)
        .add(r2)
        .threads(threads)
        .inline_below(0)
        .build()
        .expect("valid schedule");
    let mut world = World::new();
    world.spawn_batch((0..1_000).map(|i| (Left(i), Right(i))));
    for _ in 0..ticks {
        std::hint::black_box(schedule.run(&mut world));
    }
    println!("{} batches, {ticks} ticks", schedule.batches().len());
}
