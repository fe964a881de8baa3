//! Systems through the `rota` facade: `#[system]` functions run with `World::run` (queries,
//! resources, `Commands`, `&Entities`, `Local`), their descriptors as data (`reads`, `writes`,
//! `after`, `every_ticks`, `uses_commands`, `conflict_with`), `World::split_for_systems`, and the
//! run-time panics for what the compile-time checks cannot see (a missing resource, a generic
//! component aliased by one query).

use rota::rota_core::system::{AccessKind, SplitError, system_ref};
use rota::{
    ApplyReport, CommandError, CommandKind, Commands, Component, Entities, Entity, Local, Query,
    QueryGetError, Res, ResMut, Resource, System, SystemDescriptor, With, Without, World, system,
};

// ---------------------------------------------------------------------------------------------
// Components, resources and systems
// ---------------------------------------------------------------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq)]
struct Health(i32);

/// A zero-sized tag.
#[derive(Component, Clone, Debug, PartialEq)]
struct Frozen;

/// Never inserted into any world.
#[derive(Component, Clone, Debug, PartialEq)]
struct Never(u32);

/// A generic component: no compile-time unique key, so aliasing is caught at run time.
#[derive(Component, Clone, Debug, PartialEq)]
struct G<T>(T);

#[derive(Resource, Clone, Debug, PartialEq)]
struct Gravity(f32);

#[derive(Resource, Clone, Debug, PartialEq, Default)]
struct Score(u32);

/// The entity `heal_target` looks up.
#[derive(Resource, Clone, Debug)]
struct Target(Entity);

/// Where systems report what they saw, for the test to check after `World::run`.
#[derive(Resource, Clone, Debug, Default)]
struct Seen {
    entities: Vec<Entity>,
    values: Vec<i32>,
    alive: usize,
    spawned: Option<Entity>,
    runs: Vec<u32>,
    components: Vec<&'static str>,
}

/// Writes `Position`, reads `Velocity` and the `Gravity` resource; iterates `&mut q`.
#[system(reads(Velocity, Gravity), writes(Position))]
fn movement(mut q: Query<(&mut Position, &Velocity)>, gravity: Res<Gravity>) {
    for (p, v) in &mut q {
        p.x += v.x;
        p.y += v.y - gravity.0;
    }
}

/// Reads `Position` through a read-only query's `iter()`, writes the `Score` resource.
#[system(reads(Position), writes(Score))]
fn scoring(q: Query<&Position>, mut score: ResMut<Score>) {
    score.0 += q.iter().filter(|p| p.x > 0.0).count() as u32;
}

/// `for_each` over a mutable query.
#[system(writes(Health))]
fn decay(mut q: Query<&mut Health>) {
    q.for_each(|h| h.0 -= 1);
}

/// Despawns the dead, freezes the weak (insert `Frozen`, remove `Velocity`), spawns one.
#[system(reads(Health), writes(Position, Velocity, Frozen, Seen))]
fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands, mut seen: ResMut<Seen>) {
    for (e, h) in q.iter() {
        if h.0 <= 0 {
            commands.despawn(e);
        } else if h.0 < 10 {
            commands.insert(e, Frozen);
            commands.remove::<Velocity>(e);
        }
    }
    let child = commands.spawn((Position { x: 7.0, y: 8.0 }, Velocity { x: 1.0, y: 0.0 }));
    seen.spawned = Some(child);
}

/// `Query::get` on a read-only query and `Query::get_mut` on a mutable one.
#[system(reads(Target, Velocity), writes(Health, Seen))]
fn heal_target(
    target: Res<Target>,
    velocities: Query<&Velocity>,
    mut health: Query<&mut Health>,
    mut seen: ResMut<Seen>,
) {
    let v = velocities.get(target.0).expect("the target has a velocity");
    let bonus = v.x as i32;
    let h = health.get_mut(target.0).expect("the target has health");
    h.0 += bonus;
    seen.values.push(h.0);
}

