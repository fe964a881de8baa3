#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Component, Query};

#[derive(Component, Clone)]
struct Health(u32);

// A helper written for "any" query of `&mut Health` is written for the unrestricted marker;
// a system's query carries the system's own marker, so it cannot be passed in.
fn heal_all(q: &mut Query<&mut Health>) {
    for h in q.iter_mut() {
        h.0 = 100;
    }
}

#[system(reads(Health))]
fn sneaky(mut q: Query<&Health>) {
    heal_all(&mut q);
}

fn main() {}
