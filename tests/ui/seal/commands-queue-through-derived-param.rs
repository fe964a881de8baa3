#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


#[derive(SystemParam)]
struct Sneak<'w> {
    commands: Commands<'w>,
}

#[system(reads(Position))]
fn sneaky(mut s: Sneak) {
    s.commands.queue(|world: &mut World| {
        world.spawn_with((Health(1),));
    });
}
fn main() {}
