#![no_implicit_prelude]

#[derive(::rota::Component, Clone)]
struct Position {
    x: f32,
}

#[derive(::rota::Component, Clone)]
struct Wrapper<T> {
    inner: T,
}

#[derive(::rota::Component, Clone)]
enum Team {
    Red,
    Blue,
}

#[derive(::rota::Resource, Clone)]
struct Gravity(f32);

fn main() {
    let mut world = ::rota::World::new();
    let e = world.spawn_with((Position { x: 1.0 }, Wrapper { inner: 3u8 }, Team::Red));
    world.insert_resource(Gravity(9.8));
    let _ = (e, Team::Blue);
}
