//! Resources: one value per type per world, with typed errors for missing ones.
//!
//! Run: `cargo run --example resources`

use rota::{Component, Query, Res, ResMut, Resource, World, system};

#[derive(Resource, Clone)]
struct Gravity(f32);
#[derive(Resource, Clone, Default, Debug)]
struct Falls(u32);
#[derive(Component, Clone)]
struct Height(f32);

#[system(reads(Gravity), writes(Height, Falls))]
fn fall(mut q: Query<&mut Height>, gravity: Res<Gravity>, mut falls: ResMut<Falls>) {
    for h in &mut q {
        h.0 = (h.0 - gravity.0).max(0.0);
        falls.0 += 1;
    }
}

fn main() {
    let mut world = World::new();
    match world.resource::<Gravity>() {
        Ok(g) => println!("gravity {}", g.0),
        Err(e) => println!("{e}"),
    }
    world.insert_resource(Gravity(9.8));
    world.insert_resource(Falls::default());
    world.spawn_with((Height(20.0),));
    for _ in 0..3 {
        let _ = world.run(fall);
    }
    println!("falls: {:?}", world.resource::<Falls>().expect("inserted"));
    let old = world.insert_resource(Gravity(1.6));
    println!("replaced gravity {}", old.map_or(0.0, |g| g.0));
    println!("removed: {:?}", world.remove_resource::<Falls>());
}
