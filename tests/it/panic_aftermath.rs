//! What a system panic leaves behind, pinned (the prose is in `docs/testing.md`).
//!
//! `Schedule::run` runs batch by batch and applies each batch's commands at its end. When a
//! system panics, the run stops at the end of that batch and re-raises the panic naming the
//! system. Then:
//!
//! * earlier batches' writes **and commands** stay (their commands were applied already);
//! * the panicking system's writes made before the panic stay (there is no rollback);
//! * its batch-mates ran to completion: their writes stay, but every command of the batch
//!   (theirs and the panicking system's) is dropped;
//! * later batches do not run and the tick does not advance;
//! * the world's invariants hold, and the next `run` (on any thread count) works.
//!
//! `a_panic_leaves_a_consistent_partially_updated_world` checks every line above on 1 thread
//! and on 4 threads with every batch on the pool. `Schedule::run_or_restore` makes the tick all
//! or nothing instead; `run_or_restore_undoes_the_whole_tick_on_a_panic` compares it with a twin
//! world that never ran the tick.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::{
    Commands, Component, Entity, Query, Res, ResMut, Resource, Schedule, StableHash, World, system,
};

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq, Eq)]
struct Pos(i64);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq, Eq)]
struct Vel(i64);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp(u64);

#[derive(Resource, StableHash, Clone)]
struct Armed(bool);

#[derive(Resource, StableHash, Clone, Default)]
struct LaterRuns(u32);

/// Entities `half_writer` rewrites before it panics (when armed).
const WRITES_BEFORE_PANIC: usize = 3;

/// Batch 0: one command, applied before the panic happens.
#[system(writes(Stamp))]
fn stamper(mut commands: Commands) {
    commands.spawn((Stamp(1),));
}

/// Batch 1: rewrites `Pos` in ascending slot order and panics part-way when armed.
#[system(reads(Armed), writes(Pos), after(stamper))]
fn half_writer(mut q: Query<&mut Pos>, armed: Res<Armed>) {
    for (i, p) in (&mut q).into_iter().enumerate() {
        if armed.0 && i == WRITES_BEFORE_PANIC {
            panic!("half way");
        }
        p.0 += 1000;
    }
}

/// Batch 1 too (no edge to `half_writer`): writes `Vel` and records commands.
#[system(writes(Vel, Stamp))]
fn batch_mate(mut q: Query<(Entity, &mut Vel)>, mut commands: Commands) {
    let mut first = None;
    for (e, v) in &mut q {
        v.0 += 1;
        first.get_or_insert(e);
    }
    commands.spawn((Stamp(2),));
    if let Some(e) = first {
        commands.despawn(e);
    }
}

/// Batch 2: never reached while armed.
#[system(reads(Pos), writes(LaterRuns), after(half_writer, batch_mate))]
fn later(q: Query<&Pos>, mut runs: ResMut<LaterRuns>) {
    assert!(q.iter().count() > 0);
    runs.0 += 1;
}

fn world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..8).map(|i| (Pos(i), Vel(10 * i))));
    world.insert_resource(Armed(true));
    world.insert_resource(LaterRuns::default());
    world
}

fn pos(world: &World) -> Vec<i64> {
    world.query::<&Pos>().map(|p| p.0).collect()
}

fn vel(world: &World) -> Vec<i64> {
    world.query::<&Vel>().map(|v| v.0).collect()
}

fn stamps(world: &World) -> Vec<u64> {
    world.query::<&Stamp>().map(|s| s.0).collect()
}

#[test]
fn a_panic_leaves_a_consistent_partially_updated_world() {
    for (threads, inline_below) in [(1, usize::MAX), (4, 0)] {
        let mut schedule = full_schedule(threads, inline_below);
        assert_eq!(
            schedule.batches(),
            [
                vec!["stamper"],
                vec!["half_writer", "batch_mate"],
                vec!["later"]
            ]
        );
        let mut world = world();
        let before_vel = vel(&world);

        let payload = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)))
            .expect_err("half_writer panics");
        let panics = payload
            .downcast::<rota::rota_schedule::SystemPanics>()
            .expect("Schedule::run unwinds with SystemPanics");
        assert_eq!(panics.systems(), ["half_writer"]);
        assert_eq!(panics.panics[0].message(), Some("half way"));

        world.check_invariants().unwrap();
        // The earlier batch's command was applied before the panic.
        assert_eq!(stamps(&world), [1], "threads {threads}");
        // The panicking system's writes before the panic stay; the rest never happened.
        let expected_pos: Vec<i64> = (0..8)
            .map(|i| {
                if (i as usize) < WRITES_BEFORE_PANIC {
                    i + 1000
                } else {
                    i
                }
            })
            .collect();
        assert_eq!(pos(&world), expected_pos, "threads {threads}");
        // The batch-mate finished its writes, but its commands (a spawn, a despawn) are gone.
        let bumped: Vec<i64> = before_vel.iter().map(|v| v + 1).collect();
        assert_eq!(vel(&world), bumped, "threads {threads}");
        assert_eq!(world.len(), 9, "threads {threads}");
        // The dropped spawn had only reserved its slot: the allocator never saw it.
        assert_eq!(world.entities().slot_count(), 9, "threads {threads}");
        // The next batch did not run; the tick did not advance.
        assert_eq!(world.resource::<LaterRuns>().unwrap().0, 0);
        assert_eq!(world.tick(), 0);

        // The same schedule runs the same tick again, cleanly.
        world.resource_mut::<Armed>().unwrap().0 = false;
        let report = schedule.run(&mut world);
        assert_eq!(report.tick, 0);
        assert_eq!(
            report.ran,
            ["stamper", "half_writer", "batch_mate", "later"]
        );
        assert!(report.commands.is_clean(), "{:?}", report.commands);
        assert_eq!(report.commands.applied, 3);
        world.check_invariants().unwrap();
        assert_eq!(world.tick(), 1);
        assert_eq!(stamps(&world), [1, 1, 2], "threads {threads}");
        assert_eq!(world.len(), 10, "one despawn, two spawns");
        assert_eq!(world.resource::<LaterRuns>().unwrap().0, 1);
    }
}

