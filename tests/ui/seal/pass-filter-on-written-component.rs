//! A filter reads membership, not values, and membership cannot change inside a batch
//! (structural changes are deferred): `&mut H` with `With<H>` does not alias. bevy accepts both.
use rota::{Component, Query, With, World, system};

#[derive(Component, Clone)]
struct Health(u32);
#[derive(Component, Clone)]
struct Position(f32);

#[system(writes(Health))]
fn same_query(mut q: Query<&mut Health, With<Health>>) {
    for h in &mut q {
        h.0 += 1;
    }
}

#[system(writes(Health), reads(Position))]
fn across_queries(mut hp: Query<&mut Health>, pos: Query<&Position, With<Health>>) {
    let n = pos.iter().count() as u32;
    for h in &mut hp {
        h.0 += n;
    }
}

pub fn main() {
    let mut world = World::new();
    world.spawn_with((Health(1), Position(0.0)));
    world.spawn_with((Position(0.0),));
    let _ = world.run(same_query);
    let _ = world.run(across_queries);
    let hp: Vec<u32> = world.query::<&Health>().map(|h| h.0).collect();
    assert_eq!(hp, [3]);
}
