//! `World::snapshot` / `World::restore` against an oracle: a world that never did the extra
//! operations.
//!
//! * `restore_forgets_everything_after_the_snapshot` (proptest) — random operations `P`, a
//!   snapshot, random operations `X` (including component types and resources first registered
//!   after the snapshot), restore, then random operations `F`. The oracle is a fresh world that
//!   ran `P` then `F`. Compared right after the restore and again after `F`: every spawn in
//!   `F` returns the same handle, `full_checksum` and `World::checksum` agree, the visit order
//!   and values of queries over every store agree, `check_invariants` holds. A third world, a
//!   fresh `World::new()` restored from the same snapshot, must match too (restore into another
//!   world), and restoring twice must be the same as once; so must a snapshot written by
//!   `snapshot_into` over a snapshot of another world. Snapshots share the world's columns
//!   (copy-on-write), so the snapshots are compared with the oracle again after the world
//!   wrote on (`X`), and after the restored worlds wrote on (`F`).
//! * `full_checksum_is_history_independent` (proptest) — two worlds reaching the same contents
//!   through different registration orders hash alike under `full_checksum`.
//! * Unit tests: the excluded-component and excluded-resource errors name the type and leave no
//!   partial snapshot; an excluded type that is absent does not block a snapshot; the checksum
//!   errors name the unhashable type; `full_checksum` changes on each single edit it claims
//!   to cover (free-slot generations, resources, tags, the tick).

use proptest::collection::vec;
use proptest::prelude::*;
use rota::{
    ChecksumError, Component, Entity, Event, Resource, SnapshotError, StableHash, StableHasher,
    World,
};

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct A(u32);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct B(u64);

/// A heap-owning component: `clone_from` must copy the string, not share it.
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Name(String);

/// A zero-sized tag: its store's membership is the data.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Tag;

/// Registered only by operations after the snapshot (so restore must unregister it).
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Late(u32);

#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
struct Counter(u64);

/// Registered only after the snapshot.
#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
struct LateRes(u32);

#[derive(Clone, Debug)]
enum Op {
    /// Spawn with the components of `mask` (bit 0 A, 1 B, 2 Name, 3 Tag).
    Spawn(u8, u32),
    SpawnBatch(u8, u8),
    /// Despawn the `n % len`-th live entity.
    Despawn(usize),
    DespawnBatch(Vec<usize>),
    Insert(usize, u8, u32),
    Remove(usize, u8),
    /// Add `v` to every `A` through a writing query.
    Bump(u32),
    /// Write one entity's `A`, `B` or `Name` through `get_mut`.
    GetMut(usize, u8, u32),
    /// Write every `B` through a `for` loop and every `Name` through `for_each_run`.
    BumpLoops(u32),
    SetCounter(u64),
    RemoveCounter,
    Tick,
    Settle,
    /// Spawn one entity and despawn another through a command buffer.
    Commands(usize, u32),
    /// Only generated in the phase after the snapshot.
    InsertLate(usize, u32),
    SetLateRes(u32),
}

fn op(late: bool) -> BoxedStrategy<Op> {
    let common = prop_oneof![
        4 => (0u8..16, any::<u32>()).prop_map(|(m, v)| Op::Spawn(m, v)),
        1 => (0u8..16, 0u8..20).prop_map(|(m, n)| Op::SpawnBatch(m, n)),
        3 => any::<usize>().prop_map(Op::Despawn),
        1 => vec(any::<usize>(), 0..6).prop_map(Op::DespawnBatch),
        3 => (any::<usize>(), 0u8..4, any::<u32>()).prop_map(|(e, c, v)| Op::Insert(e, c, v)),
        2 => (any::<usize>(), 0u8..4).prop_map(|(e, c)| Op::Remove(e, c)),
        1 => any::<u32>().prop_map(Op::Bump),
        2 => (any::<usize>(), 0u8..3, any::<u32>()).prop_map(|(e, c, v)| Op::GetMut(e, c, v)),
        1 => any::<u32>().prop_map(Op::BumpLoops),
        1 => any::<u64>().prop_map(Op::SetCounter),
        1 => Just(Op::RemoveCounter),
        1 => Just(Op::Tick),
        1 => Just(Op::Settle),
        1 => (any::<usize>(), any::<u32>()).prop_map(|(e, v)| Op::Commands(e, v)),
    ];
    if late {
        prop_oneof![
            8 => common,
            1 => (any::<usize>(), any::<u32>()).prop_map(|(e, v)| Op::InsertLate(e, v)),
            1 => any::<u32>().prop_map(Op::SetLateRes),
        ]
        .boxed()
    } else {
        common.boxed()
    }
}