/// A filtered query (`With`) and an `Entity` query filtered by `Without`: both filters need
/// `reads(Frozen)`.
#[system(reads(Health, Frozen), writes(Seen))]
fn frozen_census(
    frozen: Query<&Health, With<Frozen>>,
    thawed: Query<Entity, Without<Frozen>>,
    mut seen: ResMut<Seen>,
) {
    seen.values = frozen.iter().map(|h| h.0).collect();
    seen.entities = thawed.iter().collect();
}

/// The `&Entities` parameter.
#[system(writes(Seen))]
fn census(entities: &Entities, mut seen: ResMut<Seen>) {
    seen.alive = entities.len();
    seen.entities = entities.iter().collect();
}

/// A `Local<u32>` counter.
#[system(writes(Seen))]
fn count_runs(mut runs: Local<u32>, mut seen: ResMut<Seen>) {
    *runs += 1;
    seen.runs.push(*runs);
}

/// A type in both `reads(..)` and `writes(..)`.
#[system(reads(Velocity, Position), writes(Position))]
fn overlap(mut q: Query<(&mut Position, &Velocity)>) {
    for (p, v) in &mut q {
        p.x -= v.x;
    }
}

/// Reads a component only through its write.
#[system(writes(Position, Score))]
fn read_through_write(q: Query<&Position>, mut score: ResMut<Score>) {
    score.0 = q.iter().count() as u32;
}

/// `after(..)` and an explicit `every_ticks`.
#[system(reads(Position), after(movement, scoring), every_ticks = 4)]
fn late(q: Query<&Position>) {
    let _ = q.iter().count();
}

/// Writes a resource another system (`movement`) reads.
#[system(writes(Gravity))]
fn gravity_shift(mut gravity: ResMut<Gravity>) {
    gravity.0 *= 2.0;
}

/// Uses `Commands` without touching anything `reaper` touches.
#[system(writes(Never))]
fn never_spawner(mut commands: Commands) {
    commands.spawn((Never(1),));
}

/// Only reads `Velocity`, like `movement`.
#[system(reads(Velocity))]
fn velocity_reader(q: Query<&Velocity>) {
    let _ = q.iter().count();
}

/// Touches only the never-inserted `Never`.
#[system(reads(Never), writes(Seen))]
fn never_reader(q: Query<(Entity, &Never)>, mut seen: ResMut<Seen>) {
    seen.alive = q.iter().count();
}

/// Writes the never-inserted `Never`, with `get_mut`, `for_each` and a `Without` filter.
#[system(reads(Frozen), writes(Never, Seen))]
fn never_writer(
    mut q: Query<&mut Never, Without<Frozen>>,
    entities: &Entities,
    mut seen: ResMut<Seen>,
) {
    q.for_each(|n| n.0 += 1);
    for e in entities.iter() {
        match q.get_mut(e) {
            Err(QueryGetError::Mismatch { component, .. }) => seen.components.push(component),
            other => panic!("expected a mismatch, got {:?}", other.map(|n| n.0)),
        }
    }
    seen.values.push((&mut q).into_iter().count() as i32);
}

/// A generic component named twice by one query, once `&mut`: invisible to the compile-time
/// check, refused at run time.
#[system(writes(G<u8>))]
fn generic_alias(mut q: Query<(&mut G<u8>, &G<u8>)>) {
    for (a, b) in &mut q {
        a.0 = b.0;
    }
}

/// The same, across two parameters.
#[system(writes(G<u8>))]
fn generic_alias_across(mut w: Query<&mut G<u8>>, r: Query<&G<u8>>) {
    for g in &mut w {
        g.0 += 1;
    }
    let _ = r.iter().count();
}

/// `G<u8>` and `G<u16>` share a name but are different components: no alias.
#[system(writes(G<u8>), reads(G<u16>))]
fn generic_distinct(mut q: Query<(&mut G<u8>, &G<u16>)>) {
    for (a, b) in &mut q {
        a.0 = b.0 as u8;
    }
}

fn seen(world: &World) -> &Seen {
    world.resource::<Seen>().expect("Seen is inserted")
}

fn clean(report: ApplyReport) {
    assert!(report.is_clean(), "{:?}", report.errors);
    assert_eq!(report.applied, 0, "no commands expected");
}

// ---------------------------------------------------------------------------------------------
// Running systems
// ---------------------------------------------------------------------------------------------

