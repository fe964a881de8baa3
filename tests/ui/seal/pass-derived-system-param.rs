//! `#[derive(SystemParam)]` composes checked parameters; its access is the union of its fields'.
use rota::{Commands, Component, Entity, Query, Res, Resource, SystemParam, World, system};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Velocity(f32);
#[derive(Component, Clone)]
struct Marked;
#[derive(Resource, Clone)]
struct Gravity(f32);

#[derive(SystemParam)]
struct Movers<'w, S = ()> {
    bodies: Query<'w, (Entity, &'static mut Position, &'static Velocity)>,
    gravity: Res<'w, Gravity>,
    commands: Commands<'w, S>,
}

#[derive(SystemParam)]
struct Outer<'w, S = ()>(Movers<'w, S>);

#[system(reads(Velocity, Gravity), writes(Position), defers(Marked))]
fn movement(mut m: Outer) {
    let g = m.0.gravity.0;
    for (e, p, v) in &mut m.0.bodies {
        p.0 += v.0 - g;
        m.0.commands.insert(e, Marked);
    }
}

pub fn main() {
    let mut world = World::new();
    world.insert_resource(Gravity(1.0));
    world.spawn_with((Position(0.0), Velocity(3.0)));
    let report = world.run(movement);
    assert!(report.is_clean());
    assert_eq!(world.query::<&Position>().next().unwrap().0, 2.0);
    assert_eq!(world.query::<&Marked>().count(), 1);
}
