//! Unit tests for `Store`: every operation, the swap-remove repair, settling and the fallback.

use super::*;
use crate::entity::Entities;

fn spawn_n(n: usize) -> (Entities, Vec<Entity>) {
    let mut es = Entities::new();
    let v = (0..n).map(|_| es.spawn().unwrap()).collect();
    (es, v)
}

/// `iter_mut` stamps every value through the store's floor (one tick for the walk); a clock
/// set back afterwards writes the floor into the values' own ticks first, so a value written
/// at the older tick and one handed out by the walk each keep their own (found by review).
#[test]
fn a_clock_set_back_after_a_whole_walk_keeps_each_values_tick() {
    let (_, e) = spawn_n(2);
    let mut s = Store::new();
    s.insert(e[0], 1u32);
    s.insert(e[1], 2u32);
    s.set_change_tick(Tick::new(5));
    for (_, v) in s.iter_mut() {
        *v += 1;
    }
    assert!(s.changed_floor().is_some(), "the walk stamped the floor");
    s.set_change_tick(Tick::new(3));
    *s.get_mut(e[1]).unwrap() += 1;
    assert_eq!(s.ticks(e[0]).unwrap().changed, Tick::new(5));
    assert_eq!(s.ticks(e[1]).unwrap().changed, Tick::new(3));
    assert_eq!(&*s.dense_changed_ticks(), &[Tick::new(5), Tick::new(3)]);
}

/// A copy of a store (`Clone`, `clone_from`) keeps the floor a whole walk stamped.
#[test]
fn a_store_copy_keeps_the_floor() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    for (i, &e) in e.iter().enumerate() {
        s.insert(e, i as u32);
    }
    s.set_change_tick(Tick::new(7));
    for (_, v) in s.iter_mut() {
        *v += 1;
    }
    s.set_change_tick(Tick::new(9));
    *s.get_mut(e[2]).unwrap() += 1;
    let want: Vec<Tick> = vec![Tick::new(7), Tick::new(7), Tick::new(9)];
    assert_eq!(&*s.dense_changed_ticks(), &want[..]);
    let copy = s.clone();
    assert_eq!(&*copy.dense_changed_ticks(), &want[..]);
    let mut into = Store::new();
    into.insert(e[0], 100u32);
    into.clone_from(&s);
    assert_eq!(&*into.dense_changed_ticks(), &want[..]);
    assert_eq!(into.ticks(e[0]).unwrap().changed, Tick::new(7));
}

#[test]
fn insert_get_replace_remove() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    assert!(s.is_empty());
    assert_eq!(s.insert(e[1], 10), None);
    assert_eq!(s.insert(e[1], 11), Some(10));
    assert_eq!(s.get(e[1]), Some(&11));
    *s.get_mut(e[1]).unwrap() += 1;
    assert_eq!(s.get(e[1]), Some(&12));
    assert!(s.contains(e[1]));
    assert!(!s.contains(e[0]));
    assert_eq!(s.len(), 1);
    assert_eq!(s.remove(e[1]), Some(12));
    assert_eq!(s.remove(e[1]), None);
    assert!(s.is_empty());
    s.check_invariants().unwrap();
}

#[test]
fn swap_remove_repairs_the_moved_elements_back_pointer() {
    // Remove an element that is NOT last: the last element moves into its hole, and its sparse
    // entry must be updated, or every later lookup of it reads the wrong index.
    let (_, e) = spawn_n(4);
    let mut s = Store::new();
    for (i, &x) in e.iter().enumerate() {
        s.insert(x, i * 100);
    }
    assert_eq!(s.remove(e[0]), Some(0));
    assert_eq!(s.get(e[3]), Some(&300), "moved element lost");
    assert_eq!(s.dense_index(e[3]), Some(0));
    assert_eq!(s.remove(e[3]), Some(300));
    assert_eq!(s.get(e[1]), Some(&100));
    assert_eq!(s.get(e[2]), Some(&200));
    s.check_invariants().unwrap();
}

