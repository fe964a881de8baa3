use rota::{Commands, Component, Prefab, Res, Resource, World, system};

#[derive(Component, Clone, Debug, PartialEq)]
struct Position(f32);
#[derive(Component, Clone, Debug, PartialEq)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Templates(Prefab<(Position, Health)>);

#[system(reads(Templates), defers(Position, Health))]
fn breed(templates: Res<Templates>, mut commands: Commands) {
    commands
        .instantiate(&templates.0, |(p, _)| p.0 = 1.0)
        .unwrap();
}

pub fn main() {
    let mut world = World::new();
    world.insert_resource(Templates(Prefab::new("sheep", (Position(0.0), Health(3)))));
    assert!(world.run(breed).is_clean());
    let (p, h) = world.query::<(&Position, &Health)>().next().unwrap();
    assert_eq!((p, h), (&Position(1.0), &Health(3)));
}
