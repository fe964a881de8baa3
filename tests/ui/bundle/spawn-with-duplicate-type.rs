#![allow(dead_code)]

use rota::{Component, World};

#[derive(Component, Clone)]
struct Hp(u32);

fn main() {
    let mut world = World::new();
    world.spawn_with((Hp(1), Hp(2)));
}
