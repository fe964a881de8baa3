//! The run join against an entity-by-entity oracle.
//!
//! Random worlds (four components with random membership, built by a random history of
//! spawns, inserts, removes and despawns, so stores are out of step and at offsets from each
//! other) are queried through every path — `for` loops (`next`), `for_each` (`fold`),
//! `for_each_run` (slices), settled through `&mut World` and unsettled through `&World` — and
//! each must yield exactly what the oracle yields: every live entity in ascending slot order,
//! kept if it has the required components and lacks the excluded one, with `world.get` values.

use proptest::prelude::*;
use rota::{Component, Entity, With, Without, World};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct C(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Tag;

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8),
    Insert(usize, u8),
    Remove(usize, u8),
    Despawn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<u8>().prop_map(Op::Spawn),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(i, m)| Op::Insert(i, m)),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(i, m)| Op::Remove(i, m)),
        1 => any::<usize>().prop_map(Op::Despawn),
    ]
}

fn insert_mask(world: &mut World, e: Entity, mask: u8, value: u32) {
    if mask & 1 != 0 {
        world.insert(e, A(value)).unwrap();
    }
    if mask & 2 != 0 {
        world.insert(e, B(value + 1)).unwrap();
    }
    if mask & 4 != 0 {
        world.insert(e, C(value + 2)).unwrap();
    }
    if mask & 8 != 0 {
        world.insert(e, Tag).unwrap();
    }
}

/// Applies `ops`; the world is left unsettled (no `&mut` query ran since).
fn build(ops: &[Op]) -> World {
    let mut world = World::new();
    let mut alive: Vec<Entity> = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        let n = n as u32 * 10;
        match *op {
            Op::Spawn(mask) => {
                let e = world.spawn();
                insert_mask(&mut world, e, mask, n);
                alive.push(e);
            }
            Op::Insert(i, mask) if !alive.is_empty() => {
                let e = alive[i % alive.len()];
                insert_mask(&mut world, e, mask, n);
            }
            Op::Remove(i, mask) if !alive.is_empty() => {
                let e = alive[i % alive.len()];
                if mask & 1 != 0 {
                    world.remove::<A>(e).unwrap();
                }
                if mask & 2 != 0 {
                    world.remove::<B>(e).unwrap();
                }
                if mask & 4 != 0 {
                    world.remove::<C>(e).unwrap();
                }
                if mask & 8 != 0 {
                    world.remove::<Tag>(e).unwrap();
                }
            }
            Op::Despawn(i) if !alive.is_empty() => {
                let e = alive.swap_remove(i % alive.len());
                world.despawn(e).unwrap();
            }
            _ => {}
        }
    }
    world
}

type Row = (Entity, Option<u32>, Option<u32>, Option<u32>);

/// The oracle: live entities in ascending slot order, filtered entity by entity through
/// `world.get`/`world.has`.
fn oracle(world: &World, keep: impl Fn(&World, Entity) -> bool) -> Vec<Row> {
    let mut entities: Vec<Entity> = world.entities().iter().collect();
    entities.sort_by_key(|e| e.slot());
    entities
        .into_iter()
        .filter(|&e| keep(world, e))
        .map(|e| {
            (
                e,
                world.get::<A>(e).map(|a| a.0),
                world.get::<B>(e).map(|b| b.0),
                world.get::<C>(e).map(|c| c.0),
            )
        })
        .collect()
}

