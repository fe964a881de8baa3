//! Dead elements (`store/dead.rs`: a despawn leaves a value with no drop glue in place) seen
//! through snapshots of an excluded component. From the review of the change: a store whose
//! last live value was swap-removed beside a dead one was not emptied, so it counted as empty
//! while its columns were not, and the snapshot of the excluded store copied its index but
//! not its values.

use rota::{Component, StableHash, World};

#[derive(Component, StableHash, Debug, PartialEq)]
#[component(no_snapshot)]
struct N(u32);

/// A world whose `N` store holds only a dead element, had it not been emptied: `b` despawned
/// (left dead), then `a`'s value removed (a swap-remove).
fn all_dead_world() -> World {
    let mut world = World::new();
    let a = world.spawn_with((N(1),));
    let b = world.spawn_with((N(2),));
    world.despawn(b).unwrap();
    assert_eq!(world.remove::<N>(a).unwrap(), Some(N(1)));
    world.check_invariants().unwrap();
    assert_eq!(world.store::<N>().unwrap().dense_entities().len(), 0);
    world
}

#[test]
fn a_snapshot_of_an_excluded_store_left_all_dead_is_whole() {
    let mut world = all_dead_world();
    let saved = world.snapshot().unwrap();
    saved.world().check_invariants().unwrap();
}

#[test]
fn restoring_an_excluded_store_left_all_dead_then_querying_it_works() {
    let mut world = all_dead_world();
    let saved = world.snapshot().unwrap();
    world.restore(&saved);
    assert_eq!(world.query_mut::<&N>().count(), 0);
    world.spawn_with((N(3),));
    assert_eq!(
        world.query_mut::<&N>().map(|n| n.0).collect::<Vec<_>>(),
        [3]
    );
    world.check_invariants().unwrap();
}

#[test]
fn snapshot_into_of_an_excluded_store_left_all_dead_is_whole() {
    let mut world = all_dead_world();
    let mut target = World::new().snapshot().unwrap();
    world.snapshot_into(&mut target).unwrap();
    target.world().check_invariants().unwrap();
}
