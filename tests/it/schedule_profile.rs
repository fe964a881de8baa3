//! `RunReport::profile`: one entry per batch and per system that ran, naming them as the plan
//! does; the durations themselves are wall-clock time and are not asserted on.

use std::time::Duration;

use rota::rota_schedule::{BatchProfile, ProfileSum, RunProfile, SystemProfile};
use rota::{Commands, Component, Query, Schedule, World, system};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct A(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct B(i64);

#[system(writes(A))]
fn grow_a(mut q: Query<&mut A>) {
    for a in &mut q {
        a.0 += 1;
    }
}

#[system(writes(B))]
fn grow_b(mut q: Query<&mut B>) {
    for b in &mut q {
        b.0 += 1;
    }
}

#[system(writes(A, B), every_ticks = 2, after(grow_a))]
fn spawn_some(q: Query<&A>, mut commands: Commands) {
    if q.iter().count() < 10_000 {
        commands.spawn((A(0), B(0)));
    }
}

/// `(batch, systems, parallel)` per batch, and `(system, batch)` per system.
type Shape = (Vec<(usize, usize, bool)>, Vec<(&'static str, usize)>);

fn shape(profile: &RunProfile) -> Shape {
    (
        profile
            .batches
            .iter()
            .map(|b: &BatchProfile| (b.batch, b.systems, b.parallel))
            .collect(),
        profile
            .systems
            .iter()
            .map(|s: &SystemProfile| (s.system, s.batch))
            .collect(),
    )
}

#[test]
fn the_profile_lists_every_batch_and_system_that_ran() {
    for (threads, inline_below, parallel) in [(1, 0, false), (2, 0, true), (2, usize::MAX, false)] {
        let mut schedule = Schedule::builder()
            .add(grow_a)
            .add(grow_b)
            .add(spawn_some)
            .threads(threads)
            .inline_below(inline_below)
            .build()
            .unwrap();
        assert_eq!(
            schedule.batches(),
            [vec!["grow_a", "grow_b"], vec!["spawn_some"]]
        );
        let mut world = World::new();
        world.spawn_batch((0..100).map(|i| (A(i), B(i))));

        // Tick 0: both batches.
        let report = schedule.run(&mut world);
        assert_eq!(
            shape(&report.profile),
            (
                vec![(0, 2, parallel), (1, 1, false)],
                vec![("grow_a", 0), ("grow_b", 0), ("spawn_some", 1)]
            ),
            "threads {threads}, inline_below {inline_below}"
        );
        // Tick 1: `spawn_some` is strided out, so its batch is not listed.
        let report = schedule.run(&mut world);
        assert_eq!(
            shape(&report.profile),
            (vec![(0, 2, parallel)], vec![("grow_a", 0), ("grow_b", 0)])
        );
        let text = report.profile.to_string();
        assert!(text.contains("batch 0"), "{text}");
        assert!(text.contains("grow_b"), "{text}");
        assert!(!text.contains("spawn_some"), "{text}");
    }
}

#[test]
fn reports_are_equal_when_the_runs_did_the_same_thing() {
    let build = |threads| {
        Schedule::builder()
            .add(grow_a)
            .add(grow_b)
            .add(spawn_some)
            .threads(threads)
            .inline_below(0)
            .build()
            .unwrap()
    };
    let (mut one, mut two) = (build(1), build(2));
    let (mut w1, mut w2) = (World::new(), World::new());
    for _ in 0..4 {
        let (r1, r2) = (one.run(&mut w1), two.run(&mut w2));
        // The profiles differ (wall-clock time, and which batches ran in parallel); equality
        // compares what the runs did.
        assert_eq!(r1, r2);
    }
    let mut r = one.run(&mut w1);
    let r_same = r.clone();
    r.ran.pop();
    assert_ne!(r, r_same);
}

#[system(reads(A), defers(A, B))]
fn churn(q: Query<(rota::Entity, &A)>, mut commands: Commands) {
    // Despawn every third entity (the last values move into the holes) and spawn as many: both
    // stores are left unsettled until the batch's end.
    for (e, a) in q.iter() {
        if a.0 % 3 == 0 {
            commands.despawn(e);
            commands.spawn((A(a.0 + 1), B(a.0)));
        }
    }
}

/// A batch's commands apply without settling; the schedule then settles the stores they moved
/// (store by store, on the pool when forced with `inline_below(0)`): after `run` no store is
/// left unsettled, the invariants hold, and 1 and 2 threads agree.
#[test]
fn stores_moved_by_commands_are_settled_at_the_batch_end_on_any_thread_count() {
    let mut sums = Vec::new();
    for threads in [1, 2] {
        let mut schedule = Schedule::builder()
            .add(churn)
            .threads(threads)
            .inline_below(0)
            .build()
            .unwrap();
        let mut world = World::new();
        world.spawn_batch((0..3_000).map(|i| (A(i), B(i))));
        for _ in 0..3 {
            let report = schedule.run(&mut world);
            assert!(report.commands.errors.is_empty(), "{:?}", report.commands);
            assert!(world.unsettled_stores().is_empty(), "threads = {threads}");
            world.check_invariants().unwrap();
        }
        let values: Vec<(i64, i64)> = world.query::<(&A, &B)>().map(|(a, b)| (a.0, b.0)).collect();
        sums.push(values);
    }
    assert_eq!(sums[0], sums[1]);
}

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

fn batch(batch: usize, systems: usize, parallel: bool, run: u64) -> BatchProfile {
    BatchProfile {
        batch,
        systems,
        parallel,
        run: us(run),
    }
}

fn system(system: &'static str, batch: usize, run: u64) -> SystemProfile {
    SystemProfile {
        system,
        batch,
        run: us(run),
    }
}

/// The mean of three hand-made profiles, part by part: a batch or system missing from a run
/// (strided) counts as zero there, a system is keyed by batch and name, `parallel` follows the
/// majority of the runs the batch ran in, and `systems` is the most due at once.
#[test]
fn a_profile_sum_means_every_part_over_every_run() {
    let runs = [
        RunProfile {
            total: us(100),
            settle: us(30),
            commands: us(9),
            batches: vec![batch(0, 2, true, 40), batch(1, 1, false, 21)],
            systems: vec![system("a", 0, 40), system("b", 0, 35), system("s", 1, 21)],
        },
        RunProfile {
            total: us(80),
            settle: us(20),
            commands: us(3),
            batches: vec![batch(0, 1, false, 57)],
            systems: vec![system("a", 0, 57)],
        },
        RunProfile {
            total: us(120),
            settle: us(40),
            commands: us(0),
            // Batches listed out of index order, and a system of the same name in another batch.
            batches: vec![batch(1, 1, false, 30), batch(0, 2, true, 50)],
            systems: vec![system("s", 1, 30), system("a", 0, 44), system("b", 0, 4)],
        },
    ];
    let mut sum = ProfileSum::default();
    assert_eq!(sum.runs(), 0);
    assert_eq!(sum.mean(), None);
    for run in &runs {
        sum.add(run);
    }
    assert_eq!(sum.runs(), 3);
    let mean = sum.mean().expect("three runs added");
    assert_eq!(
        mean,
        RunProfile {
            total: us(100),
            settle: us(30),
            commands: us(4),
            batches: vec![batch(0, 2, true, 49), batch(1, 1, false, 17)],
            systems: vec![system("a", 0, 47), system("b", 0, 13), system("s", 1, 17)],
        }
    );
    // Two of three runs handed batch 0 to the pool; one of three leaves it inline.
    let mut inline = ProfileSum::default();
    inline.add(&runs[1]);
    inline.add(&runs[1]);
    inline.add(&runs[0]);
    assert!(!inline.mean().unwrap().batches[0].parallel);
}

/// A sum fed by real runs has every batch and system the runs had.
#[test]
fn a_profile_sum_of_real_runs_lists_what_ran() {
    let mut schedule = Schedule::builder()
        .add(grow_a)
        .add(grow_b)
        .add(spawn_some)
        .threads(1)
        .build()
        .unwrap();
    let mut world = World::new();
    world.spawn_batch((0..100).map(|i| (A(i), B(i))));
    let mut sum = ProfileSum::default();
    for _ in 0..4 {
        sum.add(&schedule.run(&mut world).profile);
    }
    assert_eq!(sum.runs(), 4);
    let mean = sum.mean().unwrap();
    assert_eq!(
        shape(&mean),
        (
            vec![(0, 2, false), (1, 1, false)],
            vec![("grow_a", 0), ("grow_b", 0), ("spawn_some", 1)]
        )
    );
}