fn has_ab_not_tag(w: &World, e: Entity) -> bool {
    w.has::<A>(e) && w.has::<B>(e) && !w.has::<Tag>(e)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(128)))]

    /// `(Entity, &A, &B, Option<&C>)` without `Tag`, through every path.
    #[test]
    fn run_join_matches_the_entity_by_entity_oracle(ops in proptest::collection::vec(op(), 0..160)) {
        let mut world = build(&ops);
        let expected = oracle(&world, has_ab_not_tag);
        let row = |(e, a, b, c): (Entity, &A, &B, Option<&C>)| (e, Some(a.0), Some(b.0), c.map(|c| c.0));

        // Through `&World`: stores may be unsettled (the entity-by-entity fallback).
        let unsettled: Vec<Row> = world
            .query_filtered::<(Entity, &A, &B, Option<&C>), Without<Tag>>()
            .map(row)
            .collect();
        prop_assert_eq!(&unsettled, &expected);

        // Through `&mut World`: settled, the run join; `next`, `fold` and runs.
        let by_next: Vec<Row> = world
            .query_filtered_mut::<(Entity, &mut A, &B, Option<&C>), Without<Tag>>()
            .map(|(e, a, b, c)| (e, Some(a.0), Some(b.0), c.map(|c| c.0)))
            .collect();
        prop_assert_eq!(&by_next, &expected);

        let mut by_fold: Vec<Row> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &mut A, &B, Option<&C>), Without<Tag>>()
            .for_each(|(e, a, b, c)| by_fold.push((e, Some(a.0), Some(b.0), c.map(|c| c.0))));
        prop_assert_eq!(&by_fold, &expected);

        let mut by_runs: Vec<Row> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &mut A, &B, Option<&C>), Without<Tag>>()
            .for_each_run(|entities, ((), a, b, c)| {
                assert_eq!(entities.len(), a.len());
                assert_eq!(entities.len(), b.len());
                assert!(c.is_none_or(|c| c.len() == entities.len()));
                for (i, &e) in entities.iter().enumerate() {
                    by_runs.push((e, Some(a[i].0), Some(b[i].0), c.map(|c| c[i].0)));
                }
            });
        prop_assert_eq!(&by_runs, &expected);

        // Once settled, `&World` takes the run join too.
        let settled: Vec<Row> = world
            .query_filtered::<(Entity, &A, &B, Option<&C>), Without<Tag>>()
            .map(row)
            .collect();
        prop_assert_eq!(&settled, &expected);
    }

    /// Queries whose elements are all required (`&T`, `&mut T`, `Entity`, `With<T>`) take the
    /// join's own path for them (sparse lookups, leapfrog on a miss): through every path, with
    /// three-way and two-way joins whose driver changes with the history.
    #[test]
    fn required_only_joins_match_the_entity_by_entity_oracle(ops in proptest::collection::vec(op(), 0..160)) {
        let mut world = build(&ops);
        let three = oracle(&world, |w, e| w.has::<A>(e) && w.has::<B>(e) && w.has::<Tag>(e));
        let expected: Vec<(Entity, u32, u32)> =
            three.iter().map(|&(e, a, b, _)| (e, a.unwrap(), b.unwrap())).collect();
        let by_next: Vec<(Entity, u32, u32)> = world
            .query_filtered_mut::<(Entity, &mut A, &B), With<Tag>>()
            .map(|(e, a, b)| (e, a.0, b.0))
            .collect();
        prop_assert_eq!(&by_next, &expected);

        let mut by_fold: Vec<(Entity, u32, u32)> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &mut A, &B), With<Tag>>()
            .for_each(|(e, a, b)| by_fold.push((e, a.0, b.0)));
        prop_assert_eq!(&by_fold, &expected);

        let mut by_runs: Vec<(Entity, u32, u32)> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &A, &mut B), With<Tag>>()
            .for_each_run(|entities, ((), a, b)| {
                assert_eq!(entities.len(), a.len());
                assert_eq!(entities.len(), b.len());
                for (i, &e) in entities.iter().enumerate() {
                    by_runs.push((e, a[i].0, b[i].0));
                }
            });
        prop_assert_eq!(&by_runs, &expected);

        let two = oracle(&world, |w, e| w.has::<C>(e) && w.has::<A>(e));
        let got: Vec<(Entity, u32, u32)> = world
            .query::<(Entity, &C, &A)>()
            .map(|(e, c, a)| (e, c.0, a.0))
            .collect();
        let expected: Vec<(Entity, u32, u32)> =
            two.iter().map(|&(e, a, _, c)| (e, c.unwrap(), a.unwrap())).collect();
        prop_assert_eq!(got, expected);
    }

    /// A query that requires one store twice (`&A` with `With<A>`, `&mut A` with `With<A>`,
    /// `&A` with `Changed<A>`) joins it once: the same matches as the oracle, through every path,
    /// and with a change filter only what changed since the checkpoint.
    #[test]
    fn a_store_required_twice_joins_like_once(
        ops in proptest::collection::vec(op(), 0..160),
        touched in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut world = build(&ops);
        let expected: Vec<(Entity, u32, u32)> = oracle(&world, |w, e| w.has::<A>(e) && w.has::<B>(e))
            .into_iter()
            .map(|(e, a, b, _)| (e, a.unwrap(), b.unwrap()))
            .collect();
        let by_next: Vec<(Entity, u32, u32)> = world
            .query_filtered_mut::<(Entity, &mut A, &B), With<A>>()
            .map(|(e, a, b)| (e, a.0, b.0))
            .collect();
        prop_assert_eq!(&by_next, &expected);
        let mut by_runs: Vec<(Entity, u32, u32)> = Vec::new();
        world
            .query_filtered_mut::<(Entity, &A, &B), (With<A>, With<B>)>()
            .for_each_run(|entities, ((), a, b)| {
                for (i, &e) in entities.iter().enumerate() {
                    by_runs.push((e, a[i].0, b[i].0));
                }
            });
        prop_assert_eq!(&by_runs, &expected);

        let since = world.change_checkpoint();
        let with_a: Vec<Entity> = world.query_filtered::<Entity, With<A>>().collect();
        let mut changed: Vec<Entity> = Vec::new();
        if !with_a.is_empty() {
            for &i in &touched {
                let e = with_a[i % with_a.len()];
                world.get_mut::<A>(e).unwrap().0 += 1;
                changed.push(e);
            }
        }
        changed.sort_by_key(|e| e.slot());
        changed.dedup();
        let expected: Vec<(Entity, u32)> =
            changed.iter().map(|&e| (e, world.get::<A>(e).unwrap().0)).collect();
        let got: Vec<(Entity, u32)> = world
            .query_since::<(Entity, &A), rota::Changed<A>>(since)
            .map(|(e, a)| (e, a.0))
            .collect();
        prop_assert_eq!(&got, &expected);
        world.settle();
        let mut by_fold: Vec<(Entity, u32)> = Vec::new();
        world
            .query_since::<(Entity, &A), rota::Changed<A>>(since)
            .for_each(|(e, a)| by_fold.push((e, a.0)));
        prop_assert_eq!(&by_fold, &expected);
    }

    /// Tuples whose elements are filters, `()` and `Entity` beside values (their `for_each`
    /// walks one `Zip` over every element) yield what the oracle does through `next`, through
    /// `fold`, and through `fold` after `k` items taken by `next`.
    #[test]
    fn zipped_tuples_with_filter_elements_match_the_oracle(
        ops in proptest::collection::vec(op(), 0..160),
        k in 0usize..6,
    ) {
        let mut world = build(&ops);
        let expected: Vec<(Entity, u32, u32)> =
            oracle(&world, |w, e| w.has::<A>(e) && w.has::<B>(e) && w.has::<Tag>(e))
                .into_iter()
                .map(|(e, a, b, _)| (e, a.unwrap(), b.unwrap()))
                .collect();
        type Q<'w> = (With<Tag>, Entity, (), &'w mut A, &'w B);
        let by_next: Vec<(Entity, u32, u32)> = world
            .query_mut::<Q<'_>>()
            .map(|((), e, (), a, b)| (e, a.0, b.0))
            .collect();
        prop_assert_eq!(&by_next, &expected);

        let mut by_fold: Vec<(Entity, u32, u32)> = Vec::new();
        world
            .query_mut::<Q<'_>>()
            .for_each(|((), e, (), a, b)| by_fold.push((e, a.0, b.0)));
        prop_assert_eq!(&by_fold, &expected);

        let mut iter = world.query_mut::<Q<'_>>();
        let mut mixed: Vec<(Entity, u32, u32)> =
            iter.by_ref().take(k).map(|((), e, (), a, b)| (e, a.0, b.0)).collect();
        iter.for_each(|((), e, (), a, b)| mixed.push((e, a.0, b.0)));
        prop_assert_eq!(&mixed, &expected);

        // Without in the tuple: runs are cut where the excluded store holds an entity.
        let expected: Vec<(Entity, u32)> = oracle(&world, |w, e| w.has::<A>(e) && !w.has::<C>(e))
            .into_iter()
            .map(|(e, a, _, _)| (e, a.unwrap()))
            .collect();
        let mut by_fold: Vec<(Entity, u32)> = Vec::new();
        world
            .query_mut::<(&A, Without<C>, Entity)>()
            .for_each(|(a, (), e)| by_fold.push((e, a.0)));
        prop_assert_eq!(&by_fold, &expected);
    }

    /// Writes through runs land on the right entities.
    #[test]
    fn writes_through_runs_land_on_their_entities(ops in proptest::collection::vec(op(), 0..120)) {
        let mut world = build(&ops);
        world
            .query_filtered_mut::<(Entity, &mut B), With<A>>()
            .for_each_run(|entities, ((), b)| {
                for (e, b) in entities.iter().zip(b) {
                    b.0 = e.slot() * 7;
                }
            });
        let expected_b: Vec<(Entity, u32)> = oracle(&world, |w, e| w.has::<B>(e))
            .into_iter()
            .map(|(e, a, b, _)| (e, if a.is_some() { e.slot() * 7 } else { b.unwrap() }))
            .collect();
        let got: Vec<(Entity, u32)> = world.query::<(Entity, &B)>().map(|(e, b)| (e, b.0)).collect();
        prop_assert_eq!(got, expected_b);
    }

    /// Queries with no required component walk every live entity.
    #[test]
    fn optional_only_queries_visit_every_live_entity(ops in proptest::collection::vec(op(), 0..120)) {
        let mut world = build(&ops);
        let expected = oracle(&world, |w, e| !w.has::<C>(e));
        let got: Vec<Row> = world
            .query_filtered_mut::<(Entity, Option<&A>, Option<&mut B>), Without<C>>()
            .map(|(e, a, b)| (e, a.map(|a| a.0), b.map(|b| b.0), None))
            .collect();
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn stores_at_an_offset_join_in_one_run() {
    let mut world = World::new();
    // A on slots 0..100, B on slots 50..100: B's whole column sits at offset 50 in A's.
    let es: Vec<Entity> = (0..100).map(|i| world.spawn_with((A(i),))).collect();
    for &e in &es[50..] {
        world.insert(e, B(e.slot())).unwrap();
    }
    let mut runs = Vec::new();
    world
        .query_mut::<(Entity, &A, &mut B)>()
        .for_each_run(|entities, _| runs.push((entities[0].slot(), entities.len())));
    assert_eq!(runs, [(50, 50)]);
}

#[test]
fn an_excluded_entity_splits_a_run() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn_with((A(i),))).collect();
    world.insert(es[4], Tag).unwrap();
    let mut runs = Vec::new();
    world
        .query_filtered_mut::<(Entity, &mut A), Without<Tag>>()
        .for_each_run(|entities, _| runs.push((entities[0].slot(), entities.len())));
    assert_eq!(runs, [(0, 4), (5, 5)]);
}

