//! The small `Commands`/`CommandQueue` API that the model tests never looked at: `len`,
//! `is_empty`, `Debug`, and `CommandQueue::append` (which joins buffers in order). Mutants of
//! these survived the model tests (`cargo xtask mutants`, `docs/testing.md`).

use rota::{CommandQueue, Component, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Hp(u32);

#[test]
fn len_is_empty_and_debug_count_recorded_commands() {
    let mut world = World::new();
    let e = world.spawn_with((Hp(1),));
    let mut commands = world.commands();
    assert!(commands.is_empty());
    assert_eq!(format!("{commands:?}"), "Commands { len: 0 }");
    commands.insert(e, Hp(2));
    commands.spawn((Hp(3),));
    assert!(!commands.is_empty());
    assert_eq!(commands.len(), 2);
    assert_eq!(format!("{commands:?}"), "Commands { len: 2 }");
    let queue = commands.finish();
    assert!(!queue.is_empty());
    assert_eq!(queue.len(), 2);
    assert_eq!(format!("{queue:?}"), "CommandQueue { len: 2 }");
    let empty = CommandQueue::default();
    assert!(empty.is_empty());
    assert_eq!(format!("{empty:?}"), "CommandQueue { len: 0 }");
}

#[test]
fn append_joins_queues_and_applies_in_order() {
    let mut world = World::new();
    let e = world.spawn_with((Hp(1),));
    let mut first = world.commands();
    first.insert(e, Hp(2));
    let mut first = first.finish();
    let mut second = world.commands();
    second.insert(e, Hp(3));
    second.remove::<Hp>(e);
    second.insert(e, Hp(4));
    first.append(second.finish());
    assert_eq!(first.len(), 4);
    let report = world.apply(first);
    assert_eq!(report.applied, 4);
    assert!(report.is_clean());
    // The last insert, from the appended queue, wins.
    assert_eq!(world.get::<Hp>(e), Some(&Hp(4)));
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Tag;

/// Consecutive despawns are batched (freed in order, stores emptied once the run ends): a
/// repeated handle is still reported dead at its own index, and a spawn right after the run
/// (a queued closure: `Commands::spawn` reserves a fresh slot when recorded) reuses a freed
/// slot without meeting the despawned entity's components.
#[test]
fn a_run_of_despawns_reports_repeats_and_the_spawn_after_it_starts_clean() {
    let mut world = World::new();
    let es: Vec<_> = (0..6).map(|i| world.spawn_with((Hp(i), Tag))).collect();
    let mut commands = world.commands();
    commands.despawn(es[1]);
    commands.despawn(es[4]);
    commands.despawn(es[1]); // repeated: dead by then
    commands.despawn(es[3]);
    commands.queue(|w| {
        w.spawn_with((Hp(10),)); // the lowest freed slot: 1
    });
    commands.despawn(es[5]);
    let report = world.apply(commands.finish());
    assert_eq!(report.applied, 5);
    assert_eq!(report.errors.len(), 1);
    assert!(
        matches!(
            report.errors[0],
            rota::CommandError::EntityNotAlive { index: 2, entity, .. } if entity == es[1]
        ),
        "{:?}",
        report.errors
    );
    let hp: Vec<u32> = world.query::<&Hp>().map(|h| h.0).collect();
    assert_eq!(hp, [0, 10, 2]);
    // The newcomer took slot 1 (the lowest freed) and has no `Tag` of the entity before it.
    let tagged: Vec<u32> = world.query::<(&Hp, &Tag)>().map(|(h, _)| h.0).collect();
    assert_eq!(tagged, [0, 2]);
    world.check_invariants().unwrap();
}

// A component whose `Drop` panics, despawned in a batch: the stores are made consistent before
// any removed value is dropped, so the panic unwinds out of a whole world. (Found by review:
// the batched removal first dropped values inside one column's compaction, before the other
// columns were compacted.)

thread_local! {
    static ARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[derive(Component, Clone, Debug)]
struct Fuse(u32);

impl Drop for Fuse {
    fn drop(&mut self) {
        if self.0 == 1 && ARMED.with(|a| a.replace(false)) {
            panic!("fuse {}", self.0);
        }
    }
}

/// `[(Hp, Fuse(1)), (Hp), (Hp, Fuse(0))]` plus `extra` more `Fuse` holders: with none, the
/// `Fuse` store is compacted; with 40, it swap-removes one by one.
fn fused_world(extra: u32) -> (World, [rota::Entity; 3]) {
    let mut world = World::new();
    let a = world.spawn_with((Hp(0), Fuse(1)));
    let b = world.spawn_with((Hp(1),));
    let c = world.spawn_with((Hp(2), Fuse(0)));
    world.spawn_batch((0..extra).map(|i| (Fuse(10 + i),)));
    (world, [a, b, c])
}

fn assert_whole_after_the_panic(world: &mut World, gone: [rota::Entity; 3], extra: u32) {
    world
        .check_invariants()
        .unwrap_or_else(|e| panic!("{extra} extra: {e}"));
    assert!(gone.iter().all(|&e| !world.is_alive(e)));
    assert_eq!(world.query::<&Hp>().count(), 0);
    assert_eq!(world.query::<&Fuse>().count(), extra as usize);
    // The world goes on working: a spawn may reuse a freed slot.
    let e = world.spawn_with((Hp(9), Fuse(9)));
    world.settle();
    assert_eq!(world.get::<Fuse>(e).map(|f| f.0), Some(9));
    world.check_invariants().unwrap();
}

#[test]
fn a_panicking_drop_in_a_run_of_despawns_leaves_a_whole_world() {
    for extra in [0, 40] {
        let (mut world, es) = fused_world(extra);
        let mut commands = world.commands();
        for e in es {
            commands.despawn(e);
        }
        let queue = commands.finish();
        ARMED.with(|a| a.set(true));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.apply(queue)));
        ARMED.with(|a| a.set(false));
        assert!(result.is_err(), "the fuse's drop panicked");
        assert_whole_after_the_panic(&mut world, es, extra);
    }
}

#[test]
fn a_panicking_drop_in_despawn_batch_leaves_a_whole_world() {
    for extra in [0, 40] {
        let (mut world, es) = fused_world(extra);
        ARMED.with(|a| a.set(true));
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn_batch(es)));
        ARMED.with(|a| a.set(false));
        assert!(result.is_err(), "the fuse's drop panicked");
        assert_whole_after_the_panic(&mut world, es, extra);
    }
}

