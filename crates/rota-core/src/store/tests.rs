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
            let mut settled = store.clone();
            let mut got = store.remove_many(&gone);
            let mut got_settled = settled.remove_and_settle(&gone);
            let mut want = Vec::new();
            for g in &gone {
                if oracle.get(&g.slot()).is_some_and(|x| x.0 == *g) {
                    want.push(oracle.remove(&g.slot()).unwrap().1);
                }
            }
            got.sort(); got_settled.sort(); want.sort();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&got_settled, &want);
            prop_assert!(settled.is_settled());
            settled.check_invariants().map_err(TestCaseError::fail)?;
            let dense: Vec<(Entity, u32)> = settled
                .dense_entities()
                .iter()
                .copied()
                .zip(settled.dense_values().iter().copied())
                .collect();
            prop_assert_eq!(dense, oracle.values().copied().collect::<Vec<_>>());
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

/// Every store operation, `remove_and_settle` among them, against a `BTreeMap` oracle after
/// each step: values, order, both tick columns, back-pointers, snapshots sharing the columns,
/// and a live-value counter that catches a leak or a double drop. (From the adversarial review
/// of settling in blocks, 2026-12-01.)
mod store_model_with_removals {
    use super::*;
    use proptest::prelude::*;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    thread_local! {
        static LIVE: Cell<i64> = const { Cell::new(0) };
    }

    #[derive(Debug)]
    struct V {
        slot: u32,
        id: u64,
    }
    impl V {
        fn new(slot: u32, id: u64) -> V {
            LIVE.with(|l| l.set(l.get() + 1));
            V { slot, id }
        }
    }
    impl Clone for V {
        fn clone(&self) -> V {
            V::new(self.slot, self.id)
        }
    }
    impl Drop for V {
        fn drop(&mut self) {
            LIVE.with(|l| l.set(l.get() - 1));
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u32, u32),
        Remove(u32),
        RemoveAndSettle(Vec<(u32, u32)>),
        RemoveMany(Vec<(u32, u32)>),
        Settle,
        Tick,
        GetMut(u32),
        Snapshot,
        DropSnapshot,
        InsertAscending(u32, u32),
    }

