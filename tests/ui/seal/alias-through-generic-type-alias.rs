#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


type Q2<'w> = Query<'w, (&'static mut Health, &'static Health)>;

#[system(writes(Health))]
fn aliased(q: Q2) {}
fn main() {}