#[test]
fn movement_writes_positions_from_velocities_and_the_gravity_resource() {
    let mut world = World::new();
    world.insert_resource(Gravity(0.5));
    let a = world.spawn_with((Position { x: 0.0, y: 0.0 }, Velocity { x: 1.0, y: 2.0 }));
    let b = world.spawn_with((Position { x: 10.0, y: 10.0 },)); // no velocity: untouched
    let c = world.spawn_with((Velocity { x: 3.0, y: 3.0 }, Position { x: -1.0, y: 0.0 }));

    clean(world.run(movement));
    clean(world.run(movement));

    assert_eq!(world.get::<Position>(a), Some(&Position { x: 2.0, y: 3.0 }));
    assert_eq!(
        world.get::<Position>(b),
        Some(&Position { x: 10.0, y: 10.0 })
    );
    assert_eq!(world.get::<Position>(c), Some(&Position { x: 5.0, y: 5.0 }));
    // Velocity and Gravity were only read.
    assert_eq!(world.get::<Velocity>(a), Some(&Velocity { x: 1.0, y: 2.0 }));
    assert_eq!(world.resource::<Gravity>(), Ok(&Gravity(0.5)));
    world.check_invariants().unwrap();
}

#[test]
fn res_mut_system_writes_the_resource_and_read_only_iter_sees_every_match() {
    let mut world = World::new();
    world.insert_resource(Score::default());
    world.spawn_with((Position { x: 1.0, y: 0.0 },));
    world.spawn_with((Position { x: -1.0, y: 0.0 },));
    world.spawn_with((Position { x: 3.0, y: 0.0 }, Velocity { x: 0.0, y: 0.0 }));

    clean(world.run(scoring));
    assert_eq!(world.resource::<Score>(), Ok(&Score(2)));
    clean(world.run(scoring));
    assert_eq!(world.resource::<Score>(), Ok(&Score(4)));
}

#[test]
fn resource_writes_are_seen_by_the_next_system() {
    let mut world = World::new();
    world.insert_resource(Gravity(1.0));
    let e = world.spawn_with((Position { x: 0.0, y: 0.0 }, Velocity { x: 0.0, y: 0.0 }));
    clean(world.run(gravity_shift));
    assert_eq!(world.resource::<Gravity>(), Ok(&Gravity(2.0)));
    clean(world.run(movement));
    assert_eq!(
        world.get::<Position>(e),
        Some(&Position { x: 0.0, y: -2.0 })
    );
}

#[test]
fn for_each_mutates_every_match() {
    let mut world = World::new();
    let a = world.spawn_with((Health(10),));
    let b = world.spawn_with((Health(0), Frozen));
    world.spawn_with((Frozen,));
    clean(world.run(decay));
    clean(world.run(decay));
    assert_eq!(world.get::<Health>(a), Some(&Health(8)));
    assert_eq!(world.get::<Health>(b), Some(&Health(-2)));
}

#[test]
fn commands_spawn_despawn_insert_and_remove_are_applied_after_the_run() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let v = Velocity { x: 1.0, y: 1.0 };
    let healthy = world.spawn_with((Health(50), v));
    let dead = world.spawn_with((Health(0), v));
    let weak = world.spawn_with((Health(5), v));
    let bystander = world.spawn_with((v,));

    let report = world.run(reaper);

    assert!(report.is_clean(), "{:?}", report.errors);
    // despawn + insert + remove + spawn.
    assert_eq!(report.applied, 4);
    assert!(world.is_alive(healthy));
    assert!(!world.is_alive(dead));
    assert!(world.is_alive(weak));
    assert!(world.has::<Frozen>(weak));
    assert!(!world.has::<Velocity>(weak));
    assert_eq!(world.get::<Health>(weak), Some(&Health(5)));
    assert!(!world.has::<Frozen>(healthy));
    assert_eq!(world.get::<Velocity>(healthy), Some(&v));
    assert_eq!(world.get::<Velocity>(bystander), Some(&v));

    let child = seen(&world).spawned.expect("reaper stored its spawn");
    assert!(world.is_alive(child));
    // Reserved while `dead` was still alive: the next fresh slot, not `dead`'s.
    assert_eq!(child.slot(), 4);
    assert_eq!(
        world.get::<Position>(child),
        Some(&Position { x: 7.0, y: 8.0 })
    );
    assert_eq!(
        world.get::<Velocity>(child),
        Some(&Velocity { x: 1.0, y: 0.0 })
    );
    assert!(!world.has::<Health>(child));
    assert_eq!(world.len(), 4);
    world.check_invariants().unwrap();

    // A second run: nothing left to despawn or freeze anew, but `weak` is re-frozen (insert
    // replaces) and its absent velocity removed again (a no-op that still counts as applied).
    let report = world.run(reaper);
    assert!(report.is_clean(), "{:?}", report.errors);
    assert_eq!(report.applied, 3);
    // `dead`'s slot was free when this spawn was reserved.
    let second = seen(&world).spawned.unwrap();
    assert_eq!(second.slot(), dead.slot());
    assert_ne!(second, dead);
    assert!(!world.is_alive(dead));
    assert_eq!(world.len(), 5);
    world.check_invariants().unwrap();
}