#[test]
fn for_each_run_after_next_hands_out_the_rest_of_the_started_run() {
    let mut world = World::new();
    for i in 0..10 {
        world.spawn_with((A(i), B(i)));
    }
    let mut it = world.query_mut::<(Entity, &mut A, &B)>();
    let first = it.next().map(|(_, a, _)| a.0);
    assert_eq!(first, Some(0));
    let mut rest = Vec::new();
    it.for_each_run(|entities, ((), a, b)| {
        assert_eq!((entities.len(), a.len()), (b.len(), b.len()));
        rest.extend(entities.iter().zip(a.iter()).map(|(e, a)| (e.slot(), a.0)));
    });
    assert_eq!(rest, (1..10).map(|i| (i, i)).collect::<Vec<_>>());
}

/// `Option<&B>` does not cut a `for` loop's runs (its column is merged item by item), so after
/// `next` the started run mixes entities with and without `B`: `for_each_run` hands its rest
/// out entity by entity, then cuts the runs that follow.
#[test]
fn for_each_run_after_next_over_a_merged_optional_column_hands_out_each_entity_once() {
    let mut world = World::new();
    for i in 0..12 {
        let e = world.spawn_with((A(i),));
        if i % 3 == 0 {
            world.insert(e, B(i)).unwrap();
        }
    }
    let mut it = world.query_mut::<(Entity, &A, Option<&B>)>();
    let first: Vec<(u32, Option<u32>)> = it
        .by_ref()
        .take(4)
        .map(|(_, a, b)| (a.0, b.map(|b| b.0)))
        .collect();
    assert_eq!(first, [(0, Some(0)), (1, None), (2, None), (3, Some(3))]);
    let mut rest = Vec::new();
    it.for_each_run(|entities, ((), a, b)| {
        assert_eq!(entities.len(), a.len());
        assert!(b.is_none_or(|b| b.len() == a.len()));
        for (i, (e, a)) in entities.iter().zip(a).enumerate() {
            rest.push((e.slot(), a.0, b.map(|b| b[i].0)));
        }
    });
    let expected: Vec<(u32, u32, Option<u32>)> =
        (4..12).map(|i| (i, i, (i % 3 == 0).then_some(i))).collect();
    assert_eq!(rest, expected);
}

