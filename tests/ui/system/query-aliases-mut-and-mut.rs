#![allow(unused_imports, dead_code, unused_variables)]

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
fn twice(mut q: Query<(&mut Position, &mut Position)>) {
    for (a, b) in &mut q {
        a.0 = b.0;
    }
}
fn main() {}
