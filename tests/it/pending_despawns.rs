//! Despawns whose store removals wait (`World::apply_queue`, `World::apply_and_settle_with`):
//! the cases an adversarial review found, each of which left a dead entity in a store before
//! its fix. After each, the world must be whole (`check_invariants`) and hold what a
//! one-command-at-a-time application would.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use rota::{Commands, Component, Entity, Query, Schedule, World, system};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct B(u32);

/// A reservation made before a `restore` names the slot's next generation; applied after a
/// despawn of the slot's restored occupant in the same buffer, the spawn must wait for the
/// stores to let go of that occupant. Slots at and around word boundaries of the pending
/// despawns' slot bits (0, 1, 63, 64, 65, 130).
#[test]
fn a_spawn_reserved_before_a_restore_waits_for_the_removal_of_its_slot() {
    for fillers in [0, 1, 63, 64, 65, 130] {
        spawn_after_restore_waits_for_slot(fillers);
    }
}

/// The case above for the slot after `fillers` live entities.
fn spawn_after_restore_waits_for_slot(fillers: u32) {
    let mut world = World::new();
    let kept: Vec<Entity> = world.spawn_batch((0..fillers).map(|i| (B(100 + i),)));
    let d = world.spawn_with((A(1), B(1)));
    assert_eq!(d.slot(), fillers);
    let saved = world.snapshot().unwrap();
    world.despawn(d).unwrap();
    let mut later = world.commands();
    let fresh = later.spawn((A(7),));
    let later = later.finish();
    assert_eq!(fresh.slot(), d.slot());
    world.restore(&saved);
    assert!(world.is_alive(d));

    let mut queue = world.commands();
    queue.despawn(d);
    let mut queue = queue.finish();
    queue.append(later);
    let report = world.apply(queue);

    assert!(report.is_clean(), "slot {fillers}: {report:?}");
    world.check_invariants().unwrap();
    assert!(!world.is_alive(d));
    assert_eq!(world.get::<A>(fresh), Some(&A(7)), "slot {fillers}");
    assert_eq!(world.get::<B>(fresh), None, "slot {fillers}");
    let a: Vec<(Entity, A)> = world
        .query::<(Entity, &A)>()
        .map(|(e, a)| (e, *a))
        .collect();
    assert_eq!(a, vec![(fresh, A(7))], "slot {fillers}");
    let b: Vec<Entity> = world.query::<(Entity, &B)>().map(|(e, _)| e).collect();
    assert_eq!(b, kept, "slot {fillers}");
}

static ARMED: AtomicBool = AtomicBool::new(false);
/// The tests that arm `Fuse` run one at a time.
static FUSE: Mutex<()> = Mutex::new(());

/// Its `Drop` panics once, when armed, for `Fuse(1)`.
#[derive(Component, Clone, Debug)]
struct Fuse(u32);

impl Drop for Fuse {
    fn drop(&mut self) {
        if self.0 == 1 && ARMED.swap(false, Ordering::SeqCst) {
            panic!("fuse {}", self.0);
        }
    }
}

/// Runs `f` with the fuse armed and the panic message silenced; whether it panicked.
fn with_fuse<R>(f: impl FnOnce() -> R) -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    ARMED.store(true, Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    ARMED.store(false, Ordering::SeqCst);
    std::panic::set_hook(hook);
    result.is_err()
}

#[test]
fn a_panicking_drop_in_a_remove_after_despawns_leaves_a_whole_world() {
    let _one = FUSE.lock().unwrap_or_else(PoisonError::into_inner);
    let mut world = World::new();
    let d = world.spawn_with((A(0),));
    let e = world.spawn_with((A(1), Fuse(1)));
    let mut commands = world.commands();
    commands.despawn(d);
    commands.remove::<Fuse>(e); // drops Fuse(1), which panics
    let queue = commands.finish();
    assert!(with_fuse(|| world.apply(queue)));
    world.check_invariants().unwrap();
    assert!(!world.is_alive(d));
    let a: Vec<Entity> = world.query::<(Entity, &A)>().map(|(e, _)| e).collect();
    assert_eq!(a, [e]);
}

#[test]
fn a_panicking_drop_in_a_replacing_insert_after_despawns_leaves_a_whole_world() {
    let _one = FUSE.lock().unwrap_or_else(PoisonError::into_inner);
    let mut world = World::new();
    let d = world.spawn_with((A(0),));
    let e = world.spawn_with((A(1), Fuse(1)));
    let mut commands = world.commands();
    commands.despawn(d);
    commands.insert(e, Fuse(2)); // replaces (drops) Fuse(1), which panics
    let queue = commands.finish();
    assert!(with_fuse(|| world.apply(queue)));
    world.check_invariants().unwrap();
    let a: Vec<Entity> = world.query::<(Entity, &A)>().map(|(e, _)| e).collect();
    assert_eq!(a, [e]);
}

#[derive(Component, Clone, Copy, Debug)]
struct Doomed;
#[derive(Component, Clone, Copy, Debug)]
struct Defuse;

