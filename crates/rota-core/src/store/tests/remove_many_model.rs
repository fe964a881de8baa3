//! `Store::remove_many` against a `BTreeMap` oracle, few removals (swap-removes) and many
//! (the compaction), on unsettled stores.

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
