//! Queries through the `rota` facade: dinah's seven acceptance cases first, then the ordering
//! contract after messy histories, `Option`, `With`/`Without`, wide tuples, `Entity` as an
//! element, `query_one`/`query_one_mut`, aliasing of generic components, and mutation.
//!
//! Every component here is `#[derive(Component)]`; values encode their entity's spawn index so
//! a test can tell whether a yielded value belongs to the entity it was yielded with.

use rota::{
    Component, Entity, EntityNotAlive, MismatchReason, QueryAliasError, QueryGetError, With,
    Without, World,
};

#[derive(Component, Clone, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct B(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct C(u32);

/// Never inserted anywhere: its store does not exist.
#[derive(Component, Clone, Debug, PartialEq)]
struct Never(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Tag;

/// A generic component: no compile-time unique key, so aliasing is caught at run time.
#[derive(Component, Clone, Debug, PartialEq)]
struct G<T>(T);

macro_rules! wide_components {
    ($($name:ident),+) => {
        $(
            #[derive(Component, Clone, Debug, PartialEq)]
            struct $name(u32);
        )+
    };
}

wide_components!(W0, W1, W2, W3, W4, W5, W6, W7, W8, W9, W10, W11);

/// `(entity, value)` pairs of `(Entity, &A)` in iteration order.
fn entity_a_pairs(world: &World) -> Vec<(Entity, u32)> {
    world
        .query::<(Entity, &A)>()
        .map(|(e, a)| (e, a.0))
        .collect()
}

fn assert_strictly_ascending(entities: &[Entity]) {
    assert!(
        entities.windows(2).all(|w| w[0].slot() < w[1].slot()),
        "not in strictly ascending slot order: {entities:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// dinah's query acceptance cases
// ---------------------------------------------------------------------------------------------

#[test]
fn full_match_visits_every_entity_with_all_components_and_the_right_values() {
    let mut world = World::new();
    let e0 = world.spawn_with((A(0), B(0)));
    let e1 = world.spawn_with((A(1), B(10)));
    let e2 = world.spawn_with((B(20), A(2))); // bundle order does not matter

    let got: Vec<(Entity, u32, u32)> = world
        .query::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (e, a.0, b.0))
        .collect();
    assert_eq!(got, [(e0, 0, 0), (e1, 1, 10), (e2, 2, 20)]);

    let got_mut: Vec<(Entity, u32, u32)> = world
        .query_mut::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (e, a.0, b.0))
        .collect();
    assert_eq!(got_mut, got);
    world.check_invariants().unwrap();
}

#[test]
fn missing_component_excludes_the_entity() {
    let mut world = World::new();
    let both = world.spawn_with((A(1), B(1)));
    let _only_a = world.spawn_with((A(2),));
    let _only_b = world.spawn_with((B(3),));
    let _nothing = world.spawn();
    let also_both = world.spawn_with((A(5), B(5)));

    let got: Vec<Entity> = world.query::<(Entity, &A, &B)>().map(|(e, ..)| e).collect();
    assert_eq!(got, [both, also_both]);
    let got_reversed: Vec<Entity> = world
        .query::<(&B, Entity, &A)>()
        .map(|(_, e, _)| e)
        .collect();
    assert_eq!(got_reversed, [both, also_both]);
    let got_mut: Vec<Entity> = world
        .query_mut::<(Entity, &mut A, &B)>()
        .map(|(e, ..)| e)
        .collect();
    assert_eq!(got_mut, [both, also_both]);
}

#[test]
fn empty_query_over_a_never_inserted_type_or_an_empty_world_yields_nothing() {
    let mut empty = World::new();
    assert_eq!(empty.query::<&A>().count(), 0);
    assert_eq!(empty.query::<(Entity, &A, &B)>().count(), 0);
    assert_eq!(empty.query::<Entity>().count(), 0);
    assert_eq!(empty.query_mut::<&mut A>().count(), 0);
    assert_eq!(empty.query_filtered::<Entity, With<A>>().count(), 0);

    let mut world = World::new();
    let e = world.spawn_with((A(1), B(2)));
    assert!(world.store::<Never>().is_none(), "Never was never inserted");
    assert_eq!(world.query::<&Never>().count(), 0);
    assert_eq!(world.query::<(&A, &Never)>().count(), 0);
    assert_eq!(world.query_mut::<&mut Never>().count(), 0);
    assert_eq!(world.query_mut::<(&mut A, &Never)>().count(), 0);
    assert_eq!(world.query_filtered::<&A, With<Never>>().count(), 0);
    // Not an error either way: the excluding and optional forms still see the entity.
    assert_eq!(
        world
            .query_filtered::<Entity, Without<Never>>()
            .collect::<Vec<_>>(),
        [e]
    );
    assert_eq!(world.query::<Option<&Never>>().collect::<Vec<_>>(), [None]);
    // The query neither registered a store nor changed the world.
    assert!(world.store::<Never>().is_none());
    assert_eq!(world.len(), 1);
    world.check_invariants().unwrap();
}

#[test]
fn destroyed_entities_and_stale_handles_are_excluded_after_slot_reuse() {
    let mut world = World::new();
    let old = world.spawn_with((A(1), B(100), Tag));
    let other = world.spawn_with((A(2),));
    world.despawn(old).unwrap();

    let new = world.spawn_with((A(3),));
    assert_eq!(new.slot(), old.slot(), "the freed slot is reused");
    assert!(new.generation() > old.generation());
    assert!(!world.is_alive(old));

    // The query yields the new incarnation only, in slot order.
    assert_eq!(entity_a_pairs(&world), [(new, 3), (other, 2)]);
    let mut_pairs: Vec<(Entity, u32)> = world
        .query_mut::<(Entity, &mut A)>()
        .map(|(e, a)| (e, a.0))
        .collect();
    assert_eq!(mut_pairs, [(new, 3), (other, 2)]);

    // The stale handle reads and writes nothing.
    assert_eq!(world.get::<A>(old), None);
    assert_eq!(world.get_mut::<A>(old), None);
    assert!(!world.has::<A>(old));
    assert_eq!(world.insert(old, B(7)), Err(EntityNotAlive(old)));
    assert_eq!(
        world.query_one::<&A>(old),
        Err(QueryGetError::Dead(EntityNotAlive(old)))
    );

    // The reused slot inherited nothing from its previous incarnation.
    assert_eq!(world.get::<B>(new), None);
    assert!(!world.has::<Tag>(new));
    assert_eq!(world.query::<&B>().count(), 0);
    assert_eq!(world.query::<&Tag>().count(), 0);
    assert_eq!(world.store::<B>().unwrap().len(), 0);
    assert_eq!(world.store::<Tag>().unwrap().len(), 0);
    world.check_invariants().unwrap();
}

#[test]
fn several_matches_keep_components_aligned_to_their_entity_after_swap_removes() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..10)
        .map(|i| world.spawn_with((A(i), B(i * 10))))
        .collect();
    // Removing non-last entries swap-removes: the last values move into the holes.
    for &i in &[0usize, 3, 6] {
        assert_eq!(world.remove::<A>(spawned[i]), Ok(Some(A(i as u32))));
    }
    assert!(!world.store::<A>().unwrap().is_settled());
    let expected: Vec<Entity> = spawned
        .iter()
        .enumerate()
        .filter(|(i, _)| ![0, 3, 6].contains(i))
        .map(|(_, &e)| e)
        .collect();
    let index_of = |e: Entity| spawned.iter().position(|&s| s == e).unwrap() as u32;

    // Through &World (unsettled store: the fallback walk).
    let mut seen = Vec::new();
    for (e, a, b) in world.query::<(Entity, &A, &B)>() {
        let i = index_of(e);
        assert_eq!(
            (a.0, b.0),
            (i, i * 10),
            "values of {e} belong to another entity"
        );
        seen.push(e);
    }
    assert_eq!(seen, expected);

    // The other store driving (B is larger, so put the probe on A the other way round).
    let mut seen = Vec::new();
    for (b, e, a) in world.query::<(&B, Entity, &A)>() {
        let i = index_of(e);
        assert_eq!(
            (a.0, b.0),
            (i, i * 10),
            "values of {e} belong to another entity"
        );
        seen.push(e);
    }
    assert_eq!(seen, expected);

    // Through &mut World (settled first), writing through the aligned reference.
    let mut seen = Vec::new();
    for (e, a, b) in world.query_mut::<(Entity, &mut A, &B)>() {
        let i = index_of(e);
        assert_eq!(
            (a.0, b.0),
            (i, i * 10),
            "values of {e} belong to another entity"
        );
        a.0 += 1000;
        seen.push(e);
    }
    assert_eq!(seen, expected);
    for (i, &e) in spawned.iter().enumerate() {
        let want = (![0, 3, 6].contains(&i)).then(|| A(i as u32 + 1000));
        assert_eq!(world.get::<A>(e), want.as_ref(), "entity {e}");
        assert_eq!(world.get::<B>(e), Some(&B(i as u32 * 10)));
    }
    world.check_invariants().unwrap();
}

