use std::sync::Mutex;

use rota::{Component, World};

// A generic component is a component only where it is `Clone`: `Wrapper<Mutex<u8>>` is not.
#[derive(Component, Clone)]
struct Wrapper<T>(T);

fn main() {
    let mut world = World::new();
    world.spawn_with((Wrapper(Mutex::new(0u8)),));
}
