#![allow(dead_code)]

use rota::{system, Commands, Component, World};

#[derive(Component, Clone)]
struct Hp(u32);

#[system(defers(Hp))]
fn breed(mut commands: Commands) {
    commands.spawn((Hp(1), Hp(2)));
}

fn main() {
    let _ = World::new().run(breed);
}
