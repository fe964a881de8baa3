//! A bundle that names one component type twice is refused at every entry point, before
//! anything changes. A non-generic type named twice does not build (`tests/ui/bundle/`); these
//! are the generic types, which have no `UNIQUE_KEY` and are compared by `TypeId` at run time.
//! Bundles of distinct types — two instantiations of one generic type among them — still spawn.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::{
    CommandError, Commands, Component, Entity, Prefab, SpawnError, StableHash, World, system,
};

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Hp(u32);

/// Generic, so it has no `UNIQUE_KEY`: a repeat is only seen at run time.
#[derive(Component, Clone, Debug, PartialEq)]
struct Tag<T>(T);

/// A world with entities, a free slot and a store, and what identifies it: its full checksum
/// (every entity, component and slot generation), its store names and the handle the next
/// spawn would get.
fn populated() -> World {
    let mut world = World::new();
    let es = world.spawn_batch((0..4).map(|i| (Hp(i),)));
    world.despawn(es[1]).unwrap();
    world
}

fn fingerprint(world: &World) -> (u64, Vec<&'static str>, usize) {
    (
        world.full_checksum().unwrap(),
        world.component_names().collect(),
        world.len(),
    )
}

/// Asserts `world` is as [`populated`] left it: same fingerprint, and the next spawn takes the
/// same handle (the allocator was not touched).
fn assert_unchanged(world: &mut World, case: &str) {
    let mut reference = populated();
    assert_eq!(fingerprint(world), fingerprint(&reference), "{case}");
    world.check_invariants().unwrap();
    assert_eq!(
        world.spawn(),
        reference.spawn(),
        "{case}: the allocator moved"
    );
}

#[test]
fn try_spawn_with_refuses_a_generic_type_named_twice_and_changes_nothing() {
    let mut world = populated();
    assert_eq!(
        world.try_spawn_with((Hp(9), Tag(1u8), Tag(2u8))),
        Err(SpawnError::DuplicateComponent { component: "Tag" })
    );
    assert_unchanged(&mut world, "try_spawn_with");
    assert_eq!(
        SpawnError::DuplicateComponent { component: "Tag" }.to_string(),
        "a bundle names component `Tag` twice; an entity holds one value per type"
    );
}

#[test]
#[should_panic(expected = "World::spawn_with: a bundle names component `Tag` twice")]
fn spawn_with_panics_naming_a_generic_type_named_twice() {
    World::new().spawn_with((Tag(1u8), Tag(2u8)));
}

#[test]
#[should_panic(expected = "World::spawn_batch: a bundle names component `Tag` twice")]
fn spawn_batch_panics_naming_a_generic_type_named_twice() {
    World::new().spawn_batch([(Tag(1u8), Hp(1), Tag(2u8))]);
}

#[test]
fn a_refused_spawn_with_or_batch_changes_nothing_and_reads_no_bundle() {
    let mut world = populated();
    let spawned = catch_unwind(AssertUnwindSafe(|| world.spawn_with((Tag(1u8), Tag(2u8)))));
    assert!(spawned.is_err());
    assert_unchanged(&mut world, "spawn_with");

    let mut world = populated();
    let mut read = 0;
    let bundles = (0..3).map(|i| {
        read += 1;
        (Hp(i), Tag(i), Tag(i))
    });
    let spawned = catch_unwind(AssertUnwindSafe(|| world.spawn_batch(bundles)));
    assert!(spawned.is_err());
    assert_eq!(read, 0, "refused once per call, before the first bundle");
    assert_unchanged(&mut world, "spawn_batch");

    // Even an empty batch: the refusal is of the bundle type.
    let mut world = populated();
    let spawned = catch_unwind(AssertUnwindSafe(|| {
        world.spawn_batch(std::iter::empty::<(Tag<u8>, Tag<u8>)>())
    }));
    assert!(spawned.is_err());
    assert_unchanged(&mut world, "empty spawn_batch");
}

#[test]
#[should_panic(expected = "Prefab::new: prefab `twin`: a bundle names component `Tag` twice")]
fn prefab_new_panics_naming_the_prefab_and_a_generic_type_named_twice() {
    let _ = Prefab::new("twin", (Tag(1u8), Tag(2u8)));
}

