//! What a `&mut` query stamps changed: exactly the values it handed out.
//!
//! * `a_query_stamps_exactly_what_it_handed_out` (proptest) — a random world (entities with
//!   `Val`, `Other`, both or neither, slots left empty by despawns), one of five query shapes
//!   (single column, a join, `Option<&mut Val>` driven by every entity or by `Other`, a
//!   `Without` filter), walked in one of five ways: a `for` loop stopped after `k` items,
//!   `take(k)`, `for_each`, `for_each_run`, or a `for` loop whose body panics at item `k`
//!   (caught). (A panic inside `for_each` is the one known over-stamp: see
//!   `a_panic_in_for_each_stamps_what_was_handed_out_and_at_most_the_rest_of_its_run`.) Afterwards `Changed<Val>` since a checkpoint holds exactly the entities whose
//!   `Val` the oracle says were handed out: the first `k` matches in ascending slot order that
//!   have a `Val`.
//! * `query_one_mut_stamps_its_entity`: the one-entity path stamps that entity and no other.
//!
//! The run of a `&mut` query is a plain slice iterator; its column stamps in bulk when the next
//! run is taken and when the query ends (`WriteColumn`), so these tests pin every way a run can
//! end: used up, abandoned early, abandoned by a panic, absent from an optional column.

use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use rota::{Changed, Component, Entity, Without, World};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Val(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Other(u32);

/// How the query is walked.
#[derive(Clone, Copy, Debug)]
enum Walk {
    /// `for` loop, `break` at item `k` (after `k` items are used; the `k`-th was fetched).
    ForBreak,
    /// `.take(k).for_each(..)`.
    Take,
    /// `for_each` over everything.
    ForEach,
    /// `for_each_run` over everything.
    Runs,
    /// `for` loop whose body panics at item `k` (caught).
    PanicAt,
}

fn walk() -> impl Strategy<Value = Walk> {
    prop_oneof![
        Just(Walk::ForBreak),
        Just(Walk::Take),
        Just(Walk::ForEach),
        Just(Walk::Runs),
        Just(Walk::PanicAt),
    ]
}

/// How many items the walk hands out of `matches`.
fn handed(walk: Walk, k: usize, matches: usize) -> usize {
    match walk {
        Walk::Take => k.min(matches),
        Walk::ForEach | Walk::Runs => matches,
        // The item the loop breaks (or panics) on was handed out too.
        Walk::ForBreak | Walk::PanicAt => (k + 1).min(matches),
    }
}

/// Walks any query whose items are `I`, the way `walk` says; `count` is how a run's length is
/// read from `for_each_run`'s slices.
macro_rules! walk_query {
    ($iter:expr, $walk:expr, $k:expr) => {{
        let k = $k;
        match $walk {
            Walk::ForBreak => {
                let mut n = 0;
                for item in $iter {
                    if n == k {
                        break;
                    }
                    std::hint::black_box(&item);
                    n += 1;
                }
            }
            Walk::Take => $iter.take(k).for_each(|item| {
                std::hint::black_box(&item);
            }),
            Walk::ForEach => $iter.for_each(|item| {
                std::hint::black_box(&item);
            }),
            Walk::Runs => $iter.for_each_run(|entities, slices| {
                std::hint::black_box((entities, &slices));
            }),
            Walk::PanicAt => {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    for (n, item) in $iter.enumerate() {
                        std::hint::black_box(&item);
                        if n == k {
                            panic!("stop at {k}");
                        }
                    }
                }));
                let _ = result;
            }
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(256)))]

    #[test]
    fn a_query_stamps_exactly_what_it_handed_out(
        kinds in proptest::collection::vec((any::<bool>(), any::<bool>(), any::<bool>()), 0..80),
        shape in 0..5usize,
        walk in walk(),
        k in 0..30usize,
    ) {
        let mut world = World::new();
        // (entity, has Val, has Other) for every live entity, in slot order.
        let mut oracle: Vec<(Entity, bool, bool)> = Vec::new();
        for (i, &(val, other, dies)) in kinds.iter().enumerate() {
            let e = world.spawn();
            if val {
                world.insert(e, Val(i as u32)).unwrap();
            }
            if other {
                world.insert(e, Other(i as u32)).unwrap();
            }
            if dies {
                world.despawn(e).unwrap();
            } else {
                oracle.push((e, val, other));
            }
        }
        oracle.sort_by_key(|(e, _, _)| e.slot());
        let since = world.change_checkpoint();

        // The entities each shape matches, in the order it visits them.
        let matches: Vec<(Entity, bool)> = oracle
            .iter()
            .filter(|&&(_, val, other)| match shape {
                0 => val,
                1 => val && other,
                2 => true,
                3 => other,
                _ => val && !other,
            })
            .map(|&(e, val, _)| (e, val))
            .collect();
        let n = handed(walk, k, matches.len());
        let expected: Vec<Entity> =
            matches[..n].iter().filter(|(_, val)| *val).map(|(e, _)| *e).collect();

        match shape {
            0 => walk_query!(world.query_mut::<&mut Val>(), walk, k),
            1 => walk_query!(world.query_mut::<(Entity, &mut Val, &Other)>(), walk, k),
            2 => walk_query!(world.query_mut::<(Entity, Option<&mut Val>)>(), walk, k),
            3 => walk_query!(world.query_mut::<(&Other, Option<&mut Val>)>(), walk, k),
            _ => walk_query!(world.query_filtered_mut::<&mut Val, Without<Other>>(), walk, k),
        }

        let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
        prop_assert_eq!(changed, expected);
    }
}

