//! The settle plan (`settle.rs`) on random dense orders: applied to every column it sorts by
//! slot, keeps each element beside its entity and touches nothing below the lowest flag.

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