#[derive(Component, Clone, Debug)]
struct Label(String);

/// A single `despawn` whose component's `Drop` panics goes on through the entity's other
/// components (the stores after the panicking one included), frees the entity, and then lets
/// the panic go on: the world is whole and the entity entirely gone.
#[test]
fn a_panicking_drop_in_despawn_leaves_a_whole_world() {
    for extra in [0, 40] {
        let (mut world, [a, b, c]) = fused_world(extra);
        // A store registered after `Fuse`'s, holding `a` too (with and without drop glue).
        world.insert(a, Label("a".into())).unwrap();
        world.insert(a, Tag).unwrap();
        ARMED.with(|armed| armed.set(true));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(a)));
        ARMED.with(|armed| armed.set(false));
        assert!(result.is_err(), "the fuse's drop panicked");
        world
            .check_invariants()
            .unwrap_or_else(|e| panic!("{extra} extra: {e}"));
        assert!(!world.is_alive(a));
        assert_eq!(world.query::<&Label>().count(), 0);
        assert_eq!(world.query::<&Tag>().count(), 0);
        assert_eq!(world.query::<&Hp>().count(), 2);
        assert_eq!(world.query::<&Fuse>().count(), 1 + extra as usize);
        assert!(world.is_alive(b) && world.is_alive(c));
        // The world goes on working: a spawn may reuse the freed slot.
        let e = world.spawn_with((Hp(9), Label("e".into())));
        assert_eq!(world.get::<Label>(e).map(|l| l.0.as_str()), Some("e"));
        assert_eq!(world.get::<Tag>(e), None);
        world.check_invariants().unwrap();
    }
}

/// A `despawn_batch` whose iterator panics part-way (after 40 of 100 entities — past one
/// read-ahead chunk) leaves the entities it yielded despawned, the rest alive, and the world
/// whole.
#[test]
fn despawn_batch_interrupted_by_a_panicking_iterator_leaves_a_whole_world() {
    let mut world = World::new();
    let es = world.spawn_batch((0..100).map(|i| (Hp(i),)));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.despawn_batch(es.iter().enumerate().map(|(k, &e)| {
            assert!(k < 40, "the iterator gives up");
            e
        }))
    }));
    assert!(result.is_err(), "the iterator panicked");
    world.check_invariants().unwrap();
    assert!(es[..40].iter().all(|&e| !world.is_alive(e)));
    let left: Vec<u32> = world.query::<&Hp>().map(|hp| hp.0).collect();
    assert_eq!(left, (40..100).collect::<Vec<u32>>());
}
