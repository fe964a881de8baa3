//! A component's (or resource's) `Clone` or `Drop` that panics inside a world operation: the
//! world it unwinds out of is whole (`check_invariants`), nothing is half-done, and a restore
//! still restores everything. Found by an adversarial review (2026-12-04); each test failed
//! before its fix. Copy-on-write despawns are in `snapshot_cow.rs`, `Drop` panics in batched
//! despawns and command runs in `command_buffers.rs` and `pending_despawns.rs`.
//!
//! Arming is per thread, so these tests need no lock: the `Clone` or `Drop` runs on the
//! thread that called the operation.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::{Commands, Component, Entity, Query, Resource, Schedule, StableHash, World, system};

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the panicking `Clone`s and `Drop`s armed; whether it panicked.
fn armed<R>(f: impl FnOnce() -> R) -> bool {
    ARMED.with(|a| a.set(true));
    let panicked = catch_unwind(AssertUnwindSafe(f)).is_err();
    ARMED.with(|a| a.set(false));
    panicked
}

fn is_armed() -> bool {
    ARMED.with(Cell::get)
}

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Pos(i64);

/// `Clone` panics on 3 while armed.
#[derive(Component, StableHash, Debug, PartialEq)]
struct Fragile(u32);

impl Clone for Fragile {
    fn clone(&self) -> Self {
        assert!(!(self.0 == 3 && is_armed()), "Fragile::clone refuses 3");
        Fragile(self.0)
    }
}

/// `impl Drop` for a one-field tuple struct whose `Drop` panics on 1 while armed: `once`
/// disarms (one panic per arming), `every_time` does not (several values may panic in one
/// operation).
macro_rules! panics_on_one {
    ($name:ident, once) => {
        panics_on_one!($name, ARMED.with(|a| a.replace(false)));
    };
    ($name:ident, every_time) => {
        panics_on_one!($name, is_armed());
    };
    ($name:ident, $armed:expr) => {
        impl Drop for $name {
            fn drop(&mut self) {
                if self.0 == 1 && $armed {
                    panic!(concat!(stringify!($name), "(1) drop"));
                }
            }
        }
    };
}

/// `Drop` panics on 1 while armed, once (it disarms).
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Fuse(u32);

panics_on_one!(Fuse, once);

/// A component no world of these tests has before a spawn names it.
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Fresh;

/// A world holding `Fragile(3)`, whose columns a snapshot shares: taken, or restored.
fn shared_world(restored: bool) -> (World, rota::Snapshot) {
    let mut world = World::new();
    world.spawn_with((Fragile(3), Pos(3)));
    world.spawn_with((Pos(4),));
    let snapshot = world.snapshot().unwrap();
    if restored {
        world.spawn_with((Pos(5),));
        world.restore(&snapshot);
    }
    (world, snapshot)
}

/// A spawn copies the stores it appends to before it allocates the entity: a `Clone`
/// panicking in that copy leaves no half-spawned (alive, empty) entity behind, and the spawn
/// goes through once `Clone` works.
#[test]
fn a_spawn_whose_copy_panics_spawns_nothing() {
    type Spawn = fn(&mut World);
    let spawns: [(&str, Spawn); 3] = [
        ("spawn_with", |w| {
            w.spawn_with((Pos(9), Fragile(9)));
        }),
        // With a type the world has no store for yet: not registered either.
        ("spawn_batch", |w| {
            w.spawn_batch((0..3).map(|i| (Fresh, Fragile(10 + i))));
        }),
        ("commands", |w| {
            let mut commands = w.commands();
            commands.spawn((Pos(9), Fragile(9)));
            commands.spawn((Pos(10), Fragile(10)));
            let queue = commands.finish();
            let _ = w.apply(queue);
        }),
    ];
    for (path, spawn) in spawns {
        for restored in [false, true] {
            let case = format!("{path}, restored {restored}");
            let (mut world, snapshot) = shared_world(restored);
            let taken = snapshot.world().full_checksum().unwrap();
            let before = world.full_checksum().unwrap();
            let len = world.len();
            let names: Vec<&str> = world.component_names().collect();
            assert!(armed(|| spawn(&mut world)), "{case}: the copy panicked");
            let names_after: Vec<&str> = world.component_names().collect();
            assert_eq!(names_after, names, "{case}: no store registered");
            world
                .check_invariants()
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(world.len(), len, "{case}: an entity was left half-spawned");
            assert_eq!(world.full_checksum().unwrap(), before, "{case}");
            assert_eq!(snapshot.world().full_checksum().unwrap(), taken, "{case}");
            spawn(&mut world);
            world.check_invariants().unwrap();
            assert!(world.len() > len, "{case}");
            // Two entities before, one of them with a `Fragile`; every spawn adds one.
            assert_eq!(world.query::<&Fragile>().count(), world.len() - 1, "{case}");
        }
    }
}

