#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


#[derive(SystemParam)]
struct Both<'w> {
    a: Query<'w, &'static mut Health>,
    b: Query<'w, &'static Health>,
}

#[system(writes(Health))]
fn both(b: Both) {}
fn main() {}
