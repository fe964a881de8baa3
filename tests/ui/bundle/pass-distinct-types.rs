//! The bundles of the rejected cases beside it, with distinct types: they build and spawn.

use rota::{Commands, Component, Prefab, World, system};

#[derive(Component, Clone, Debug, PartialEq)]
struct Hp(u32);
#[derive(Component, Clone, Debug, PartialEq)]
struct Speed(u32);
#[derive(Component, Clone, Debug, PartialEq)]
struct Tag<T>(T);

#[system(defers(Hp, Speed))]
fn breed(mut commands: Commands) {
    commands.spawn((Hp(1), Speed(2)));
}

pub fn main() {
    let mut world = World::new();
    world.spawn_with((Hp(1), Speed(2)));
    world.spawn_batch((0..3).map(|i| (Hp(i), Speed(i))));
    let goblin = Prefab::new("goblin", (Hp(1), Speed(2)));
    world.instantiate(&goblin, |_| {}).unwrap();
    assert!(world.run(breed).is_clean());
    // Two instantiations of one generic type are two types.
    world.spawn_with((Tag(1u8), Tag(2u16)));
    assert_eq!(world.query::<(&Hp, &Speed)>().count(), 6);
}
