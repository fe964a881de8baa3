#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Component, Query};

#[derive(Component, Clone)]
struct Velocity(f32);

#[system(reads(Velocity), after(movement))]
fn movement(q: Query<&Velocity>) {
    let _ = q.iter().count();
}

fn main() {}
