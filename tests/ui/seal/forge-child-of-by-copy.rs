#![allow(unused_imports, dead_code, unused_variables)]

// `ChildOf` is not `Copy` (nor `Clone`) and has no public constructor: a value read from one
// entity cannot be inserted on another (e.g. a node made its own parent).

use rota::{ChildOf, World};

fn main() {
    let mut world = World::new();
    let [a, b] = [(); 2].map(|_| world.spawn());
    world.set_parent(b, a).unwrap();
    let forged = *world.get::<ChildOf>(b).unwrap();
    let _ = world.insert(a, forged);
}
