//! Unit tests for `Store`: every operation, the swap-remove repair, settling and the fallback.

use super::*;
use crate::entity::Entities;

fn spawn_n(n: usize) -> (Entities, Vec<Entity>) {
    let mut es = Entities::new();
    let v = (0..n).map(|_| es.spawn().unwrap()).collect();
    (es, v)
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

mod settle_plan {
    use super::super::settle::Plan;
    use super::super::sparse::SparsePages;
    use crate::entity::Entity;
    use crate::tick::Tick;
    use proptest::prelude::*;

    /// A store's dense order: distinct slots, the clean ones ascending, the displaced ones
    /// anywhere. Built from a random set of slots, each clean or displaced, and a shuffle of
    /// where the displaced ones sit.
    fn columns() -> impl Strategy<Value = (Vec<u32>, Vec<bool>)> {
        // Half clean, or mostly clean over more slots (long runs, 64-flag chunks with no
        // flag, runs shifting both ways).
        prop_oneof![
            proptest::collection::btree_map(0u32..400, any::<bool>(), 1..120),
            proptest::collection::btree_map(0u32..2000, proptest::bool::weighted(0.95), 1..600),
        ]
        .prop_flat_map(|m| {
            let n = m.len();
            (Just(m), proptest::collection::vec(0..n, n))
        })
        .prop_map(|(m, picks)| {
            let clean: Vec<u32> = m.iter().filter(|(_, c)| **c).map(|(s, _)| *s).collect();
            let mut slots = clean.clone();
            let mut flags = vec![false; clean.len()];
            // Each displaced slot goes in at a random place among what is there so far.
            for (&s, &pick) in m.iter().filter(|(_, c)| !**c).map(|(s, _)| s).zip(&picks) {
                let at = pick % (slots.len() + 1);
                slots.insert(at, s);
                flags.insert(at, true);
            }
            (slots, flags)
        })
    }

    proptest! {
        /// Applying the plan to every column sorts them by slot, keeps each column's elements
        /// beside their entity, drops exactly the removed ones (returning their values), and
        /// leaves everything below `lo` untouched.
        #[test]
        fn the_plan_sorts_every_column_and_touches_nothing_below_lo(
            (slots, flags) in columns(),
            removal in proptest::collection::vec(proptest::bool::weighted(0.1), 600),
            remove_any in any::<bool>(),
        ) {
            let mut entities: Vec<Entity> =
                slots.iter().map(|&s| Entity::new(s, s % 7)).collect();
            let before = entities.clone();
            // A parallel column of owned values: each element's slot.
            let mut owned: Vec<String> = slots.iter().map(|s| s.to_string()).collect();
            let n = slots.len();
            let first = flags.iter().position(|&f| f).unwrap_or(n);
            // Clean elements to drop (a store clears a removed element's flag first).
            let removed: Vec<u32> = (0..n)
                .filter(|&i| remove_any && !flags[i] && removal[i])
                .map(|i| i as u32)
                .collect();
            if first == n && removed.is_empty() {
                return Ok(()); // nothing to do: `Store` never builds this plan
            }
            let gone: Vec<u32> = removed.iter().map(|&i| slots[i as usize]).collect();
            let plan = Plan::new(&entities, &flags, first, removed.clone());
            // The tick columns carry each element's slot (added) and its double (changed).
            let mut added: Vec<Tick> = slots.iter().map(|&s| Tick::new(s)).collect();
            let mut changed: Vec<Tick> = slots.iter().map(|&s| Tick::new(2 * s)).collect();
            let mut sparse = SparsePages::new();
            for (i, s) in slots.iter().enumerate() {
                sparse.try_set(*s, i as u32).unwrap();
            }
            for &s in &gone {
                sparse.set_existing(s, u32::MAX);
            }
            plan.apply_index(&mut entities, &mut added, &mut changed, &mut sparse);
            let len = plan.len_after();
            prop_assert_eq!(len, n - removed.len());
            entities.truncate(len);
            let copies: Vec<u32> = added[..len].iter().map(|t| t.get()).collect();
            let doubled: Vec<u32> = changed[..len].iter().map(|t| t.get() / 2).collect();
            let dropped = plan.apply_values(&mut owned);
            let dropped: Vec<u32> = dropped.iter().map(|s| s.parse().unwrap()).collect();
            prop_assert_eq!(&dropped, &gone, "the removed values, in position order");
            let mut want: Vec<u32> =
                slots.iter().copied().filter(|s| !gone.contains(s)).collect();
            want.sort_unstable();
            let got: Vec<u32> = entities.iter().map(|e| e.slot()).collect();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&copies, &want);
            prop_assert_eq!(&doubled, &want);
            // Every back-pointer names its entity's place; the removed ones stay cleared.
            for (i, e) in entities.iter().enumerate() {
                prop_assert_eq!(sparse.get(e.slot()), i as u32);
            }
            for &s in &gone {
                prop_assert_eq!(sparse.get(s), u32::MAX);
            }
            let owned_slots: Vec<u32> = owned.iter().map(|s| s.parse().unwrap()).collect();
            prop_assert_eq!(&owned_slots, &want);
            for e in &entities {
                prop_assert_eq!(e.generation(), e.slot() % 7);
            }
            prop_assert_eq!(&entities[..plan.lo], &before[..plan.lo]);
            let smallest = slots
                .iter()
                .zip(&flags)
                .filter(|(_, f)| **f)
                .map(|(s, _)| *s)
                .min()
                .unwrap_or(u32::MAX);
            // The first flagged or removed element moves, and so does everything from the
            // smallest displaced slot's final place.
            let first_removed = removed.first().map_or(n, |&r| r as usize);
            prop_assert_eq!(
                plan.lo,
                first.min(first_removed).min(want.partition_point(|&s| s < smallest))
            );
        }
    }
}

