//! Prefabs: values with no link to their instances; overrides of whole components and single
//! fields; instantiation through `Commands`, from a system bounded by its declarations (the
//! compile-time refusal is `tests/ui/seal/instantiate-prefab-with-undeclared-component.rs`).

use rota::{Commands, Component, Prefab, Res, Resource, World, system};

#[derive(Component, Clone, Debug, PartialEq)]
struct Hp(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Speed {
    walk: f32,
    run: f32,
}

#[derive(Resource, Clone)]
struct Templates(Prefab<(Hp, Speed)>);

#[test]
fn an_instance_copies_the_prefab_with_whole_component_and_single_field_overrides() {
    let goblin = Prefab::new(
        "goblin",
        (
            Hp(10),
            Speed {
                walk: 1.0,
                run: 3.0,
            },
        ),
    );
    let mut world = World::new();
    let plain = world.instantiate(&goblin, |_| {}).unwrap();
    let boss = world
        .instantiate(&goblin, |(hp, speed)| {
            *hp = Hp(50);
            speed.run = 5.0;
        })
        .unwrap();
    assert_eq!(world.get::<Hp>(plain), Some(&Hp(10)));
    assert_eq!(world.get::<Hp>(boss), Some(&Hp(50)));
    assert_eq!(
        world.get::<Speed>(boss),
        Some(&Speed {
            walk: 1.0,
            run: 5.0
        })
    );
    assert_eq!(goblin.name(), "goblin");
    assert_eq!(
        goblin.bundle().0,
        Hp(10),
        "overrides never touch the prefab"
    );
}

#[test]
fn instances_keep_no_link_to_the_prefab() {
    let mut world = World::new();
    let mut prefab = Prefab::new(
        "rock",
        (
            Hp(1),
            Speed {
                walk: 0.0,
                run: 0.0,
            },
        ),
    );
    let e = world.instantiate(&prefab, |_| {}).unwrap();
    prefab = prefab.variant("boulder", |(hp, _)| hp.0 = 9);
    drop(prefab);
    world.get_mut::<Hp>(e).unwrap().0 = 2;
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
    let boulder = Prefab::new("rock", (Hp(1),)).variant("boulder", |(hp,)| hp.0 = 9);
    assert_eq!((boulder.name(), boulder.bundle()), ("boulder", &(Hp(9),)));
}

#[system(reads(Templates), defers(Hp, Speed))]
fn spawn_wave(templates: Res<Templates>, mut commands: Commands) {
    for i in 0..3 {
        commands
            .instantiate(&templates.0, |(hp, _)| hp.0 += i)
            .unwrap();
    }
}

#[test]
fn a_system_instantiates_through_its_commands() {
    let mut world = World::new();
    world.insert_resource(Templates(Prefab::new(
        "imp",
        (
            Hp(7),
            Speed {
                walk: 2.0,
                run: 4.0,
            },
        ),
    )));
    assert!(world.run(spawn_wave).is_clean());
    let hps: Vec<u32> = world.query::<&Hp>().map(|h| h.0).collect();
    assert_eq!(hps, [7, 8, 9]);
    assert_eq!(world.query::<&Speed>().count(), 3);
}

#[test]
fn commands_instantiate_reserves_the_handle_at_once() {
    let mut world = World::new();
    let prefab = Prefab::new("imp", (Hp(1),));
    let mut commands: Commands<'_> = world.commands();
    let e = commands.instantiate(&prefab, |_| {}).unwrap();
    let report = world.apply(commands.finish());
    assert!(report.is_clean());
    assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
}