#[test]
fn stale_generation_finds_nothing_and_newer_incarnation_replaces() {
    let mut es = Entities::new();
    let old = es.spawn().unwrap();
    let mut s = Store::new();
    s.insert(old, "old");
    es.despawn(old).unwrap();
    let new = es.spawn().unwrap();
    assert_eq!(new.slot(), old.slot());
    assert_eq!(s.get(new), None);
    assert_eq!(s.remove(new), None);
    assert_eq!(s.insert(new, "new"), Some("old"));
    assert_eq!(s.get(old), None);
    assert_eq!(s.get(new), Some(&"new"));
    s.check_invariants().unwrap();
}

#[test]
fn iteration_is_ascending_after_low_slot_inserts_and_swap_removes() {
    let (_, e) = spawn_n(10);
    let mut s = Store::new();
    for &i in &[7, 2, 9, 0, 5, 3] {
        s.insert(e[i], i);
    }
    s.remove(e[2]);
    assert!(!s.is_settled());
    let shared: Vec<_> = s.iter().map(|(x, v)| (x.slot(), *v)).collect();
    assert_eq!(shared, vec![(0, 0), (3, 3), (5, 5), (7, 7), (9, 9)]);
    assert_eq!(s.iter().len(), 5);
    let unordered: Vec<_> = s.iter_unordered().map(|(x, _)| x.slot()).collect();
    assert_ne!(
        unordered,
        vec![0, 3, 5, 7, 9],
        "fixture should be unsettled"
    );
    let mutable: Vec<_> = s.iter_mut().map(|(x, v)| (x.slot(), *v)).collect();
    assert_eq!(mutable, shared);
    assert!(s.is_settled());
    s.check_invariants().unwrap();
}

#[test]
fn ascending_removal_of_everything_stays_linear_and_ends_settled() {
    let (_, e) = spawn_n(1000);
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, ());
    }
    assert!(s.is_settled());
    for &x in &e {
        s.remove(x);
    }
    assert!(s.is_empty() && s.is_settled());
}

#[test]
fn clear_empties_and_keeps_working() {
    let (_, e) = spawn_n(5);
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, 1u8);
    }
    s.clear();
    assert!(s.is_empty());
    assert_eq!(s.get(e[2]), None);
    s.insert(e[4], 4);
    s.insert(e[1], 1);
    assert_eq!(
        s.iter().map(|(x, _)| x).collect::<Vec<_>>(),
        vec![e[1], e[4]]
    );
    s.check_invariants().unwrap();
}

#[test]
fn failed_reservation_keeps_columns_equal() {
    let (_, e) = spawn_n(2);
    let mut s: Store<u64> = Store::new();
    s.insert(e[0], 1);
    assert_eq!(s.try_reserve(usize::MAX), Err(StoreError::OutOfMemory));
    assert_eq!(s.dense_entities().len(), s.dense_values().len());
    s.insert(e[1], 2);
    s.check_invariants().unwrap();
}

#[test]
fn zero_sized_values_store_nothing_per_entity() {
    let (_, e) = spawn_n(100);
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, ());
    }
    assert_eq!(std::mem::size_of_val(s.dense_values()), 0);
}

#[test]
fn invariant_checker_catches_a_broken_back_pointer() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, 0);
    }
    s.index_mut().sparse.set_existing(e[2].slot(), 0);
    assert!(s.check_invariants().is_err());
}

#[test]
fn invariant_checker_catches_a_false_settled_claim() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    s.insert(e[2], 0);
    s.insert(e[0], 0);
    s.index_mut().displaced.fill(false);
    s.index_mut().displaced_count = 0;
    assert!(s.check_invariants().unwrap_err().contains("settled"));
}

#[test]
fn join_yields_common_entities_ascending() {
    let (_, e) = spawn_n(6);
    let mut a = Store::new();
    let mut b = Store::new();
    for &i in &[5, 1, 3, 0] {
        a.insert(e[i], i);
    }
    for &i in &[3, 4, 5] {
        b.insert(e[i], i * 10);
    }
    let j: Vec<_> = join(&a, &b)
        .map(|(x, va, vb)| (x.slot(), *va, *vb))
        .collect();
    assert_eq!(j, vec![(3, 3, 30), (5, 5, 50)]);
    let j2: Vec<_> = join(&b, &a).map(|(x, _, _)| x.slot()).collect();
    assert_eq!(j2, vec![3, 5]);
}

