//! Schedules and parallel walks nested in each other, and schedules dropped right after a run:
//! results equal to one thread, nothing hangs, no thread is left behind. The pool threads of a
//! schedule linger awake after their part of a parallel section and take any new job from
//! inside that linger (`rota-schedule`'s `workers.rs`), so a job of one section may run nested
//! in the tail of another: these are the shapes where that could go wrong. (From a review of
//! the linger change, which found none of them broken.)

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use rota::{Component, ParallelQuery, Query, Res, Resource, Schedule, StableHash, World, system};

#[derive(Component, StableHash, Debug, Clone, Copy, PartialEq, Eq)]
struct A(i64);

#[derive(Component, StableHash, Debug, Clone, Copy, PartialEq, Eq)]
struct B(i64);

#[system(writes(A))]
fn bump_a(mut q: Query<&mut A>) {
    q.par_for_each(|a| a.0 = a.0.wrapping_mul(31).wrapping_add(7));
}

#[system(writes(B))]
fn bump_b(mut q: Query<&mut B>) {
    q.par_for_each(|b| b.0 = b.0.wrapping_mul(17).wrapping_add(3));
}

fn small_world(n: i64) -> World {
    let mut w = World::new();
    w.spawn_batch((0..n).map(|i| (A(i), B(2 * i))));
    w
}

fn small_schedule(threads: usize) -> Schedule {
    Schedule::builder()
        .add(bump_a)
        .add(bump_b)
        .threads(threads)
        .inline_below(0) // every batch to the pool, however small
        .build()
        .expect("valid schedule")
}

/// The checksum after each of `ticks` ticks of `small_schedule(threads)`.
fn checksums(threads: usize, ticks: usize) -> Vec<u64> {
    let mut s = small_schedule(threads);
    let mut w = small_world(3_000);
    (0..ticks)
        .map(|_| {
            s.run(&mut w);
            w.checksum::<(A, B)>()
        })
        .collect()
}

/// Inner schedules (with their worlds), run from inside the systems of an outer schedule.
#[derive(Resource)]
#[resource(no_snapshot)]
struct Inner(Vec<Mutex<(Schedule, World)>>, Vec<AtomicU64>);

macro_rules! run_inner {
    ($name:ident, $i:expr) => {
        #[system(reads(Inner), writes(A))]
        fn $name(mut q: Query<&mut A>, inner: Res<Inner>) {
            q.par_for_each(|a| a.0 += 1);
            let mut guard = inner.0[$i].lock().unwrap();
            let (s, w) = &mut *guard;
            s.run(w);
            inner.1[$i].store(w.checksum::<(A, B)>(), Ordering::SeqCst);
        }
    };
}
run_inner!(outer_0, 0);
run_inner!(outer_1, 1);

fn nested(outer_threads: usize, inner_threads: usize) -> Vec<(u64, u64, u64)> {
    let mut outer = Schedule::builder()
        .add(outer_0)
        .add(outer_1)
        .threads(outer_threads)
        .inline_below(0)
        .build()
        .expect("valid schedule");
    let mut world = small_world(1_000);
    let inner = (0..2)
        .map(|_| Mutex::new((small_schedule(inner_threads), small_world(3_000))))
        .collect();
    world.insert_resource(Inner(inner, (0..2).map(|_| AtomicU64::new(0)).collect()));
    (0..8)
        .map(|_| {
            outer.run(&mut world);
            let sums = &world.resource::<Inner>().unwrap().1;
            (
                world.checksum::<(A,)>(),
                sums[0].load(Ordering::SeqCst),
                sums[1].load(Ordering::SeqCst),
            )
        })
        .collect()
}

#[test]
fn a_schedule_run_inside_another_schedules_systems_matches_one_thread() {
    let one = nested(1, 1);
    for (outer, inner) in [(2, 2), (2, 4), (4, 2)] {
        assert_eq!(
            nested(outer, inner),
            one,
            "outer {outer}, inner {inner} threads"
        );
    }
}

#[derive(Resource)]
#[resource(no_snapshot)]
struct Total(AtomicI64);