    fn op(slots: u32) -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => (0..slots, 0u32..3).prop_map(|(s, g)| Op::Insert(s, g)),
            4 => (0..slots).prop_map(Op::Remove),
            3 => proptest::collection::vec((0..slots, 0u32..3), 0..12).prop_map(Op::RemoveAndSettle),
            1 => proptest::collection::vec((0..slots, 0u32..3), 0..(slots as usize * 2)).prop_map(Op::RemoveAndSettle),
            1 => proptest::collection::vec((0..slots, 0u32..3), 0..12).prop_map(Op::RemoveMany),
            2 => Just(Op::Settle),
            2 => Just(Op::Tick),
            1 => (0..slots).prop_map(Op::GetMut),
            1 => Just(Op::Snapshot),
            1 => Just(Op::DropSnapshot),
            2 => (0..slots, 1u32..40).prop_map(|(s, n)| Op::InsertAscending(s, n)),
        ]
    }

    fn ent(slot: u32, g: u32) -> Entity {
        Entity::new(slot, g)
    }

    /// slot -> (entity, id, added, changed)
    type Oracle = BTreeMap<u32, (Entity, u64, Tick, Tick)>;

    fn compare(store: &Store<V>, oracle: &Oracle, what: &str) -> Result<(), TestCaseError> {
        store
            .check_invariants()
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        let got: Vec<(Entity, u32, u64)> = store.iter().map(|(e, v)| (e, v.slot, v.id)).collect();
        let want: Vec<(Entity, u32, u64)> =
            oracle.iter().map(|(&s, &(e, id, ..))| (e, s, id)).collect();
        prop_assert_eq!(&got, &want, "{}", what);
        let changed_ticks = store.dense_changed_ticks();
        for (i, e) in store.dense_entities().iter().enumerate() {
            let &(oe, id, added, changed) = oracle
                .get(&e.slot())
                .ok_or_else(|| TestCaseError::fail("extra"))?;
            prop_assert_eq!(oe, *e);
            prop_assert_eq!(store.dense_values()[i].id, id, "{}", what);
            prop_assert_eq!(store.dense_added_ticks()[i], added, "{} added", what);
            prop_assert_eq!(changed_ticks[i], changed, "{} changed", what);
            prop_assert_eq!(store.dense_index(*e), Some(i));
        }
        if store.is_settled() {
            let slots: Vec<u32> = store.dense_entities().iter().map(|e| e.slot()).collect();
            prop_assert!(
                slots.windows(2).all(|w| w[0] < w[1]),
                "{}: settled but {:?}",
                what,
                slots
            );
        }
        Ok(())
    }

    /// Inserts value `id` for `e` at tick `now` into both the store and the oracle, checking
    /// the value it replaces.
    fn insert_both(
        store: &mut Store<V>,
        oracle: &mut Oracle,
        e: Entity,
        id: u64,
        now: u32,
    ) -> Result<(), TestCaseError> {
        let old = store.insert(e, V::new(e.slot(), id));
        let t = Tick::new(now);
        match oracle.get_mut(&e.slot()) {
            Some(o) => {
                prop_assert_eq!(old.map(|v| v.id), Some(o.1));
                o.0 = e;
                o.1 = id;
                o.3 = t;
            }
            None => {
                prop_assert!(old.is_none());
                oracle.insert(e.slot(), (e, id, t, t));
            }
        }
        Ok(())
    }

    fn run(ops: Vec<Op>, slots: u32) -> Result<(), TestCaseError> {
        let base = LIVE.with(Cell::get);
        {
            let mut store: Store<V> = Store::new();
            store.set_copy_values(Some(|to: &mut Vec<V>, from: &Vec<V>| to.clone_from(from)));
            let mut oracle = Oracle::new();
            let mut snap: Option<(Store<V>, Oracle)> = None;
            let mut now = 0u32;
            let mut next_id = 0u64;
            for (step, op) in ops.into_iter().enumerate() {
                let what = format!("step {step} {op:?}");
                match op {
                    Op::Insert(s, g) => {
                        next_id += 1;
                        insert_both(&mut store, &mut oracle, ent(s, g), next_id, now)?;
                    }
                    Op::InsertAscending(s, n) => {
                        for s in s..(s + n).min(slots) {
                            next_id += 1;
                            let e = ent(s, 0);
                            // A slot held under another generation is left alone.
                            if oracle.get(&s).is_some_and(|o| o.0 != e) {
                                continue;
                            }
                            insert_both(&mut store, &mut oracle, e, next_id, now)?;
                        }
                    }
                    Op::Remove(s) => {
                        if let Some(&(e, id, ..)) = oracle.get(&s) {
                            prop_assert_eq!(store.remove(e).map(|v| v.id), Some(id));
                            oracle.remove(&s);
                        }
                    }
                    Op::RemoveAndSettle(gone) => {
                        let gone: Vec<Entity> = gone.iter().map(|&(s, g)| ent(s, g)).collect();
                        // Expected: in dense order before the call.
                        let before: Vec<Entity> = store.dense_entities().to_vec();
                        let mut want_ids = Vec::new();
                        for e in &before {
                            if gone.contains(e) {
                                want_ids.push(oracle[&e.slot()].1);
                            }
                        }
                        for e in &gone {
                            if oracle.get(&e.slot()).is_some_and(|o| o.0 == *e) {
                                oracle.remove(&e.slot());
                            }
                        }
                        let got = store.remove_and_settle(&gone);
                        let got_ids: Vec<u64> = got.iter().map(|v| v.id).collect();
                        prop_assert_eq!(
                            &got_ids,
                            &want_ids,
                            "{} returned values (dense order)",
                            what
                        );
                        prop_assert!(store.is_settled(), "{}", what);
                    }
                    Op::RemoveMany(gone) => {
                        let gone: Vec<Entity> = gone.iter().map(|&(s, g)| ent(s, g)).collect();
                        let mut want_ids = Vec::new();
                        for e in &gone {
                            if oracle.get(&e.slot()).is_some_and(|o| o.0 == *e) {
                                want_ids.push(oracle.remove(&e.slot()).unwrap().1);
                            }
                        }
                        let mut got: Vec<u64> =
                            store.remove_many(&gone).iter().map(|v| v.id).collect();
                        got.sort();
                        want_ids.sort();
                        prop_assert_eq!(got, want_ids);
                    }
                    Op::Settle => {
                        store.settle();
                        prop_assert!(store.is_settled());
                    }
                    Op::Tick => {
                        now += 1;
                        store.set_change_tick(Tick::new(now));
                    }
                    Op::GetMut(s) => {
                        if let Some(o) = oracle.get_mut(&s) {
                            prop_assert_eq!(store.get_mut(o.0).map(|v| v.id), Some(o.1));
                            o.3 = Tick::new(now);
                        }
                    }
                    Op::Snapshot => {
                        store.make_shareable();
                        let mut sn = Store::new();
                        sn.share_from(&store);
                        snap = Some((sn, oracle.clone()));
                    }
                    Op::DropSnapshot => snap = None,
                }
                compare(&store, &oracle, &what)?;
                if let Some((sn, so)) = &snap {
                    compare(sn, so, &format!("{what} (snapshot)"))?;
                }
            }
            // Finally, remove everything in one go (shuffled, with repeats).
            let mut all: Vec<Entity> = oracle.values().map(|o| o.0).collect();
            all.reverse();
            all.extend(all.clone());
            let got = store.remove_and_settle(&all);
            prop_assert_eq!(got.len(), oracle.len());
            drop(got);
            oracle.clear();
            compare(&store, &oracle, "remove all")?;
            prop_assert!(store.is_empty() && store.is_settled());
            store.insert(ent(3, 0), V::new(3, 0));
            store.check_invariants().map_err(TestCaseError::fail)?;
        }
        prop_assert_eq!(
            LIVE.with(Cell::get),
            base,
            "leaked or double-dropped values"
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn store_matches_oracle_through_removals_small(ops in proptest::collection::vec(op(24), 1..200)) {
            run(ops, 24)?;
        }

        #[test]
        // Up to 100 operations, not 200: every step's ordered walk of an unsettled store goes
        // through all 41 sparse pages (O(highest slot)), which made this the slowest test of
        // the crate (6.5 s of the README command); every step still crosses pages.
        fn store_matches_oracle_through_removals_across_pages(ops in proptest::collection::vec(op(40), 1..100)) {
            let m = |s: u32| s * 4099 + 5;
            let ops: Vec<Op> = ops.into_iter().map(|o| match o {
                Op::Insert(s, g) => Op::Insert(m(s), g),
                Op::Remove(s) => Op::Remove(m(s)),
                Op::GetMut(s) => Op::GetMut(m(s)),
                Op::InsertAscending(s, n) => Op::InsertAscending(m(s), n),
                Op::RemoveAndSettle(v) => Op::RemoveAndSettle(v.into_iter().map(|(s, g)| (m(s), g)).collect()),
                Op::RemoveMany(v) => Op::RemoveMany(v.into_iter().map(|(s, g)| (m(s), g)).collect()),
                o => o,
            }).collect();
            run(ops, m(40))?;
        }

        #[test]
        fn store_matches_oracle_through_removals_large(ops in proptest::collection::vec(op(300), 1..200)) {
            run(ops, 300)?;
        }

        /// A ZST component: order of entities and ticks, and the returned count.
        #[test]
        fn zero_sized_store_matches_oracle_through_removals(ops in proptest::collection::vec(op(60), 1..200)) {
            let mut store: Store<()> = Store::new();
            let mut oracle: BTreeMap<u32, Entity> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Insert(s, g) => { store.insert(ent(s, g), ()); oracle.insert(s, ent(s, g)); }
                    Op::Remove(s) => { if let Some(e) = oracle.remove(&s) { prop_assert!(store.remove(e).is_some()); } }
                    Op::RemoveAndSettle(gone) | Op::RemoveMany(gone) => {
                        let gone: Vec<Entity> = gone.iter().map(|&(s, g)| ent(s, g)).collect();
                        let mut n = 0;
                        for e in &gone { if oracle.get(&e.slot()) == Some(e) { oracle.remove(&e.slot()); n += 1; } }
                        prop_assert_eq!(store.remove_and_settle(&gone).len(), n);
                        prop_assert!(store.is_settled());
                    }
                    Op::Settle => store.settle(),
                    _ => {}
                }
                store.check_invariants().map_err(TestCaseError::fail)?;
                prop_assert_eq!(store.dense_values().len(), store.len());
                let got: Vec<Entity> = store.iter().map(|(e, _)| e).collect();
                let want: Vec<Entity> = oracle.values().copied().collect();
                prop_assert_eq!(got, want);
            }
        }
    }
}

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