#[test]
fn coexisting_read_borrows_two_live_iterators_and_get_during_iteration() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..5).map(|i| world.spawn_with((A(i), B(i * 2)))).collect();

    let first = world.query::<(Entity, &A)>();
    let second = world.query::<(Entity, &A)>();
    let mut visited = 0;
    for ((e1, a1), (e2, a2)) in first.zip(second) {
        assert_eq!(e1, e2);
        assert!(std::ptr::eq(a1, a2), "both iterators read the same value");
        // A third shared access to the same world while both iterators are alive.
        assert_eq!(world.get::<A>(e1), Some(a1));
        assert_eq!(world.get::<B>(e1).unwrap().0, a1.0 * 2);
        assert!(world.is_alive(e1));
        visited += 1;
    }
    assert_eq!(visited, spawned.len());

    // Nested: an inner query per outer item.
    let pairs = world
        .query::<&A>()
        .map(|a| world.query::<&A>().filter(|b| b.0 < a.0).count())
        .collect::<Vec<_>>();
    assert_eq!(pairs, [0, 1, 2, 3, 4]);
}

#[test]
fn iterating_has_no_structural_side_effects() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..8)
        .map(|i| {
            if i % 2 == 0 {
                world.spawn_with((A(i), B(i)))
            } else {
                world.spawn_with((A(i),))
            }
        })
        .collect();
    world.despawn(spawned[3]).unwrap();
    world.remove::<A>(spawned[0]).unwrap();

    let snapshot = |world: &World| {
        (
            world.len(),
            world.store::<A>().unwrap().len(),
            world.store::<B>().unwrap().len(),
            spawned
                .iter()
                .map(|&e| world.is_alive(e))
                .collect::<Vec<_>>(),
            world.entities().slot_count(),
        )
    };
    let before = snapshot(&world);
    assert_eq!(before.0, 7);
    assert_eq!(before.1, 6);
    assert_eq!(before.2, 4);

    assert_eq!(world.query::<(Entity, &A, Option<&B>)>().count(), 6);
    assert_eq!(world.query_filtered::<&A, Without<B>>().count(), 3);
    assert_eq!(snapshot(&world), before);

    for (a, b) in world.query_mut::<(&mut A, Option<&mut B>)>() {
        a.0 += 1;
        if let Some(b) = b {
            b.0 += 1;
        }
    }
    world
        .query_filtered_mut::<&mut B, With<A>>()
        .for_each(|b| b.0 += 1);
    let _ = world.query_one_mut::<&mut A>(spawned[1]).unwrap();
    assert_eq!(snapshot(&world), before);
    assert!(world.store::<Never>().is_none());
    world.check_invariants().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Ordering contract
