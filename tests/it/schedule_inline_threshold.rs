//! `ScheduleBuilder::inline_below`: a batch whose systems' declared stores hold at least that
//! many entity-components runs on the pool; below it, on the calling thread. Observable through
//! the worker threads' names (`rota-worker-N`). Without this test, a mutant replacing the work
//! estimate by a constant survived the suite (`cargo xtask mutants`, `docs/testing.md`).

use std::collections::BTreeSet;

use rota::{Component, Query, ResMut, Resource, Schedule, World, system};

#[derive(Component, Clone)]
struct A(u32);

#[derive(Component, Clone)]
struct B(u32);

/// Names of the threads the systems ran on.
#[derive(Resource, Clone, Default)]
struct ThreadsA(BTreeSet<String>);

#[derive(Resource, Clone, Default)]
struct ThreadsB(BTreeSet<String>);

fn thread_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

#[system(writes(A, ThreadsA))]
fn on_a(mut q: Query<&mut A>, mut seen: ResMut<ThreadsA>) {
    q.for_each(|a| a.0 += 1);
    seen.0.insert(thread_name());
}

#[system(writes(B, ThreadsB))]
fn on_b(mut q: Query<&mut B>, mut seen: ResMut<ThreadsB>) {
    q.for_each(|b| b.0 += 1);
    seen.0.insert(thread_name());
}

/// Runs one tick with `inline_below(threshold)` over 10 entities with `A` and `B` (work 20) and
/// says whether any system ran on a worker thread.
fn ran_on_pool(threshold: usize) -> bool {
    let mut schedule = Schedule::builder()
        .add(on_a)
        .add(on_b)
        .threads(2)
        .inline_below(threshold)
        .build()
        .unwrap();
    assert_eq!(schedule.batches(), [vec!["on_a", "on_b"]]);
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (A(i), B(i))));
    world.insert_resource(ThreadsA::default());
    world.insert_resource(ThreadsB::default());
    schedule.run(&mut world);
    let a = &world.resource::<ThreadsA>().unwrap().0;
    let b = &world.resource::<ThreadsB>().unwrap().0;
    a.iter().chain(b).any(|n| n.starts_with("rota-worker-"))
}

#[test]
fn batches_at_the_threshold_run_on_the_pool_and_below_it_inline() {
    assert!(ran_on_pool(0));
    assert!(
        ran_on_pool(20),
        "work 20 with inline_below(20) must use the pool"
    );
    assert!(
        !ran_on_pool(21),
        "work 20 with inline_below(21) must stay inline"
    );
    assert!(!ran_on_pool(usize::MAX));
}