#[test]
fn query_one_mut_stamps_its_entity() {
    let mut world = World::new();
    let es = world.spawn_batch((0..5).map(|i| (Val(i),)));
    let since = world.change_checkpoint();
    world.query_one_mut::<&mut Val>(es[3]).unwrap().0 += 1;
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
    assert_eq!(changed, [es[3]]);
}

#[test]
fn a_loop_stopped_in_a_run_without_the_optional_column_still_stamps_the_run_before() {
    let mut world = World::new();
    let with_val = world.spawn_with((Other(0), Val(0)));
    for i in 1..4 {
        world.spawn_with((Other(i),));
    }
    let since = world.change_checkpoint();
    // Runs: [with_val] (Val present), then three entities without `Val`; stop in the second.
    for (n, (_, val)) in world.query_mut::<(&Other, Option<&mut Val>)>().enumerate() {
        std::hint::black_box(val);
        if n == 1 {
            break;
        }
    }
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
    assert_eq!(changed, [with_val]);
}

// Found by review: ways a walk can end early that the proptest above did not cover.

#[test]
fn a_panic_in_for_each_run_after_next_stamps_only_what_was_handed_out() {
    let mut world = World::new();
    let es = world.spawn_batch((0..5).map(|i| (Val(i),)));
    let since = world.change_checkpoint();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut it = world.query_mut::<&mut Val>();
        it.next();
        it.for_each_run(|_, vals| {
            if vals[0].0 == 2 {
                panic!("stop")
            }
        });
    }));
    assert!(result.is_err());
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
    assert_eq!(changed, es[..3]);
}

/// `for_each` folds each run by value (keeping it in registers), so a panic inside the closure
/// leaves the query not knowing how much of that run it handed out: it stamps the whole run.
/// Conservative (no handed-out value is missed), and documented on `QueryIter::fold`.
#[test]
fn a_panic_in_for_each_stamps_what_was_handed_out_and_at_most_the_rest_of_its_run() {
    let mut world = World::new();
    let es = world.spawn_batch((0..5).map(|i| (Val(i),)));
    let other = world.spawn_with((Other(9),));
    world.insert(other, Val(9)).unwrap();
    let since = world.change_checkpoint();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world
            .query_filtered_mut::<&mut Val, Without<Other>>()
            .for_each(|v| {
                if v.0 == 1 {
                    panic!("stop")
                }
            });
    }));
    assert!(result.is_err());
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
    assert!(es[..2].iter().all(|e| changed.contains(e)), "{changed:?}");
    assert!(changed.iter().all(|e| es.contains(e)), "{changed:?}");
}

#[test]
fn a_filter_after_a_mut_element_does_not_let_a_rejected_entity_be_stamped() {
    let mut world = World::new();
    let a = world.spawn_with((Val(0),));
    world.spawn_with((Val(1), Other(1)));
    let since = world.change_checkpoint();
    // No required column: the query goes entity by entity.
    assert_eq!(
        world
            .query_mut::<(Option<&mut Val>, Without<Other>)>()
            .count(),
        1
    );
    let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(since).collect();
    assert_eq!(changed, [a]);
}