#[test]
fn commands_against_an_entity_despawned_before_apply_are_reported() {
    #[system(reads(Target), writes(Frozen))]
    fn freeze_target(target: Res<Target>, mut commands: Commands) {
        commands.despawn(target.0);
        commands.insert(target.0, Frozen);
    }
    let mut world = World::new();
    let e = world.spawn_with((Health(1),));
    world.insert_resource(Target(e));
    let report = world.run(freeze_target);
    assert_eq!(report.applied, 1);
    assert_eq!(
        report.errors,
        [CommandError::EntityNotAlive {
            index: 1,
            command: CommandKind::Insert,
            component: Some("Frozen"),
            entity: e,
        }]
    );
    assert!(!world.is_alive(e));
}

#[test]
fn query_get_and_get_mut_look_up_one_entity() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let target = world.spawn_with((Health(10), Velocity { x: 3.0, y: 0.0 }));
    let other = world.spawn_with((Health(100), Velocity { x: 9.0, y: 0.0 }));
    world.insert_resource(Target(target));

    clean(world.run(heal_target));
    clean(world.run(heal_target));

    assert_eq!(seen(&world).values, [13, 16]);
    assert_eq!(world.get::<Health>(target), Some(&Health(16)));
    assert_eq!(world.get::<Health>(other), Some(&Health(100)));
}

#[test]
fn query_get_reports_dead_entities_and_missing_components() {
    #[system(reads(Health, Velocity, Target), writes(Seen))]
    fn probe(q: Query<(&Health, &Velocity)>, target: Res<Target>, mut seen: ResMut<Seen>) {
        match q.get(target.0) {
            Err(QueryGetError::Dead(rota::EntityNotAlive(e))) => seen.entities.push(e),
            Err(QueryGetError::Mismatch {
                entity,
                component,
                reason,
            }) => {
                assert_eq!(
                    (component, reason),
                    ("Velocity", rota::MismatchReason::Lacks)
                );
                seen.entities.push(entity);
                seen.values.push(-1);
            }
            Ok((h, _)) => seen.values.push(h.0),
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let full = world.spawn_with((Health(4), Velocity { x: 0.0, y: 0.0 }));
    let partial = world.spawn_with((Health(5),));
    let gone = world.spawn_with((Health(6), Velocity { x: 0.0, y: 0.0 }));
    world.despawn(gone).unwrap();

    for e in [full, partial, gone] {
        world.insert_resource(Target(e));
        clean(world.run(probe));
    }
    assert_eq!(seen(&world).values, [4, -1]);
    assert_eq!(seen(&world).entities, [partial, gone]);
}

#[test]
fn with_and_without_filters_select_by_presence() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let a = world.spawn_with((Health(1), Frozen));
    let b = world.spawn_with((Health(2),));
    world.spawn_with((Health(3), Frozen));
    let d = world.spawn(); // no components at all: still matches `Entity, Without<Frozen>`

    clean(world.run(frozen_census));
    assert_eq!(seen(&world).values, [1, 3]);
    assert_eq!(seen(&world).entities, [b, d]);

    world.remove::<Frozen>(a).unwrap();
    world.insert(b, Frozen).unwrap();
    clean(world.run(frozen_census));
    assert_eq!(seen(&world).values, [2, 3]);
    assert_eq!(seen(&world).entities, [a, d]);
}

#[test]
fn entities_parameter_sees_the_live_entities_in_slot_order() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let a = world.spawn();
    let b = world.spawn_with((Health(1),));
    let c = world.spawn();
    world.despawn(b).unwrap();
    clean(world.run(census));
    assert_eq!(seen(&world).alive, 2);
    assert_eq!(seen(&world).entities, [a, c]);
}

