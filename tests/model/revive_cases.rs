//! Hand-written sequences around deletes, revives in place and snapshots (from the review of
//! the one-lookup insert and delete paths, `5f7e26a`): copy-on-write of each half, stale tags
//! after compaction, swap-removes moving dead elements, reused slots, `no_snapshot` stores
//! emptied when all dead, sparse page boundaries, and command buffers.

use rota::{Added, Changed, Component, Entity, StableHash, Tick, World};

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct P(u32);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Z;

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
#[component(no_snapshot)]
struct X(u32);

fn ps(world: &World) -> Vec<(Entity, u32)> {
    world
        .query::<(Entity, &P)>()
        .map(|(e, p)| (e, p.0))
        .collect()
}

fn added_since(world: &World, t: Tick) -> Vec<Entity> {
    world.query_since::<Entity, Added<P>>(t).collect()
}

fn changed_since(world: &World, t: Tick) -> Vec<Entity> {
    world.query_since::<Entity, Changed<P>>(t).collect()
}

fn dense(world: &World) -> usize {
    world.store::<P>().map_or(0, |s| s.dense_entities().len())
}

#[test]
fn delete_then_insert_after_snapshot_leaves_snapshot_alone() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn_with((P(i), Z))).collect();
    let t0 = world.change_checkpoint();
    let snap = world.snapshot().unwrap();
    let before = ps(snap.world());
    let sum = snap.world().full_checksum().unwrap();

    // Shared index: delete copies the index only.
    assert_eq!(world.delete::<P>(es[2]), Ok(true));
    assert!(world.shares_columns_with::<P>(&snap).unwrap().values);
    assert!(!world.shares_columns_with::<P>(&snap).unwrap().index);
    assert_eq!(ps(snap.world()), before);
    // Owned index, shared values: revive copies the values.
    let d0 = dense(&world);
    assert_eq!(world.insert(es[2], P(100)), Ok(None));
    assert_eq!(dense(&world), d0, "revived in place");
    assert!(!world.shares_columns_with::<P>(&snap).unwrap().values);
    assert_eq!(ps(snap.world()), before);
    assert_eq!(snap.world().full_checksum().unwrap(), sum);
    assert_eq!(world.get::<P>(es[2]), Some(&P(100)));
    assert_eq!(added_since(&world, t0), vec![es[2]]);
    assert_eq!(changed_since(&world, t0), vec![es[2]]);
    assert!(added_since(snap.world(), t0).is_empty());
    world.check_invariants().unwrap();
    snap.world().check_invariants().unwrap();

    // Restore, then the same in the other order.
    world.restore(&snap);
    assert_eq!(ps(&world), before);
    assert_eq!(world.insert(es[3], P(7)), Ok(Some(P(3))));
    assert_eq!(world.delete::<P>(es[3]), Ok(true));
    assert_eq!(ps(snap.world()), before);
    assert_eq!(snap.world().full_checksum().unwrap(), sum);
    world.check_invariants().unwrap();
    world.restore(&snap);
    assert_eq!(ps(&world), before);
    world.check_invariants().unwrap();
}

