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

type Hp = Health;

#[system(reads(Velocity), writes(Position))]
fn movement(mut q: Query<(&mut Position, &mut Hp)>) {
    for (p, h) in &mut q {
        p.0 += 1.0;
        h.0 = 0;
    }
}
fn main() {}