// ---------------------------------------------------------------------------------------------

/// Ten empty entities, `A` inserted in descending slot order, some removed, some re-inserted:
/// `A`'s store ends up unsettled.
fn messy_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..10).map(|_| world.spawn()).collect();
    for (i, &e) in spawned.iter().enumerate().rev() {
        world.insert(e, A(i as u32)).unwrap();
        if i % 3 == 0 {
            world.insert(e, B(i as u32)).unwrap();
        }
    }
    assert!(!world.store::<A>().unwrap().is_settled());
    for &i in &[7usize, 2, 5] {
        world.remove::<A>(spawned[i]).unwrap();
    }
    for &i in &[5usize, 2] {
        world.insert(spawned[i], A(i as u32 + 100)).unwrap();
    }
    world.despawn(spawned[4]).unwrap();
    (world, spawned)
}

#[test]
fn query_through_shared_world_is_ascending_after_a_messy_history() {
    let (world, spawned) = messy_world();
    assert!(
        !world.store::<A>().unwrap().is_settled(),
        "the fallback walk over an unsettled store must be exercised"
    );

    let got = entity_a_pairs(&world);
    let entities: Vec<Entity> = got.iter().map(|&(e, _)| e).collect();
    assert_strictly_ascending(&entities);
    let expected: Vec<(Entity, u32)> = [0, 1, 2, 3, 5, 6, 8, 9]
        .iter()
        .map(|&i| {
            let v = if i == 2 || i == 5 { i + 100 } else { i };
            (spawned[i as usize], v)
        })
        .collect();
    assert_eq!(got, expected);

    // Two stores, either one driving.
    let ab: Vec<(Entity, u32, u32)> = world
        .query::<(Entity, &A, &B)>()
        .map(|(e, a, b)| (e, a.0, b.0))
        .collect();
    assert_eq!(
        ab,
        [
            (spawned[0], 0, 0),
            (spawned[3], 3, 3),
            (spawned[6], 6, 6),
            (spawned[9], 9, 9)
        ]
    );
    let ba: Vec<Entity> = world.query::<(&B, Entity)>().map(|(_, e)| e).collect();
    assert_eq!(ba, [spawned[0], spawned[3], spawned[6], spawned[9]]);

    // Iterating through &World left the store unsettled (no hidden mutation).
    assert!(!world.store::<A>().unwrap().is_settled());
    world.check_invariants().unwrap();
}

#[test]
fn query_mut_is_ascending_after_a_messy_history_and_settles_what_it_touches() {
    let (mut world, _) = messy_world();
    let (mut reference, _) = messy_world();
    assert!(!world.store::<A>().unwrap().is_settled());
    let via_shared = entity_a_pairs(&reference);

    let got: Vec<(Entity, u32)> = world
        .query_mut::<(Entity, &mut A)>()
        .map(|(e, a)| (e, a.0))
        .collect();
    let entities: Vec<Entity> = got.iter().map(|&(e, _)| e).collect();
    assert_strictly_ascending(&entities);
    assert_eq!(
        got, via_shared,
        "query and query_mut agree whatever the store state"
    );
    assert!(world.store::<A>().unwrap().is_settled());

    // Same contents, same iteration, both ways, after settling too.
    reference.settle();
    assert_eq!(entity_a_pairs(&reference), via_shared);
    assert_eq!(entity_a_pairs(&world), via_shared);
    world.check_invariants().unwrap();
}

