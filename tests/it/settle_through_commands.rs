//! Schedule sync points (`UnsettledStore::settle` -> `Store::remove_and_settle`)
//! against a BTreeMap oracle, with systems spawning/despawning/inserting/removing via commands,
//! a ZST tag, snapshots held across sync points, and restores.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rota::{Commands, Component, Entity, Res, ResMut, Resource, Schedule, Tick, World, system};

#[derive(Component, Clone, Debug, PartialEq, Eq)]
struct Val(String);
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Tag;
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Big([u64; 3]);

#[derive(Clone, Debug)]
enum Cmd {
    Spawn(Option<u32>, bool),
    Despawn(usize),
    Insert(usize, u32),
    InsertTag(usize),
    InsertBig(usize, u64),
    Remove(usize),
    RemoveTag(usize),
    RemoveBig(usize),
}

#[derive(Resource, Clone, Debug, Default)]
struct Script(Vec<(Cmd, Option<Entity>)>);
#[derive(Resource, Clone, Debug, Default)]
struct Spawned(Vec<Entity>);

#[system(reads(Script), writes(Spawned, Val, Tag, Big))]
fn actor(script: Res<Script>, mut spawned: ResMut<Spawned>, mut commands: Commands) {
    for (cmd, target) in &script.0 {
        match (cmd, *target) {
            (Cmd::Spawn(v, tag), _) => {
                let e = match (v, tag) {
                    (Some(v), true) => commands.spawn((Val(format!("v{v}")), Tag)),
                    (Some(v), false) => commands.spawn((Val(format!("v{v}")),)),
                    (None, true) => commands.spawn((Tag,)),
                    (None, false) => commands.spawn(()),
                };
                spawned.0.push(e);
            }
            (Cmd::Despawn(_), Some(e)) => commands.despawn(e),
            (Cmd::Insert(_, v), Some(e)) => commands.insert(e, Val(format!("v{v}"))),
            (Cmd::InsertTag(_), Some(e)) => commands.insert(e, Tag),
            (Cmd::InsertBig(_, v), Some(e)) => commands.insert(e, Big([*v; 3])),
            (Cmd::Remove(_), Some(e)) => commands.remove::<Val>(e),
            (Cmd::RemoveTag(_), Some(e)) => commands.remove::<Tag>(e),
            (Cmd::RemoveBig(_), Some(e)) => commands.remove::<Big>(e),
            _ => {}
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    Tick(Vec<Cmd>),
    Snapshot,
    Restore,
    DropSnapshot,
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        4 => (proptest::option::weighted(0.8, 0u32..1000), any::<bool>()).prop_map(|(v, t)| Cmd::Spawn(v, t)),
        4 => any::<usize>().prop_map(Cmd::Despawn),
        2 => (any::<usize>(), 0u32..1000).prop_map(|(h, v)| Cmd::Insert(h, v)),
        1 => any::<usize>().prop_map(Cmd::InsertTag),
        1 => (any::<usize>(), any::<u64>()).prop_map(|(h, v)| Cmd::InsertBig(h, v)),
        2 => any::<usize>().prop_map(Cmd::Remove),
        1 => any::<usize>().prop_map(Cmd::RemoveTag),
        1 => any::<usize>().prop_map(Cmd::RemoveBig),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => proptest::collection::vec(cmd(), 0..40).prop_map(Step::Tick),
        1 => Just(Step::Snapshot),
        1 => Just(Step::Restore),
        1 => Just(Step::DropSnapshot),
    ]
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Row {
    val: Option<String>,
    tag: bool,
    big: Option<u64>,
}

type Oracle = BTreeMap<u32, (Entity, Row)>;

fn check(world: &World, oracle: &Oracle, what: &str) -> Result<(), TestCaseError> {
    world
        .check_invariants()
        .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
    let vals: Vec<(Entity, String)> = world
        .query::<(Entity, &Val)>()
        .map(|(e, v)| (e, v.0.clone()))
        .collect();
    let want: Vec<(Entity, String)> = oracle
        .values()
        .filter_map(|(e, r)| r.val.clone().map(|v| (*e, v)))
        .collect();
    prop_assert_eq!(&vals, &want, "{} Val", what);
    let tags: Vec<Entity> = world.query::<(Entity, &Tag)>().map(|(e, _)| e).collect();
    let want_tags: Vec<Entity> = oracle
        .values()
        .filter(|(_, r)| r.tag)
        .map(|(e, _)| *e)
        .collect();
    prop_assert_eq!(&tags, &want_tags, "{} Tag", what);
    let bigs: Vec<(Entity, u64)> = world
        .query::<(Entity, &Big)>()
        .map(|(e, b)| (e, b.0[0]))
        .collect();
    let want_bigs: Vec<(Entity, u64)> = oracle
        .values()
        .filter_map(|(e, r)| r.big.map(|b| (*e, b)))
        .collect();
    prop_assert_eq!(&bigs, &want_bigs, "{} Big", what);
    if let Some(s) = world.store::<Val>() {
        let dense: Vec<(Entity, String)> = s
            .dense_entities()
            .iter()
            .copied()
            .zip(s.dense_values().iter().map(|v| v.0.clone()))
            .collect();
        if s.is_settled() {
            prop_assert_eq!(&dense, &want, "{} dense Val", what);
        }
    }
    if let Some(s) = world.store::<Tag>() {
        prop_assert_eq!(s.dense_values().len(), s.len());
        if s.is_settled() {
            prop_assert_eq!(s.dense_entities(), &want_tags[..], "{} dense Tag", what);
        }
    }
    Ok(())
}

type Ticks = BTreeMap<Entity, (Tick, Tick)>;

fn ticks_of(world: &World) -> Ticks {
    let mut t = Ticks::new();
    if let Some(s) = world.store::<Val>() {
        for (i, e) in s.dense_entities().iter().enumerate() {
            let tk = s.ticks(*e).unwrap();
            assert_eq!(tk.added, s.dense_added_ticks()[i]);
            assert_eq!(tk.changed, s.dense_changed_ticks()[i]);
            t.insert(*e, (tk.added, tk.changed));
        }
    }
    t
}

fn run(steps: Vec<Step>, threads: usize) -> Result<(), TestCaseError> {
    let mut world = World::new();
    world.insert_resource(Script::default());
    world.insert_resource(Spawned::default());
    // Some initial content.
    let mut oracle = Oracle::new();
    let mut handles: Vec<Entity> = Vec::new();
    for i in 0..30u32 {
        let e = world.spawn_with((Val(format!("i{i}")),));
        if i % 3 == 0 {
            world.insert(e, Tag).unwrap();
        }
        handles.push(e);
        oracle.insert(
            e.slot(),
            (
                e,
                Row {
                    val: Some(format!("i{i}")),
                    tag: i % 3 == 0,
                    big: None,
                },
            ),
        );
    }
    let mut schedule = Schedule::builder()
        .add(actor)
        .threads(threads)
        .inline_below(0)
        .build()
        .unwrap();
    let mut saved: Option<(rota::Snapshot, Oracle)> = None;
    for (n, step) in steps.into_iter().enumerate() {
        let what = format!("step {n}");
        match step {
            Step::Snapshot => {
                saved = Some((world.snapshot().unwrap(), oracle.clone()));
            }
            Step::DropSnapshot => saved = None,
            Step::Restore => {
                if let Some((s, o)) = &saved {
                    world.restore(s);
                    oracle = o.clone();
                }
            }
            Step::Tick(cmds) => {
                let resolve = |h: usize| {
                    if handles.is_empty() {
                        None
                    } else {
                        Some(handles[h % handles.len()])
                    }
                };
                let script: Vec<(Cmd, Option<Entity>)> = cmds
                    .iter()
                    .map(|c| {
                        let t = match *c {
                            Cmd::Spawn(..) => None,
                            Cmd::Despawn(h)
                            | Cmd::Insert(h, _)
                            | Cmd::InsertTag(h)
                            | Cmd::InsertBig(h, _)
                            | Cmd::Remove(h)
                            | Cmd::RemoveTag(h)
                            | Cmd::RemoveBig(h) => resolve(h),
                        };
                        (c.clone(), t)
                    })
                    .collect();
                world.resource_mut::<Script>().unwrap().0 = script.clone();
                world.resource_mut::<Spawned>().unwrap().0.clear();
                let before = ticks_of(&world);
                schedule.run(&mut world);
                let spawned = world.resource::<Spawned>().unwrap().0.clone();
                // Replay on the oracle.
                let mut touched = std::collections::BTreeSet::new();
                let mut sp = spawned.iter();
                let alive = |o: &Oracle, e: Entity| o.get(&e.slot()).is_some_and(|(x, _)| *x == e);
                for (c, t) in &script {
                    if let Some(t) = t {
                        touched.insert(*t);
                    }
                    match (c, *t) {
                        (Cmd::Spawn(v, tag), _) => {
                            let e = *sp.next().unwrap();
                            handles.push(e);
                            touched.insert(e);
                            prop_assert!(!oracle.contains_key(&e.slot()));
                            oracle.insert(
                                e.slot(),
                                (
                                    e,
                                    Row {
                                        val: v.map(|v| format!("v{v}")),
                                        tag: *tag,
                                        big: None,
                                    },
                                ),
                            );
                        }
                        (Cmd::Despawn(_), Some(e)) if alive(&oracle, e) => {
                            oracle.remove(&e.slot());
                        }
                        (Cmd::Insert(_, v), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.val = Some(format!("v{v}"));
                        }
                        (Cmd::InsertTag(_), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.tag = true;
                        }
                        (Cmd::InsertBig(_, v), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.big = Some(*v);
                        }
                        (Cmd::Remove(_), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.val = None;
                        }
                        (Cmd::RemoveTag(_), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.tag = false;
                        }
                        (Cmd::RemoveBig(_), Some(e)) if alive(&oracle, e) => {
                            oracle.get_mut(&e.slot()).unwrap().1.big = None;
                        }
                        _ => {}
                    }
                }
                for s in [
                    world.store::<Val>().map(|s| s.is_settled()),
                    world.store::<Tag>().map(|s| s.is_settled()),
                    world.store::<Big>().map(|s| s.is_settled()),
                ]
                .into_iter()
                .flatten()
                {
                    prop_assert!(s, "{} a store is unsettled after a schedule run", what);
                }
                let after = ticks_of(&world);
                for (e, t) in &before {
                    if !touched.contains(e) {
                        prop_assert_eq!(after.get(e), Some(t), "{} ticks of untouched {}", what, e);
                    }
                }
            }
        }
        check(&world, &oracle, &what)?;
        if let Some((s, o)) = &saved {
            // The snapshot is unchanged by later sync points: restore a copy and compare.
            let mut w2 = World::new();
            w2.restore(s);
            check(&w2, o, &format!("{what} (snapshot)"))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(64), ..ProptestConfig::default() })]

    #[test]
    fn sync_points_match_the_oracle_on_1_thread(steps in proptest::collection::vec(step(), 1..40)) {
        run(steps, 1)?;
    }

    #[test]
    fn sync_points_match_the_oracle_on_2_threads(steps in proptest::collection::vec(step(), 1..40)) {
        run(steps, 2)?;
    }
}

/// `apply_and_settle_with` hands its callback exactly the stores with work to do: one left
/// unsettled before the commands (a value inserted below the highest slot) and one that owes
/// the removals of a despawn, each once, and not a store that is settled and owes nothing.
#[test]
fn the_settle_callback_gets_the_unsettled_stores_and_those_owing_removals_only() {
    let mut world = World::new();
    let es = world.spawn_batch((0..8u64).map(|i| (Big([i; 3]),)));
    let tagged = world.spawn_batch((0..3).map(|_| (Tag,)));
    // `Val` out of order: a higher slot first, then a lower one.
    world.insert(es[5], Val("five".into())).unwrap();
    world.insert(es[2], Val("two".into())).unwrap();
    assert_eq!(world.store::<Val>().map(|s| s.is_settled()), Some(false));
    assert_eq!(world.store::<Big>().map(|s| s.is_settled()), Some(true));
    assert_eq!(world.store::<Tag>().map(|s| s.is_settled()), Some(true));

    let mut commands = world.commands();
    commands.despawn(tagged[1]);
    let mut handed: Vec<usize> = Vec::new();
    let report = world.apply_and_settle_with([commands.finish()], |stores| {
        for s in stores {
            handed.push(s.len());
            s.settle();
        }
    });
    assert!(report.is_clean(), "{report:?}");
    handed.sort_unstable();
    // `Val` (2 values, unsettled) and `Tag` (3 values, one owed); not `Big` (8, settled).
    assert_eq!(handed, [2, 3]);
    for settled in [
        world.store::<Val>().map(|s| s.is_settled()),
        world.store::<Big>().map(|s| s.is_settled()),
        world.store::<Tag>().map(|s| s.is_settled()),
    ] {
        assert_eq!(settled, Some(true));
    }
    let vals: Vec<&str> = world.query::<&Val>().map(|v| v.0.as_str()).collect();
    assert_eq!(vals, ["two", "five"]);
    assert_eq!(world.query::<&Tag>().count(), 2);
}
