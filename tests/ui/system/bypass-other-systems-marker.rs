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

#[system(writes(Health))]
fn healer(mut q: Query<&mut Health>) {
    for h in &mut q {
        h.0 = 100;
    }
}

#[system(reads(Position))]
fn sneaky(mut q: Query<&mut Health, (), healer>) {
    for h in &mut q {
        h.0 = 0;
    }
}
fn main() {}
