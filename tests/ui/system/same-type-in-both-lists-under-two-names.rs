#![allow(unused_imports, dead_code, unused_variables)]

// A known limit, pinned: `#[system]` recognises a type in both lists by its spelling, so an
// alias in one list and the plain name in the other produce two `Reads` impls for one type.
// Spell a component the same way in both lists (or list it in `writes` only: writes imply reads).
use rota::{system, Component, Query};

#[derive(Component, Clone)]
struct Position(f32);

type Pos = Position;

#[system(reads(Pos), writes(Position))]
fn both(mut q: Query<&mut Position>) {
    for p in &mut q {
        p.0 += 1.0;
    }
}

fn main() {}
