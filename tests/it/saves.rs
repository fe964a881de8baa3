//! World saves (`rota::scene::save_world` / `load_world`): a loaded world has the saved one's
//! `full_checksum`, hands out the same handles and runs the same future on 1 and 2 threads;
//! a save never silently lacks a type; bad bytes are typed errors, never panics; the golden
//! save of format version 1 loads forever after.
//!
//! The golden file lives in `tests/saves/`. Regenerate it with
//! `ROTA_BLESS=1 cargo test --test it saves::` and read why: a changed golden file means old
//! saves may no longer load (a format change must migrate them instead).

use rota::scene::{WorldLoadError, WorldSaveError, load_world, save_world};
use rota::{
    Changed, Commands, Component, Entities, Entity, Event, EventReader, EventWriter, Query, ResMut,
    Resource, Scene, Schedule, StableHash, World, system,
};
use serde::{Deserialize, Serialize};

#[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
#[scene(key = "saves.Pos")]
struct Pos {
    #[scene(id = 1)]
    x: i64,
}

#[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
#[scene(key = "saves.Vel")]
struct Vel {
    #[scene(id = 1)]
    dx: i64,
}

#[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
#[scene(key = "saves.Hp")]
struct Hp {
    #[scene(id = 1)]
    hp: i64,
    #[scene(id = 2)]
    last_hit_by: Option<Entity>,
}

#[derive(Resource, StableHash, Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
struct Score {
    hits: u64,
    born: u64,
}

#[derive(Event, StableHash, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Hit {
    target: u64,
    damage: i64,
}

type C = (Pos, Vel, Hp);
type R = (Score,);
type E = (Hit,);

fn save(world: &World) -> Vec<u8> {
    save_world::<C, R, E>(world).expect("every type is listed")
}

fn load(bytes: &[u8]) -> Result<World, WorldLoadError> {
    load_world::<C, R, E>(bytes)
}

/// A small world with every kind of state: free and retired slots, a hierarchy, an `Entity`
/// field naming a dead entity, a resource, an event channel with a reader, the log on.
fn small_world() -> World {
    // Slot 0 retires on its first despawn (generation u32::MAX cannot be bumped).
    let mut world = World::with_entities(Entities::with_first_generation(u32::MAX - 1));
    world.enable_structural_log(64);
    let es: Vec<Entity> = (0..12)
        .map(|i| world.spawn_with((Pos { x: i }, Vel { dx: 1 - i % 3 })))
        .collect();
    world.despawn(es[0]).unwrap();
    let again = world.spawn(); // slot 0, generation u32::MAX
    world.despawn(again).unwrap(); // slot 0 retires
    world.despawn(es[5]).unwrap(); // slot 5 free
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 2 == 1 && *i != 5) {
        world
            .insert(
                e,
                Hp {
                    hp: 10 + i as i64,
                    last_hit_by: Some(es[5]),
                },
            )
            .unwrap();
    }
    world.set_parent(es[2], es[1]).unwrap();
    world.set_parent(es[3], es[1]).unwrap();
    world.set_parent(es[4], es[3]).unwrap();
    world.insert_resource(Score { hits: 3, born: 1 });
    world.send_event(Hit {
        target: es[1].to_bits(),
        damage: 2,
    });
    world.advance_tick();
    world.send_event(Hit {
        target: es[3].to_bits(),
        damage: 4,
    });
    world.get_mut::<Pos>(es[7]).unwrap().x = 70;
    world
}

