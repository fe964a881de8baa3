//! `World::column_mut` against the world's own methods: the same random history is applied to
//! two worlds, one through `World::insert` / `remove` / `delete` / `get_mut`, the other through
//! `ColumnMut` handles (a fresh one per operation, or one held across a run of operations on
//! the same component), and after every step the two must agree on everything observable —
//! each call's result, every value of every entity handle ever made (stale ones included),
//! `Added`/`Changed` since the last checkpoint, the structural log, the store lengths, and
//! `check_invariants`.
//!
//! Components: `Num` (no drop glue: a delete leaves it dead in place, a later insert revives
//! it), `Name` (a `String`: swap-removed), `Tag` (zero-sized). Snapshots and restores hit the
//! copy-on-write paths of both.

use proptest::prelude::*;
use rota::{Added, Changed, Component, Entity, Snapshot, Tick, World};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Num(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag;

/// A change to one component type of one entity handle (an index into every handle made).
#[derive(Clone, Debug)]
enum Change {
    Insert(usize, u32),
    Remove(usize),
    Delete(usize),
    GetMut(usize, u32),
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Despawn(usize),
    /// Changes to component `0..3` (`Num`, `Name`, `Tag`); through the column side, all of
    /// them go through one handle.
    Changes(u8, Vec<Change>),
    Settle,
    Checkpoint,
    Snapshot,
    Restore,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        4 => (0..40usize, any::<u32>()).prop_map(|(e, v)| Change::Insert(e, v)),
        1 => (0..40usize).prop_map(Change::Remove),
        3 => (0..40usize).prop_map(Change::Delete),
        1 => (0..40usize, any::<u32>()).prop_map(|(e, v)| Change::GetMut(e, v)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Spawn),
        1 => (0..40usize).prop_map(Op::Despawn),
        6 => (0u8..3, prop::collection::vec(change(), 1..6)).prop_map(|(c, v)| Op::Changes(c, v)),
        1 => Just(Op::Settle),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Restore),
    ]
}

/// What one change returned, comparable across the two sides.
type Outcome = String;

/// Applies `changes` to component `T` through the world's own methods.
fn through_world<T: Component + Clone + std::fmt::Debug>(
    world: &mut World,
    handles: &[Entity],
    changes: &[Change],
    make: impl Fn(u32) -> T,
    write: impl Fn(&mut T, u32),
) -> Vec<Outcome> {
    changes
        .iter()
        .map(|c| match *c {
            Change::Insert(e, v) => format!("{:?}", world.insert(pick(handles, e), make(v))),
            Change::Remove(e) => format!("{:?}", world.remove::<T>(pick(handles, e))),
            Change::Delete(e) => format!("{:?}", world.delete::<T>(pick(handles, e))),
            Change::GetMut(e, v) => match world.get_mut::<T>(pick(handles, e)) {
                Some(x) => {
                    write(x, v);
                    "written".into()
                }
                None => "none".into(),
            },
        })
        .collect()
}

/// The same through one `ColumnMut` held for all of `changes`.
fn through_column<T: Component + Clone + std::fmt::Debug>(
    world: &mut World,
    handles: &[Entity],
    changes: &[Change],
    make: impl Fn(u32) -> T,
    write: impl Fn(&mut T, u32),
) -> Vec<Outcome> {
    let mut column = world.column_mut::<T>();
    changes
        .iter()
        .map(|c| match *c {
            Change::Insert(e, v) => format!("{:?}", column.insert(pick(handles, e), make(v))),
            Change::Remove(e) => format!("{:?}", column.remove(pick(handles, e))),
            Change::Delete(e) => format!("{:?}", column.delete(pick(handles, e))),
            Change::GetMut(e, v) => match column.get_mut(pick(handles, e)) {
                Some(x) => {
                    write(x, v);
                    "written".into()
                }
                None => "none".into(),
            },
        })
        .collect()
}

/// Handle `i` of those made so far (wrapping), or a handle no world ever made.
fn pick(handles: &[Entity], i: usize) -> Entity {
    if handles.is_empty() {
        return Entity::from_bits(u64::MAX >> 1);
    }
    handles[i % handles.len()]
}

