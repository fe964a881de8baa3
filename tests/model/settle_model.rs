//! `Store::settle` (`store/settle.rs`) against a `BTreeMap` oracle, compared after every step:
//! no value lost or dropped twice, ticks follow their values, zero-sized values, displaced
//! elements at every position of small stores, snapshots taken while unsettled. (Written by an
//! adversarial review of the settle plan; every test passed on the change it reviewed.)

use std::cell::Cell;
use std::collections::BTreeMap;

use proptest::prelude::*;
use rota::{Component, Entity, Store, Tick, World};

thread_local! {
    static MADE: Cell<u64> = const { Cell::new(0) };
    static DROPPED: Cell<u64> = const { Cell::new(0) };
}

/// A value that counts its drops (per thread: proptest runs cases on this thread).
#[derive(Debug)]
struct Counted {
    slot: u32,
    id: u64,
}

impl Counted {
    fn new(slot: u32, id: u64) -> Counted {
        MADE.with(|m| m.set(m.get() + 1));
        Counted { slot, id }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.with(|d| d.set(d.get() + 1));
    }
}

fn live() -> u64 {
    MADE.with(Cell::get) - DROPPED.with(Cell::get)
}

fn ent(slot: u32, generation: u32) -> Entity {
    Entity::from_bits((u64::from(generation) << 32) | u64::from(slot))
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32),
    Remove(u32),
    Settle,
    Tick(u32),
    GetMut(u32),
    IterMut,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..80, 0u32..3).prop_map(|(s, g)| Op::Insert(s, g)),
        4 => (0u32..80).prop_map(Op::Remove),
        1 => Just(Op::Settle),
        2 => (1u32..50).prop_map(Op::Tick),
        1 => (0u32..80).prop_map(Op::GetMut),
        1 => Just(Op::IterMut),
    ]
}

/// slot -> (entity, id, added, changed)
type Oracle = BTreeMap<u32, (Entity, u64, Tick, Tick)>;

fn compare(store: &Store<Counted>, oracle: &Oracle, step: usize) -> Result<(), TestCaseError> {
    store
        .check_invariants()
        .map_err(|e| TestCaseError::fail(format!("step {step}: {e}")))?;
    let got: Vec<(Entity, u32, u64)> = store.iter().map(|(e, v)| (e, v.slot, v.id)).collect();
    let want: Vec<(Entity, u32, u64)> =
        oracle.iter().map(|(&s, &(e, id, ..))| (e, s, id)).collect();
    prop_assert_eq!(&got, &want, "step {}", step);
    for &(e, _, added, changed) in oracle.values() {
        let t = store.ticks(e).unwrap();
        prop_assert_eq!(
            (t.added, t.changed),
            (added, changed),
            "step {} ticks of {}",
            step,
            e
        );
    }
    // Dense columns are parallel whatever the state.
    for (i, e) in store.dense_entities().iter().enumerate() {
        let (_, id, added, changed) = oracle[&e.slot()];
        prop_assert_eq!(store.dense_values()[i].id, id);
        prop_assert_eq!(store.dense_values()[i].slot, e.slot());
        prop_assert_eq!(store.dense_added_ticks()[i], added);
        prop_assert_eq!(store.dense_changed_ticks()[i], changed);
    }
    prop_assert_eq!(
        live(),
        oracle.len() as u64,
        "step {}: live Counted values",
        step
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(256), ..ProptestConfig::default() })]

    /// Settle (and everything that settles) keeps every value, drops nothing and doubles no
    /// drop, and carries both ticks with their value.
    #[test]
    fn settle_keeps_values_ticks_and_drop_counts(ops in proptest::collection::vec(op(), 1..300)) {
        let base = live();
        prop_assert_eq!(base, 0);
        let mut next_id = 0;
        {
            let mut store: Store<Counted> = Store::new();
            let mut oracle = Oracle::new();
            let mut now = Tick::new(0);
            for (step, op) in ops.iter().enumerate() {
                match *op {
                    Op::Insert(s, g) => {
                        let e = ent(s, g);
                        next_id += 1;
                        let old = store.insert(e, Counted::new(s, next_id));
                        match oracle.get_mut(&s) {
                            Some(slot) => {
                                prop_assert_eq!(old.map(|o| o.id), Some(slot.1));
                                slot.0 = e;
                                slot.1 = next_id;
                                slot.3 = now;
                            }
                            None => {
                                prop_assert!(old.is_none());
                                oracle.insert(s, (e, next_id, now, now));
                            }
                        }
                    }
                    Op::Remove(s) => {
                        let Some(&(e, id, ..)) = oracle.get(&s) else { continue };
                        let v = store.remove(e);
                        prop_assert_eq!(v.map(|v| v.id), Some(id));
                        oracle.remove(&s);
                    }
                    Op::Settle => {
                        store.settle();
                        prop_assert!(store.is_settled());
                        let slots: Vec<u32> = store.dense_entities().iter().map(|e| e.slot()).collect();
                        prop_assert!(slots.windows(2).all(|w| w[0] < w[1]), "{:?}", slots);
                    }
                    Op::Tick(t) => {
                        now = Tick::new(now.get() + t);
                        store.set_change_tick(now);
                    }
                    Op::GetMut(s) => {
                        let Some(entry) = oracle.get_mut(&s) else { continue };
                        prop_assert!(store.get_mut(entry.0).is_some());
                        entry.3 = now;
                    }
                    Op::IterMut => {
                        let n = store.iter_mut().count();
                        prop_assert_eq!(n, oracle.len());
                        for entry in oracle.values_mut() {
                            entry.3 = now;
                        }
                    }
                }
                compare(&store, &oracle, step)?;
            }
        }
        prop_assert_eq!(live(), 0, "every value dropped exactly once when the store went");
    }
}