/// `restore` overwrites a world's stores and resources, dropping what the world had and the
/// snapshot has not: a `Drop` panicking there still leaves the world a whole copy of the
/// snapshot (same checksum), then the panic goes on.
#[test]
fn a_restore_whose_drop_panics_restores_everything() {
    // What the world has and the snapshot has not: its own copy of a store (a write copied it)
    // holding `Fuse(1)`, a store registered later, a resource, many entities.
    type Diverge = fn(&mut World, rota::Entity);
    let divergences: [(&str, Diverge); 4] = [
        ("own copy", |w, a| {
            w.get_mut::<Fuse>(a).unwrap().0 = 1;
            w.spawn_with((Pos(5),));
        }),
        ("a store registered after the snapshot", |w, a| {
            w.spawn_with((Pos(1), Named(1)));
            w.despawn(a).unwrap();
        }),
        ("a resource the snapshot has not", |w, _| {
            w.insert_resource(Gauge(1));
            w.spawn_with((Pos(6),));
        }),
        ("many entities", |w, a| {
            w.get_mut::<Fuse>(a).unwrap().0 = 1;
            let many: Vec<_> = (0..40)
                .map(|i| w.spawn_with((Pos(i), Fuse(100 + i as u32))))
                .collect();
            w.despawn(many[7]).unwrap();
        }),
    ];
    for (name, diverge) in divergences {
        let mut world = World::new();
        let a = world.spawn_with((Pos(0), Fuse(0)));
        world.spawn_with((Pos(2),));
        let snapshot = world.snapshot().unwrap();
        let taken = snapshot.world().full_checksum().unwrap();
        diverge(&mut world, a);
        assert!(armed(|| world.restore(&snapshot)), "{name}: no panic");
        world
            .check_invariants()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(world.full_checksum().unwrap(), taken, "{name}");
        assert_eq!(snapshot.world().full_checksum().unwrap(), taken, "{name}");
    }
}

/// Makes a snapshot to overwrite, and the world to overwrite it from.
type Overwrite = fn() -> (rota::Snapshot, World);

/// `snapshot_into` and `Snapshot::clone_from` overwrite a snapshot, dropping what it alone
/// held: a `Drop` panicking there still leaves it a whole copy of the source.
#[test]
fn a_snapshot_overwrite_whose_drop_panics_copies_everything() {
    for into in [true, false] {
        // (case, the target, the world it is overwritten from)
        let cases: [(&str, Overwrite); 3] = [
            ("the target alone holds a value", || {
                let mut world = World::new();
                let a = world.spawn_with((Pos(0), Fuse(1)));
                let target = world.snapshot().unwrap();
                world.get_mut::<Fuse>(a).unwrap().0 = 7;
                world.spawn_with((Pos(3),));
                (target, world)
            }),
            ("the target alone holds a resource", || {
                let mut world = World::new();
                world.spawn_with((Pos(0),));
                world.insert_resource(Gauge(1));
                let target = world.snapshot().unwrap();
                // Dropped unarmed: the target's copy is the only `Gauge(1)` left.
                world.remove_resource::<Gauge>();
                world.spawn_with((Pos(3),));
                (target, world)
            }),
            ("the target's stores are another world's", || {
                let mut other = World::new();
                other.spawn_with((Pos(0), Named(1)));
                let target = other.snapshot().unwrap();
                let mut world = World::new();
                world.spawn_with((Pos(1), Fuse(0)));
                world.spawn_with((Pos(2),));
                (target, world)
            }),
        ];
        for (name, make) in cases {
            let case = format!(
                "{name}, {}",
                if into { "snapshot_into" } else { "clone_from" }
            );
            let (mut target, mut world) = make();
            let source = world.snapshot().unwrap();
            let expected = source.world().full_checksum().unwrap();
            let panicked = if into {
                drop(source);
                armed(|| world.snapshot_into(&mut target).unwrap())
            } else {
                armed(|| target.clone_from(&source))
            };
            assert!(panicked, "{case}: no panic");
            target
                .world()
                .check_invariants()
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(target.world().full_checksum().unwrap(), expected, "{case}");
            assert_eq!(world.full_checksum().unwrap(), expected, "{case}");
        }
    }
}

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Named(u32);