#[test]
fn a_loaded_world_has_the_same_checksum_contents_and_next_handles() {
    let mut world = small_world();
    let bytes = save(&world);
    let mut loaded = load(&bytes).unwrap();
    assert_eq!(
        loaded.full_checksum().unwrap(),
        world.full_checksum().unwrap()
    );
    assert_eq!(loaded.tick(), world.tick());
    assert_eq!(loaded.change_tick(), world.change_tick());
    assert_eq!(
        loaded.entities().iter().collect::<Vec<_>>(),
        world.entities().iter().collect::<Vec<_>>()
    );
    assert_eq!(loaded.entities().retired_count(), 1);
    for e in world.entities().iter() {
        assert_eq!(loaded.get::<Pos>(e), world.get::<Pos>(e));
        assert_eq!(loaded.get::<Hp>(e), world.get::<Hp>(e));
        assert_eq!(loaded.parent(e), world.parent(e));
        assert_eq!(loaded.children(e), world.children(e));
        for t in [0, 1, 2] {
            let ticks = |w: &World| match t {
                0 => w.store::<Pos>().and_then(|s| s.ticks(e)),
                1 => w.store::<Hp>().and_then(|s| s.ticks(e)),
                _ => w.store::<Vel>().and_then(|s| s.ticks(e)),
            };
            assert_eq!(ticks(&loaded), ticks(&world), "ticks of {e:?}");
        }
    }
    let log = |w: &World| {
        w.structural_log()
            .unwrap()
            .changes_since(0)
            .copied()
            .collect::<Vec<_>>()
    };
    assert_eq!(log(&loaded), log(&world));
    // The same future: the same handles, the same checksums after the same operations.
    for _ in 0..3 {
        assert_eq!(loaded.spawn(), world.spawn());
    }
    loaded.advance_tick();
    world.advance_tick();
    assert_eq!(
        loaded.full_checksum().unwrap(),
        world.full_checksum().unwrap()
    );
    // Saving the loaded world gives the same bytes.
    let again = load(&bytes).unwrap();
    assert_eq!(save(&again), bytes);
    again.check_invariants().unwrap();
}

#[test]
fn a_save_that_would_lack_a_type_is_refused_naming_it() {
    let world = small_world();
    let err = save_world::<(Pos, Vel), R, E>(&world).unwrap_err();
    assert!(
        matches!(
            err,
            WorldSaveError::ComponentNotCovered {
                component: "Hp",
                held: 5
            }
        ),
        "{err}"
    );
    let err = save_world::<C, (), E>(&world).unwrap_err();
    assert!(
        matches!(
            err,
            WorldSaveError::ResourceNotCovered { resource: "Score" }
        ),
        "{err}"
    );
    let err = save_world::<C, R, ()>(&world).unwrap_err();
    assert!(
        matches!(err, WorldSaveError::ResourceNotCovered { resource: "Hit" }),
        "{err}"
    );
    assert!(err.to_string().contains("`Hit`"));
    // An empty store of an unlisted type is nothing to lack.
    let mut world = World::new();
    let e = world.spawn_with((Pos { x: 1 },));
    world.remove::<Pos>(e).unwrap();
    save_world::<(), (), ()>(&world).unwrap();
}

#[test]
fn bad_headers_and_unknown_types_are_typed_errors() {
    let world = small_world();
    let bytes = save(&world);
    assert_eq!(load(b"nope").unwrap_err(), WorldLoadError::NotAWorldSave);
    let mut wrong = bytes.clone();
    wrong[8] = 9;
    assert_eq!(
        load(&wrong).unwrap_err(),
        WorldLoadError::UnsupportedVersion {
            found: 9,
            supported: 1
        }
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        load(&longer).unwrap_err(),
        WorldLoadError::TrailingBytes { .. }
    ));
    let err = load_world::<(Pos, Vel), R, E>(&bytes).unwrap_err();
    assert!(
        matches!(&err, WorldLoadError::UnknownType { kind: "component", key, .. } if key == "saves.Hp"),
        "{err}"
    );
    let err = load_world::<C, (), E>(&bytes).unwrap_err();
    assert!(
        matches!(
            &err,
            WorldLoadError::UnknownType {
                kind: "resource",
                ..
            }
        ),
        "{err}"
    );
}