#[test]
fn query_without_required_component_walks_live_entities_in_slot_order() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..6).map(|_| world.spawn()).collect();
    world.despawn(spawned[1]).unwrap();
    world.despawn(spawned[4]).unwrap();
    let respawned = world.spawn(); // takes slot 1
    world.insert(spawned[5], A(5)).unwrap();
    world.insert(respawned, A(1)).unwrap();

    let got: Vec<(Entity, Option<u32>)> = world
        .query::<(Entity, Option<&A>)>()
        .map(|(e, a)| (e, a.map(|a| a.0)))
        .collect();
    assert_eq!(
        got,
        [
            (spawned[0], None),
            (respawned, Some(1)),
            (spawned[2], None),
            (spawned[3], None),
            (spawned[5], Some(5)),
        ]
    );
    let everyone: Vec<Entity> = world.query::<Entity>().collect();
    assert_eq!(everyone, world.entities().iter().collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------------
// Option, With, Without
// ---------------------------------------------------------------------------------------------

#[test]
fn option_ref_yields_some_where_present_and_none_where_absent_without_excluding() {
    let mut world = World::new();
    let e0 = world.spawn_with((A(0), B(0)));
    let e1 = world.spawn_with((A(1),));
    let e2 = world.spawn_with((B(2),));
    let e3 = world.spawn_with((A(3), B(30)));

    let got: Vec<(Entity, u32, Option<u32>)> = world
        .query::<(Entity, &A, Option<&B>)>()
        .map(|(e, a, b)| (e, a.0, b.map(|b| b.0)))
        .collect();
    assert_eq!(got, [(e0, 0, Some(0)), (e1, 1, None), (e3, 3, Some(30))]);

    // An Option alone never drives: every live entity is visited.
    let all: Vec<(Entity, Option<&A>)> = world.query::<(Entity, Option<&A>)>().collect();
    assert_eq!(
        all,
        [
            (e0, Some(&A(0))),
            (e1, Some(&A(1))),
            (e2, None),
            (e3, Some(&A(3)))
        ]
    );
}

#[test]
fn option_mut_writes_where_present_and_yields_none_where_absent() {
    let mut world = World::new();
    let e0 = world.spawn_with((A(0), B(0)));
    let e1 = world.spawn_with((A(1),));
    let e2 = world.spawn_with((A(2), B(20)));
    let e3 = world.spawn_with((B(30),));

    let mut visited = Vec::new();
    for (e, a, b) in world.query_mut::<(Entity, &A, Option<&mut B>)>() {
        visited.push((e, b.is_some()));
        if let Some(b) = b {
            b.0 += a.0 + 1;
        }
    }
    assert_eq!(visited, [(e0, true), (e1, false), (e2, true)]);
    assert_eq!(world.get::<B>(e0), Some(&B(1)));
    assert_eq!(world.get::<B>(e2), Some(&B(23)));
    assert_eq!(world.get::<B>(e3), Some(&B(30)), "not visited: lacks A");
    assert!(!world.has::<B>(e1), "Option<&mut B> never inserts");

    // Option<&mut T> over a never-inserted type yields None for every match.
    let nones: Vec<bool> = world
        .query_mut::<(&A, Option<&mut Never>)>()
        .map(|(_, n)| n.is_none())
        .collect();
    assert_eq!(nones, [true, true, true]);
    world.check_invariants().unwrap();
}

#[test]
fn with_and_without_filters_on_shared_queries() {
    let mut world = World::new();
    let plain = world.spawn_with((A(0),));
    let tagged = world.spawn_with((A(1), Tag));
    let tagged_b = world.spawn_with((A(2), Tag, B(2)));
    let b_only = world.spawn_with((A(3), B(3)));
    let _tag_no_a = world.spawn_with((Tag,));

    let with: Vec<Entity> = world
        .query_filtered::<Entity, (With<A>, With<Tag>)>()
        .collect();
    assert_eq!(with, [tagged, tagged_b]);
    let values: Vec<u32> = world
        .query_filtered::<&A, With<Tag>>()
        .map(|a| a.0)
        .collect();
    assert_eq!(values, [1, 2]);
    let without: Vec<Entity> = world
        .query_filtered::<(Entity, &A), Without<Tag>>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(without, [plain, b_only]);
    let mixed: Vec<Entity> = world
        .query_filtered::<(Entity, &A), (With<Tag>, Without<B>)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(mixed, [tagged]);
    // Filters can also sit inside the data tuple (their items are `()`).
    let inline: Vec<Entity> = world
        .query::<(Entity, &A, With<B>, Without<Tag>)>()
        .map(|(e, ..)| e)
        .collect();
    assert_eq!(inline, [b_only]);
}

#[test]
fn with_and_without_filters_on_mutable_queries() {
    let mut world = World::new();
    let plain = world.spawn_with((A(0),));
    let tagged = world.spawn_with((A(10), Tag));
    let tagged_b = world.spawn_with((A(20), Tag, B(0)));

    world
        .query_filtered_mut::<&mut A, With<Tag>>()
        .for_each(|a| a.0 += 1);
    assert_eq!(world.get::<A>(plain), Some(&A(0)));
    assert_eq!(world.get::<A>(tagged), Some(&A(11)));
    assert_eq!(world.get::<A>(tagged_b), Some(&A(21)));

    let touched: Vec<Entity> = world
        .query_filtered_mut::<(Entity, &mut A), Without<B>>()
        .map(|(e, a)| {
            a.0 *= 2;
            e
        })
        .collect();
    assert_eq!(touched, [plain, tagged]);
    assert_eq!(world.get::<A>(plain), Some(&A(0)));
    assert_eq!(world.get::<A>(tagged), Some(&A(22)));
    assert_eq!(world.get::<A>(tagged_b), Some(&A(21)));
}

// ---------------------------------------------------------------------------------------------
// Wide tuples and Entity
// ---------------------------------------------------------------------------------------------

fn spawn_wide(world: &mut World, i: u32) -> Entity {
    world.spawn_with((
        W0(i),
        W1(i + 1),
        W2(i + 2),
        W3(i + 3),
        W4(i + 4),
        W5(i + 5),
        W6(i + 6),
        W7(i + 7),
        W8(i + 8),
        W9(i + 9),
        W10(i + 10),
        W11(i + 11),
    ))
}

#[test]
fn eight_element_tuple_query() {
    let mut world = World::new();
    let e0 = spawn_wide(&mut world, 0);
    let _partial = world.spawn_with((W0(7), W1(7), W2(7), W3(7), W4(7), W5(7), W6(7)));
    let e1 = spawn_wide(&mut world, 100);

    let got: Vec<(Entity, [u32; 7])> = world
        .query::<(Entity, &W0, &W1, &W2, &W3, &W4, &W5, &W7)>()
        .map(|(e, a, b, c, d, f, g, h)| (e, [a.0, b.0, c.0, d.0, f.0, g.0, h.0]))
        .collect();
    assert_eq!(
        got,
        [
            (e0, [0, 1, 2, 3, 4, 5, 7]),
            (e1, [100, 101, 102, 103, 104, 105, 107])
        ]
    );

    let eight = world.query::<(&W0, &W1, &W2, &W3, &W4, &W5, &W6, &W7)>();
    assert_eq!(eight.count(), 2);
}

#[test]
fn twelve_element_tuple_query_read_and_write() {
    let mut world = World::new();
    let e0 = spawn_wide(&mut world, 0);
    let _missing_w11 = world.spawn_with((W0(9), W1(9), W2(9), W3(9), W4(9), W5(9)));
    let e1 = spawn_wide(&mut world, 50);

    let sums: Vec<u32> = world
        .query::<(&W0, &W1, &W2, &W3, &W4, &W5, &W6, &W7, &W8, &W9, &W10, &W11)>()
        .map(|(a, b, c, d, e, f, g, h, i, j, k, l)| {
            [a.0, b.0, c.0, d.0, e.0, f.0, g.0, h.0, i.0, j.0, k.0, l.0]
                .iter()
                .sum::<u32>()
        })
        .collect();
    // 12 * base + (0 + 1 + ... + 11)
    assert_eq!(sums, [66, 12 * 50 + 66]);

    for (w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11) in world.query_mut::<(
        &mut W0,
        &mut W1,
        &mut W2,
        &mut W3,
        &mut W4,
        &mut W5,
        &mut W6,
        &mut W7,
        &mut W8,
        &mut W9,
        &mut W10,
        &W11,
    )>() {
        for w in [
            &mut w0.0, &mut w1.0, &mut w2.0, &mut w3.0, &mut w4.0, &mut w5.0, &mut w6.0, &mut w7.0,
            &mut w8.0, &mut w9.0, &mut w10.0,
        ] {
            *w = w11.0;
        }
    }
    assert_eq!(world.get::<W0>(e0), Some(&W0(11)));
    assert_eq!(world.get::<W10>(e0), Some(&W10(11)));
    assert_eq!(world.get::<W5>(e1), Some(&W5(61)));
    assert_eq!(world.get::<W11>(e1), Some(&W11(61)));
}

#[test]
fn entity_as_an_element_anywhere_in_the_tuple() {
    let mut world = World::new();
    let e0 = world.spawn_with((A(0),));
    let e1 = world.spawn_with((A(1),));

    let alone: Vec<Entity> = world.query::<Entity>().collect();
    assert_eq!(alone, [e0, e1]);
    let first: Vec<Entity> = world.query::<(Entity, &A)>().map(|(e, _)| e).collect();
    let middle: Vec<Entity> = world
        .query::<(&A, Entity, &A)>()
        .map(|(_, e, _)| e)
        .collect();
    let last: Vec<Entity> = world.query::<(&A, Entity)>().map(|(_, e)| e).collect();
    let twice: Vec<(Entity, Entity)> = world
        .query_mut::<(Entity, &mut A, Entity)>()
        .map(|(x, _, y)| (x, y))
        .collect();
    assert_eq!(first, [e0, e1]);
    assert_eq!(middle, [e0, e1]);
    assert_eq!(last, [e0, e1]);
    assert_eq!(twice, [(e0, e0), (e1, e1)]);
}

// ---------------------------------------------------------------------------------------------
// query_one / query_one_mut
// ---------------------------------------------------------------------------------------------

#[test]
fn query_one_returns_the_item_or_a_typed_reason() {
    let mut world = World::new();
    let full = world.spawn_with((A(1), B(2)));
    let a_only = world.spawn_with((A(3),));
    let stale = world.spawn_with((A(4), B(4)));
    world.despawn(stale).unwrap();
    let reused = world.spawn_with((A(5),));
    assert_eq!(reused.slot(), stale.slot());

    assert_eq!(world.query_one::<(&A, &B)>(full), Ok((&A(1), &B(2))));
    assert_eq!(
        world.query_one::<(Entity, &A, Option<&B>)>(a_only),
        Ok((a_only, &A(3), None))
    );
    assert_eq!(
        world.query_one::<&A>(stale),
        Err(QueryGetError::Dead(EntityNotAlive(stale)))
    );
    assert_eq!(
        world.query_one::<(&A, &B)>(a_only),
        Err(QueryGetError::Mismatch {
            entity: a_only,
            component: "B",
            reason: MismatchReason::Lacks
        })
    );
    assert!(matches!(
        world.query_one::<(&A, &B)>(reused),
        Err(QueryGetError::Mismatch {
            component: "B",
            reason: MismatchReason::Lacks,
            ..
        })
    ));
    assert_eq!(world.query_one::<(&A, Without<B>)>(a_only), Ok((&A(3), ())));
    assert_eq!(
        world.query_one::<(&A, Without<B>)>(full),
        Err(QueryGetError::Mismatch {
            entity: full,
            component: "B",
            reason: MismatchReason::HasExcluded
        })
    );
    assert!(matches!(
        world.query_one::<(&A, With<Never>)>(full),
        Err(QueryGetError::Mismatch {
            component: "Never",
            reason: MismatchReason::Lacks,
            ..
        })
    ));

    let err = world.query_one::<(&A, Without<B>)>(full).err().unwrap();
    let message = err.to_string();
    assert!(message.contains("has excluded `B`"), "{message}");
    assert!(message.contains(&full.to_string()), "{message}");
}

#[test]
fn query_one_mut_writes_and_reports_like_query_one() {
    let mut world = World::new();
    let full = world.spawn_with((A(1), B(2)));
    let a_only = world.spawn_with((A(3),));
    let stale = world.spawn();
    world.despawn(stale).unwrap();

    {
        let (a, b) = world.query_one_mut::<(&mut A, &B)>(full).unwrap();
        a.0 += b.0;
    }
    assert_eq!(world.get::<A>(full), Some(&A(3)));
    let b = world.query_one_mut::<Option<&mut B>>(a_only).unwrap();
    assert!(b.is_none());

    assert!(matches!(
        world.query_one_mut::<&mut A>(stale),
        Err(QueryGetError::Dead(EntityNotAlive(e))) if e == stale
    ));
    assert!(matches!(
        world.query_one_mut::<(&mut A, &B)>(a_only),
        Err(QueryGetError::Mismatch {
            component: "B",
            reason: MismatchReason::Lacks,
            ..
        })
    ));
    assert!(matches!(
        world.query_one_mut::<(&mut A, Without<B>)>(full),
        Err(QueryGetError::Mismatch {
            component: "B",
            reason: MismatchReason::HasExcluded,
            ..
        })
    ));
    assert_eq!(
        world.get::<A>(a_only),
        Some(&A(3)),
        "a failed lookup wrote nothing"
    );
}

// ---------------------------------------------------------------------------------------------
// Aliasing (generic components are checked at run time)
// ---------------------------------------------------------------------------------------------

#[test]
fn try_query_mut_refuses_a_generic_component_named_twice_with_a_write() {
    let mut world = World::new();
    world.spawn_with((G(1u8), G(2u16)));

    let err = world.try_query_mut::<(&mut G<u8>, &G<u8>)>().err();
    assert_eq!(err, Some(QueryAliasError { component: "G" }));
    let err = world.try_query_mut::<(&G<u8>, Entity, &mut G<u8>)>().err();
    assert_eq!(err, Some(QueryAliasError { component: "G" }));
    let err = world
        .try_query_mut::<(&mut G<u8>, Option<&mut G<u8>>)>()
        .err();
    assert_eq!(err, Some(QueryAliasError { component: "G" }));
    let message = QueryAliasError { component: "G" }.to_string();
    assert!(message.contains("`G`"), "{message}");

    // Two reads of the same type do not alias.
    assert_eq!(
        world
            .try_query_mut::<(&G<u8>, &G<u8>)>()
            .map(Iterator::count)
            .ok(),
        Some(1)
    );
}

#[test]
#[should_panic(expected = "query accesses component `G` twice with a mutable access")]
fn query_mut_panics_on_a_generic_component_named_twice_with_a_write() {
    let mut world = World::new();
    world.spawn_with((G(1u8),));
    let _ = world.query_mut::<(&mut G<u8>, &G<u8>)>();
}

#[test]
#[should_panic(expected = "query accesses component `G` twice with a mutable access")]
fn query_filtered_mut_panics_on_a_generic_component_named_twice_with_a_write() {
    let mut world = World::new();
    world.spawn_with((G(1u8), Tag));
    let _ = world.query_filtered_mut::<(&mut G<u8>, &mut G<u8>), With<Tag>>();
}

#[test]
#[should_panic(expected = "query accesses component `G` twice with a mutable access")]
fn query_one_mut_panics_on_a_generic_component_named_twice_with_a_write() {
    let mut world = World::new();
    let e = world.spawn_with((G(1u8),));
    let _ = world.query_one_mut::<(&G<u8>, &mut G<u8>)>(e);
}

#[test]
fn different_instantiations_of_a_generic_component_do_not_alias() {
    let mut world = World::new();
    let e0 = world.spawn_with((G(1u8), G(10u16)));
    let e1 = world.spawn_with((G(2u8),));
    let e2 = world.spawn_with((G(3u8), G(30u16)));

    let visited: Vec<Entity> = world
        .try_query_mut::<(Entity, &mut G<u8>, &G<u16>)>()
        .expect("G<u8> and G<u16> are different components")
        .map(|(e, small, big)| {
            small.0 += big.0 as u8;
            e
        })
        .collect();
    assert_eq!(visited, [e0, e2]);
    for (e, big) in world.query_mut::<(Entity, &mut G<u16>)>() {
        big.0 += 1;
        assert_ne!(e, e1);
    }
    assert_eq!(world.get::<G<u8>>(e0), Some(&G(11)));
    assert_eq!(world.get::<G<u8>>(e1), Some(&G(2)));
    assert_eq!(world.get::<G<u8>>(e2), Some(&G(33)));
    assert_eq!(world.get::<G<u16>>(e2), Some(&G(31)));
}

// ---------------------------------------------------------------------------------------------
// Mutation and iterator use
// ---------------------------------------------------------------------------------------------

#[test]
fn mutation_through_query_mut_is_visible_afterwards() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (0..4).map(|i| world.spawn_with((A(i), B(1)))).collect();
    let lonely = world.spawn_with((A(100),));

    for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
        a.0 += 10;
        b.0 = a.0 * 2;
    }
    for (i, &e) in spawned.iter().enumerate() {
        let i = i as u32;
        assert_eq!(world.get::<A>(e), Some(&A(i + 10)));
        assert_eq!(world.query_one::<&B>(e), Ok(&B((i + 10) * 2)));
    }
    assert_eq!(world.get::<A>(lonely), Some(&A(100)), "lacks B: untouched");
    let read_back: Vec<u32> = world.query::<&B>().map(|b| b.0).collect();
    assert_eq!(read_back, [20, 22, 24, 26]);
}