#[test]
fn settle_merges_displaced_elements_into_the_ascending_rest() {
    let (_, e) = spawn_n(12);
    let mut s = Store::new();
    for &i in &[1, 3, 5, 7, 9, 11] {
        s.insert(e[i], i);
    }
    s.insert(e[4], 4); // displaced: lower than 11
    s.insert(e[0], 0); // displaced: last is displaced
    s.remove(e[3]); // the last element (0) moves into the hole, still displaced
    s.insert(e[10], 10); // last is displaced: conservatively displaced too
    s.check_invariants().unwrap();
    assert!(!s.is_settled());
    s.settle();
    s.check_invariants().unwrap();
    let got: Vec<usize> = s.iter().map(|(_, v)| *v).collect();
    assert_eq!(got, [0, 1, 4, 5, 7, 9, 10, 11]);
    assert_eq!(s.dense_values(), [0, 1, 4, 5, 7, 9, 10, 11]);
}

#[test]
fn a_shared_store_copies_the_half_it_writes_and_the_other_store_never_sees_it() {
    let (_, e) = spawn_n(4);
    let mut world_side: Store<u32> = Store::new();
    world_side.set_copy_values(Some(|to: &mut Vec<u32>, from: &Vec<u32>| {
        to.clone_from(from)
    }));
    for (i, &x) in e.iter().enumerate().take(3) {
        world_side.insert(x, i as u32);
    }
    assert!(!world_side.is_shareable(), "owned until a snapshot asks");
    world_side.make_shareable();
    let mut snapshot_side = Store::new();
    snapshot_side.share_from(&world_side);
    let shared = |a: &Store<u32>, b: &Store<u32>| {
        let s = a.shared_columns(b);
        (s.index, s.values)
    };
    assert_eq!(shared(&world_side, &snapshot_side), (true, true));
    *world_side.get_mut(e[1]).unwrap() = 99;
    assert_eq!(shared(&world_side, &snapshot_side), (true, false));
    assert_eq!(snapshot_side.get(e[1]), Some(&1));
    world_side.insert(e[3], 3);
    assert_eq!(shared(&world_side, &snapshot_side), (false, false));
    assert_eq!(snapshot_side.len(), 3);
    // The clamp writes tick columns only when a tick is old enough to need it.
    world_side.make_shareable();
    snapshot_side.share_from(&world_side);
    let now = crate::tick::Tick::new(crate::tick::MAX_AGE + 10);
    world_side.set_change_tick(now);
    world_side.clamp_ticks(now);
    assert_eq!(shared(&world_side, &snapshot_side), (false, false));
    assert_eq!(
        snapshot_side.ticks(e[0]).unwrap().added,
        crate::tick::Tick::new(0)
    );
    assert_ne!(
        world_side.ticks(e[0]).unwrap().added,
        crate::tick::Tick::new(0)
    );
    world_side.check_invariants().unwrap();
    snapshot_side.check_invariants().unwrap();
    // A store without a copy function is never shared, so copying stays explicit.
    let mut fresh: Store<u32> = Store::new();
    fresh.make_shareable();
    assert!(!fresh.is_shareable());
    // Once no snapshot holds a shared half, the next write takes it back without a copy.
    let mut alone: Store<u32> = Store::new();
    alone.set_copy_values(Some(|to: &mut Vec<u32>, from: &Vec<u32>| {
        to.clone_from(from)
    }));
    alone.insert(e[0], 5);
    alone.make_shareable();
    let before = alone.dense_values().as_ptr();
    *alone.get_mut(e[0]).unwrap() = 6;
    assert_eq!(
        alone.dense_values().as_ptr(),
        before,
        "unwrapped, not copied"
    );
}

mod settle_plan;

mod remove_many_model;

/// Every store operation, `remove_and_settle` among them, against a `BTreeMap` oracle after
/// each step: values, order, both tick columns, back-pointers, snapshots sharing the columns,
/// and a live-value counter that catches a leak or a double drop. (From the adversarial review
/// of settling in blocks, 2026-12-01.)
mod store_model_with_removals;