#[test]
fn revive_through_a_shared_index() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn_with((P(i),))).collect();
    assert_eq!(world.delete::<P>(es[1]), Ok(true));
    // The snapshot takes a store with a dead element and a dead-tagged entry.
    let snap = world.snapshot().unwrap();
    let sum = snap.world().full_checksum().unwrap();
    let t0 = world.change_checkpoint();
    assert!(world.shares_columns_with::<P>(&snap).unwrap().index);
    let d0 = dense(&world);
    assert_eq!(world.insert(es[1], P(11)), Ok(None));
    assert_eq!(dense(&world), d0, "revived in place");
    let sc = world.shares_columns_with::<P>(&snap).unwrap();
    assert!(!sc.index && !sc.values);
    assert_eq!(snap.world().get::<P>(es[1]), None);
    assert!(!snap.world().has::<P>(es[1]));
    assert_eq!(snap.world().full_checksum().unwrap(), sum);
    assert_eq!(world.get::<P>(es[1]), Some(&P(11)));
    assert_eq!(added_since(&world, t0), vec![es[1]]);
    snap.world().check_invariants().unwrap();
    world.check_invariants().unwrap();
    // Restore: the dead element comes back with the snapshot, and can be revived again.
    world.restore(&snap);
    assert_eq!(world.get::<P>(es[1]), None);
    assert_eq!(world.insert(es[1], P(12)), Ok(None));
    assert_eq!(snap.world().get::<P>(es[1]), None);
    assert_eq!(world.get::<P>(es[1]), Some(&P(12)));
    world.check_invariants().unwrap();
    // Restore into a fresh world, revive there.
    let mut fresh = World::new();
    fresh.restore(&snap);
    assert_eq!(fresh.insert(es[1], P(13)), Ok(None));
    assert_eq!(fresh.get::<P>(es[1]), Some(&P(13)));
    assert_eq!(snap.world().get::<P>(es[1]), None);
    fresh.check_invariants().unwrap();
    // A delete of something not held while shared copies nothing.
    let mut w2 = World::new();
    w2.restore(&snap);
    assert_eq!(w2.delete::<P>(es[1]), Ok(false));
    assert!(w2.shares_columns_with::<P>(&snap).unwrap().index);
}

#[test]
fn a_reused_slot_does_not_revive_the_old_entitys_dead_element() {
    let mut world = World::new();
    let a = world.spawn_with((P(1),));
    let keep = world.spawn_with((P(2),));
    let t0 = world.change_checkpoint();
    // Despawn: forget_held marks a's element dead (tagged).
    world.despawn(a).unwrap();
    let b = world.spawn();
    assert_eq!(b.slot(), a.slot(), "slot reused");
    assert_ne!(a, b);
    assert_eq!(world.insert(b, P(3)), Ok(None));
    assert_eq!(ps(&world), vec![(b, 3), (keep, 2)]);
    assert_eq!(added_since(&world, t0), vec![b]);
    assert_eq!(world.get::<P>(a), None);
    assert!(world.insert(a, P(9)).is_err());
    assert!(world.delete::<P>(a).is_err());
    world.check_invariants().unwrap();
    // b's own delete/insert revives b's element.
    let d0 = dense(&world);
    assert_eq!(world.delete::<P>(b), Ok(true));
    assert_eq!(world.insert(b, P(4)), Ok(None));
    assert_eq!(dense(&world), d0);
    assert_eq!(ps(&world), vec![(b, 4), (keep, 2)]);
    world.check_invariants().unwrap();
    world.settle();
    assert_eq!(ps(&world), vec![(b, 4), (keep, 2)]);
    world.check_invariants().unwrap();
}

#[test]
fn deleted_then_despawned_then_reused_slot() {
    let mut world = World::new();
    let a = world.spawn_with((P(1), Z));
    let keep = world.spawn_with((P(2), Z));
    assert_eq!(world.delete::<P>(a), Ok(true));
    assert_eq!(world.delete::<Z>(a), Ok(true));
    world.despawn(a).unwrap(); // membership no longer lists P/Z: the dead-tagged entries stay
    let snap = world.snapshot().unwrap();
    let b = world.spawn();
    assert_eq!(b.slot(), a.slot());
    let t0 = world.change_checkpoint();
    assert_eq!(world.insert(b, P(5)), Ok(None));
    assert_eq!(world.insert(b, Z), Ok(None));
    assert_eq!(ps(&world), vec![(b, 5), (keep, 2)]);
    assert_eq!(added_since(&world, t0), vec![b]);
    let zs: Vec<Entity> = world.query::<(Entity, &Z)>().map(|(e, _)| e).collect();
    assert_eq!(zs, vec![b, keep]);
    world.check_invariants().unwrap();
    assert_eq!(ps(snap.world()), vec![(keep, 2)]);
    snap.world().check_invariants().unwrap();
    // Same on a world restored from the snapshot (shared index path).
    let mut w2 = World::new();
    w2.restore(&snap);
    let c = w2.spawn();
    assert_eq!(c.slot(), a.slot());
    assert_eq!(w2.insert(c, P(6)), Ok(None));
    assert_eq!(ps(&w2), vec![(c, 6), (keep, 2)]);
    w2.check_invariants().unwrap();
    assert_eq!(ps(snap.world()), vec![(keep, 2)]);
}