/// The `n`-th live entity (ascending slot order), if any.
fn pick(world: &World, n: usize) -> Option<Entity> {
    let len = world.len();
    (len > 0)
        .then(|| world.entities().iter().nth(n % len))
        .flatten()
}

fn spawn_mask(world: &mut World, mask: u8, v: u32) -> Entity {
    let e = world.spawn();
    insert_mask(world, e, mask, v);
    e
}

fn insert_mask(world: &mut World, e: Entity, mask: u8, v: u32) {
    if mask & 1 != 0 {
        world.insert(e, A(v)).unwrap();
    }
    if mask & 2 != 0 {
        world.insert(e, B(u64::from(v) << 3)).unwrap();
    }
    if mask & 4 != 0 {
        world.insert(e, Name(format!("n{v}"))).unwrap();
    }
    if mask & 8 != 0 {
        world.insert(e, Tag).unwrap();
    }
}

/// Applies `op`, returning every handle it spawned (in order).
fn apply(world: &mut World, op: &Op) -> Vec<Entity> {
    let mut spawned = Vec::new();
    match op {
        Op::Spawn(mask, v) => spawned.push(spawn_mask(world, *mask, *v)),
        Op::SpawnBatch(mask, n) => {
            for i in 0..*n {
                spawned.push(spawn_mask(world, *mask, u32::from(i)));
            }
        }
        Op::Despawn(n) => {
            if let Some(e) = pick(world, *n) {
                world.despawn(e).unwrap();
            }
        }
        Op::DespawnBatch(ns) => {
            let es: Vec<Entity> = ns.iter().filter_map(|&n| pick(world, n)).collect();
            world.despawn_batch(es);
        }
        Op::Insert(n, c, v) => {
            if let Some(e) = pick(world, *n) {
                insert_mask(world, e, 1 << c, *v);
            }
        }
        Op::Remove(n, c) => {
            if let Some(e) = pick(world, *n) {
                match c {
                    0 => {
                        let _ = world.remove::<A>(e).unwrap();
                    }
                    1 => {
                        let _ = world.remove::<B>(e).unwrap();
                    }
                    2 => {
                        let _ = world.remove::<Name>(e).unwrap();
                    }
                    _ => {
                        let _ = world.remove::<Tag>(e).unwrap();
                    }
                }
            }
        }
        Op::Bump(v) => world
            .query_mut::<&mut A>()
            .for_each(|a| a.0 = a.0.wrapping_add(*v)),
        Op::GetMut(n, c, v) => {
            if let Some(e) = pick(world, *n) {
                match c {
                    0 => {
                        if let Some(a) = world.get_mut::<A>(e) {
                            a.0 ^= *v;
                        }
                    }
                    1 => {
                        if let Some(b) = world.get_mut::<B>(e) {
                            b.0 = b.0.wrapping_add(u64::from(*v));
                        }
                    }
                    _ => {
                        if let Some(name) = world.get_mut::<Name>(e) {
                            name.0.push_str(&v.to_string());
                        }
                    }
                }
            }
        }
        Op::BumpLoops(v) => {
            for b in world.query_mut::<&mut B>() {
                b.0 = b.0.wrapping_mul(3).wrapping_add(u64::from(*v));
            }
            world.query_mut::<&mut Name>().for_each_run(|_, names| {
                for name in names {
                    name.0.push('+');
                }
            });
        }
        Op::SetCounter(v) => {
            let _ = world.insert_resource(Counter(*v));
        }
        Op::RemoveCounter => {
            let _ = world.remove_resource::<Counter>();
        }
        Op::Tick => world.advance_tick(),
        Op::Settle => world.settle(),
        Op::Commands(n, v) => {
            let victim = pick(world, *n);
            let mut commands = world.commands();
            spawned.push(commands.spawn((A(*v), Tag)));
            if let Some(e) = victim {
                commands.despawn(e);
            }
            let queue = commands.finish();
            assert!(world.apply(queue).is_clean());
        }
        Op::InsertLate(n, v) => {
            if let Some(e) = pick(world, *n) {
                world.insert(e, Late(*v)).unwrap();
            }
        }
        Op::SetLateRes(v) => {
            let _ = world.insert_resource(LateRes(*v));
        }
    }
    spawned
}

type Contents = (
    Vec<(Entity, u32)>,
    Vec<(Entity, u64)>,
    Vec<(Entity, String)>,
    Vec<Entity>,
    Vec<(Entity, u32)>,
    Option<u64>,
    Option<u32>,
);

