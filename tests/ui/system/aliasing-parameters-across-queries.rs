use rota::{system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Velocity(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);

#[system(writes(Position))]
fn twice(mut a: Query<&mut Position>, b: Query<&Position>) {
    let _ = b.iter().count();
    for p in &mut a {
        p.0 = 1.0;
    }
}
fn main() {}