#[test]
fn remove_and_settle_hands_back_zero_sized_values_undropped() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Z;
    impl Drop for Z {
        fn drop(&mut self) {
            DROPS.fetch_add(1, SeqCst);
        }
    }
    let (_, e) = spawn_n(8);
    let mut s = Store::new();
    for &i in &[5, 1, 7, 0, 3] {
        s.insert(e[i], Z);
    }
    let before = DROPS.load(SeqCst);
    // Repeats, and an entity the store does not hold, are ignored.
    let gone = s.remove_and_settle(&[e[1], e[7], e[1], e[2]]);
    assert_eq!(
        DROPS.load(SeqCst),
        before,
        "the store dropped nothing itself"
    );
    assert_eq!(gone.len(), 2);
    assert!(s.is_settled());
    s.check_invariants().unwrap();
    assert_eq!(s.dense_entities(), [e[0], e[3], e[5]]);
    assert_eq!(s.dense_values().len(), 3);
    drop(gone);
    assert_eq!(DROPS.load(SeqCst), before + 2);
}

/// `forget` (a despawn's removal) of a value with no drop glue leaves it dead in place: not
/// held, not counted, skipped by every walk, gone at the next settle.
#[test]
fn forget_leaves_a_dead_element_until_the_next_settle() {
    let (_, e) = spawn_n(5);
    let mut s = Store::new();
    for (i, &x) in e.iter().enumerate() {
        s.insert(x, i as u64 * 10);
    }
    s.forget(e[1]);
    assert_eq!(s.len(), 4);
    assert!(!s.contains(e[1]) && s.get(e[1]).is_none());
    assert_eq!(s.dense_entities().len(), 5, "left in place");
    assert!(!s.is_settled());
    let walked: Vec<u64> = s.iter().map(|(_, v)| *v).collect();
    assert_eq!(walked, [0, 20, 30, 40]);
    let mut unordered: Vec<u64> = s.iter_unordered().map(|(_, v)| *v).collect();
    unordered.sort();
    assert_eq!(unordered, [0, 20, 30, 40]);
    assert_eq!(s.iter_unordered().len(), 4);
    s.check_invariants().unwrap();
    s.settle();
    assert!(s.is_settled());
    assert_eq!(s.dense_entities(), [e[0], e[2], e[3], e[4]]);
    s.check_invariants().unwrap();
}

/// A swap-remove whose last element is dead moves the dead mark, not a back-pointer.
#[test]
fn remove_moves_a_dead_last_element_with_its_mark() {
    let (_, e) = spawn_n(4);
    let mut s = Store::new();
    for (i, &x) in e.iter().enumerate() {
        s.insert(x, i as u64);
    }
    s.forget(e[3]);
    assert_eq!(s.remove(e[0]), Some(0));
    s.check_invariants().unwrap();
    assert!(!s.contains(e[3]));
    assert_eq!(s.iter().map(|(e, _)| e).collect::<Vec<_>>(), [e[1], e[2]]);
}

/// Dead elements never make the columns grow: an append into a store whose dead elements
/// outnumber its live ones compacts it first. An all-dead store is emptied at once.
#[test]
fn dead_elements_are_compacted_before_the_columns_grow() {
    let (_, e) = spawn_n(101);
    let mut s = Store::new();
    for &x in &e[..100] {
        s.insert(x, 1u8);
    }
    for &x in &e[..90] {
        s.forget(x);
    }
    assert_eq!(
        (s.len(), s.dense_entities().len()),
        (10, 100),
        "despawns do not compact"
    );
    s.check_invariants().unwrap();
    s.insert(e[100], 2);
    assert_eq!(
        (s.len(), s.dense_entities().len()),
        (11, 11),
        "the append compacted first"
    );
    s.check_invariants().unwrap();
    assert_eq!(s.iter().map(|(x, _)| x).collect::<Vec<_>>(), e[90..]);
    for &x in &e[90..] {
        s.forget(x);
    }
    assert!(s.is_empty() && s.dense_entities().is_empty() && s.is_settled());
    s.check_invariants().unwrap();
}

