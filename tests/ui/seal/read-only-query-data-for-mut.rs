#![allow(unused_imports, dead_code, unused_variables)]

// `&mut Health` is a local type wherever `Health` is, so only a seal keeps a crate from
// declaring its own `&mut` query read-only (and so shareable through `&World`).

use rota::{Component, ReadOnlyQueryData, World};

#[derive(Component, Clone)]
struct Health(u32);

impl ReadOnlyQueryData for &mut Health {}

fn main() {
    let world = World::new();
    for h in world.query::<&mut Health>() {
        h.0 = 0;
    }
}
