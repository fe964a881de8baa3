#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Velocity(f32);
#[derive(Component)]
struct Health(u32);
#[derive(Resource)]
struct Gravity(f32);

#[system(reads(Velocity), write(Position), run_if = true)]
fn movement(q: Query<&Velocity>) {
    let _ = q.iter().count();
}
fn main() {}
