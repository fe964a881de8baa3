//! Change detection against an oracle.
//!
//! * `change_ticks_follow_the_oracle` (proptest) — random spawns, inserts, replacements,
//!   removals, despawns, `get_mut`s, whole-store `query_mut`s (which stamp the store's floor,
//!   not each value), `query_mut`s stopped after `k` values and checkpoints, with the clock
//!   started near `u32::MAX` so most cases wrap. After every step each entity's
//!   `(added, changed)` ticks equal the oracle's (through `Store::ticks` and the dense tick
//!   columns), and `query_since::<_, Changed<_>>` / `Added<_>` from every checkpoint taken so
//!   far return exactly the oracle's entities.
//! * System windows: a system sees the changes made since *it* last ran — through `World::run`,
//!   through a schedule, and when strided by `every_ticks` (it catches up on skipped ticks).

use proptest::prelude::*;
use rota::{
    Added, Changed, Component, ComponentTicks, Entity, Query, ResMut, Resource, Schedule, Tick,
    World, system,
};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Val(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Other(u32);

#[derive(Clone, Debug)]
enum Op {
    Spawn {
        with_val: bool,
    },
    Insert(usize),
    Remove(usize),
    Despawn(usize),
    GetMut(usize),
    QueryMutAll,
    /// A `for` loop over `&mut Val` that stops after `k` values.
    QueryMutFirst(usize),
    Checkpoint,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<bool>().prop_map(|with_val| Op::Spawn { with_val }),
        3 => (0..64usize).prop_map(Op::Insert),
        1 => (0..64usize).prop_map(Op::Remove),
        1 => (0..64usize).prop_map(Op::Despawn),
        3 => (0..64usize).prop_map(Op::GetMut),
        1 => Just(Op::QueryMutAll),
        1 => (0..8usize).prop_map(Op::QueryMutFirst),
        2 => Just(Op::Checkpoint),
    ]
}

/// The oracle: the clock, and per live entity its `Val` ticks (if it has a `Val`).
struct Oracle {
    now: u32,
    live: Vec<(Entity, Option<(u32, u32)>)>,
    checkpoints: Vec<u32>,
}

impl Oracle {
    fn pick(&self, i: usize) -> Option<usize> {
        (!self.live.is_empty()).then(|| i % self.live.len())
    }
}

fn newer(t: u32, since: u32, now: u32) -> bool {
    now.wrapping_sub(t) < now.wrapping_sub(since)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(256)))]

    #[test]
    fn change_ticks_follow_the_oracle(
        start_back in 0u32..40,
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let start = u32::MAX - start_back;
        let mut world = World::new();
        world.set_change_tick(Tick::new(start));
        let mut o = Oracle { now: start, live: Vec::new(), checkpoints: Vec::new() };
        for op in ops {
            match op {
                Op::Spawn { with_val } => {
                    let e = if with_val {
                        world.spawn_with((Val(1), Other(0)))
                    } else {
                        world.spawn_with((Other(0),))
                    };
                    o.live.push((e, with_val.then_some((o.now, o.now))));
                }
                Op::Insert(i) => if let Some(i) = o.pick(i) {
                    let (e, ticks) = &mut o.live[i];
                    world.insert(*e, Val(2)).unwrap();
                    *ticks = Some(match *ticks {
                        Some((added, _)) => (added, o.now),
                        None => (o.now, o.now),
                    });
                },
                Op::Remove(i) => if let Some(i) = o.pick(i) {
                    let (e, ticks) = &mut o.live[i];
                    world.remove::<Val>(*e).unwrap();
                    *ticks = None;
                },
                Op::Despawn(i) => if let Some(i) = o.pick(i) {
                    let (e, _) = o.live.remove(i);
                    world.despawn(e).unwrap();
                },
                Op::GetMut(i) => if let Some(i) = o.pick(i) {
                    let (e, ticks) = &mut o.live[i];
                    let got = world.get_mut::<Val>(*e).map(|v| v.0 += 1);
                    prop_assert_eq!(got.is_some(), ticks.is_some());
                    if let Some((_, changed)) = ticks {
                        *changed = o.now;
                    }
                },
                Op::QueryMutAll => {
                    world.query_mut::<&mut Val>().for_each(|v| v.0 += 1);
                    for (_, ticks) in &mut o.live {
                        if let Some((_, changed)) = ticks {
                            *changed = o.now;
                        }
                    }
                }
                Op::QueryMutFirst(k) => {
                    let mut stamped: Vec<Entity> = Vec::new();
                    for (e, v) in world.query_mut::<(Entity, &mut Val)>().take(k) {
                        v.0 += 1;
                        stamped.push(e);
                    }
                    for (e, ticks) in &mut o.live {
                        if let Some((_, changed)) = ticks && stamped.contains(e) {
                            *changed = o.now;
                        }
                    }
                }
                Op::Checkpoint => {
                    let t = world.change_checkpoint();
                    prop_assert_eq!(t.get(), o.now);
                    o.checkpoints.push(o.now);
                    o.now = o.now.wrapping_add(1);
                }
            }
            // Every entity's ticks.
            prop_assert_eq!(world.change_tick().get(), o.now);
            for (e, ticks) in &o.live {
                let got = world.store::<Val>().and_then(|s| s.ticks(*e));
                let want = ticks.map(|(a, c)| ComponentTicks { added: Tick::new(a), changed: Tick::new(c) });
                prop_assert_eq!(got, want, "ticks of {}", e);
            }
            // The dense columns say the same, position by position.
            if let Some(store) = world.store::<Val>() {
                let (added, changed) = (store.dense_added_ticks(), store.dense_changed_ticks());
                for (e, ticks) in &o.live {
                    if let (Some(d), Some((a, c))) = (store.dense_index(*e), ticks) {
                        prop_assert_eq!((added[d].get(), changed[d].get()), (*a, *c), "dense ticks of {}", e);
                    }
                }
            }
            // Every window.
            for &since in &o.checkpoints {
                let changed: Vec<Entity> =
                    world.query_since::<Entity, Changed<Val>>(Tick::new(since)).collect();
                let want: Vec<Entity> = sorted(o.live.iter().filter_map(|(e, t)| {
                    t.filter(|&(_, c)| newer(c, since, o.now)).map(|_| *e)
                }));
                prop_assert_eq!(&changed, &want, "Changed since {}", since);
                let added: Vec<Entity> =
                    world.query_since::<Entity, Added<Val>>(Tick::new(since)).collect();
                let want: Vec<Entity> = sorted(o.live.iter().filter_map(|(e, t)| {
                    t.filter(|&(a, _)| newer(a, since, o.now)).map(|_| *e)
                }));
                prop_assert_eq!(&added, &want, "Added since {}", since);
                // The probe path (through a join with a second required store) agrees.
                let joined: Vec<Entity> = world
                    .query_since::<(Entity, &Other), Changed<Val>>(Tick::new(since))
                    .map(|(e, _)| e)
                    .collect();
                prop_assert_eq!(&joined, &changed);
            }
            prop_assert!(world.check_invariants().is_ok());
        }
    }
}

