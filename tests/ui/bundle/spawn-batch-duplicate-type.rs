#![allow(dead_code)]

use rota::{Component, World};

#[derive(Component, Clone)]
struct Hp(u32);
#[derive(Component, Clone)]
struct Speed(f32);

fn main() {
    let mut world = World::new();
    world.spawn_batch((0..3).map(|i| (Hp(i), Speed(1.0), Hp(i + 1))));
}