mod dead_model {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(usize, bool, u64),
        Remove(usize, bool),
        Forget(usize, bool),
        Settle,
        RemoveMany(Vec<(usize, bool)>),
        RemoveAndSettle(Vec<(usize, bool)>),
        Clone,
    }

    fn op() -> impl Strategy<Value = Op> {
        let h = || (0usize..40, any::<bool>());
        prop_oneof![
            4 => (0usize..40, any::<bool>(), any::<u64>()).prop_map(|(i, g, v)| Op::Insert(i, g, v)),
            2 => h().prop_map(|(i, g)| Op::Remove(i, g)),
            4 => h().prop_map(|(i, g)| Op::Forget(i, g)),
            1 => Just(Op::Settle),
            1 => proptest::collection::vec(h(), 0..12).prop_map(Op::RemoveMany),
            1 => proptest::collection::vec(h(), 0..12).prop_map(Op::RemoveAndSettle),
            1 => Just(Op::Clone),
        ]
    }

    proptest! {
        /// Every store operation, with despawns (`forget`) leaving dead elements, against a
        /// `BTreeMap` oracle keyed by slot, compared after every step: the ordered walk, the
        /// unordered one as a set, `len`, every handle's `get` (two generations per slot, so
        /// a slot is reused while its old element may still be dead), the invariants, and
        /// the bound on dead elements (the columns do not grow while they are the majority).
        #[test]
        fn a_store_with_dead_elements_matches_the_oracle(ops in proptest::collection::vec(op(), 1..120)) {
            let (_, e0) = spawn_n(40);
            let mut g1 = Entities::with_first_generation(1);
            let e1: Vec<Entity> = (0..40).map(|_| g1.spawn().unwrap()).collect();
            let pick = |(i, g): (usize, bool)| if g { e1[i] } else { e0[i] };
            let mut store: Store<u64> = Store::new();
            let mut oracle: BTreeMap<u32, (Entity, u64)> = BTreeMap::new();
            let mut previous_dense = 0;
            for (step, op) in ops.into_iter().enumerate() {
                let ctx = format!("step {step}: {op:?}");
                match op {
                    Op::Insert(i, g, v) => {
                        let e = pick((i, g));
                        let old = store.insert(e, v);
                        let want = oracle.insert(e.slot(), (e, v)).map(|(_, v)| v);
                        prop_assert_eq!(old, want, "{}", ctx);
                    }
                    Op::Remove(i, g) => {
                        let e = pick((i, g));
                        let want = match oracle.get(&e.slot()) {
                            Some(&(held, _)) if held == e => oracle.remove(&e.slot()).map(|(_, v)| v),
                            _ => None,
                        };
                        prop_assert_eq!(store.remove(e), want, "{}", ctx);
                    }
                    Op::Forget(i, g) => {
                        let e = pick((i, g));
                        if oracle.get(&e.slot()).is_some_and(|&(held, _)| held == e) {
                            oracle.remove(&e.slot());
                        }
                        store.forget(e);
                    }
                    Op::Settle => store.settle(),
                    Op::RemoveMany(hs) | Op::RemoveAndSettle(hs) if hs.is_empty() => {}
                    Op::RemoveMany(hs) => {
                        let gone: Vec<Entity> = hs.into_iter().map(pick).collect();
                        for g in &gone {
                            if oracle.get(&g.slot()).is_some_and(|&(held, _)| held == *g) {
                                oracle.remove(&g.slot());
                            }
                        }
                        drop(store.remove_many(&gone));
                    }
                    Op::RemoveAndSettle(hs) => {
                        let gone: Vec<Entity> = hs.into_iter().map(pick).collect();
                        for g in &gone {
                            if oracle.get(&g.slot()).is_some_and(|&(held, _)| held == *g) {
                                oracle.remove(&g.slot());
                            }
                        }
                        drop(store.remove_and_settle(&gone));
                        prop_assert!(store.is_settled(), "{}", ctx);
                    }
                    Op::Clone => store = store.clone(),
                }
                store.check_invariants().map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                let walked: Vec<(Entity, u64)> = store.iter().map(|(e, v)| (e, *v)).collect();
                let want: Vec<(Entity, u64)> = oracle.values().copied().collect();
                prop_assert_eq!(&walked, &want, "{}: ordered walk", ctx);
                prop_assert_eq!(store.len(), want.len(), "{}: len", ctx);
                let mut unordered: Vec<(Entity, u64)> =
                    store.iter_unordered().map(|(e, v)| (e, *v)).collect();
                unordered.sort_by_key(|(e, _)| e.slot());
                prop_assert_eq!(&unordered, &want, "{}: unordered walk", ctx);
                for &e in e0.iter().chain(&e1) {
                    let held = oracle.get(&e.slot()).filter(|(h, _)| *h == e).map(|(_, v)| v);
                    prop_assert_eq!(store.get(e), held, "{}: get({})", ctx, e);
                }
                // The columns grow only while dead elements do not outnumber live ones.
                let dense = store.dense_entities().len();
                prop_assert!(
                    dense <= previous_dense.max(2 * store.len() + 1),
                    "{}: the columns grew from {} to {} with {} live", ctx, previous_dense, dense, store.len()
                );
                previous_dense = dense;
            }
        }
    }
}

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