#[test]
fn for_each_on_query_mut() {
    let mut world = World::new();
    let spawned: Vec<Entity> = (1..=5).map(|i| world.spawn_with((A(i),))).collect();
    world.query_mut::<&mut A>().for_each(|a| a.0 *= 3);
    let mut count = 0;
    world.query_mut::<(Entity, &A)>().for_each(|(e, a)| {
        let i = spawned.iter().position(|&s| s == e).unwrap() as u32 + 1;
        assert_eq!(a.0, i * 3);
        count += 1;
    });
    assert_eq!(count, 5);
}

#[test]
fn read_only_query_works_with_iterator_adaptors() {
    let mut world = World::new();
    for i in 0..10 {
        if i % 4 == 0 {
            world.spawn_with((A(i), Tag));
        } else {
            world.spawn_with((A(i),));
        }
    }
    let sum: u32 = world.query::<&A>().map(|a| a.0).sum();
    assert_eq!(sum, 45);
    let evens: Vec<u32> = world
        .query::<&A>()
        .filter(|a| a.0 % 2 == 0)
        .map(|a| a.0)
        .collect();
    assert_eq!(evens, [0, 2, 4, 6, 8]);
    let tagged_max = world.query_filtered::<&A, With<Tag>>().map(|a| a.0).max();
    assert_eq!(tagged_max, Some(8));
    let (small, large): (Vec<&A>, Vec<&A>) = world.query::<&A>().partition(|a| a.0 < 5);
    assert_eq!((small.len(), large.len()), (5, 5));
    let third = world.query::<(Entity, &A)>().nth(2).map(|(_, a)| a.0);
    assert_eq!(third, Some(2));
    let skipped: Vec<u32> = world.query::<&A>().skip(7).map(|a| a.0).collect();
    assert_eq!(skipped, [7, 8, 9]);
    assert!(world.query::<&A>().any(|a| a.0 == 9));
    assert!(world.query::<&A>().all(|a| a.0 < 10));
}