/// The scene migration rules hold in world saves: a field added since the save loads with
/// its default, a retired one is dropped, a retyped one is refused naming entity and field.
#[test]
fn saved_components_migrate_like_scenes() {
    mod v2 {
        use rota::{Component, Entity, Scene, StableHash};
        #[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
        #[scene(key = "saves.Hp", retired(2))]
        pub struct Hp {
            #[scene(id = 1)]
            pub hp: i64,
            #[scene(id = 3)]
            pub shield: u32,
        }
        #[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
        #[scene(key = "saves.Vel")]
        pub struct Vel {
            #[scene(id = 1)]
            pub dx: f32,
        }
        pub type Unused = Option<Entity>;
    }
    let world = small_world();
    let bytes = save(&world);
    let loaded = load_world::<(Pos, Vel, v2::Hp), R, E>(&bytes).unwrap();
    let (e, hp) = world.query::<(Entity, &Hp)>().next().unwrap();
    assert_eq!(
        loaded.get::<v2::Hp>(e),
        Some(&v2::Hp {
            hp: hp.hp,
            shield: 0
        })
    );
    let err = load_world::<(Pos, v2::Vel, Hp), R, E>(&bytes).unwrap_err();
    let WorldLoadError::Component { source, .. } = &err else {
        panic!("{err}")
    };
    assert!(
        matches!(
            source,
            rota::scene::LoadError::FieldTypeChanged {
                component: "saves.Vel",
                field: 1,
                saved: "i64",
                expected: "f32",
                ..
            }
        ),
        "{err}"
    );
    let _: v2::Unused = None;
}

/// Every prefix of a real save is refused, as a typed error, without a panic.
#[test]
fn every_prefix_of_a_save_is_refused() {
    let bytes = save(&small_world());
    for n in 0..bytes.len() {
        assert!(load(&bytes[..n]).is_err(), "a prefix of {n} bytes loaded");
    }
}

#[test]
fn the_golden_save_loads_with_its_contents_and_checksum() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/saves/golden-v1.rotaworld"
    );
    if std::env::var_os("ROTA_BLESS").is_some() {
        std::fs::write(path, save(&small_world())).unwrap();
    }
    let bytes = std::fs::read(path).expect("the golden save exists (ROTA_BLESS=1 writes it)");
    let mut world = load(&bytes).unwrap();
    assert_eq!(world.len(), 10);
    assert_eq!(world.entities().retired_count(), 1);
    let pos: Vec<i64> = world.query::<&Pos>().map(|p| p.x).collect();
    assert_eq!(pos, [1, 2, 3, 4, 6, 7 * 10, 8, 9, 10, 11]);
    assert_eq!(
        world.resource::<Score>().unwrap(),
        &Score { hits: 3, born: 1 }
    );
    assert_eq!(
        world
            .read_events::<Hit>(&mut rota::EventCursor::default())
            .map(|h| h.damage)
            .collect::<Vec<_>>(),
        [2, 4]
    );
    let e1 = world.entities().alive_at(1).unwrap();
    let e3 = world.entities().alive_at(3).unwrap();
    assert_eq!(world.children(e1).len(), 2);
    assert_eq!(
        world.parent(world.entities().alive_at(4).unwrap()),
        Some(e3)
    );
    assert_eq!(world.structural_log().unwrap().len(), 50);
    // The checksum this version computed for this world: a change here means the file (or
    // the checksum) no longer means what it did.
    assert_eq!(world.full_checksum().unwrap(), GOLDEN_CHECKSUM);
    let next = world.spawn();
    assert_eq!((next.slot(), next.generation()), (5, u32::MAX));
}

const GOLDEN_CHECKSUM: u64 = 10_108_604_682_236_312_012;

// --- save at tick 50, load, run to 200: the same checksums as the run that never stopped ---

#[system(reads(Vel), writes(Pos))]
fn mover(mut q: Query<(&mut Pos, &Vel)>) {
    for (p, v) in &mut q {
        p.x += v.dx;
    }
}