panics_on_one!(Named, once);

/// A resource whose `Drop` panics on 1 while armed, once.
#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
struct Gauge(u32);

panics_on_one!(Gauge, once);

#[system(writes(Pos))]
fn advance_and_despawn(mut q: Query<(Entity, &mut Pos)>, mut commands: Commands) {
    for (e, p) in &mut q {
        p.0 += 1;
        commands.despawn(e);
    }
}

#[system(reads(Pos), defers(Fuse))]
fn arm_fuses(q: Query<(Entity, &Pos)>, mut commands: Commands) {
    for (e, _) in &q {
        commands.insert(e, Fuse(1));
    }
}

#[system(reads(Fragile))]
fn fail(q: Query<&Fragile>) {
    assert!(q.iter().count() == usize::MAX, "a system panics");
}

/// `Schedule::run_or_restore` puts the world back whatever panics in the tick: a system (its
/// batch-mates' commands, dropped unapplied, may hold a value whose `Drop` panics too), or a
/// component's `Clone` while the commands are applied (the tick's own snapshot shares every
/// column, so a despawn copies first) — found by an adversarial review: the latter unwound out
/// of `run_or_restore` with the systems' writes kept.
#[test]
fn run_or_restore_restores_when_a_component_panics() {
    // A `Clone` panics while the despawns are applied: the panic goes on, the world restored.
    let mut world = World::new();
    world.spawn_with((Pos(1), Fragile(3)));
    world.spawn_with((Pos(2), Fragile(4)));
    let before = world.full_checksum().unwrap();
    let mut schedule = Schedule::builder()
        .add(advance_and_despawn)
        .build()
        .unwrap();
    assert!(
        armed(|| schedule.run_or_restore(&mut world)),
        "the copy panicked"
    );
    world.check_invariants().unwrap();
    assert_eq!(world.full_checksum().unwrap(), before);
    assert_eq!(world.tick(), 0);
    // `Clone` works again: the tick runs.
    schedule.run_or_restore(&mut world).unwrap();
    assert_eq!(world.len(), 0);

    // A system panics; a batch-mate's dropped commands hold `Fuse(1)`, whose `Drop` panics:
    // the systems' panics come back as the error, the world restored.
    let mut world = World::new();
    world.spawn_with((Pos(1), Fragile(0)));
    let before = world.full_checksum().unwrap();
    let mut schedule = Schedule::builder()
        .add(arm_fuses)
        .add(fail)
        .build()
        .unwrap();
    let mut result = None;
    let panicked = armed(|| result = Some(schedule.run_or_restore(&mut world)));
    assert!(!panicked, "run_or_restore returned");
    match result {
        Some(Err(rota::TickError::Panicked(panics))) => assert_eq!(panics.systems(), ["fail"]),
        other => panic!(
            "expected the systems' panics, got {:?}",
            other.map(|r| r.is_ok())
        ),
    }
    assert!(!ARMED.with(Cell::get), "the fuse's Drop ran (and disarmed)");
    world.check_invariants().unwrap();
    assert_eq!(world.full_checksum().unwrap(), before);
}

/// `Drop` panics on 1 while armed (not disarming: two of these panic in one operation).
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Bomb(u32);

panics_on_one!(Bomb, every_time);

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Mine(u32);

panics_on_one!(Mine, every_time);

/// Two panicking `Drop`s of different stores in one batched despawn or one restore: each
/// store's values are dropped under their own catch, so the second panic does not abort the
/// process while the first unwinds (as a loop of `despawn` never did), and the world is whole.
#[test]
fn two_panicking_drops_in_one_operation_do_not_abort() {
    let mut world = World::new();
    let e = world.spawn_with((Pos(0), Bomb(1), Mine(1)));
    let f = world.spawn_with((Pos(1),));
    assert!(armed(|| world.despawn_batch([e])));
    world.check_invariants().unwrap();
    assert!(!world.is_alive(e) && world.is_alive(f));
    assert_eq!(
        world.query::<&Bomb>().count() + world.query::<&Mine>().count(),
        0
    );

    let mut world = World::new();
    world.spawn_with((Pos(0),));
    let snapshot = world.snapshot().unwrap();
    let taken = snapshot.world().full_checksum().unwrap();
    world.spawn_with((Pos(1), Bomb(1), Mine(1)));
    assert!(armed(|| world.restore(&snapshot)));
    world.check_invariants().unwrap();
    assert_eq!(world.full_checksum().unwrap(), taken);
}
