#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component};

#[derive(Component, Clone)]
struct Health(u32);

#[system(writes(Health))]
fn spawn_twice(mut first: Commands, mut second: Commands) {
    first.spawn((Health(1),));
    second.spawn((Health(2),));
}

fn main() {}
