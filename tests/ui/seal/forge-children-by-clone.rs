#![allow(unused_imports, dead_code, unused_variables)]

// `Children` is not `Clone` and has no public constructor: a list read from one entity cannot
// be inserted on another (e.g. a node listed as its own child).

use rota::{Children, World};

fn main() {
    let mut world = World::new();
    let [a, b] = [(); 2].map(|_| world.spawn());
    world.set_parent(b, a).unwrap();
    let listed: Children = world.get::<Children>(a).unwrap().clone();
    let _ = world.insert(b, listed);
}