/// One item of the outer walk walks another query in parallel, from inside the outer walk.
#[system(reads(B, Total), writes(A))]
fn walk_in_walk(mut qa: Query<&mut A>, qb: Query<&B>, total: Res<Total>) {
    // Only one closure call takes the inner query, so the lock is never contended (a thread
    // waiting for the inner walk may run another outer task).
    let qb = Mutex::new(qb);
    qa.par_for_each(|a| {
        if a.0 == 0 {
            let sum = AtomicI64::new(0);
            qb.lock().unwrap().par_for_each(|b| {
                sum.fetch_add(b.0, Ordering::Relaxed);
            });
            a.0 += sum.load(Ordering::Relaxed);
        }
        a.0 += 1;
    });
    let s = qa.iter_mut().fold(0i64, |s, a| s.wrapping_add(a.0));
    total.0.store(s, Ordering::SeqCst);
}

fn walk_in_walk_totals(threads: usize) -> Vec<i64> {
    let mut s = Schedule::builder()
        .add(walk_in_walk)
        .threads(threads)
        .inline_below(0)
        .build()
        .expect("valid schedule");
    let mut w = small_world(3_000);
    w.insert_resource(Total(AtomicI64::new(0)));
    (0..6)
        .map(|_| {
            s.run(&mut w);
            w.resource::<Total>().unwrap().0.load(Ordering::SeqCst)
        })
        .collect()
}

#[test]
fn a_par_for_each_inside_a_par_for_each_matches_one_thread() {
    let one = walk_in_walk_totals(1);
    for threads in [2, 4] {
        assert_eq!(walk_in_walk_totals(threads), one, "{threads} threads");
    }
}

/// Schedules built, run and dropped inside a `par_for_each` on rayon's global pool.
#[derive(Resource)]
#[resource(no_snapshot)]
struct Results(Vec<AtomicU64>);

#[system(reads(Results), writes(A))]
fn schedules_in_a_walk(mut q: Query<&mut A>, results: Res<Results>) {
    q.par_for_each(|a| {
        if a.0 % 100 != 0 {
            return;
        }
        let i = (a.0 / 100) as usize;
        let sums = checksums([2, 4][i % 2], 3);
        results.0[i].store(*sums.last().unwrap(), Ordering::SeqCst);
    });
}

#[test]
fn schedules_run_and_dropped_inside_a_global_pool_walk_match_one_thread() {
    let expected = *checksums(1, 3).last().unwrap();
    let mut world = World::new();
    world.spawn_batch((0..600).map(|i| (A(i),)));
    world.insert_resource(Results((0..6).map(|_| AtomicU64::new(0)).collect()));
    assert!(world.run(schedules_in_a_walk).is_clean());
    for (i, r) in world.resource::<Results>().unwrap().0.iter().enumerate() {
        assert_eq!(r.load(Ordering::SeqCst), expected, "schedule {i}");
    }
}

/// Dropping a schedule right after a run, while its threads may still linger, ends them: the
/// process is left with no more threads than before (Linux: `/proc/self/task`).
#[test]
fn schedules_dropped_right_after_a_run_leave_no_thread_behind() {
    let count = || std::fs::read_dir("/proc/self/task").map(|d| d.count()).ok();
    let one = checksums(1, 2);
    for threads in [2, 4, 8] {
        assert_eq!(checksums(threads, 2), one, "{threads} threads");
    }
    let Some(before) = count() else {
        return; // not Linux: nothing to count
    };
    for threads in [2, 4, 8, 2, 4, 8] {
        let mut s = small_schedule(threads);
        let mut w = small_world(500);
        s.run(&mut w);
        drop(s);
    }
    // Other tests of this binary run at the same time and start threads of their own: allow
    // for them, but not for six schedules' worth (28 workers) left behind.
    let after = (0..200)
        .find_map(|_| {
            let n = count()?;
            if n <= before + 8 {
                return Some(n);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            None
        })
        .or_else(count);
    assert!(
        after.is_some_and(|n| n <= before + 8),
        "threads before {before}, after {after:?}"
    );
}
