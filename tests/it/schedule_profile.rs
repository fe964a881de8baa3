//! `RunReport::profile`: one entry per batch and per system that ran, naming them as the plan
//! does; the durations themselves are wall-clock time and are not asserted on.

use rota::rota_schedule::{BatchProfile, RunProfile, SystemProfile};
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