#[system(reads(Pos), sends(Hit))]
fn sensor(q: Query<(Entity, &Pos), Changed<Pos>>, mut hits: EventWriter<Hit>) {
    for (e, p) in q.iter() {
        if p.x.rem_euclid(3) == 0 {
            hits.send(Hit {
                target: e.to_bits(),
                damage: p.x.rem_euclid(5) + 1,
            });
        }
    }
}

#[system(receives(Hit), writes(Hp, Score))]
fn damage(mut hits: EventReader<Hit>, mut q: Query<&mut Hp>, mut score: ResMut<Score>) {
    for hit in hits.read() {
        if let Ok(hp) = q.get_mut(Entity::from_bits(hit.target)) {
            hp.hp -= hit.damage;
            score.hits += 1;
        }
    }
}

#[system(reads(Hp), defers(Pos, Vel, Hp), writes(Score))]
fn reaper(q: Query<(Entity, &Hp), Changed<Hp>>, mut commands: Commands, mut score: ResMut<Score>) {
    for (e, hp) in q.iter() {
        if hp.hp < 0 {
            commands.despawn(e);
            let child = commands.spawn((Pos { x: hp.hp }, Vel { dx: 1 - hp.hp % 3 }));
            commands.insert(
                child,
                Hp {
                    hp: 20,
                    last_hit_by: Some(e),
                },
            );
            score.born += 1;
        }
    }
}

#[system(writes(Vel))]
fn turner(mut q: Query<&mut Vel>) {
    for v in &mut q {
        v.dx = -v.dx;
    }
}

fn schedule(threads: usize) -> Schedule {
    Schedule::builder()
        .threads(threads)
        .inline_below(0)
        .add(mover)
        .add(sensor)
        .add(damage)
        .add(reaper)
        .add(turner)
        .every_ticks(turner, 7)
        .build()
        .unwrap()
}

fn start_world(n: i64) -> World {
    let mut world = World::new();
    world.insert_resource(Score::default());
    world.spawn_batch((0..n).map(|i| {
        (
            Pos { x: i },
            Vel { dx: i % 4 - 1 },
            Hp {
                hp: i % 7 + 3,
                last_hit_by: None,
            },
        )
    }));
    world
}

#[test]
fn save_load_run_gives_the_checksums_of_the_run_that_never_stopped() {
    for threads in [1, 2] {
        let mut world = start_world(60);
        let mut schedule_a = schedule(threads);
        let mut saved = None;
        let mut straight = Vec::new();
        for tick in 1..=200u64 {
            schedule_a.run(&mut world);
            if tick == 50 {
                saved = Some(save(&world));
            }
            if tick >= 50 {
                straight.push(world.full_checksum().unwrap());
            }
        }
        let mut loaded = load(&saved.unwrap()).unwrap();
        // A schedule that never ran on the loaded world, as in a new process.
        let mut schedule_b = schedule(threads);
        let mut resumed = vec![loaded.full_checksum().unwrap()];
        for _ in 51..=200u64 {
            schedule_b.run(&mut loaded);
            resumed.push(loaded.full_checksum().unwrap());
        }
        for (i, (a, b)) in straight.iter().zip(&resumed).enumerate() {
            assert_eq!(a, b, "threads {threads}: tick {} differs", 50 + i);
        }
        assert_eq!(straight.len(), resumed.len());
        let score = loaded.resource::<Score>().unwrap();
        assert!(
            score.hits > 0 && score.born > 0,
            "the run did something: {score:?}"
        );
    }
}

// --- the desync locator ---