#[test]
fn compaction_then_reinsert_appends() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn_with((P(i),))).collect();
    for &e in &es[..7] {
        assert_eq!(world.delete::<P>(e), Ok(true));
    }
    let snap = world.snapshot().unwrap();
    // The append compacts first (7 dead > 3 live): the tags go stale.
    let n = world.spawn_with((P(100),));
    world.check_invariants().unwrap();
    for (i, &e) in es[..7].iter().enumerate() {
        assert_eq!(world.insert(e, P(200 + i as u32)), Ok(None));
        world.check_invariants().unwrap();
    }
    let mut exp: Vec<(Entity, u32)> = es[..7]
        .iter()
        .enumerate()
        .map(|(i, &e)| (e, 200 + i as u32))
        .collect();
    exp.extend(es[7..].iter().map(|&e| (e, e.slot())));
    exp.push((n, 100));
    assert_eq!(ps(&world), exp);
    assert_eq!(
        ps(snap.world()),
        es[7..].iter().map(|&e| (e, e.slot())).collect::<Vec<_>>()
    );
    world.settle();
    assert_eq!(ps(&world), exp);
    world.check_invariants().unwrap();
}

#[test]
fn swap_removed_neighbour_moves_a_dead_element_then_revive() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn_with((P(i),))).collect();
    // Dead at the end, then a swap-remove moves it into the hole.
    assert_eq!(world.delete::<P>(es[5]), Ok(true));
    assert_eq!(world.remove::<P>(es[1]), Ok(Some(P(1))));
    world.check_invariants().unwrap();
    let snap = world.snapshot().unwrap();
    let d0 = dense(&world);
    assert_eq!(world.insert(es[5], P(55)), Ok(None));
    assert_eq!(dense(&world), d0, "revived at its new place");
    assert_eq!(world.store::<P>().unwrap().dense_index(es[5]), Some(1));
    assert_eq!(
        ps(&world),
        vec![(es[0], 0), (es[2], 2), (es[3], 3), (es[4], 4), (es[5], 55)]
    );
    assert_eq!(snap.world().get::<P>(es[5]), None);
    world.check_invariants().unwrap();
}

#[test]
fn excluded_store_emptied_when_all_dead_then_reinserted() {
    let mut world = World::new();
    let a = world.spawn_with((X(1),));
    let b = world.spawn_with((X(2),));
    assert_eq!(world.delete::<X>(a), Ok(true));
    assert_eq!(world.delete::<X>(b), Ok(true));
    world.check_invariants().unwrap();
    assert_eq!(world.store::<X>().unwrap().dense_entities().len(), 0);
    let c = world.spawn_with((X(3),));
    assert_eq!(world.insert(b, X(4)), Ok(None));
    assert_eq!(world.delete::<X>(b), Ok(true)); // dead at 1 (b's tag: 1)
    assert_eq!(world.insert(a, X(5)), Ok(None)); // a's stale tag says 0, c lives there
    world.check_invariants().unwrap();
    let xs: Vec<(Entity, u32)> = world
        .query::<(Entity, &X)>()
        .map(|(e, x)| (e, x.0))
        .collect();
    assert_eq!(xs, vec![(a, 5), (c, 3)]);
    assert_eq!(world.insert(b, X(6)), Ok(None));
    let xs: Vec<(Entity, u32)> = world
        .query::<(Entity, &X)>()
        .map(|(e, x)| (e, x.0))
        .collect();
    assert_eq!(xs, vec![(a, 5), (b, 6), (c, 3)]);
    world.check_invariants().unwrap();
    world.despawn(a).unwrap();
    world.despawn(b).unwrap();
    world.despawn(c).unwrap();
    world.check_invariants().unwrap();
    assert!(world.snapshot().is_ok());
}