#[test]
fn commands_spawn_reports_a_generic_type_named_twice_and_spawns_nothing_for_it() {
    let mut world = populated();
    let mut commands = world.commands();
    let refused = commands.spawn((Hp(9), Tag(1u8), Tag(2u8)));
    let despawn_refused = commands.len();
    commands.despawn(refused);
    let queue = commands.finish();
    let report = world.apply(queue);
    assert_eq!(
        report.errors,
        [
            CommandError::DuplicateComponent {
                index: 0,
                component: "Tag"
            },
            CommandError::EntityNotAlive {
                index: despawn_refused,
                command: rota::CommandKind::Despawn,
                component: None,
                entity: refused,
            },
        ]
    );
    assert_eq!(report.applied, 0);
    assert!(!world.is_alive(refused));
    assert_unchanged(&mut world, "Commands::spawn");
    assert_eq!(
        report.errors[0].to_string(),
        "command #0 (spawn) skipped: its bundle names component `Tag` twice; an entity holds one value per type"
    );
}

#[test]
fn commands_spawn_refused_between_other_spawns_leaves_their_handles_right() {
    let mut world = populated();
    let mut commands = world.commands();
    let first = commands.spawn((Hp(10),));
    let _ = commands.spawn((Tag(1u8), Tag(2u8)));
    let last = commands.spawn((Hp(11),));
    let report = world.apply(commands.finish());
    assert_eq!(
        report.errors,
        [CommandError::DuplicateComponent {
            index: 1,
            component: "Tag"
        }]
    );
    assert_eq!(report.applied, 2);
    assert_eq!(world.get::<Hp>(first), Some(&Hp(10)));
    assert_eq!(world.get::<Hp>(last), Some(&Hp(11)));
    assert_eq!(world.query::<&Tag<u8>>().count(), 0);
    world.check_invariants().unwrap();
}

#[test]
fn commands_try_spawn_refuses_a_generic_type_named_twice_and_records_nothing() {
    let mut world = populated();
    let mut commands = world.commands();
    assert_eq!(
        commands.try_spawn((Tag(1u8), Tag(2u8))),
        Err(SpawnError::DuplicateComponent { component: "Tag" })
    );
    assert!(commands.is_empty());
    let report = world.apply(commands.finish());
    assert!(report.is_clean());
    assert_unchanged(&mut world, "Commands::try_spawn");
}

#[system(defers(Tag<u8>))]
fn spawn_twins(mut commands: Commands) {
    commands.spawn((Tag(1u8), Tag(2u8)));
}

/// The same system recording nothing: running a system moves the world's change clock and
/// records its last run, which `full_checksum` hashes by the system's name — so this one has
/// the same name.
mod recording_nothing {
    use super::Tag;
    use rota::{Commands, system};

    #[system(defers(Tag<u8>))]
    pub fn spawn_twins(commands: Commands) {
        drop(commands);
    }
}

#[test]
fn a_systems_commands_spawn_of_a_generic_type_named_twice_is_reported() {
    let mut world = populated();
    let report = world.run(spawn_twins);
    assert_eq!(
        report.errors,
        [CommandError::DuplicateComponent {
            index: 0,
            component: "Tag"
        }]
    );
    let mut reference = populated();
    assert!(reference.run(recording_nothing::spawn_twins).is_clean());
    assert_eq!(fingerprint(&world), fingerprint(&reference));
    world.check_invariants().unwrap();
    assert_eq!(world.spawn(), reference.spawn(), "the allocator moved");
}

#[test]
fn bundles_of_distinct_types_spawn_through_every_entry_point() {
    let mut world = World::new();
    // Two instantiations of one generic type are two types.
    let one = world.spawn_with((Tag(1u8), Tag(2u16), Hp(3)));
    let two = world.try_spawn_with((Tag(4u8), Tag(5u16))).unwrap();
    let batch = world.spawn_batch([(Tag(6u8), Tag(7u16))]);
    let prefab = Prefab::new("pair", (Tag(8u8), Tag(9u16)));
    let three = world.instantiate(&prefab, |_| {}).unwrap();
    let mut commands = world.commands();
    let four = commands.spawn((Tag(10u8), Tag(11u16)));
    let five = commands.try_spawn((Tag(12u8), Tag(13u16))).unwrap();
    let six = commands.instantiate(&prefab, |(a, _)| a.0 = 14).unwrap();
    assert!(world.apply(commands.finish()).is_clean());
    let pairs: Vec<(Entity, u8, u16)> = world
        .query::<(Entity, &Tag<u8>, &Tag<u16>)>()
        .map(|(e, a, b)| (e, a.0, b.0))
        .collect();
    assert_eq!(
        pairs,
        [
            (one, 1, 2),
            (two, 4, 5),
            (batch[0], 6, 7),
            (three, 8, 9),
            (four, 10, 11),
            (five, 12, 13),
            (six, 14, 9),
        ]
    );
    assert_eq!(world.get::<Hp>(one), Some(&Hp(3)));
    world.check_invariants().unwrap();
}