#[test]
fn local_state_starts_fresh_on_every_world_run() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    clean(world.run(count_runs));
    clean(world.run(count_runs));
    clean(world.run(count_runs));
    assert_eq!(seen(&world).runs, [1, 1, 1]);
}

#[test]
fn a_type_in_both_lists_is_written() {
    let mut world = World::new();
    let e = world.spawn_with((Position { x: 5.0, y: 0.0 }, Velocity { x: 2.0, y: 0.0 }));
    clean(world.run(overlap));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 3.0, y: 0.0 }));
}

#[test]
fn a_write_declaration_allows_reading_the_component() {
    let mut world = World::new();
    world.insert_resource(Score::default());
    world.spawn_with((Position { x: 5.0, y: 0.0 },));
    world.spawn_with((Position { x: 6.0, y: 0.0 },));
    clean(world.run(read_through_write));
    assert_eq!(world.resource::<Score>(), Ok(&Score(2)));
}

// ---------------------------------------------------------------------------------------------
// Components that were never inserted
// ---------------------------------------------------------------------------------------------

#[test]
fn systems_over_a_never_inserted_component_see_nothing_and_do_not_panic() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.spawn_with((Health(1),));
    world.spawn_with((Health(2), Frozen));
    assert!(world.store::<Never>().is_none());

    clean(world.run(never_reader));
    assert_eq!(seen(&world).alive, 0);
    clean(world.run(never_writer));
    assert_eq!(seen(&world).values, [0]);
    // The filter is checked first: the frozen entity is excluded before `Never` is missed.
    assert_eq!(seen(&world).components, ["Never", "Frozen"]);
    assert!(world.store::<Never>().is_none());
}

#[test]
fn systems_on_an_empty_world_run_without_panicking() {
    let mut world = World::new();
    world.insert_resource(Gravity(1.0));
    world.insert_resource(Score::default());
    clean(world.run(movement));
    clean(world.run(scoring));
    clean(world.run(decay));
    clean(world.run(velocity_reader));
    assert_eq!(world.resource::<Score>(), Ok(&Score(0)));
    assert!(world.is_empty());
}

#[test]
fn a_never_inserted_component_spawned_by_commands_gets_its_store() {
    let mut world = World::new();
    let report = world.run(never_spawner);
    assert!(report.is_clean());
    assert_eq!(report.applied, 1);
    let got: Vec<u32> = world.query::<&Never>().map(|n| n.0).collect();
    assert_eq!(got, [1]);
}

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

fn names(list: &[rota::rota_core::system::DeclaredAccess]) -> Vec<(&'static str, AccessKind)> {
    list.iter().map(|a| (a.name, a.kind)).collect()
}

#[test]
fn descriptor_lists_name_reads_and_writes_with_kinds() {
    let d: SystemDescriptor = System::descriptor(&movement());
    assert_eq!(d.name, "movement");
    assert_eq!(
        names(&d.reads),
        [
            ("Velocity", AccessKind::Component),
            ("Gravity", AccessKind::Resource)
        ]
    );
    assert_eq!(names(&d.writes), [("Position", AccessKind::Component)]);
    assert!(d.after.is_empty());
    assert_eq!(d.every_ticks, 1);
    assert!(!d.uses_commands);
    assert!(d.reads_type(std::any::TypeId::of::<Velocity>()));
    assert!(d.writes_type(std::any::TypeId::of::<Position>()));
    assert!(!d.reads_type(std::any::TypeId::of::<Position>()));

    let d = rota::System::descriptor(&scoring());
    assert_eq!(d.name, "scoring");
    assert_eq!(names(&d.reads), [("Position", AccessKind::Component)]);
    assert_eq!(names(&d.writes), [("Score", AccessKind::Resource)]);
}

