//! A store with dead elements (`dead.rs`) against a `BTreeMap` oracle after every step.

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