#[system(reads(Doomed))]
fn killer(q: Query<(Entity, &Doomed)>, mut commands: Commands) {
    for (e, _) in &q {
        commands.despawn(e);
    }
}

#[system(reads(Defuse), defers(Fuse))]
fn defuser(q: Query<(Entity, &Defuse)>, mut commands: Commands) {
    for (e, _) in &q {
        commands.insert(e, Fuse(2));
    }
}

/// Both in one buffer: the despawns, then the replacing insert.
#[system(reads(Doomed, Defuse), defers(Fuse))]
fn both(q: Query<(Entity, Option<&Doomed>, Option<&Defuse>)>, mut commands: Commands) {
    for (e, doomed, defuse) in &q {
        if doomed.is_some() {
            commands.despawn(e);
        }
        if defuse.is_some() {
            commands.insert(e, Fuse(2));
        }
    }
}

#[test]
fn a_panicking_drop_after_despawns_in_a_schedule_leaves_a_whole_world_on_1_and_2_threads() {
    let _one = FUSE.lock().unwrap_or_else(PoisonError::into_inner);
    for (threads, one_system) in [(1, false), (2, false), (1, true), (2, true)] {
        let builder = Schedule::builder();
        let builder = if one_system {
            builder.add(both)
        } else {
            builder.add(killer).add(defuser)
        };
        let mut schedule = builder.threads(threads).inline_below(0).build().unwrap();
        let mut world = World::new();
        for i in 0..50 {
            world.spawn_with((A(i), Doomed));
        }
        world.spawn_with((A(99), Fuse(1), Defuse));
        assert!(with_fuse(|| schedule.run(&mut world)));
        world
            .check_invariants()
            .unwrap_or_else(|e| panic!("{threads} thread(s), one system {one_system}: {e}"));
        assert_eq!(world.query::<&A>().count(), world.len());
        // And the world goes on.
        schedule.run(&mut world);
        world.check_invariants().unwrap();
    }
}

/// `mem::forget` of an `UnsettledStore` (safe code) must not skip its removals.
#[test]
fn a_forgotten_unsettled_store_still_loses_its_despawned_entities() {
    let mut world = World::new();
    let es = world.spawn_batch((0..4).map(|i| (A(i),)));
    let mut commands = world.commands();
    commands.despawn(es[1]);
    let queue = commands.finish();
    let report = world.apply_and_settle_with([queue], |stores| {
        stores.into_iter().for_each(std::mem::forget);
    });
    assert!(report.is_clean());
    world.check_invariants().unwrap();
    let a: Vec<u32> = world.query::<&A>().map(|a| a.0).collect();
    assert_eq!(a, [0, 2, 3]);
}

/// A `settle` callback that panics: the world still finishes every store before the panic
/// goes on.
#[test]
fn a_panicking_settle_callback_leaves_a_whole_world() {
    let mut world = World::new();
    let es = world.spawn_batch((0..6).map(|i| (A(i), B(i))));
    let mut commands = world.commands();
    commands.despawn(es[0]);
    commands.despawn(es[3]);
    let queue = commands.finish();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.apply_and_settle_with([queue], |stores| {
            let mut stores = stores.into_iter();
            if let Some(first) = stores.next() {
                first.settle();
            }
            panic!("the scheduler failed");
        })
    }));
    std::panic::set_hook(hook);
    assert!(result.is_err());
    world.check_invariants().unwrap();
    let ab: Vec<(u32, u32)> = world.query::<(&A, &B)>().map(|(a, b)| (a.0, b.0)).collect();
    assert_eq!(ab, [(1, 1), (2, 2), (4, 4), (5, 5)]);
}

static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts its drops.
#[derive(Component, Clone, Debug)]
struct Counted;

impl Drop for Counted {
    fn drop(&mut self) {
        COUNTED.fetch_add(1, Ordering::SeqCst);
    }
}

#[system(reads(Doomed))]
fn doom(q: Query<(Entity, &Doomed)>, mut commands: Commands) {
    for (e, _) in &q {
        commands.despawn(e);
    }
}

/// A `Drop` that panics in the settle of one store: every other despawned value is still
/// dropped, the same number on 1 and 2 threads (the world finishes what the panic cut short).
#[test]
fn values_despawned_beside_a_panicking_drop_are_dropped_alike_on_1_and_2_threads() {
    let _one = FUSE.lock().unwrap_or_else(PoisonError::into_inner);
    let mut dropped = Vec::new();
    for threads in [1, 2] {
        let mut schedule = Schedule::builder()
            .add(doom)
            .threads(threads)
            .inline_below(0)
            .build()
            .unwrap();
        let mut world = World::new();
        world.spawn_with((Fuse(1), Doomed));
        for _ in 0..200 {
            world.spawn_with((Counted, Doomed));
        }
        COUNTED.store(0, Ordering::SeqCst);
        assert!(with_fuse(|| schedule.run(&mut world)));
        world.check_invariants().unwrap();
        assert_eq!(world.len(), 0);
        dropped.push(COUNTED.load(Ordering::SeqCst));
    }
    assert_eq!(dropped, [200, 200]);
}
