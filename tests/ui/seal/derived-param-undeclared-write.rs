#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


#[derive(SystemParam)]
struct Healers<'w> {
    health: Query<'w, &'static mut Health>,
    gravity: Res<'w, Gravity>,
}

#[system(reads(Gravity, Health))]
fn heal(mut h: Healers) {
    for hp in &mut h.health {
        hp.0 += 1;
    }
}
fn main() {}
