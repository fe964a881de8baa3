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
fn breed(mut commands: Commands) {
    commands.spawn((Position(0.0), Health(10)));
}
fn main() {}