/// `insert` for an entity whose value was left dead revives the element in place (nothing
/// appended, the order kept); a tag that a settle left stale is checked and not followed.
#[test]
fn insert_revives_a_dead_element_in_place_and_ignores_stale_tags() {
    let (_, e) = spawn_n(4);
    let mut s = Store::new();
    for (i, &x) in e.iter().enumerate() {
        s.insert(x, i as u64);
    }
    s.forget(e[1]);
    assert!(!s.contains(e[1]));
    assert_eq!(s.insert(e[1], 10), None);
    assert_eq!(s.dense_entities(), e, "revived in place");
    assert!(s.is_settled());
    assert_eq!(s.get(e[1]), Some(&10));
    s.check_invariants().unwrap();
    // The settle drops e[2]'s dead element and moves e[3] into its place: e[2]'s tag now
    // names a live element of another entity.
    s.forget(e[2]);
    s.settle();
    assert_eq!(s.dense_entities(), [e[0], e[1], e[3]]);
    assert_eq!(s.insert(e[2], 20), None);
    assert_eq!(s.get(e[3]), Some(&3), "the stale tag was not followed");
    assert_eq!(s.get(e[2]), Some(&20));
    s.check_invariants().unwrap();
    let all: Vec<(Entity, u64)> = s.iter().map(|(x, v)| (x, *v)).collect();
    assert_eq!(all, [(e[0], 0), (e[1], 10), (e[2], 20), (e[3], 3)]);
}

/// A dead element that a swap-remove moves keeps its tag: its entity still gets it back.
#[test]
fn a_dead_element_moved_by_a_swap_remove_can_still_be_revived() {
    let (_, e) = spawn_n(4);
    let mut s = Store::new();
    for (i, &x) in e.iter().enumerate() {
        s.insert(x, i as u64);
    }
    s.forget(e[3]); // the last element, left dead
    assert_eq!(s.remove(e[1]), Some(1)); // the dead last element fills position 1
    assert_eq!(s.dense_entities(), [e[0], e[3], e[2]]);
    assert_eq!(s.insert(e[3], 30), None);
    assert_eq!(
        s.dense_entities(),
        [e[0], e[3], e[2]],
        "revived at its new place"
    );
    assert_eq!(s.dense_index(e[3]), Some(1));
    s.check_invariants().unwrap();
    let all: Vec<(Entity, u64)> = s.iter().map(|(x, v)| (x, *v)).collect();
    assert_eq!(all, [(e[0], 0), (e[2], 2), (e[3], 30)]);
}

/// A store that can copy its values may be all dead; a copy of it, which has no copy function
/// of its own, is emptied instead, so that it passes its invariants.
#[test]
fn a_copy_of_an_all_dead_store_is_empty() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    s.set_copy_values(Some(Vec::clone_from));
    for &x in &e {
        s.insert(x, 1u32);
    }
    for &x in &e {
        s.forget(x);
    }
    assert_eq!(
        (s.len(), s.dense_entities().len()),
        (0, 3),
        "all dead, not emptied"
    );
    s.check_invariants().unwrap();
    let copy = s.clone();
    assert!(copy.is_empty() && copy.dense_entities().is_empty());
    copy.check_invariants().unwrap();
    let mut into = Store::new();
    into.insert(e[0], 9);
    into.clone_from(&s);
    assert!(into.dense_entities().is_empty());
    into.check_invariants().unwrap();
}

/// A value with drop glue is dropped by `forget` at once (swap-removed, never left dead).
#[test]
fn forget_drops_values_with_drop_glue_at_once() {
    let (_, e) = spawn_n(3);
    let token = std::rc::Rc::new(());
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, std::rc::Rc::clone(&token));
    }
    s.forget(e[0]);
    assert_eq!(std::rc::Rc::strong_count(&token), 3);
    assert_eq!(s.dense_entities().len(), 2);
    s.check_invariants().unwrap();
}

mod dead_model;