#[test]
fn the_locator_names_a_planted_difference() {
    let world = small_world();
    let bytes = save(&world);
    let ours = load(&bytes).unwrap();
    let mut theirs = load(&bytes).unwrap();
    assert!(ours.diff(&theirs).is_empty(), "{}", ours.diff(&theirs));
    assert!(ours.diff(&world).is_empty(), "{}", ours.diff(&world));
    assert_eq!(
        ours.checksum_parts().unwrap(),
        world.checksum_parts().unwrap()
    );

    let e = theirs.entities().alive_at(7).unwrap();
    theirs.get_mut::<Hp>(e).unwrap().hp += 1;
    let diff = ours.diff(&theirs);
    let store = diff.store("Hp").expect("the Hp store differs");
    let first = store.first_differing.as_ref().unwrap();
    assert_eq!(first.entity, e);
    assert_ne!(first.ours.0, first.theirs.0, "the value hash differs");
    assert_eq!(store.differing_count, 1);
    assert!(store.only_ours.is_empty() && store.only_theirs.is_empty());
    assert_eq!(diff.differences.len(), 1, "{diff}");
    let report = diff.to_string();
    assert!(
        report.contains("component Hp") && report.contains(&format!("{e:?}")),
        "{report}"
    );

    // The cheap comparison names the same part.
    let (a, b) = (
        ours.checksum_parts().unwrap(),
        theirs.checksum_parts().unwrap(),
    );
    let differing: Vec<&str> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.0.as_str())
        .collect();
    assert_eq!(differing, ["component Hp"]);

    // Entities held by one side, the allocator and resources are named too.
    let mut more = load(&bytes).unwrap();
    let extra = more.spawn_with((Pos { x: 0 },));
    more.insert_resource(Score { hits: 0, born: 0 });
    let diff = ours.diff(&more);
    assert_eq!(diff.store("Pos").unwrap().only_theirs, [extra]);
    assert!(
        diff.differences
            .iter()
            .any(|d| matches!(d, rota::Difference::Allocator { .. }))
    );
    assert!(
        diff.differences
            .iter()
            .any(|d| matches!(d, rota::Difference::Resource { name: "Score", .. })),
        "{diff}"
    );
}

// --- replays ---

/// One tick's inputs in the replay test.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Push {
    on_slot: u32,
    by: i64,
}

fn replay_step(schedule: &mut Schedule, world: &mut World, input: &Push) {
    if let Some(e) = world.entities().alive_at(input.on_slot)
        && let Some(p) = world.get_mut::<Pos>(e)
    {
        p.x += input.by;
    }
    schedule.run(world);
}

#[test]
fn a_replay_verifies_and_reports_the_first_tick_a_planted_nondeterminism_changes() {
    use rota::scene::{Divergence, Replay};
    let mut world = start_world(30);
    let mut schedule_a = schedule(2);
    let mut replay = Replay::new(save(&world));
    for tick in 0..60u32 {
        let input = Push {
            on_slot: tick % 31,
            by: i64::from(tick % 5),
        };
        replay_step(&mut schedule_a, &mut world, &input);
        replay.record(input, world.full_checksum().unwrap());
    }
    let replay = Replay::<Push>::from_bytes(&replay.to_bytes().unwrap()).unwrap();
    assert_eq!(replay.ticks.len(), 60);

    let mut schedule_b = schedule(1);
    let verified = replay
        .verify::<C, R, E>(|w, input| replay_step(&mut schedule_b, w, input))
        .unwrap();
    assert_eq!(
        verified, None,
        "a faithful re-simulation matches every tick"
    );

    // Planted: at tick 37 the step reads state outside the world (here, a counter of its
    // own calls) and writes it in.
    let mut calls = 0;
    let mut schedule_c = schedule(2);
    let verified = replay
        .verify::<C, R, E>(|w, input| {
            calls += 1;
            replay_step(&mut schedule_c, w, input);
            if calls == 37 {
                w.resource_mut::<Score>().unwrap().born += 1;
            }
        })
        .unwrap();
    assert!(
        matches!(verified, Some(Divergence { tick: 37, recorded, simulated }) if recorded != simulated),
        "{verified:?}"
    );
    let mut bytes = replay.to_bytes().unwrap();
    bytes.truncate(bytes.len() - 3);
    assert!(Replay::<Push>::from_bytes(&bytes).is_err());
}