/// Everything observable through queries and resources, in visit order.
fn contents(world: &World) -> Contents {
    (
        world
            .query::<(Entity, &A)>()
            .map(|(e, a)| (e, a.0))
            .collect(),
        world
            .query::<(Entity, &B)>()
            .map(|(e, b)| (e, b.0))
            .collect(),
        world
            .query::<(Entity, &Name)>()
            .map(|(e, n)| (e, n.0.clone()))
            .collect(),
        world.query::<(Entity, &Tag)>().map(|(e, _)| e).collect(),
        world
            .query::<(Entity, &Late)>()
            .map(|(e, l)| (e, l.0))
            .collect(),
        world.resource::<Counter>().ok().map(|c| c.0),
        world.resource::<LateRes>().ok().map(|r| r.0),
    )
}

fn assert_same(world: &World, oracle: &World, when: &str) -> Result<(), TestCaseError> {
    world
        .check_invariants()
        .map_err(|e| TestCaseError::fail(format!("{when}: {e}")))?;
    prop_assert_eq!(contents(world), contents(oracle), "{}: contents", when);
    prop_assert_eq!(world.tick(), oracle.tick(), "{}: tick", when);
    prop_assert_eq!(world.len(), oracle.len(), "{}: len", when);
    prop_assert_eq!(
        world.full_checksum().unwrap(),
        oracle.full_checksum().unwrap(),
        "{}: full_checksum",
        when
    );
    prop_assert_eq!(
        world.checksum::<(A, B, Name, Tag)>(),
        oracle.checksum::<(A, B, Name, Tag)>(),
        "{}: checksum",
        when
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn restore_forgets_everything_after_the_snapshot(
        before in vec(op(false), 0..40),
        extra in vec(op(true), 0..40),
        after in vec(op(true), 0..30),
    ) {
        let mut world = World::new();
        let mut oracle = World::new();
        for op in &before {
            apply(&mut world, op);
            apply(&mut oracle, op);
        }
        let snapshot = world.snapshot().unwrap();
        prop_assert_eq!(snapshot.tick(), world.tick());
        assert_same(snapshot.world(), &oracle, "the snapshot itself")?;
        // `snapshot_into` over a snapshot of another world (other types, other resources).
        let mut reused = {
            let mut other = World::new();
            other.spawn_with((Late(1), A(2), Name("other".into())));
            other.insert_resource(LateRes(1));
            other.snapshot().unwrap()
        };
        world.snapshot_into(&mut reused).unwrap();
        assert_same(reused.world(), &oracle, "snapshot_into a reused snapshot")?;
        for op in &extra {
            apply(&mut world, op);
        }
        // Copy-on-write: the world's writes since must not show in the snapshots sharing its
        // columns.
        assert_same(snapshot.world(), &oracle, "the snapshot after the world moved on")?;
        assert_same(reused.world(), &oracle, "snapshot_into after the world moved on")?;
        world.restore(&snapshot);
        assert_same(&world, &oracle, "right after restore")?;

        // Restoring into a world with another history, and restoring twice, give the same.
        let mut elsewhere = World::new();
        elsewhere.spawn_with((Late(7), B(1)));
        elsewhere.insert_resource(LateRes(3));
        elsewhere.restore(&reused);
        elsewhere.restore(&snapshot);
        assert_same(&elsewhere, &oracle, "restored into another world")?;

        for (i, op) in after.iter().enumerate() {
            let got = apply(&mut world, op);
            let want = apply(&mut oracle, op);
            let elsewhere_got = apply(&mut elsewhere, op);
            prop_assert_eq!(&got, &want, "spawned handles at future step {} ({:?})", i, op);
            prop_assert_eq!(&elsewhere_got, &want, "spawned handles (other world) at step {}", i);
        }
        assert_same(&world, &oracle, "after the same future")?;
        assert_same(&elsewhere, &oracle, "other world after the same future")?;
        // ... nor the restored worlds' writes.
        let mut untouched = World::new();
        for op in &before {
            apply(&mut untouched, op);
        }
        assert_same(snapshot.world(), &untouched, "the snapshot after restores and writes")?;
    }

    #[test]
    fn full_checksum_is_history_independent(
        values in vec((0u8..16, any::<u32>()), 1..20),
    ) {
        // Same contents; `b` meets the types in the opposite order and fills entities last
        // to first (so its stores also have another dense order until settled).
        let mut a = World::new();
        let mut b = World::new();
        let ea: Vec<Entity> = values.iter().map(|_| a.spawn()).collect();
        let eb: Vec<Entity> = values.iter().map(|_| b.spawn()).collect();
        for (e, &(mask, v)) in ea.iter().zip(&values) {
            insert_mask(&mut a, *e, mask, v);
        }
        for (e, &(mask, v)) in eb.iter().zip(&values).rev() {
            for bit in [8, 4, 2, 1] {
                insert_mask(&mut b, *e, mask & bit, v);
            }
        }
        prop_assert_eq!(contents(&a), contents(&b));
        prop_assert_eq!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
    }
}

#[derive(Component, Debug)]
#[component(no_snapshot)]
struct Handle(#[allow(dead_code)] std::sync::Mutex<u32>);

#[derive(Resource, Debug)]
#[resource(no_snapshot)]
struct Device(#[allow(dead_code)] std::sync::Mutex<u32>);

#[test]
fn an_excluded_component_that_entities_hold_fails_the_snapshot_naming_it() {
    let mut world = World::new();
    world.spawn_with((A(1),));
    let e = world.spawn_with((Handle(std::sync::Mutex::new(0)),));
    let err = world.snapshot().unwrap_err();
    assert_eq!(
        err,
        SnapshotError::ComponentExcluded {
            component: "Handle",
            held: 1
        }
    );
    assert!(err.to_string().contains("`Handle`"), "{err}");
    // `snapshot_into` refuses alike and leaves its target as it was.
    let mut target = World::new().snapshot().unwrap();
    assert_eq!(world.snapshot_into(&mut target), Err(err));
    assert_eq!(target.world().len(), 0);
    // Once no entity holds one, the store is snapshotted (and restored) as empty.
    world.remove::<Handle>(e).unwrap();
    let snapshot = world.snapshot().unwrap();
    world.insert(e, Handle(std::sync::Mutex::new(1))).unwrap();
    world.restore(&snapshot);
    assert!(!world.has::<Handle>(e));
    assert_eq!(
        world.get::<A>(world.entities().iter().next().unwrap()),
        Some(&A(1))
    );
    world.check_invariants().unwrap();
}

#[test]
fn an_excluded_resource_in_the_world_fails_the_snapshot_naming_it() {
    let mut world = World::new();
    world.insert_resource(Device(std::sync::Mutex::new(0)));
    let err = world.snapshot().unwrap_err();
    assert_eq!(err, SnapshotError::ResourceExcluded { resource: "Device" });
    assert!(err.to_string().contains("`Device`"), "{err}");
    world.remove_resource::<Device>();
    assert!(world.snapshot().is_ok());
}

#[test]
fn a_restored_resource_is_a_copy_not_a_share() {
    let mut world = World::new();
    world.insert_resource(Counter(1));
    let snapshot = world.snapshot().unwrap();
    world.resource_mut::<Counter>().unwrap().0 = 2;
    assert_eq!(snapshot.world().resource::<Counter>().unwrap().0, 1);
    world.restore(&snapshot);
    assert_eq!(world.resource::<Counter>().unwrap().0, 1);
    world.resource_mut::<Counter>().unwrap().0 = 3;
    assert_eq!(snapshot.world().resource::<Counter>().unwrap().0, 1);
}

#[derive(Component, Clone, Debug)]
struct Unhashed(#[allow(dead_code)] u32);

#[derive(Resource, Clone, Debug)]
struct UnhashedRes;

#[test]
fn full_checksum_names_what_it_cannot_hash() {
    let mut world = World::new();
    let e = world.spawn_with((A(1), Unhashed(2)));
    assert_eq!(
        world.full_checksum(),
        Err(ChecksumError::ComponentNotHashable {
            component: "Unhashed"
        })
    );
    // An empty store is not state: it does not block the checksum.
    world.remove::<Unhashed>(e).unwrap();
    assert!(world.full_checksum().is_ok());
    world.insert_resource(UnhashedRes);
    let err = world.full_checksum().unwrap_err();
    assert_eq!(
        err,
        ChecksumError::ResourceNotHashable {
            resource: "UnhashedRes"
        }
    );
    assert!(err.to_string().contains("`UnhashedRes`"), "{err}");
}

#[derive(Event, Clone, Debug)]
struct UnhashedEvent(#[allow(dead_code)] u32);

#[derive(Event, StableHash, Clone, Debug)]
struct Hit(u32);

/// Events are state: two worlds that differ only in an event's payload hash apart when the
/// event type derives `StableHash`; one without it (or generic) leaves payloads out, never
/// blocking the checksum.
#[test]
fn full_checksum_covers_event_payloads_that_can_be_hashed() {
    let mut world = World::new();
    world.init_events::<UnhashedEvent>(4);
    world.send_event(UnhashedEvent(1));
    let one = world.full_checksum().unwrap();
    let mut other = World::new();
    other.init_events::<UnhashedEvent>(4);
    other.send_event(UnhashedEvent(2));
    assert_eq!(
        other.full_checksum().unwrap(),
        one,
        "payloads without a hash are left out"
    );

    let (mut a, mut b) = (World::new(), World::new());
    a.send_event(Hit(1));
    b.send_event(Hit(2));
    assert_ne!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
    b.restore(&a.snapshot().unwrap());
    assert_eq!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
}

#[test]
fn full_checksum_changes_on_each_edit_it_covers() {
    let mut world = World::new();
    let a = world.spawn_with((A(1), Name("a".into())));
    let b = world.spawn_with((B(2), Tag));
    world.insert_resource(Counter(5));
    let base = world.full_checksum().unwrap();
    let mut seen = vec![base];
    let mut edit = |name: &str, f: &dyn Fn(&mut World)| {
        let mut w = World::new();
        w.restore(&world.snapshot().unwrap());
        f(&mut w);
        let sum = w.full_checksum().unwrap();
        assert!(
            !seen.contains(&sum),
            "edit `{name}` left the checksum unchanged"
        );
        seen.push(sum);
    };
    edit("a value", &|w| w.get_mut::<A>(a).unwrap().0 = 2);
    edit("a string", &|w| w.get_mut::<Name>(a).unwrap().0.push('!'));
    edit("a tag removed", &|w| {
        assert!(w.remove::<Tag>(b).unwrap().is_some())
    });
    edit("a tag moved", &|w| {
        w.remove::<Tag>(b).unwrap();
        w.insert(a, Tag).unwrap();
    });
    edit("a resource value", &|w| {
        w.resource_mut::<Counter>().unwrap().0 = 6
    });
    edit("a resource removed", &|w| {
        assert!(w.remove_resource::<Counter>().is_some())
    });
    edit("the tick", &|w| w.advance_tick());
    edit("an empty entity", &|w| {
        w.spawn();
    });
    // A free slot's generation decides the next handle: it is part of the state.
    edit("a free slot's generation", &|w| {
        let c = w.spawn();
        w.despawn(c).unwrap();
    });
}

#[test]
fn generic_components_are_snapshotted_when_clone() {
    #[derive(Component, Clone, Debug, PartialEq)]
    struct Wrapper<T>(T);
    let mut world = World::new();
    let e = world.spawn_with((Wrapper(1u8), Wrapper(String::from("s"))));
    let snapshot = world.snapshot().unwrap();
    world.get_mut::<Wrapper<u8>>(e).unwrap().0 = 9;
    world.restore(&snapshot);
    assert_eq!(world.get::<Wrapper<u8>>(e), Some(&Wrapper(1)));
    assert_eq!(world.get::<Wrapper<String>>(e), Some(&Wrapper("s".into())));
}

/// The hash the checksum feeds for a component is its `StableHash`, found by the derive.
#[test]
fn the_derive_finds_stable_hash() {
    let hash = <A as Component>::stable_hash_fn().expect("A derives StableHash");
    let (mut via_fn, mut direct) = (StableHasher::new(), StableHasher::new());
    hash(&A(7), &mut via_fn);
    A(7).stable_hash(&mut direct);
    assert_eq!(via_fn.finish(), direct.finish());
    assert!(<Unhashed as Component>::stable_hash_fn().is_none());
    assert!(<Counter as Resource>::stable_hash_fn().is_some());
    assert!(<UnhashedRes as Resource>::stable_hash_fn().is_none());
}

#[test]
fn a_cloned_snapshot_holds_the_same_state() {
    let mut world = World::new();
    world.spawn_with((A(1), Name("x".into())));
    let saved = world.snapshot().unwrap();
    let copy = saved.clone();
    world.spawn_with((B(2),));
    let mut reused = saved.clone();
    reused.clone_from(&world.snapshot().unwrap());
    assert_eq!(reused.world().full_checksum(), world.full_checksum());
    assert_eq!(contents(reused.world()), contents(&world));
    world.restore(&copy);
    assert_eq!(world.full_checksum(), saved.world().full_checksum());
    assert_eq!(contents(&world), contents(saved.world()));
}
