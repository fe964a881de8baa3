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

#[derive(::rota::Component, ::rota::StableHash, Clone)]
struct Hashed(u32);

#[derive(::rota::Component)]
#[component(no_snapshot)]
struct NotCloned(u32);

#[derive(::rota::Resource)]
#[resource(no_snapshot)]
struct NotClonedResource(u32);

pub fn main() {
    let mut world = ::rota::World::new();
    let e = world.spawn_with((Position { x: 1.0 }, Wrapper { inner: 3u8 }, Team::Red));
    world.insert_resource(Gravity(9.8));
    world.insert(e, Hashed(1)).unwrap();
    let _ = (e, Team::Blue, NotCloned(0).0, NotClonedResource(0).0);
    let _ = world.snapshot().unwrap();
}
