#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


#[derive(SystemParam)]
struct Twice<'w, S = ()> {
    a: Commands<'w, S>,
    b: Commands<'w, S>,
}

#[system(writes(Health))]
fn spawner(mut t: Twice) {}
fn main() {}