/// `for_each`/`fold` take a block fast path where every store holds the driver's entities at the
/// same dense indices; elsewhere they fall back to per-entity probing. Both must visit the same
/// entities, in the same order, with the same values as `next()`.
#[test]
fn fold_fast_path_agrees_with_next_across_aligned_and_misaligned_blocks() {
    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    struct FA(u32);
    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    struct FB(u32);
    let mut world = World::new();
    // 1000 entities with both; then gaps and churn so some blocks align and some do not.
    let es = world.spawn_batch((0..1000u32).map(|i| (FA(i), FB(i * 3))));
    for (k, &e) in es.iter().enumerate() {
        if k % 97 == 5 {
            world.remove::<FB>(e).unwrap();
        }
        if (400..420).contains(&k) {
            world.despawn(e).unwrap();
        }
    }
    for k in 0..30u32 {
        world.spawn_with((FA(5000 + k), FB(k)));
    }
    let by_next: Vec<(Entity, u32, u32)> = {
        let mut v = Vec::new();
        // A `for` loop drives `next()` one item at a time (not `fold`).
        for (e, a, b) in world.query_mut::<(Entity, &mut FA, &FB)>() {
            a.0 += 1;
            v.push((e, a.0, b.0));
        }
        v
    };
    let mut by_fold: Vec<(Entity, u32, u32)> = Vec::new();
    world
        .query_mut::<(Entity, &mut FA, &FB)>()
        .for_each(|(e, a, b)| {
            a.0 -= 1;
            by_fold.push((e, a.0 + 1, b.0));
        });
    assert_eq!(by_next, by_fold);
    assert!(
        by_fold.windows(2).all(|w| w[0].0 < w[1].0),
        "ascending slots"
    );
    // Values belong to their entity: by construction FB = 3 × the original FA (batch) or
    // FA - 5000 (later spawns); `a` here is the original FA + 1.
    for &(e, a, b) in &by_fold {
        let original = a - 1;
        let expected_b = if original < 5000 {
            original * 3
        } else {
            original - 5000
        };
        assert_eq!(b, expected_b, "{e}: FA and FB come from different entities");
        assert_eq!(world.get::<FB>(e), Some(&FB(b)));
    }
    let expected = world.query::<(&FA, &FB)>().count();
    assert_eq!(by_fold.len(), expected);
    let sum_next: u64 = world.query::<&FA>().map(|a| a.0 as u64).sum();
    let mut sum_loop = 0u64;
    for a in world.query::<&FA>() {
        sum_loop += a.0 as u64;
    }
    assert_eq!(sum_next, sum_loop);
}