mod remove_many_model {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// `remove_many` against a `BTreeMap` oracle, on stores left unsettled by out-of-order
        /// inserts and swap-removes: the values it returns are exactly those of the listed
        /// entities it held (repeats and absent ones ignored), every other value stays beside
        /// its entity in ascending slot order, and the store's invariants hold — for few
        /// removals (swap-removes) and many (the compaction).
        #[test]
        fn remove_many_removes_exactly_the_listed_values_and_keeps_the_rest_in_order(
            inserts in proptest::collection::vec(0usize..200, 1..300),
            removes in proptest::collection::vec(0usize..200, 0..20),
            gone in proptest::collection::vec(0usize..220, 0..250),
        ) {
            let (_, e) = spawn_n(220);
            let mut store = Store::new();
            let mut oracle: BTreeMap<u32, (Entity, String)> = BTreeMap::new();
            for &i in &inserts {
                let value = format!("v{i}");
                store.insert(e[i], value.clone());
                oracle.insert(e[i].slot(), (e[i], value));
            }
            for &i in &removes {
                prop_assert_eq!(store.remove(e[i]), oracle.remove(&e[i].slot()).map(|(_, v)| v));
            }
            let gone: Vec<Entity> = gone.iter().map(|&i| e[i]).collect();
            // The same removal done by the one-pass `remove_and_settle`, on a copy.
            let mut settled = store.clone();
            let mut got = store.remove_many(&gone);
            let mut got_settled = settled.remove_and_settle(&gone);
            let mut want: Vec<String> = Vec::new();
            for g in &gone {
                if let Some((_, v)) = oracle.remove(&g.slot()) {
                    want.push(v);
                }
            }
            got.sort();
            got_settled.sort();
            want.sort();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&got_settled, &want);
            store.check_invariants().map_err(TestCaseError::fail)?;
            settled.check_invariants().map_err(TestCaseError::fail)?;
            prop_assert!(settled.is_settled());
            let left: Vec<(Entity, String)> =
                store.iter().map(|(e, v)| (e, v.clone())).collect();
            let expected: Vec<(Entity, String)> = oracle.into_values().collect();
            prop_assert_eq!(&left, &expected);
            let left_settled: Vec<(Entity, String)> =
                settled.dense_entities().iter().copied().zip(settled.dense_values().iter().cloned()).collect();
            prop_assert_eq!(&left_settled, &expected, "dense order is slot order");
            for (e, v) in &expected {
                prop_assert_eq!(settled.get(*e), Some(v));
            }
            store.settle();
            store.check_invariants().map_err(TestCaseError::fail)?;
        }
    }

    proptest! {
        /// As above, with handles of two generations per slot: a listed handle whose
        /// generation differs from the stored one removes nothing. (From the review of the
        /// compaction.)
        #[test]
        fn remove_many_ignores_handles_of_another_generation(
            inserts in proptest::collection::vec((0usize..60, any::<bool>()), 1..120),
            removes in proptest::collection::vec(0usize..60, 0..10),
            gone in proptest::collection::vec((0usize..70, any::<bool>()), 0..120),
        ) {
            let (_, e0) = spawn_n(70);
            let mut g1 = Entities::with_first_generation(1);
            let e1: Vec<Entity> = (0..70).map(|_| g1.spawn().unwrap()).collect();
            let pick = |i: usize, g: bool| if g { e1[i] } else { e0[i] };
            let mut store = Store::new();
            let mut oracle: BTreeMap<u32, (Entity, u32)> = BTreeMap::new();
            for (n, &(i, g)) in inserts.iter().enumerate() {
                let e = pick(i, g);
                store.insert(e, n as u32);
                oracle.insert(e.slot(), (e, n as u32));
            }
            for &i in &removes {
                if let Some(&(e, _)) = oracle.get(&(i as u32)) {
                    prop_assert_eq!(store.remove(e), oracle.remove(&e.slot()).map(|x| x.1));
                }
            }
            let gone: Vec<Entity> = gone.iter().map(|&(i, g)| pick(i, g)).collect();
            let mut got = store.remove_many(&gone);
            let mut want = Vec::new();
            for g in &gone {
                if oracle.get(&g.slot()).is_some_and(|x| x.0 == *g) {
                    want.push(oracle.remove(&g.slot()).unwrap().1);
                }
            }
            got.sort(); want.sort();
            prop_assert_eq!(got, want);
            store.check_invariants().map_err(TestCaseError::fail)?;
            let left: Vec<(Entity, u32)> = store.iter().map(|(e, v)| (e, *v)).collect();
            prop_assert_eq!(left, oracle.values().copied().collect::<Vec<_>>());
            for (e, v) in oracle.values() { prop_assert_eq!(store.get(*e), Some(v)); }
            store.settle();
            store.check_invariants().map_err(TestCaseError::fail)?;
            let e = e0[69]; store.insert(e, 999);
            store.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
}