#[test]
fn descriptor_keeps_a_type_in_both_lists_only_in_writes() {
    let d = System::descriptor(&overlap());
    assert_eq!(names(&d.reads), [("Velocity", AccessKind::Component)]);
    assert_eq!(names(&d.writes), [("Position", AccessKind::Component)]);

    // The builder `#[system]` calls (every `.read::<T>()`, then every `.write::<T>()`) keeps a
    // written type out of `reads` whatever the order.
    let id = std::any::TypeId::of::<()>();
    let d = SystemDescriptor::new("both", id)
        .read::<Velocity>()
        .read::<Position>()
        .write::<Position>();
    assert_eq!(names(&d.reads), [("Velocity", AccessKind::Component)]);
    assert_eq!(names(&d.writes), [("Position", AccessKind::Component)]);
    // A read after the write is ignored too, and repeats are kept once.
    let d = SystemDescriptor::new("both", id)
        .write::<Position>()
        .read::<Position>()
        .write::<Position>()
        .read::<Gravity>()
        .read::<Gravity>();
    assert_eq!(names(&d.reads), [("Gravity", AccessKind::Resource)]);
    assert_eq!(names(&d.writes), [("Position", AccessKind::Component)]);

    // Writes imply reads: they are not repeated in `reads`.
    let d = System::descriptor(&read_through_write());
    assert!(d.reads.is_empty());
    assert_eq!(
        names(&d.writes),
        [
            ("Position", AccessKind::Component),
            ("Score", AccessKind::Resource)
        ]
    );

    let d = System::descriptor(&reaper());
    assert_eq!(names(&d.reads), [("Health", AccessKind::Component)]);
    assert_eq!(
        names(&d.writes),
        [
            ("Position", AccessKind::Component),
            ("Velocity", AccessKind::Component),
            ("Frozen", AccessKind::Component),
            ("Seen", AccessKind::Resource),
        ]
    );
}

#[test]
fn descriptor_after_names_systems_by_identity() {
    let d = System::descriptor(&late());
    let after: Vec<&str> = d.after.iter().map(|r| r.name).collect();
    assert_eq!(after, ["movement", "scoring"]);
    assert_eq!(d.after[0].id, system_ref(movement).id);
    assert_eq!(d.after[1].id, system_ref(scoring).id);
    assert_ne!(d.after[0].id, d.after[1].id);
    assert_eq!(d.after[0], system_ref(movement));
    // A system's id is its descriptor's id.
    assert_eq!(System::descriptor(&movement()).id, system_ref(movement).id);
    assert_eq!(system_ref(movement).name, "movement");
    assert_ne!(d.id, system_ref(movement).id);
}

#[test]
fn descriptor_every_ticks_defaults_to_one() {
    assert_eq!(System::descriptor(&late()).every_ticks, 4);
    assert_eq!(System::descriptor(&movement()).every_ticks, 1);
    assert_eq!(System::descriptor(&reaper()).every_ticks, 1);
}

#[test]
fn descriptor_uses_commands_only_with_a_commands_parameter() {
    assert!(System::descriptor(&reaper()).uses_commands);
    assert!(System::descriptor(&never_spawner()).uses_commands);
    for d in [
        System::descriptor(&movement()),
        System::descriptor(&scoring()),
        System::descriptor(&census()),
        System::descriptor(&count_runs()),
        System::descriptor(&heal_target()),
    ] {
        assert!(!d.uses_commands, "{}", d.name);
    }
}

#[test]
fn descriptor_names_are_the_system_constants() {
    fn name_of<F: rota::rota_core::system::IntoSystem>(f: F) -> &'static str {
        let _ = f;
        <F::System as System>::NAME
    }
    assert_eq!(name_of(movement), "movement");
    assert_eq!(name_of(frozen_census), "frozen_census");
}

