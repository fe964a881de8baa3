#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Health(u32);
#[derive(Resource)]
struct Gravity(f32);


#[system(reads(Position), defers(Position))]
fn tagger(q: Query<(Entity, &Position)>, mut commands: Commands) {
    for (e, _) in q.iter() {
        commands.insert(e, Health(1));
    }
}
fn main() {}
