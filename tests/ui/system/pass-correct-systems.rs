use rota::{
    Commands, Component, Entities, Entity, Local, Query, Res, ResMut, Resource, With, Without,
    World, system,
};

#[derive(Component, Clone, Debug, PartialEq)]
struct Position(f32);
#[derive(Component, Clone)]
struct Velocity(f32);
#[derive(Component, Clone)]
struct Frozen;
#[derive(Resource, Clone)]
struct Gravity(f32);
#[derive(Resource, Clone, Default)]
struct Moves(u32);

type Pos = Position;

#[system(reads(Velocity, Gravity, Frozen), writes(Pos, Moves))]
fn movement(
    mut q: Query<(&mut Position, &Velocity), Without<Frozen>>,
    gravity: Res<Gravity>,
    mut moves: ResMut<Moves>,
    mut calls: Local<u64>,
) {
    *calls += 1;
    for (p, v) in &mut q {
        p.0 += v.0 - gravity.0;
        moves.0 += 1;
    }
}

#[system(
    reads(Position, Frozen),
    writes(Velocity),
    after(movement),
    every_ticks = 2
)]
fn thaw(q: Query<(Entity, &Position), With<Frozen>>, entities: &Entities, mut commands: Commands) {
    for (e, _) in q.iter() {
        if entities.is_alive(e) {
            commands.remove::<Velocity>(e);
            commands.insert(e, Velocity(1.0));
            commands.spawn((Velocity(0.0),));
        }
    }
}

pub fn main() {
    let mut world = World::new();
    world.insert_resource(Gravity(0.5));
    world.insert_resource(Moves::default());
    world.spawn_with((Position(0.0), Velocity(1.0)));
    world.spawn_with((Position(0.0), Velocity(1.0), Frozen));
    let _ = world.run(movement);
    let _ = world.run(thaw);
    assert_eq!(world.resource::<Moves>().unwrap().0, 1);
}