/// Everything a test can see of a world: its checksum over every component and resource,
/// contents in visit order, the tick, a resource, the invariants, and the handles the next two
/// spawns get (probed, then undone through a snapshot).
type Fingerprint = (u64, Vec<i64>, Vec<i64>, Vec<u64>, u64, u32, Vec<Entity>);

fn fingerprint(world: &mut World) -> Fingerprint {
    world.check_invariants().unwrap();
    let saved = world.snapshot().unwrap();
    let next = vec![world.spawn_with((Stamp(9),)), world.spawn_with((Stamp(9),))];
    world.restore(&saved);
    (
        world.full_checksum().unwrap(),
        pos(world),
        vel(world),
        stamps(world),
        world.tick(),
        world.resource::<LaterRuns>().unwrap().0,
        next,
    )
}

fn full_schedule(threads: usize, inline_below: usize) -> Schedule {
    Schedule::builder()
        .add(stamper)
        .add(half_writer)
        .add(batch_mate)
        .add(later)
        .threads(threads)
        .inline_below(inline_below)
        .build()
        .unwrap()
}

/// `run_or_restore`: a tick that panics in its second batch — after the first batch's
/// commands were applied and while a batch-mate wrote and recorded commands — leaves the world
/// exactly as a twin that never ran the tick; the same tick then runs cleanly and ends where
/// the twin's plain `run` ends.
#[test]
fn run_or_restore_undoes_the_whole_tick_on_a_panic() {
    for (threads, inline_below) in [(1, usize::MAX), (4, 0)] {
        let mut schedule = full_schedule(threads, inline_below);
        let mut twin_schedule = full_schedule(threads, inline_below);
        let mut world = world();
        let mut twin = self::world();
        // A history first: one clean tick each (a despawn frees a slot, spawns reuse it).
        world.resource_mut::<Armed>().unwrap().0 = false;
        twin.resource_mut::<Armed>().unwrap().0 = false;
        let report = schedule.run_or_restore(&mut world).unwrap();
        assert_eq!(report.ran, twin_schedule.run(&mut twin).ran);
        assert_eq!(fingerprint(&mut world), fingerprint(&mut twin));

        world.resource_mut::<Armed>().unwrap().0 = true;
        let err = schedule.run_or_restore(&mut world).unwrap_err();
        let rota::TickError::Panicked(panics) = err else {
            panic!("expected a panic, got {err}");
        };
        assert_eq!(panics.systems(), ["half_writer"]);
        assert_eq!(panics.panics[0].message(), Some("half way"));
        // Back to before the tick: Armed is the only difference from the twin, undo it there.
        assert!(world.resource::<Armed>().unwrap().0, "restored as armed");
        twin.resource_mut::<Armed>().unwrap().0 = true;
        assert_eq!(
            fingerprint(&mut world),
            fingerprint(&mut twin),
            "threads {threads}"
        );

        // The same tick again, disarmed: the same result as the twin's plain run.
        world.resource_mut::<Armed>().unwrap().0 = false;
        twin.resource_mut::<Armed>().unwrap().0 = false;
        let report = schedule.run_or_restore(&mut world).unwrap();
        let twin_report = twin_schedule.run(&mut twin);
        assert_eq!(report.tick, 1);
        assert_eq!(report.ran, twin_report.ran);
        assert_eq!(report.commands, twin_report.commands);
        assert_eq!(
            fingerprint(&mut world),
            fingerprint(&mut twin),
            "threads {threads}"
        );
    }
}

#[derive(Component, Clone)]
#[component(no_snapshot)]
struct Handle(u32);

/// A world that cannot be snapshotted runs nothing under `run_or_restore`: a typed error
/// naming the component, and the world unchanged.
#[test]
fn run_or_restore_refuses_a_world_it_cannot_snapshot() {
    let mut schedule = full_schedule(2, 0);
    let mut world = world();
    world.resource_mut::<Armed>().unwrap().0 = false;
    world.spawn_with((Handle(1),));
    let before = world.checksum::<(Pos, Vel, Stamp)>();
    let err = schedule.run_or_restore(&mut world).unwrap_err();
    assert!(
        matches!(err, rota::TickError::Snapshot(_)),
        "expected a snapshot error, got {err:?}"
    );
    assert!(err.to_string().contains("Handle"), "{err}");
    assert_eq!(world.tick(), 0);
    assert_eq!(world.resource::<LaterRuns>().unwrap().0, 0);
    assert!(stamps(&world).is_empty());
    assert_eq!(world.checksum::<(Pos, Vel, Stamp)>(), before);
    assert_eq!(
        world.query::<&Handle>().map(|h| h.0).collect::<Vec<_>>(),
        [1]
    );
}
