#![no_implicit_prelude]

#[derive(::rota::Component, Clone)]
struct Position(f32);
#[derive(::rota::Component, Clone)]
struct Velocity(f32);
#[derive(::rota::Resource, Clone)]
struct Gravity(f32);

#[::rota::system(reads(Velocity, Gravity), writes(Position))]
fn movement(
    mut q: ::rota::Query<(&mut Position, &Velocity)>,
    g: ::rota::Res<Gravity>,
    mut commands: ::rota::Commands,
) {
    for (p, v) in &mut q {
        p.0 += v.0 - g.0;
    }
    let _ = &mut commands;
}

pub fn main() {
    let mut world = ::rota::World::new();
    world.insert_resource(Gravity(1.0));
    let _ = world.run(movement);
}