/// Every possible pattern of removals from a small store, then settle: checks ascending order,
/// values and ticks beside their entity, for displaced elements at index 0, the end and
/// everywhere between. Exhaustive over subsets of removal orders for n <= 7.
#[test]
fn settle_after_every_removal_pattern_in_small_stores() {
    fn perms(n: usize, k: usize, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if prefix.len() == k {
            out.push(prefix.clone());
            return;
        }
        for s in 0..n as u32 {
            if !prefix.contains(&s) {
                prefix.push(s);
                perms(n, k, prefix, out);
                prefix.pop();
            }
        }
    }
    for n in 1..=6usize {
        for k in 0..n {
            let mut orders = Vec::new();
            perms(n, k, &mut Vec::new(), &mut orders);
            for order in &orders {
                // Insert order: both ascending and descending (the latter flags from index 1).
                for reversed in [false, true] {
                    let mut store: Store<(u32, String)> = Store::new();
                    let slots: Vec<u32> = if reversed {
                        (0..n as u32).rev().collect()
                    } else {
                        (0..n as u32).collect()
                    };
                    for (i, &s) in slots.iter().enumerate() {
                        store.set_change_tick(Tick::new(100 + s));
                        store.insert(ent(s * 3, 1), (s, format!("v{s}")));
                        let _ = i;
                    }
                    for &s in order {
                        assert!(store.remove(ent(s * 3, 1)).is_some());
                    }
                    store.settle();
                    store.check_invariants().unwrap();
                    assert!(store.is_settled());
                    let got: Vec<u32> = store
                        .dense_entities()
                        .iter()
                        .map(|e| e.slot() / 3)
                        .collect();
                    let mut want: Vec<u32> = (0..n as u32).filter(|s| !order.contains(s)).collect();
                    want.sort_unstable();
                    assert_eq!(got, want, "n={n} order={order:?} reversed={reversed}");
                    for (i, e) in store.dense_entities().iter().enumerate() {
                        let s = e.slot() / 3;
                        assert_eq!(store.dense_values()[i], (s, format!("v{s}")));
                        assert_eq!(store.dense_added_ticks()[i], Tick::new(100 + s));
                        assert_eq!(store.dense_changed_ticks()[i], Tick::new(100 + s));
                    }
                }
            }
        }
    }
}

/// Zero-sized values: settle orders the entity column; the (empty) value column stays as long.
#[test]
fn settle_a_store_of_zero_sized_values() {
    #[derive(Debug, PartialEq)]
    struct Z;
    let mut store: Store<Z> = Store::new();
    for s in (0..50u32).rev() {
        store.insert(ent(s, 0), Z);
    }
    for s in (0..50u32).step_by(7) {
        store.remove(ent(s, 0));
    }
    assert!(!store.is_settled());
    store.settle();
    store.check_invariants().unwrap();
    let got: Vec<u32> = store.iter().map(|(e, _)| e.slot()).collect();
    let want: Vec<u32> = (0..50u32).filter(|s| s % 7 != 0).collect();
    assert_eq!(got, want);
    assert_eq!(store.dense_values().len(), want.len());
}

#[derive(Component, Clone, Debug, PartialEq, Eq)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Tag;

fn contents(world: &World) -> Vec<(Entity, Option<String>, bool)> {
    let mut out: Vec<_> = world
        .query::<(Entity, Option<&Name>, Option<&Tag>)>()
        .map(|(e, n, t)| (e, n.map(|n| n.0.clone()), t.is_some()))
        .collect();
    out.sort_by_key(|(e, ..)| e.slot());
    out
}

/// A snapshot taken while stores are unsettled shares their halves; settling afterwards must
/// not touch what the snapshot holds, and restoring it gives back the unsettled contents.
#[test]
fn a_snapshot_taken_unsettled_survives_the_settle_after_it() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..40)
        .map(|i| {
            if i % 3 == 0 {
                world.spawn_with((Name(format!("n{i}")), Tag))
            } else {
                world.spawn_with((Name(format!("n{i}")),))
            }
        })
        .collect();
    // Swap-removes: leave the stores unsettled (displaced at the front, the middle, the end).
    for &i in &[0usize, 17, 5, 38, 22] {
        world.despawn(es[i]).unwrap();
    }
    assert!(!world.store::<Name>().unwrap().is_settled());
    let before = contents(&world);
    let snap = world.snapshot().unwrap();
    world.settle();
    assert!(world.store::<Name>().unwrap().is_settled());
    world.check_invariants().unwrap();
    assert_eq!(contents(&world), before);
    // Write after the settle, then restore.
    for n in world.query_mut::<&mut Name>() {
        n.0.push('!');
    }
    world.despawn(es[1]).unwrap();
    world.restore(&snap);
    world.check_invariants().unwrap();
    assert_eq!(contents(&world), before);
    // And the restored (shared, unsettled) world settles into the same again.
    world.settle();
    world.check_invariants().unwrap();
    assert_eq!(contents(&world), before);
}