/// A swap-remove of the last live element beside dead ones empties the store: an empty store
/// has empty columns (from the review: a snapshot of an excluded store relies on it).
#[test]
fn removing_the_last_live_element_beside_dead_ones_empties_the_columns() {
    let (_, e) = spawn_n(3);
    let mut s = Store::new();
    for &x in &e {
        s.insert(x, 7u32);
    }
    s.forget(e[2]);
    s.forget(e[0]);
    assert_eq!(s.remove(e[1]), Some(7));
    assert!(s.is_empty() && s.dense_entities().is_empty() && s.dense_values().is_empty());
    s.check_invariants().unwrap();
}

/// `slot_start` (where a query's segment cut begins in a store) is the binary search it stands
/// in for, for every slot: held ones (one sparse lookup), missing ones, ones past the sparse
/// pages, after churn that reuses slots under new generations and inserts low slots late.
#[test]
fn slot_start_is_the_first_entity_at_or_after_the_slot() {
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..40 {
        let mut es = Entities::new();
        let mut live: Vec<Entity> = Vec::new();
        let mut s: Store<u32> = Store::new();
        let n = 50 + (round * 137) % 9000;
        for i in 0..n {
            let e = es.spawn().unwrap();
            live.push(e);
            if rnd() % 3 != 0 {
                s.insert(e, i as u32);
            }
        }
        for _ in 0..n / 3 {
            let e = live.swap_remove((rnd() as usize) % live.len());
            s.remove(e);
            es.despawn(e).unwrap();
        }
        for i in 0..n / 4 {
            let e = es.spawn().unwrap();
            live.push(e);
            if rnd() % 2 == 0 {
                s.insert(e, i as u32);
            }
        }
        s.settle();
        assert!(s.is_settled());
        let index = s.index();
        let past = index.entities.last().map_or(0, |e| e.slot()) + 10;
        let far = [4095, 4096, 8191, 8192, 100_000, 5_000_000, u32::MAX - 1];
        for slot in (0..past).chain(far) {
            let want = index.entities.partition_point(|e| e.slot() < slot);
            assert_eq!(index.slot_start(slot), want, "round {round}, slot {slot}");
        }
    }
}

/// `first_flagged` against a plain search, with the flag at every place around its eight-flag
/// words (and none set), in slices whose lengths end inside and at word boundaries.
#[test]
fn first_flagged_finds_the_first_set_flag_at_every_place() {
    for len in [0usize, 1, 31, 32, 33, 64, 95, 130] {
        let none = vec![false; len];
        assert_eq!(super::settle::first_flagged(&none), len);
        for at in 0..len {
            let mut flags = vec![false; len];
            flags[at] = true;
            // A later flag too, which must not be the one found.
            if at + 5 < len {
                flags[at + 5] = true;
            }
            assert_eq!(
                super::settle::first_flagged(&flags),
                at,
                "len {len}, flag at {at}"
            );
        }
    }
}

/// `set_ascending` points each entity's entry at its new place, across page boundaries and in
/// the highest page, and touches no other entry.
#[test]
fn set_ascending_points_entries_across_pages() {
    use super::sparse::{ABSENT, PAGE_LEN, SparsePages};
    let page = PAGE_LEN as u32;
    let top = u32::MAX - 1; // the highest slot a store could hold
    let slots = [
        0,
        5,
        page - 1,
        page,
        page + 7,
        3 * page + 1,
        3 * page + 2,
        top - 3,
        top,
    ];
    let mut sparse = SparsePages::new();
    for (i, &s) in slots.iter().enumerate() {
        sparse.try_set(s, i as u32).unwrap();
    }
    let entities: Vec<Entity> = slots.iter().map(|&s| Entity::new(s, 1)).collect();
    // The run from the second entity on moved to place 100.
    sparse.set_ascending(&entities[1..], 100);
    assert_eq!(
        sparse.get(slots[0]),
        0,
        "an entity outside the run keeps its entry"
    );
    for (k, &s) in slots[1..].iter().enumerate() {
        assert_eq!(sparse.get(s), 100 + k as u32, "slot {s}");
    }
    assert_eq!(sparse.get(page + 1), ABSENT);
    assert_eq!(sparse.get(top - 1), ABSENT);
}