#[test]
fn tag_component_delete_insert_with_snapshot() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..4).map(|_| world.spawn_with((Z,))).collect();
    let snap = world.snapshot().unwrap();
    let t0 = world.change_checkpoint();
    assert_eq!(world.delete::<Z>(es[0]), Ok(true));
    assert_eq!(world.insert(es[0], Z), Ok(None));
    assert_eq!(world.delete::<Z>(es[3]), Ok(true));
    let got: Vec<Entity> = world.query_since::<Entity, Added<Z>>(t0).collect();
    assert_eq!(got, vec![es[0]]);
    let zs: Vec<Entity> = snap
        .world()
        .query::<(Entity, &Z)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(zs, es);
    world.check_invariants().unwrap();
}

#[test]
fn high_slots_cross_a_sparse_page() {
    let mut world = World::new();
    let pad: Vec<Entity> = (0..4100).map(|_| world.spawn()).collect();
    let hi = pad[4099];
    let lo = pad[3];
    // P's store has no page 0 yet.
    assert_eq!(world.insert(hi, P(1)), Ok(None));
    assert_eq!(world.delete::<P>(lo), Ok(false));
    assert_eq!(world.delete::<P>(hi), Ok(true));
    let snap = world.snapshot().unwrap();
    assert_eq!(world.insert(lo, P(2)), Ok(None));
    assert_eq!(world.insert(hi, P(3)), Ok(None));
    assert_eq!(ps(&world), vec![(lo, 2), (hi, 3)]);
    assert_eq!(ps(snap.world()), vec![]);
    world.check_invariants().unwrap();
    world.despawn(hi).unwrap();
    let again = world.spawn();
    assert_eq!(again.slot(), hi.slot());
    assert_eq!(world.insert(again, P(4)), Ok(None));
    assert_eq!(ps(&world), vec![(lo, 2), (again, 4)]);
    world.check_invariants().unwrap();
}

#[test]
fn commands_remove_then_insert_revive_and_despawn_in_one_buffer() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..8).map(|i| world.spawn_with((P(i),))).collect();
    let snap = world.snapshot().unwrap();
    let t0 = world.change_checkpoint();
    let mut commands = world.commands();
    commands.remove::<P>(es[2]);
    commands.insert(es[2], P(22));
    commands.remove::<P>(es[4]);
    commands.despawn(es[4]);
    commands.remove::<P>(es[5]);
    commands.despawn(es[6]);
    commands.insert(es[6], P(66)); // dead by then: skipped
    let n = commands.spawn((P(99),));
    commands.insert(es[5], P(55));
    let queue = commands.finish();
    let report = world.apply_without_settling(queue);
    assert_eq!(report.errors.len(), 1, "{report:?}");
    world.check_invariants().unwrap();
    let exp = vec![
        (es[0], 0),
        (es[1], 1),
        (es[2], 22),
        (es[3], 3),
        (es[5], 55),
        (es[7], 7),
    ];
    let mut exp_n = exp.clone();
    if n.slot() < es[7].slot() {
        exp_n.insert(
            exp_n.iter().position(|(e, _)| e.slot() > n.slot()).unwrap(),
            (n, 99),
        );
    } else {
        exp_n.push((n, 99));
    }
    assert_eq!(ps(&world), exp_n);
    let mut added = added_since(&world, t0);
    added.sort_by_key(|e| e.slot());
    let mut exp_added = vec![es[2], es[5], n];
    exp_added.sort_by_key(|e| e.slot());
    assert_eq!(added, exp_added);
    assert_eq!(ps(snap.world()).len(), 8);
    world.settle();
    assert_eq!(ps(&world), exp_n);
    world.check_invariants().unwrap();
}
