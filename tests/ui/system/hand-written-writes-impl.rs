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

use rota::rota_core::system::{Reads, Writes};

#[system(reads(Position))]
fn movement(q: Query<&Position>) {
    let _ = q.iter().count();
}

impl Reads<Health> for movement {}
impl Writes<Health> for movement {}
fn main() {}