/// A store both required and excluded by one query (`&A` with `Without<A>`), or required and
/// made optional (`Option<&A>` beside `&A`), in either order and beside another required store
/// (`&B`, so the run join plans them), keeps each role: the first query matches nothing,
/// the second everything with an `A`, however the stores are laid out (settled through
/// `&mut World`, unsettled through `&World`).
#[test]
fn a_store_required_and_excluded_matches_nothing_and_required_and_optional_matches_all() {
    let mut world = World::new();
    let mut with_a = Vec::new();
    for i in 0..40u32 {
        let e = world.spawn_with((B(i),));
        if i % 3 != 0 {
            world.insert(e, A(i)).unwrap();
            with_a.push((e, i));
        }
    }
    // Unsettled: A appended after B, in the same order; then one value moved out of order.
    let (moved, _) = with_a.remove(1);
    world.remove::<A>(moved).unwrap();
    world.insert(moved, A(1000)).unwrap();
    with_a.push((moved, 1000));
    with_a.sort_by_key(|(e, _)| e.slot());

    for settled in [false, true] {
        if settled {
            world.settle();
        }
        assert_eq!(
            world.query_filtered::<&A, Without<A>>().count(),
            0,
            "settled {settled}"
        );
        assert_eq!(
            world.query::<(Without<A>, &A)>().count(),
            0,
            "settled {settled}"
        );
        assert_eq!(
            world.query::<(Without<A>, &A, &B)>().count(),
            0,
            "settled {settled}"
        );
        assert_eq!(
            world
                .query_filtered::<(Entity, &A, &B), (With<B>, Without<A>)>()
                .count(),
            0,
            "settled {settled}"
        );
        let both: Vec<(Entity, u32)> = world
            .query::<(Entity, &A, Option<&A>)>()
            .map(|(e, a, again)| {
                assert_eq!(again.map(|x| x.0), Some(a.0));
                (e, a.0)
            })
            .collect();
        assert_eq!(both, with_a, "settled {settled}");
        // The optional element first: the required one after it must still require.
        let both: Vec<(Entity, u32)> = world
            .query::<(Entity, Option<&A>, &A, &B)>()
            .map(|(e, again, a, _)| {
                assert_eq!(again.map(|x| x.0), Some(a.0));
                (e, a.0)
            })
            .collect();
        assert_eq!(both, with_a, "settled {settled}");
    }
    assert_eq!(world.query_filtered_mut::<&mut A, Without<A>>().count(), 0);
    let mut walked = Vec::new();
    world
        .query_filtered_mut::<(Entity, &A, &B), Without<A>>()
        .for_each(|(e, _, _)| walked.push(e));
    assert!(walked.is_empty());
}