fn sorted(it: impl Iterator<Item = Entity>) -> Vec<Entity> {
    let mut v: Vec<Entity> = it.collect();
    v.sort_by_key(|e| e.slot());
    v
}

#[derive(Resource, Default, Clone)]
struct Seen(Vec<Vec<u32>>);

#[system(reads(Val), writes(Seen))]
fn watch(q: Query<&Val, Changed<Val>>, mut seen: ResMut<Seen>) {
    let now: Vec<u32> = q.iter().map(|v| v.0).collect();
    seen.0.push(now);
}

#[system(writes(Val))]
fn bump_first(mut q: Query<&mut Val>) {
    if let Some(v) = q.iter_mut().next() {
        v.0 += 100;
    }
}

fn seen(world: &World) -> Vec<Vec<u32>> {
    world.resource::<Seen>().unwrap().0.clone()
}

#[test]
fn a_system_sees_the_changes_since_it_last_ran_through_world_run() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let es = world.spawn_batch((0..4).map(|i| (Val(i),)));
    assert!(world.run(watch).is_clean()); // first run: everything is new
    assert!(world.run(watch).is_clean()); // nothing changed since
    world.get_mut::<Val>(es[2]).unwrap().0 = 20;
    world.insert(es[3], Val(30)).unwrap();
    assert!(world.run(watch).is_clean());
    assert!(world.run(bump_first).is_clean()); // a system's writes are seen too
    assert!(world.run(watch).is_clean());
    assert_eq!(
        seen(&world),
        vec![vec![0, 1, 2, 3], vec![], vec![20, 30], vec![100]]
    );
}

#[test]
fn a_strided_system_catches_up_on_the_ticks_it_skipped() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let es = world.spawn_batch((0..3).map(|i| (Val(i),)));
    let mut schedule = Schedule::builder()
        .add(watch)
        .every_ticks(watch, 3)
        .build()
        .unwrap();
    for tick in 0..7u32 {
        schedule.run(&mut world); // watch runs on ticks 0, 3, 6
        // Between runs, change one entity per tick.
        let e = es[(tick % 3) as usize];
        world.get_mut::<Val>(e).unwrap().0 = 10 + tick;
    }
    // Run on tick 0 sees everything; on tick 3 the changes of ticks 0..=2; on tick 6 those of
    // ticks 3..=5 (each entity once, with its latest value).
    assert_eq!(
        seen(&world),
        vec![vec![0, 1, 2], vec![10, 11, 12], vec![13, 14, 15]]
    );
}

#[test]
fn a_store_no_write_touched_is_skipped_whole() {
    let mut world = World::new();
    world.spawn_batch((0..1000).map(|i| (Val(i), Other(i))));
    let since = world.change_checkpoint();
    world.query_mut::<&mut Other>().for_each(|o| o.0 += 1);
    // The high-water mark of `Val` predates the window: nothing matches, and the mark says so.
    let val = world.store::<Val>().unwrap();
    assert!(!val.last_changed().is_newer_than(since, world.change_tick()));
    // The store the write touched has its mark at that write.
    let other = world.store::<Other>().unwrap();
    assert!(
        other
            .last_changed()
            .is_newer_than(since, world.change_tick())
    );
    assert_eq!(world.query_since::<Entity, Changed<Val>>(since).count(), 0);
    assert_eq!(
        world.query_since::<Entity, Changed<Other>>(since).count(),
        1000
    );
}

#[test]
fn detection_keeps_working_across_the_wrap() {
    let mut world = World::new();
    world.set_change_tick(Tick::new(u32::MAX - 2));
    let es = world.spawn_batch((0..5).map(|i| (Val(i),)));
    let mut windows = Vec::new();
    for round in 0..6usize {
        let since = world.change_checkpoint();
        world.get_mut::<Val>(es[round % 5]).unwrap().0 += 1;
        windows.push((since, es[round % 5]));
    }
    assert!(world.change_tick().get() < 10, "the clock wrapped");
    for (since, e) in windows.iter().rev().take(1) {
        let changed: Vec<Entity> = world.query_since::<Entity, Changed<Val>>(*since).collect();
        assert_eq!(changed, vec![*e]);
    }
    // From the first checkpoint (before the wrap), every entity changed since.
    let changed = world
        .query_since::<Entity, Changed<Val>>(windows[0].0)
        .count();
    assert_eq!(changed, 5);
}