/// Everything the test compares, as text: per handle its liveness and values, the change
/// filters since `since`, the store lengths and the structural log.
fn observe(world: &World, handles: &[Entity], since: Tick) -> String {
    let mut out = String::new();
    for &e in handles {
        out += &format!(
            "{e:?}: alive {} num {:?} name {:?} tag {}\n",
            world.is_alive(e),
            world.get::<Num>(e),
            world.get::<Name>(e),
            world.has::<Tag>(e)
        );
    }
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Num>>(since).collect();
    let added: Vec<Entity> = world.query_since::<Entity, Added<Num>>(since).collect();
    let named: Vec<Entity> = world.query_since::<Entity, Changed<Name>>(since).collect();
    let tagged: Vec<Entity> = world.query_since::<Entity, Added<Tag>>(since).collect();
    out += &format!("changed num {changed:?}\nadded num {added:?}\n");
    out += &format!("changed name {named:?}\nadded tag {tagged:?}\n");
    let num: Vec<(Entity, u32)> = world
        .query::<(Entity, &Num)>()
        .map(|(e, n)| (e, n.0))
        .collect();
    out += &format!("num walk {num:?}\n");
    out += &format!(
        "lens {} {} {}\n",
        world.store::<Num>().map_or(0, |s| s.len()),
        world.store::<Name>().map_or(0, |s| s.len()),
        world.store::<Tag>().map_or(0, |s| s.len())
    );
    if let Some(log) = world.structural_log() {
        let entries: Vec<String> = log.changes_since(0).map(|e| format!("{e:?}")).collect();
        out += &format!("log {entries:?}\n");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::cases(64),
        max_shrink_iters: crate::shrink_iters(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_column_handle_does_what_the_world_methods_do(ops in prop::collection::vec(op(), 1..50)) {
        let mut by_world = World::new();
        let mut by_column = World::new();
        by_world.enable_structural_log(4096);
        by_column.enable_structural_log(4096);
        let mut handles: Vec<Entity> = Vec::new();
        let mut since = Tick::new(0);
        // Both sides' snapshots, the handles and checkpoint of then, and what the first one
        // showed when it was taken.
        let mut snapshots: Option<(Snapshot, Snapshot, usize, Tick, String)> = None;
        for (step, op) in ops.iter().enumerate() {
            match op {
                Op::Spawn => {
                    let a = by_world.spawn();
                    let b = by_column.spawn();
                    prop_assert_eq!(a, b, "step {}: spawn", step);
                    handles.push(a);
                }
                Op::Despawn(i) => {
                    let e = pick(&handles, *i);
                    prop_assert_eq!(by_world.despawn(e), by_column.despawn(e), "step {}", step);
                }
                Op::Changes(c, changes) => {
                    let (a, b) = match c {
                        0 => (
                            through_world(&mut by_world, &handles, changes, Num, |x, v| x.0 = v),
                            through_column(&mut by_column, &handles, changes, Num, |x, v| x.0 = v),
                        ),
                        1 => {
                            let make = |v: u32| Name(v.to_string());
                            let write = |x: &mut Name, v: u32| x.0 = format!("w{v}");
                            (
                                through_world(&mut by_world, &handles, changes, make, write),
                                through_column(&mut by_column, &handles, changes, make, write),
                            )
                        }
                        _ => (
                            through_world(&mut by_world, &handles, changes, |_| Tag, |_, _| {}),
                            through_column(&mut by_column, &handles, changes, |_| Tag, |_, _| {}),
                        ),
                    };
                    prop_assert_eq!(a, b, "step {}: {:?}", step, op);
                }
                Op::Settle => {
                    by_world.settle();
                    by_column.settle();
                }
                Op::Checkpoint => {
                    since = by_world.change_checkpoint();
                    prop_assert_eq!(since, by_column.change_checkpoint());
                }
                Op::Snapshot => {
                    let a = by_world.snapshot().expect("every component clones");
                    let b = by_column.snapshot().expect("every component clones");
                    let seen = observe(a.world(), &handles, since);
                    snapshots = Some((a, b, handles.len(), since, seen));
                }
                Op::Restore => {
                    if let Some((a, b, ..)) = &snapshots {
                        by_world.restore(a);
                        by_column.restore(b);
                    }
                }
            }
            prop_assert_eq!(by_world.check_invariants(), Ok(()), "step {}: {:?}", step, op);
            prop_assert_eq!(by_column.check_invariants(), Ok(()), "step {}: {:?}", step, op);
            let seen = observe(&by_world, &handles, since);
            prop_assert_eq!(&seen, &observe(&by_column, &handles, since), "step {}: {:?}", step, op);
            // A snapshot taken earlier is unchanged by everything done since.
            if let Some((a, b, n, then, at)) = &snapshots {
                prop_assert_eq!(a.world().check_invariants(), Ok(()));
                prop_assert_eq!(b.world().check_invariants(), Ok(()));
                let a_now = observe(a.world(), &handles[..*n], *then);
                prop_assert_eq!(&a_now, at, "step {}: a snapshot changed", step);
                prop_assert_eq!(&observe(b.world(), &handles[..*n], *then), at, "step {}", step);
            }
        }
    }
}

#[test]
fn a_column_handle_of_a_new_type_registers_it_and_refuses_dead_handles() {
    let mut world = World::new();
    let e = world.spawn();
    world.despawn(e).unwrap();
    let mut tags = world.column_mut::<Tag>();
    assert!(tags.is_empty());
    assert_eq!(tags.insert(e, Tag), Err(rota::EntityNotAlive(e)));
    assert_eq!(tags.delete(e), Err(rota::EntityNotAlive(e)));
    assert_eq!(tags.remove(e), Err(rota::EntityNotAlive(e)));
    assert!(!tags.contains(e) && tags.get(e).is_none());
    assert!(world.store::<Tag>().is_some_and(|s| s.is_empty()));
    world.check_invariants().unwrap();
}