#[test]
fn conflict_with_names_the_overlapping_type() {
    let movement_d = System::descriptor(&movement());
    let scoring_d = System::descriptor(&scoring());
    let reaper_d = System::descriptor(&reaper());
    let never_d = System::descriptor(&never_spawner());
    let gravity_d = System::descriptor(&gravity_shift());
    let reader_d = System::descriptor(&velocity_reader());
    let census_d = System::descriptor(&census());
    let writer_d = System::descriptor(&read_through_write());
    let overlap_d = System::descriptor(&overlap());

    // Component written by one, read by the other: both directions.
    assert_eq!(movement_d.conflict_with(&scoring_d), Some("Position"));
    assert_eq!(scoring_d.conflict_with(&movement_d), Some("Position"));
    // Written by both.
    assert_eq!(movement_d.conflict_with(&writer_d), Some("Position"));
    assert_eq!(movement_d.conflict_with(&overlap_d), Some("Position"));
    // Resource written by one, read by the other.
    assert_eq!(gravity_d.conflict_with(&movement_d), Some("Gravity"));
    assert_eq!(movement_d.conflict_with(&gravity_d), Some("Gravity"));
    // Both record commands, nothing else shared.
    assert_eq!(reaper_d.conflict_with(&never_d), Some("Commands"));
    assert_eq!(never_d.conflict_with(&reaper_d), Some("Commands"));
    // Disjoint, or only reading the same type.
    assert_eq!(movement_d.conflict_with(&census_d), None);
    assert_eq!(census_d.conflict_with(&movement_d), None);
    assert_eq!(movement_d.conflict_with(&reader_d), None);
    assert_eq!(reader_d.conflict_with(&movement_d), None);
    assert_eq!(scoring_d.conflict_with(&never_d), None);
    // One side with commands is no conflict.
    assert_eq!(never_d.conflict_with(&movement_d), None);
}

// ---------------------------------------------------------------------------------------------
// split_for_systems
// ---------------------------------------------------------------------------------------------

fn split_error(world: &mut World, systems: &[&SystemDescriptor]) -> Option<SplitError> {
    world.split_for_systems(systems).err()
}

fn split_len(world: &mut World, systems: &[&SystemDescriptor]) -> usize {
    match world.split_for_systems(systems) {
        Ok(v) => v.len(),
        Err(e) => panic!("unexpected split error: {e}"),
    }
}

fn populated_world() -> World {
    let mut world = World::new();
    world.insert_resource(Gravity(1.0));
    world.insert_resource(Score::default());
    world.insert_resource(Seen::default());
    world.spawn_with((
        Position { x: 0.0, y: 0.0 },
        Velocity { x: 0.0, y: 0.0 },
        Health(1),
        Frozen,
    ));
    world
}

#[test]
fn split_for_systems_refuses_conflicting_systems_naming_both_and_the_type() {
    let mut world = populated_world();
    let movement_d = System::descriptor(&movement());
    let scoring_d = System::descriptor(&scoring());
    let gravity_d = System::descriptor(&gravity_shift());

    let err = split_error(&mut world, &[&movement_d, &scoring_d]).expect("they conflict");
    assert_eq!(
        err,
        SplitError {
            first: "movement",
            second: "scoring",
            name: "Position",
        }
    );
    assert_eq!(
        err.to_string(),
        "systems `movement` and `scoring` cannot run together: both access `Position` and one writes it (or both record commands)"
    );

    // The reader first: still named in list order.
    let err = split_error(&mut world, &[&scoring_d, &movement_d]).expect("they conflict");
    assert_eq!(
        (err.first, err.second, err.name),
        ("scoring", "movement", "Position")
    );

    // A resource conflict.
    let err = split_error(&mut world, &[&movement_d, &gravity_d]).expect("they conflict");
    assert_eq!(
        (err.first, err.second, err.name),
        ("movement", "gravity_shift", "Gravity")
    );

    // Two writers.
    let overlap_d = System::descriptor(&overlap());
    let err = split_error(&mut world, &[&overlap_d, &movement_d]).expect("they conflict");
    assert_eq!(
        (err.first, err.second, err.name),
        ("overlap", "movement", "Position")
    );
}

