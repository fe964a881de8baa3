//! The small `Commands`/`CommandQueue` API that the model tests never looked at: `len`,
//! `is_empty`, `Debug`, and `CommandQueue::append` (which joins buffers in order). Added for the
//! survivors of the mutation run recorded in `docs/testing.md`.

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
