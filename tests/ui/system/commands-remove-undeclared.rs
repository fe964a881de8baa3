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

#[system(reads(Position))]
fn cure(q: Query<(rota::Entity, &Position)>, mut commands: Commands) {
    for (e, _) in q.iter() {
        commands.remove::<Health>(e);
    }
}
fn main() {}