#[test]
fn split_for_systems_hands_out_borrows_for_disjoint_systems() {
    let mut world = populated_world();
    let movement_d = System::descriptor(&movement());
    let census_d = System::descriptor(&census());
    let reader_d = System::descriptor(&velocity_reader());
    let decay_d = System::descriptor(&decay());

    assert_eq!(split_len(&mut world, &[&movement_d, &census_d]), 2);
    // Shared reads of `Velocity` do not conflict.
    assert_eq!(split_len(&mut world, &[&movement_d, &reader_d]), 2);
    assert_eq!(
        split_len(&mut world, &[&movement_d, &census_d, &decay_d, &reader_d]),
        4
    );
    world.check_invariants().unwrap();
}

#[test]
fn split_for_systems_refuses_conflicts_whatever_the_world_holds() {
    let movement_d = System::descriptor(&movement());
    let scoring_d = System::descriptor(&scoring());
    let gravity_d = System::descriptor(&gravity_shift());

    // Once registered, then emptied: refused.
    let mut used = World::new();
    let e = used.spawn_with((Position { x: 0.0, y: 0.0 },));
    used.despawn(e).unwrap();
    used.insert_resource(Gravity(1.0));
    used.remove_resource::<Gravity>();
    assert!(split_error(&mut used, &[&movement_d, &scoring_d]).is_some());
    assert!(split_error(&mut used, &[&movement_d, &gravity_d]).is_some());

    // Never registered: the same systems, the same (empty) contents: refused just the same.
    let mut fresh = World::new();
    assert_eq!(
        split_error(&mut fresh, &[&movement_d, &scoring_d]),
        Some(SplitError {
            first: "movement",
            second: "scoring",
            name: "Position",
        })
    );
    assert!(split_error(&mut fresh, &[&movement_d, &gravity_d]).is_some());
}

// ---------------------------------------------------------------------------------------------
// Run-time panics
// ---------------------------------------------------------------------------------------------

#[test]
#[should_panic(expected = "system `movement` reads resource `Gravity`, which is not in the world")]
fn a_missing_resource_panics_naming_the_system_and_the_resource() {
    let mut world = World::new();
    world.spawn_with((Position { x: 0.0, y: 0.0 }, Velocity { x: 0.0, y: 0.0 }));
    let _ = world.run(movement);
}

#[test]
#[should_panic(expected = "system `movement` reads resource `Gravity`, which is not in the world")]
fn a_removed_resource_panics_like_a_missing_one() {
    let mut world = World::new();
    world.insert_resource(Gravity(1.0));
    world.remove_resource::<Gravity>();
    let _ = world.run(movement);
}

#[test]
#[should_panic(expected = "system `scoring` writes resource `Score`, which is not in the world")]
fn a_missing_resource_written_by_res_mut_panics() {
    let mut world = World::new();
    let _ = world.run(scoring);
}

#[test]
#[should_panic(expected = "system `generic_alias`: its parameters access `G` twice")]
fn a_generic_component_aliased_in_one_query_panics_at_run_time() {
    let mut world = World::new();
    world.spawn_with((G(1u8),));
    let _ = world.run(generic_alias);
}

#[test]
#[should_panic(expected = "system `generic_alias`: its parameters access `G` twice")]
fn a_generic_component_aliased_in_one_query_panics_even_without_its_store() {
    let mut world = World::new();
    let _ = world.run(generic_alias);
}

#[test]
#[should_panic(expected = "system `generic_alias_across`: its parameters access `G` twice")]
fn a_generic_component_aliased_across_parameters_panics_at_run_time() {
    let mut world = World::new();
    world.spawn_with((G(1u8),));
    let _ = world.run(generic_alias_across);
}

#[test]
fn generic_components_with_different_arguments_do_not_alias() {
    let mut world = World::new();
    let e = world.spawn_with((G(1u8), G(300u16)));
    clean(world.run(generic_distinct));
    assert_eq!(world.get::<G<u8>>(e), Some(&G(44u8)));
    assert_eq!(world.get::<G<u16>>(e), Some(&G(300u16)));
}

#[test]
fn a_schedule_refuses_a_generic_component_aliased_across_parameters_before_running() {
    let err = rota::Schedule::builder()
        .add(generic_alias_across)
        .build()
        .err();
    assert_eq!(
        err.map(|e| e.to_string()).as_deref(),
        Some(
            "system `generic_alias_across`: its parameters access `G` twice and one access writes it; a `&mut` would alias"
        )
    );
}