/// A's values of the oracle's rows kept by `keep`.
fn a_values(world: &World, keep: impl Fn(&World, Entity) -> bool) -> Vec<u32> {
    oracle(world, keep)
        .into_iter()
        .map(|(_, a, _, _)| a.expect("kept rows have A"))
        .collect()
}

/// The A values of `iter`'s walk taken `k` items by `next`, then the rest by `for_each_run`.
fn next_then_runs<'w>(mut iter: rota::QueryIter<'w, &'w mut A, With<B>>, k: usize) -> Vec<u32> {
    let mut out: Vec<u32> = iter.by_ref().take(k).map(|a| a.0).collect();
    iter.for_each_run(|entities, a| {
        assert_eq!(entities.len(), a.len());
        out.extend(a.iter().map(|a| a.0));
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(64)))]

    /// Queries of one plain element take their first run when built (a `for` loop over a
    /// query of one run is then a plain slice loop, `QueryIter::STARTS`): every path still
    /// yields the oracle's values — one run (`&A`) or several (`&mut A` with `With<B>`, stores
    /// out of step), walked by `next`, `fold`, runs, and `next` for a while then runs.
    #[test]
    fn one_element_queries_match_the_oracle(ops in proptest::collection::vec(op(), 0..160), k in 0usize..40) {
        let mut world = build(&ops);
        let all_a = a_values(&world, |w, e| w.has::<A>(e));
        let a_with_b = a_values(&world, |w, e| w.has::<A>(e) && w.has::<B>(e));

        let mut by_next = Vec::new();
        for a in world.query_mut::<&A>() {
            by_next.push(a.0);
        }
        prop_assert_eq!(&by_next, &all_a);
        let mut by_next = Vec::new();
        for a in world.query_filtered_mut::<&mut A, With<B>>() {
            by_next.push(a.0);
        }
        prop_assert_eq!(&by_next, &a_with_b);

        let mut by_fold = Vec::new();
        world.query_filtered_mut::<&mut A, With<B>>().for_each(|a| by_fold.push(a.0));
        prop_assert_eq!(&by_fold, &a_with_b);

        let mut by_runs = Vec::new();
        let mut runs = 0;
        world.query_mut::<&mut A>().for_each_run(|entities, a| {
            assert_eq!(entities.len(), a.len());
            runs += 1;
            by_runs.extend(a.iter().map(|a| a.0));
        });
        prop_assert_eq!(&by_runs, &all_a);
        // A settled store alone is one run.
        prop_assert_eq!(runs, usize::from(!all_a.is_empty()));
        let mut by_runs = Vec::new();
        world.query_filtered_mut::<&mut A, With<B>>().for_each_run(|_, a| {
            by_runs.extend(a.iter().map(|a| a.0));
        });
        prop_assert_eq!(&by_runs, &a_with_b);

        prop_assert_eq!(next_then_runs(world.query_filtered_mut::<&mut A, With<B>>(), k), a_with_b.clone());
        let entities: Vec<Entity> = world.query_filtered_mut::<Entity, With<A>>().collect();
        prop_assert_eq!(entities.len(), all_a.len());
    }

    /// Two change filters in one query (`(Changed<A>, Changed<B>)`, `(Added<C>, Changed<A>)`)
    /// are asked entity by entity inside each run, each at its own column's position: the
    /// query yields exactly the entities every filter alone yields (each one-filter query is
    /// checked against the values changed since the checkpoint), in ascending slot order,
    /// through `&World` on unsettled stores, then through `next` and `fold` once settled.
    #[test]
    fn two_change_filters_match_each_filter_alone(
        ops in proptest::collection::vec(op(), 0..160),
        touched_a in proptest::collection::vec(any::<usize>(), 0..24),
        touched_b in proptest::collection::vec(any::<usize>(), 0..24),
        given_c in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        use rota::{Added, Changed};
        let mut world = build(&ops);
        world.settle();
        let since = world.change_checkpoint();
        let alive: Vec<Entity> = world.query::<Entity>().collect();
        let mut stamped_a: Vec<Entity> = Vec::new();
        let mut stamped_b: Vec<Entity> = Vec::new();
        let with_a: Vec<Entity> = world.query_filtered::<Entity, With<A>>().collect();
        let with_b: Vec<Entity> = world.query_filtered::<Entity, With<B>>().collect();
        if !with_a.is_empty() {
            for &i in &touched_a {
                let e = with_a[i % with_a.len()];
                world.get_mut::<A>(e).unwrap().0 += 1;
                stamped_a.push(e);
            }
        }
        if !with_b.is_empty() {
            for &i in &touched_b {
                let e = with_b[i % with_b.len()];
                world.get_mut::<B>(e).unwrap().0 += 1;
                stamped_b.push(e);
            }
        }
        if !alive.is_empty() {
            for &i in &given_c {
                let e = alive[i % alive.len()];
                if !world.has::<C>(e) {
                    world.insert(e, C(7)).unwrap();
                }
            }
        }
        for stamped in [&mut stamped_a, &mut stamped_b] {
            stamped.sort_by_key(|e| e.slot());
            stamped.dedup();
        }
        let changed_a: Vec<Entity> = world.query_since::<Entity, Changed<A>>(since).collect();
        let changed_b: Vec<Entity> = world.query_since::<Entity, Changed<B>>(since).collect();
        let added_c: Vec<Entity> = world.query_since::<Entity, Added<C>>(since).collect();
        prop_assert_eq!(&changed_a, &stamped_a);
        prop_assert_eq!(&changed_b, &stamped_b);
        let both_ab: Vec<(Entity, u32, u32)> = changed_a
            .iter()
            .filter(|e| changed_b.contains(e))
            .map(|&e| (e, world.get::<A>(e).unwrap().0, world.get::<B>(e).unwrap().0))
            .collect();
        let c_and_a: Vec<Entity> =
            added_c.iter().copied().filter(|e| changed_a.contains(e)).collect();

        // Unsettled (the inserts of `C` appended out of order, perhaps): `&World`.
        let got: Vec<(Entity, u32, u32)> = world
            .query_since::<(Entity, &A, &B), (Changed<A>, Changed<B>)>(since)
            .map(|(e, a, b)| (e, a.0, b.0))
            .collect();
        prop_assert_eq!(&got, &both_ab);
        let got: Vec<Entity> =
            world.query_since::<Entity, (Added<C>, Changed<A>)>(since).collect();
        prop_assert_eq!(&got, &c_and_a);

        // Settled: the run join, through `next` and `fold`.
        world.settle();
        let got: Vec<(Entity, u32, u32)> = world
            .query_since::<(Entity, &A, &B), (Changed<A>, Changed<B>)>(since)
            .map(|(e, a, b)| (e, a.0, b.0))
            .collect();
        prop_assert_eq!(&got, &both_ab);
        let mut by_fold: Vec<(Entity, u32, u32)> = Vec::new();
        world
            .query_since::<(Entity, &A, &B), (Changed<B>, Changed<A>)>(since)
            .for_each(|(e, a, b)| by_fold.push((e, a.0, b.0)));
        prop_assert_eq!(&by_fold, &both_ab);
        let got: Vec<Entity> =
            world.query_since::<Entity, (Added<C>, Changed<A>)>(since).collect();
        prop_assert_eq!(&got, &c_and_a);
    }
}
